// SPDX-License-Identifier: GPL-2.0-only
/* The fuzzers' source of sclat events (trace_source.h says the byte layout). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "trace_source.h"

static const char *const syscall_names[] = {
	"read",	  "write",	 "futex", "clock_nanosleep", "wait4",	  "execve", "epoll_wait",
	"openat", "syscall_999", "mmap",  "fsync",	     "nanosleep",
};

#define NR_NAMES (sizeof(syscall_names) / sizeof(syscall_names[0]))

enum { KIND_OUTLIER, KIND_OUTLIER2, KIND_THRESHOLD, KIND_LOST };

struct source {
	const uint8_t *data;
	size_t size;
	bt_trace_class *tc;
	bt_stream_class *sc;
	bt_event_class *outlier, *threshold, *lost;
	bool cpu_string;
	bool explained; /* outliers explain themselves: a trace of version 3 */
	bool off_cpu;	/* and list their stretches off the CPU: a trace of version 7 */
};

struct source_iter {
	struct source *s;
	bt_stream *stream;
	bt_packet *packet;
	size_t next; /* the next record */
	uint64_t ts; /* of the last event */
	int stage;   /* 0 stream beginning, 1 packet beginning, 2 events, 3 ends, 4 done */
};

static uint64_t le(const uint8_t *p, unsigned int n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | p[n];
	return v;
}

int fuzz_header_read(const uint8_t *data, size_t size, struct fuzz_header *h)
{
	if (size < FUZZ_HEADER)
		return -1;
	h->format = (data[0] & 3) % 3;
	h->by = (data[0] >> 2) & 3;
	h->horizon_set = data[0] & 0x10;
	h->filters = data[0] & 0x20;
	h->folded = data[0] & 0x40;
	h->top = data[1];
	h->horizon_ns = le(data + 20, 4) << 10;
	return 0;
}

size_t fuzz_outlier_count(const uint8_t *data, size_t size)
{
	size_t n = 0, off;

	for (off = FUZZ_HEADER; off + FUZZ_RECORD <= size; off += FUZZ_RECORD)
		n += data[off] % 4 <= KIND_OUTLIER2;
	return n;
}

/* Append members (name, class) to a structure class; takes the references. */
static int members(bt_field_class *st, const char *const *names, bt_field_class **fcs, int n)
{
	int i, err = 0;

	for (i = 0; i < n; i++) {
		if (!fcs[i] || bt_field_class_structure_append_member(st, names[i], fcs[i]))
			err = -1;
		bt_field_class_put_ref(fcs[i]);
	}
	return err;
}

static bt_field_class *uint_class(bt_trace_class *tc, unsigned int bits)
{
	bt_field_class *fc = bt_field_class_integer_unsigned_create(tc);

	if (fc)
		bt_field_class_integer_set_field_value_range(fc, bits);
	return fc;
}

static bt_field_class *sint_class(bt_trace_class *tc, unsigned int bits)
{
	bt_field_class *fc = bt_field_class_integer_signed_create(tc);

	if (fc)
		bt_field_class_integer_set_field_value_range(fc, bits);
	return fc;
}

/* A sequence of unsigned integers of bits bits. */
static bt_field_class *off_cpu_sequence(bt_trace_class *tc, unsigned int bits)
{
	bt_field_class *elem = uint_class(tc, bits), *fc;

	fc = elem ? bt_field_class_array_dynamic_create(tc, elem, NULL) : NULL;
	bt_field_class_put_ref(elem); /* the sequence holds its own reference */
	return fc;
}

static bt_event_class *event_class(bt_stream_class *sc, const char *name, bt_field_class *payload)
{
	bt_event_class *ec = payload ? bt_event_class_create(sc) : NULL;

	if (ec && (bt_event_class_set_name(ec, name) ||
		   bt_event_class_set_payload_field_class(ec, payload)))
		ec = NULL; /* the stream class keeps it */
	bt_field_class_put_ref(payload);
	if (ec)
		bt_event_class_put_ref(ec);
	return ec;
}

/* sclat's three events of interest, as its provider lays them out. */
static int source_classes(struct source *s, bt_self_component *self, const uint8_t *h)
{
	static const char *const outlier_names[] = {
		"nr",
		"syscall",
		"pid",
		"tid",
		"comm",
		"cpu",
		"entry_ts",
		"entry_epoch_ns",
		"latency_ns",
		"ret",
		"args",
		"threshold_ns",
		"estimate_ns",
		"quantile",
		"samples",
		/* What explains it (trace version 3 on). */
		"on_cpu_ns",
		"runqueue_ns",
		"sleep_ns",
		"io_wait_ns",
		"switches",
		"waker_pid",
		"waker_tid",
		"waker_comm",
		"target",
		"kernel_stack",
		/* Its stretches off the CPU (trace version 7). */
		"off_cpu_cpu",
		"off_cpu_kind",
		"off_cpu_out_ts",
		"off_cpu_wake_ts",
		"off_cpu_in_ts",
		"off_cpu_in_cpu",
		"off_cpu_unlisted",
		"off_cpu_waker",
	};
	static const char *const threshold_names[] = { "nr",	 "syscall",	"old_ns",
						       "new_ns", "estimate_ns", "quantile",
						       "samples" };
	static const char *const lost_names[] = { "drops", "throttled", "total_drops",
						  "total_throttled" };
	bt_trace_class *tc = s->tc;
	bt_clock_class *cc = bt_clock_class_create(self);
	bt_field_class *p, *f[33], *elem;
	uint64_t offset = le(h + 4, 8);
	unsigned int i, n;
	int err;

	if (!cc)
		return -1;
	bt_clock_class_set_name(cc, "monotonic");
	bt_clock_class_set_frequency(cc, h[2] & 1 ? 1000000 : 1000000000);
	bt_clock_class_set_offset(cc, (int64_t)(offset / 1000000000), offset % 1000000);
	bt_clock_class_set_origin_is_unix_epoch(cc, !(h[2] & 2));
	s->sc = bt_stream_class_create(tc);
	if (!s->sc || bt_stream_class_set_default_clock_class(s->sc, cc)) {
		bt_clock_class_put_ref(cc);
		return -1;
	}
	bt_stream_class_set_supports_packets(s->sc, BT_TRUE, BT_TRUE, BT_TRUE);
	bt_clock_class_put_ref(cc);
	bt_stream_class_put_ref(s->sc); /* the trace class keeps it */
	s->cpu_string = h[2] & 4;

	p = bt_field_class_structure_create(tc);
	f[0] = uint_class(tc, 32);
	f[1] = bt_field_class_string_create(tc);
	f[2] = sint_class(tc, 32);
	f[3] = sint_class(tc, 32);
	f[4] = bt_field_class_string_create(tc); /* a CTF text array reads as a string */
	f[5] = s->cpu_string ? bt_field_class_string_create(tc) : uint_class(tc, 32);
	f[6] = uint_class(tc, 64);
	f[7] = sint_class(tc, 64);
	f[8] = uint_class(tc, 64);
	f[9] = sint_class(tc, 64);
	elem = uint_class(tc, 64);
	f[10] = elem ? bt_field_class_array_static_create(tc, elem, 6) : NULL;
	bt_field_class_put_ref(elem); /* the array holds its own reference */
	f[11] = uint_class(tc, 64);
	f[12] = uint_class(tc, 64);
	f[13] = bt_field_class_real_double_precision_create(tc);
	f[14] = uint_class(tc, 64);
	s->explained = !(h[2] & 8);
	f[15] = uint_class(tc, 64);
	f[16] = uint_class(tc, 64);
	f[17] = uint_class(tc, 64);
	f[18] = uint_class(tc, 64);
	f[19] = uint_class(tc, 32);
	f[20] = sint_class(tc, 32);
	f[21] = sint_class(tc, 32);
	f[22] = bt_field_class_string_create(tc);
	f[23] = bt_field_class_string_create(tc);
	f[24] = bt_field_class_string_create(tc);
	s->off_cpu = s->explained && (h[2] & 16);
	/* Sequences, as lttng-ust's: the reader takes their lengths, not a length field. */
	f[25] = off_cpu_sequence(tc, 32);
	f[26] = off_cpu_sequence(tc, 8);
	f[27] = off_cpu_sequence(tc, 64);
	f[28] = off_cpu_sequence(tc, 64);
	f[29] = off_cpu_sequence(tc, 64);
	f[30] = off_cpu_sequence(tc, 32);
	f[31] = uint_class(tc, 32);
	f[32] = sint_class(tc, 32);
	n = s->off_cpu ? 33 : s->explained ? 25 : 15;
	err = !p || members(p, outlier_names, f, n);
	/* The fields an older trace lacks: members() took only the first n. */
	for (i = n; i < 33; i++)
		bt_field_class_put_ref(f[i]);
	s->outlier = err ? NULL : event_class(s->sc, "sclat:syscall_outlier", p);

	p = bt_field_class_structure_create(tc);
	f[0] = uint_class(tc, 32);
	f[1] = bt_field_class_string_create(tc);
	f[2] = uint_class(tc, 64);
	f[3] = uint_class(tc, 64);
	f[4] = uint_class(tc, 64);
	f[5] = bt_field_class_real_double_precision_create(tc);
	f[6] = uint_class(tc, 64);
	err = !p || members(p, threshold_names, f, 7);
	s->threshold = err ? NULL : event_class(s->sc, "sclat:threshold_update", p);

	p = bt_field_class_structure_create(tc);
	f[0] = uint_class(tc, 64);
	f[1] = uint_class(tc, 64);
	f[2] = uint_class(tc, 64);
	f[3] = uint_class(tc, 64);
	err = !p || members(p, lost_names, f, 4);
	s->lost = err ? NULL : event_class(s->sc, "sclat:lost", p);
	return s->outlier && s->threshold && s->lost ? 0 : -1;
}

static bt_component_class_initialize_method_status
source_init(bt_self_component_source *self_src, bt_self_component_source_configuration *config,
	    const bt_value *params, void *init_data)
{
	bt_self_component *self = bt_self_component_source_as_self_component(self_src);
	const struct source *in = init_data;
	struct source *s = calloc(1, sizeof(*s));

	(void)config;
	(void)params;
	if (!s)
		return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_MEMORY_ERROR;
	*s = *in;
	bt_self_component_set_data(self, s);
	s->tc = bt_trace_class_create(self);
	if (!s->tc || source_classes(s, self, s->data) ||
	    bt_self_component_source_add_output_port(self_src, "out", NULL, NULL))
		return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_ERROR;
	return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_OK;
}

static void source_finalize(bt_self_component_source *self_src)
{
	struct source *s =
		bt_self_component_get_data(bt_self_component_source_as_self_component(self_src));

	if (s)
		bt_trace_class_put_ref(s->tc);
	free(s);
}

static bt_message_iterator_class_initialize_method_status
iter_init(bt_self_message_iterator *self, bt_self_message_iterator_configuration *config,
	  bt_self_component_port_output *port)
{
	struct source_iter *it = calloc(1, sizeof(*it));
	bt_trace *trace;

	(void)config;
	(void)port;
	if (!it)
		return BT_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD_STATUS_MEMORY_ERROR;
	it->s = bt_self_component_get_data(bt_self_message_iterator_borrow_component(self));
	bt_self_message_iterator_set_data(self, it);
	trace = bt_trace_create(it->s->tc);
	if (trace) {
		bt_trace_set_environment_entry_string(trace, "hostname", "fuzz");
		it->stream = bt_stream_create(it->s->sc, trace);
		bt_trace_put_ref(trace);
	}
	if (!it->stream)
		return BT_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD_STATUS_ERROR;
	it->next = FUZZ_HEADER;
	it->ts = le(it->s->data + 12, 8);
	return BT_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD_STATUS_OK;
}

static void iter_finalize(bt_self_message_iterator *self)
{
	struct source_iter *it = bt_self_message_iterator_get_data(self);

	if (!it)
		return;
	bt_packet_put_ref(it->packet);
	bt_stream_put_ref(it->stream);
	free(it);
}

static bt_message_iterator_class_can_seek_beginning_method_status
iter_can_seek(bt_self_message_iterator *self, bt_bool *can)
{
	(void)self;
	*can = BT_TRUE;
	return BT_MESSAGE_ITERATOR_CLASS_CAN_SEEK_BEGINNING_METHOD_STATUS_OK;
}

static bt_message_iterator_class_seek_beginning_method_status
iter_seek(bt_self_message_iterator *self)
{
	struct source_iter *it = bt_self_message_iterator_get_data(self);

	bt_packet_put_ref(it->packet);
	it->packet = NULL;
	it->stage = 0;
	it->next = FUZZ_HEADER;
	it->ts = le(it->s->data + 12, 8);
	return BT_MESSAGE_ITERATOR_CLASS_SEEK_BEGINNING_METHOD_STATUS_OK;
}

static void set_u(bt_field *st, const char *name, uint64_t v)
{
	bt_field_integer_unsigned_set_value(
		bt_field_structure_borrow_member_field_by_name(st, name), v);
}

static void set_s(bt_field *st, const char *name, int64_t v)
{
	bt_field_integer_signed_set_value(bt_field_structure_borrow_member_field_by_name(st, name),
					  v);
}

static int set_str(bt_field *st, const char *name, const char *v)
{
	return bt_field_string_set_value(bt_field_structure_borrow_member_field_by_name(st, name),
					 v)
		       ? -1
		       : 0;
}

/*
 * What explains an outlier, from its record: parts that need not add up, and
 * the comm's bytes as waker, target and kernel stack (';', '+' and any byte).
 */
static int set_explanation(bt_field *p, const uint8_t *r, uint64_t latency, const char *comm)
{
	set_u(p, "on_cpu_ns", le(r + 12, 4));
	set_u(p, "runqueue_ns", latency >> 2);
	set_u(p, "sleep_ns", latency - (latency >> 2));
	set_u(p, "io_wait_ns", le(r + 28, 2));
	set_u(p, "switches", r[2]);
	set_s(p, "waker_pid", (int32_t)le(r + 24, 4));
	set_s(p, "waker_tid", (int32_t)le(r + 20, 4) ^ 1);
	return set_str(p, "waker_comm", r[0] & 4 ? comm : "") | set_str(p, "target", comm) |
	       set_str(p, "kernel_stack", r[0] & 8 ? comm : "");
}

/* Element i of sequence name, whose length is set. */
static void set_elem(bt_field *st, const char *name, uint64_t i, uint64_t v)
{
	bt_field *f = bt_field_structure_borrow_member_field_by_name(st, name);

	bt_field_integer_unsigned_set_value(bt_field_array_borrow_element_field_by_index(f, i), v);
}

/*
 * The stretches off the CPU of an outlier that entered at entry and lasted
 * latency, from the record's bytes: up to 17 (beyond the 15 a trace lists),
 * mostly a chain of links in order, split as the bytes say, on small CPUs;
 * some out of order, with a kind or a CPU no trace has, or no wake-up.
 */
static int set_off_cpu(bt_field *p, const uint8_t *r, uint64_t entry, uint64_t latency)
{
	static const char *const seqs[] = { "off_cpu_cpu",     "off_cpu_kind",	"off_cpu_out_ts",
					    "off_cpu_wake_ts", "off_cpu_in_ts", "off_cpu_in_cpu" };
	uint64_t n = (r[0] >> 4) % 18, i, step, link = entry, x = (le(r, 8) ^ le(r + 28, 8)) | 1;
	uint64_t out, wake, in;

	for (i = 0; i < 6; i++)
		if (bt_field_array_dynamic_set_length(
			    bt_field_structure_borrow_member_field_by_name(p, seqs[i]), n))
			return -1;
	step = latency / (3 * n + 1);
	for (i = 0; i < n; i++) {
		/* xorshift: each stretch its own bits. */
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		out = link + step * (x & 3) / 3;
		wake = x & 0x30 ? out + step * ((x >> 2) & 3) / 3 : 0;
		in = (wake ? wake : out) + step * ((x >> 6) & 3) / 3;
		if (!(x & 0x7f00))
			in = out - (x >> 16) % (step + 1); /* out of order: refused */
		link = in;
		set_elem(p, seqs[0], i, r[3] ? (uint32_t)(x >> 32) : (x >> 32) % 4);
		set_elem(p, seqs[1], i, (x >> 40) % 4 ? (x >> 40) % 4 : x >> 60);
		set_elem(p, seqs[2], i, out);
		set_elem(p, seqs[3], i, wake);
		set_elem(p, seqs[4], i, in);
		set_elem(p, seqs[5], i, r[3] ? (uint32_t)(x >> 8) : (x >> 44) % 4);
	}
	set_u(p, "off_cpu_unlisted", r[2] & 0x80 ? r[2] & 3 : 0);
	set_s(p, "off_cpu_waker", (int32_t)(r[1] % 20) - 2);
	return 0;
}

/* The event of the record at r, at the time it says. */
static const bt_message *record_message(bt_self_message_iterator *self, struct source_iter *it,
					const uint8_t *r)
{
	struct source *s = it->s;
	char comm[13] = "", cpu[16];
	const char *name;
	const bt_event_class *ec;
	bt_message *msg;
	bt_field *p, *args;
	uint64_t latency = le(r + 16, 4) << (r[2] % 64), entry = it->ts - le(r + 12, 4);
	uint32_t cpu_nr = r[3] ? (uint32_t)le(r + 4, 4) : (uint32_t)le(r + 4, 4) % 4;
	unsigned int i;
	int err = 0;

	memcpy(comm, r + 36, 12);
	name = r[1] == 0xff ? comm : syscall_names[r[1] % NR_NAMES];
	ec = r[0] % 4 == KIND_THRESHOLD ? s->threshold
	     : r[0] % 4 == KIND_LOST	? s->lost
					: s->outlier;
	msg = bt_message_event_create_with_packet_and_default_clock_snapshot(self, ec, it->packet,
									     it->ts);
	if (!msg)
		return NULL;
	p = bt_event_borrow_payload_field(bt_message_event_borrow_event(msg));
	if (ec == s->outlier) {
		set_u(p, "nr", r[1]);
		err |= set_str(p, "syscall", name);
		set_s(p, "pid", (int32_t)le(r + 24, 4));
		set_s(p, "tid", (int32_t)le(r + 20, 4));
		err |= set_str(p, "comm", comm);
		if (s->cpu_string) {
			snprintf(cpu, sizeof(cpu), "%u", cpu_nr);
			err |= set_str(p, "cpu", cpu);
		} else {
			set_u(p, "cpu", cpu_nr);
		}
		set_u(p, "entry_ts", entry);
		set_s(p, "entry_epoch_ns", (int64_t)entry);
		set_u(p, "latency_ns", latency);
		set_s(p, "ret", (int64_t)le(r + 28, 8));
		args = bt_field_structure_borrow_member_field_by_name(p, "args");
		for (i = 0; i < 6; i++)
			bt_field_integer_unsigned_set_value(
				bt_field_array_borrow_element_field_by_index(args, i),
				le(r + 28, 8) ^ i);
		set_u(p, "threshold_ns", le(r + 12, 4));
		set_u(p, "estimate_ns", le(r + 16, 4));
		bt_field_real_double_precision_set_value(
			bt_field_structure_borrow_member_field_by_name(p, "quantile"), 0.999);
		set_u(p, "samples", le(r + 24, 4));
		if (s->explained)
			err |= set_explanation(p, r, latency, comm);
		if (s->off_cpu)
			err |= set_off_cpu(p, r, entry, latency);
	} else if (ec == s->threshold) {
		set_u(p, "nr", r[1]);
		err |= set_str(p, "syscall", name);
		set_u(p, "old_ns", le(r + 12, 4));
		set_u(p, "new_ns", latency);
		set_u(p, "estimate_ns", le(r + 16, 4));
		bt_field_real_double_precision_set_value(
			bt_field_structure_borrow_member_field_by_name(p, "quantile"), 0.99);
		set_u(p, "samples", le(r + 24, 4));
	} else {
		set_u(p, "drops", le(r + 4, 4));
		set_u(p, "throttled", le(r + 20, 4));
		set_u(p, "total_drops", le(r + 12, 4));
		set_u(p, "total_throttled", le(r + 16, 4));
	}
	if (err) {
		bt_message_put_ref(msg);
		return NULL;
	}
	return msg;
}

static bt_message_iterator_class_next_method_status iter_next(bt_self_message_iterator *self,
							      bt_message_array_const msgs,
							      uint64_t capacity, uint64_t *count)
{
	struct source_iter *it = bt_self_message_iterator_get_data(self);
	const struct source *s = it->s;
	uint64_t n = 0;

	while (n < capacity && it->stage < 4) {
		const bt_message *msg = NULL;

		switch (it->stage) {
		case 0:
			msg = bt_message_stream_beginning_create(self, it->stream);
			it->stage = 1;
			break;
		case 1:
			it->packet = bt_packet_create(it->stream);
			if (!it->packet)
				return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_MEMORY_ERROR;
			msg = bt_message_packet_beginning_create_with_default_clock_snapshot(
				self, it->packet, it->ts);
			it->stage = 2;
			break;
		case 2:
			if (it->next + FUZZ_RECORD > s->size) {
				msg = bt_message_packet_end_create_with_default_clock_snapshot(
					self, it->packet, it->ts);
				it->stage = 3;
				break;
			}
			/* Times only grow: a delta that would wrap stops there. */
			if (it->ts + le(s->data + it->next + 8, 4) >= it->ts)
				it->ts += le(s->data + it->next + 8, 4);
			msg = record_message(self, it, s->data + it->next);
			it->next += FUZZ_RECORD;
			break;
		case 3:
			msg = bt_message_stream_end_create(self, it->stream);
			it->stage = 4;
			break;
		}
		if (!msg)
			return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_ERROR;
		msgs[n++] = msg;
	}
	*count = n;
	return n ? BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK
		 : BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_END;
}

static bt_component_class_source *source_class(void)
{
	static bt_component_class_source *cc;
	bt_message_iterator_class *ic;

	if (cc)
		return cc;
	ic = bt_message_iterator_class_create(iter_next);
	if (!ic || bt_message_iterator_class_set_initialize_method(ic, iter_init) ||
	    bt_message_iterator_class_set_finalize_method(ic, iter_finalize) ||
	    bt_message_iterator_class_set_seek_beginning_methods(ic, iter_seek, iter_can_seek))
		abort();
	cc = bt_component_class_source_create("fuzz", ic);
	bt_message_iterator_class_put_ref(ic);
	if (!cc || bt_component_class_source_set_initialize_method(cc, source_init) ||
	    bt_component_class_source_set_finalize_method(cc, source_finalize))
		abort();
	return cc;
}

int fuzz_source_add(bt_graph *graph, const uint8_t *data, size_t size,
		    const bt_component_source **src)
{
	struct source in = { .data = data, .size = size };

	if (size < FUZZ_HEADER)
		return -1;
	return bt_graph_add_source_component_with_initialize_method_data(
		       graph, source_class(), "src", NULL, &in, BT_LOGGING_LEVEL_NONE, src)
		       ? -1
		       : 0;
}
