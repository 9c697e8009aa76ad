// SPDX-License-Identifier: GPL-2.0-only
/* Whether the session still records sclat's trace: checked once a second and at the end. */
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include "lttng_session.h"
#include "lttng_session_check.h"
#include "daemon_watchdog.h"
#include "lttng_session_setup.h"
#include "lttng_session_state.h"
#include "relayd_link.h"
#include "util/log.h"

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

/* What trace_session_check() finds, one daemon call after another. */
static bool session_check(struct trace_session *s)
{
	struct lttng_session info;
	int found = -ENOENT;

	if (lttng_session_daemon_alive() != 1) {
		log_err("lttng-sessiond exited; stopping");
		s->gone = true;
	} else if ((found = trace_session_find(s->name, &info, NULL)) == -ENOENT) {
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

bool trace_session_check(struct trace_session *s)
{
	bool ok;

	if (s->gone || s->lost)
		return false;
	daemon_watchdog_wait(s->watchdog, "checking the LTTng session", s->who, s->lost_msg,
			     s->incomplete_status);
	ok = session_check(s);
	daemon_watchdog_done(s->watchdog);
	return ok;
}

const char *trace_session_off_at_end(const struct trace_session *s)
{
	if (s->gone || s->lost)
		return NULL;
	/* Stopped at the end, or sclat's last event disabled, outliers or not since. */
	return s->off && s->off != recording_no_outliers ? s->off
	       : s->end_off				 ? "has sclat:session_end disabled"
							 : NULL;
}
void trace_session_discards_report(struct trace_session *s)
{
	if (channel_stats(s) || !s->discarded)
		return;
	log_warn("LTTng discarded %llu events (its buffers were full); the trace "
		 "counts them",
		 (unsigned long long)s->discarded);
}
