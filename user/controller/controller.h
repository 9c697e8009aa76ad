/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The adaptive threshold controller: a thread that, every policy interval,
 * reads the kernel's per-CPU histograms (the only reader of them), folds them
 * into a decayed window per syscall, estimates the target quantile, and moves
 * the thresholds in shared memory. It owns the run's counts (totals, per
 * syscall, status) and reports threshold changes, statistics, losses and
 * overhead to the hooks.
 */
#ifndef SCLAT_CONTROLLER_H
#define SCLAT_CONTROLLER_H

#include <stdbool.h>
#include <stddef.h>
#include "sclat_abi.h"
#include "basis.h"
#include "status.h"
#include "kernel/probes_stats.h"

struct controller;
struct metrics_view;
struct policy;

/* One syscall's counts over the whole run. */
struct syscall_count {
	unsigned int nr; /* SCLAT_MAX_SYSCALLS: the syscalls sharing one histogram */
	__u64 calls;
	__u64 outliers; /* emitted by the kernel */
	__u64 drops;
	__u64 throttled;
	__u64 braked;
};

/* Called from the controller's thread. Any may be NULL. */
struct controller_hooks {
	void (*threshold_update)(void *ctx, unsigned int nr, __u64 old_ns, __u64 new_ns,
				 const struct threshold_basis *basis);
	void (*stats)(void *ctx, const struct syscall_status *s, __u64 interval_calls,
		      __u64 interval_outliers, __u64 interval_throttled, __u64 interval_drops,
		      __u64 interval_ns);
	/* braked: held back by the kernel brake (the stats hook: syscall_status.interval_braked).
	 */
	void (*lost)(void *ctx, __u64 drops, __u64 throttled, __u64 braked, __u64 total_drops,
		     __u64 total_throttled, __u64 total_braked);
	void (*overhead)(void *ctx, const struct controller_status *st);
	void *ctx;
};

/*
 * Publish policy (controller_policy_publish(): the controller owns the
 * published policy from here, whatever this returns, and unpublishes it when
 * freed), take the histograms' starting counts, apply its initial
 * thresholds, then start the controller thread. The programs not attached
 * yet; from a thread registered with RCU (publishing is call_rcu's).
 */
int controller_start(struct controller **cp, struct probes *p, struct policy *policy,
		     const struct controller_hooks *h);

/* One last pass (final counts and hooks), then stop the thread; c stays readable. */
void controller_stop(struct controller *c);

/* Free a stopped controller, and unpublish its policy; c may be NULL. */
void controller_free(struct controller *c);

/*
 * The basis of the threshold an outlier crossed (its syscall, class cell,
 * threshold generation and value, as the kernel recorded them). Lock-free,
 * for the consumer. False, with *out zeroed, when that threshold is too old.
 */
bool controller_basis(struct controller *c, unsigned int nr, unsigned int cell, __u32 gen,
		      __u64 threshold_ns, struct threshold_basis *out);

/*
 * The consumer delivered an outlier of nr that exited at exit_ns (monotonic);
 * explaining it cost bpf_ns in the kernel and user_ns to decode.
 */
void controller_outlier_delivered(struct controller *c, unsigned int nr, __u64 exit_ns,
				  __u64 bpf_ns, __u64 user_ns);

/*
 * What unwinding user stacks has cost so far, as the run that owns the
 * unwinder counted it: the status and the overhead hook show the last given.
 */
void controller_user_stacks(struct controller *c, const struct user_stack_costs *u);

/* The totals as of the last interval (exact once stopped). */
void controller_totals(struct controller *c, struct controller_totals *out);

/*
 * Per-syscall counts of a stopped controller, busiest first; the syscalls
 * that share one histogram are one entry, nr == SCLAT_MAX_SYSCALLS. counts
 * has room for SCLAT_MAX_SYSCALLS + 1. Returns how many.
 */
unsigned int controller_counts(struct controller *c, struct syscall_count *counts);

/*
 * The one way a run's policy is published (at start, and by the control
 * socket's reloads and `policy set`): p is published unless the tracer's
 * kernel maps, sized when it started, cannot hold it (classes_policy_fits()).
 * -EINVAL: p is freed, the running policy stays, why says why; 1: published,
 * why holds a warning (it applies within a smaller bound); 0: published.
 * From a thread registered with RCU.
 */
int controller_policy_publish(struct controller *c, struct policy *p, char *why, size_t len);

/*
 * A consistent snapshot of the status, but for the calls in flight (the
 * run's table lists them); 0 or -errno (-EAGAIN before the first interval).
 */
int controller_status(struct controller *c, struct controller_status *out);

/*
 * The latency histograms since start, the budget and the controller's CPU,
 * for the metrics endpoint (metrics_view.h); valid until controller_free().
 */
struct metrics_view *controller_metrics_view(struct controller *c);

#endif
