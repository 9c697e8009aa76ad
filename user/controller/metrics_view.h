/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the metrics endpoint (outputs/metrics_server.c) reads of the
 * controller beyond its status: each syscall's and class cell's latencies
 * since the run started, counted in a bounded subset of the kernel's buckets
 * (Prometheus histograms need counters that only grow, which the engine's
 * decayed windows are not), the budget's state and the controller thread's
 * CPU. The controller thread folds each interval's counts in before its step;
 * readers copy under the view's own lock, never touching the BPF maps.
 */
#ifndef SCLAT_METRICS_VIEW_H
#define SCLAT_METRICS_VIEW_H

#include <stddef.h>
#include "sclat_abi.h"
#include "basis.h"

struct classes;
struct engine;
struct policy;

/*
 * The exported bounds: 2^k ns for k from LATENCY_LE_FIRST_SHIFT (256 ns) to
 * LATENCY_LE_LAST_SHIFT (8.6 s), each the end of a kernel bucket (an octave's
 * last sub-bucket); the kernel's last bucket, open-ended from 2^33 ns, is
 * only in +Inf.
 */
#define LATENCY_LE_FIRST_SHIFT 8
#define LATENCY_LE_LAST_SHIFT  33
#define LATENCY_LE_BUCKETS     (LATENCY_LE_LAST_SHIFT - LATENCY_LE_FIRST_SHIFT + 1)

/* One series' calls since it started, by exported bucket. */
struct latency_hist {
	/* in[i]: calls under 2^(FIRST + i) ns and not under the bound before (not cumulative) */
	__u64 in[LATENCY_LE_BUCKETS];
	__u64 count;  /* every call: the +Inf bucket */
	__u64 sum_ns; /* estimated: each call at its kernel bucket's midpoint (within 6.25 %) */
};

/* The histogram of a syscall (class_name "") or of one of its class cells. */
struct latency_series {
	unsigned int nr; /* SCLAT_MAX_SYSCALLS: the syscalls sharing one histogram */
	char class_name[BASIS_CLASS_MAX];
	struct latency_hist h;
};

/* The budget's state as of the last interval. */
struct metrics_budget {
	__u64 budget;  /* outliers/s the policy allows the system, 0: no budget */
	double demand; /* outliers/s the syscalls and cells emitted, throttled or dropped */
};

struct metrics_view;

/* A view for an engine of nr_cells cells; NULL on no memory. */
struct metrics_view *metrics_view_new(unsigned int nr_cells);
void metrics_view_free(struct metrics_view *mv);

/* The exported bucket a kernel bucket falls in; LATENCY_LE_BUCKETS: only +Inf. */
unsigned int latency_le_index(unsigned int bucket);

/* The upper bound of exported bucket i, in ns. */
static inline __u64 latency_le_ns(unsigned int i)
{
	return 1ULL << (LATENCY_LE_FIRST_SHIFT + i);
}

/*
 * The controller's thread, between feeding the engine and its step: this
 * interval's counts of every entry and cell in use (a cell that changed
 * class starts again), policy p's budget, the thread's CPU time.
 */
void metrics_view_fold(struct metrics_view *mv, const struct engine *e, const struct classes *cs,
		       const struct policy *p);

/*
 * A copy of the series that counted calls (*out, malloc'd, *n of them),
 * the budget and the controller thread's CPU ns. 0 or -ENOMEM. Any thread.
 */
int metrics_view_read(struct metrics_view *mv, struct latency_series **out, size_t *n,
		      struct metrics_budget *budget, __u64 *cpu_ns);

#endif
