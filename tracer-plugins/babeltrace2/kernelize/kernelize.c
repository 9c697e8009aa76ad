// SPDX-License-Identifier: GPL-2.0-only
/*
 * Outliers reach the UST trace when the consumer sees them, after their exit:
 * their entry and exit events are buffered in a heap and released in time
 * order once no later input can precede them. How far back a later input can
 * reach is the largest lag (event time - entry time) of the input: a first
 * pass measures it, then the input is read again from its beginning. With a
 * horizon parameter there is one pass, and the bound is the horizon plus the
 * largest latency seen so far; an outlier older than that is an error.
 *
 * Trace Compass finds the thread of an event from the sched_switch events of
 * its CPU, 1 ns before the event: each thread is switched in on a CPU by then,
 * out of the CPU it was current on before (a thread runs on one CPU at a
 * time), and events that share a nanosecond are released together, their
 * switches first, so that the output stays in time order.
 *
 * An outlier that lists its stretches off the CPU (trace version 7) enters
 * on the CPU it first left, and is switched out and back in, and woken, at
 * the times and on the CPUs recorded: Trace Compass's thread views then show
 * when it ran and when it waited. Without the list (older traces, calls that
 * never left their CPU) its thread is current from its entry to its exit.
 *
 * This file is the component and its message iterator: the parameters, the
 * passes over the input and the hand-over of the output; kz_iter.h lists the
 * files that make the output.
 */
#include <stdlib.h>
#include "util/compiler.h"
#include "kernelize.h"
#include "kz_input.h"
#include "kz_iter.h"
#include "params.h"

struct kernelize {
	uint64_t horizon_ns;
	bool horizon_set;
	bt_self_component_port_input *in;
};

static const char *const kernelize_keys[] = { "horizon" };

bt_component_class_initialize_method_status
kernelize_init(bt_self_component_filter *self_flt,
	       bt_self_component_filter_configuration *config __always_unused,
	       const bt_value *params, void *init_data __always_unused)
{
	bt_self_component *self = bt_self_component_filter_as_self_component(self_flt);
	struct kernelize *k = calloc(1, sizeof(*k));

	if (!k)
		return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_MEMORY_ERROR;
	bt_self_component_set_data(self, k);
	k->horizon_set = bt_value_map_has_entry(params, "horizon");
	if (params_check_keys(self, params, kernelize_keys, 1) ||
	    params_duration(self, params, "horizon", &k->horizon_ns))
		return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_ERROR;
	if (bt_self_component_filter_add_input_port(self_flt, "in", NULL, &k->in) ||
	    bt_self_component_filter_add_output_port(self_flt, "out", NULL, NULL))
		return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_MEMORY_ERROR;
	return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_OK;
}

void kernelize_finalize(bt_self_component_filter *self_flt)
{
	free(bt_self_component_get_data(bt_self_component_filter_as_self_component(self_flt)));
}

bt_message_iterator_class_initialize_method_status
kernelize_iter_init(bt_self_message_iterator *self,
		    bt_self_message_iterator_configuration *config __always_unused,
		    bt_self_component_port_output *port __always_unused)
{
	bt_self_component *comp = bt_self_message_iterator_borrow_component(self);
	struct kernelize *k = bt_self_component_get_data(comp);
	struct kz_iter *it = calloc(1, sizeof(*it));

	if (!it)
		return BT_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD_STATUS_MEMORY_ERROR;
	it->self = self;
	kz_pending_init(it);
	it->horizon_set = k->horizon_set;
	it->horizon_ns = k->horizon_ns;
	bt_self_message_iterator_set_data(self, it);
	if (bt_message_iterator_create_from_message_iterator(self, k->in, &it->up))
		return BT_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD_STATUS_ERROR;
	return BT_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD_STATUS_OK;
}

void kernelize_iter_finalize(bt_self_message_iterator *self)
{
	struct kz_iter *it = bt_self_message_iterator_get_data(self);
	size_t i;

	if (!it)
		return;
	kz_queue_free(&it->out);
	for (i = 0; i < it->nr_cpus; i++) {
		bt_packet_put_ref(it->cpus[i].packet);
		bt_stream_put_ref(it->cpus[i].stream);
	}
	bt_message_iterator_put_ref(it->up);
	bt_trace_put_ref(it->trace);
	bt_trace_class_put_ref(it->tc);
	bt_clock_class_put_ref(it->cc);
	free(it->syscalls);
	free(it->cpus);
	free(it->threads);
	free(it->fds_dumped);
	kz_pending_free(it);
	free(it->batch);
	free(it);
}

static void kz_cpu_seen(struct kz_iter *it, uint32_t cpu)
{
	it->cpus_seen[cpu / 64] |= 1ULL << (cpu % 64);
}

/*
 * First pass: how long after its entry an outlier can reach the input, and
 * the CPUs its events go on (checked below KZ_MAX_CPUS by kz_outlier_of()).
 */
static int kz_measure(struct kz_iter *it, const bt_message *msg)
{
	struct outlier o;
	uint64_t ts;
	uint32_t i;
	int r = kz_outlier_of(it, msg, &o, &ts);

	if (r <= 0)
		return r;
	if (ts > o.entry_ts && ts - o.entry_ts > it->max_lag_ns)
		it->max_lag_ns = ts - o.entry_ts;
	kz_cpu_seen(it, o.cpu);
	for (i = 0; i < o.why.off_cpu_listed; i++) {
		kz_cpu_seen(it, o.why.off_cpu[i].cpu);
		kz_cpu_seen(it, o.why.off_cpu[i].in_cpu);
	}
	return 0;
}

static int kz_input(struct kz_iter *it, const bt_message *msg)
{
	struct outlier o;
	uint64_t ts, slack;
	int r = kz_outlier_of(it, msg, &o, &ts);

	if (r <= 0)
		return r;
	if (!it->trace && kz_trace_create(it, msg))
		return -1;
	it->last_in_ts = ts;
	/* Events already released bound what can still be emitted in order (its switch too). */
	if (it->last_out_ts && o.entry_ts <= it->last_out_ts) {
		KZ_ERROR(it,
			 "Failed to place an outlier in time order: syscall=%s tid=%d "
			 "latency=%llu ns reached the trace %llu ns after its entry, more than "
			 "horizon=%llu ns plus the largest latency before it (%llu ns); raise "
			 "horizon, or leave it unset to have the input read twice",
			 o.syscall, o.tid, (unsigned long long)o.latency_ns,
			 (unsigned long long)(ts - o.entry_ts), (unsigned long long)it->horizon_ns,
			 (unsigned long long)it->max_latency_ns);
		return -1;
	}
	if (o.latency_ns > it->max_latency_ns)
		it->max_latency_ns = o.latency_ns;
	if (kz_push_outlier(it, &o))
		return -1;
	slack = it->horizon_set ? it->horizon_ns + it->max_latency_ns : it->max_lag_ns;
	return it->last_in_ts > slack ? kz_flush(it, it->last_in_ts - slack, SIZE_MAX) : 0;
}

/* One batch of input messages through take(): OK, END, AGAIN or an error. */
static bt_message_iterator_class_next_method_status
kz_pull(struct kz_iter *it, int (*take)(struct kz_iter *it, const bt_message *msg))
{
	bt_message_array_const in;
	bt_message_iterator_next_status st;
	const bt_error *held;
	uint64_t n = 0, i;
	int err = 0;

	st = bt_message_iterator_next(it->up, &in, &n);
	/*
	 * babeltrace2 2.0's src.ctf.fs can hand over messages, or the end, while
	 * the thread still holds the error of a corrupt packet: the input failed
	 * then, and any later call (the seek of the second pass) would abort.
	 */
	held = st == BT_MESSAGE_ITERATOR_NEXT_STATUS_OK || st == BT_MESSAGE_ITERATOR_NEXT_STATUS_END
		       ? bt_current_thread_take_error()
		       : NULL;
	if (held) {
		if (st == BT_MESSAGE_ITERATOR_NEXT_STATUS_OK)
			for (i = 0; i < n; i++)
				bt_message_put_ref(in[i]);
		BT_CURRENT_THREAD_MOVE_ERROR_AND_RESET(held);
		KZ_ERROR(it, "Failed to read the input: it ended on an error");
		return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_ERROR;
	}
	switch (st) {
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_OK:
		break;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_END:
		return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_END;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_AGAIN:
		return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_AGAIN;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_MEMORY_ERROR:
		return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_MEMORY_ERROR;
	default:
		return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_ERROR;
	}
	for (i = 0; i < n; i++) {
		if (!err)
			err = take(it, in[i]);
		bt_message_put_ref(in[i]);
	}
	return err ? BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_ERROR
		   : BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK;
}

/*
 * Without a horizon, the whole input once for its largest lag, then again
 * from its beginning. An input that cannot seek is held whole until its end.
 */
static bt_message_iterator_class_next_method_status kz_measure_lag(struct kz_iter *it)
{
	bt_message_iterator_class_next_method_status st;
	bt_bool can_seek = BT_FALSE;

	if (it->pass == KZ_START) {
		it->pass = KZ_CONVERT;
		if (it->horizon_set)
			return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK;
		if (bt_message_iterator_can_seek_beginning(it->up, &can_seek) !=
		    BT_MESSAGE_ITERATOR_CAN_SEEK_BEGINNING_STATUS_OK)
			return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_ERROR;
		if (!can_seek) {
			it->max_lag_ns = UINT64_MAX;
			return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK;
		}
		it->pass = KZ_MEASURE;
	}
	while ((st = kz_pull(it, kz_measure)) == BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK)
		;
	if (st != BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_END)
		return st;
	if (bt_message_iterator_seek_beginning(it->up) !=
	    BT_MESSAGE_ITERATOR_SEEK_BEGINNING_STATUS_OK) {
		KZ_ERROR(it, "Failed to read the input a second time: it cannot seek its "
			     "beginning; set horizon to convert it in one pass");
		return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_ERROR;
	}
	it->pass = KZ_CONVERT;
	return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK;
}

/* The end of the input: what is pending, a batch at a time, then the ends of the streams. */
static int kz_end(struct kz_iter *it, uint64_t capacity)
{
	size_t i;

	if (!it->sclat_seen) {
		KZ_ERROR(it, "Failed to find sclat events: not an sclat trace "
			     "(no sclat:* event class)");
		return -1;
	}
	if (it->pending.nr)
		return kz_flush(it, UINT64_MAX, capacity);
	for (i = 0; i < it->nr_cpus; i++) {
		struct cpu_stream *c = &it->cpus[i];

		if (!c->stream)
			continue;
		if (kz_packet_end(it, c, it->last_out_ts) ||
		    kz_queue_push(&it->out, bt_message_stream_end_create(it->self, c->stream)))
			return -1;
	}
	return 0;
}

bt_message_iterator_class_next_method_status kernelize_next(bt_self_message_iterator *self,
							    bt_message_array_const msgs,
							    uint64_t capacity, uint64_t *count)
{
	struct kz_iter *it = bt_self_message_iterator_get_data(self);
	bt_message_iterator_class_next_method_status st;

	while (it->pass != KZ_CONVERT) {
		st = kz_measure_lag(it);
		if (st != BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK)
			return st;
	}
	while (!it->out.len) {
		if (it->ended)
			return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_END;
		if (it->up_done) {
			if (!it->pending.nr)
				it->ended = true;
			if (kz_end(it, capacity))
				return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_ERROR;
			continue;
		}
		st = kz_pull(it, kz_input);
		if (st == BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_END)
			it->up_done = true;
		else if (st != BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK)
			return st;
	}
	*count = kz_queue_take(&it->out, msgs, capacity);
	return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK;
}
