// SPDX-License-Identifier: GPL-2.0-only
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
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
#include "util/log.h"

/* Clients served at once; more wait in the listen backlog, each slot frees within a deadline. */
#define CONTROL_CLIENTS	       8
/* A status before the controller's first pass is asked again every 50 ms, for 2 s. */
#define STATUS_RETRY_NS	       50000000ULL
#define STATUS_WAIT_NS	       2000000000ULL
#define CONTROL_DEADLINE_NS    (CONTROL_IO_TIMEOUT_S * 1000000000ULL)
/* Out of descriptors, a pending connection is left queued this long before another try. */
#define CONTROL_ACCEPT_REST_NS 100000000ULL

/*
 * One connection, from accept to close: its request line, then its answer.
 * Every socket is non-blocking and every client has one deadline for all of
 * it, so that one that trickles (or never reads) holds nobody else up.
 */
struct client {
	int fd; /* -1: a free slot */
	__u64 deadline_ns;
	char req[CONTROL_REQUEST_MAX];
	size_t got;
	struct control_req parsed; /* points into req */
	__u64 retry_ns;		   /* != 0: waiting to ask the controller again, then */
	__u64 give_up_ns;	   /* ... until then */
	char *answer;		   /* != NULL: being sent */
	size_t answer_len, sent;
};

struct control {
	struct controller *ctl;
	struct inflight *inflight; /* the run's, listed in the status */
	const char *policy_file;
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	int listen_fd;
	int wake[2]; /* 'h': SIGHUP, 'q': stop */
	pthread_t thread;
	bool thread_started;
	struct sigaction old_hup;
	bool hup_installed;
	struct client clients[CONTROL_CLIENTS];
	__u64 accept_after_ns; /* out of descriptors: the listener rests until then */
};

static __u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

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

/*
 * Publish p through the controller, unless the tracer's kernel maps cannot
 * hold it: then p is freed, the running policy stays and err says why (named
 * by where). A policy that applies within a smaller bound is published with a
 * warning, in warning. 0 or -EINVAL.
 */
static int policy_publish_fitting(struct control *c, struct policy *p, const char *where, char *err,
				  size_t errlen, char *warning, size_t warnlen)
{
	char why[512];
	int fits = controller_policy_publish(c->ctl, p, why, sizeof(why));

	warning[0] = '\0';
	if (fits < 0) {
		snprintf(err, errlen, "%s: %s (the running policy stays)", where, why);
		return -EINVAL;
	}
	if (fits > 0)
		snprintf(warning, warnlen, "sclat: warning: %s: %s", where, why);
	return 0;
}

/* Load path and publish it; on error the running policy stays. 0 or -EINVAL, msg says. */
static int policy_reload(struct control *c, const char *path, char *msg, size_t len)
{
	char err[512], warning[600];
	struct policy *p = policy_load(path, err, sizeof(err));

	if (!p) {
		snprintf(msg, len, "%s (the running policy stays)", err);
		return -EINVAL;
	}
	if (policy_publish_fitting(c, p, path, msg, len, warning, sizeof(warning)))
		return -EINVAL;
	snprintf(msg, len, "policy loaded from %s%s%s", path, *warning ? "\n" : "", warning);
	return 0;
}

/* policy set: the pairs applied to a copy, published only if all apply. */
static int policy_set(struct control *c, const struct control_req *req, FILE *out, char *err,
		      size_t errlen)
{
	char warning[600];
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
	if (policy_publish_fitting(c, p, "policy set", err, errlen, warning, sizeof(warning)))
		return -EINVAL;
	if (*warning)
		fprintf(out, "%s\n", warning);
	return 0;
}

/* Wait for the controller's first interval and take a status snapshot; 0 or -errno, err says. */
static int status_snapshot(struct control *c, struct controller_status *st, char *err,
			   size_t errlen)
{
	int ret = -ENOENT;

	if (!c->ctl) {
		snprintf(err, errlen, "the controller is not running");
		return ret;
	}
	/* Nothing to show before the controller's first pass: the caller asks again (-EAGAIN). */
	ret = controller_status(c->ctl, st);
	if (ret == -EAGAIN)
		snprintf(err, errlen,
			 "no status yet: the controller has not finished an "
			 "interval; try again");
	else if (ret)
		snprintf(err, errlen, "reading the status: %s", strerror(-ret));
	else if (c->inflight)
		st->nr_inflight = inflight_list(c->inflight, st->inflight, CONTROLLER_INFLIGHT_MAX);
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
		if (ss->nr >= SCLAT_MAX_SYSCALLS || !ss->armed || !ss->basis.estimate_ns ||
		    ss->threshold_ns == SCLAT_THRESHOLD_NEVER)
			continue;
		l[n++] = (struct policy_learned){
			.nr = ss->nr,
			/* What it learnt: min_latency is the policy's, written on its own. */
			.threshold_ns = ss->learned_ns,
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

/* Run one request; the body goes to out, a failure's reason to err; -EAGAIN: ask again. */
static int control_handle(struct control *c, const struct control_req *req, FILE *out, char *err,
			  size_t errlen)
{
	struct policy *p;

	switch (req->verb) {
	case CONTROL_STATUS:
		return status_answer(c, req->json, out, err, errlen);
	case CONTROL_POLICY_SHOW:
		if (req->learned)
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
		return policy_set(c, req, out, err, errlen);
	case CONTROL_POLICY_LOAD:
		if (policy_reload(c, req->path, err, errlen))
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

static void client_close(struct client *cl)
{
	if (cl->fd >= 0)
		close(cl->fd);
	free(cl->answer);
	memset(cl, 0, sizeof(*cl));
	cl->fd = -1;
}

/* The answer to send: "ok" and the body, or "error: REASON". */
static void client_answer(struct client *cl, int ret, const char *err, const char *body,
			  size_t body_len)
{
	FILE *f = open_memstream(&cl->answer, &cl->answer_len);

	cl->retry_ns = 0;
	if (!f) {
		client_close(cl);
		return;
	}
	if (ret)
		fprintf(f, "error: %s\n", err);
	else
		/* Its length first: a client that gets less knows the answer was cut. */
		fprintf(f, "ok %zu\n%.*s", body ? body_len : 0, (int)body_len, body ? body : "");
	if (fclose(f))
		client_close(cl);
}

/* Run the parsed request: its answer, or a retry while the controller is not ready. */
static void client_run(struct control *c, struct client *cl, __u64 now)
{
	char err[1024] = "", *body = NULL;
	size_t body_len = 0;
	FILE *out = open_memstream(&body, &body_len);
	int ret;

	if (!out) {
		client_close(cl);
		return;
	}
	ret = control_handle(c, &cl->parsed, out, err, sizeof(err));
	fclose(out);
	if (ret == -EAGAIN && now < cl->give_up_ns)
		cl->retry_ns = now + STATUS_RETRY_NS;
	else
		client_answer(cl, ret, err, body, body_len);
	free(body);
}

/* A whole line came: who asks, and what. */
static void client_request(struct control *c, struct client *cl, __u64 now)
{
	char err[1024] = "";

	/* The line ends at its newline, or at a NUL before it: what the parser reads. */
	*(char *)memchr(cl->req, '\n', cl->got) = '\0';
	/* Checked after reading, so that the client is not cut off while sending. */
	if (!peer_allowed(cl->fd)) {
		client_answer(cl, -EPERM, "permission denied", NULL, 0);
		return;
	}
	if (control_request_parse(cl->req, &cl->parsed, err, sizeof(err))) {
		client_answer(cl, -EINVAL, err, NULL, 0);
		return;
	}
	cl->give_up_ns = now + STATUS_WAIT_NS;
	client_run(c, cl, now);
}

static void client_input(struct control *c, struct client *cl, __u64 now)
{
	ssize_t n = recv(cl->fd, cl->req + cl->got, sizeof(cl->req) - 1 - cl->got, MSG_DONTWAIT);

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	/* A client that hangs up, or sends more than a line, gets nothing. */
	if (n <= 0) {
		client_close(cl);
		return;
	}
	cl->got += n;
	cl->req[cl->got] = '\0';
	if (memchr(cl->req + cl->got - n, '\n', n))
		client_request(c, cl, now);
	else if (cl->got == sizeof(cl->req) - 1)
		client_close(cl);
}

static void client_output(struct client *cl, __u64 now)
{
	ssize_t n = send(cl->fd, cl->answer + cl->sent, cl->answer_len - cl->sent,
			 MSG_DONTWAIT | MSG_NOSIGNAL);

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		client_close(cl);
		return;
	}
	/* A reader that takes the answer, however slowly, has it all. */
	cl->deadline_ns = now + CONTROL_DEADLINE_NS;
	cl->sent += n;
	if (cl->sent == cl->answer_len)
		client_close(cl);
}

static void client_accept(struct control *c, __u64 now)
{
	int fd = accept4(c->listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK), i;

	/* The connection stays queued, and the listener readable: not polled for a while. */
	if (fd < 0 && (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM))
		c->accept_after_ns = now + CONTROL_ACCEPT_REST_NS;
	if (fd < 0)
		return;
	for (i = 0; i < CONTROL_CLIENTS; i++)
		if (c->clients[i].fd < 0) {
			c->clients[i].fd = fd;
			c->clients[i].deadline_ns = now + CONTROL_DEADLINE_NS;
			return;
		}
	close(fd);
}

static void control_sighup(struct control *c)
{
	char msg[1024];

	if (!c->policy_file)
		log_warn("SIGHUP: %s", "no --policy file to reload");
	else if (policy_reload(c, c->policy_file, msg, sizeof(msg)))
		log_warn("SIGHUP: %s", msg);
	else
		log_note("SIGHUP: %s", msg);
}

/* Retries due, deadlines passed; the poll set of what is left, and when to wake at the latest. */
static int control_poll_set(struct control *c, struct pollfd *pfd, struct client **of, __u64 now,
			    __u64 *next)
{
	int i, n = 1, free_slots = 0;

	pfd[0] = (struct pollfd){ .fd = c->wake[0], .events = POLLIN };
	*next = UINT64_MAX;
	for (i = 0; i < CONTROL_CLIENTS; i++) {
		struct client *cl = &c->clients[i];

		if (cl->fd >= 0 && cl->retry_ns && now >= cl->retry_ns)
			client_run(c, cl, now);
		if (cl->fd >= 0 && now >= cl->deadline_ns)
			client_close(cl);
		if (cl->fd < 0) {
			free_slots++;
			continue;
		}
		if (cl->deadline_ns < *next)
			*next = cl->deadline_ns;
		if (cl->retry_ns) {
			if (cl->retry_ns < *next)
				*next = cl->retry_ns;
			continue;
		}
		of[n] = cl;
		pfd[n++] = (struct pollfd){ .fd = cl->fd, .events = cl->answer ? POLLOUT : POLLIN };
	}
	if (c->listen_fd >= 0 && free_slots && now < c->accept_after_ns &&
	    c->accept_after_ns < *next)
		*next = c->accept_after_ns;
	if (c->listen_fd >= 0 && free_slots && now >= c->accept_after_ns) {
		of[n] = NULL;
		pfd[n++] = (struct pollfd){ .fd = c->listen_fd, .events = POLLIN };
	}
	return n;
}

/*
 * One thread that no client can block: the wake pipe (SIGHUP, stop), the
 * listening socket while a slot is free, and each client for what it needs.
 */
static void *control_main(void *arg)
{
	struct control *c = arg;
	struct pollfd pfd[2 + CONTROL_CLIENTS];
	struct client *of[2 + CONTROL_CLIENTS];
	__u64 now, next;
	int i, n, timeout;

	pthread_setname_np(pthread_self(), "sclat-socket");
	urcu_memb_register_thread();
	for (;;) {
		now = now_ns();
		n = control_poll_set(c, pfd, of, now, &next);
		timeout = next == UINT64_MAX ? -1 : (int)((next - now + 999999) / 1000000);
		if (poll(pfd, n, timeout) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (pfd[0].revents & POLLIN) {
			/* All the wake-ups there are: SIGHUPs come as one reload; 'q' stops. */
			char cmds[64];
			ssize_t got = read(c->wake[0], cmds, sizeof(cmds));

			if (got <= 0 || memchr(cmds, 'q', got))
				break;
			control_sighup(c);
		}
		now = now_ns();
		for (i = 1; i < n; i++) {
			if (!pfd[i].revents)
				continue;
			if (!of[i])
				client_accept(c, now);
			else if (of[i]->answer)
				client_output(of[i], now);
			else
				client_input(c, of[i], now);
		}
	}
	for (i = 0; i < CONTROL_CLIENTS; i++)
		client_close(&c->clients[i]);
	urcu_memb_unregister_thread();
	return NULL;
}

/*
 * The run directory, root's only: created 0700, or an existing one that is
 * ours and 0700 already. Never tightened in place (SCLAT_RUN_DIR=/tmp would
 * have closed /tmp), and never through a symbolic link.
 */
static int run_dir_prepare(const char *dir)
{
	struct stat st;

	if (mkdir(dir, 0700) && errno != EEXIST) {
		log_warn("control socket: mkdir %s: %s", dir, strerror(errno));
		return -errno;
	}
	if (lstat(dir, &st)) {
		log_warn("control socket: %s: %s", dir, strerror(errno));
		return -errno;
	}
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid()) {
		log_warn("control socket: %s is not a directory of ours", dir);
		return -EPERM;
	}
	if (st.st_mode & 0077) {
		log_warn("control socket: %s is open to others (mode %03o): it must be "
			 "0700",
			 dir, (unsigned int)(st.st_mode & 0777));
		return -EPERM;
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
	/*
	 * Bound and listening under a name no client looks for, then renamed:
	 * a client never finds it refusing (and takes it for a dead tracer's).
	 */
	if ((size_t)snprintf(c->path, sizeof(c->path), "%s/%d.sock", dir, getpid()) >=
		    sizeof(c->path) ||
	    (size_t)snprintf(addr.sun_path, sizeof(addr.sun_path), "%s/.%d.sock.new", dir,
			     getpid()) >= sizeof(addr.sun_path)) {
		log_warn("control socket: %s: path too long", dir);
		c->path[0] = '\0';
		return -ENAMETOOLONG;
	}
	c->listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (c->listen_fd < 0) {
		err = -errno;
		log_warn("control socket: %s", strerror(-err));
		return err;
	}
	/* Our pid's names can only be a dead tracer's that had our pid before. */
	unlink(addr.sun_path);
	if (bind(c->listen_fd, (struct sockaddr *)&addr, sizeof(addr)) ||
	    chmod(addr.sun_path, 0600) || listen(c->listen_fd, 8) ||
	    rename(addr.sun_path, c->path)) {
		err = -errno;
		log_warn("control socket %s: %s", c->path, strerror(-err));
		unlink(addr.sun_path);
		close(c->listen_fd);
		c->listen_fd = -1;
		return err;
	}
	return 0;
}

int control_start(struct control **cp, struct controller *ctl, struct inflight *inflight,
		  const char *policy_file)
{
	struct sigaction sa = { .sa_handler = on_sighup, .sa_flags = SA_RESTART };
	struct control *c;
	int err, i;

	*cp = NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->ctl = ctl;
	c->inflight = inflight;
	c->policy_file = policy_file;
	c->listen_fd = -1;
	for (i = 0; i < CONTROL_CLIENTS; i++)
		c->clients[i].fd = -1;
	c->wake[0] = c->wake[1] = -1;
	if (pipe2(c->wake, O_CLOEXEC | O_NONBLOCK)) {
		err = -errno;
		log_warn("control thread: pipe: %s", strerror(-err));
		goto fail;
	}
	/*
	 * Without a socket (it said why) the thread still serves SIGHUP: a
	 * reload must never be what ends a tracer.
	 */
	if (control_listen(c))
		log_warn("no live tuning (sclat status, sclat policy) for this run; "
			 "SIGHUP still reloads the policy file");
	err = -pthread_create(&c->thread, NULL, control_main, c);
	if (err) {
		log_warn("control thread: %s", strerror(-err));
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
		/* A pipe full of SIGHUPs empties as the thread reads it: 'q' gets in. */
		while (write(c->wake[1], "q", 1) < 0 && (errno == EINTR || errno == EAGAIN))
			usleep(1000);
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
