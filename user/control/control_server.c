// SPDX-License-Identifier: GPL-2.0-only
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include <urcu/urcu-memb.h>
#include "util/compiler.h"
#include "control_protocol.h"
#include "control_server.h"
#include "status_render.h"
#include "controller/controller.h"
#include "policy/policy.h"

struct control {
	struct controller *ctl;
	const char *policy_file;
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	int listen_fd;
	int wake[2]; /* 'h': SIGHUP, 'q': stop */
	pthread_t thread;
	bool thread_started;
	struct sigaction old_hup;
	bool hup_installed;
};

/* Only one tracer's SIGHUP goes to one wake pipe: the process has one tracer. */
static int control_hup_fd = -1;

static void on_sighup(int sig __always_unused)
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

/* policy set: the pairs applied to a copy, published only if all apply. */
static int policy_set(const struct control_req *req, FILE *out, char *err, size_t errlen)
{
	struct policy *cur, *p = NULL, *next;
	char reason[512];
	int i;

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
	for (i = 0; i < req->nr_pairs; i++) {
		const struct control_pair *kv = &req->pairs[i];

		next = policy_with(p, kv->syscall, kv->key, kv->value, reason, sizeof(reason));
		if (!next) {
			if (kv->syscall)
				snprintf(err, errlen, "--syscall %s %s=%s: %s", kv->syscall,
					 kv->key, kv->value, reason);
			else
				snprintf(err, errlen, "%s", reason);
			policy_free(p);
			return -EINVAL;
		}
		policy_free(p);
		p = next;
		fprintf(out, "%s%s%s = %s\n", kv->syscall ? kv->syscall : "",
			kv->syscall ? ": " : "", kv->key, kv->value);
	}
	policy_publish(p);
	return 0;
}

/* Wait for the controller's first interval and take a status snapshot; 0 or -errno, err says. */
static int status_snapshot(struct control *c, struct controller_status *st, char *err,
			   size_t errlen)
{
	int ret = -ENOENT, tries;

	if (!c->ctl) {
		snprintf(err, errlen, "the controller is not running");
		return ret;
	}
	/* Nothing to show before the controller's first pass: wait for it a little. */
	for (tries = 0; tries < 40; tries++) {
		ret = controller_status(c->ctl, st);
		if (ret != -EAGAIN)
			break;
		usleep(50000);
	}
	if (ret == -EAGAIN)
		snprintf(err, errlen,
			 "no status yet: the controller has not finished an "
			 "interval; try again");
	else if (ret)
		snprintf(err, errlen, "reading the status: %s", strerror(-ret));
	return ret;
}

static int status_answer(struct control *c, bool json, FILE *out, char *err, size_t errlen)
{
	struct controller_status *st;
	char source[sizeof(((struct policy *)0)->source)] = "";
	struct policy *p;
	int ret;

	st = calloc(1, sizeof(*st));
	if (!st) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	ret = status_snapshot(c, st, err, errlen);
	if (ret) {
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

/* "the tracer 4242 on db1 at 2025-01-01 12:00:00 UTC": where learned thresholds come from. */
static void learned_origin(char *buf, size_t len)
{
	char host[HOST_NAME_MAX + 1] = "?", when[32] = "?";
	time_t now = time(NULL);
	struct tm tm;

	gethostname(host, sizeof(host));
	host[sizeof(host) - 1] = '\0';
	if (gmtime_r(&now, &tm))
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
	snprintf(buf, len, "the tracer %d on %s at %s UTC", getpid(), host, when);
}

/*
 * policy show learned: the running policy, with the threshold of every
 * adaptive syscall past min_samples as its initial value.
 */
static int policy_show_learned(struct control *c, FILE *out, char *err, size_t errlen)
{
	struct controller_status *st = calloc(1, sizeof(*st));
	struct policy_learned *l = calloc(SCLAT_MAX_SYSCALLS, sizeof(*l));
	char origin[HOST_NAME_MAX + 128];
	struct policy *p;
	unsigned int i;
	size_t n = 0;
	int ret;

	if (!st || !l) {
		snprintf(err, errlen, "out of memory");
		ret = -ENOMEM;
		goto out;
	}
	ret = status_snapshot(c, st, err, errlen);
	if (ret)
		goto out;
	for (i = 0; i < st->nr_syscalls; i++) {
		const struct syscall_status *ss = &st->syscalls[i];

		/* Only an estimate past min_samples is learned: the rest is the policy's. */
		if (!ss->armed || !ss->basis.estimate_ns ||
		    ss->threshold_ns == SCLAT_THRESHOLD_NEVER)
			continue;
		l[n++] = (struct policy_learned){
			.nr = ss->nr,
			.threshold_ns = ss->threshold_ns,
			.estimate_ns = ss->basis.estimate_ns,
			.quantile = ss->basis.quantile,
			.samples = ss->basis.samples,
		};
	}
	learned_origin(origin, sizeof(origin));
	urcu_memb_read_lock();
	p = policy_current();
	if (p)
		ret = policy_write_learned(p, l, n, origin, out);
	urcu_memb_read_unlock();
	if (!p) {
		snprintf(err, errlen, "no policy is published");
		ret = -ENOENT;
	} else if (ret) {
		snprintf(err, errlen, "writing the policy: %s", strerror(-ret));
	}
out:
	free(l);
	free(st);
	return ret;
}

/* Run one request; the body goes to out, a failure's reason to err. */
static int control_handle(struct control *c, char *line, FILE *out, char *err, size_t errlen)
{
	struct control_req req;
	struct policy *p;

	if (control_request_parse(line, &req, err, errlen))
		return -EINVAL;
	switch (req.verb) {
	case CONTROL_STATUS:
		return status_answer(c, req.json, out, err, errlen);
	case CONTROL_POLICY_SHOW:
		if (req.learned)
			return policy_show_learned(c, out, err, errlen);
		urcu_memb_read_lock();
		p = policy_current();
		if (p)
			policy_write_ini(p, out);
		urcu_memb_read_unlock();
		if (!p)
			snprintf(err, errlen, "no policy is published");
		return p ? 0 : -ENOENT;
	case CONTROL_POLICY_SET:
		return policy_set(&req, out, err, errlen);
	case CONTROL_POLICY_LOAD:
		if (policy_reload(req.path, err, errlen))
			return -EINVAL;
		fprintf(out, "%s\n", err);
		err[0] = '\0';
		return 0;
	}
	snprintf(err, errlen, "unknown request");
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
		control_send(fd, "error: permission denied\n", 25);
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

		control_send(fd, line, len < (int)sizeof(line) ? len : (int)sizeof(line) - 1);
	} else if (!control_send(fd, "ok\n", 3)) {
		control_send(fd, body, body_len);
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
	if (bind(c->listen_fd, (struct sockaddr *)&addr, sizeof(addr)) || chmod(c->path, 0600) ||
	    listen(c->listen_fd, 8)) {
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
