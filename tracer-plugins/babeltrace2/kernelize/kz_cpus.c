// SPDX-License-Identifier: GPL-2.0-only
/* kernelize's per-CPU streams and where each thread runs (kz_cpus.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kz_iter.h"

#define KZ_PACKET_EVENTS 8192 /* events per packet: lets readers seek */

struct cpu_stream *kz_cpu(struct kz_iter *it, uint32_t cpu)
{
	struct cpu_stream *c;
	char name[32];

	if (cpu >= it->nr_cpus) {
		c = realloc(it->cpus, ((size_t)cpu + 1) * sizeof(*c));
		if (!c)
			return NULL;
		memset(&c[it->nr_cpus], 0, ((size_t)cpu + 1 - it->nr_cpus) * sizeof(*c));
		it->cpus = c;
		it->nr_cpus = (size_t)cpu + 1;
	}
	c = &it->cpus[cpu];
	if (c->stream)
		return c;
	c->stream = bt_stream_create(it->sc, it->trace);
	if (!c->stream)
		return NULL;
	snprintf(name, sizeof(name), "channel0_%u", cpu);
	bt_stream_set_name(c->stream, name);
	snprintf(c->comm, sizeof(c->comm), "swapper/%u", cpu);
	c->tid = 0;
	if (kz_queue_push(&it->out, bt_message_stream_beginning_create(it->self, c->stream)))
		return NULL;
	return c;
}

static struct thread_cpu *kz_thread_slot(struct kz_iter *it, int32_t tid)
{
	size_t mask = it->threads_size - 1, i = ((uint32_t)tid * 2654435761U) & mask;

	while (it->threads[i].tid && it->threads[i].tid != tid)
		i = (i + 1) & mask;
	return &it->threads[i];
}

int kz_thread_placed(struct kz_iter *it, int32_t tid, int32_t pid, uint32_t cpu)
{
	struct thread_cpu *slot, *old = it->threads;
	size_t i, old_size = it->threads_size;

	if (2 * (it->threads_used + 1) > it->threads_size) {
		it->threads_size = old_size ? 2 * old_size : 256;
		it->threads = calloc(it->threads_size, sizeof(*it->threads));
		if (!it->threads) {
			it->threads = old;
			it->threads_size = old_size;
			return -1;
		}
		for (i = 0; i < old_size; i++)
			if (old[i].tid)
				*kz_thread_slot(it, old[i].tid) = old[i];
		free(old);
	}
	slot = kz_thread_slot(it, tid);
	if (!slot->tid)
		it->threads_used++;
	slot->tid = tid;
	slot->pid = pid;
	slot->cpu = cpu;
	return 0;
}

bool kz_thread_known(struct kz_iter *it, int32_t tid, int32_t pid)
{
	const struct thread_cpu *slot = it->threads_size ? kz_thread_slot(it, tid) : NULL;

	return slot && slot->tid && slot->pid == pid;
}

struct cpu_stream *kz_thread_cpu(struct kz_iter *it, int32_t tid, const struct cpu_stream *c)
{
	struct thread_cpu *slot;
	struct cpu_stream *d;

	if (!it->threads_size)
		return NULL;
	slot = kz_thread_slot(it, tid);
	if (!slot->tid || slot->cpu >= it->nr_cpus)
		return NULL;
	d = &it->cpus[slot->cpu];
	return d != c && d->stream && d->tid == tid ? d : NULL;
}

int kz_packet_end(struct kz_iter *it, struct cpu_stream *c, uint64_t ts)
{
	int err;

	if (!c->packet)
		return 0;
	err = kz_queue_push(&it->out, bt_message_packet_end_create_with_default_clock_snapshot(
					      it->self, c->packet, ts));
	bt_packet_put_ref(c->packet);
	c->packet = NULL;
	return err;
}

int kz_packet_begin(struct kz_iter *it, struct cpu_stream *c, uint32_t cpu, uint64_t ts)
{
	if (c->packet)
		return 0;
	c->packet = bt_packet_create(c->stream);
	if (!c->packet)
		return -1;
	bt_field_integer_unsigned_set_value(bt_field_structure_borrow_member_field_by_index(
						    bt_packet_borrow_context_field(c->packet), 0),
					    cpu);
	c->packet_events = 0;
	return kz_queue_push(&it->out,
			     bt_message_packet_beginning_create_with_default_clock_snapshot(
				     it->self, c->packet, ts));
}

bt_field *kz_event(struct kz_iter *it, struct cpu_stream *c, uint32_t cpu, const bt_event_class *ec,
		   uint64_t ts)
{
	bt_message *msg;

	/* The output is in time order: an event put after its switch moves the later ones. */
	if (ts < it->last_out_ts)
		ts = it->last_out_ts;
	if (c->packet && c->packet_events >= KZ_PACKET_EVENTS && kz_packet_end(it, c, ts))
		return NULL;
	if (kz_packet_begin(it, c, cpu, ts))
		return NULL;
	msg = bt_message_event_create_with_packet_and_default_clock_snapshot(it->self, ec,
									     c->packet, ts);
	if (kz_queue_push(&it->out, msg))
		return NULL;
	c->packet_events++;
	c->last_ts = ts;
	it->last_out_ts = ts;
	return bt_event_borrow_payload_field(bt_message_event_borrow_event(msg));
}
