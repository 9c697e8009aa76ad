/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The sink of `sclat record`: the run's outliers, calls in flight, snapshots
 * and the controller's reports as sclat:* events into the LTTng session
 * (trace_events.c), the session watched each second (a run it can no longer
 * record stops), and on a terminal a status line on stderr.
 */
#ifndef SCLAT_RECORD_SINK_H
#define SCLAT_RECORD_SINK_H

#include <stdbool.h>
#include <linux/types.h>
#include "sink.h"

struct trace_session;

struct record_sink {
	struct trace_session *ts;
	bool status_line; /* stderr is a terminal: the status line is drawn each second */
	bool status_drawn;
	__u64 last_elapsed_ns, last_syscalls;
};

/* The sink of rs, which records into ts; status_line: draw the status line. */
void record_sink_init(struct record_sink *rs, struct trace_session *ts, bool status_line,
		      struct sink *s);

/* Take the status line off stderr, if it is drawn. */
void record_sink_status_clear(struct record_sink *rs);

#endif
