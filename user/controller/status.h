/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What a running controller shows of itself (`sclat status`, sclat:overhead,
 * sclat:session_end): the run's totals and the status snapshot, and the row
 * of one syscall or class cell, made from its engine entry.
 */
#ifndef SCLAT_CONTROLLER_STATUS_H
#define SCLAT_CONTROLLER_STATUS_H

#include <stdbool.h>
#include "sclat_abi.h"
#include "basis.h"
#include "inflight.h"
#include "kernel/probes_stats.h"

struct engine_syscall;

/* Running totals of the whole run. */
struct controller_totals {
	__u64 syscalls;
	__u64 outliers;	 /* delivered to the output */
	__u64 emitted;	 /* written to the ring buffer by the kernel */
	__u64 drops;	 /* ring buffer full, counted in the kernel */
	__u64 throttled; /* held back by the burst guard */
	__u64 braked;	 /* held back by the brake (more than a threshold should let through) */
	__u64 threshold_changes;
	/* What explaining outliers or classing calls could not do (see controller_status). */
	__u64 kernel_stacks_skipped;
	__u64 wakers_lost;
	/* Blocked calls never traced back onto a CPU: their block's end and waker unknown. */
	__u64 backs_unseen;
	__u64 class_ids_refused;
	__u64 class_requests_lost;
	/* New processes of a scope whose table was full: not measured. */
	__u64 children_not_followed;
};

/* One syscall in `sclat status`. */
struct syscall_status {
	unsigned int nr;
	__u64 calls;		       /* since start */
	double rate;		       /* calls/s over the last interval */
	__u64 p50_ns, p99_ns, p999_ns; /* over the decayed window */
	__u64 threshold_ns;
	__u64 learned_ns;		  /* the rule's own, under the policy's min_latency */
	bool armed;			  /* adaptive and past min_samples */
	struct threshold_basis basis;	  /* what threshold_ns stands on */
	__u64 outliers, throttled, drops; /* since start */
	__u64 braked, interval_braked;	  /* held back by the brake: since start, last interval */
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

/* One class cell in `sclat status`: a row like its syscall's, s.basis.class_name its class. */
struct class_status {
	struct syscall_status s;
	bool fallback; /* on its syscall's threshold: fewer than min_samples */
	/* classes = auto: enum classes_auto_state, and whose threshold judges it ("": the
	 * syscall's) */
	int auto_state;
	char judged_by[BASIS_CLASS_MAX];
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
	/*
	 * Kernel stacks taken, and left out by the burst guard; wakers lost;
	 * blocked calls never traced back onto a CPU.
	 */
	__u64 kernel_stacks, kernel_stacks_skipped, wakers_lost, backs_unseen;
	struct user_stack_costs user_stacks;
	const char *attach_kind;
	unsigned int nr_syscalls;
	/*
	 * The active ones, first nr_syscalls; last, when they made calls, the
	 * syscalls without a histogram of their own, together (nr
	 * SCLAT_MAX_SYSCALLS: "other"), each also listed with its outliers.
	 */
	struct syscall_status syscalls[SCLAT_MAX_SYSCALLS + 1];
	/*
	 * The calls in flight past their threshold at the last scan, longest
	 * first: from the run's table (inflight_list()), not the controller's.
	 */
	unsigned int nr_inflight;
	struct inflight_call inflight[CONTROLLER_INFLIGHT_MAX];
	unsigned int class_ids;	     /* processes, cgroups, names or titles with an id */
	__u64 class_ids_refused;     /* asked for an id when none was left */
	__u64 class_requests_lost;   /* the kernel's queue or class key table full; asked again */
	__u64 children_not_followed; /* new processes the scope's full table could not take */
	unsigned int nr_classes;
	struct class_status classes[CONTROLLER_STATUS_CLASSES];
};

/*
 * The row of engine entry s (a syscall's, or a class cell's, nr its syscall)
 * over an interval of secs: counts, rate, percentiles of its window,
 * threshold and basis.
 */
void status_row_fill(const struct engine_syscall *s, unsigned int nr, double secs,
		     struct syscall_status *ss);

#endif
