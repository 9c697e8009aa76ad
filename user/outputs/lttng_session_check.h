/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the checks of the LTTng session found (trace_session_check() runs
 * them, lttng_session.h), as the session's end reports it.
 */
#ifndef SCLAT_LTTNG_SESSION_CHECK_H
#define SCLAT_LTTNG_SESSION_CHECK_H

struct trace_session;

/* What LTTng itself discarded (its buffers full) is counted in the trace: say how much. */
void trace_session_discards_report(struct trace_session *s);

/*
 * Why the run's last events (sclat:session_end) are not in the trace: the
 * session stopped at the end, or sclat's last event disabled; NULL when
 * they are, or when the session was gone or lost anyway.
 */
const char *trace_session_off_at_end(const struct trace_session *s);

#endif
