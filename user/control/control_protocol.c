// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include "control_protocol.h"

const char *control_run_dir(void)
{
	const char *dir = getenv("SCLAT_RUN_DIR");

	return dir && *dir ? dir : CONTROL_RUN_DIR;
}

int control_send(int fd, const char *buf, size_t len)
{
	ssize_t n;

	while (len) {
		n = send(fd, buf, len, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		buf += n;
		len -= n;
	}
	return 0;
}

/* A --syscall that no pair follows would leave the pairs before it at [default]. */
static int bare_syscall(const char *syscall, char *err, size_t errlen)
{
	snprintf(err, errlen, "--syscall %.64s: " CONTROL_BARE_SYSCALL, syscall);
	return -EINVAL;
}

/* "policy set" arguments: [--syscall NAME] KEY=VALUE..., all checked before any applies. */
static int pairs_parse(char *args, struct control_req *req, char *err, size_t errlen)
{
	const char *syscall = NULL;
	char *save = NULL, *tok, *eq;
	bool bare = false; /* syscall has had no pair yet */

	for (tok = strtok_r(args, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
		if (!strcmp(tok, "--syscall")) {
			if (bare)
				return bare_syscall(syscall, err, errlen);
			syscall = strtok_r(NULL, " \t", &save);
			if (!syscall) {
				snprintf(err, errlen, "--syscall needs a syscall name");
				return -EINVAL;
			}
			bare = true;
			continue;
		}
		bare = false;
		eq = strchr(tok, '=');
		if (!eq || eq == tok) {
			snprintf(err, errlen, "\"%.64s\": expected KEY=VALUE", tok);
			return -EINVAL;
		}
		if (req->nr_pairs == CONTROL_MAX_PAIRS) {
			snprintf(err, errlen, "too many settings at once (at most %d)",
				 CONTROL_MAX_PAIRS);
			return -EINVAL;
		}
		*eq = '\0';
		req->pairs[req->nr_pairs++] = (struct control_pair){
			.syscall = syscall,
			.key = tok,
			.value = eq + 1,
		};
	}
	if (!req->nr_pairs) {
		snprintf(err, errlen, "nothing to set: give KEY=VALUE pairs");
		return -EINVAL;
	}
	return bare ? bare_syscall(syscall, err, errlen) : 0;
}

int control_request_parse(char *line, struct control_req *req, char *err, size_t errlen)
{
	memset(req, 0, sizeof(*req));
	if (!strcmp(line, "status") || !strcmp(line, "status json")) {
		req->verb = CONTROL_STATUS;
		req->json = true;
		return 0;
	}
	if (!strcmp(line, "status text")) {
		req->verb = CONTROL_STATUS;
		return 0;
	}
	if (!strcmp(line, "top")) {
		req->verb = CONTROL_TOP;
		return 0;
	}
	if (!strcmp(line, "policy show") || !strcmp(line, "policy show learned")) {
		req->verb = CONTROL_POLICY_SHOW;
		req->learned = line[11] != '\0';
		return 0;
	}
	if (!strcmp(line, "policy set") || !strncmp(line, "policy set ", 11)) {
		req->verb = CONTROL_POLICY_SET;
		return pairs_parse(line + 10, req, err, errlen);
	}
	if (!strncmp(line, "policy load ", 12) || !strncmp(line, "policy replace ", 15)) {
		req->verb = CONTROL_POLICY_LOAD;
		req->replace = line[7] == 'r';
		req->path = line + (req->replace ? 15 : 12);
		if (req->path[0] != '/') {
			snprintf(err, errlen, "policy %s needs an absolute path",
				 req->replace ? "replace" : "load");
			return -EINVAL;
		}
		return 0;
	}
	snprintf(err, errlen, "unknown request \"%.64s\"", line);
	return -EINVAL;
}
