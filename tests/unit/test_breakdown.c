// SPDX-License-Identifier: GPL-2.0-only
/*
 * Where a syscall's time goes (kern-bpf/breakdown.bpf.h), built by gcc: the
 * sequences of switches and wake-ups sched_switch, sched_waking and sys_exit
 * see, and the parts they must add up to.
 */
#include <stdbool.h>
#include "unit.h"
#include "breakdown.bpf.h"

static __u64 parts_sum(const struct sclat_breakdown *b)
{
	return b->on_cpu_ns + b->runqueue_ns + b->sleep_ns + b->io_wait_ns;
}

/* How sched_switch's preempt flag and prev_state read. */
static void test_kind_of_switch(void)
{
	CHECK_EQ_INT(wait_kind_of(0, 0), WAIT_RUNQUEUE);   /* yielded, still runnable */
	CHECK_EQ_INT(wait_kind_of(1, 0x1), WAIT_RUNQUEUE); /* preempted while going to sleep */
	CHECK_EQ_INT(wait_kind_of(0, 0x1), WAIT_SLEEP);	   /* TASK_INTERRUPTIBLE */
	CHECK_EQ_INT(wait_kind_of(0, 0x2), WAIT_IO);	   /* TASK_UNINTERRUPTIBLE */
	CHECK_EQ_INT(wait_kind_of(0, 0x102), WAIT_IO);	   /* TASK_KILLABLE */
	CHECK_EQ_INT(wait_kind_of(0, 0x402), WAIT_IO);	   /* TASK_IDLE */
	CHECK_EQ_INT(wait_kind_of(0, 0x4), WAIT_SLEEP);	   /* stopped */
}

/* Blocked, woken, run again: on CPU around it, asleep until the wake-up, runnable after. */
static void test_sleep_then_runqueue(void)
{
	struct wait_account w = {};
	struct sclat_breakdown b;

	wait_first_leave(&w, 100, 150, WAIT_SLEEP, 0);
	CHECK_EQ_U64(wait_woken(&w, 1150), 1000);
	/* A second wake-up of the same block is no block. */
	CHECK_EQ_U64(wait_woken(&w, 1160), 0);
	wait_exit(&w, 1200, 1250, 0, &b);
	CHECK_EQ_U64(b.on_cpu_ns, 100);
	CHECK_EQ_U64(b.runqueue_ns, 50);
	CHECK_EQ_U64(b.sleep_ns, 1000);
	CHECK_EQ_U64(b.io_wait_ns, 0);
	CHECK_EQ_U64(parts_sum(&b), 1250 - 100);
	CHECK_EQ_U64(w.switches, 1);
}

/* Preempted twice: runnable the whole time off the CPU; no wake-up ends that. */
static void test_preempted(void)
{
	struct wait_account w = {};
	struct sclat_breakdown b;

	wait_first_leave(&w, 0, 10, WAIT_RUNQUEUE, 0);
	CHECK_EQ_U64(wait_woken(&w, 20), 0);
	wait_leave(&w, 30, 40, WAIT_RUNQUEUE, 0);
	wait_exit(&w, 100, 110, 0, &b);
	CHECK_EQ_U64(b.on_cpu_ns, 30);
	CHECK_EQ_U64(b.runqueue_ns, 80);
	CHECK_EQ_U64(b.sleep_ns + b.io_wait_ns, 0);
	CHECK_EQ_U64(w.switches, 2);
}

/* Blocks of each kind in one call, the first I/O: each goes to its part. */
static void test_io_then_sleep(void)
{
	struct wait_account w = {};
	struct sclat_breakdown b;

	wait_first_leave(&w, 1000, 1010, WAIT_IO, 0);
	CHECK_EQ_U64(wait_woken(&w, 5010), 4000);
	wait_leave(&w, 5020, 5030, WAIT_SLEEP, 0);
	CHECK_EQ_U64(wait_woken(&w, 6030), 1000);
	wait_exit(&w, 6040, 6050, 0, &b);
	CHECK_EQ_U64(b.io_wait_ns, 4000);
	CHECK_EQ_U64(b.sleep_ns, 1000);
	CHECK_EQ_U64(b.runqueue_ns, 20);
	CHECK_EQ_U64(b.on_cpu_ns, 30);
	CHECK_EQ_U64(parts_sum(&b), 6050 - 1000);
}

/* A wake-up not seen (raw_tp, or before the switch): the block lasts until it ran again. */
static void test_wake_unseen(void)
{
	struct wait_account w = {};
	struct sclat_breakdown b;

	wait_first_leave(&w, 0, 10, WAIT_SLEEP, 0);
	wait_exit(&w, 50, 60, 0, &b);
	CHECK_EQ_U64(b.sleep_ns, 40);
	CHECK_EQ_U64(b.runqueue_ns, 0);
	CHECK_EQ_U64(b.on_cpu_ns, 20);
}

/* A switch back in not seen (in_ns 0): the wait reaches the next event seen. */
static void test_switch_in_unseen(void)
{
	struct wait_account w = {};
	struct sclat_breakdown b;

	wait_first_leave(&w, 0, 10, WAIT_SLEEP, 0);
	wait_woken(&w, 20);
	wait_exit(&w, 0, 60, 0, &b);
	CHECK_EQ_U64(b.sleep_ns, 10);
	CHECK_EQ_U64(b.runqueue_ns, 40);
	CHECK_EQ_U64(b.on_cpu_ns, 10);
	CHECK_EQ_U64(parts_sum(&b), 60);

	w = (struct wait_account){};
	wait_first_leave(&w, 0, 10, WAIT_RUNQUEUE, 0);
	wait_leave(&w, 0, 30, WAIT_SLEEP, 0);
	wait_exit(&w, 50, 70, 0, &b);
	CHECK_EQ_U64(b.runqueue_ns, 20);
	CHECK_EQ_U64(b.sleep_ns, 20);
	CHECK_EQ_U64(b.on_cpu_ns, 30);
}

/*
 * Two CPUs' clocks a little apart: a link earlier than the one before it
 * counts as equal to it. No part goes negative (wraps), and the parts add up
 * to the span of the chain, which the skew can only lengthen.
 */
static void test_clock_skew(void)
{
	struct wait_account w = {};
	struct sclat_breakdown b;

	wait_first_leave(&w, 100, 200, WAIT_SLEEP, 0);
	CHECK_EQ_U64(wait_woken(&w, 195), 0); /* woken "before" it left: a block of 0 */
	wait_exit(&w, 190, 300, 0, &b);
	CHECK_EQ_U64(b.on_cpu_ns, 100 + 100);
	CHECK_EQ_U64(b.runqueue_ns, 0);
	CHECK_EQ_U64(b.sleep_ns, 0);
	CHECK_EQ_U64(parts_sum(&b), 300 - 100);

	w = (struct wait_account){};
	wait_first_leave(&w, 100, 200, WAIT_RUNQUEUE, 0);
	wait_exit(&w, 400, 390, 0, &b);
	CHECK_EQ_U64(b.runqueue_ns, 200);
	CHECK_EQ_U64(b.on_cpu_ns, 100);
	CHECK(parts_sum(&b) >= 390 - 100, "parts %llu short of the latency",
	      (unsigned long long)parts_sum(&b));
}

/* The on-CPU stretches between the listed links: entry to the first out, each in to the next. */
static __u64 on_cpu_of_spans(const struct wait_account *w, __u64 entry_ns, __u64 exit_ns)
{
	__u64 sum = 0, from = entry_ns;
	__u32 i;

	for (i = 0; i < w->switches && i < SCLAT_OFF_CPU_MAX; i++) {
		sum += w->span[i].out_ns - from;
		from = w->span[i].in_ns;
	}
	return sum + exit_ns - from;
}

/*
 * Preempted on CPU 0, back on 1, blocked there, woken, back on 0: each
 * stretch off the CPU says when and where, and the stretches on a CPU
 * between them are the breakdown's on_cpu_ns.
 */
static void test_off_cpu_spans(void)
{
	struct wait_account w = {};
	struct sclat_breakdown b;

	wait_first_leave(&w, 1000, 1100, WAIT_RUNQUEUE, 0);
	CHECK_EQ_U64(wait_woken(&w, 1150), 0);
	wait_leave(&w, 1300, 1400, WAIT_SLEEP, 1);
	CHECK_EQ_U64(wait_woken(&w, 5400), 4000);
	wait_longest(&w, 4000);
	wait_leave(&w, 5500, 5600, WAIT_IO, 0);
	CHECK_EQ_U64(wait_woken(&w, 6600), 1000); /* shorter: the waker stays the sleep's */
	wait_exit(&w, 6700, 7000, 0, &b);

	CHECK_EQ_U64(w.switches, 3);
	CHECK_EQ_U64(w.longest_index, 1);
	CHECK_EQ_U64(w.span[0].out_ns, 1100);
	CHECK_EQ_U64(w.span[0].wake_ns, 0);
	CHECK_EQ_U64(w.span[0].in_ns, 1300);
	CHECK_EQ_INT(w.span[0].cpu, 0);
	CHECK_EQ_INT(w.span[0].in_cpu, 1);
	CHECK_EQ_INT(w.span[0].kind, SCLAT_OFF_CPU_RUNQUEUE);
	CHECK_EQ_U64(w.span[1].out_ns, 1400);
	CHECK_EQ_U64(w.span[1].wake_ns, 5400);
	CHECK_EQ_U64(w.span[1].in_ns, 5500);
	CHECK_EQ_INT(w.span[1].cpu, 1);
	CHECK_EQ_INT(w.span[1].in_cpu, 0);
	CHECK_EQ_INT(w.span[1].kind, SCLAT_OFF_CPU_SLEEP);
	CHECK_EQ_U64(w.span[2].out_ns, 5600);
	CHECK_EQ_U64(w.span[2].wake_ns, 6600);
	CHECK_EQ_U64(w.span[2].in_ns, 6700);
	CHECK_EQ_INT(w.span[2].cpu, 0);
	CHECK_EQ_INT(w.span[2].in_cpu, 0);
	CHECK_EQ_INT(w.span[2].kind, SCLAT_OFF_CPU_IO);
	CHECK_EQ_U64(on_cpu_of_spans(&w, 1000, 7000), b.on_cpu_ns);
	CHECK_EQ_U64(b.on_cpu_ns, 100 + 100 + 100 + 300);
}

/* Links a switch in did not report, and clock skew, are the breakdown's links too. */
static void test_off_cpu_spans_follow_the_chain(void)
{
	struct wait_account w = {};
	struct sclat_breakdown b;

	wait_first_leave(&w, 100, 200, WAIT_SLEEP, 1);
	wait_woken(&w, 195);			  /* before it left: at the out link */
	wait_leave(&w, 0, 400, WAIT_RUNQUEUE, 1); /* switch in unseen: back at 400 */
	wait_exit(&w, 390, 600, 1, &b);		  /* "in" before the out: at the out link */
	CHECK_EQ_U64(w.span[0].wake_ns, 200);
	CHECK_EQ_U64(w.span[0].in_ns, 400);
	CHECK_EQ_U64(w.span[1].in_ns, 400);
	CHECK_EQ_U64(on_cpu_of_spans(&w, 100, 600), b.on_cpu_ns);
	CHECK_EQ_U64(w.longest_index, SCLAT_OFF_CPU_NONE);
}

/*
 * More switches than the list holds: the first SCLAT_OFF_CPU_MAX are listed,
 * the last listed one closed by the next switch, the rest only counted.
 */
static void test_off_cpu_list_is_bounded(void)
{
	struct wait_account w = {};
	struct sclat_breakdown b;
	__u64 t = 10;
	int i;

	wait_first_leave(&w, 0, t, WAIT_RUNQUEUE, 0);
	for (i = 1; i < SCLAT_OFF_CPU_MAX + 5; i++) {
		wait_leave(&w, t + 5, t + 10, WAIT_RUNQUEUE, i & 1);
		t += 10;
	}
	wait_exit(&w, t + 5, t + 10, 0, &b);
	CHECK_EQ_U64(w.switches, SCLAT_OFF_CPU_MAX + 5);
	CHECK_EQ_U64(w.span[SCLAT_OFF_CPU_MAX - 1].out_ns, 10 * SCLAT_OFF_CPU_MAX);
	CHECK_EQ_U64(w.span[SCLAT_OFF_CPU_MAX - 1].in_ns, 10 * SCLAT_OFF_CPU_MAX + 5);
	CHECK_EQ_INT(w.span[SCLAT_OFF_CPU_MAX - 1].in_cpu, SCLAT_OFF_CPU_MAX & 1);
	CHECK_EQ_U64(b.runqueue_ns, 5 * (SCLAT_OFF_CPU_MAX + 5));
}

/*
 * What sys_exit leaves out of the latency it judges (judge = service): the
 * runqueue time the final breakdown will hold, read before wait_exit closes
 * the pending block, for each kind of block pending at exit.
 */
static void test_runqueue_at_exit_is_the_breakdowns(void)
{
	struct wait_account w = {}, copy;
	struct sclat_breakdown b;
	__u64 rq;

	/* Slept, woken at 1150, back in at 1200 (its block still pending), exits at 1250. */
	wait_first_leave(&w, 100, 150, WAIT_SLEEP, 0);
	wait_woken(&w, 1150);
	rq = wait_runqueue_at_exit(&w, 1200, 1250);
	copy = w;
	wait_exit(&copy, 1200, 1250, 0, &b);
	CHECK_EQ_U64(rq, b.runqueue_ns);
	CHECK_EQ_U64(rq, 50);
	/* Preempted twice, back in at 100 (unseen: 0), exits at 110. */
	w = (struct wait_account){};
	wait_first_leave(&w, 0, 10, WAIT_RUNQUEUE, 0);
	wait_leave(&w, 30, 40, WAIT_RUNQUEUE, 0);
	rq = wait_runqueue_at_exit(&w, 0, 110);
	copy = w;
	wait_exit(&copy, 0, 110, 0, &b);
	CHECK_EQ_U64(rq, b.runqueue_ns);
	/* In D, its wake-up unseen: no runqueue time is guessed. */
	w = (struct wait_account){};
	wait_first_leave(&w, 0, 10, WAIT_IO, 0);
	rq = wait_runqueue_at_exit(&w, 500, 510);
	copy = w;
	wait_exit(&copy, 500, 510, 0, &b);
	CHECK_EQ_U64(rq, b.runqueue_ns);
	CHECK_EQ_U64(rq, 0);
	/* Never left its CPU: nothing. */
	w = (struct wait_account){};
	CHECK_EQ_U64(wait_runqueue_at_exit(&w, 0, 510), 0);
}

int main(void)
{
	RUN(test_kind_of_switch);
	RUN(test_sleep_then_runqueue);
	RUN(test_preempted);
	RUN(test_io_then_sleep);
	RUN(test_wake_unseen);
	RUN(test_switch_in_unseen);
	RUN(test_clock_skew);
	RUN(test_off_cpu_spans);
	RUN(test_off_cpu_spans_follow_the_chain);
	RUN(test_off_cpu_list_is_bounded);
	RUN(test_runqueue_at_exit_is_the_breakdowns);
	return unit_done();
}
