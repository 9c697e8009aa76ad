/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What every output of a run is to it: a sink (the watch printer, the record
 * session's events, the snapshot trigger, the outlier event alone). A run has
 * one or more; it fans each outlier, call in flight, tick, snapshot and its
 * end out to all of them, in their order, and the controller's reports to
 * each one's hooks. Each sink writes what it writes itself.
 */
#ifndef SCLAT_SINK_H
#define SCLAT_SINK_H

#include "sclat_abi.h"
#include "controller/controller.h"
#include "explain/explain.h"
#include "snapshot_trigger.h"

/* A run's sinks, at most. */
#define SINKS_MAX 4

/* Every callback may be NULL: a sink takes what it wants. */
struct sink {
	/*
	 * Each outlier, with the epoch time of its entry, the basis of the
	 * threshold it crossed and what explains it. Non-zero stops tracing:
	 * the sinks after this one do not have it.
	 */
	int (*outlier)(void *ctx, const struct sclat_event *e, __s64 entry_epoch_ns,
		       const struct threshold_basis *basis, const struct explanation *x);
	/*
	 * A call still in flight (r, the task iterator's record), reported the
	 * reports-th time, with the epoch time of its entry and what explains
	 * it; final: at stop. Non-zero stops tracing.
	 */
	int (*inflight)(void *ctx, const struct sclat_inflight *r, __s64 entry_epoch_ns,
			__u32 reports, bool final, const struct explanation *x);
	/* About once a second while tracing. */
	void (*tick)(void *ctx, __u64 elapsed_ns, const struct controller_totals *totals);
	/* At the end, the per-syscall counts, busiest first. Non-zero: it failed. */
	int (*end)(void *ctx, const struct controller_totals *totals,
		   const struct syscall_count *counts, unsigned int n);
	/* The controller's reports, from its thread. */
	const struct controller_hooks *hooks;
	/*
	 * A sink that makes LTTng snapshot a session on outliers: its trigger,
	 * which the run polls for the snapshots taken (at most one per run).
	 */
	struct snapshot_trigger *snapshot_trigger;
	/* Each snapshot taken, with the epoch time of its outlier's entry; at the end, all. */
	void (*snapshot)(void *ctx, const struct snapshot_taken *s, __s64 entry_epoch_ns);
	void (*snapshot_end)(void *ctx, const struct snapshot_totals *totals);
	void *ctx;
};

#endif
