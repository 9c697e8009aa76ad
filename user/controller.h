/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The adaptive threshold controller: a thread that, every policy interval,
 * reads the kernel's per-CPU histograms, folds them into a decayed window per
 * syscall, estimates the target quantile, and moves the thresholds in shared
 * memory. It also keeps the status that `sclat status` shows, and reports
 * threshold changes, statistics, losses and overhead to the hooks.
 */
#ifndef SCLAT_CONTROLLER_H
#define SCLAT_CONTROLLER_H

#include <stdbool.h>
#include "sclat_abi.h"
#include "tracer.h"
#include "tracing.h"

struct controller;

/* One syscall in `sclat status`. */
struct syscall_status {
	unsigned int nr;
	__u64 calls;			/* since start */
	double rate;			/* calls/s over the last interval */
	__u64 p50_ns, p99_ns, p999_ns;	/* over the decayed window */
	__u64 threshold_ns;
	bool armed;			/* adaptive and past min_samples */
	__u64 outliers, throttled, drops;	/* since start */
};

struct controller_status {
	__u64 elapsed_ns;
	__u64 interval_ns;
	struct tracing_totals totals;
	__u64 ns_per_syscall;		/* added by sclat's programs (sampled kernel BPF stats) */
	struct tracer_prog_stat progs[TRACER_MAX_PROGS];
	int nr_progs;
	struct tracer_mem mem;
	__u64 ringbuf_used, ringbuf_size;
	__u64 consumer_lag_ns;
	const char *attach_kind;
	unsigned int nr_syscalls;
	struct syscall_status syscalls[SCLAT_MAX_SYSCALLS];	/* active ones first nr_syscalls */
};

/* Called from the controller's thread. Any may be NULL. */
struct controller_hooks {
	void (*threshold_update)(void *ctx, unsigned int nr, __u64 old_ns, __u64 new_ns,
				 const struct threshold_basis *basis);
	void (*stats)(void *ctx, const struct syscall_status *s, __u64 interval_calls,
		      __u64 interval_outliers, __u64 interval_throttled, __u64 interval_drops,
		      __u64 interval_ns);
	void (*lost)(void *ctx, __u64 drops, __u64 throttled, __u64 total_drops,
		     __u64 total_throttled);
	void (*overhead)(void *ctx, const struct controller_status *st);
	void *ctx;
};

/*
 * Apply the current policy's initial thresholds, then start the controller
 * thread. The policy must be published (policy_publish) before.
 */
int controller_start(struct controller **cp, struct tracer *t, const struct controller_hooks *h);

/* One last pass (final counts and hooks), then stop the thread and free. */
void controller_stop(struct controller *c);

/*
 * What threshold_ns of nr stood on, among the last few thresholds of nr (all
 * zero when it is older than those); lock-free, for the consumer.
 */
void controller_basis(struct controller *c, unsigned int nr, __u64 threshold_ns,
		      struct threshold_basis *out);

/* The consumer saw an outlier of nr that exited at exit_ns (monotonic). */
void controller_outlier_seen(struct controller *c, unsigned int nr, __u64 exit_ns);

/* A consistent snapshot of the status; 0 or -errno. */
int controller_status(struct controller *c, struct controller_status *out);

#endif
