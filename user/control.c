// SPDX-License-Identifier: GPL-2.0-only
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include <urcu/urcu-memb.h>
#include "control.h"
#include "controller.h"
#include "policy.h"
#include "status.h"

#define CONTROL_REQUEST_MAX	4096
#define CONTROL_IO_TIMEOUT_S	5
#define CONTROL_MAX_PAIRS	64

struct control {
	struct controller *ctl;
	const char *policy_file;
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	int listen_fd;
	int wake[2];		/* 'h': SIGHUP, 'q': stop */
	pthread_t thread;
	bool thread_started;
	struct sigaction old_hup;
	bool hup_installed;
};

const char *control_run_dir(void)
{
	const char *dir = getenv("SCLAT_RUN_DIR");

	return dir && *dir ? dir : CONTROL_RUN_DIR;
}

/* Only one tracer's SIGHUP goes to one wake pipe: the process has one tracer. */
static int control_hup_fd = -1;

static void on_sighup(int sig)
{
	int saved = errno;
	ssize_t n = 0;

	/* A full pipe means a reload is pending already. */
	if (control_hup_fd >= 0)
		n = write(control_hup_fd, "h", 1);
	(void)n;
	errno = saved;
}

/* Load path and publish it; on error the running policy stays. 0 or -EINVAL, msg says. */
static int policy_reload(const char *path, char *msg, size_t len)
{
	char err[512];
	struct policy *p = policy_load(path, err, sizeof(err));

	if (!p) {
		snprintf(msg, len, "%s (the running policy stays)", err);
		return -EINVAL;
	}
	policy_publish(p);
	snprintf(msg, len, "policy loaded from %s", path);
	return 0;
}

/* "policy set [--syscall NAME] KEY=VALUE...": applied to a copy, published only if all apply. */
static int policy_set(char *args, FILE *out, char *err, size_t errlen)
{
	struct policy *cur, *p = NULL, *next;
	const char *syscall = NULL;
	char *save = NULL, *tok, *eq;
	int pairs = 0;

	urcu_memb_read_lock();
	cur = policy_current();
	if (cur) {
		p = malloc(sizeof(*p));
		if (p)
			memcpy(p, cur, sizeof(*p));
	}
	urcu_memb_read_unlock();
	if (!p) {
		snprintf(err, errlen, cur ? "out of memory" : "no policy is published");
		return -EINVAL;
	}
	for (tok = strtok_r(args, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
		if (!strcmp(tok, "--syscall")) {
			syscall = strtok_r(NULL, " \t", &save);
			if (!syscall) {
				snprintf(err, errlen, "--syscall needs a syscall name");
				goto fail;
			}
			continue;
		}
		eq = strchr(tok, '=');
		if (!eq || eq == tok) {
			snprintf(err, errlen, "\"%s\": expected KEY=VALUE", tok);
			goto fail;
		}
		*eq = '\0';
		next = policy_with(p, syscall, tok, eq + 1, err, errlen);
		if (!next) {
			if (syscall) {
				char reason[512];

				snprintf(reason, sizeof(reason), "%s", err);
				snprintf(err, errlen, "--syscall %s %s=%s: %s", syscall, tok,
					 eq + 1, reason);
			}
			goto fail;
		}
		policy_free(p);
		p = next;
		fprintf(out, "%s%s%s = %s\n", syscall ? syscall : "", syscall ? ": " : "", tok,
			eq + 1);
		pairs++;
	}
	if (!pairs) {
		snprintf(err, errlen, "nothing to set: give KEY=VALUE pairs");
		goto fail;
	}
	policy_publish(p);
	return 0;
fail:
	policy_free(p);
	return -EINVAL;
}

static int status_answer(struct control *c, bool json, FILE *out, char *err, size_t errlen)
{
	struct controller_status *st;
	char source[sizeof(((struct policy *)0)->source)] = "";
	struct policy *p;
	int ret = 0, tries;

	if (!c->ctl) {
		snprintf(err, errlen, "the controller is not running");
		return -ENOENT;
	}
	st = calloc(1, sizeof(*st));
	if (!st) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	/* Nothing to show before the controller's first pass: wait for it a little. */
	for (tries = 0; tries < 40; tries++) {
		ret = controller_status(c->ctl, st);
		if (ret != -EAGAIN)
			break;
		usleep(50000);
	}
	if (ret == -EAGAIN) {
		snprintf(err, errlen, "no status yet: the controller has not finished an "
				      "interval; try again");
		free(st);
		return ret;
	}
	if (ret) {
		snprintf(err, errlen, "reading the status: %s", strerror(-ret));
		free(st);
		return ret;
	}
	urcu_memb_read_lock();
	p = policy_current();
	if (p)
		memcpy(source, p->source, sizeof(source));
	if (json)
		status_write_json(st, p, source, out);
	else
		status_write_text(st, p, source, out);
	urcu_memb_read_unlock();
	free(st);
	return 0;
}

/* Run one request; the body goes to out, a failure's reason to err. */
static int control_handle(struct control *c, char *req, FILE *out, char *err, size_t errlen)
{
	struct policy *p;

	if (!strcmp(req, "status") || !strcmp(req, "status json"))
		return status_answer(c, true, out, err, errlen);
	if (!strcmp(req, "status text"))
		return status_answer(c, false, out, err, errlen);
	if (!strcmp(req, "policy show")) {
		urcu_memb_read_lock();
		p = policy_current();
		if (p)
			policy_write_ini(p, out);
		urcu_memb_read_unlock();
		if (!p)
			snprintf(err, errlen, "no policy is published");
		return p ? 0 : -ENOENT;
	}
	if (!strncmp(req, "policy set ", 11) || !strcmp(req, "policy set"))
		return policy_set(req + 10, out, err, errlen);
	if (!strncmp(req, "policy load ", 12)) {
		if (req[12] != '/') {
			snprintf(err, errlen, "policy load needs an absolute path");
			return -EINVAL;
		}
		if (policy_reload(req + 12, err, errlen))
			return -EINVAL;
		fprintf(out, "%s\n", err);
		err[0] = '\0';
		return 0;
	}
	snprintf(err, errlen, "unknown request \"%.64s\"", req);
	return -EINVAL;
}

static bool peer_allowed(int fd)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len))
		return false;
	return cred.uid == 0 || cred.uid == geteuid();
}

static int write_all(int fd, const char *buf, size_t len)
{
	ssize_t n;

	while (len) {
		n = send(fd, buf, len, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -errno;
		buf += n;
		len -= n;
	}
	return 0;
}

static void control_serve(struct control *c, int fd)
{
	struct timeval tv = { .tv_sec = CONTROL_IO_TIMEOUT_S };
	char req[CONTROL_REQUEST_MAX], err[1024] = "", *body = NULL, *nl;
	size_t got = 0, body_len = 0;
	FILE *out;
	ssize_t n;
	int ret;

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	/* One line; a client that sends nothing (or too much) gets nothing. */
	while (got < sizeof(req) - 1) {
		n = recv(fd, req + got, sizeof(req) - 1 - got, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += n;
		req[got] = '\0';
		if (strchr(req, '\n'))
			break;
	}
	req[got] = '\0';
	nl = strchr(req, '\n');
	if (!nl)
		return;
	*nl = '\0';
	/* Checked after reading, so that the client is not cut off while sending. */
	if (!peer_allowed(fd)) {
		write_all(fd, "error: permission denied\n", 25);
		return;
	}

	out = open_memstream(&body, &body_len);
	if (!out)
		return;
	ret = control_handle(c, req, out, err, sizeof(err));
	fclose(out);
	if (ret) {
		char line[1100];
		int len = snprintf(line, sizeof(line), "error: %s\n", err);

		write_all(fd, line, len < (int)sizeof(line) ? len : (int)sizeof(line) - 1);
	} else if (!write_all(fd, "ok\n", 3)) {
		write_all(fd, body, body_len);
	}
	free(body);
}

static void *control_main(void *arg)
{
	struct control *c = arg;
	struct pollfd pfd[2] = {
		{ .fd = c->wake[0], .events = POLLIN },
		{ .fd = c->listen_fd, .events = POLLIN },
	};
	char msg[1024], cmd;
	int fd;

	urcu_memb_register_thread();
	for (;;) {
		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (pfd[0].revents & POLLIN) {
			if (read(c->wake[0], &cmd, 1) != 1 || cmd == 'q')
				break;
			if (c->policy_file)
				policy_reload(c->policy_file, msg, sizeof(msg));
			else
				snprintf(msg, sizeof(msg), "no --policy file to reload");
			fprintf(stderr, "sclat: SIGHUP: %s\n", msg);
		}
		if (pfd[1].revents & POLLIN) {
			fd = accept4(c->listen_fd, NULL, NULL, SOCK_CLOEXEC);
			if (fd >= 0) {
				control_serve(c, fd);
				close(fd);
			}
		}
	}
	urcu_memb_unregister_thread();
	return NULL;
}

/* The run directory, root's only: created 0700, or refused if others can get in. */
static int run_dir_prepare(const char *dir)
{
	struct stat st;

	if (mkdir(dir, 0700) && errno != EEXIST) {
		fprintf(stderr, "sclat: control socket: mkdir %s: %s\n", dir, strerror(errno));
		return -errno;
	}
	if (stat(dir, &st)) {
		fprintf(stderr, "sclat: control socket: %s: %s\n", dir, strerror(errno));
		return -errno;
	}
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid()) {
		fprintf(stderr, "sclat: control socket: %s is not a directory of ours\n", dir);
		return -EPERM;
	}
	if ((st.st_mode & 0077) && chmod(dir, 0700)) {
		fprintf(stderr, "sclat: control socket: chmod %s: %s\n", dir, strerror(errno));
		return -errno;
	}
	return 0;
}

/* The listening socket, c->listen_fd; it says why on stderr when it fails. */
static int control_listen(struct control *c)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	const char *dir = control_run_dir();
	int err;

	err = run_dir_prepare(dir);
	if (err)
		return err;
	if ((size_t)snprintf(c->path, sizeof(c->path), "%s/%d.sock", dir, getpid()) >=
	    sizeof(c->path)) {
		fprintf(stderr, "sclat: control socket: %s: path too long\n", dir);
		c->path[0] = '\0';
		return -ENAMETOOLONG;
	}
	memcpy(addr.sun_path, c->path, sizeof(c->path));
	c->listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (c->listen_fd < 0) {
		err = -errno;
		fprintf(stderr, "sclat: control socket: %s\n", strerror(-err));
		return err;
	}
	/* Our pid's socket can only be a dead tracer's that had our pid before. */
	unlink(c->path);
	if (bind(c->listen_fd, (struct sockaddr *)&addr, sizeof(addr)) ||
	    chmod(c->path, 0600) || listen(c->listen_fd, 8)) {
		err = -errno;
		fprintf(stderr, "sclat: control socket %s: %s\n", c->path, strerror(-err));
		unlink(c->path);
		close(c->listen_fd);
		c->listen_fd = -1;
		return err;
	}
	return 0;
}

int control_start(struct control **cp, struct controller *ctl, const char *policy_file)
{
	struct sigaction sa = { .sa_handler = on_sighup, .sa_flags = SA_RESTART };
	struct control *c;
	int err;

	*cp = NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->ctl = ctl;
	c->policy_file = policy_file;
	c->listen_fd = -1;
	c->wake[0] = c->wake[1] = -1;
	if (pipe2(c->wake, O_CLOEXEC | O_NONBLOCK)) {
		err = -errno;
		fprintf(stderr, "sclat: control thread: pipe: %s\n", strerror(-err));
		goto fail;
	}
	/*
	 * Without a socket (it said why) the thread still serves SIGHUP: a
	 * reload must never be what ends a tracer.
	 */
	if (control_listen(c))
		fprintf(stderr, "sclat: no live tuning (sclat status, sclat policy) for this run; "
				"SIGHUP still reloads the policy file\n");
	err = -pthread_create(&c->thread, NULL, control_main, c);
	if (err) {
		fprintf(stderr, "sclat: control thread: %s\n", strerror(-err));
		goto fail;
	}
	c->thread_started = true;
	control_hup_fd = c->wake[1];
	if (!sigaction(SIGHUP, &sa, &c->old_hup))
		c->hup_installed = true;
	*cp = c;
	return 0;
fail:
	control_stop(c);
	return err;
}

void control_stop(struct control *c)
{
	if (!c)
		return;
	if (c->hup_installed) {
		sigaction(SIGHUP, &c->old_hup, NULL);
		control_hup_fd = -1;
	}
	if (c->thread_started) {
		while (write(c->wake[1], "q", 1) < 0 && errno == EINTR)
			;
		pthread_join(c->thread, NULL);
	}
	if (c->listen_fd >= 0) {
		close(c->listen_fd);
		unlink(c->path);
	}
	if (c->wake[0] >= 0)
		close(c->wake[0]);
	if (c->wake[1] >= 0)
		close(c->wake[1]);
	free(c);
}

/* Client side. */

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
		if (sscanf(de->d_name, "%d.soc%c", &pid, &extra) != 2 || extra != 'k' ||
		    pid <= 0)
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
		fprintf(stderr, "sclat: no tracer is running (no control socket in %s); start "
				"one with 'sclat watch' or 'sclat record'\n", dir);
		return -ENOENT;
	}
	if (live > 1) {
		fprintf(stderr, "sclat: %d tracers are running (pids %s): choose one with "
				"--pid PID\n", live, pids);
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
			fprintf(stderr, "sclat: %s: no tracer is listening (a stale socket of a "
					"tracer that was killed?)\n", addr.sun_path);
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
	if (write_all(fd, request, strlen(request)) || write_all(fd, "\n", 1))
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
				continue;	/* an error has no body */
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
