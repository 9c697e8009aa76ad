/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sys_enter and sys_exit: the path of every syscall. sys_enter claims the
 * CPU's record; sys_exit takes the latency and, for most calls, counts it on
 * the CPU's lane alone (the short path: lane_count, then the pending list,
 * moved into the histograms one list at a time). A call past its
 * threshold, one the lane has no entry for, or one that left its CPU takes
 * the long way (syscall_done), out of line, so that the short path saves no
 * registers for it.
 *
 * Part of sclat.bpf.c, after cpu_page.bpf.h, maps.bpf.h, scope.bpf.h
 * (task_traced), classes.bpf.h and outlier.bpf.h (outlier_emit).
 */
#ifndef SCLAT_SYSCALL_BPF_H
#define SCLAT_SYSCALL_BPF_H

/*
 * sys_enter: the CPU's record, claimed for the current task (whose user
 * registers are at regs) if it is traced. Its arguments stay where the entry
 * code saved them (syscall_regs.bpf.h).
 */
/*
 * A call of the 32-bit ABIs has a number of another table: an x32 one has
 * X32_SYSCALL_BIT, an ia32 task's comes from its 32-bit code segment.
 * Named from the x86_64 table they would be other syscalls (ia32's 162,
 * nanosleep, is x86_64's sync): they are counted apart, together, as
 * SCLAT_NR_COMPAT. The code segment is in the registers the entry code just
 * saved, a load of a hot line (the task's TS_COMPAT cost sys_enter 19 ns a
 * run, scripts/prog-ab); before bpf_rdonly_cast (Linux 6.2) that flag it is,
 * which int $0x80 in 64-bit code sets too. (arm64's 32-bit tasks are not
 * told apart yet.)
 */
#if defined(__TARGET_ARCH_x86)
#define X32_SYSCALL_BIT 0x40000000UL /* arch/x86/include/uapi/asm/unistd.h */
#define TS_COMPAT	0x0002	     /* arch/x86/include/asm/thread_info.h: an ia32 syscall */
#define USER32_CS	0x23	     /* __USER32_CS: 32-bit user code */

static __always_inline bool syscall_is_x32(long id)
{
	return ((unsigned long)id & ~0x3ffUL) == X32_SYSCALL_BIT;
}

static __always_inline bool syscall_is_ia32(__u64 regs)
{
	if (bpf_rdonly_cast)
		return kernel_cast(regs, struct pt_regs)->cs == USER32_CS;
	return bpf_get_current_task_btf()->thread_info.status & TS_COMPAT;
}
#else
static __always_inline bool syscall_is_x32(long id)
{
	return false;
}

static __always_inline bool syscall_is_ia32(__u64 regs)
{
	return false;
}
#endif

static __always_inline void syscall_enter(__u64 *ctx, bool bounded)
{
	struct cpu_page *p = cpu_page_get(bounded);
	struct cpu_entry *c;
	__u64 regs;
	long id;

	if (!p)
		return;
	/* Read after the page is found: held while it is, they were spilled to the stack. */
	regs = ctx[0];
	id = ctx[1];
	c = &p->rec;
	if (((unsigned long)id >= SCLAT_MAX_SYSCALLS && !syscall_is_x32(id)) ||
	    !task_traced(c, regs))
		return;
	if (syscall_is_x32(id) || syscall_is_ia32(regs))
		id = SCLAT_NR_COMPAT;
	/* Incomplete until entry_ns is set again, last (see struct cpu_entry). */
	c->entry_ns = 0;
	barrier();
	c->regs = regs;
	c->nr = id;
	c->steal_base = steal_read(c->steal_at);
	barrier();
	c->entry_ns = bpf_ktime_get_ns();
}

static __always_inline __u32 slot_assign(struct sclat_syscall_ctl *ctl)
{
	__u32 slot, prev;

	slot = __sync_fetch_and_add(&sclat_shared.next_slot, 1) + 1;
	if (slot >= SCLAT_HIST_SLOTS)
		slot = SCLAT_SLOT_SHARED;
	/* Another CPU may have won the race for this syscall: use its slot. */
	prev = __sync_val_compare_and_swap(&ctl->slot, SCLAT_SLOT_NONE, slot);
	return prev == SCLAT_SLOT_NONE ? slot : prev;
}

/* The threshold word of syscall nr (< SCLAT_MAX_SYSCALLS): one load, threshold and generation. */
static __always_inline __u64 threshold_word(__u32 nr)
{
	return *(volatile __u64 *)&sclat_shared.ctl[nr].threshold;
}

/*
 * The threshold word of a call of syscall nr (< SCLAT_MAX_SYSCALLS) in a
 * class with no cell yet (SCLAT_CELL_ASKED): its young_threshold, or the
 * syscall's own when userspace set none.
 */
static __always_inline __u64 young_word(__u32 nr)
{
	__u64 word = *(volatile __u64 *)&sclat_shared.young_threshold[nr];

	return word ? word : threshold_word(nr);
}

/*
 * The histogram that counts a call of syscall nr (< SCLAT_MAX_SYSCALLS) on
 * this CPU, the threshold word it is compared with, and its class cell (0:
 * the syscall's own); NULL if none. p is the CPU's page, regs the task's
 * user registers.
 */
static __always_inline struct sclat_hist *hist_select(__u32 nr, __u64 *threshold, __u32 *cell,
						      struct cpu_page *p, __u64 regs)
{
	struct sclat_syscall_ctl *ctl = &sclat_shared.ctl[nr];
	__u32 slot = ctl->slot, index, lane_key = 0, route = 0;
	struct sclat_hist *h;

	if (ctl->classes) {
		route = cell_select(p, regs, nr, &lane_key);
		*cell = route & (SCLAT_CLASS_CELLS_MAX - 1);
		if (route < SCLAT_CLASS_CELLS_MAX && *cell) {
			index = SCLAT_HIST_SLOTS + *cell;
			h = bpf_map_lookup_elem(&hists, &index);
			*threshold = *(volatile __u64 *)&sclat_shared.cell_threshold[*cell];
			if (h) {
				lane_cell_fill(&p->lane, lane_key, index, *threshold);
				return h;
			}
		}
	}
	if (slot == SCLAT_SLOT_NONE)
		slot = slot_assign(ctl);
	if (slot >= SCLAT_HIST_SLOTS)
		slot = SCLAT_HIST_SHARED;
	*cell = 0;
	/*
	 * A class not answered yet counts with its syscall, judged by the young
	 * threshold, the long way (a tick at most); a refused one at its
	 * syscall's, on the short path too.
	 */
	if (route == SCLAT_CELL_ASKED) {
		*threshold = young_word(nr);
	} else {
		*threshold = threshold_word(nr);
		if (slot != SCLAT_HIST_SHARED)
			lane_cell_fill(&p->lane, lane_key, slot, *threshold);
	}
	return bpf_map_lookup_elem(&hists, &slot);
}

/* The lane slot counting syscall nr's calls (nr < SCLAT_MAX_SYSCALLS): its own, or the shared. */
static __always_inline __u32 calls_slot(__u32 nr)
{
	__u32 slot = sclat_shared.ctl[nr].slot;

	return slot < SCLAT_HIST_SLOTS ? slot : SCLAT_HIST_SHARED;
}

/*
 * Whether the brake at index (a slot's, or SCLAT_HIST_SLOTS + a cell's) is of
 * a threshold of the call's own, syscall nr's or its class cell's: not a
 * young class's stand-in (cell 0 of a syscall with classes), which knows
 * nothing of the class's calls.
 */
static __always_inline bool brake_own(__u32 index, __u32 nr, __u32 cell)
{
	return index < SCLAT_BRAKES && (cell || !*(volatile __u32 *)&sclat_shared.ctl[nr].classes);
}

/* The storage threshold of the histogram at index (struct sclat_brake's io_ns); 0: none. */
static __always_inline __u32 brake_io_ns(__u32 index)
{
	return index < SCLAT_BRAKES ? *(volatile __u32 *)&sclat_shared.brake[index].io_ns : 0;
}

/*
 * The threshold word a call that waited for storage is judged by, in the
 * histogram at index, whose threshold word is threshold: its io_ns when that
 * is lower, with the threshold's generation (the basis that set both); a
 * young class's stand-in has none of the class's (brake_own).
 */
static __always_inline __u64 io_threshold(__u32 index, __u32 nr, __u32 cell, __u64 threshold)
{
	__u32 io_ns;

	if (!brake_own(index, nr, cell))
		return threshold;
	io_ns = brake_io_ns(index);
	if (!io_ns || io_ns >= sclat_threshold_ns(threshold))
		return threshold;
	return sclat_threshold_word(io_ns, sclat_threshold_gen(threshold));
}

/*
 * sys_exit of a call, past its record: count it (as weight calls: see
 * lane_sample), and emit it if it crossed its threshold. p is its CPU's
 * page, t its task's (NULL: it never left its CPU); io: it waited for
 * storage (CPU_NR_IO); steal_ns: the host's time on its CPU while it ran
 * (steal_of), taken as at most its latency.
 */
static __always_inline void syscall_done(struct cpu_page *p, __u64 regs, long ret,
					 struct task_entry *t, __u64 entry_ns, __u32 nr,
					 __u64 in_ns, __u64 exit_ns, __u32 weight, bool io,
					 __u64 steal_ns)
{
	__u64 latency_ns = exit_ns - entry_ns, judged_ns = latency_ns, irq_ns, away, threshold, own;
	struct sclat_hist *h;
	__u32 cell = 0, index;

	/* The verifier needs the bound; sys_enter only records nr < SCLAT_MAX_SYSCALLS. */
	nr &= SCLAT_MAX_SYSCALLS - 1;
	h = hist_select(nr, &threshold, &cell, p, regs);
	if (!h)
		return;
	/*
	 * What the CPU gave to others meanwhile (SCLAT_JUDGE_SERVICE): the
	 * short path, which saw the whole latency under the threshold, needs
	 * none of this.
	 */
	irq_ns = irq_time_of(&p->rec, entry_ns, latency_ns);
	if (steal_ns > latency_ns)
		steal_ns = latency_ns;
	if (*(volatile __u32 *)&sclat_shared.knobs.judge == SCLAT_JUDGE_SERVICE) {
		away = irq_ns + steal_ns +
		       (t ? wait_runqueue_at_exit(&t->wait, in_ns, exit_ns) + t->waker_runqueue_ns
			  : 0);
		judged_ns = away < latency_ns ? latency_ns - away : 0;
	}
	p->lane.slot[calls_slot(nr)].calls++;
	index = cell ? SCLAT_HIST_SLOTS + cell : calls_slot(nr);
	own = threshold;
	if (io) {
		h->io += weight;
		threshold = io_threshold(index, nr, cell, threshold);
	}
	if (judged_ns >= sclat_threshold_ns(threshold) &&
	    sclat_threshold_ns(threshold) != SCLAT_THRESHOLD_MASK) {
		/*
		 * Far past a threshold of its own (sclat_brake), or a wait for
		 * storage its calls seldom make: not a shift of the normal.
		 */
		bool far = threshold != own ||
			   (brake_own(index, nr, cell) &&
			    *(volatile __u32 *)&sclat_shared.brake[index].apart &&
			    judged_ns / SCLAT_BRAKE_FAR >= sclat_threshold_ns(threshold));
		bool taken = brake_take(index, far);

		h->bucket[sclat_hist_bucket(judged_ns) & (SCLAT_HIST_BUCKETS - 1)] += weight;
		if (!taken) {
			h->braked++;
			return;
		}
		struct exiting f = {
			.entry_ns = entry_ns,
			.regs = regs,
			.nr = nr,
			.parked = t,
			.in_ns = in_ns,
			.exit_ns = exit_ns,
			.latency_ns = latency_ns,
			.judged_ns = judged_ns,
			.irq_ns = irq_ns,
			.waker_runqueue_ns = t ? t->waker_runqueue_ns : 0,
			.steal_ns = steal_ns,
			.threshold = threshold,
			.ret = ret,
			.h = h,
			.cell = cell,
		};

		outlier_emit(&f);
		return;
	}
	h->bucket[sclat_hist_bucket(judged_ns) & (SCLAT_HIST_BUCKETS - 1)] += weight;
}

/* The bucket of latency v: always below SCLAT_HIST_BUCKETS. */
static __always_inline __u32 hist_bucket(__u32 v)
{
	if (v < SCLAT_HIST_SMALL_NS) {
		/* The mask, kept: it bounds the index for the verifier in any register. */
		barrier_var(v);
		return hist_bucket_small[v & (SCLAT_HIST_SMALL_NS - 1)];
	}
	return sclat_hist_bucket(v) & (SCLAT_HIST_BUCKETS - 1);
}

/*
 * Moves the CPU's lane's pending calls into their histograms, in one
 * straight loop: a run of calls of one histogram and weight (the common case:
 * a thread that makes the same calls) looks it up once. flush_seq tells a
 * reader of both that it may have seen a call in neither (never in both).
 * A global function: the verifier walks its loop once, not at each push
 * that may call it; it finds the CPU's page again (one call in
 * SCLAT_PENDING_MAX).
 */
__noinline int pending_flush(void)
{
	__u64 pend, run = ~0ULL; /* the run's pend >> 32: its histogram and weight */
	struct cpu_page *p = cpu_page_get(true);
	struct sclat_cpu_lane *lane;
	struct sclat_hist *h = NULL;
	__u32 i, index, weight = 0;

	if (!p)
		return 0;
	lane = &p->lane;
	lane->flush_seq++;
	barrier();
	for (i = 0; i < SCLAT_PENDING_MAX; i++) {
		pend = lane->pend[i];
		if (pend >> 32 != run) {
			run = pend >> 32;
			index = sclat_pend_hist(pend);
			h = bpf_map_lookup_elem(&hists, &index);
			weight = sclat_pend_weight(pend);
		}
		if (h)
			h->bucket[hist_bucket(sclat_pend_ns(pend))] += weight;
	}
	lane->pend_n = 0;
	barrier();
	lane->flush_seq++;
	return 0;
}

/*
 * A call under its slot's floor is sampled: the weight it counts with, or 0
 * when it is passed over. The gaps between sampled calls are drawn at
 * random, uniform in 1 .. 2 * sample_n - 1 (mean sample_n), so that no
 * pattern of calls beats in step with them: by a xorshift generator (seeded
 * from the kernel's) and a multiply, not a helper call and a division, which
 * cost a sampled call about 10 ns more (prog-ab).
 */
static __always_inline __u32 lane_sample(struct cpu_page *p)
{
	__u32 left = p->rec.sample_left, n, x;

	if (left) {
		p->rec.sample_left = left - 1;
		return 0;
	}
	n = *(volatile __u32 *)&p->lane.sample_n;
	if (n <= 1)
		return 1;
	if (n > SCLAT_SAMPLE_MAX)
		n = SCLAT_SAMPLE_MAX;
	x = p->rec.sample_rand;
	if (!x)
		x = bpf_get_prandom_u32() | 1;
	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	p->rec.sample_rand = x;
	/* x * (2n - 1) / 2^32: uniform in 0 .. 2n - 2. */
	p->rec.sample_left = (__u64)x * (2 * n - 1) >> 32;
	return n;
}

/*
 * pend onto the lane's pending list. The push that fills it empties it, so
 * it always has room (the mask is for the verifier; pend_n past the end
 * would be emptied by the same test).
 */
static __always_inline void pend_push(struct sclat_cpu_lane *lane, __u64 pend)
{
	__u32 n = lane->pend_n;

	lane->pend[n & (SCLAT_PENDING_MAX - 1)] = pend;
	barrier();
	lane->pend_n = n + 1;
	if (n + 1 >= SCLAT_PENDING_MAX)
		pending_flush();
}

/*
 * lane_count of a classed syscall's call (slot: its slot). One under the
 * slot's floor is an outlier in no class: only a sample of those is classed
 * and counted in the histograms (lane_sample).
 */
static __always_inline __u32 lane_count_classed(struct cpu_page *p, __u32 slot, __u64 latency_ns,
						__u64 regs)
{
	struct sclat_cpu_lane *lane = &p->lane;
	__u32 hist, weight = 1;
	__u64 threshold;

	if (!slot || slot >= SCLAT_HIST_SLOTS || latency_ns >> 32)
		return 1;
	if (latency_ns >> SCLAT_LANE_UNIT_SHIFT < *(volatile __u16 *)&lane->slot[slot].floor) {
		weight = lane_sample(p);
		if (!weight) {
			lane->slot[slot].calls++;
			return 0;
		}
	}
	hist = lane_cell_of(p, slot, regs, &threshold);
	if (!hist || latency_ns >= sclat_threshold_ns(threshold))
		return weight;
	lane->slot[slot].calls++;
	pend_push(lane, sclat_pend(latency_ns, hist) | sclat_pend_weight_bits(weight));
	return 0;
}

/*
 * The short path, on the CPU's page only: a call of syscall nr whose lane
 * entry is set (a slot of its own; with classes, a cell the lane holds),
 * under its threshold and under 2^32 ns, is counted in its slot's calls and
 * goes to the pending list; under its slot's floor, only one in sample_n
 * goes (lane_sample). Returns 0 when done, else the weight the call counts
 * with on the long way (1 but for a sampled call: lane_count_classed). regs
 * are the call's user registers.
 */
static __always_inline __u32 lane_count(struct cpu_page *p, __u32 nr, __u64 latency_ns, __u64 regs)
{
	struct sclat_cpu_lane *lane = &p->lane;
	__u32 slot = lane->slot_of[nr & (SCLAT_MAX_SYSCALLS - 1)], hist = slot & SCLAT_LANE_SLOT;
	__u64 units = latency_ns >> SCLAT_LANE_UNIT_SHIFT;
	struct sclat_lane_slot *e;
	__u32 weight;

	if (slot & SCLAT_LANE_CLASSED)
		return lane_count_classed(p, hist, latency_ns, regs);
	e = &lane->slot[hist];
	/*
	 * Under the floor, which is under below (0 without a slot: the
	 * compare fails, as for 2^32 ns or more: 2^28 units).
	 */
	if (units < *(volatile __u16 *)&e->floor) {
		weight = lane_sample(p);
	} else {
		/* No slot, a slot past the lane's, 2^32 ns or more: not under below (its ABI). */
		if (units >= *(volatile __u16 *)&e->below)
			return 1;
		weight = 1;
	}
	e->calls++;
	/* One push for both ways: the verifier walks the flush it may call once. */
	if (weight)
		pend_push(lane, sclat_pend(latency_ns, hist) | sclat_pend_weight_bits(weight));
	return 0;
}

/*
 * sys_exit of a call whose wait account is in its task's storage, where
 * sched_switch parked it: still parked there (exit_ns 0: counted here), or
 * resumed into the CPU's record when the task came back (call_resume), and
 * found by the short path at exit_ns to be an outlier, or off its way, as
 * weight calls; its caller then clears the record. A global function: the
 * verifier walks it once, whichever call reaches it, and its arguments are
 * plain numbers; it finds the task's user registers and the CPU's page again.
 */
__noinline int syscall_exit_parked(long ret, __u64 exit_ns, __u32 weight)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u64 regs = (__u64)bpf_task_pt_regs(task), entry_ns;
	struct cpu_page *p = cpu_page_get(true);
	struct task_entry *t;
	struct cpu_entry *c;
	__u64 steal_ns;

	if (!p)
		return 0;
	c = &p->rec;
	t = bpf_task_storage_get(&task_entries, task, 0, 0);
	if (exit_ns) {
		entry_ns = c->entry_ns;
		steal_ns = steal_of(c->steal_at, c->steal_base);
		/* Resumed: block I/O it submitted since it came back. */
		if (t && (c->nr & CPU_NR_IO))
			t->io = 1;
	} else {
		entry_ns = t ? t->entry_ns : 0;
		if (!t || !entry_ns)
			return 0;
		/* Blocked, and not seen back on a CPU since: no switch in was traced. */
		if ((t->wait.kind == WAIT_SLEEP || t->wait.kind == WAIT_IO) && !t->wait.wake_ns)
			__sync_fetch_and_add(&backs_unseen, 1);
		exit_ns = bpf_ktime_get_ns();
		steal_ns = t->steal_ns;
		weight = t->io ? 1 : lane_count(p, t->nr, exit_ns - entry_ns, regs);
	}
	if (!t)
		return 0;
	if (weight)
		syscall_done(p, regs, ret, t, entry_ns, t->nr,
			     c->in_task == (__u64)task ? c->in_ns : 0, exit_ns, weight, t->io,
			     steal_ns);
	t->entry_ns = 0;
	t->io = 0;
	return 0;
}

/* sys_exit of an outlier, or of a call off the short path, that never left its CPU. */
static __noinline void syscall_exit_slow(struct cpu_page *p, __u64 regs, long ret, __u64 exit_ns,
					 __u32 weight)
{
	struct cpu_entry *c = &p->rec;

	syscall_done(p, regs, ret, NULL, c->entry_ns, c->nr, 0, exit_ns, weight, c->nr & CPU_NR_IO,
		     steal_of(c->steal_at, c->steal_base));
}

/*
 * The current task submits block I/O (block_bio_queue, in its context): if it
 * is inside a measured syscall, that call waited for storage (CPU_NR_IO),
 * whether or not it leaves its CPU for it (a read whose page came back while
 * it was still submitting: an interrupt on its stack, no I/O wait). In its
 * CPU's record, or parked in its task's storage. A bio submitted from an
 * interrupt is taken for the interrupted task's: none of the kernel's block
 * paths here does so.
 */
static __always_inline void call_submits_io(void)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct cpu_page *p = cpu_page_get(true);
	struct task_entry *t;
	struct cpu_entry *c;

	if (!p || (task->flags & (TASK_PF_IDLE | TASK_PF_KTHREAD)))
		return;
	c = &p->rec;
	if (c->entry_ns && c->regs == (__u64)bpf_task_pt_regs(task)) {
		c->nr |= CPU_NR_IO;
		return;
	}
	t = bpf_task_storage_get(&task_entries, task, 0, 0);
	if (t && t->entry_ns)
		t->io = 1;
}

/*
 * A CPU's sys_exit programs never nest and never run in parallel with each
 * other: its histograms and counters need no atomic increments.
 *
 * The common call never left its CPU, or came back to it (resumed), and takes
 * the short path (lane_count), a straight line. Anything else is in
 * functions of their own, out of line, so that the short path saves no
 * registers for them.
 */
static __always_inline void syscall_exit(__u64 *ctx, bool bounded)
{
	struct cpu_page *p = cpu_page_get(bounded);
	__u64 entry_ns, exit_ns, regs;
	struct cpu_entry *c;
	__u32 weight;

	if (!p)
		return;
	/*
	 * Read after the page is found (as sys_enter's): held while it is, regs
	 * was spilled to the stack and loaded back. ret is read where needed.
	 */
	regs = ctx[0];
	c = &p->rec;
	entry_ns = c->entry_ns;
	if (!entry_ns || c->regs != regs) {
		syscall_exit_parked(ctx[1], 0, 0);
		return;
	}
	exit_ns = bpf_ktime_get_ns();
	/*
	 * regs read again from ctx, which stays in a register, rather than kept
	 * on the stack. A call that waited for storage goes the long way.
	 */
	weight = c->nr & CPU_NR_IO
			 ? 1
			 : lane_count(p, c->nr, exit_ns - entry_ns, *(volatile __u64 *)&ctx[0]);
	if (weight) {
		if (c->nr & CPU_NR_RESUMED)
			syscall_exit_parked(ctx[1], exit_ns, weight);
		else
			syscall_exit_slow(p, ctx[0], ctx[1], exit_ns, weight);
	}
	c->entry_ns = 0;
}

#endif /* SCLAT_SYSCALL_BPF_H */
