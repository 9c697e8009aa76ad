// SPDX-License-Identifier: GPL-2.0-only
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include "control_client.h"
#include "control_protocol.h"
#include "util/log.h"

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

/* A connection to the socket at path, or -errno (-ECONNREFUSED: nobody listens). */
static int socket_connect(const char *path)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	struct timeval tv = { .tv_sec = CONTROL_IO_TIMEOUT_S * 2 };
	struct ucred cred;
	socklen_t len = sizeof(cred);
	int fd, err;

	if (strlen(path) >= sizeof(addr.sun_path))
		return -ENAMETOOLONG;
	memcpy(addr.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&addr, sizeof(addr))) {
		err = -errno;
		close(fd);
		return err;
	}
	/*
	 * A tracer runs as root or as us: a socket another user listens on (a
	 * --socket in a directory others write) is no tracer of ours, and what
	 * it would answer is not to be printed or saved as a tracer's.
	 */
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) ||
	    (cred.uid != 0 && cred.uid != geteuid())) {
		close(fd);
		return -EPERM;
	}
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	return fd;
}

/*
 * A connection to the only live tracer of the run directory. A socket is
 * live when a tracer accepts on it: its file name's pid may belong to
 * another process by now. Those nobody listens on are removed.
 */
static int control_find(void)
{
	const char *dir = control_run_dir();
	char pids[256] = "", path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	struct dirent *de;
	int live = 0, pid, fd, found = -1;
	size_t used = 0;
	char extra;
	DIR *d;

	d = opendir(dir);
	if (!d && errno != ENOENT) {
		log_err("%s: %s", dir, strerror(errno));
		return -errno;
	}
	while (d && (de = readdir(d))) {
		if (sscanf(de->d_name, "%d.soc%c", &pid, &extra) != 2 || extra != 'k' || pid <= 0)
			continue;
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) >= sizeof(path))
			continue;
		fd = socket_connect(path);
		/* A tracer killed before it could clean up left its socket behind. */
		if (fd == -ECONNREFUSED)
			unlink(path);
		if (fd < 0)
			continue;
		live++;
		if (found < 0)
			found = fd;
		else
			close(fd);
		if (used < sizeof(pids))
			used += snprintf(pids + used, sizeof(pids) - used, "%s%d",
					 live > 1 ? ", " : "", pid);
	}
	if (d)
		closedir(d);
	if (!live) {
		log_err("no tracer is running (no control socket in %s); start "
			"one with 'sclat watch' or 'sclat record'",
			dir);
		return -ENOENT;
	}
	if (live > 1) {
		close(found);
		log_err("%d tracers are running (pids %s): choose one with "
			"--pid PID",
			live, pids);
		return -EEXIST;
	}
	return found;
}

int control_connect(const struct control_target *t)
{
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	int fd;

	if (!t->socket && !t->pid)
		return control_find();
	if (t->socket && strlen(t->socket) >= sizeof(path)) {
		log_err("--socket %s: path too long", t->socket);
		return -ENAMETOOLONG;
	}
	if (t->socket)
		snprintf(path, sizeof(path), "%s", t->socket);
	else
		snprintf(path, sizeof(path), "%s/%d.sock", control_run_dir(), t->pid);
	fd = socket_connect(path);
	if (fd == -ENOENT && t->pid)
		log_err("no tracer with pid %d is running (no %s)", t->pid, path);
	else if (fd == -ECONNREFUSED)
		log_err("%s: no tracer is listening (a stale socket of a "
			"tracer that was killed?)",
			path);
	else if (fd == -EPERM)
		log_err("%s: the process listening there is neither root's nor yours: "
			"not a tracer of yours",
			path);
	else if (fd < 0)
		log_err("%s: %s", path, strerror(-fd));
	/* Nobody will ever answer on it: clear it for the next client. */
	if (fd == -ECONNREFUSED && !t->socket)
		unlink(path);
	return fd;
}

int control_request(const struct control_target *t, const char *request, FILE *out)
{
	char buf[4096], first[1100];
	size_t first_len = 0, body = 0, expected = 0;
	bool in_first = true, is_ok = false, sized = false;
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
			log_err("reading the answer: %s",
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
		if (!in_first && !is_ok) {
			/* "ok", or "ok LENGTH" (the body's, in bytes). */
			first[first_len] = '\0';
			is_ok = !strcmp(first, "ok") || sscanf(first, "ok %zu", &expected) == 1;
			sized = is_ok && strcmp(first, "ok");
		}
		if (!in_first && i < n) {
			if (!is_ok)
				continue; /* an error has no body */
			fwrite(buf + i, 1, n - i, out);
			body += n - i;
		}
	}
	first[first_len] = '\0';
	if (in_first && send_err) {
		log_err("sending the request: %s", strerror(send_err));
	} else if (in_first) {
		log_err("the tracer closed the connection without answering");
	} else if (is_ok && sized && body != expected) {
		log_err("the tracer's answer was cut short (%zu of %zu bytes)", body, expected);
	} else if (is_ok) {
		ret = 0;
	} else if (!strncmp(first, "error: ", 7)) {
		log_err("%s", first + 7);
	} else {
		log_err("unexpected answer \"%s\"", first);
	}
out:
	close(fd);
	return ret;
}
