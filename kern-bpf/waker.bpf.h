/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Who woke a task blocked in a syscall: sched_waking notes the waker (a
 * task, or an interrupt) in the woken thread's slot of wake_notes, and the
 * woken task reads it back when its call needs it: after its longest block,
 * or for an outlier. The waker writes none of the woken task's lines.
 *
 * Part of sclat.bpf.c, after cpu_page.bpf.h, maps.bpf.h and
 * syscall_regs.bpf.h.
 */
#ifndef SCLAT_WAKER_BPF_H
#define SCLAT_WAKER_BPF_H

/* The slot that notes thread tid's waker. */
static __always_inline struct wake_note *wake_note_of(__u32 tid)
{
	__u32 i = sclat_wake_slot(tid, wake_slots_mask);

	return bpf_map_lookup_elem(&wake_notes, &i);
}

/*
 * The waker of t's longest block, if its note is still in its thread's
 * (tid) slot: once per block that became the call's longest, when the call
 * leaves its CPU again (the next wake-up takes the slot) or is an outlier.
 */
static __always_inline void waker_read(struct task_entry *t, __u32 tid)
{
	struct wake_note *n;
	struct sclat_waker w;
	__u64 wake_ns;

	if (!t->waker_pending)
		return;
	t->waker_pending = 0;
	n = wake_note_of(tid);
	if (!n || *(volatile __u32 *)&n->tid != tid)
		goto lost;
	wake_ns = n->wake_ns;
	__builtin_memcpy(&w, &n->waker, sizeof(w));
	barrier();
	/*
	 * Still the same thread's, and not of an earlier block. Nor of a later
	 * one: the longest block's note is read before the call blocks again.
	 */
	if (*(volatile __u32 *)&n->tid != tid || wake_ns < t->longest_from_ns)
		goto lost;
	t->waker = w;
	return;
lost:
	__sync_fetch_and_add(&wakers_lost, 1);
}

/* The size of a task's kernel stack when the kernel does not say (!CONFIG_VMAP_STACK). */
#define TASK_STACK_SIZE_DEFAULT (16 << 10)

/*
 * Whether the call in p's record is task's, made since it came onto this
 * CPU (its user registers are the ones the switch in noted).
 */
static __always_inline bool record_call_of(struct cpu_page *p, struct task_struct *task)
{
	return p->rec.entry_ns && p->rec.in_task == (__u64)task && p->rec.regs == p->rec.in_regs;
}

/*
 * Whether the tracepoint that gave this program ctx fired in the context of
 * task, the current task.
 * The tracepoint's arguments (ctx) are on the kernel stack it runs on: an
 * interrupt that came from kernel mode runs on a stack of its own (x86_64,
 * arm64); one that came from user mode runs on the task's stack, whose user
 * registers then show no syscall in progress. Without CONFIG_KALLSYMS_ALL the
 * per-CPU preempt count that says it directly is out of reach.
 */
static __always_inline bool in_task_context(void *ctx, struct cpu_page *p, struct task_struct *task)
{
	struct pt_regs *regs;
	__u64 size;

	/* Read once per CPU: the stack's area is a page of its own, a TLB miss at every read. */
	size = p ? p->rec.stack_size : 0;
	if (!size) {
		size = BPF_CORE_READ(task, stack_vm_area, size);
		if (!size)
			size = TASK_STACK_SIZE_DEFAULT;
		if (p)
			p->rec.stack_size = size;
	}
	if ((__u64)ctx - (__u64)task->stack >= size)
		return false;
	/* Never in user mode: no interrupt from there runs on their stack. */
	if (task->flags & (TASK_PF_KTHREAD | TASK_PF_IO_WORKER))
		return true;
	/*
	 * A syscall of the task in the CPU's record, since it came in: it is in
	 * kernel mode, no interrupt from user mode (the waker of most wake-ups,
	 * without a helper call). A parked call, or an unseen switch, asks.
	 */
	if (p && record_call_of(p, task))
		return true;
	regs = (struct pt_regs *)bpf_task_pt_regs(task);
	return regs && SYSCALL_REGS_IN_SYSCALL(regs);
}

/* Who is waking: the current task, or an interrupt (or softirq) on top of it. */
static __always_inline void waker_note(void *ctx, struct cpu_page *p, struct task_struct *task,
				       struct sclat_waker *w)
{
	if (!in_task_context(ctx, p, task)) {
		*w = (struct sclat_waker){ .context = SCLAT_WAKER_INTERRUPT };
		return;
	}
	/* Plain loads, no helper call: comm is NUL-terminated in place. */
	w->context = SCLAT_WAKER_TASK;
	w->pid = task->tgid;
	w->tid = task->pid;
	*(__u64 *)&w->comm[0] = *(__u64 *)&task->comm[0];
	*(__u64 *)&w->comm[8] = *(__u64 *)&task->comm[8];
}

/*
 * The part inside the block of task's call (t: it left its CPU at
 * t->wait.out_ns, and was queued to run at queued; user registers at regs)
 * of its waker's own wait for a CPU, as task_woken noted it in the thread's
 * slot. A softirq's wake-up counts only for a call on the sender's peer
 * socket. Read as waker_read does: another thread's wake-up may take the
 * slot meanwhile.
 */
static __always_inline __u64 waker_wait_within(struct task_entry *t, struct task_struct *task,
					       __u64 regs, __u64 queued)
{
	struct wake_note *n = wake_note_of(task->pid);
	__u64 ns, end;
	__u32 ports;

	if (!n || *(volatile __u32 *)&n->tid != task->pid)
		return 0;
	/* Most wakers had not waited: one load, and out. */
	ns = n->waker_wait_ns;
	if (!ns)
		return 0;
	end = n->waker_wait_end_ns;
	ports = n->waker_ports;
	barrier();
	if (*(volatile __u32 *)&n->tid != task->pid || ns > end || end <= t->wait.out_ns ||
	    end > queued)
		return 0;
	/* A softirq's (its ports; a task's have none): for the sender's peer socket only. */
	if (ports && call_inet_ports(task, t->nr, regs) != ports)
		return 0;
	return end - wait_later(end - ns, t->wait.out_ns);
}

/*
 * p is being woken (sched_waking runs in the waker's context): the waker
 * notes itself in p's slot, whether or not p is in a measured syscall, which
 * only p's storage says and only p's CPU reads cheaply.
 */
static __always_inline void task_woken(void *ctx, struct task_struct *p)
{
	struct task_struct *task;
	struct cpu_page *c;
	struct cpu_wait *cw;
	struct wake_note *n;
	__u32 zero = 0, ports;

	/* A kernel thread makes no syscall. */
	if (!p || p->flags & TASK_PF_KTHREAD)
		return;
	n = wake_note_of(p->pid);
	if (!n)
		return;
	task = bpf_get_current_task_btf();
	c = cpu_page_get(true);
	n->tid = 0;
	barrier();
	n->wake_ns = bpf_ktime_get_ns();
	waker_note(ctx, c, task, &n->waker);
	n->waker_wait_ns = 0;
	n->waker_ports = 0;
	/*
	 * The current task came onto this CPU last, back from a block in a
	 * syscall, after a wait for it (task_back): the waker's wait, when the
	 * waker is that task. Or a softirq on top of it, while it is in a call
	 * on a TCP or UDP socket: a send over the loopback delivers, and wakes
	 * the reader, from the softirq that the sender's own call runs.
	 * task_back keeps that one only for a call on the sender's peer socket
	 * (the ports, mirrored): whatever else an interrupt wakes there has
	 * nothing to do with the task under it.
	 */
	cw = bpf_map_lookup_elem(&cpu_waits, &zero);
	if (!c || !cw || cw->at != c->rec.in_ns || c->rec.in_task != (__u64)task)
		goto done;
	if (n->waker.context != SCLAT_WAKER_TASK) {
		if (!record_call_of(c, task))
			goto done;
		ports = call_inet_ports(task, c->rec.nr, c->rec.regs);
		if (!ports)
			goto done;
		n->waker_ports = ports << 16 | ports >> 16;
	}
	n->waker_wait_ns = cw->ns;
	n->waker_wait_end_ns = cw->at;
done:
	barrier();
	n->tid = p->pid;
}

#endif /* SCLAT_WAKER_BPF_H */
