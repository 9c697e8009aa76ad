/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The thread that explains user stacks off the ring buffer's drain: the
 * consumer submits each captured stack with the outlier it belongs to (an
 * opaque payload) and goes on; the worker keeps the process maps current,
 * unwinds, names the frames and hands the result to the outputs. A full queue
 * refuses the stack at once and counts it: the drain never waits for it. One
 * process cannot take the whole queue (the last eighth is kept for others),
 * and a stopping run waits for the stacks still queued a bounded time only.
 */
#ifndef SCLAT_USTACK_WORKER_H
#define SCLAT_USTACK_WORKER_H

#include <stddef.h>
#include <sys/types.h>
#include <linux/types.h>
#include "sclat_ustack.h"
#include "explain/map_tracker.h"
#include "explain/symbols.h"
#include "explain/unwind.h"

/* One submitted stack, as the worker hands it back. */
struct ustack_job {
	__u64 ts; /* when it was captured (CLOCK_MONOTONIC ns) */
	pid_t pid, tid;
	__u64 submit_ns;   /* when it was queued */
	__u32 stack_bytes; /* of stack the kernel copied */
	__u32 stack_flags; /* SCLAT_USTACK_* */
};

/*
 * Called on the worker thread for each stack, in submission order: payload is
 * the submitter's copy, r the unwound and named stack.
 */
typedef void (*ustack_done_fn)(void *ctx, const struct ustack_job *job, const void *payload,
			       const struct ustack_result *r);

struct ustack_worker_opts {
	unsigned int queue_slots; /* a power of two; 0: 256 */
	size_t payload_size;	  /* bytes copied from each submit's payload */
	ustack_done_fn done;
	void *ctx;
	struct map_tracker_opts maps;
	struct symbols_limits symbols; /* 0s: the defaults */
	__u64 retention_ns;	       /* how long an exited process's maps stay; 0: 30 s */
};

/* What explaining stacks costs and what it lost. */
struct ustack_worker_stats {
	__u64 submitted;			/* stacks queued */
	__u64 dropped;				/* stacks refused or abandoned (below) */
	__u64 dropped_share;			/* of them: their process held its share */
	__u64 abandoned;			/* of them: not unwound, the run was stopping */
	__u64 unwound;				/* stacks done */
	__u64 frames;				/* frames found in them */
	__u64 capture_bytes, capture_bytes_max; /* stack copied by BPF */
	__u64 unwind_ns, unwind_ns_max;		/* finding the frames (libdwfl), per stack */
	__u64 name_ns, name_ns_max;		/* naming them (symbols, file:line), per stack */
	__u64 wait_ns_max;			/* the longest a stack waited in the queue */
	__u32 queue_slots, queue_max_depth;
	struct map_tracker_stats maps;
	struct map_table_stats table;
	struct symbols_stats symbols;
};

struct ustack_worker;

/* Open the map tracker (scan included) and start the thread. 0 or a negative errno. */
int ustack_worker_start(struct ustack_worker **wp, const struct ustack_worker_opts *opts);

/*
 * Producer side (one thread): queue a captured stack and its payload. Copies
 * what was captured and returns at once: 0, or -ENOSPC when the queue is
 * full (counted in dropped; the caller emits its outlier without the stack).
 */
int ustack_worker_submit(struct ustack_worker *w, __u64 ts, pid_t pid, pid_t tid,
			 const struct sclat_ustack *cap, const void *payload);

/* A consistent copy of the counters; any thread. */
void ustack_worker_stats(struct ustack_worker *w, struct ustack_worker_stats *st);

/*
 * Finish the stacks already queued, stop the thread, free everything; last
 * (if not NULL) gets the final counters. w may be NULL. No binary is read
 * 2 s after this is called, and stacks still queued then go back without
 * frames (USTACK_END_STOPPED), counted as abandoned.
 */
void ustack_worker_stop(struct ustack_worker *w, struct ustack_worker_stats *last);

#endif
