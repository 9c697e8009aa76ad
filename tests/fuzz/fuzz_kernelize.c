// SPDX-License-Identifier: GPL-2.0-only
/*
 * filter.sclat.kernelize (tracer-plugins/babeltrace2/kernelize/) over sclat
 * events made of fuzzer bytes (trace_source.h), with or without a horizon.
 * A checking sink stands for Trace Compass: the output is in time order, each
 * sched_switch leaves the thread the previous one put on its CPU, no thread
 * is current on two CPUs at once, and a conversion that succeeds has one
 * entry and one exit per outlier.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kernelize.h"
#include "trace_source.h"

#define MAX_STREAMS 1024

struct check {
	uint64_t last_ts, state_ts;
	bool any;
	const bt_stream *streams[MAX_STREAMS];
	int64_t tid[MAX_STREAMS]; /* current on each stream */
	size_t nr_streams;
	size_t entries, exits;
};

static bt_component_class_filter *kernelize_class;

#define FAIL(...)                                                \
	do {                                                     \
		fprintf(stderr, "fuzz_kernelize: " __VA_ARGS__); \
		abort();                                         \
	} while (0)

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	bt_message_iterator_class *ic = bt_message_iterator_class_create(kernelize_next);

	(void)argc;
	(void)argv;
	if (!ic || bt_message_iterator_class_set_initialize_method(ic, kernelize_iter_init) ||
	    bt_message_iterator_class_set_finalize_method(ic, kernelize_iter_finalize))
		abort();
	kernelize_class = bt_component_class_filter_create("kernelize", ic);
	bt_message_iterator_class_put_ref(ic);
	if (!kernelize_class ||
	    bt_component_class_filter_set_initialize_method(kernelize_class, kernelize_init) ||
	    bt_component_class_filter_set_finalize_method(kernelize_class, kernelize_finalize))
		abort();
	return 0;
}

static size_t stream_index(struct check *c, const bt_stream *s)
{
	size_t i;

	for (i = 0; i < c->nr_streams; i++)
		if (c->streams[i] == s)
			return i;
	if (c->nr_streams == MAX_STREAMS)
		FAIL("more than %d streams\n", MAX_STREAMS);
	c->streams[c->nr_streams] = s;
	c->tid[c->nr_streams] = 0;
	return c->nr_streams++;
}

/* Once every switch of a time is in: no thread current on two CPUs. */
static void state_check(const struct check *c)
{
	size_t i, j;

	for (i = 0; i < c->nr_streams; i++)
		for (j = i + 1; c->tid[i] && j < c->nr_streams; j++)
			if (c->tid[i] == c->tid[j])
				FAIL("tid %lld on two CPUs at %llu\n", (long long)c->tid[i],
				     (unsigned long long)c->state_ts);
}

static int64_t s64_member(const bt_field *p, const char *name)
{
	return bt_field_integer_signed_get_value(
		bt_field_structure_borrow_member_field_by_name_const(p, name));
}

static void message_check(struct check *c, const bt_message *msg)
{
	const bt_clock_snapshot *cs = NULL;
	const bt_event *ev;
	const char *name;
	uint64_t ts;
	size_t s;

	switch (bt_message_get_type(msg)) {
	case BT_MESSAGE_TYPE_EVENT:
		cs = bt_message_event_borrow_default_clock_snapshot_const(msg);
		break;
	case BT_MESSAGE_TYPE_PACKET_BEGINNING:
		cs = bt_message_packet_beginning_borrow_default_clock_snapshot_const(msg);
		break;
	case BT_MESSAGE_TYPE_PACKET_END:
		cs = bt_message_packet_end_borrow_default_clock_snapshot_const(msg);
		break;
	default:
		return;
	}
	ts = bt_clock_snapshot_get_value(cs);
	if (c->any && ts < c->last_ts)
		FAIL("time goes back: %llu after %llu\n", (unsigned long long)ts,
		     (unsigned long long)c->last_ts);
	if (c->any && ts > c->state_ts) {
		state_check(c);
		c->state_ts = ts;
	}
	c->any = true;
	c->last_ts = ts;
	if (bt_message_get_type(msg) != BT_MESSAGE_TYPE_EVENT)
		return;
	ev = bt_message_event_borrow_event_const(msg);
	name = bt_event_class_get_name(bt_event_borrow_class_const(ev));
	s = stream_index(c, bt_event_borrow_stream_const(ev));
	if (!strcmp(name, "sched_switch")) {
		const bt_field *p = bt_event_borrow_payload_field_const(ev);

		if (s64_member(p, "prev_tid") != c->tid[s])
			FAIL("sched_switch from %lld, but %lld is current\n",
			     (long long)s64_member(p, "prev_tid"), (long long)c->tid[s]);
		c->tid[s] = s64_member(p, "next_tid");
	} else if (!strncmp(name, "syscall_entry_", 14)) {
		c->entries++;
	} else if (!strncmp(name, "syscall_exit_", 13)) {
		c->exits++;
	}
}

static bt_graph_simple_sink_component_consume_func_status consume(bt_message_iterator *it,
								  void *data)
{
	bt_message_array_const msgs;
	uint64_t n, i;

	switch (bt_message_iterator_next(it, &msgs, &n)) {
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_OK:
		break;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_END:
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_END;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_AGAIN:
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_AGAIN;
	default:
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_ERROR;
	}
	for (i = 0; i < n; i++) {
		message_check(data, msgs[i]);
		bt_message_put_ref(msgs[i]);
	}
	return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct check c;
	const bt_component_source *src;
	const bt_component_filter *kz;
	const bt_component_sink *sink;
	bt_graph_run_status st;
	struct fuzz_header h;
	bt_value *params;
	bt_graph *graph;
	size_t outliers;

	if (fuzz_header_read(data, size, &h))
		return 0;
	memset(&c, 0, sizeof(c));
	graph = bt_graph_create(0);
	params = bt_value_map_create();
	if (!graph || !params ||
	    (h.horizon_set &&
	     bt_value_map_insert_unsigned_integer_entry(params, "horizon", h.horizon_ns)) ||
	    fuzz_source_add(graph, data, size, &src) ||
	    bt_graph_add_filter_component(graph, kernelize_class, "kernelize", params,
					  BT_LOGGING_LEVEL_NONE, &kz) ||
	    bt_graph_add_simple_sink_component(graph, "check", NULL, consume, NULL, &c, &sink) ||
	    bt_graph_connect_ports(
		    graph, bt_component_source_borrow_output_port_by_index_const(src, 0),
		    bt_component_filter_borrow_input_port_by_index_const(kz, 0), NULL) ||
	    bt_graph_connect_ports(
		    graph, bt_component_filter_borrow_output_port_by_index_const(kz, 0),
		    bt_component_sink_borrow_input_port_by_index_const(sink, 0), NULL))
		abort();
	while ((st = bt_graph_run(graph)) == BT_GRAPH_RUN_STATUS_AGAIN)
		;
	if (st == BT_GRAPH_RUN_STATUS_OK) {
		state_check(&c);
		outliers = fuzz_outlier_count(data, size);
		if (c.entries != outliers || c.exits != outliers)
			FAIL("%zu outliers became %zu entries and %zu exits\n", outliers, c.entries,
			     c.exits);
	}
	/* An input the converter refuses is fine: it said why, as causes. */
	bt_current_thread_clear_error();
	bt_graph_put_ref(graph);
	bt_value_put_ref(params);
	return 0;
}
