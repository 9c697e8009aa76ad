/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The LTTng tracing session that `sclat record` writes into, driven through
 * liblttng-ctl: find or start a session daemon, create the session (local
 * directory, lttng-relayd stream or live) or join one the user created, give
 * sclat's events a channel of their own, and make sure this process is
 * registered with the daemon before its first event.
 */
#ifndef SCLAT_LTTNG_SESSION_H
#define SCLAT_LTTNG_SESSION_H

#include <stdbool.h>
#include <linux/types.h>

struct trace_session;

struct trace_session_opts {
	const char *output_dir; /* local trace directory; NULL: ./sclat-trace-<date> */
	const char *url;	/* net://HOST[:CTRL:DATA] of an lttng-relayd, or NULL */
	bool live;		/* live session (through a relayd) */
	__u64 live_period_ns;	/* live timer; 0: 1 s */
	const char *name;	/* session to create; NULL: sclat-<date> */
	const char *join;	/* --session: an existing session, left running */
	__u64 subbuf_size;	/* sclat channel; 0: TRACE_SESSION_SUBBUF_SIZE */
	__u64 num_subbuf;	/* 0: TRACE_SESSION_NUM_SUBBUF */
	/*
	 * The stop signals the process took so far, for the bound on waits for
	 * the daemons (daemon_watchdog.h); NULL: a signal does not end a wait.
	 */
	int (*stops)(void);
	int incomplete_status; /* exit status when a wait is given up mid-run */
};

/* Sized for outlier storms: about 0.3 s of 300 000 events/s per CPU. */
#define TRACE_SESSION_SUBBUF_SIZE (2U << 20)
#define TRACE_SESSION_NUM_SUBBUF  8
#define TRACE_SESSION_CHANNEL	  "sclat"

/*
 * Connect to a session daemon (starting one when none runs), create or join
 * the session, enable sclat:* in its own channel, wait until this process is
 * registered, and start tracing. Prints one line to stderr on failure and
 * leaves nothing behind. Returns 0 or a negative errno.
 */
int trace_session_open(struct trace_session **sp, const struct trace_session_opts *o);

/*
 * End what sclat record processes that are gone (killed) left in the session
 * daemon: stop and destroy their sessions, so that their traces are whole
 * and readable; take their pids out of sessions they joined; stop the
 * daemons they started, once empty. One line on stderr for each. Returns
 * how many sessions. Nothing when no daemon runs.
 */
int trace_session_reap(void);

/* The session's name and where its trace goes (a path or a relayd URL). */
const char *trace_session_name(const struct trace_session *s);
const char *trace_session_location(const struct trace_session *s);

/*
 * Whether the trace is still being written: the daemon and the session are
 * there, the consumer daemon lives, the relayd connections hold; warns once
 * when the disk of a local trace is full. Prints one line the first time
 * it is not. Cheap enough to call once a second.
 */
bool trace_session_check(struct trace_session *s);

/*
 * An outlier delivered to the trace: counted when the last check found the
 * session not recording it (stopped, its channel or sclat:syscall_outlier
 * disabled); trace_session_close() then says how many, and that the trace
 * is incomplete.
 */
void trace_session_outlier(struct trace_session *s);

/* trace_session_close(): the trace lacks events that it does not count. */
#define TRACE_SESSION_INCOMPLETE 1

/*
 * Stop (waiting until the data is written), destroy, and stop the daemon if
 * sclat started it; a joined session is left running, with this process out
 * of its tracker again if sclat added it. Then check that a local trace's
 * files hold every packet. Frees s. Returns 0, TRACE_SESSION_INCOMPLETE, or
 * a negative errno (each after one line on stderr).
 */
int trace_session_close(struct trace_session *s);

#endif
