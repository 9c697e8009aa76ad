// SPDX-License-Identifier: GPL-2.0-only
/* kernelize's output trace and its event classes (kz_trace.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/syscall_args.h"
#include "kz_iter.h"

#define KZ_MAX_SYSCALLS 1024 /* distinct syscall names: twice any syscall table */

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

/*
 * lttng-modules' lttng_statedump_file_descriptor, as lttng-analyses reads it
 * (pid, fd, flags, filename): the file an outlier's fd names, so that its
 * I/O views name files.
 */
static bt_event_class *kz_fd_state_class(struct kz_iter *it)
{
	bt_field_class *p = bt_field_class_structure_create(it->tc);
	bt_trace_class *tc = it->tc;

	if (!p)
		return NULL;
	if (kz_member(p, "pid", kz_sint(tc, 32)) || kz_member(p, "fd", kz_sint(tc, 32)) ||
	    kz_member(p, "flags", kz_uint(tc, 32, true)) ||
	    kz_member(p, "fmode", kz_uint(tc, 32, true)) ||
	    kz_member(p, "filename", bt_field_class_string_create(tc))) {
		bt_field_class_put_ref(p);
		return NULL;
	}
	return kz_event_class(it, "lttng_statedump_file_descriptor", p);
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

struct syscall_classes *kz_syscall_classes(struct kz_iter *it, const char *name)
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
	s->fd_arg = args->nr_args && !strcmp(args->arg[0].name, "fd");
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

int kz_trace_create(struct kz_iter *it, const bt_message *first)
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
	it->fd_state = kz_fd_state_class(it);
	if (!it->sched_switch || !it->sched_waking || !it->sched_wakeup || !it->process_state ||
	    !it->fd_state)
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
