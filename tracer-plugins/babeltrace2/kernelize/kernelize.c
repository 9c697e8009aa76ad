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
 */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/compiler.h"
#include "util/escape.h"
#include "util/heap.h"
#include "kernelize.h"
#include "outlier.h"
#include "params.h"
#include "util/syscall_args.h"

#define KZ_PACKET_EVENTS	8192 /* events per packet: lets readers seek */
#define KZ_PRIO			20   /* lttng-modules' prio of a nice-0 task */
#define KZ_PREV_STATE		1    /* TASK_INTERRUPTIBLE */
#define KZ_TASK_RUNNING		0    /* prev_state of a preempted thread */
#define KZ_TASK_UNINTERRUPTIBLE 2
#define KZ_MAX_CPUS		8192 /* Linux's largest NR_CPUS: a stream per CPU number */
#define KZ_MAX_SYSCALLS		1024 /* distinct syscall names: twice any syscall table */

/* lttng_statedump_process_state's enums, as lttng-modules numbers them. */
#define KZ_USER_THREAD	  0 /* type */
#define KZ_MODE_UNKNOWN	  5 /* mode: the trace does not say */
#define KZ_SUBMODE_NONE	  0
#define KZ_STATUS_UNNAMED 0 /* status: not known either */

#define KZ_ERROR(it, fmt, ...) \
	BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_MESSAGE_ITERATOR((it)->self, fmt, ##__VA_ARGS__)

struct kernelize {
	uint64_t horizon_ns;
	bool horizon_set;
	bt_self_component_port_input *in;
};

/* One CPU: its stream, open packet, and the thread our sched_switch events made current. */
struct cpu_stream {
	bt_stream *stream;
	bt_packet *packet;
	uint64_t packet_events;
	uint64_t last_ts; /* of its last event: a stream is in time order */
	int32_t tid;	  /* 0: its swapper */
	char comm[OUTLIER_COMM_LEN];
	uint64_t claimed; /* the release that switched a thread in for its first event */
};

/* Where a thread was last switched in: whether it still runs there, that CPU's tid says. */
struct thread_cpu {
	int32_t tid; /* 0: a free slot (tid 0 is a swapper, never placed) */
	int32_t pid; /* of its last statedump: a tid reused by another process gets one again */
	uint32_t cpu;
};

/* An outlier, shared by its pending events: freed with the last. */
struct kz_call {
	unsigned int refs;
	struct outlier o;
};

/* What a pending event of an outlier is. */
enum kz_step {
	KZ_ENTRY,
	KZ_SWITCH_OUT, /* off_cpu[span] begins */
	KZ_WAKEUP,     /* its block is woken */
	KZ_SWITCH_IN,  /* it ends */
	KZ_EXIT,
};

struct pending {
	uint64_t ts;
	uint64_t seq;
	enum kz_step step;
	uint32_t cpu;
	uint32_t span; /* KZ_SWITCH_OUT, KZ_WAKEUP: the stretch off the CPU */
	struct kz_call *call;
};

struct syscall_classes {
	char name[OUTLIER_NAME_LEN];
	bt_event_class *entry;
	bt_event_class *exit;
	unsigned int nr_args; /* fields of the entry event: its first arguments */
};

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
	const bt_message **out; /* queued output messages */
	size_t out_head, out_len, out_cap;
	uint64_t last_in_ts, last_out_ts, max_latency_ns;
	bool sclat_seen; /* an input stream class has sclat:* events */
	bool up_done, ended;
};

static bool kz_before(const void *pa, const void *pb);

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
	heap_init(&it->pending, sizeof(struct pending), kz_before);
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
	struct pending *pe;
	size_t i;

	if (!it)
		return;
	pe = it->pending.items;
	for (i = 0; i < it->out_len; i++)
		bt_message_put_ref(it->out[(it->out_head + i) % it->out_cap]);
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
	for (i = 0; i < it->pending.nr; i++)
		if (!--pe[i].call->refs)
			free(pe[i].call);
	heap_free(&it->pending);
	free(it->batch);
	free(it->out);
	free(it);
}

/* The output trace: kernel-style names and environment, the input's clock. */

static bt_field_class *kz_uint(bt_trace_class *tc, unsigned int bits, bool hex)
{
	bt_field_class *fc = bt_field_class_integer_unsigned_create(tc);

	if (!fc)
		return NULL;
	bt_field_class_integer_set_field_value_range(fc, bits);
	if (hex)
		bt_field_class_integer_set_preferred_display_base(
			fc, BT_FIELD_CLASS_INTEGER_PREFERRED_DISPLAY_BASE_HEXADECIMAL);
	return fc;
}

static bt_field_class *kz_sint(bt_trace_class *tc, unsigned int bits)
{
	bt_field_class *fc = bt_field_class_integer_signed_create(tc);

	if (fc)
		bt_field_class_integer_set_field_value_range(fc, bits);
	return fc;
}

/* Append a member; takes the reference to fc. Returns 0 or -1. */
static int kz_member(bt_field_class *st, const char *name, bt_field_class *fc)
{
	int err;

	if (!fc)
		return -1;
	err = bt_field_class_structure_append_member(st, name, fc) ? -1 : 0;
	bt_field_class_put_ref(fc);
	return err;
}

static bt_event_class *kz_event_class(struct kz_iter *it, const char *name, bt_field_class *payload)
{
	bt_event_class *ec;

	if (!payload)
		return NULL;
	ec = bt_event_class_create(it->sc);
	if (!ec || bt_event_class_set_name(ec, name) ||
	    bt_event_class_set_payload_field_class(ec, payload)) {
		bt_event_class_put_ref(ec);
		ec = NULL;
	}
	bt_field_class_put_ref(payload);
	/* The stream class keeps its event classes alive. */
	bt_event_class_put_ref(ec);
	return ec;
}

static bt_event_class *kz_sched_switch_class(struct kz_iter *it)
{
	bt_field_class *p = bt_field_class_structure_create(it->tc);
	bt_trace_class *tc = it->tc;

	if (!p)
		return NULL;
	if (kz_member(p, "prev_comm", bt_field_class_string_create(tc)) ||
	    kz_member(p, "prev_tid", kz_sint(tc, 32)) ||
	    kz_member(p, "prev_prio", kz_sint(tc, 32)) ||
	    kz_member(p, "prev_state", kz_sint(tc, 64)) ||
	    kz_member(p, "next_comm", bt_field_class_string_create(tc)) ||
	    kz_member(p, "next_tid", kz_sint(tc, 32)) ||
	    kz_member(p, "next_prio", kz_sint(tc, 32))) {
		bt_field_class_put_ref(p);
		return NULL;
	}
	return kz_event_class(it, "sched_switch", p);
}

/*
 * lttng-modules' sched_waking and sched_wakeup: the thread woken and the CPU
 * it will run on. sched_waking also names the waker when the trace does
 * (sclat's fields, after lttng-modules' own): the task that ended the call's
 * longest block; 0 and "" otherwise.
 */
static bt_event_class *kz_wakeup_class(struct kz_iter *it, const char *name, bool waker)
{
	bt_field_class *p = bt_field_class_structure_create(it->tc);
	bt_trace_class *tc = it->tc;

	if (!p)
		return NULL;
	if (kz_member(p, "comm", bt_field_class_string_create(tc)) ||
	    kz_member(p, "tid", kz_sint(tc, 32)) || kz_member(p, "prio", kz_sint(tc, 32)) ||
	    kz_member(p, "target_cpu", kz_sint(tc, 32)) ||
	    (waker && (kz_member(p, "waker_tid", kz_sint(tc, 32)) ||
		       kz_member(p, "waker_comm", bt_field_class_string_create(tc))))) {
		bt_field_class_put_ref(p);
		return NULL;
	}
	return kz_event_class(it, name, p);
}

/*
 * lttng-modules' lttng_statedump_process_state: the process and name of a
 * thread, for readers that learn them only so (lttng-analyses, Trace
 * Compass's process views). The v* fields are of the pid namespace a statedump
 * is made in: here the root's, the same ids.
 */
static bt_event_class *kz_process_state_class(struct kz_iter *it)
{
	static const char *const ints[] = { "type", "mode", "submode", "status", "ns_level" };
	static const char *const ids[] = { "tid", "vtid", "pid", "vpid", "ppid", "vppid" };
	bt_field_class *p = bt_field_class_structure_create(it->tc);
	bt_trace_class *tc = it->tc;
	size_t i;

	if (!p)
		return NULL;
	for (i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
		if (kz_member(p, ids[i], kz_sint(tc, 32)))
			goto fail;
	if (kz_member(p, "name", bt_field_class_string_create(tc)))
		goto fail;
	for (i = 0; i < sizeof(ints) / sizeof(ints[0]); i++)
		if (kz_member(p, ints[i], kz_sint(tc, 32)))
			goto fail;
	if (kz_member(p, "ns_inum", kz_uint(tc, 32, false)))
		goto fail;
	return kz_event_class(it, "lttng_statedump_process_state", p);
fail:
	bt_field_class_put_ref(p);
	return NULL;
}

/* For a syscall the table does not know: all six registers. */
static const struct syscall_args kz_unknown_args = {
	.nr_args = OUTLIER_NR_ARGS,
	.arg = { { "arg0", true },
		 { "arg1", true },
		 { "arg2", true },
		 { "arg3", true },
		 { "arg4", true },
		 { "arg5", true } },
};

static struct syscall_classes *kz_syscall_classes(struct kz_iter *it, const char *name)
{
	const struct syscall_args *args = syscall_args_find(name);
	struct syscall_classes *s;
	bt_field_class *entry, *exit;
	char ev[OUTLIER_NAME_LEN + 16];
	unsigned int hash = 0;
	uint16_t *hint;
	size_t i;

	for (i = 0; name[i]; i++)
		hash = hash * 31 + (unsigned char)name[i];
	hint = &it->syscall_hint[hash % 256];
	if (*hint && !strcmp(it->syscalls[*hint - 1].name, name))
		return &it->syscalls[*hint - 1];
	for (i = 0; i < it->nr_syscalls; i++)
		if (!strcmp(it->syscalls[i].name, name)) {
			*hint = i + 1;
			return &it->syscalls[i];
		}
	if (it->nr_syscalls == KZ_MAX_SYSCALLS) {
		KZ_ERROR(it,
			 "Failed to convert the trace: more than %u syscall names (not a trace "
			 "of sclat's?)",
			 KZ_MAX_SYSCALLS);
		return NULL;
	}
	if (it->nr_syscalls == it->cap_syscalls) {
		size_t cap = it->cap_syscalls ? 2 * it->cap_syscalls : 32;

		s = realloc(it->syscalls, cap * sizeof(*s));
		if (!s)
			return NULL;
		it->syscalls = s;
		it->cap_syscalls = cap;
	}
	s = &it->syscalls[it->nr_syscalls];
	snprintf(s->name, sizeof(s->name), "%s", name);
	entry = bt_field_class_structure_create(it->tc);
	exit = bt_field_class_structure_create(it->tc);
	if (!entry || !exit)
		goto fail;
	/* Named as lttng-modules names them, so that readers find the fields they know. */
	if (!args)
		args = &kz_unknown_args;
	s->nr_args = args->nr_args;
	for (i = 0; i < args->nr_args; i++)
		if (kz_member(entry, args->arg[i].name, kz_uint(it->tc, 64, args->arg[i].pointer)))
			goto fail;
	if (kz_member(exit, "ret", kz_sint(it->tc, 64)))
		goto fail;
	snprintf(ev, sizeof(ev), "syscall_entry_%s", name);
	s->entry = kz_event_class(it, ev, entry);
	snprintf(ev, sizeof(ev), "syscall_exit_%s", name);
	s->exit = kz_event_class(it, ev, exit);
	if (!s->entry || !s->exit)
		return NULL;
	*hint = ++it->nr_syscalls;
	return s;
fail:
	bt_field_class_put_ref(entry);
	bt_field_class_put_ref(exit);
	return NULL;
}

static void kz_copy_env(bt_trace *out, const bt_trace *in, const char *name)
{
	const bt_value *v =
		in ? bt_trace_borrow_environment_entry_value_by_name_const(in, name) : NULL;

	if (v && bt_value_is_string(v))
		bt_trace_set_environment_entry_string(out, name, bt_value_string_get(v));
}

static int kz_trace_create(struct kz_iter *it, const bt_message *first)
{
	bt_self_component *comp = bt_self_message_iterator_borrow_component(it->self);
	const bt_clock_class *in_cc =
		bt_message_event_borrow_stream_class_default_clock_class_const(first);
	const bt_event *ev = bt_message_event_borrow_event_const(first);
	const bt_trace *in_trace = bt_stream_borrow_trace_const(bt_event_borrow_stream_const(ev));
	bt_field_class *ctx = NULL;
	int64_t off_s;
	uint64_t off_c;

	it->tc = bt_trace_class_create(comp);
	it->cc = bt_clock_class_create(comp);
	if (!it->tc || !it->cc)
		return -1;
	/* Same clock as the input: entry_ts is a value of it. */
	bt_clock_class_get_offset(in_cc, &off_s, &off_c);
	bt_clock_class_set_offset(it->cc, off_s, off_c);
	bt_clock_class_set_frequency(it->cc, 1000000000ULL);
	bt_clock_class_set_precision(it->cc, bt_clock_class_get_precision(in_cc));
	bt_clock_class_set_origin_is_unix_epoch(it->cc, bt_clock_class_origin_is_unix_epoch(in_cc));
	if (bt_clock_class_get_name(in_cc))
		bt_clock_class_set_name(it->cc, bt_clock_class_get_name(in_cc));
	if (bt_clock_class_get_uuid(in_cc))
		bt_clock_class_set_uuid(it->cc, bt_clock_class_get_uuid(in_cc));

	it->sc = bt_stream_class_create(it->tc);
	ctx = bt_field_class_structure_create(it->tc);
	if (!it->sc || !ctx || kz_member(ctx, "cpu_id", kz_uint(it->tc, 32, false)))
		goto fail;
	bt_stream_class_set_name(it->sc, "channel0");
	bt_stream_class_set_default_clock_class(it->sc, it->cc);
	bt_stream_class_set_supports_packets(it->sc, BT_TRUE, BT_TRUE, BT_TRUE);
	if (bt_stream_class_set_packet_context_field_class(it->sc, ctx))
		goto fail;
	bt_field_class_put_ref(ctx);
	ctx = NULL;
	bt_stream_class_put_ref(it->sc); /* the trace class owns it */
	it->sched_switch = kz_sched_switch_class(it);
	it->sched_waking = kz_wakeup_class(it, "sched_waking", true);
	it->sched_wakeup = kz_wakeup_class(it, "sched_wakeup", false);
	it->process_state = kz_process_state_class(it);
	if (!it->sched_switch || !it->sched_waking || !it->sched_wakeup || !it->process_state)
		return -1;

	it->trace = bt_trace_create(it->tc);
	if (!it->trace)
		return -1;
	bt_trace_set_name(it->trace, "kernel");
	/* What Trace Compass checks to open an LTTng kernel trace. */
	if (bt_trace_set_environment_entry_string(it->trace, "domain", "kernel") ||
	    bt_trace_set_environment_entry_string(it->trace, "tracer_name", "lttng-modules") ||
	    bt_trace_set_environment_entry_integer(it->trace, "tracer_major", 2) ||
	    bt_trace_set_environment_entry_integer(it->trace, "tracer_minor", 13) ||
	    bt_trace_set_environment_entry_integer(it->trace, "tracer_patchlevel", 0) ||
	    bt_trace_set_environment_entry_string(it->trace, "sclat_source",
						  "sclat:syscall_outlier"))
		return -1;
	kz_copy_env(it->trace, in_trace, "hostname");
	kz_copy_env(it->trace, in_trace, "trace_creation_datetime");
	return 0;
fail:
	bt_field_class_put_ref(ctx);
	return -1;
}

/* Output queue. */

static int kz_queue(struct kz_iter *it, const bt_message *msg)
{
	if (!msg)
		return -1;
	if (it->out_len == it->out_cap) {
		size_t cap = it->out_cap ? 2 * it->out_cap : 256, i;
		const bt_message **out = malloc(cap * sizeof(*out));

		if (!out) {
			bt_message_put_ref(msg);
			return -1;
		}
		for (i = 0; i < it->out_len; i++)
			out[i] = it->out[(it->out_head + i) % it->out_cap];
		free(it->out);
		it->out = out;
		it->out_head = 0;
		it->out_cap = cap;
	}
	it->out[(it->out_head + it->out_len++) % it->out_cap] = msg;
	return 0;
}

/* The CPU's stream, begun at its first use; cpu < KZ_MAX_CPUS (checked on input). */
static struct cpu_stream *kz_cpu(struct kz_iter *it, uint32_t cpu)
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
	if (kz_queue(it, bt_message_stream_beginning_create(it->self, c->stream)))
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

/* Remember that tid of pid was switched in on cpu; 0 or -1 (out of memory). */
static int kz_thread_placed(struct kz_iter *it, int32_t tid, int32_t pid, uint32_t cpu)
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

/* Whether tid has had its statedump as a thread of pid. */
static bool kz_thread_known(struct kz_iter *it, int32_t tid, int32_t pid)
{
	const struct thread_cpu *slot = it->threads_size ? kz_thread_slot(it, tid) : NULL;

	return slot && slot->tid && slot->pid == pid;
}

/* The CPU other than c where tid is current, or NULL. */
static struct cpu_stream *kz_thread_cpu(struct kz_iter *it, int32_t tid, const struct cpu_stream *c)
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

static int kz_packet_end(struct kz_iter *it, struct cpu_stream *c, uint64_t ts)
{
	int err;

	if (!c->packet)
		return 0;
	err = kz_queue(it, bt_message_packet_end_create_with_default_clock_snapshot(it->self,
										    c->packet, ts));
	bt_packet_put_ref(c->packet);
	c->packet = NULL;
	return err;
}

/* Queue an event of class ec at ts on the CPU's stream; returns its payload or NULL. */
static bt_field *kz_event(struct kz_iter *it, struct cpu_stream *c, uint32_t cpu,
			  const bt_event_class *ec, uint64_t ts)
{
	bt_message *msg;

	if (c->packet && c->packet_events >= KZ_PACKET_EVENTS && kz_packet_end(it, c, ts))
		return NULL;
	if (!c->packet) {
		c->packet = bt_packet_create(c->stream);
		if (!c->packet)
			return NULL;
		bt_field_integer_unsigned_set_value(
			bt_field_structure_borrow_member_field_by_index(
				bt_packet_borrow_context_field(c->packet), 0),
			cpu);
		c->packet_events = 0;
		if (kz_queue(it, bt_message_packet_beginning_create_with_default_clock_snapshot(
					 it->self, c->packet, ts)))
			return NULL;
	}
	msg = bt_message_event_create_with_packet_and_default_clock_snapshot(it->self, ec,
									     c->packet, ts);
	if (kz_queue(it, msg))
		return NULL;
	c->packet_events++;
	c->last_ts = ts;
	it->last_out_ts = ts;
	return bt_event_borrow_payload_field(bt_message_event_borrow_event(msg));
}

static void kz_set_s64(bt_field *payload, uint64_t i, int64_t v)
{
	bt_field_integer_signed_set_value(
		bt_field_structure_borrow_member_field_by_index(payload, i), v);
}

static int kz_set_string(bt_field *payload, uint64_t i, const char *s)
{
	return bt_field_string_set_value(
		       bt_field_structure_borrow_member_field_by_index(payload, i), s)
		       ? -1
		       : 0;
}

/*
 * A sched_switch on CPU cpu (stream c) at at, from its current thread, left
 * in prev_state, to tid.
 */
static int kz_switch_state(struct kz_iter *it, struct cpu_stream *c, uint32_t cpu, uint64_t at,
			   int64_t prev_state, int32_t tid, const char *comm)
{
	bt_field *p = kz_event(it, c, cpu, it->sched_switch, at);

	if (!p || kz_set_string(p, 0, c->comm))
		return -1;
	kz_set_s64(p, 1, c->tid);
	kz_set_s64(p, 2, KZ_PRIO);
	kz_set_s64(p, 3, prev_state);
	if (kz_set_string(p, 4, comm))
		return -1;
	kz_set_s64(p, 5, tid);
	kz_set_s64(p, 6, KZ_PRIO);
	c->tid = tid;
	snprintf(c->comm, sizeof(c->comm), "%s", comm);
	return 0;
}

static int kz_switch(struct kz_iter *it, struct cpu_stream *c, uint32_t cpu, uint64_t at,
		     int32_t tid, const char *comm)
{
	return kz_switch_state(it, c, cpu, at, KZ_PREV_STATE, tid, comm);
}

/* The CPU's idle thread, as lttng-modules names it. */
static const char *kz_idle_name(uint32_t cpu, char *buf, size_t len)
{
	snprintf(buf, len, "swapper/%u", cpu);
	return buf;
}

/*
 * The statedump of o's thread on CPU cpu at at: its process and name. Its
 * parent and state are not in the trace: ppid 0, status and mode unknown.
 */
static int kz_process_state(struct kz_iter *it, struct cpu_stream *c, uint32_t cpu,
			    const struct outlier *o, uint64_t at)
{
	bt_field *p = kz_event(it, c, cpu, it->process_state, at);

	if (!p)
		return -1;
	kz_set_s64(p, 0, o->tid);
	kz_set_s64(p, 1, o->tid);
	kz_set_s64(p, 2, o->pid);
	kz_set_s64(p, 3, o->pid);
	kz_set_s64(p, 4, 0);
	kz_set_s64(p, 5, 0);
	if (kz_set_string(p, 6, o->comm))
		return -1;
	kz_set_s64(p, 7, KZ_USER_THREAD);
	kz_set_s64(p, 8, KZ_MODE_UNKNOWN);
	kz_set_s64(p, 9, KZ_SUBMODE_NONE);
	kz_set_s64(p, 10, KZ_STATUS_UNNAMED);
	kz_set_s64(p, 11, 0);
	bt_field_integer_unsigned_set_value(bt_field_structure_borrow_member_field_by_index(p, 12),
					    0);
	return 0;
}

/*
 * Make o's thread current on CPU cpu (stream c) at at (or at the CPU's last
 * event, if later), and switch it out of the CPU it was current on. A thread
 * seen for the first time has its statedump first.
 */
static int kz_switch_to(struct kz_iter *it, struct cpu_stream *c, uint32_t cpu,
			const struct outlier *o, uint64_t at)
{
	struct cpu_stream *d;
	char idle[OUTLIER_COMM_LEN];

	if (c->tid == o->tid)
		return 0;
	if (at < c->last_ts)
		at = c->last_ts;
	d = kz_thread_cpu(it, o->tid, c);
	if (d) {
		kz_idle_name(d - it->cpus, idle, sizeof(idle));
		if (kz_switch(it, d, d - it->cpus, at > d->last_ts ? at : d->last_ts, 0, idle))
			return -1;
	}
	if (!kz_thread_known(it, o->tid, o->pid) && kz_process_state(it, c, cpu, o, at))
		return -1;
	if (kz_switch(it, c, cpu, at, o->tid, o->comm))
		return -1;
	return kz_thread_placed(it, o->tid, o->pid, cpu);
}

/* The prev_state of a thread leaving its CPU as a stretch of kind says. */
static int64_t kz_prev_state(uint32_t kind)
{
	if (kind == OUTLIER_OFF_CPU_RUNQUEUE)
		return KZ_TASK_RUNNING;
	return kind == OUTLIER_OFF_CPU_IO ? KZ_TASK_UNINTERRUPTIBLE : KZ_PREV_STATE;
}

/* The switch out of pe's stretch: its thread leaves CPU pe->cpu for the idle thread. */
static int kz_emit_switch_out(struct kz_iter *it, const struct pending *pe, struct cpu_stream *c)
{
	const struct outlier *o = &pe->call->o;
	char idle[OUTLIER_COMM_LEN];

	return kz_switch_state(it, c, pe->cpu, pe->ts, kz_prev_state(o->why.off_cpu[pe->span].kind),
			       0, kz_idle_name(pe->cpu, idle, sizeof(idle)));
}

/*
 * The wake-up of pe's stretch: sched_waking then sched_wakeup, on the CPU
 * the thread comes back on (where the waker ran is not recorded).
 */
static int kz_emit_wakeup(struct kz_iter *it, const struct pending *pe, struct cpu_stream *c)
{
	const struct outlier *o = &pe->call->o;
	bool waker = o->why.off_cpu_waker == (int32_t)pe->span && o->why.waker_comm[0];
	bt_field *p;
	int i;

	for (i = 0; i < 2; i++) {
		p = kz_event(it, c, pe->cpu, i ? it->sched_wakeup : it->sched_waking, pe->ts);
		if (!p || kz_set_string(p, 0, o->comm))
			return -1;
		kz_set_s64(p, 1, o->tid);
		kz_set_s64(p, 2, KZ_PRIO);
		kz_set_s64(p, 3, pe->cpu);
		if (i)
			continue;
		kz_set_s64(p, 4, waker ? o->why.waker_tid : 0);
		if (kz_set_string(p, 5, waker ? o->why.waker_comm : ""))
			return -1;
	}
	return 0;
}

/* The entry or exit event of pe, its thread current on its CPU already. */
static int kz_emit(struct kz_iter *it, const struct pending *pe, struct cpu_stream *c)
{
	const struct outlier *o = &pe->call->o;
	struct syscall_classes *s = kz_syscall_classes(it, o->syscall);
	bool exit = pe->step == KZ_EXIT;
	bt_field *p;
	unsigned int i;

	if (!s)
		return -1;
	p = kz_event(it, c, pe->cpu, exit ? s->exit : s->entry, pe->ts);
	if (!p)
		return -1;
	if (exit) {
		kz_set_s64(p, 0, o->ret);
	} else {
		for (i = 0; i < s->nr_args; i++)
			bt_field_integer_unsigned_set_value(
				bt_field_structure_borrow_member_field_by_index(p, i), o->args[i]);
	}
	return 0;
}

/* One pending event, its thread made current on its CPU first where it has to be. */
static int kz_step_emit(struct kz_iter *it, const struct pending *pe, struct cpu_stream *c)
{
	const struct outlier *o = &pe->call->o;

	if (pe->step == KZ_WAKEUP)
		return kz_emit_wakeup(it, pe, c);
	if (kz_switch_to(it, c, pe->cpu, o, pe->ts))
		return -1;
	if (pe->step == KZ_SWITCH_IN)
		return 0;
	return pe->step == KZ_SWITCH_OUT ? kz_emit_switch_out(it, pe, c) : kz_emit(it, pe, c);
}

/*
 * Release the events of one nanosecond, ts, in their order: first, on each
 * CPU, the switch to the thread of its first event, at ts - 1 where Trace
 * Compass looks; then the events. Two threads with events on one CPU in
 * the same nanosecond cannot both be current 1 ns before: the later one is
 * switched in at ts, and Trace Compass gives its event to the earlier one.
 * A recorded switch in is placed at its own time, and a wake-up makes no
 * thread current.
 */
static int kz_release(struct kz_iter *it, const struct pending *batch, size_t n)
{
	uint64_t ts = batch[0].ts;
	struct cpu_stream *c;
	size_t i;

	it->releases++;
	for (i = 0; i < n; i++) {
		c = kz_cpu(it, batch[i].cpu);
		if (!c)
			return -1;
		if (batch[i].step == KZ_SWITCH_IN || batch[i].step == KZ_WAKEUP ||
		    c->claimed == it->releases)
			continue;
		c->claimed = it->releases;
		if (kz_switch_to(it, c, batch[i].cpu, &batch[i].call->o, ts ? ts - 1 : 0))
			return -1;
	}
	for (i = 0; i < n; i++)
		if (kz_step_emit(it, &batch[i], &it->cpus[batch[i].cpu]))
			return -1;
	return 0;
}

/* The heap of pending events, earliest first. */

/*
 * Within one nanosecond: a thread leaves a CPU before another comes in (one
 * sched_switch in the kernel), woken before it is back; entries and exits
 * last, in input order.
 */
static int kz_rank(enum kz_step step)
{
	return step == KZ_SWITCH_OUT ? 0 : step == KZ_WAKEUP ? 1 : step == KZ_SWITCH_IN ? 2 : 3;
}

/* The order of the pending events' heap (util/heap.h). */
static bool kz_before(const void *pa, const void *pb)
{
	const struct pending *a = pa, *b = pb;

	if (a->ts != b->ts)
		return a->ts < b->ts;
	if (kz_rank(a->step) != kz_rank(b->step))
		return kz_rank(a->step) < kz_rank(b->step);
	return a->seq < b->seq;
}

static int kz_push(struct kz_iter *it, struct kz_call *call, enum kz_step step, uint64_t ts,
		   uint32_t cpu, uint32_t span)
{
	struct pending pe = {
		.ts = ts, .seq = it->seq++, .step = step, .cpu = cpu, .span = span, .call = call
	};

	if (heap_push(&it->pending, &pe))
		return -1;
	call->refs++;
	return 0;
}

/*
 * Release pending events earlier than until (UINT64_MAX: all, the last
 * nanosecond included), while fewer than max messages are queued.
 */
static int kz_flush(struct kz_iter *it, uint64_t until, size_t max)
{
	const struct pending *top;
	uint64_t ts;
	size_t n, i;
	int err;

	while ((top = heap_top(&it->pending)) && (top->ts < until || until == UINT64_MAX) &&
	       it->out_len < max) {
		/* All the events of this nanosecond, together. */
		ts = top->ts;
		for (n = 0; (top = heap_top(&it->pending)) && top->ts == ts; n++) {
			if (n == it->cap_batch) {
				size_t cap = it->cap_batch ? 2 * it->cap_batch : 64;
				struct pending *b = realloc(it->batch, cap * sizeof(*b));

				if (!b)
					return -1;
				it->batch = b;
				it->cap_batch = cap;
			}
			heap_pop(&it->pending, &it->batch[n]);
		}
		err = kz_release(it, it->batch, n);
		for (i = 0; i < n; i++)
			if (!--it->batch[i].call->refs)
				free(it->batch[i].call);
		if (err)
			return -1;
	}
	return 0;
}

/*
 * The pending events of outlier o: its entry and exit, and its recorded
 * switches and wake-ups, each on its CPU.
 */
static int kz_push_outlier(struct kz_iter *it, const struct outlier *o)
{
	const struct outlier_explanation *x = &o->why;
	struct kz_call *call = malloc(sizeof(*call));
	uint32_t i;
	int err;

	if (!call)
		return -1;
	call->refs = 1;
	call->o = *o;
	/* Borrowed from the event, gone before this is released: not converted anyway. */
	call->o.why.target = call->o.why.kernel_stack = call->o.why.user_stack = "";
	err = kz_push(it, call, KZ_ENTRY, o->entry_ts,
		      x->off_cpu_listed ? x->off_cpu[0].cpu : o->cpu, 0);
	for (i = 0; !err && i < x->off_cpu_listed; i++) {
		const struct outlier_off_cpu *s = &x->off_cpu[i];

		err = kz_push(it, call, KZ_SWITCH_OUT, o->entry_ts + s->out_ns, s->cpu, i);
		if (!err && s->woken)
			err = kz_push(it, call, KZ_WAKEUP, o->entry_ts + s->wake_ns, s->in_cpu, i);
		/*
		 * Back in the nanosecond it leaves again or exits (a switch in
		 * sched_switch missed): the next event makes it current itself.
		 */
		if (!err && s->in_ns != (i + 1 < x->off_cpu_listed ? s[1].out_ns : o->latency_ns))
			err = kz_push(it, call, KZ_SWITCH_IN, o->entry_ts + s->in_ns, s->in_cpu, i);
	}
	if (!err)
		err = kz_push(it, call, KZ_EXIT, o->entry_ts + o->latency_ns, o->cpu, 0);
	if (!--call->refs)
		free(call);
	return err;
}

/* What the output is made of, from an untrusted trace: a CPU, a thread, a syscall name. */
static int kz_outlier_check(struct kz_iter *it, const struct outlier *o)
{
	char name[TEXT_ESCAPED_SIZE(OUTLIER_NAME_LEN)];
	const char *c;
	uint32_t i;

	text_escape(o->syscall, sizeof(o->syscall), name, sizeof(name));
	for (c = o->syscall; isalnum((unsigned char)*c) || *c == '_'; c++)
		;
	if (*c || c == o->syscall) {
		KZ_ERROR(it,
			 "Failed to convert an outlier: syscall=\"%s\" is not a syscall name "
			 "(letters, digits and _)",
			 name);
		return -1;
	}
	for (i = 0; i < o->why.off_cpu_listed; i++)
		if (o->why.off_cpu[i].cpu >= KZ_MAX_CPUS ||
		    o->why.off_cpu[i].in_cpu >= KZ_MAX_CPUS) {
			KZ_ERROR(
				it,
				"Failed to convert an outlier: off_cpu_cpu=%u off_cpu_in_cpu=%u is "
				"not a CPU number (below %u): syscall=%s tid=%d entry_ts=%llu",
				o->why.off_cpu[i].cpu, o->why.off_cpu[i].in_cpu, KZ_MAX_CPUS, name,
				o->tid, (unsigned long long)o->entry_ts);
			return -1;
		}
	if (o->cpu >= KZ_MAX_CPUS) {
		KZ_ERROR(it,
			 "Failed to convert an outlier: cpu=%u is not a CPU number (below %u): "
			 "syscall=%s tid=%d entry_ts=%llu",
			 o->cpu, KZ_MAX_CPUS, name, o->tid, (unsigned long long)o->entry_ts);
		return -1;
	}
	if (o->tid <= 0) {
		KZ_ERROR(it,
			 "Failed to convert an outlier: tid=%d is not a thread id: syscall=%s "
			 "cpu=%u entry_ts=%llu",
			 o->tid, name, o->cpu, (unsigned long long)o->entry_ts);
		return -1;
	}
	return 0;
}

/* 1 with the outlier and its event's time if msg is one, 0 if not, -1 on error. */
static int kz_outlier_of(struct kz_iter *it, const bt_message *msg, struct outlier *o, uint64_t *ts)
{
	const bt_clock_class *cc;
	const bt_event *ev;
	int err;

	if (bt_message_get_type(msg) == BT_MESSAGE_TYPE_STREAM_BEGINNING &&
	    sclat_stream_class_is_sclat(bt_stream_borrow_class_const(
		    bt_message_stream_beginning_borrow_stream_const(msg))))
		it->sclat_seen = true;
	if (bt_message_get_type(msg) != BT_MESSAGE_TYPE_EVENT)
		return 0;
	ev = bt_message_event_borrow_event_const(msg);
	if (sclat_event_kind(bt_event_borrow_class_const(ev)) != SCLAT_EVENT_OUTLIER)
		return 0;
	err = outlier_read(ev, o);
	if (err) {
		KZ_ERROR(it, "Failed to read event: name=sclat:syscall_outlier %s",
			 outlier_error(err));
		return -1;
	}
	if (kz_outlier_check(it, o))
		return -1;
	/* entry_ts is a value of the event's clock: it must count nanoseconds. */
	cc = bt_message_event_borrow_stream_class_default_clock_class_const(msg);
	if (!cc || bt_clock_class_get_frequency(cc) != 1000000000ULL) {
		KZ_ERROR(it,
			 "Failed to convert the trace: its clock must count nanoseconds "
			 "(frequency=%llu)",
			 cc ? (unsigned long long)bt_clock_class_get_frequency(cc) : 0ULL);
		return -1;
	}
	*ts = bt_clock_snapshot_get_value(
		bt_message_event_borrow_default_clock_snapshot_const(msg));
	return 1;
}

/* First pass: how long after its entry an outlier can reach the input. */
static int kz_measure(struct kz_iter *it, const bt_message *msg)
{
	struct outlier o;
	uint64_t ts;
	int r = kz_outlier_of(it, msg, &o, &ts);

	if (r > 0 && ts > o.entry_ts && ts - o.entry_ts > it->max_lag_ns)
		it->max_lag_ns = ts - o.entry_ts;
	return r < 0 ? -1 : 0;
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
	uint64_t n, i;
	int err = 0;

	switch (bt_message_iterator_next(it->up, &in, &n)) {
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
		    kz_queue(it, bt_message_stream_end_create(it->self, c->stream)))
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
	uint64_t n;

	while (it->pass != KZ_CONVERT) {
		st = kz_measure_lag(it);
		if (st != BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK)
			return st;
	}
	while (!it->out_len) {
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
	for (n = 0; n < capacity && it->out_len; n++) {
		msgs[n] = it->out[it->out_head];
		it->out_head = (it->out_head + 1) % it->out_cap;
		it->out_len--;
	}
	*count = n;
	return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK;
}
