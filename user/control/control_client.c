// SPDX-License-Identifier: GPL-2.0-only
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include "control_client.h"
#include "control_protocol.h"

enum {
	OPT_SOCKET = 's',
	OPT_PID = 'p',
};

static const struct argp_option control_options[] = {
	{ "pid", OPT_PID, "PID", 0, "The tracer with this process id (when several run)", 20 },
	{ "socket", OPT_SOCKET, "PATH", 0, "The tracer listening on this control socket", 20 },
	{},
};

static error_t control_parse(int key, char *arg, struct argp_state *state)
{
	struct control_target *t = state->input;
	char *end;
	long pid;

	switch (key) {
	case OPT_PID:
		errno = 0;
		pid = strtol(arg, &end, 10);
		if (errno || *end || pid <= 0 || pid > 0x3fffffff)
			argp_failure(state, 2, 0, "--pid %s: not a process id", arg);
		t->pid = pid;
		break;
	case OPT_SOCKET:
		t->socket = arg;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

const struct argp control_argp = {
	.options = control_options,
	.parser = control_parse,
};

/* The socket of the only live tracer in the run directory; stale ones are removed. */
static int control_find(char *path, size_t len)
{
	const char *dir = control_run_dir();
	char pids[256] = "", candidate[sizeof(((struct sockaddr_un *)0)->sun_path)];
	struct dirent *de;
	int live = 0, pid;
	size_t used = 0;
	char extra;
	DIR *d;

	d = opendir(dir);
	if (!d && errno != ENOENT) {
		fprintf(stderr, "sclat: %s: %s\n", dir, strerror(errno));
		return -errno;
	}
	while (d && (de = readdir(d))) {
		if (sscanf(de->d_name, "%d.soc%c", &pid, &extra) != 2 || extra != 'k' || pid <= 0)
			continue;
		if ((size_t)snprintf(candidate, sizeof(candidate), "%s/%s", dir, de->d_name) >=
		    sizeof(candidate))
			continue;
		/* A tracer killed before it could clean up left its socket behind. */
		if (kill(pid, 0) && errno == ESRCH) {
			unlink(candidate);
			continue;
		}
		live++;
		memcpy(path, candidate, len < sizeof(candidate) ? len : sizeof(candidate));
		if (used < sizeof(pids))
			used += snprintf(pids + used, sizeof(pids) - used, "%s%d",
					 live > 1 ? ", " : "", pid);
	}
	if (d)
		closedir(d);
	if (!live) {
		fprintf(stderr,
			"sclat: no tracer is running (no control socket in %s); start "
			"one with 'sclat watch' or 'sclat record'\n",
			dir);
		return -ENOENT;
	}
	if (live > 1) {
		fprintf(stderr,
			"sclat: %d tracers are running (pids %s): choose one with "
			"--pid PID\n",
			live, pids);
		return -EEXIST;
	}
	return 0;
}

static int control_connect(const struct control_target *t)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	struct timeval tv = { .tv_sec = CONTROL_IO_TIMEOUT_S * 2 };
	int fd, err;

	if (t->socket) {
		if (strlen(t->socket) >= sizeof(addr.sun_path)) {
			fprintf(stderr, "sclat: --socket %s: path too long\n", t->socket);
			return -ENAMETOOLONG;
		}
		snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", t->socket);
	} else if (t->pid) {
		snprintf(addr.sun_path, sizeof(addr.sun_path), "%s/%d.sock", control_run_dir(),
			 t->pid);
	} else {
		err = control_find(addr.sun_path, sizeof(addr.sun_path));
		if (err)
			return err;
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		fprintf(stderr, "sclat: socket: %s\n", strerror(errno));
		return -errno;
	}
	if (connect(fd, (struct sockaddr *)&addr, sizeof(addr))) {
		err = -errno;
		if (err == -ENOENT && t->pid)
			fprintf(stderr, "sclat: no tracer with pid %d is running (no %s)\n", t->pid,
				addr.sun_path);
		else if (err == -ECONNREFUSED)
			fprintf(stderr,
				"sclat: %s: no tracer is listening (a stale socket of a "
				"tracer that was killed?)\n",
				addr.sun_path);
		else
			fprintf(stderr, "sclat: %s: %s\n", addr.sun_path, strerror(-err));
		/* Nobody will ever answer on it: clear it for the next client. */
		if (err == -ECONNREFUSED && !t->socket)
			unlink(addr.sun_path);
		close(fd);
		return err;
	}
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	return fd;
}

int control_request(const struct control_target *t, const char *request, FILE *out)
{
	char buf[4096], first[1100];
	size_t first_len = 0;
	bool in_first = true;
	int fd, ret = 1, send_err = 0;
	ssize_t n, i;

	fd = control_connect(t);
	if (fd < 0)
		return 1;
	/* On a failed send, the tracer may still have said why: read on. */
	if (control_send(fd, request, strlen(request)) || control_send(fd, "\n", 1))
		send_err = errno;
	/* The first line is "ok" or "error: REASON"; the body follows until close. */
	for (;;) {
		n = recv(fd, buf, sizeof(buf), 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			fprintf(stderr, "sclat: reading the answer: %s\n",
				errno == EAGAIN ? "timed out" : strerror(errno));
			goto out;
		}
		if (n == 0)
			break;
		i = 0;
		while (in_first && i < n) {
			if (buf[i] == '\n') {
				in_first = false;
			} else if (first_len < sizeof(first) - 1) {
				first[first_len++] = buf[i];
			}
			i++;
		}
		if (!in_first && i < n) {
			if (first_len != 2 || strncmp(first, "ok", 2))
				continue; /* an error has no body */
			fwrite(buf + i, 1, n - i, out);
		}
	}
	first[first_len] = '\0';
	if (in_first && send_err) {
		fprintf(stderr, "sclat: sending the request: %s\n", strerror(send_err));
	} else if (in_first) {
		fprintf(stderr, "sclat: the tracer closed the connection without answering\n");
	} else if (!strcmp(first, "ok")) {
		ret = 0;
	} else if (!strncmp(first, "error: ", 7)) {
		fprintf(stderr, "sclat: %s\n", first + 7);
	} else {
		fprintf(stderr, "sclat: unexpected answer \"%s\"\n", first);
	}
out:
	close(fd);
	return ret;
}
