/* SPDX-License-Identifier: GPL-2.0-only */
/* Where outliers go: what every output (the watch printer, the LTTng trace) gives the run loop. */
#ifndef SCLAT_OUTPUT_H
#define SCLAT_OUTPUT_H

#include "sclat_abi.h"
#include "controller/controller.h"
#include "explain/explain.h"
#include "snapshot_trigger.h"

struct output {
	/*
	 * Each outlier, with the epoch time of its entry, the basis of the
	 * threshold it crossed and what explains it. Non-zero stops tracing.
	 */
	int (*outlier)(void *ctx, const struct sclat_event *e, __s64 entry_epoch_ns,
		       const struct threshold_basis *basis, const struct explanation *x);
	/*
	 * A call still in flight (r, the task iterator's record), reported the
	 * reports-th time, with the epoch time of its entry and what explains
	 * it; final: at stop. May be NULL. Non-zero stops tracing.
	 */
	int (*inflight)(void *ctx, const struct sclat_inflight *r, __s64 entry_epoch_ns,
			__u32 reports, bool final, const struct explanation *x);
	/* About once a second while tracing; may be NULL. */
	void (*tick)(void *ctx, __u64 elapsed_ns, const struct controller_totals *totals);
	/* At the end, the per-syscall counts, busiest first; may be NULL. Non-zero: it failed. */
	int (*end)(void *ctx, const struct controller_totals *totals,
		   const struct syscall_count *counts, unsigned int n);
	/* Given to the controller; may be NULL. */
	const struct controller_hooks *hooks;
	/*
	 * --snapshot-session: the trigger that makes LTTng snapshot the user's
	 * session on the outliers this output fires as sclat:syscall_outlier
	 * (NULL: none); each snapshot, with the epoch time of its outlier's
	 * entry, and at the end what became of them all. The callbacks may be NULL.
	 */
	struct snapshot_trigger *snapshot_trigger;
	void (*snapshot)(void *ctx, const struct snapshot_taken *s, __s64 entry_epoch_ns);
	void (*snapshot_end)(void *ctx, const struct snapshot_totals *totals);
	void *ctx;
};

#endif
