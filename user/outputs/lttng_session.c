// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <lttng/lttng.h>
#include "lttng_session.h"
#include "relayd_link.h"
#include "session_owner.h"
#include "trace_dir.h"
#include "trace_files.h"
#include "util/log.h"
#include "util/proc_stat.h"

extern char **environ;

/* How long this process may take to register with a daemon it did not find at startup. */
#define REGISTER_TIMEOUT_MS	  5000
#define DAEMON_STOP_TIMEOUT_MS	  10000
#define RELAYD_CONNECT_TIMEOUT_MS 3000

struct trace_session {
	char name[LTTNG_NAME_MAX];
	char location[PATH_MAX + 64];
	const char *url; /* the relayd's, for errors */
	bool joined;	 /* the user's session: leave it running */
	bool tracked;	 /* this process added to the joined session's tracker */
	bool created;
	char dir[PATH_MAX]; /* the local trace directory, or "" */
	bool dir_created;   /* by this run: removed if the session fails */
	bool gone;	    /* the daemon or the session went away mid-run */
	bool lost;	    /* events are lost that the trace does not count */
	bool consumer_gone; /* the consumer daemon died */
	pid_t daemon_pid;   /* the daemon sclat started, or 0 */
	struct lttng_domain domain;
	struct relayd_link *link; /* the session's connections to its relayd */
	int link_unknown;	  /* checks that did not find them */
	uint64_t subbuf_size;	  /* of the sclat channel */
	bool disk_warned;	  /* said that the file system is full */
	uint64_t discarded;	  /* LTTng's count of the sclat channel */
	int chan_enabled;	  /* the sclat channel, as last listed; -1: not listed */
	bool end_off;		  /* no enabled event records sclat:session_end, as last listed */
	const char *off;	  /* why the session does not record outliers now, or NULL */
	uint64_t unrecorded;	  /* outliers delivered while it did not */
	struct session_owner *owner; /* this process's claim on the session */
	struct session_owner_record owner_rec;
};

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* Where a session daemon of this user keeps its pid file. */
static void daemon_rundir(char *buf, size_t len)
{
	const char *home = getenv("LTTNG_HOME");

	if (geteuid() == 0)
		snprintf(buf, len, "/var/run/lttng");
	else
		snprintf(buf, len, "%s/.lttng", home ? home : getenv("HOME") ? getenv("HOME") : "");
}

static pid_t daemon_pid_read(void)
{
	char dir[PATH_MAX - 32], path[PATH_MAX];
	long pid = 0;
	FILE *f;

	daemon_rundir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/lttng-sessiond.pid", dir);
	f = fopen(path, "re");
	if (!f)
		return 0;
	if (fscanf(f, "%ld", &pid) != 1)
		pid = 0;
	fclose(f);
	return (pid_t)pid;
}

static bool process_gone(pid_t pid)
{
	struct proc_stat st;

	if (kill(pid, 0) && errno == ESRCH)
		return true;
	/* A zombie nobody reaped yet is gone for our purpose. */
	return proc_stat_read(pid, &st) || st.state == 'Z';
}

/*
 * Start a session daemon of our own. --daemonize returns once the daemon
 * accepts clients; it wakes the lttng-ust listener threads of running
 * processes (this one) through the shared wait futex, so they register.
 */
static int daemon_start(struct trace_session *s)
{
	char *argv[] = { "lttng-sessiond", "--daemonize", "--no-kernel", NULL };
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	sigset_t none, dfl;
	int status = 0, err, waited;
	pid_t pid, got;

	/* Its messages are for a terminal it no longer has: one line of ours says it all. */
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	/*
	 * A process group of its own, so that a Ctrl-C meant for sclat does not
	 * stop it halfway through starting; and none of sclat's ignored signals.
	 */
	sigemptyset(&none);
	sigemptyset(&dfl);
	sigaddset(&dfl, SIGPIPE);
	sigaddset(&dfl, SIGHUP);
	posix_spawnattr_init(&attr);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF |
						POSIX_SPAWN_SETSIGMASK);
	posix_spawnattr_setpgroup(&attr, 0);
	posix_spawnattr_setsigdefault(&attr, &dfl);
	posix_spawnattr_setsigmask(&attr, &none);
	err = posix_spawnp(&pid, argv[0], &fa, &attr, argv, environ);
	posix_spawnattr_destroy(&attr);
	posix_spawn_file_actions_destroy(&fa);
	if (err) {
		log_err("cannot start lttng-sessiond: %s (install lttng-tools)", strerror(err));
		return -err;
	}
	/* A signal sclat holds (Ctrl-C) must not leave the daemon's parent unreaped. */
	do
		got = waitpid(pid, &status, 0);
	while (got < 0 && errno == EINTR);
	if (got == pid && WIFEXITED(status) && !WEXITSTATUS(status)) {
		s->daemon_pid = daemon_pid_read();
		if (lttng_session_daemon_alive() == 1)
			return 0;
		log_err("started lttng-sessiond but it does not answer");
		return -ECONNREFUSED;
	}
	/* Another one started meanwhile (another sclat, say): use it, it is not ours. */
	for (waited = 0; waited < 1000; waited += 20) {
		if (lttng_session_daemon_alive() == 1)
			return 0;
		sleep_ms(20);
	}
	log_err("lttng-sessiond --daemonize failed (exit status %d); run it by hand "
		"to see why",
		WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
	return -ECHILD;
}

/* Stop the daemon sclat started, unless sessions of others now live in it. */
static void daemon_stop(struct trace_session *s)
{
	struct lttng_session *list = NULL;
	int waited, n;

	if (s->daemon_pid <= 0)
		return;
	n = lttng_list_sessions(&list);
	free(list);
	if (n > 0) {
		s->daemon_pid = 0;
		return;
	}
	if (kill(s->daemon_pid, SIGTERM) == 0)
		for (waited = 0; waited < DAEMON_STOP_TIMEOUT_MS && !process_gone(s->daemon_pid);
		     waited += 20)
			sleep_ms(20);
	s->daemon_pid = 0;
}

/*
 * The daemon only pushes a session to the applications registered with it:
 * wait until this process's sclat provider is listed, so that the events
 * fired right after start are recorded.
 */
static int registration_wait(void)
{
	struct lttng_domain dom = { .type = LTTNG_DOMAIN_UST };
	struct lttng_event *events = NULL;
	struct lttng_handle *h;
	pid_t self = getpid();
	int n, i, waited;

	h = lttng_create_handle(NULL, &dom);
	if (!h)
		return -ENOMEM;
	for (waited = 0; waited <= REGISTER_TIMEOUT_MS; waited += 20) {
		n = lttng_list_tracepoints(h, &events);
		for (i = 0; i < n; i++)
			if (events[i].pid == self &&
			    !strcmp(events[i].name, "sclat:syscall_outlier"))
				break;
		free(events);
		events = NULL;
		if (n >= 0 && i < n) {
			lttng_destroy_handle(h);
			return 0;
		}
		sleep_ms(20);
	}
	lttng_destroy_handle(h);
	log_err("this process did not register with lttng-sessiond within %d ms "
		"(is LTTNG_UST_DEBUG or a LTTNG_HOME mismatch in the way?)",
		REGISTER_TIMEOUT_MS);
	return -ETIMEDOUT;
}

/* Connect to host:port within the timeout; 0 or a negative errno. */
static int tcp_probe(const char *host, const char *port)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res, *ai;
	int err = -EHOSTUNREACH, fd, soerr;
	socklen_t len = sizeof(soerr);
	struct pollfd pfd;

	if (getaddrinfo(host, port, &hints, &res))
		return -ENXIO;
	for (ai = res; ai; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (fd < 0)
			continue;
		if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0) {
			err = 0;
		} else if (errno == EINPROGRESS) {
			pfd = (struct pollfd){ .fd = fd, .events = POLLOUT };
			if (poll(&pfd, 1, RELAYD_CONNECT_TIMEOUT_MS) != 1)
				err = -ETIMEDOUT;
			else if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &len) || soerr)
				err = -(soerr ? soerr : errno);
			else
				err = 0;
		} else {
			err = -errno;
		}
		close(fd);
		if (!err)
			break;
	}
	freeaddrinfo(res);
	return err;
}

/*
 * Is a relayd listening at the URL's control port? Asked before creating the
 * session: the daemon's own failure comes late, and not always as one error.
 */
static int relayd_probe(const char *url, bool quiet)
{
	unsigned int ctrl, data;
	char host[256], port[16];
	int err;

	if (relayd_url_parse(url, host, sizeof(host), &ctrl, &data))
		return 0;
	snprintf(port, sizeof(port), "%u", ctrl);
	err = tcp_probe(host, port);
	if (err && !quiet)
		log_err("%s: cannot reach lttng-relayd at %s port %s: %s", url, host, port,
			err == -ENXIO ? "unknown host" : strerror(-err));
	return err;
}

/* The session of that name, and when LTTng created it (*created, when not NULL). */
static int session_find(const char *name, struct lttng_session *out, uint64_t *created)
{
	struct lttng_session *list = NULL;
	int n, i, ret = -ENOENT;

	n = lttng_list_sessions(&list);
	if (n < 0)
		return -EIO;
	for (i = 0; i < n; i++)
		if (!strcmp(list[i].name, name)) {
			if (out)
				*out = list[i];
			/* Its extended part lives in the list: ask before freeing it. */
			if (created &&
			    lttng_session_get_creation_time(&list[i], created) != LTTNG_OK)
				*created = 0;
			ret = 0;
			break;
		}
	free(list);
	return ret;
}

/*
 * Say who owns the session before it exists, locked for as long as this
 * process lives: if it is killed, the next sclat ends what it left.
 */
static void owner_claim(struct trace_session *s)
{
	char dir[PATH_MAX - 32];
	int err;

	s->owner_rec = (struct session_owner_record){
		.pid = getpid(),
		.joined = s->joined,
		.daemon_pid = s->daemon_pid,
		.daemon_start = s->daemon_pid ? process_start_time(s->daemon_pid) : 0,
	};
	snprintf(s->owner_rec.session, sizeof(s->owner_rec.session), "%s", s->name);
	/* A session sclat makes gets its creation time once it exists. */
	if (s->joined && session_find(s->name, NULL, &s->owner_rec.created))
		s->owner_rec.created = 0;
	daemon_rundir(dir, sizeof(dir));
	err = session_owner_claim(&s->owner, dir, &s->owner_rec);
	if (err)
		log_warn("%s/sclat: %s: should sclat be killed, 'lttng destroy %s' ends "
			 "its session",
			 dir, strerror(-err), s->name);
}

static int session_create(struct trace_session *s, const struct trace_session_opts *o,
			  const char *date)
{
	struct lttng_session_descriptor *desc;
	const char *what;
	enum lttng_error_code code;
	int err;

	if (o->name)
		snprintf(s->name, sizeof(s->name), "%s", o->name);
	else
		snprintf(s->name, sizeof(s->name), "sclat-%s", date);
	/* Two runs in the same second: the unnamed one takes its pid along. */
	if (!o->name && session_find(s->name, NULL, NULL) == 0)
		snprintf(s->name, sizeof(s->name), "sclat-%s-%d", date, getpid());

	if (o->url || o->live) {
		const char *url = o->url ? o->url : "net://127.0.0.1";

		err = relayd_probe(url, false);
		if (err)
			return err;
		/* The connections the session is about to open are the ones to watch. */
		s->link = relayd_link_open(s->daemon_pid ? s->daemon_pid : daemon_pid_read(), url);

		if (o->live)
			desc = lttng_session_descriptor_live_network_create(
				s->name, url, NULL,
				(o->live_period_ns ? o->live_period_ns : 1000000000ULL) / 1000);
		else
			desc = lttng_session_descriptor_network_create(s->name, url, NULL);
		what = url;
		s->url = url;
	} else {
		err = trace_dir_prepare(o->output_dir, date, s->dir, sizeof(s->dir),
					&s->dir_created);
		if (err)
			return err;
		desc = lttng_session_descriptor_local_create(s->name, s->dir);
		what = s->dir;
	}
	if (!desc) {
		log_err("%s: not a valid %s", what,
			o->url || o->live ? "relayd URL (net://HOST[:CTRL:DATA])" : "output path");
		return -EINVAL;
	}
	owner_claim(s);
	code = lttng_create_session_ext(desc);
	lttng_session_descriptor_destroy(desc);
	switch (code) {
	case LTTNG_OK:
		break;
	case LTTNG_ERR_EXIST_SESS:
		log_err("session name \"%s\" is already in use (choose another "
			"with --name, or add to it with --session)",
			s->name);
		return -EEXIST;
	case LTTNG_ERR_RELAYD_CONNECT_FAIL:
	case LTTNG_ERR_RELAYD_VERSION_FAIL:
		log_err("%s: cannot reach lttng-relayd (%s)", what, lttng_strerror(-code));
		return -ECONNREFUSED;
	default:
		log_err("creating session \"%s\" to %s: %s", s->name, what, lttng_strerror(-code));
		return -EIO;
	}
	s->created = true;
	/* Which session of that name: another may take it once this one is gone. */
	if (!session_find(s->name, NULL, &s->owner_rec.created))
		session_owner_update(s->owner, &s->owner_rec);
	return 0;
}

/*
 * A user-space session records every registered application of the UID: keep
 * sclat's own session to this process, so that another sclat (or another
 * lttng-ust application) running meanwhile does not write into it. A joined
 * session that tracks a set of processes gets this one added to the set.
 */
static int session_track_self(struct trace_session *s)
{
	struct lttng_process_attr_tracker_handle *th = NULL;
	enum lttng_process_attr_tracker_handle_status st =
		LTTNG_PROCESS_ATTR_TRACKER_HANDLE_STATUS_OK;
	enum lttng_tracking_policy policy = LTTNG_TRACKING_POLICY_INCLUDE_SET;
	enum lttng_error_code code;

	code = lttng_session_get_tracker_handle(s->name, LTTNG_DOMAIN_UST,
						LTTNG_PROCESS_ATTR_VIRTUAL_PROCESS_ID, &th);
	if (code != LTTNG_OK) {
		log_err("session \"%s\": process tracker: %s", s->name, lttng_strerror(-code));
		return -EIO;
	}
	if (s->joined)
		st = lttng_process_attr_tracker_handle_get_tracking_policy(th, &policy);
	if (st == LTTNG_PROCESS_ATTR_TRACKER_HANDLE_STATUS_OK &&
	    policy != LTTNG_TRACKING_POLICY_INCLUDE_ALL) {
		st = lttng_process_attr_tracker_handle_set_tracking_policy(
			th, LTTNG_TRACKING_POLICY_INCLUDE_SET);
		if (st == LTTNG_PROCESS_ATTR_TRACKER_HANDLE_STATUS_OK)
			st = lttng_process_attr_virtual_process_id_tracker_handle_add_pid(th,
											  getpid());
		/* Taken out again when sclat leaves; a pid the user tracked stays. */
		s->tracked = s->joined && st == LTTNG_PROCESS_ATTR_TRACKER_HANDLE_STATUS_OK;
	}
	lttng_process_attr_tracker_handle_destroy(th);
	if (st != LTTNG_PROCESS_ATTR_TRACKER_HANDLE_STATUS_OK &&
	    st != LTTNG_PROCESS_ATTR_TRACKER_HANDLE_STATUS_EXISTS) {
		log_err("session \"%s\": cannot track this process (status %d)", s->name, (int)st);
		return -EIO;
	}
	return 0;
}

/* Take pid out of the processes a session tracks: NULL, or why it could not. */
static const char *tracker_remove(const char *session, pid_t pid)
{
	struct lttng_process_attr_tracker_handle *th = NULL;
	enum lttng_process_attr_tracker_handle_status st;
	enum lttng_error_code code;
	const char *why = NULL;

	code = lttng_session_get_tracker_handle(session, LTTNG_DOMAIN_UST,
						LTTNG_PROCESS_ATTR_VIRTUAL_PROCESS_ID, &th);
	if (code != LTTNG_OK)
		return lttng_strerror(-code);
	st = lttng_process_attr_virtual_process_id_tracker_handle_remove_pid(th, pid);
	if (st != LTTNG_PROCESS_ATTR_TRACKER_HANDLE_STATUS_OK &&
	    st != LTTNG_PROCESS_ATTR_TRACKER_HANDLE_STATUS_MISSING)
		why = "the session daemon refused";
	lttng_process_attr_tracker_handle_destroy(th);
	return why;
}

/* Leave the joined session's process set as the user made it. */
static void session_untrack_self(struct trace_session *s)
{
	const char *why;

	if (!s->tracked)
		return;
	s->tracked = false;
	why = tracker_remove(s->name, getpid());
	if (why)
		log_warn("session \"%s\": cannot untrack pid %d (%s): "
			 "'lttng untrack -u -s %s --vpid %d' does it",
			 s->name, getpid(), why, s->name, getpid());
}

/* Give sclat:* a channel of its own in the session; reuse one already there. */
static int events_enable(struct trace_session *s, const struct trace_session_opts *o)
{
	struct lttng_channel *chans = NULL, *chan = NULL;
	struct lttng_event *ev = NULL;
	struct lttng_handle *h;
	bool have_chan = false;
	int n, i, ret;

	h = lttng_create_handle(s->name, &s->domain);
	if (!h)
		return -ENOMEM;
	n = lttng_list_channels(h, &chans);
	for (i = 0; i < n; i++)
		have_chan |= !strcmp(chans[i].name, TRACE_SESSION_CHANNEL);
	free(chans);

	if (!have_chan) {
		chan = lttng_channel_create(&s->domain);
		if (!chan) {
			ret = -ENOMEM;
			goto out;
		}
		snprintf(chan->name, sizeof(chan->name), "%s", TRACE_SESSION_CHANNEL);
		chan->attr.overwrite = 0; /* discard: the packet headers count what is lost */
		chan->attr.subbuf_size =
			o->subbuf_size ? o->subbuf_size : TRACE_SESSION_SUBBUF_SIZE;
		chan->attr.num_subbuf = o->num_subbuf ? o->num_subbuf : TRACE_SESSION_NUM_SUBBUF;
		chan->attr.output = LTTNG_EVENT_MMAP;
		ret = lttng_enable_channel(h, chan);
		if (ret < 0) {
			if (ret == -LTTNG_ERR_RELAYD_CONNECT_FAIL && s->url)
				log_err("%s: cannot reach lttng-relayd (%s)", s->url,
					lttng_strerror(ret));
			else if (ret == -LTTNG_ERR_TRACE_ALREADY_STARTED)
				log_err("session \"%s\" has been started before: "
					"channels can only be added before the first start "
					"(lttng enable-channel -u %s, then retry)",
					s->name, TRACE_SESSION_CHANNEL);
			else
				log_err("session \"%s\": adding channel %s: %s", s->name,
					TRACE_SESSION_CHANNEL, lttng_strerror(ret));
			ret = -EIO;
			goto out;
		}
	}

	ev = lttng_event_create();
	if (!ev) {
		ret = -ENOMEM;
		goto out;
	}
	snprintf(ev->name, sizeof(ev->name), "sclat:*");
	ev->type = LTTNG_EVENT_TRACEPOINT;
	ev->loglevel_type = LTTNG_EVENT_LOGLEVEL_ALL;
	ev->loglevel = -1;
	ret = lttng_enable_event_with_exclusions(h, ev, TRACE_SESSION_CHANNEL, NULL, 0, NULL);
	if (ret < 0 && ret != -LTTNG_ERR_UST_EVENT_ENABLED && ret != -LTTNG_ERR_UST_EVENT_EXIST) {
		log_err("session \"%s\": enabling sclat:*: %s", s->name, lttng_strerror(ret));
		ret = -EIO;
		goto out;
	}
	ret = 0;
out:
	lttng_event_destroy(ev);
	lttng_channel_destroy(chan);
	lttng_destroy_handle(h);
	return ret;
}

/* --session: the user's session must exist; sclat follows its buffer scheme. */
static int session_join(struct trace_session *s, const char *name)
{
	struct lttng_domain *doms = NULL;
	int n, i;

	snprintf(s->name, sizeof(s->name), "%s", name);
	if (session_find(name, NULL, NULL)) {
		log_err("--session %s: no such tracing session ('lttng list' "
			"shows them)",
			name);
		return -ENOENT;
	}
	n = lttng_list_domains(name, &doms);
	for (i = 0; i < n; i++)
		if (doms[i].type == LTTNG_DOMAIN_UST)
			s->domain.buf_type = doms[i].buf_type;
	free(doms);
	s->joined = true;
	/* The user's session stays; what a killed sclat left in it is its pid in the tracker. */
	owner_claim(s);
	return 0;
}

static void location_update(struct trace_session *s)
{
	struct lttng_session info;

	if (session_find(s->name, &info, NULL) == 0)
		snprintf(s->location, sizeof(s->location), "%s", info.path);
}

/*
 * quiet: the session already failed, and sclat said so. -EIO when LTTng
 * could not destroy it, or says its destruction (the last flush) failed.
 */
static int session_destroy(struct trace_session *s, bool quiet)
{
	enum lttng_error_code code, result = LTTNG_OK;
	struct lttng_destruction_handle *dh = NULL;

	code = lttng_destroy_session_ext(s->name, &dh);
	if (code == LTTNG_OK && dh) {
		/* Not seen to complete (the daemon went, say): not known to be whole. */
		if (lttng_destruction_handle_wait_for_completion(dh, -1) !=
			    LTTNG_DESTRUCTION_HANDLE_STATUS_COMPLETED ||
		    lttng_destruction_handle_get_result(dh, &result) !=
			    LTTNG_DESTRUCTION_HANDLE_STATUS_OK)
			result = LTTNG_ERR_UNK;
		code = result;
		lttng_destruction_handle_destroy(dh);
	}
	s->created = false;
	if (code == LTTNG_OK)
		return 0;
	if (!quiet)
		log_err("destroying session \"%s\": %s", s->name, lttng_strerror(-code));
	return -EIO;
}

/* Stop a daemon that a sclat now gone started, once no session lives in it. */
static void reap_daemon(const struct session_owner_record *gone)
{
	struct lttng_session *list = NULL;
	pid_t pid = gone->daemon_pid;
	int n, waited;

	/* The very daemon it started (pids are reused), and the one we talk to. */
	if (!pid || pid != daemon_pid_read() || process_start_time(pid) != gone->daemon_start)
		return;
	n = lttng_list_sessions(&list);
	free(list);
	if (n || kill(pid, SIGTERM))
		return;
	for (waited = 0; waited < DAEMON_STOP_TIMEOUT_MS && !process_gone(pid); waited += 20)
		sleep_ms(20);
	log_note("stopped lttng-sessiond (pid %d), which sclat %d started and left", pid,
		 gone->pid);
}

/* End what a sclat that is gone left: its session (the user's: its pid in the tracker). */
static void reap_one(const struct session_owner_record *gone,
		     const struct session_owners_live *live, void *ctx)
{
	struct trace_session s = { .domain = { .type = LTTNG_DOMAIN_UST } };
	struct lttng_session info;
	uint64_t created = 0;
	int *reaped = ctx, i;

	for (i = 0; i < live->n; i++)
		if (!strcmp(live->r[i].session, gone->session))
			return;
	/* Only the session it made: one of the same name may be another's by now. */
	if (!gone->created || session_find(gone->session, &info, &created) ||
	    created != gone->created) {
		reap_daemon(gone);
		return;
	}
	snprintf(s.name, sizeof(s.name), "%s", gone->session);
	if (gone->joined) {
		/* Its pid, which another process may get, out of the user's tracker. */
		if (!tracker_remove(s.name, gone->pid))
			log_note("took pid %d, a sclat that is gone, out of the processes "
				 "session \"%s\" tracks",
				 gone->pid, s.name);
	} else {
		/* Waits until its buffers are written: the trace is readable then. */
		lttng_stop_tracing(s.name);
		session_destroy(&s, false);
		log_note("destroyed session \"%s\", left by sclat %d, which is gone; its trace "
			 "is in %s",
			 s.name, gone->pid, info.path);
	}
	(*reaped)++;
	reap_daemon(gone);
}

int trace_session_reap(void)
{
	char dir[PATH_MAX - 32];
	int reaped = 0;

	if (lttng_session_daemon_alive() != 1)
		return 0;
	daemon_rundir(dir, sizeof(dir));
	session_owners_gone(dir, reap_one, &reaped);
	return reaped;
}

/* How long the consumer daemon may take to connect the started session to its relayd. */
#define LINK_WAIT_MS 2000

/*
 * Find the session's relayd connections now, while they hold: a relayd that
 * dies before the first check would leave nothing to tell it by.
 */
static void link_wait(struct trace_session *s)
{
	int waited;

	for (waited = 0; s->link && waited < LINK_WAIT_MS; waited += 20) {
		if (relayd_link_check(s->link) != RELAYD_LINK_UNKNOWN)
			return;
		sleep_ms(20);
	}
}

int trace_session_open(struct trace_session **sp, const struct trace_session_opts *o)
{
	struct trace_session *s;
	struct lttng_session info;
	char date[32];
	time_t now = time(NULL);
	struct tm tm;
	int err, alive;

	*sp = NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->domain.type = LTTNG_DOMAIN_UST;
	s->domain.buf_type = LTTNG_BUFFER_PER_UID;
	s->subbuf_size = o->subbuf_size ? o->subbuf_size : TRACE_SESSION_SUBBUF_SIZE;
	localtime_r(&now, &tm);
	strftime(date, sizeof(date), "%Y%m%d-%H%M%S", &tm);

	/* What a killed sclat left goes first: it may be the daemon itself. */
	trace_session_reap();
	alive = lttng_session_daemon_alive();
	if (alive != 1) {
		if (o->join) {
			log_err("--session %s: no lttng session daemon is running", o->join);
			err = -ENOENT;
			goto fail;
		}
		err = daemon_start(s);
		if (err)
			goto fail;
	}

	err = o->join ? session_join(s, o->join) : session_create(s, o, date);
	if (!err)
		err = session_track_self(s);
	if (err)
		goto fail;
	err = events_enable(s, o);
	if (err)
		goto fail;
	err = registration_wait();
	if (err)
		goto fail;
	if (session_find(s->name, &info, NULL) == 0 && !info.enabled) {
		err = lttng_start_tracing(s->name);
		if (err < 0) {
			log_err("starting session \"%s\": %s", s->name, lttng_strerror(err));
			err = -EIO;
			goto fail;
		}
	}
	location_update(s);
	link_wait(s);
	*sp = s;
	return 0;
fail:
	session_untrack_self(s);
	if (s->created)
		session_destroy(s, false);
	if (s->dir_created)
		trace_dir_remove(s->dir);
	daemon_stop(s);
	session_owner_release(s->owner);
	relayd_link_close(s->link);
	free(s);
	return err;
}

const char *trace_session_name(const struct trace_session *s)
{
	return s->name;
}

const char *trace_session_location(const struct trace_session *s)
{
	return s->location;
}

/*
 * The consumer daemon writes the trace: when it dies, the session daemon
 * carries on, and only a query that reaches the consumer fails. The same
 * query gives LTTng's count of discarded events. -EPIPE when it is gone.
 */
static int channel_stats(struct trace_session *s)
{
	struct lttng_channel *chans = NULL;
	struct lttng_handle *h;
	int n, i;

	s->chan_enabled = -1;
	h = lttng_create_handle(s->name, &s->domain);
	if (!h)
		return -ENOMEM;
	n = lttng_list_channels(h, &chans);
	for (i = 0; i < n; i++)
		if (!strcmp(chans[i].name, TRACE_SESSION_CHANNEL)) {
			lttng_channel_get_discarded_event_count(&chans[i], &s->discarded);
			s->chan_enabled = chans[i].enabled;
		}
	free(chans);
	lttng_destroy_handle(h);
	return n == -LTTNG_ERR_NO_USTCONSUMERD ? -EPIPE : 0;
}

/* Checks before the link's connections are found, then a probe of the relayd's port. */
#define LINK_UNKNOWN_CHECKS 3

/*
 * LTTng drops a session's streams when its relayd goes, and does not connect
 * again when the relayd comes back: only the connections tell.
 */
static bool relayd_lost(struct trace_session *s)
{
	switch (relayd_link_check(s->link)) {
	case RELAYD_LINK_UP:
		return false;
	case RELAYD_LINK_LOST:
		return true;
	case RELAYD_LINK_UNKNOWN:
		break;
	}
	/* Not found (another network namespace?): whether the relayd answers at all. */
	return ++s->link_unknown > LINK_UNKNOWN_CHECKS && relayd_probe(s->url, true);
}

/* A full disk loses whole packets, which LTTng does not count: say so once, early. */
static void disk_check(struct trace_session *s)
{
	struct statvfs v;
	uint64_t avail;

	if (s->disk_warned || statvfs(s->dir, &v))
		return;
	avail = (uint64_t)v.f_bavail * v.f_frsize;
	if (avail >= s->subbuf_size)
		return;
	log_warn("%s: the file system is full (%llu KiB free): LTTng cannot write "
		 "the trace, and events are being lost",
		 s->dir, (unsigned long long)(avail >> 10));
	s->disk_warned = true;
}

/* recording_off(): the session's state could not be listed this time. */
static const char recording_unknown[] = "";
/* recording_off(): the outliers' event is off, sclat's others may record. */
static const char recording_no_outliers[] = "has sclat:syscall_outlier disabled";

/*
 * Why the session, there and written, does not record sclat's outliers now
 * (someone ran lttng stop, lttng disable-channel or lttng disable-event on
 * it), NULL when it does, or recording_unknown. info: the session as listed.
 * Filters and exclusions aside.
 */
static const char *recording_off(struct trace_session *s, const struct lttng_session *info)
{
	static const char outlier[] = "sclat:syscall_outlier", end[] = "sclat:session_end";
	const char *why = recording_unknown;
	struct lttng_event *events = NULL;
	struct lttng_handle *h;
	int n, i;

	if (!info->enabled)
		return "was stopped";
	if (s->chan_enabled < 0)
		return recording_unknown;
	if (!s->chan_enabled)
		return "has its channel " TRACE_SESSION_CHANNEL " disabled";
	h = lttng_create_handle(s->name, &s->domain);
	if (!h)
		return recording_unknown;
	n = lttng_list_events(h, TRACE_SESSION_CHANNEL, &events);
	if (n >= 0) {
		why = recording_no_outliers;
		s->end_off = true;
		for (i = 0; i < n; i++) {
			if (events[i].enabled && !fnmatch(events[i].name, outlier, 0))
				why = NULL;
			if (events[i].enabled && !fnmatch(events[i].name, end, 0))
				s->end_off = false;
		}
	}
	free(events);
	lttng_destroy_handle(h);
	return why;
}

/*
 * Says when the session stops recording outliers (and why, when that
 * changes), and when it records them again. A check that cannot tell
 * changes nothing.
 */
static void recording_note(struct trace_session *s, const struct lttng_session *info)
{
	const char *why = recording_off(s, info);

	if (why == recording_unknown)
		return;
	if (why && why != s->off)
		log_warn("session \"%s\" %s: it does not record outliers until it is "
			 "started or enabled again; sclat counts them",
			 s->name, why);
	else if (!why && s->off)
		log_note("session \"%s\" records outliers again", s->name);
	s->off = why;
}

void trace_session_outlier(struct trace_session *s)
{
	if (s->off)
		s->unrecorded++;
}

bool trace_session_check(struct trace_session *s)
{
	struct lttng_session info;
	int found = -ENOENT;

	if (s->gone || s->lost)
		return false;
	if (lttng_session_daemon_alive() != 1) {
		log_err("lttng-sessiond exited; stopping");
		s->gone = true;
	} else if ((found = session_find(s->name, &info, NULL)) == -ENOENT) {
		log_err("session \"%s\" was destroyed; stopping", s->name);
		s->gone = true;
	} else if (channel_stats(s) == -EPIPE) {
		log_err("lttng-consumerd exited: LTTng cannot write the trace any "
			"more; stopping");
		s->lost = s->consumer_gone = true;
	} else if (s->url && relayd_lost(s)) {
		log_err("%s: lost the connection to lttng-relayd: LTTng does not "
			"send the trace any more; stopping",
			s->url);
		s->lost = true;
	} else if (*s->dir) {
		disk_check(s);
	}
	s->lost |= s->gone;
	if (!found && !s->lost)
		recording_note(s, &info);
	return !s->lost;
}

static __u64 monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* What LTTng itself discarded (its buffers full) is counted in the trace: say how much. */
static void discards_report(struct trace_session *s)
{
	if (channel_stats(s) || !s->discarded)
		return;
	log_warn("LTTng discarded %llu events (its buffers were full); the trace "
		 "counts them",
		 (unsigned long long)s->discarded);
}

int trace_session_close(struct trace_session *s)
{
	const char *off_at_end; /* why the run's last events are not recorded, or NULL */
	bool destroy_failed;
	__u64 end_ns;
	int ret = 0, err;

	if (!s)
		return 0;
	/* What failed since the last check. */
	trace_session_check(s);
	if (s->gone) {
		/* Nothing left to stop or destroy. */
	} else if (s->joined) {
		if (!s->lost)
			discards_report(s);
		session_untrack_self(s);
	} else {
		end_ns = monotonic_ns();
		/* Waits until every sub-buffer reached the output, when there is one. */
		err = s->lost ? lttng_stop_tracing_no_wait(s->name) : lttng_stop_tracing(s->name);
		if (err < 0 && err != -LTTNG_ERR_TRACE_ALREADY_STOPPED && !s->lost) {
			log_err("stopping session \"%s\": %s", s->name, lttng_strerror(err));
			ret = -EIO;
		}
		if (!s->lost)
			discards_report(s);
		destroy_failed = session_destroy(s, s->lost) != 0;
		/* A full disk or a write error leaves its marks only in the files. */
		if (!s->lost && *s->dir && trace_files_check(s->dir, TRACE_SESSION_CHANNEL, end_ns))
			s->lost = true;
		s->lost |= destroy_failed;
	}
	/* A daemon of sclat's goes; the user's stays, crippled. */
	if (s->consumer_gone && !s->daemon_pid)
		log_warn("lttng-sessiond has lost its consumer daemon: restart it to "
			 "trace again");
	daemon_stop(s);
	session_owner_release(s->owner);
	relayd_link_close(s->link);
	if (s->unrecorded)
		log_warn("%llu outliers were delivered while session \"%s\" did not record "
			 "them (as seen once a second)",
			 (unsigned long long)s->unrecorded, s->name);
	/*
	 * Stopped at the end, or sclat's last event disabled, outliers or not
	 * since: the run's last events are missing.
	 */
	off_at_end = s->off && s->off != recording_no_outliers ? s->off
		     : s->end_off			       ? "has sclat:session_end disabled"
							       : NULL;
	if (s->gone || s->lost)
		off_at_end = NULL;
	if (off_at_end)
		log_warn("session \"%s\" %s at the end: the run's last events "
			 "(sclat:session_end) are not in the trace",
			 s->name, off_at_end);
	if (s->lost || s->unrecorded || off_at_end)
		ret = TRACE_SESSION_INCOMPLETE;
	free(s);
	return ret;
}
