/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A syscall leaving its CPU and coming back onto one (sched_switch): its
 * CPU's record is parked in its task's storage, its time off the CPU is
 * accounted (breakdown.bpf.h), the waker of its longest block is to be read
 * and, once the call is past its threshold, the kernel stack where it waited
 * is taken. When its task comes back, the call moves into the record of the
 * CPU it comes onto (call_resume), so that its sys_exit takes the short path.
 *
 * Part of sclat.bpf.c, after cpu_page.bpf.h, maps.bpf.h, classes.bpf.h,
 * waker.bpf.h, outlier.bpf.h (guard_take, budget_take) and syscall.bpf.h
 * (threshold_word).
 */
#ifndef SCLAT_SCHED_SWITCH_BPF_H
#define SCLAT_SCHED_SWITCH_BPF_H

/*
 * A call past its threshold when back from a block is an outlier at its
 * exit: the burst guard of the CPU it came back on (where its sys_exit most
 * likely runs) and the budget's pace decide here whether it goes out, and
 * count it then, so that a kernel stack (about a microsecond) is taken only
 * for an outlier that goes out, and the stacks, like the outliers, stay
 * within the rate budget.
 */
static __always_inline bool kstack_guard_admit(struct task_entry *t, __u64 now)
{
	__u32 burst = sclat_shared.knobs.guard_burst, zero = 0;
	struct burst_guard *g;

	if (!burst || t->admitted)
		return true;
	g = bpf_map_lookup_elem(&guards, &zero);
	if (!g || !guard_take(g, now, sclat_shared.knobs.guard_window_ns, burst) ||
	    !budget_take(now))
		return false;
	t->admitted = 1;
	return true;
}

/*
 * How long task, coming onto this CPU, waited on its runqueue since it was
 * queued (woken, or preempted), as the kernel's sched_info accounts it
 * (CONFIG_SCHED_INFO, which delay accounting selects): its queueing time
 * and its runqueue's clock, which the switch under way has just updated.
 * The runqueue is reached through the task's group's (CONFIG_FAIR_GROUP_SCHED):
 * the per-CPU variable itself is not a kernel symbol without
 * CONFIG_KALLSYMS_ALL. 0 without them.
 */
static __always_inline __u64 runqueue_wait(struct task_struct *task)
{
	__u64 queued, clock;
	struct cfs_rq *cfs;
	struct rq *rq;

	if (!bpf_core_field_exists(task->sched_info) || !bpf_core_field_exists(struct cfs_rq, rq))
		return 0;
	cfs = task->se.cfs_rq;
	if (!cfs)
		return 0;
	rq = cfs->rq;
	if (!rq)
		return 0;
	queued = task->sched_info.last_queued;
	clock = rq->clock;
	return queued && clock > queued ? clock - queued : 0;
}

/*
 * The call parked with t (entry_ns), whose task comes onto this CPU with its
 * user registers at regs, moves back into the CPU's record: its sys_exit,
 * on this CPU, then takes the short path and reads no task storage unless
 * it is an outlier. Its wait account stays in t (CPU_NR_RESUMED). A switch away
 * parks it again. The record is complete before the storage lets it go: a
 * reader of both (the in-flight iterator) never misses it.
 */
static __always_inline void call_resume(struct cpu_entry *c, struct task_entry *t, __u64 regs,
					__u64 entry_ns)
{
	c->entry_ns = 0;
	barrier();
	c->regs = regs;
	c->nr = t->nr | CPU_NR_RESUMED | (t->io ? CPU_NR_IO : 0);
	c->steal_base = steal_read(c->steal_at) - t->steal_ns;
	barrier();
	c->entry_ns = entry_ns;
	barrier();
	t->entry_ns = 0;
}

/*
 * next comes onto this CPU at now (sched_switch, on its CPU: no other CPU's
 * lines are read). If it was blocked inside a measured syscall, its block
 * ended when it was queued to run, and it waited on the runqueue since.
 * After the call's longest block so far, its waker is to be read, and when
 * the call is already slow, its kernel stack is taken: next is still off its
 * CPU, its saved stack is where it waited.
 */
static __always_inline void task_back(struct cpu_page *p, struct task_struct *next, __u64 next_regs,
				      __u64 now)
{
	__u64 block, threshold, from, entry_ns, span, wait;
	struct cpu_wait *cw;
	__u32 zero = 0;
	struct sclat_kstack *ks;
	struct task_entry *t;
	long n;

	/* An idle task or a kernel thread makes no syscall: no lookup. */
	if (next->flags & (TASK_PF_IDLE | TASK_PF_KTHREAD))
		return;
	t = bpf_task_storage_get(&task_entries, next, 0, 0);
	if (!t)
		return;
	if (t->cls.kind)
		class_restore(&p->rec, t, next_regs, *(volatile __u32 *)&p->lane.class_epoch);
	entry_ns = t->entry_ns;
	if (!entry_ns)
		return;
	call_resume(&p->rec, t, next_regs, entry_ns);
	from = t->back_ns;
	t->back_ns = now;
	if ((t->wait.kind != WAIT_SLEEP && t->wait.kind != WAIT_IO) || t->wait.wake_ns)
		return;
	wait = runqueue_wait(next);
	cw = bpf_map_lookup_elem(&cpu_waits, &zero);
	if (cw) {
		cw->ns = wait;
		cw->at = now;
	}
	block = wait_woken(&t->wait, now - wait);
	threshold = sclat_threshold_ns(t->threshold);
	/* Waiting for storage its calls seldom wait for: judged lower (io_threshold). */
	if (t->io_ns && t->io_ns < threshold)
		threshold = t->io_ns;
	/*
	 * The part inside this block of its waker's own wait for a CPU: a
	 * peer that was woken, then queued behind other work before it could
	 * answer. The machine's load, as this task's own runqueue time is
	 * (knobs.judge). Only for a block of a quarter of the call's threshold
	 * or more: a shorter one has less than that to take off, and the
	 * note's line is the waker's, a miss when its CPU is another, and one
	 * again at the waker's next write to it (in scripts/prog-ab's
	 * ping-pong across two CPUs, thresholds held at 10 ms, 13 ns less a
	 * switch for the ping-pong's short blocks).
	 */
	if (block >= threshold >> 2)
		t->waker_runqueue_ns += waker_wait_within(t, next, next_regs, now - wait);
	if (block <= t->wait.longest_ns)
		return;
	wait_longest(&t->wait, block);
	t->waker = (struct sclat_waker){};
	t->waker_pending = 1;
	t->longest_from_ns = from;

	/*
	 * Only a block that ends a call already slow (past its threshold, its
	 * class's when it has one) has its stack taken: every call that pays
	 * for it is an outlier, and the many short blocks of a busy machine
	 * pay nothing.
	 *
	 * Slow as its threshold judges it (knobs.judge): under service, up to
	 * its wake-up and less its runqueue time so far, so that a short sleep
	 * after a long wait for a CPU takes no stack its outlier will not carry.
	 */
	span = now - entry_ns;
	if (*(volatile __u32 *)&sclat_shared.knobs.judge == SCLAT_JUDGE_SERVICE) {
		span = t->wait.wake_ns > entry_ns ? t->wait.wake_ns - entry_ns : 0;
		span = span > t->wait.bd.runqueue_ns + t->waker_runqueue_ns
			       ? span - t->wait.bd.runqueue_ns - t->waker_runqueue_ns
			       : 0;
	}
	if (threshold == SCLAT_THRESHOLD_MASK || span < threshold)
		return;
	if (!kstack_guard_admit(t, now)) {
		__sync_fetch_and_add(&kstacks_skipped, 1);
		return;
	}
	ks = bpf_task_storage_get(&task_kstacks, next, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!ks)
		return;
	n = bpf_get_task_stack(next, ks->ip, sizeof(ks->ip), 0);
	ks->depth = n > 0 ? n / sizeof(ks->ip[0]) : 0;
	t->kstack_taken = ks->depth > 0;
	t->explain_ns += bpf_ktime_get_ns() - now;
	__sync_fetch_and_add(&kstacks_taken, 1);
}

/* A slot's block_below at its cap, in ns: the threshold is that or more (block_threshold). */
#define LANE_BLOCK_CAP_NS ((__u64)SCLAT_LANE_UNIT_MAX << SCLAT_LANE_BLOCK_SHIFT)

/*
 * The threshold word of the call in p's record, its class's if it has one:
 * what decides whether one of its blocks is long enough for a kernel stack.
 * A syscall on the short path has it in the CPU's lane, on the page the
 * switch already touches, and so has a class whose cell the lane holds; the
 * cell of any other is found here, where the task is current, once per call
 * that blocks. *index: its histogram, whose storage threshold judges it if
 * it waits for I/O (io_threshold); SCLAT_BRAKES: none (a young class's
 * stand-in, a call of a classed syscall in no class of its own).
 */
static __always_inline __u64 block_threshold(struct cpu_page *p, __u32 *index)
{
	struct cpu_entry *c = &p->rec;
	__u32 nr = c->nr & (SCLAT_MAX_SYSCALLS - 1), slot = p->lane.slot_of[nr], cell, lane_key;
	__u32 own = slot & SCLAT_LANE_SLOT, hist;
	__u64 threshold;

	*index = SCLAT_BRAKES;
	if (own && own < SCLAT_HIST_SLOTS) {
		hist = own;
		if (slot & SCLAT_LANE_CLASSED)
			hist = lane_cell_of(p, own, c->regs, &threshold);
		/* A cell the lane holds: its threshold word is there. */
		if (hist >= SCLAT_HIST_SLOTS) {
			*index = hist;
			return threshold;
		}
		/*
		 * The syscall's own (it has no classes, or the call is in none of
		 * its own), rounded down: only below the cap is it the threshold.
		 */
		if (hist) {
			if (!(slot & SCLAT_LANE_CLASSED))
				*index = own;
			threshold = (__u64) * (volatile __u16 *)&p->lane.block_below[own]
				    << SCLAT_LANE_BLOCK_SHIFT;
			return threshold != LANE_BLOCK_CAP_NS ? threshold : threshold_word(nr);
		}
	}
	if (sclat_shared.ctl[nr].classes) {
		cell = cell_select(p, c->regs, nr, &lane_key);
		if (cell == SCLAT_CELL_ASKED)
			return young_word(nr);
		cell &= SCLAT_CLASS_CELLS_MAX - 1;
		if (cell) {
			*index = SCLAT_HIST_SLOTS + cell;
			return *(volatile __u64 *)&sclat_shared.cell_threshold[cell];
		}
		return threshold_word(nr);
	}
	*index = calls_slot(nr);
	return threshold_word(nr);
}

/*
 * A parked call's task left its CPU in an I/O wait: its storage threshold,
 * read the first time (a line of the brakes that a call that never waits for
 * I/O does not touch).
 */
static __always_inline void block_io_note(struct task_entry *t)
{
	t->io = 1;
	if (!t->io_ns)
		t->io_ns = brake_io_ns(t->io_index);
}

/*
 * Whether task, leaving its CPU, waits for I/O (io_schedule(): a page being
 * read, a request of its own), rather than on a lock, which blocks in D too.
 * A plain load of the current task's field (task_state's, below).
 */
static __always_inline bool task_in_iowait(struct task_struct *task)
{
	return BPF_CORE_READ_BITFIELD(task, in_iowait);
}

/*
 * The current task (sched_switch's prev) leaves its CPU for next, at now. If
 * it is inside a measured syscall, the CPU's record moves into its task
 * storage the first time, and each time its time on the CPU and how it
 * leaves are accounted (breakdown.bpf.h). The CPU notes the task that comes
 * in and when: its time there is counted when it leaves or exits.
 */
static __always_inline __u64 cpu_switch(struct cpu_page *p, struct task_struct *prev, __u64 next,
					__u64 next_regs, __u32 kind, __u32 next_self)
{
	bool noted, owned = false, io;
	struct cpu_entry *c = &p->rec;
	struct task_entry *t;
	__u64 now;

	now = bpf_ktime_get_ns();
	noted = c->in_task == (__u64)prev;
	if (c->entry_ns)
		/* Its user registers as noted when it came in, or asked for. */
		owned = c->regs ==
			(noted && c->in_regs ? c->in_regs : (__u64)bpf_task_pt_regs(prev));
	io = kind == WAIT_IO && task_in_iowait(prev);
	if (owned && !(c->nr & CPU_NR_RESUMED)) {
		t = bpf_task_storage_get(&task_entries, prev, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
		if (t) {
			t->nr = c->nr & ~CPU_NR_IO;
			t->io = !!(c->nr & CPU_NR_IO);
			t->io_ns = 0;
			t->threshold = block_threshold(p, &t->io_index);
			if (io)
				block_io_note(t);
			t->entry_ns = c->entry_ns;
			wait_first_leave(&t->wait, c->entry_ns, now, kind, prev->thread_info.cpu);
			t->waker = (struct sclat_waker){};
			t->waker_pending = 0;
			t->back_ns = c->entry_ns;
			t->kstack_taken = 0;
			t->admitted = 0;
			t->explain_ns = 0;
			t->waker_runqueue_ns = 0;
			t->steal_ns = steal_of(c->steal_at, c->steal_base);
		}
		c->entry_ns = 0;
	} else if (owned || !(prev->flags & (TASK_PF_IDLE | TASK_PF_KTHREAD))) {
		/*
		 * Back from an earlier block of the same call, and leaving again?
		 * Resumed into the record (owned), it is parked again; its switch
		 * back unseen, or under raw_tp, it stayed parked. An idle task or
		 * a kernel thread makes no syscall: no lookup.
		 */
		t = bpf_task_storage_get(&task_entries, prev, 0, 0);
		if (owned) {
			if (t) {
				t->entry_ns = c->entry_ns;
				t->steal_ns = steal_of(c->steal_at, c->steal_base);
				/* Block I/O it submitted since it came back. */
				t->io |= !!(c->nr & CPU_NR_IO);
			}
			c->entry_ns = 0;
		}
		if (t && t->entry_ns) {
			if (io)
				block_io_note(t);
			wait_leave(&t->wait, noted ? c->in_ns : 0, now, kind,
				   prev->thread_info.cpu);
			/* Before a wake-up of its next block takes the slot. */
			waker_read(t, prev->pid);
		}
	}
	/* Noted after a call parked above read it (0: its steal then is 0). */
	if (!c->steal_at)
		c->steal_at = steal_clock_at(prev);
	c->in_task = next;
	c->cls.regs = 0;
	c->in_regs = next_regs;
	c->in_ns = now;
	c->task_self = next_self;
	return now;
}

/*
 * The state of a task leaving its CPU. sched_switch's prev_state argument
 * (Linux 5.18) says the same but for a racing wake-up, which reads as
 * runnable here: the task's own field keeps 5.15 to 5.17 supported. A plain
 * load: task is the current task, a trusted pointer, and a probe read would
 * be a helper call on every switch.
 */
static __always_inline unsigned int task_state(struct task_struct *task)
{
	return *(volatile unsigned int *)&task->__state;
}

#endif /* SCLAT_SCHED_SWITCH_BPF_H */
