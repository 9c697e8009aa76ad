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
#include "inflight.h"
#include "kernel/probes_stats.h"

struct controller;
struct policy;

/* Running totals of the whole run. */
struct controller_totals {
	__u64 syscalls;
	__u64 outliers;	 /* delivered to the output */
	__u64 emitted;	 /* written to the ring buffer by the kernel */
	__u64 drops;	 /* ring buffer full, counted in the kernel */
	__u64 throttled; /* held back by the burst guard */
	__u64 threshold_changes;
	/* What explaining outliers or classing calls could not do (see controller_status). */
	__u64 kernel_stacks_skipped;
	__u64 wakers_lost;
	__u64 class_ids_refused;
	__u64 class_requests_lost;
	/* New processes of a scope whose table was full: not measured. */
	__u64 children_not_followed;
};

/* One syscall's counts over the whole run. */
struct syscall_count {
	unsigned int nr; /* SCLAT_MAX_SYSCALLS: the syscalls sharing one histogram */
	__u64 calls;
	__u64 outliers; /* emitted by the kernel */
	__u64 drops;
	__u64 throttled;
};

/* One syscall in `sclat status`. */
struct syscall_status {
	unsigned int nr;
	__u64 calls;		       /* since start */
	double rate;		       /* calls/s over the last interval */
	__u64 p50_ns, p99_ns, p999_ns; /* over the decayed window */
	__u64 threshold_ns;
	bool armed;			  /* adaptive and past min_samples */
	struct threshold_basis basis;	  /* what threshold_ns stands on */
	__u64 outliers, throttled, drops; /* since start */
	unsigned int classes;		  /* class cells of its own */
	__u64 classes_refused;		  /* classes refused a cell (caps), since start */
	__u64 sampled_under_ns; /* its calls under this go 1 in N into its histogram (0: none) */
};

/* The calls in flight that `sclat status` lists, at most. */
#define CONTROLLER_INFLIGHT_MAX 64

/* What unwinding the outliers' user stacks cost, and what the unwinder's queue refused. */
struct user_stack_costs {
	bool on;	       /* user stacks are copied and unwound */
	__u64 queued, dropped; /* not unwound: the queue was full, or the ring buffer was filling */
	__u64 unwound, frames; /* stacks done, frames found in them */
	__u64 unwind_ns, name_ns;	  /* finding and naming the frames, in total */
	__u64 unwind_ns_max, name_ns_max; /* the most for one stack */
	__u64 wait_ns_max;		  /* the longest a stack waited in the queue */
	__u32 queue_slots, queue_max_depth;
};

/* Fills out with the user stacks' costs; called under the controller's status lock. */
typedef void (*user_stack_costs_fn)(void *ctx, struct user_stack_costs *out);
/* One class cell in `sclat status`: a row like its syscall's, s.basis.class_name its class. */
struct class_status {
	struct syscall_status s;
	bool fallback; /* on its syscall's threshold: fewer than min_samples */
};

/* The most classes a status lists. */
#define CONTROLLER_STATUS_CLASSES 1024

struct controller_status {
	__u64 elapsed_ns;
	__u64 interval_ns;
	struct controller_totals totals;
	__u64 ns_per_syscall; /* added by sclat's programs (sampled kernel BPF stats) */
	struct probes_prog_stat progs[PROBES_MAX_PROGS];
	int nr_progs;
	struct probes_mem mem;
	__u64 ringbuf_used, ringbuf_size;
	__u64 consumer_lag_ns;
	/* What explaining the outliers delivered so far cost, in total. */
	__u64 explain_bpf_ns;  /* in the kernel: stacks, targets, records */
	__u64 explain_user_ns; /* decoding them in userspace */
	/* Kernel stacks taken, and left out by the burst guard; wakers lost. */
	__u64 kernel_stacks, kernel_stacks_skipped, wakers_lost;
	struct user_stack_costs user_stacks;
	const char *attach_kind;
	unsigned int nr_syscalls;
	/*
	 * The active ones, first nr_syscalls; last, when they made calls, the
	 * syscalls without a histogram of their own, together (nr
	 * SCLAT_MAX_SYSCALLS: "other"), each also listed with its outliers.
	 */
	struct syscall_status syscalls[SCLAT_MAX_SYSCALLS + 1];
	/* The calls in flight past their threshold at the last scan, longest first. */
	unsigned int nr_inflight;
	struct inflight_call inflight[CONTROLLER_INFLIGHT_MAX];
	unsigned int class_ids;	     /* processes, cgroups or thread names with an id */
	__u64 class_ids_refused;     /* asked for an id when none was left */
	__u64 class_requests_lost;   /* the kernel's queue or class key table full; asked again */
	__u64 children_not_followed; /* new processes the scope's full table could not take */
	unsigned int nr_classes;
	struct class_status classes[CONTROLLER_STATUS_CLASSES];
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
 * Take the histograms' starting counts, apply the current policy's initial
 * thresholds, then start the controller thread. The policy must be published
 * (policy_publish) before, and the programs not attached yet.
 */
int controller_start(struct controller **cp, struct probes *p, const struct controller_hooks *h);

/* One last pass (final counts and hooks), then stop the thread; c stays readable. */
void controller_stop(struct controller *c);

/* Free a stopped controller; c may be NULL. */
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

/* Where the status and the overhead hook read the user stacks' costs from (NULL: off). */
void controller_user_stack_source(struct controller *c, user_stack_costs_fn fn, void *ctx);

/* The totals as of the last interval (exact once stopped). */
void controller_totals(struct controller *c, struct controller_totals *out);

/*
 * Per-syscall counts of a stopped controller, busiest first; the syscalls
 * that share one histogram are one entry, nr == SCLAT_MAX_SYSCALLS. counts
 * has room for SCLAT_MAX_SYSCALLS + 1. Returns how many.
 */
unsigned int controller_counts(struct controller *c, struct syscall_count *counts);

/*
 * Whether policy p fits the tracer's kernel maps, sized when it started
 * (classes_policy_fits()): -EINVAL to refuse it, 1 to apply it with the
 * warning in msg, 0 when it fits.
 */
int controller_policy_fits(struct controller *c, const struct policy *p, char *msg, size_t len);

/* The calls in flight (the run loop scans them, the status lists them). */
struct inflight *controller_inflight(struct controller *c);

/* A consistent snapshot of the status; 0 or -errno (-EAGAIN before the first interval). */
int controller_status(struct controller *c, struct controller_status *out);

#endif
