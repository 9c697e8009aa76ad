/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Setting up the LTTng session of sclat record: creating it (a local
 * directory, a relayd stream or live) or joining the user's, keeping it to
 * this process, and giving sclat's events a channel of their own. Each
 * prints one line on stderr when it fails and returns a negative errno.
 */
#ifndef SCLAT_LTTNG_SESSION_SETUP_H
#define SCLAT_LTTNG_SESSION_SETUP_H

#include <stdint.h>

struct lttng_session;
struct trace_session;
struct trace_session_opts;

/* The session of that name (*out, when not NULL), and when LTTng created it (*created). */
int trace_session_find(const char *name, struct lttng_session *out, uint64_t *created);

/* Create the session that o describes; date names it and its directory by default. */
int trace_session_create(struct trace_session *s, const struct trace_session_opts *o,
			 const char *date);

/* --session: the user's session, which must exist. */
int trace_session_join(struct trace_session *s, const char *name);

/* Keep the session's user-space tracing to this process (add it to a joined one's set). */
int trace_session_track_self(struct trace_session *s);

/* sclat:* in the session's sclat channel, which is added when it is not there. */
int trace_session_events_enable(struct trace_session *s, const struct trace_session_opts *o);

#endif
