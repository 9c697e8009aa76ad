// SPDX-License-Identifier: GPL-2.0-only
/*
 * Opening sclat record's LTTng session, from the pieces: the daemon
 * (lttng_sessiond.c), the set-up (lttng_session_setup.c); undone on failure
 * (lttng_session_teardown.c). Checked (lttng_session_check.c) and closed
 * (lttng_session_teardown.c) later.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "lttng_session.h"
#include "lttng_session_setup.h"
#include "lttng_session_state.h"
#include "lttng_session_teardown.h"
#include "lttng_sessiond.h"
#include "daemon_watchdog.h"
#include "relayd_link.h"
#include "trace_dir.h"
#include "util/clock.h"
#include "util/log.h"

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

static void location_update(struct trace_session *s)
{
	struct lttng_session info;

	if (trace_session_find(s->name, &info, NULL) == 0)
		snprintf(s->location, sizeof(s->location), "%s", info.path);
}

/*
 * Bound the waits for the daemons from here on: the set-up's, as one wait
 * (given up, nothing is recorded: exit status 1).
 */
static void watch_start(struct trace_session *s, const struct trace_session_opts *o)
{
	const char *url = o->url ? o->url : o->live ? "net://127.0.0.1" : NULL;

	s->incomplete_status = o->incomplete_status ? o->incomplete_status : 1;
	if (url && !o->join)
		snprintf(s->who, sizeof(s->who),
			 "lttng-sessiond (or the lttng-relayd at %s it streams to)", url);
	else
		snprintf(s->who, sizeof(s->who), "lttng-sessiond");
	s->watchdog = daemon_watchdog_start(o->stops);
	daemon_watchdog_wait(s->watchdog, "setting up the LTTng session", s->who,
			     "nothing was recorded", 1);
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
	watch_start(s, o);

	/* What a killed sclat left goes first: it may be the daemon itself. */
	trace_session_reap();
	alive = lttng_session_daemon_alive();
	if (alive != 1) {
		if (o->join) {
			log_err("--session %s: no lttng session daemon is running", o->join);
			err = -ENOENT;
			goto fail;
		}
		err = sessiond_start(&s->daemon_pid);
		if (err)
			goto fail;
	}

	err = o->join ? trace_session_join(s, o->join) : trace_session_create(s, o, date);
	if (!err)
		err = trace_session_track_self(s);
	if (err)
		goto fail;
	err = trace_session_events_enable(s, o);
	if (err)
		goto fail;
	err = sessiond_registration_wait();
	if (err)
		goto fail;
	if (trace_session_find(s->name, &info, NULL) == 0 && !info.enabled) {
		err = lttng_start_tracing(s->name);
		if (err < 0) {
			log_err("starting session \"%s\": %s", s->name, lttng_strerror(err));
			err = -EIO;
			goto fail;
		}
	}
	location_update(s);
	link_wait(s);
	daemon_watchdog_done(s->watchdog);
	snprintf(s->lost_msg, sizeof(s->lost_msg), "the trace in %s is incomplete (exit status %d)",
		 s->location, s->incomplete_status);
	*sp = s;
	return 0;
fail:
	trace_session_untrack_self(s);
	if (s->created)
		trace_session_destroy(s, false);
	if (s->dir_created)
		trace_dir_remove(s->dir);
	sessiond_stop(&s->daemon_pid);
	session_owner_release(s->owner);
	relayd_link_close(s->link);
	daemon_watchdog_stop(s->watchdog);
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
