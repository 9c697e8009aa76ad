/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The state of one run, shared by the stages of run/ and by no one else: what
 * the run started (probes, controller, control socket, command), the drain's
 * outlier on its way out, the hand-back of unwound outliers, the in-flight
 * table and its reports, and what the run counts for its end.
 */
#ifndef SCLAT_RUN_STATE_H
#define SCLAT_RUN_STATE_H

#include <pthread.h>
#include <stdbool.h>
#include <linux/types.h>
#include "run.h"
#include "traced_command.h"
#include "sclat_abi.h"
#include "controller/controller.h"
#include "explain/explain.h"
#include "explain/ustack_worker.h"
#include "outputs/sink.h"

struct control;
struct inflight;
struct probes;
struct recent_outliers;

/* An outlier on its way to the sinks, as the unwinder's queue holds it beside its stack. */
struct pending_outlier {
	struct sclat_event e; /* the record's header */
	struct threshold_basis basis;
	struct explanation x;
};

/* An outlier whose user stack the unwinder has named, waiting for the drain. */
struct unwound_outlier {
	struct pending_outlier p;
	struct ustack_result stack;
};

/*
 * Unwound outliers handed back to the drain thread, which alone sends
 * outliers to the sinks (one writer of sclat:syscall_outlier). When it is
 * full the unwinder waits: it may, the drain may not.
 */
#define UNWOUND_SLOTS 16

/* The outliers with a user stack: to the unwinder, and back (unwound.c). */
struct unwound {
	struct ustack_worker *worker; /* NULL: no user stacks */
	bool on;		      /* the unwinder ran for this run */
	__u64 skipped; /* left out by the kernel, its ring buffer filling up (drain thread) */
	/* slot[] and its counts, under lock; room is signalled on taking. */
	pthread_mutex_t lock;
	pthread_cond_t room;
	struct unwound_outlier *slot;
	unsigned int head, count;
	bool direct; /* stopping: the drain waits for the unwinder, which delivers */
};

/*
 * The run. The outliers go out from the drain thread only; the unwinder's
 * thread hands its finished ones back through unwound.
 */
struct run {
	const struct run_opts *o;
	const struct sink *sinks;
	unsigned int nr_sinks;
	struct controller_hooks hooks;		   /* the sinks' hooks, fanned out */
	struct snapshot_trigger *snapshot_trigger; /* a sink's, or NULL */
	struct probes *probes;
	struct controller *ctl;
	struct control *control;
	struct metrics_server *metrics; /* --metrics, or NULL */
	struct explain *explain;
	struct traced_command cmd;
	struct sclat_target_rule *rules;
	__s64 epoch_offset_ns;	  /* realtime - monotonic */
	__u64 start_ns;		  /* attached, monotonic: the run's elapsed time from here */
	struct pending_outlier p; /* the outlier being decoded by the drain */
	struct unwound unwound;
	/* The calls in flight: the run's table, scanned from the drain thread. */
	struct inflight *inflight;
	/* The latest outliers, which a sink of the run's own keeps for `sclat top`. */
	struct recent_outliers *recent;
	struct explanation ix;		  /* the call in flight being reported */
	int inflight_err;		  /* of the first scan that failed */
	__u64 inflight_at_stop;		  /* calls reported in flight by the last scan */
	__u64 next_snapshot_poll_ns;	  /* monotonic */
	struct snapshot_totals snapshots; /* what became of them, once settled */
	int out_err;
	bool poll_failed; /* the ring buffer could not be read: the run ended there */
};

/* drain.c: the ring buffer's callback (probes_opts.on_event), on the run's thread. */
int drain_event(void *ctx, const struct sclat_event *e, size_t size);

/*
 * fanout.c: what goes to the sinks, to each in order. fanout_open() also
 * makes r->hooks and finds r->snapshot_trigger.
 */
void fanout_open(struct run *r, const struct sink *sinks, unsigned int nr_sinks);
void fanout_outlier(struct run *r, const struct pending_outlier *p, const struct explanation *x);
bool fanout_takes_inflight(const struct run *r);
void fanout_inflight(struct run *r, const struct sclat_inflight *rec, __u32 reports, bool final,
		     const struct explanation *x);
void fanout_tick(struct run *r, __u64 elapsed_ns);
void fanout_snapshot(struct run *r, const struct snapshot_taken *s);
void fanout_snapshot_end(struct run *r, const struct snapshot_totals *t);
int fanout_end(struct run *r, const struct controller_totals *totals);

/*
 * unwound.c: the unwinder started before the programs load (or not: no user
 * stacks), each outlier's stack submitted (0: queued, it comes back), the
 * unwound ones delivered from the drain thread, their counts pushed to the
 * controller, and at stop what is queued delivered.
 */
void unwound_start(struct run *r);
int unwound_submit(struct run *r, const struct sclat_event *e, const struct sclat_ustack *cap);
void unwound_deliver(struct run *r);
void unwound_costs_push(struct run *r);
void unwound_stop(struct run *r);

/* inflight_reports.c: the run's in-flight table, and its scans (final: at stop). */
int inflight_reports_open(struct run *r);
void inflight_reports_scan(struct run *r, bool final);
void inflight_reports_close(struct run *r);

/* snapshot_stage.c: the snapshots taken, polled at now; settled after the last outlier; said. */
void snapshot_stage_poll(struct run *r, __u64 now);
void snapshot_stage_settle(struct run *r);
void snapshot_stage_end(struct run *r);

/* totals.c: the sinks' summaries and the closing lines; non-zero when a summary failed. */
int run_totals_end(struct run *r);

#endif
