/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * An outlier's ring buffer record: the burst guard that bounds how many go
 * out, then the event and its parts (where its time went and who woke it,
 * its target, the kernel stack where it waited, its user stack), built in
 * outlier_records and written at its size. Paid by outliers alone:
 * outlier_emit is out of line of the syscall path.
 *
 * Part of sclat.bpf.c, after maps.bpf.h, waker.bpf.h (waker_read) and the
 * readers of each part: breakdown.bpf.h, target.bpf.h, ustack.bpf.h and
 * syscall_regs.bpf.h.
 */
#ifndef SCLAT_OUTLIER_BPF_H
#define SCLAT_OUTLIER_BPF_H

/*
 * Whether guard g lets one more out at now, at most limit in each window of
 * window_ns, and counts it if so. Only its CPU's programs take from a
 * CPU's guards, and they never run in parallel.
 */
static __always_inline bool guard_take(struct burst_guard *g, __u64 now, __u64 window_ns,
				       __u32 limit)
{
	if (now - g->window_start_ns >= window_ns) {
		g->window_start_ns = now;
		g->count = 0;
	}
	if (g->count >= limit)
		return false;
	g->count++;
	return true;
}

/*
 * Whether the machine's budget lets one more outlier out at now (struct
 * sclat_knobs): the pace's next slot moved on by one gap, if it is no more
 * than budget_ahead_ns ahead of now. The per-CPU guard cuts a CPU's bursts;
 * this holds all CPUs together to the budget over any second.
 */
static __always_inline bool budget_take(__u64 now)
{
	__u64 gap = *(volatile __u64 *)&sclat_shared.knobs.budget_gap_ns, ahead, old, next;
	int i;

	if (!gap)
		return true;
	ahead = *(volatile __u64 *)&sclat_shared.knobs.budget_ahead_ns;
	/* A few tries: another CPU that moved it in between took a slot; so may this one. */
	for (i = 0; i < 4; i++) {
		old = *(volatile __u64 *)&sclat_shared.budget_next_ns;
		next = old > now ? old : now;
		if (next - now > ahead)
			return false;
		if (__sync_val_compare_and_swap(&sclat_shared.budget_next_ns, old, next + gap) ==
		    old)
			return true;
	}
	return false;
}

/*
 * Whether histogram index's brake lets one more outlier out this interval
 * (struct sclat_brake); every outlier that asks is counted. An atomic add on
 * a line all CPUs share: paid by outliers alone, and none while off.
 */
static __always_inline bool brake_take(__u32 index, bool far)
{
	struct sclat_brake *b;
	__u32 limit;

	if (index >= SCLAT_BRAKES)
		return true;
	b = &sclat_shared.brake[index];
	limit = far ? *(volatile __u32 *)&b->far_limit : *(volatile __u32 *)&b->limit;
	if (!limit)
		return true;
	return (__s32)(limit - __sync_fetch_and_add(&b->crossed, 1)) > 0;
}

/*
 * Whether this CPU's outlier at now may carry its user stack
 * (ustacks_per_cpu_per_sec): a costly one (USTACK_COSTLY) while the CPU has
 * any left, another while it has more than the half kept for costly ones.
 */
static __always_inline bool ustack_allowed(__u64 now, bool costly)
{
	__u32 zero = 0, limit = ustacks_per_cpu_per_sec;
	struct burst_guard *g;

	g = bpf_map_lookup_elem(&ustack_guards, &zero);
	if (!costly)
		limit -= limit / 2;
	return g && guard_take(g, now, USTACK_WINDOW_NS, limit);
}

/* A syscall at sys_exit: from its CPU's record, or parked with its task. */
struct exiting {
	__u64 entry_ns;
	__u64 regs; /* the task's user registers: its arguments */
	__u32 nr;
	struct task_entry *parked; /* NULL: it never left its CPU */
	__u64 in_ns;		   /* parked: when it came back onto this CPU, 0 if unseen */
	/* An outlier's: */
	__u64 exit_ns, latency_ns, threshold;
	__u64 judged_ns;	 /* what its threshold judged (knobs.judge) */
	__u64 irq_ns;		 /* its time in interrupts */
	__u64 waker_runqueue_ns; /* its wakers' waits for a CPU inside its blocks */
	__u64 steal_ns;		 /* the host's time on its vCPU while it ran (steal.bpf.h) */
	long ret;
	struct sclat_hist *h;
	__u32 cell;
};

/* The wait part of a call that left its CPU, at parts[0]; returns its size. */
static __always_inline __u32 wait_part_add(struct outlier_record *r, struct task_entry *t,
					   __u64 in_ns, __u64 exit_ns, __u32 cpu)
{
	struct sclat_part *part = (void *)r->parts;
	struct sclat_wait *w = (void *)(part + 1);

	part->kind = SCLAT_PART_WAIT;
	part->len = sizeof(*w);
	wait_exit(&t->wait, in_ns, exit_ns, cpu, &w->breakdown);
	w->switches = t->wait.switches;
	w->waker = t->waker;
	return WAIT_PART_SIZE;
}

/* Its stretches off the CPU, after the wait part, which closed the last; returns its size. */
static __always_inline __u32 off_cpu_part_add(struct outlier_record *r, struct task_entry *t)
{
	struct sclat_part *part = (void *)r->parts + WAIT_PART_SIZE;
	struct sclat_off_cpu_list *l = (void *)(part + 1);
	__u32 listed = t->wait.switches;

	if (listed > SCLAT_OFF_CPU_MAX)
		listed = SCLAT_OFF_CPU_MAX;
	l->count = t->wait.switches;
	l->waker_index = t->wait.longest_index;
	__builtin_memcpy(l->span, t->wait.span, sizeof(l->span));
	part->kind = SCLAT_PART_OFF_CPU;
	part->len = offsetof(struct sclat_off_cpu_list, span) + listed * sizeof(l->span[0]);
	return SCLAT_PART_SIZE(part->len);
}

/*
 * The target part of a call of syscall nr by task, at part, if its rule names
 * one; returns its size (0: none). Outliers and calls in flight share it.
 */
static __always_inline __u32 target_part_fill(struct sclat_part *part, struct task_struct *task,
					      __u32 nr, const __u64 *args)
{
	struct sclat_target_rule rule = target_rules[nr & (SCLAT_MAX_SYSCALLS - 1)];
	struct sclat_target *tg = (void *)(part + 1);
	__u32 len;

	if (rule.kind == SCLAT_RULE_NONE)
		return 0;
	__builtin_memset(tg, 0, sizeof(*tg));
	if (!target_describe(tg, task, &rule, args))
		return 0;
	len = sizeof(*tg) + tg->str_len[0] + tg->str_len[1];
	if (len > sizeof(*tg) + SCLAT_TARGET_STR_MAX)
		return 0;
	part->kind = SCLAT_PART_TARGET;
	part->len = len;
	return SCLAT_PART_SIZE(len);
}

/* The target part of syscall nr at parts[off], if its rule names one; returns its size. */
static __always_inline __u32 target_part_add(struct outlier_record *r, __u32 off, __u32 nr,
					     const __u64 *args)
{
	if (off > WAIT_PART_SIZE + OFF_CPU_PART_MAX)
		return 0;
	return target_part_fill((void *)r->parts + off, bpf_get_current_task_btf(), nr, args);
}

/* The kernel stack part at parts[off] from the task's storage; returns its size. */
static __always_inline __u32 kstack_part_add(struct outlier_record *r, __u32 off)
{
	struct sclat_kstack *ks;
	struct sclat_part *part;
	__u32 depth;

	ks = bpf_task_storage_get(&task_kstacks, bpf_get_current_task_btf(), 0, 0);
	if (!ks || off > WAIT_PART_SIZE + OFF_CPU_PART_MAX + TARGET_PART_MAX)
		return 0;
	depth = ks->depth;
	if (!depth || depth > SCLAT_KSTACK_MAX)
		return 0;
	part = (void *)r->parts + off;
	part->kind = SCLAT_PART_KSTACK;
	part->len = offsetof(struct sclat_kstack, ip) + depth * sizeof(ks->ip[0]);
	__builtin_memcpy(part + 1, ks, sizeof(*ks));
	return SCLAT_PART_SIZE(part->len);
}

/*
 * The user stack part at parts[off]: registers and the stack copied from sp
 * up; costly: the outlier took USTACK_COSTLY times its threshold or more.
 */
static __always_inline __u32 ustack_part_add(struct outlier_record *r, __u32 off, __u64 now,
					     bool costly)
{
	struct sclat_part *part;
	struct sclat_ustack *u;

	if (off > WAIT_PART_SIZE + OFF_CPU_PART_MAX + TARGET_PART_MAX + KSTACK_PART_MAX)
		return 0;
	part = (void *)r->parts + off;
	u = (void *)(part + 1);
	/*
	 * A stack makes the record up to 8 KiB bigger: when the ring buffer is
	 * a quarter full, the outliers go on without it, so that a burst
	 * fills the buffer with outliers, not stacks; so do this CPU's past
	 * ustacks_per_cpu_per_sec in a second.
	 */
	if (bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) >
	    bpf_ringbuf_query(&events, BPF_RB_RING_SIZE) / 4) {
		__builtin_memset(u->regs, 0, sizeof(u->regs));
		u->size = 0;
		u->flags = SCLAT_USTACK_SKIPPED;
	} else if (!ustack_allowed(now, costly)) {
		__builtin_memset(u->regs, 0, sizeof(u->regs));
		u->size = 0;
		u->flags = SCLAT_USTACK_SKIPPED | SCLAT_USTACK_BUDGET;
	} else {
		ustack_capture(u, SCLAT_USTACK_BYTES);
	}
	part->kind = SCLAT_PART_USTACK;
	part->len = offsetof(struct sclat_ustack, stack) + u->size;
	return SCLAT_PART_SIZE(part->len);
}

/*
 * The outlier path: the brake, the burst guard, the budget, then one ring
 * buffer record with what explains it. Not inlined: the registers it needs
 * would otherwise be saved on the stack on every call's path, outlier or not.
 */
static __noinline void outlier_emit(const struct exiting *f)
{
	__u32 burst = sclat_shared.knobs.guard_burst;
	__u64 exit_ns = f->exit_ns, latency_ns = f->latency_ns, threshold = f->threshold;
	struct task_entry *t = f->parked;
	struct sclat_hist *h = f->h;
	struct outlier_record *r;
	struct burst_guard *g;
	struct sclat_event *e;
	__u32 zero = 0, off;
	__u64 id, explain_ns = 0, wake;

	/* A call admitted at its wake-up was counted then (kstack_guard_admit()). */
	if (burst && !(t && t->admitted)) {
		g = bpf_map_lookup_elem(&guards, &zero);
		if (!g)
			return;
		if (!guard_take(g, exit_ns, sclat_shared.knobs.guard_window_ns, burst)) {
			h->throttled++;
			return;
		}
	}
	if (!(t && t->admitted) && !budget_take(exit_ns)) {
		h->throttled++;
		return;
	}

	r = bpf_map_lookup_elem(&outlier_records, &zero);
	if (!r)
		return;
	e = &r->e;
	id = bpf_get_current_pid_tgid();
	e->entry_ns = f->entry_ns;
	e->latency_ns = latency_ns;
	e->threshold_ns = sclat_threshold_ns(threshold);
	e->threshold_gen = sclat_threshold_gen(threshold);
	e->cell = f->cell;
	e->ret = f->ret;
	syscall_args_read(f->regs, e->args);
	e->pid = id >> 32;
	e->tid = (__u32)id;
	e->nr = f->nr;
	e->cpu = bpf_get_smp_processor_id();
	bpf_get_current_comm(e->comm, sizeof(e->comm));

	off = 0;
	if (t) {
		waker_read(t, (__u32)bpf_get_current_pid_tgid());
		off = wait_part_add(r, t, f->in_ns, exit_ns, e->cpu);
		off += off_cpu_part_add(r, t);
		explain_ns = t->explain_ns;
	}
	off += target_part_add(r, off, f->nr, e->args);
	if (t && t->kstack_taken)
		off += kstack_part_add(r, off);
	if (user_stacks)
		off += ustack_part_add(r, off, exit_ns,
				       f->judged_ns / USTACK_COSTLY >=
					       sclat_threshold_ns(threshold));
	e->irq_ns = f->irq_ns;
	e->judged_ns = f->judged_ns;
	e->waker_runqueue_ns = f->waker_runqueue_ns;
	e->steal_ns = f->steal_ns;
	e->explain_ns = explain_ns + bpf_ktime_get_ns() - exit_ns;
	if (off > OUTLIER_PARTS_MAX)
		return;
	/*
	 * No wake-up per outlier: the reader polls every 20 to 100 ms, and a
	 * wake-up is a context switch on a CPU of the machine's for each
	 * outlier. Past an eighth of the buffer it is woken, so as not to lose
	 * a burst.
	 */
	wake = bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) >
			       bpf_ringbuf_query(&events, BPF_RB_RING_SIZE) / 8
		       ? BPF_RB_FORCE_WAKEUP
		       : BPF_RB_NO_WAKEUP;
	if (bpf_ringbuf_output(&events, r, sizeof(*e) + off, wake)) {
		h->drops++;
		return;
	}
	h->outliers++;
}

#endif /* SCLAT_OUTLIER_BPF_H */
