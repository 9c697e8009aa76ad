// SPDX-License-Identifier: GPL-2.0-only
/* The events kernelize emits (kz_emit.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fnv1a.h"
#include "kz_emit.h"
#include "kz_iter.h"

#define KZ_PRIO			20 /* lttng-modules' prio of a nice-0 task */
#define KZ_PREV_STATE		1  /* TASK_INTERRUPTIBLE */
#define KZ_TASK_RUNNING		0  /* prev_state of a preempted thread */
#define KZ_TASK_UNINTERRUPTIBLE 2

/* lttng_statedump_process_state's enums, as lttng-modules numbers them. */
#define KZ_USER_THREAD	  0 /* type */
#define KZ_MODE_UNKNOWN	  5 /* mode: the trace does not say */
#define KZ_SUBMODE_NONE	  0
#define KZ_STATUS_UNNAMED 0 /* status: not known either */

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
	c->in_ts = c->last_ts;
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
static int kz_emit_switch_out(struct kz_iter *it, const struct pending *pe, struct cpu_stream *c,
			      uint64_t at)
{
	const struct outlier *o = &pe->call->o;
	char idle[OUTLIER_COMM_LEN];

	return kz_switch_state(it, c, pe->cpu, at, kz_prev_state(o->why.off_cpu[pe->span].kind), 0,
			       kz_idle_name(pe->cpu, idle, sizeof(idle)));
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

/* The slot of hash h in the table of dumped fds: h itself, or the free slot it goes to. */
static uint64_t *kz_fd_slot(uint64_t *table, size_t size, uint64_t h)
{
	size_t mask = size - 1, i = h & mask;

	while (table[i] && table[i] != h)
		i = (i + 1) & mask;
	return &table[i];
}

/* Whether (pid, fd, file) was dumped already (1), and remembered now if not (0); -1: no memory. */
static int kz_fd_dumped(struct kz_iter *it, int32_t pid, int32_t fd, const char *file)
{
	uint64_t h = fnv1a(fnv1a(fnv1a(FNV1A_BASIS, &pid, sizeof(pid)), &fd, sizeof(fd)), file,
			   strlen(file)) |
		     1; /* 0 marks a free slot */
	uint64_t *old = it->fds_dumped, *slot;
	size_t i, old_size = it->fds_size;

	if (2 * (it->fds_used + 1) > it->fds_size) {
		it->fds_size = old_size ? 2 * old_size : 256;
		it->fds_dumped = calloc(it->fds_size, sizeof(*it->fds_dumped));
		if (!it->fds_dumped) {
			it->fds_dumped = old;
			it->fds_size = old_size;
			return -1;
		}
		for (i = 0; i < old_size; i++)
			if (old[i])
				*kz_fd_slot(it->fds_dumped, it->fds_size, old[i]) = old[i];
		free(old);
	}
	slot = kz_fd_slot(it->fds_dumped, it->fds_size, h);
	if (*slot)
		return 1;
	*slot = h;
	it->fds_used++;
	return 0;
}

/*
 * Before an entry whose first argument is an fd and whose outlier names its
 * file: lttng_statedump_file_descriptor of (pid, fd, file), once, as a kernel
 * session's state dump has it, so that lttng-analyses' I/O views name it.
 */
static int kz_fd_state(struct kz_iter *it, struct cpu_stream *c, uint32_t cpu,
		       const struct outlier *o, uint64_t at)
{
	int32_t fd = (int32_t)o->args[0];
	bt_field *p;
	int dumped;

	if (!o->why.target || !o->why.target[0] || o->args[0] > INT32_MAX)
		return 0;
	dumped = kz_fd_dumped(it, o->pid, fd, o->why.target);
	if (dumped)
		return dumped < 0 ? -1 : 0;
	p = kz_event(it, c, cpu, it->fd_state, at);
	if (!p)
		return -1;
	kz_set_s64(p, 0, o->pid);
	kz_set_s64(p, 1, fd);
	bt_field_integer_unsigned_set_value(bt_field_structure_borrow_member_field_by_index(p, 2),
					    0);
	bt_field_integer_unsigned_set_value(bt_field_structure_borrow_member_field_by_index(p, 3),
					    0);
	return kz_set_string(p, 4, o->why.target);
}

/* The entry or exit event of pe, its thread current on its CPU already. */
static int kz_emit(struct kz_iter *it, const struct pending *pe, struct cpu_stream *c, uint64_t at)
{
	const struct outlier *o = &pe->call->o;
	struct syscall_classes *s = kz_syscall_classes(it, o->syscall);
	bool exit = pe->step == KZ_EXIT;
	bt_field *p;
	unsigned int i;

	if (!s)
		return -1;
	if (!exit && s->fd_arg && kz_fd_state(it, c, pe->cpu, o, at))
		return -1;
	p = kz_event(it, c, pe->cpu, exit ? s->exit : s->entry, at);
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

/*
 * One pending event, its thread made current on its CPU first where it has
 * to be. Trace Compass finds an event's thread 1 ns before it: an event of a
 * thread switched in at its own nanosecond (another thread had an event on
 * the CPU in it) goes 1 ns after its switch.
 */
static int kz_step_emit(struct kz_iter *it, const struct pending *pe, struct cpu_stream *c)
{
	const struct outlier *o = &pe->call->o;
	uint64_t at = pe->ts;

	if (pe->step == KZ_WAKEUP)
		return kz_emit_wakeup(it, pe, c);
	if (kz_switch_to(it, c, pe->cpu, o, pe->ts))
		return -1;
	if (pe->step == KZ_SWITCH_IN)
		return 0;
	if (c->in_ts >= at && at != UINT64_MAX)
		at = c->in_ts + 1;
	return pe->step == KZ_SWITCH_OUT ? kz_emit_switch_out(it, pe, c, at)
					 : kz_emit(it, pe, c, at);
}

/* A stream, and a packet begun at ts, for each CPU the first pass saw. */
static int kz_streams_begin(struct kz_iter *it, uint64_t ts)
{
	struct cpu_stream *c;
	uint32_t cpu;

	for (cpu = 0; cpu < KZ_MAX_CPUS; cpu++) {
		if (!(it->cpus_seen[cpu / 64] & (1ULL << (cpu % 64))))
			continue;
		c = kz_cpu(it, cpu);
		if (!c || kz_packet_begin(it, c, cpu, ts))
			return -1;
	}
	return 0;
}

/*
 * Release the events of one nanosecond, ts, in their order: first, on each
 * CPU, the switch to the thread of its first event, at ts - 1 where Trace
 * Compass looks; then the events. Two threads with events on one CPU in
 * the same nanosecond cannot both be current 1 ns before: the later one is
 * switched in at ts, and its event put at ts + 1 (kz_step_emit()), the
 * events after it with it. A recorded switch in is placed at its own time,
 * and a wake-up makes no thread current.
 */
int kz_release(struct kz_iter *it, const struct pending *batch, size_t n)
{
	uint64_t ts = batch[0].ts;
	struct cpu_stream *c;
	size_t i;

	/*
	 * Every CPU's stream begins with the output: readers that read where all
	 * streams overlap (lttng-analyses) then miss none of its first events.
	 */
	if (!it->releases++ && kz_streams_begin(it, ts ? ts - 1 : 0))
		return -1;
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
