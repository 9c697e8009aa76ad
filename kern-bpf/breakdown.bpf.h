/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Where a syscall's time goes once it has left its CPU: the arithmetic that
 * sched_switch and sys_exit apply to a parked syscall, so that
 * on-CPU, runqueue, sleep and I/O time add up to its latency. Plain C on
 * timestamps: tests/unit/test_breakdown.c runs it with gcc.
 *
 * The time of a call is a chain entry <= out <= (wake) <= in <= out ... <=
 * exit: on a CPU from entry or in to out, blocked from out to wake, on a
 * runqueue from wake (or out, when preempted) to in. Every span is one
 * difference of two links of the chain, so the parts add up by construction.
 * A link that reads earlier than the one before it (clocks of two CPUs a few
 * ns apart) is taken as equal to it, which keeps the chain in order. A
 * switch back in that sched_switch did not report (in_ns 0: some kernels do
 * not trace switches away from some tasks) leaves the block pending up to
 * the next event seen: the wait then also holds the call's last stretch on
 * a CPU, never more time than the call took.
 *
 * The links themselves, and the CPUs, are kept for the first
 * SCLAT_OFF_CPU_MAX stretches off the CPU (struct sclat_off_cpu): when the
 * call ran and waited, for the converted kernel trace. A few stores into the
 * storage these paths already write.
 */
#ifndef SCLAT_BREAKDOWN_BPF_H
#define SCLAT_BREAKDOWN_BPF_H

#include "sclat_abi.h"

/* How a task left its CPU: what its pending block is. */
enum wait_kind {
	WAIT_NONE,     /* back on a CPU, or never left: nothing pending */
	WAIT_RUNQUEUE, /* preempted or yielded: still runnable */
	WAIT_SLEEP,    /* blocked interruptibly */
	WAIT_IO,       /* blocked uninterruptibly (D) */
};
_Static_assert(WAIT_RUNQUEUE == SCLAT_OFF_CPU_RUNQUEUE && WAIT_SLEEP == SCLAT_OFF_CPU_SLEEP &&
		       WAIT_IO == SCLAT_OFF_CPU_IO,
	       "a stretch's kind is its wait kind");

/* Task state bits: a D-state block, and a wake-up under way. */
#define WAIT_TASK_UNINTERRUPTIBLE 0x0002
#define WAIT_TASK_WAKING	  0x0200

/* The wait accounting of one syscall in flight, from its first switch out. */
struct wait_account {
	struct sclat_breakdown bd; /* the spans closed so far */
	__u64 out_ns;		   /* when it last left its CPU */
	__u64 wake_ns;		   /* when its pending block was woken; 0: not yet */
	__u64 longest_ns;	   /* its longest block (out to wake) so far */
	__u32 kind;		   /* enum wait_kind of the pending block */
	__u32 switches;
	__u32 longest_index; /* the stretch of the longest block; SCLAT_OFF_CPU_NONE */
	__u32 __pad;
	struct sclat_off_cpu span[SCLAT_OFF_CPU_MAX]; /* the first stretches off the CPU */
};

/* The listed stretch of the pending block, or NULL beyond the list. */
static __always_inline struct sclat_off_cpu *wait_span(struct wait_account *w)
{
	__u32 i = w->switches - 1;

	if (i >= SCLAT_OFF_CPU_MAX)
		return (void *)0;
	/* The index as checked: the BPF verifier must see the bound on the register it uses. */
	asm volatile("" : "+r"(i));
	return &w->span[i];
}

/* The pending block's stretch starts: it left cpu at out_ns, as kind. */
static __always_inline void wait_span_out(struct wait_account *w, __u32 cpu)
{
	struct sclat_off_cpu *s = wait_span(w);

	if (!s)
		return;
	s->out_ns = w->out_ns;
	s->wake_ns = 0;
	s->in_ns = 0;
	s->cpu = cpu;
	s->in_cpu = cpu;
	s->kind = w->kind;
}

static __always_inline __u64 wait_later(__u64 t, __u64 link)
{
	return t > link ? t : link;
}

/*
 * What sched_switch's preempt flag and the task's state say about a task
 * leaving its CPU. A wake-up already under way makes it runnable.
 */
static __always_inline __u32 wait_kind_of(int preempt, unsigned int state)
{
	if (preempt || !state || (state & WAIT_TASK_WAKING))
		return WAIT_RUNQUEUE;
	return state & WAIT_TASK_UNINTERRUPTIBLE ? WAIT_IO : WAIT_SLEEP;
}

/*
 * The pending block ends: the task has run since in_ns (0: unknown, then up
 * to now, the event being accounted). Adds it to the breakdown and returns
 * the link the next on-CPU span starts from.
 */
static __always_inline __u64 wait_block_end(struct wait_account *w, __u64 in_ns, __u64 now,
					    __u32 cpu)
{
	struct sclat_off_cpu *s = wait_span(w);
	__u64 in;

	if (!in_ns)
		in_ns = now;
	if (w->kind == WAIT_NONE)
		return wait_later(in_ns, w->out_ns);
	/* Back on cpu: a task runs on the CPU it leaves or exits on from its switch in. */
	if (s)
		s->in_cpu = cpu;
	if (w->wake_ns) {
		/* Blocked up to the wake-up (counted then), runnable since. */
		in = wait_later(in_ns, w->wake_ns);
		w->bd.runqueue_ns += in - w->wake_ns;
	} else {
		in = wait_later(in_ns, w->out_ns);
		if (w->kind == WAIT_RUNQUEUE)
			w->bd.runqueue_ns += in - w->out_ns;
		else if (w->kind == WAIT_IO)
			w->bd.io_wait_ns += in - w->out_ns; /* woken unseen: all of it */
		else
			w->bd.sleep_ns += in - w->out_ns;
	}
	if (s)
		s->in_ns = in;
	w->kind = WAIT_NONE;
	return in;
}

/* The syscall that entered at entry_ns leaves its CPU, cpu, for the first time, at now. */
static __always_inline void wait_first_leave(struct wait_account *w, __u64 entry_ns, __u64 now,
					     __u32 kind, __u32 cpu)
{
	now = wait_later(now, entry_ns);
	w->bd.on_cpu_ns = now - entry_ns;
	w->bd.runqueue_ns = 0;
	w->bd.sleep_ns = 0;
	w->bd.io_wait_ns = 0;
	w->out_ns = now;
	w->wake_ns = 0;
	w->longest_ns = 0;
	w->kind = kind;
	w->switches = 1;
	w->longest_index = SCLAT_OFF_CPU_NONE;
	wait_span_out(w, cpu);
}

/* It came back on a CPU, cpu, at in_ns (0: unknown) and leaves it again at now. */
static __always_inline void wait_leave(struct wait_account *w, __u64 in_ns, __u64 now, __u32 kind,
				       __u32 cpu)
{
	__u64 in = wait_block_end(w, in_ns, now, cpu);

	now = wait_later(now, in);
	w->bd.on_cpu_ns += now - in;
	w->out_ns = now;
	w->wake_ns = 0;
	w->kind = kind;
	w->switches++;
	wait_span_out(w, cpu);
}

/*
 * The pending block was woken at now (as sched_switch learns when the task
 * comes back in). Returns the block's length when this wake-up ends a sleep
 * or I/O block, else 0 (nothing pending, preempted, or already woken).
 */
static __always_inline __u64 wait_woken(struct wait_account *w, __u64 now)
{
	struct sclat_off_cpu *s;
	__u64 block;

	if ((w->kind != WAIT_SLEEP && w->kind != WAIT_IO) || w->wake_ns)
		return 0;
	now = wait_later(now, w->out_ns);
	block = now - w->out_ns;
	if (w->kind == WAIT_IO)
		w->bd.io_wait_ns += block;
	else
		w->bd.sleep_ns += block;
	w->wake_ns = now;
	s = wait_span(w);
	if (s)
		s->wake_ns = now;
	return block;
}

/* The block wait_woken() just ended is the call's longest so far: its waker is noted. */
static __always_inline void wait_longest(struct wait_account *w, __u64 block)
{
	w->longest_ns = block;
	w->longest_index = w->switches - 1;
}

/*
 * The runqueue time the breakdown at exit_ns will hold (wait_exit, there
 * since in_ns, 0: unknown), without closing the pending block: what sys_exit
 * leaves out of the latency it judges.
 */
static __always_inline __u64 wait_runqueue_at_exit(const struct wait_account *w, __u64 in_ns,
						   __u64 exit_ns)
{
	__u64 rq = w->bd.runqueue_ns;

	if (!in_ns)
		in_ns = exit_ns;
	if (w->kind == WAIT_NONE)
		return rq;
	if (w->wake_ns)
		return rq + wait_later(in_ns, w->wake_ns) - w->wake_ns;
	if (w->kind == WAIT_RUNQUEUE)
		return rq + wait_later(in_ns, w->out_ns) - w->out_ns;
	return rq;
}

/*
 * sys_exit at exit_ns on cpu, there since in_ns (0: unknown): the final
 * breakdown into bd.
 */
static __always_inline void wait_exit(struct wait_account *w, __u64 in_ns, __u64 exit_ns, __u32 cpu,
				      struct sclat_breakdown *bd)
{
	__u64 in = wait_block_end(w, in_ns, exit_ns, cpu);

	*bd = w->bd;
	bd->on_cpu_ns += wait_later(exit_ns, in) - in;
}

#endif /* SCLAT_BREAKDOWN_BPF_H */
