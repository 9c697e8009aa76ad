/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The state of filter.sclat.kernelize's message iterator, shared by the
 * files that make its output: the output trace's classes (kz_trace.c), its
 * CPUs and threads (kz_cpus.c), the events it builds (kz_emit.c), the
 * pending events in time order (kz_pending.c) and the outliers read from the
 * input (kz_input.c); kernelize.c drives them.
 */
#ifndef SCLAT_BT2_KZ_ITER_H
#define SCLAT_BT2_KZ_ITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <babeltrace2/babeltrace.h>
#include "util/heap.h"
#include "kz_cpus.h"
#include "kz_pending.h"
#include "kz_queue.h"
#include "kz_trace.h"

#define KZ_MAX_CPUS   8192 /* Linux's largest NR_CPUS: a stream per CPU number */
#define KZ_TARGET_MAX 4096 /* bytes of an outlier's target kept: a path */

#define KZ_ERROR(it, fmt, ...) \
	BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_MESSAGE_ITERATOR((it)->self, fmt, ##__VA_ARGS__)

enum kz_pass {
	KZ_START,   /* nothing read yet */
	KZ_MEASURE, /* first pass: the largest lag */
	KZ_CONVERT,
};

struct kz_iter {
	bt_self_message_iterator *self;
	bt_message_iterator *up;
	enum kz_pass pass;
	bool horizon_set;
	uint64_t horizon_ns;
	uint64_t max_lag_ns; /* without horizon: how far back an input can reach */
	/* The output trace, created at the first outlier (it copies the input clock). */
	bt_trace_class *tc;
	bt_trace *trace;
	bt_clock_class *cc;
	bt_stream_class *sc;
	bt_event_class *sched_switch;
	bt_event_class *sched_waking, *sched_wakeup;
	bt_event_class *process_state; /* lttng_statedump_process_state */
	bt_event_class *fd_state;      /* lttng_statedump_file_descriptor */
	uint64_t *fds_dumped; /* open addressing: hashes of (pid, fd, file) already dumped */
	size_t fds_size, fds_used;
	struct syscall_classes *syscalls;
	size_t nr_syscalls, cap_syscalls;
	uint16_t syscall_hint[256]; /* 1 + a class, by hash of its name: most lookups hit */
	struct cpu_stream *cpus;    /* by CPU number, up to the largest seen */
	size_t nr_cpus;
	struct thread_cpu *threads; /* open addressing by tid */
	size_t threads_size, threads_used;
	struct heap pending;   /* of struct pending, the earliest on top */
	struct pending *batch; /* the events of one nanosecond, being released */
	size_t cap_batch;
	uint64_t seq, releases;
	struct kz_queue out; /* output messages, made ahead */
	uint64_t last_in_ts, last_out_ts, max_latency_ns;
	bool sclat_seen; /* an input stream class has sclat:* events */
	/* The CPUs the first pass saw: their streams all begin with the output. */
	uint64_t cpus_seen[KZ_MAX_CPUS / 64];
	bool up_done, ended;
};

#endif
