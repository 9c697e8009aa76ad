/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The end of an LTTng session: this process out of a joined session's
 * tracker again, the session destroyed (waiting for its last flush). The
 * end of a run (trace_session_close()) and of what killed sclat processes
 * left (trace_session_reap()) are in lttng_session.h.
 */
#ifndef SCLAT_LTTNG_SESSION_TEARDOWN_H
#define SCLAT_LTTNG_SESSION_TEARDOWN_H

#include <stdbool.h>

struct trace_session;

/* Leave the joined session's process set as the user made it. */
void trace_session_untrack_self(struct trace_session *s);

/*
 * quiet: the session already failed, and sclat said so. -EIO when LTTng
 * could not destroy it, or says its destruction (the last flush) failed.
 */
int trace_session_destroy(struct trace_session *s, bool quiet);

#endif
