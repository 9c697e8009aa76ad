// SPDX-License-Identifier: GPL-2.0-only
/*
 * The session's end: stopped, destroyed and its files checked; and the end
 * of what sclat processes that were killed left.
 */
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "lttng_session.h"
#include "lttng_session_check.h"
#include "lttng_session_setup.h"
#include "lttng_session_state.h"
#include "lttng_session_teardown.h"
#include "lttng_sessiond.h"
#include "daemon_watchdog.h"
#include "relayd_link.h"
#include "trace_files.h"
#include "util/clock.h"
#include "util/log.h"

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

void trace_session_untrack_self(struct trace_session *s)
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

int trace_session_destroy(struct trace_session *s, bool quiet)
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
		daemon_watchdog_wait(s->watchdog, "leaving the LTTng session", s->who, s->lost_msg,
				     s->incomplete_status);
		if (!s->lost)
			trace_session_discards_report(s);
		trace_session_untrack_self(s);
		daemon_watchdog_done(s->watchdog);
	} else {
		end_ns = clock_ns(CLOCK_MONOTONIC);
		/*
		 * Waits until every sub-buffer reached the output, when there is one:
		 * a relayd that stopped would hold it for ever (daemon_watchdog.h).
		 */
		daemon_watchdog_wait(s->watchdog, "stopping the LTTng session", s->who, s->lost_msg,
				     s->incomplete_status);
		err = s->lost ? lttng_stop_tracing_no_wait(s->name) : lttng_stop_tracing(s->name);
		if (err < 0 && err != -LTTNG_ERR_TRACE_ALREADY_STOPPED && !s->lost) {
			log_err("stopping session \"%s\": %s", s->name, lttng_strerror(err));
			ret = -EIO;
		}
		if (!s->lost)
			trace_session_discards_report(s);
		destroy_failed = trace_session_destroy(s, s->lost) != 0;
		daemon_watchdog_done(s->watchdog);
		/* A full disk or a write error leaves its marks only in the files. */
		if (!s->lost && *s->dir && trace_files_check(s->dir, TRACE_SESSION_CHANNEL, end_ns))
			s->lost = true;
		s->lost |= destroy_failed;
	}
	/* A daemon of sclat's goes; the user's stays, crippled. */
	if (s->consumer_gone && !s->daemon_pid)
		log_warn("lttng-sessiond has lost its consumer daemon: restart it to "
			 "trace again");
	sessiond_stop(&s->daemon_pid);
	daemon_watchdog_stop(s->watchdog);
	session_owner_release(s->owner);
	relayd_link_close(s->link);
	if (s->unrecorded)
		log_warn("%llu outliers were delivered while session \"%s\" did not record "
			 "them (as seen once a second)",
			 (unsigned long long)s->unrecorded, s->name);
	off_at_end = trace_session_off_at_end(s);
	if (off_at_end)
		log_warn("session \"%s\" %s at the end: the run's last events "
			 "(sclat:session_end) are not in the trace",
			 s->name, off_at_end);
	if (s->lost || s->unrecorded || off_at_end)
		ret = TRACE_SESSION_INCOMPLETE;
	free(s);
	return ret;
}

/* nftw() has no user data pointer. */
static bool metadata_seen;

static int metadata_find(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	metadata_seen = type == FTW_F && S_ISREG(st->st_mode) && st->st_size &&
			!strcmp(path + ftw->base, "metadata");
	return metadata_seen;
}

/*
 * Whether the local trace directory path holds a trace's metadata: a sclat
 * killed in its first moments leaves a directory without. Not local (a
 * relay daemon's URL): it cannot tell, and says yes.
 */
static bool trace_recorded(const char *path)
{
	if (path[0] != '/')
		return true;
	metadata_seen = false;
	nftw(path, metadata_find, 16, FTW_PHYS);
	return metadata_seen;
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
	/*
	 * Only the session it made: one of the same name may be another's by
	 * now. Killed between making it and writing down its creation time, it
	 * made the one created since its claim (no live sclat names it).
	 */
	if (trace_session_find(gone->session, &info, &created) ||
	    !(gone->created ? created == gone->created
			    : !gone->joined && gone->claimed && created >= gone->claimed)) {
		sessiond_reap(gone);
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
		trace_session_destroy(&s, false);
		if (trace_recorded(info.path))
			log_note("destroyed session \"%s\", left by sclat %d, which is gone; its "
				 "trace is in %s",
				 s.name, gone->pid, info.path);
		else
			log_note("destroyed session \"%s\", left by sclat %d, which is gone; its "
				 "trace is empty (killed before it recorded: no metadata in %s)",
				 s.name, gone->pid, info.path);
	}
	(*reaped)++;
	sessiond_reap(gone);
}

int trace_session_reap(void)
{
	char dir[PATH_MAX - 32];
	int reaped = 0;

	if (lttng_session_daemon_alive() != 1)
		return 0;
	sessiond_rundir(dir, sizeof(dir));
	session_owners_gone(dir, reap_one, &reaped);
	return reaped;
}
