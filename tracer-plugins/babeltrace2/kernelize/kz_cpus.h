/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * kernelize's CPUs: a stream per CPU number with its open packet and the
 * thread our sched_switch events made current on it; and, per thread, the
 * CPU it was last switched in on.
 */
#ifndef SCLAT_BT2_KZ_CPUS_H
#define SCLAT_BT2_KZ_CPUS_H

#include <stdbool.h>
#include <stdint.h>
#include <babeltrace2/babeltrace.h>
#include "outlier.h"

struct kz_iter;

/* One CPU: its stream, open packet, and the thread our sched_switch events made current. */
struct cpu_stream {
	bt_stream *stream;
	bt_packet *packet;
	uint64_t packet_events;
	uint64_t last_ts; /* of its last event: a stream is in time order */
	int32_t tid;	  /* 0: its swapper */
	char comm[OUTLIER_COMM_LEN];
	uint64_t claimed; /* the release that switched a thread in for its first event */
	uint64_t in_ts;	  /* when tid was switched in: its events come after */
};

/* Where a thread was last switched in: whether it still runs there, that CPU's tid says. */
struct thread_cpu {
	int32_t tid; /* 0: a free slot (tid 0 is a swapper, never placed) */
	int32_t pid; /* of its last statedump: a tid reused by another process gets one again */
	uint32_t cpu;
};

/* The CPU's stream, begun at its first use; cpu < KZ_MAX_CPUS (checked on input). NULL: no memory.
 */
struct cpu_stream *kz_cpu(struct kz_iter *it, uint32_t cpu);

/* Queue an event of class ec at ts on the CPU's stream; returns its payload or NULL. */
bt_field *kz_event(struct kz_iter *it, struct cpu_stream *c, uint32_t cpu, const bt_event_class *ec,
		   uint64_t ts);

/* Open a packet of c at ts, unless one is open; 0 or -1. */
int kz_packet_begin(struct kz_iter *it, struct cpu_stream *c, uint32_t cpu, uint64_t ts);

/* Close c's open packet at ts, if any; 0 or -1. */
int kz_packet_end(struct kz_iter *it, struct cpu_stream *c, uint64_t ts);

/* Remember that tid of pid was switched in on cpu; 0 or -1 (out of memory). */
int kz_thread_placed(struct kz_iter *it, int32_t tid, int32_t pid, uint32_t cpu);

/* Whether tid has had its statedump as a thread of pid. */
bool kz_thread_known(struct kz_iter *it, int32_t tid, int32_t pid);

/* The CPU other than c where tid is current, or NULL. */
struct cpu_stream *kz_thread_cpu(struct kz_iter *it, int32_t tid, const struct cpu_stream *c);

#endif
