// SPDX-License-Identifier: GPL-2.0-only
/* The logging layer: one prefix, one line a message, levels, -v. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "util/log.h"
#include "unit.h"

/* What the messages logged by fn wrote to stderr. */
static const char *captured(void (*fn)(void))
{
	static char buf[4096];
	FILE *tmp = tmpfile();
	int saved = dup(STDERR_FILENO);
	size_t n;

	fflush(stderr);
	dup2(fileno(tmp), STDERR_FILENO);
	fn();
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	rewind(tmp);
	n = fread(buf, 1, sizeof(buf) - 1, tmp);
	buf[n] = '\0';
	fclose(tmp);
	return buf;
}

static void each_level(void)
{
	log_err("policy.ini:%d: unknown key \"%s\"", 12, "quantil");
	log_warn("no control socket");
	log_note("trace in %s", "/tmp/t");
	log_debug("a libbpf line\n");
}

static void test_prefix_and_one_newline(void)
{
	log_set_level(LOG_DEBUG);
	CHECK_STR(captured(each_level), "sclat: policy.ini:12: unknown key \"quantil\"\n"
					"sclat: no control socket\n"
					"sclat: trace in /tmp/t\n"
					"sclat: a libbpf line\n");
}

static void test_debug_only_when_verbose(void)
{
	log_set_level(LOG_NOTE);
	CHECK_STR(captured(each_level), "sclat: policy.ini:12: unknown key \"quantil\"\n"
					"sclat: no control socket\n"
					"sclat: trace in /tmp/t\n");
	CHECK(!log_enabled(LOG_DEBUG), "debug enabled at LOG_NOTE");
	log_set_level(LOG_ERR);
	CHECK_STR(captured(each_level), "sclat: policy.ini:12: unknown key \"quantil\"\n");
}

static void test_prefix_is_the_programs(void)
{
	log_set_level(LOG_NOTE);
	log_set_prefix("sclat-lami");
	CHECK_STR(captured(each_level), "sclat-lami: policy.ini:12: unknown key \"quantil\"\n"
					"sclat-lami: no control socket\n"
					"sclat-lami: trace in /tmp/t\n");
	log_set_prefix("sclat");
}

/*
 * "log_err(...); return -errno;" returns what failed, not what writing the
 * message did: here the write fails too (stderr closed, EBADF).
 */
static void test_errno_kept(void)
{
	int saved = dup(STDERR_FILENO), err;

	log_set_level(LOG_NOTE);
	fflush(stderr);
	close(STDERR_FILENO);
	errno = EACCES;
	log_err("open: %s", "denied");
	err = errno;
	dup2(saved, STDERR_FILENO);
	close(saved);
	clearerr(stderr);
	CHECK_EQ_INT(err, EACCES);
}

int main(void)
{
	RUN(test_prefix_and_one_newline);
	RUN(test_debug_only_when_verbose);
	RUN(test_prefix_is_the_programs);
	RUN(test_errno_kept);
	return unit_done();
}
