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
#include "control_requests.h"
#include "control_server.h"
#include "status_render.h"
#include "top_frame.h"
#include "controller/controller.h"
#include "policy/policy.h"
#include "util/log.h"

/*
 * Clients served at once; more wait in the listen backlog. Each slot frees
 * within a deadline, or sooner for one that waits (CONTROL_IDLE_GRACE_NS).
 */
#define CONTROL_CLIENTS	       8
/* A status before the controller's first pass is asked again every 50 ms, for 2 s. */
#define STATUS_RETRY_NS	       50000000ULL
#define STATUS_WAIT_NS	       2000000000ULL
#define CONTROL_DEADLINE_NS    (CONTROL_IO_TIMEOUT_S * 1000000000ULL)
/* Out of descriptors, a pending connection is left queued this long before another try. */
#define CONTROL_ACCEPT_REST_NS 100000000ULL
/*
 * With every slot taken and a connection waiting, a client that has not sent
 * its whole request this long after it was accepted gives its slot up: eight
 * idle connections held `sclat status` off for their whole deadline.
 */
#define CONTROL_IDLE_GRACE_NS  250000000ULL

/*
 * One connection, from accept to close: its request line, then its answer.
 * Every socket is non-blocking and every client has one deadline for all of
 * it, so that one that trickles (or never reads) holds nobody else up.
 */
struct client {
	int fd; /* -1: a free slot */
	__u64 accepted_ns;
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
	struct control_view view; /* what requests read */
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
	ret = control_request_answer(&c->view, &cl->parsed, out, err, sizeof(err));
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

/* Still waiting for its request line: neither answering nor asking the controller again. */
static bool client_reading(const struct client *cl)
{
	return cl->fd >= 0 && !cl->answer && !cl->retry_ns;
}

/*
 * The slot for a connection that waits: a free one, or the one of the client
 * accepted longest ago that is still reading its request past the grace.
 * NULL: none yet, the listener rests until the grace ends.
 */
static struct client *client_slot(struct control *c, __u64 now)
{
	struct client *idle = NULL;
	int i;

	for (i = 0; i < CONTROL_CLIENTS; i++) {
		struct client *cl = &c->clients[i];

		if (cl->fd < 0)
			return cl;
		if (client_reading(cl) && (!idle || cl->accepted_ns < idle->accepted_ns))
			idle = cl;
	}
	if (!idle || now < idle->accepted_ns + CONTROL_IDLE_GRACE_NS) {
		c->accept_after_ns = idle ? idle->accepted_ns + CONTROL_IDLE_GRACE_NS
					  : now + CONTROL_ACCEPT_REST_NS;
		return NULL;
	}
	client_close(idle);
	return idle;
}

static void client_accept(struct control *c, __u64 now)
{
	struct client *cl = client_slot(c, now);
	int fd;

	if (!cl)
		return;
	fd = accept4(c->listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
	/* The connection stays queued, and the listener readable: not polled for a while. */
	if (fd < 0 && (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM))
		c->accept_after_ns = now + CONTROL_ACCEPT_REST_NS;
	if (fd < 0)
		return;
	cl->fd = fd;
	cl->accepted_ns = now;
	cl->deadline_ns = now + CONTROL_DEADLINE_NS;
}

static void control_sighup(struct control *c)
{
	char msg[1024];

	if (!c->policy_file)
		log_warn("SIGHUP: %s", "no --policy file to reload");
	else if (control_policy_reload(&c->view, c->policy_file, true, NULL, msg, sizeof(msg)))
		log_warn("SIGHUP: %s", msg);
	else
		log_note("SIGHUP: %s", msg);
}

/* Retries due, deadlines passed; the poll set of what is left, and when to wake at the latest. */
static int control_poll_set(struct control *c, struct pollfd *pfd, struct client **of, __u64 now,
			    __u64 *next)
{
	int i, n = 1, free_slots = 0, reading = 0;

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
		reading += client_reading(cl);
		if (cl->retry_ns) {
			if (cl->retry_ns < *next)
				*next = cl->retry_ns;
			continue;
		}
		of[n] = cl;
		pfd[n++] = (struct pollfd){ .fd = cl->fd, .events = cl->answer ? POLLOUT : POLLIN };
	}
	/* With no slot free, a connection that waits may still take an idle client's. */
	if (c->listen_fd < 0 || (!free_slots && !reading))
		return n;
	if (now < c->accept_after_ns) {
		if (c->accept_after_ns < *next)
			*next = c->accept_after_ns;
		return n;
	}
	of[n] = NULL;
	pfd[n++] = (struct pollfd){ .fd = c->listen_fd, .events = POLLIN };
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
		  struct recent_outliers *recent, const char *policy_file)
{
	struct sigaction sa = { .sa_handler = on_sighup, .sa_flags = SA_RESTART };
	struct control *c;
	int err, i;

	*cp = NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->view.ctl = ctl;
	c->view.inflight = inflight;
	c->view.recent = recent;
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
