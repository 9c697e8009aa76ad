/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The sclat:* LTTng events: outliers, calls in flight, snapshots and the
 * controller's reports, as `sclat record`'s sink writes them; and the outlier
 * event alone, as a sink of its own, for a snapshot trigger to match.
 */
#ifndef SCLAT_TRACE_EVENTS_H
#define SCLAT_TRACE_EVENTS_H

#include <stdbool.h>
#include "sclat_abi.h"
#include "controller/controller.h"
#include "explain/explain.h"
#include "policy/policy.h"
#include "sink.h"
#include "snapshot_trigger.h"

/*
 * sclat:session_begin, once at the start: what a reader needs to interpret
 * the trace months later (versions, kernel, CPUs, scope, policy, syscall table).
 */
void trace_events_session_begin(const char *scope, const struct policy *policy);

/*
 * sclat:session_end, once, last: the run's totals, which tell a reader
 * whether the trace holds everything sclat wrote into it.
 */
void trace_events_session_end(const struct controller_totals *totals);

/* sclat:syscall_outlier; the outlier callback of an output (ctx unused). */
int trace_events_outlier(void *ctx, const struct sclat_event *e, __s64 entry_epoch_ns,
			 const struct threshold_basis *basis, const struct explanation *x);

/* sclat:syscall_inflight; the inflight callback of an output (ctx unused). */
int trace_events_inflight(void *ctx, const struct sclat_inflight *r, __s64 entry_epoch_ns,
			  __u32 report, bool final, const struct explanation *x);

/*
 * The sink that fires sclat:syscall_outlier for each outlier, and nothing
 * else: for a run whose other sinks fire no event (`sclat watch
 * --snapshot-session`), so that its trigger sees the outliers.
 */
void trace_events_outlier_sink(struct sink *s);

/*
 * Whether sclat:syscall_outlier reaches anything: a session of this
 * process's session daemon, or the event notifier of a trigger.
 */
bool trace_events_outlier_enabled(void);

/* sclat:snapshot and sclat:snapshot_totals; the snapshot callbacks of an output (ctx unused). */
void trace_events_snapshot(void *ctx, const struct snapshot_taken *s, __s64 entry_epoch_ns);
void trace_events_snapshot_totals(void *ctx, const struct snapshot_totals *t);

/* sclat:threshold_update, stats, lost and overhead, from the controller's thread. */
extern const struct controller_hooks trace_events_hooks;

#endif
