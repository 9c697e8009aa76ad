// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "util/outlier_line.h"
#include "outlier.h"

static const struct {
	const char *name;
	enum sclat_event_kind kind;
} sclat_events[] = {
	{ "sclat:syscall_outlier", SCLAT_EVENT_OUTLIER },
	{ "sclat:threshold_update", SCLAT_EVENT_THRESHOLD },
	{ "sclat:stats", SCLAT_EVENT_STATS },
	{ "sclat:lost", SCLAT_EVENT_LOST },
	{ "sclat:overhead", SCLAT_EVENT_OVERHEAD },
	{ "sclat:session_begin", SCLAT_EVENT_SESSION_BEGIN },
	{ "sclat:session_end", SCLAT_EVENT_SESSION_END },
	{ "sclat:snapshot", SCLAT_EVENT_SNAPSHOT },
	{ "sclat:snapshot_totals", SCLAT_EVENT_SNAPSHOT_TOTALS },
	{ "sclat:syscall_inflight", SCLAT_EVENT_INFLIGHT },
};

enum sclat_event_kind sclat_event_kind(const bt_event_class *ec)
{
	const char *name = bt_event_class_get_name(ec);
	size_t i;

	if (!name || strncmp(name, "sclat:", 6))
		return SCLAT_EVENT_OTHER;
	for (i = 0; i < sizeof(sclat_events) / sizeof(sclat_events[0]); i++)
		if (!strcmp(name, sclat_events[i].name))
			return sclat_events[i].kind;
	return SCLAT_EVENT_OTHER;
}

bool sclat_stream_class_is_sclat(const bt_stream_class *sc)
{
	uint64_t i, n = bt_stream_class_get_event_class_count(sc);

	for (i = 0; i < n; i++) {
		const bt_event_class *ec = bt_stream_class_borrow_event_class_by_index_const(sc, i);

		if (sclat_event_kind(ec) != SCLAT_EVENT_OTHER)
			return true;
	}
	return false;
}

const char *sclat_stream_host(const bt_stream *stream)
{
	const bt_value *v = bt_trace_borrow_environment_entry_value_by_name_const(
		bt_stream_borrow_trace_const(stream), "hostname");

	return v && bt_value_is_string(v) && *bt_value_string_get(v) ? bt_value_string_get(v)
								     : OUTLIER_HOST_UNKNOWN;
}

static const bt_field *member(const bt_field *payload, const char *name)
{
	return bt_field_structure_borrow_member_field_by_name_const(payload, name);
}

static int get_u64(const bt_field *payload, const char *name, uint64_t *v)
{
	const bt_field *f = member(payload, name);

	if (!f)
		return -1;
	if (bt_field_class_type_is(bt_field_get_class_type(f),
				   BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER))
		*v = bt_field_integer_unsigned_get_value(f);
	else if (bt_field_class_type_is(bt_field_get_class_type(f),
					BT_FIELD_CLASS_TYPE_SIGNED_INTEGER))
		*v = (uint64_t)bt_field_integer_signed_get_value(f);
	else
		return -1;
	return 0;
}

static int get_s64(const bt_field *payload, const char *name, int64_t *v)
{
	uint64_t u;

	if (get_u64(payload, name, &u))
		return -1;
	*v = (int64_t)u;
	return 0;
}

static int get_double(const bt_field *payload, const char *name, double *v)
{
	const bt_field *f = member(payload, name);

	if (!f)
		return -1;
	if (bt_field_get_class_type(f) == BT_FIELD_CLASS_TYPE_DOUBLE_PRECISION_REAL)
		*v = bt_field_real_double_precision_get_value(f);
	else if (bt_field_get_class_type(f) == BT_FIELD_CLASS_TYPE_SINGLE_PRECISION_REAL)
		*v = bt_field_real_single_precision_get_value(f);
	else
		return -1;
	return 0;
}

/*
 * A string field's value. Babeltrace 2.0.4 (Debian 12) decodes an empty CTF
 * string by setting the field's length to 0 without terminating its buffer,
 * which still holds the same field's value from an earlier event: the length
 * is the one to trust (fixed in later babeltrace2 releases).
 */
static const char *string_value(const bt_field *f)
{
	return bt_field_string_get_length(f) ? bt_field_string_get_value(f) : "";
}

static int get_string(const bt_field *payload, const char *name, char *buf, size_t len)
{
	const bt_field *f = member(payload, name);

	if (!f || bt_field_get_class_type(f) != BT_FIELD_CLASS_TYPE_STRING)
		return -1;
	snprintf(buf, len, "%s", string_value(f));
	return 0;
}

/* A string field borrowed from the event; -1 when missing or of another type. */
static int borrow_string(const bt_field *payload, const char *name, const char **s)
{
	const bt_field *f = member(payload, name);

	if (!f || bt_field_get_class_type(f) != BT_FIELD_CLASS_TYPE_STRING)
		return -1;
	*s = string_value(f);
	return 0;
}

/*
 * What explains the outlier, when its trace is of version 3 or later: it has
 * on_cpu_ns, and then must have the rest. 0, or -1 when a field is missing
 * or mistyped.
 */
static int explanation_read(const bt_field *p, struct outlier_explanation *x)
{
	uint64_t v = 0;
	int64_t s = 0;
	int err = 0;

	x->target = "";
	x->kernel_stack = "";
	x->user_stack = "";
	x->stack = NULL;
	x->off_cpu_waker = -1;
	if (!member(p, "on_cpu_ns"))
		return 0;
	x->present = true;
	err |= get_u64(p, "on_cpu_ns", &x->on_cpu_ns);
	err |= get_u64(p, "runqueue_ns", &x->runqueue_ns);
	err |= get_u64(p, "sleep_ns", &x->sleep_ns);
	err |= get_u64(p, "io_wait_ns", &x->io_wait_ns);
	/* Since version 10; within its time on a CPU. */
	if (member(p, "irq_ns"))
		err |= get_u64(p, "irq_ns", &x->irq_ns);
	if (x->irq_ns > x->on_cpu_ns)
		x->irq_ns = x->on_cpu_ns;
	/* Since version 13; within its time on a CPU. */
	if (member(p, "steal_ns"))
		err |= get_u64(p, "steal_ns", &x->steal_ns);
	if (x->steal_ns > x->on_cpu_ns)
		x->steal_ns = x->on_cpu_ns;
	/* Since version 11; within its time blocked. */
	if (member(p, "waker_runqueue_ns"))
		err |= get_u64(p, "waker_runqueue_ns", &x->waker_runqueue_ns);
	if (x->waker_runqueue_ns > x->sleep_ns + x->io_wait_ns)
		x->waker_runqueue_ns = x->sleep_ns + x->io_wait_ns;
	err |= get_u64(p, "switches", &v);
	x->switches = (uint32_t)v;
	err |= get_s64(p, "waker_pid", &s);
	x->waker_pid = (int32_t)s;
	err |= get_s64(p, "waker_tid", &s);
	x->waker_tid = (int32_t)s;
	err |= get_string(p, "waker_comm", x->waker_comm, sizeof(x->waker_comm));
	err |= borrow_string(p, "target", &x->target);
	err |= borrow_string(p, "kernel_stack", &x->kernel_stack);
	/* Since version 5. */
	if (member(p, "user_stack"))
		err |= borrow_string(p, "user_stack", &x->user_stack);
	if (member(p, "user_stack_dropped")) {
		err |= get_u64(p, "user_stack_dropped", &v);
		x->user_stack_dropped = v != 0;
	}
	/* Since version 9; a value it does not know counts as none. */
	if (member(p, "user_stack_missing") && !get_u64(p, "user_stack_missing", &v) &&
	    v < OUTLIER_USTACK_WHYS)
		x->user_stack_missing = (uint8_t)v;
	return err ? -1 : 0;
}

const char *const outlier_ustack_why[OUTLIER_USTACK_WHYS] = {
	NULL,
	"over its CPU's stack budget",
	"the ring buffer filling up",
	"the unwinder's queue full",
	"no user context (kernel thread or 32-bit task)",
	"its stack unreadable",
};

/* The length of sequence field name, or -1 when it is missing or no sequence. */
static int64_t sequence_length(const bt_field *p, const char *name)
{
	const bt_field *f = member(p, name);

	if (!f ||
	    !bt_field_class_type_is(bt_field_get_class_type(f), BT_FIELD_CLASS_TYPE_DYNAMIC_ARRAY))
		return -1;
	return (int64_t)bt_field_array_get_length(f);
}

/* Element i of an unsigned integer sequence; -1 when of another type. */
static int sequence_u64(const bt_field *p, const char *name, uint64_t i, uint64_t *v)
{
	const bt_field *e = bt_field_array_borrow_element_field_by_index_const(member(p, name), i);

	if (!bt_field_class_type_is(bt_field_get_class_type(e),
				    BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER))
		return -1;
	*v = bt_field_integer_unsigned_get_value(e);
	return 0;
}

static const char *const off_cpu_fields[] = {
	"off_cpu_cpu",	   "off_cpu_kind",  "off_cpu_out_ts",
	"off_cpu_wake_ts", "off_cpu_in_ts", "off_cpu_in_cpu",
};

/*
 * The stretches off the CPU of an outlier that entered at entry_ts and
 * lasted latency_ns (trace version 7 on): six sequences of one length.
 * 0; -EINVAL when a field is missing or mistyped; -EDOM when the times
 * are not links of one chain from the entry to the exit.
 */
static int off_cpu_read(const bt_field *p, uint64_t entry_ts, uint64_t latency_ns,
			struct outlier_explanation *x)
{
	uint64_t i, n, link = 0, v[6], unlisted = 0;
	int64_t waker = -1, len;
	size_t f;

	if (!member(p, "off_cpu_out_ts"))
		return 0;
	len = sequence_length(p, off_cpu_fields[0]);
	for (f = 1; f < 6; f++)
		if (len < 0 || sequence_length(p, off_cpu_fields[f]) != len)
			return -EINVAL;
	if (get_u64(p, "off_cpu_unlisted", &unlisted) || get_s64(p, "off_cpu_waker", &waker) ||
	    unlisted > UINT32_MAX)
		return -EINVAL;
	n = (uint64_t)len;
	for (i = 0; i < n; i++) {
		for (f = 0; f < 6; f++)
			if (sequence_u64(p, off_cpu_fields[f], i, &v[f]))
				return -EINVAL;
		/* entry <= out <= wake (when seen) <= in <= the next out ... <= exit */
		if (v[2] < entry_ts || v[2] - entry_ts < link || (v[3] && v[3] < v[2]) ||
		    v[4] < (v[3] ? v[3] : v[2]) || v[4] - entry_ts > latency_ns ||
		    v[0] > UINT32_MAX || v[5] > UINT32_MAX ||
		    !outlier_off_cpu_kind_name((uint32_t)v[1]))
			return -EDOM;
		link = v[4] - entry_ts;
		if (i >= OUTLIER_OFF_CPU_MAX)
			continue;
		x->off_cpu[i] = (struct outlier_off_cpu){
			.cpu = (uint32_t)v[0],
			.kind = (uint32_t)v[1],
			.out_ns = v[2] - entry_ts,
			.woken = v[3] != 0,
			.wake_ns = v[3] ? v[3] - entry_ts : 0,
			.in_ns = v[4] - entry_ts,
			.in_cpu = (uint32_t)v[5],
		};
	}
	x->off_cpu_known = true;
	x->off_cpu_listed = n < OUTLIER_OFF_CPU_MAX ? (uint32_t)n : OUTLIER_OFF_CPU_MAX;
	if (unlisted + n - x->off_cpu_listed > UINT32_MAX)
		return -EINVAL;
	x->off_cpu_unlisted = (uint32_t)(unlisted + n - x->off_cpu_listed);
	x->off_cpu_waker = waker >= 0 && waker < x->off_cpu_listed ? (int32_t)waker : -1;
	return 0;
}

void outlier_why_fill(const struct outlier_explanation *x, struct outlier_why *w)
{
	*w = (struct outlier_why){
		.on_cpu_ns = x->on_cpu_ns,
		.runqueue_ns = x->runqueue_ns,
		.sleep_ns = x->sleep_ns,
		.io_wait_ns = x->io_wait_ns,
		.irq_ns = x->irq_ns,
		.steal_ns = x->steal_ns,
		.waker_runqueue_ns = x->waker_runqueue_ns,
		.switches = x->switches,
		.has_waker = x->waker_comm[0] != '\0',
		.waker_pid = x->waker_pid,
		.waker_tid = x->waker_tid,
		.waker_comm = x->waker_comm,
		.target = x->target && *x->target ? x->target : NULL,
		.kernel_stack = x->kernel_stack ? x->kernel_stack : "",
		.user_stack = x->user_stack ? x->user_stack : "",
		.user_stack_dropped = x->user_stack_dropped,
		.off_cpu = x->off_cpu_known ? x->off_cpu : NULL,
		.off_cpu_listed = x->off_cpu_listed,
		.off_cpu_unlisted = x->off_cpu_unlisted,
		.off_cpu_waker = x->off_cpu_waker,
	};
}

void outlier_line_of(const struct outlier *o, const char *host, struct outlier_line *line,
		     struct outlier_why *why)
{
	*line = (struct outlier_line){
		.host = host,
		.entry_ns = o->entry_ts,
		.entry_epoch_ns = o->entry_epoch_ns,
		.syscall = o->syscall,
		.nr = o->nr,
		.comm = o->comm,
		.comm_len = sizeof(o->comm),
		.pid = o->pid,
		.tid = o->tid,
		.cpu = o->cpu,
		.latency_ns = o->latency_ns,
		.threshold_ns = o->threshold_ns,
		.ret = o->ret,
		.estimate_ns = o->estimate_ns,
		.samples = o->samples,
		.class_name = o->class_name,
		.title = o->title,
		.judged = o->judged,
		.surprise = o->surprise,
		.surprise_at_least = o->surprise_at_least,
		.normal_ns = o->normal_ns,
		.impact_ns = o->impact_ns,
		.storage_stall = o->storage_stall,
	};
	_Static_assert(sizeof(line->args) == sizeof(o->args), "six 64-bit arguments");
	memcpy(line->args, o->args, sizeof(line->args));
	/* The same WHY column and JSON keys as live outliers; none in a trace older than them. */
	if (o->why.present) {
		outlier_why_fill(&o->why, why);
		line->why = why;
	}
}

/*
 * The entry and exit of o by the event's clock, in ns from its origin, into
 * o->entry_epoch_ns when that origin is the epoch. Every reader (babeltrace2,
 * Trace Compass) places them so: they must fit. 0, or -ERANGE.
 */
static int clock_times(const bt_event *ev, struct outlier *o)
{
	const bt_clock_class *cc = bt_stream_class_borrow_default_clock_class_const(
		bt_stream_borrow_class_const(bt_event_borrow_stream_const(ev)));
	int64_t entry_ns, exit_ns;

	/* entry_ts counts ns: on a clock that does not, only the field can say. */
	if (!cc || bt_clock_class_get_frequency(cc) != 1000000000ULL)
		return 0;
	if (bt_clock_class_cycles_to_ns_from_origin(cc, o->entry_ts, &entry_ns) ||
	    bt_clock_class_cycles_to_ns_from_origin(cc, o->entry_ts + o->latency_ns, &exit_ns)) {
		/* It says so as an error cause of its own: the caller's says it better. */
		bt_current_thread_clear_error();
		return -ERANGE;
	}
	if (bt_clock_class_origin_is_unix_epoch(cc))
		o->entry_epoch_ns = entry_ns;
	return 0;
}

/*
 * The fields that name a call, as every event about one has them (the
 * outlier, its snapshot, its in-flight reports): nr, syscall, pid, tid, comm,
 * entry_ts, entry_epoch_ns. Non-zero when one is missing or mistyped.
 */
static int call_read(const bt_field *p, struct outlier *o)
{
	uint64_t v = 0;
	int64_t s = 0;
	int err = 0;

	err |= get_u64(p, "nr", &v);
	o->nr = (uint32_t)v;
	err |= get_string(p, "syscall", o->syscall, sizeof(o->syscall));
	err |= get_s64(p, "pid", &s);
	o->pid = (int32_t)s;
	err |= get_s64(p, "tid", &s);
	o->tid = (int32_t)s;
	err |= get_string(p, "comm", o->comm, sizeof(o->comm));
	err |= get_u64(p, "entry_ts", &o->entry_ts);
	err |= get_s64(p, "entry_epoch_ns", &o->entry_epoch_ns);
	return err;
}

/* Readers add the latency to both times: it must fit, both ways. 0, or -ERANGE. */
static int call_times_check(const bt_event *ev, struct outlier *o)
{
	int64_t exit_epoch_ns;

	if (o->latency_ns > INT64_MAX || o->entry_ts + o->latency_ns < o->entry_ts ||
	    clock_times(ev, o) ||
	    __builtin_add_overflow(o->entry_epoch_ns, (int64_t)o->latency_ns, &exit_epoch_ns))
		return -ERANGE;
	return 0;
}

/*
 * Its surprise and impact (trace version 9 on: it has surprise, and then
 * must have the rest); before, its impact is its whole latency. 0 or -1.
 */
static int judgement_read(const bt_field *p, struct outlier *o)
{
	uint64_t v = 0;
	int err = 0;

	o->impact_ns = o->latency_ns;
	o->surprise = -1;
	if (!member(p, "surprise"))
		return 0;
	o->judged = true;
	err |= get_double(p, "surprise", &o->surprise);
	err |= get_u64(p, "surprise_at_least", &v);
	o->surprise_at_least = v != 0;
	err |= get_u64(p, "normal_ns", &o->normal_ns);
	err |= get_u64(p, "impact_ns", &o->impact_ns);
	/* Not a number is not known; the impact is within the latency. */
	if (!(o->surprise >= 0))
		o->surprise = -1;
	if (o->impact_ns > o->latency_ns)
		o->impact_ns = o->latency_ns;
	if (member(p, "storage_stall")) {
		err |= get_u64(p, "storage_stall", &v);
		o->storage_stall = v != 0;
	}
	return err ? -1 : 0;
}

int outlier_read(const bt_event *ev, struct outlier *o)
{
	const bt_field *p = bt_event_borrow_payload_field_const(ev);
	const bt_field *args;
	uint64_t v = 0, i, n;
	int err = 0;

	memset(o, 0, sizeof(*o));
	if (!p)
		return -EINVAL;
	err |= call_read(p, o);
	err |= get_u64(p, "cpu", &v);
	o->cpu = (uint32_t)v;
	err |= get_u64(p, "latency_ns", &o->latency_ns);
	err |= get_s64(p, "ret", &o->ret);
	err |= get_u64(p, "threshold_ns", &o->threshold_ns);
	/* Traces of sclat before the estimate was recorded lack them: 0, not an error. */
	get_u64(p, "estimate_ns", &o->estimate_ns);
	get_u64(p, "samples", &o->samples);
	err |= explanation_read(p, &o->why);
	if (!err && o->why.present) {
		err = off_cpu_read(p, o->entry_ts, o->latency_ns, &o->why);
		if (err)
			return err;
	}
	/* Before trace version 4, every threshold was its syscall's. */
	get_string(p, "class", o->class_name, sizeof(o->class_name));
	/* Since trace version 9. */
	get_string(p, "title", o->title, sizeof(o->title));
	err |= judgement_read(p, o);
	args = member(p, "args");
	if (err || !args ||
	    !bt_field_class_type_is(bt_field_get_class_type(args), BT_FIELD_CLASS_TYPE_ARRAY))
		return -EINVAL;
	n = bt_field_array_get_length(args);
	for (i = 0; i < OUTLIER_NR_ARGS && i < n; i++) {
		const bt_field *a = bt_field_array_borrow_element_field_by_index_const(args, i);
		bt_field_class_type t = bt_field_get_class_type(a);

		if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER))
			o->args[i] = bt_field_integer_unsigned_get_value(a);
		else if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_SIGNED_INTEGER))
			o->args[i] = (uint64_t)bt_field_integer_signed_get_value(a);
		else
			return -EINVAL;
	}
	return call_times_check(ev, o);
}

const char *outlier_error(int err)
{
	if (err == -ERANGE)
		return "has times out of range (entry_ts + latency_ns beyond what the clock can say)";
	if (err == -EDOM)
		return "has stretches off the CPU out of order (off_cpu_*: entry <= out <= wake <= "
		       "in <= next out <= exit)";
	return "has missing or mistyped fields (another version of sclat?)";
}

int threshold_change_read(const bt_event *ev, const bt_clock_snapshot *cs,
			  struct threshold_change *t)
{
	const bt_field *p = bt_event_borrow_payload_field_const(ev);
	int err = 0;

	memset(t, 0, sizeof(*t));
	if (!p || !cs)
		return -1;
	if (bt_clock_snapshot_get_ns_from_origin(cs, &t->epoch_ns))
		return -1;
	err |= get_string(p, "syscall", t->syscall, sizeof(t->syscall));
	err |= get_u64(p, "old_ns", &t->old_ns);
	err |= get_u64(p, "new_ns", &t->new_ns);
	err |= get_u64(p, "estimate_ns", &t->estimate_ns);
	err |= get_double(p, "quantile", &t->quantile);
	err |= get_u64(p, "samples", &t->samples);
	get_string(p, "class", t->class_name, sizeof(t->class_name));
	/* Since version 9. */
	if (member(p, "rate")) {
		err |= get_double(p, "rate", &t->rate);
		err |= get_u64(p, "fit_start_ns", &t->fit_start_ns);
		err |= get_double(p, "fit_shape", &t->fit_shape);
		err |= get_double(p, "fit_scale_ns", &t->fit_scale_ns);
		err |= get_double(p, "fit_above", &t->fit_above);
	}
	return err ? -1 : 0;
}

int lost_count_read(const bt_event *ev, struct lost_count *l)
{
	const bt_field *p = bt_event_borrow_payload_field_const(ev);
	int err = 0;

	memset(l, 0, sizeof(*l));
	if (!p)
		return -1;
	err |= get_u64(p, "drops", &l->drops);
	err |= get_u64(p, "throttled", &l->throttled);
	err |= get_u64(p, "total_drops", &l->total_drops);
	err |= get_u64(p, "total_throttled", &l->total_throttled);
	/* Absent before trace version 9: left 0. */
	get_u64(p, "braked", &l->braked);
	get_u64(p, "total_braked", &l->total_braked);
	return err ? -1 : 0;
}

int run_end_read(const bt_event *ev, struct run_end *e)
{
	const bt_field *p = bt_event_borrow_payload_field_const(ev);
	int err = 0;

	memset(e, 0, sizeof(*e));
	if (!p)
		return -1;
	err |= get_u64(p, "syscalls", &e->syscalls);
	err |= get_u64(p, "outliers", &e->outliers);
	err |= get_u64(p, "drops", &e->drops);
	err |= get_u64(p, "throttled", &e->throttled);
	/* Absent before trace version 8: left 0. */
	get_u64(p, "kernel_stacks_skipped", &e->kernel_stacks_skipped);
	get_u64(p, "wakers_lost", &e->wakers_lost);
	get_u64(p, "class_ids_refused", &e->class_ids_refused);
	get_u64(p, "class_requests_lost", &e->class_requests_lost);
	get_u64(p, "children_not_followed", &e->children_not_followed);
	get_u64(p, "braked", &e->braked); /* version 9 on */
	return err ? -1 : 0;
}

int trace_version_read(const bt_event *ev, uint32_t *version)
{
	const bt_field *p = bt_event_borrow_payload_field_const(ev);
	uint64_t v;

	if (!p || get_u64(p, "abi_version", &v) || v > UINT32_MAX)
		return -1;
	*version = (uint32_t)v;
	return 0;
}

int snapshot_ref_read(const bt_event *ev, struct snapshot_ref *s)
{
	const bt_field *p = bt_event_borrow_payload_field_const(ev);
	struct outlier *o = &s->outlier;
	int err = 0;

	memset(s, 0, sizeof(*s));
	if (!p)
		return -1;
	err |= get_string(p, "session", s->session, sizeof(s->session));
	err |= get_string(p, "path", s->path, sizeof(s->path));
	err |= call_read(p, o);
	err |= get_u64(p, "latency_ns", &o->latency_ns);
	return err ? -1 : 0;
}

int hung_call_read(const bt_event *ev, struct hung_call *h)
{
	const bt_field *p = bt_event_borrow_payload_field_const(ev);
	struct outlier *o = &h->outlier;
	uint64_t v = 0;
	int err = 0;

	memset(h, 0, sizeof(*h));
	if (!p)
		return -EINVAL;
	err |= call_read(p, o);
	err |= get_u64(p, "cpu", &v);
	o->cpu = (uint32_t)v;
	err |= get_u64(p, "inflight_ns", &o->latency_ns);
	err |= get_u64(p, "threshold_ns", &o->threshold_ns);
	err |= get_string(p, "state", h->state, sizeof(h->state));
	err |= get_u64(p, "report", &v);
	h->reports = v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
	if (err)
		return -EINVAL;
	return call_times_check(ev, o);
}

int snapshot_count_read(const bt_event *ev, struct snapshot_count *c)
{
	const bt_field *p = bt_event_borrow_payload_field_const(ev);
	int err = 0;

	memset(c, 0, sizeof(*c));
	if (!p)
		return -1;
	err |= get_u64(p, "outliers", &c->outliers);
	err |= get_u64(p, "discarded", &c->discarded);
	err |= get_u64(p, "requested", &c->requested);
	err |= get_u64(p, "taken", &c->taken);
	err |= get_u64(p, "failed", &c->failed);
	err |= get_u64(p, "unreported", &c->unreported);
	return err ? -1 : 0;
}

int syscall_stats_read(const bt_event *ev, struct syscall_stats *s)
{
	const bt_field *p = bt_event_borrow_payload_field_const(ev);
	int err = 0;

	memset(s, 0, sizeof(*s));
	if (!p)
		return -1;
	err |= get_string(p, "syscall", s->syscall, sizeof(s->syscall));
	err |= get_u64(p, "interval_ns", &s->interval_ns);
	err |= get_u64(p, "calls", &s->calls);
	err |= get_u64(p, "outliers", &s->outliers);
	err |= get_u64(p, "p99_ns", &s->p99_ns);
	err |= get_u64(p, "threshold_ns", &s->threshold_ns);
	get_string(p, "class", s->class_name, sizeof(s->class_name));
	return err ? -1 : 0;
}

int overhead_read(const bt_event *ev, struct overhead_sample *o)
{
	const bt_field *p = bt_event_borrow_payload_field_const(ev);

	memset(o, 0, sizeof(*o));
	if (!p || get_u64(p, "ns_per_syscall", &o->ns_per_syscall))
		return -1;
	/* Added with explanations and user stacks: 0 in the traces of before. */
	get_u64(p, "consumer_lag_ns", &o->consumer_lag_ns);
	get_u64(p, "outliers", &o->outliers);
	get_u64(p, "explain_bpf_ns", &o->explain_bpf_ns);
	get_u64(p, "explain_user_ns", &o->explain_user_ns);
	get_u64(p, "user_stacks_dropped", &o->user_stacks_dropped);
	get_u64(p, "user_stacks_unwound", &o->user_stacks_unwound);
	return 0;
}

int session_policy_read(const bt_event *ev, const char **policy)
{
	const bt_field *p = bt_event_borrow_payload_field_const(ev);
	const bt_field *f = p ? member(p, "policy") : NULL;

	if (!f || bt_field_get_class_type(f) != BT_FIELD_CLASS_TYPE_STRING)
		return -1;
	*policy = string_value(f);
	return 0;
}
