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

	wait_first_leave(&w, 100, 150, WAIT_SLEEP);
	CHECK_EQ_U64(wait_woken(&w, 1150), 1000);
	/* A second wake-up of the same block is no block. */
	CHECK_EQ_U64(wait_woken(&w, 1160), 0);
	wait_exit(&w, 1200, 1250, &b);
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

	wait_first_leave(&w, 0, 10, WAIT_RUNQUEUE);
	CHECK_EQ_U64(wait_woken(&w, 20), 0);
	wait_leave(&w, 30, 40, WAIT_RUNQUEUE);
	wait_exit(&w, 100, 110, &b);
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

	wait_first_leave(&w, 1000, 1010, WAIT_IO);
	CHECK_EQ_U64(wait_woken(&w, 5010), 4000);
	wait_leave(&w, 5020, 5030, WAIT_SLEEP);
	CHECK_EQ_U64(wait_woken(&w, 6030), 1000);
	wait_exit(&w, 6040, 6050, &b);
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

	wait_first_leave(&w, 0, 10, WAIT_SLEEP);
	wait_exit(&w, 50, 60, &b);
	CHECK_EQ_U64(b.sleep_ns, 40);
	CHECK_EQ_U64(b.runqueue_ns, 0);
	CHECK_EQ_U64(b.on_cpu_ns, 20);
}

/* A switch back in not seen (in_ns 0): the wait reaches the next event seen. */
static void test_switch_in_unseen(void)
{
	struct wait_account w = {};
	struct sclat_breakdown b;

	wait_first_leave(&w, 0, 10, WAIT_SLEEP);
	wait_woken(&w, 20);
	wait_exit(&w, 0, 60, &b);
	CHECK_EQ_U64(b.sleep_ns, 10);
	CHECK_EQ_U64(b.runqueue_ns, 40);
	CHECK_EQ_U64(b.on_cpu_ns, 10);
	CHECK_EQ_U64(parts_sum(&b), 60);

	w = (struct wait_account){};
	wait_first_leave(&w, 0, 10, WAIT_RUNQUEUE);
	wait_leave(&w, 0, 30, WAIT_SLEEP);
	wait_exit(&w, 50, 70, &b);
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

	wait_first_leave(&w, 100, 200, WAIT_SLEEP);
	CHECK_EQ_U64(wait_woken(&w, 195), 0); /* woken "before" it left: a block of 0 */
	wait_exit(&w, 190, 300, &b);
	CHECK_EQ_U64(b.on_cpu_ns, 100 + 100);
	CHECK_EQ_U64(b.runqueue_ns, 0);
	CHECK_EQ_U64(b.sleep_ns, 0);
	CHECK_EQ_U64(parts_sum(&b), 300 - 100);

	w = (struct wait_account){};
	wait_first_leave(&w, 100, 200, WAIT_RUNQUEUE);
	wait_exit(&w, 400, 390, &b);
	CHECK_EQ_U64(b.runqueue_ns, 200);
	CHECK_EQ_U64(b.on_cpu_ns, 100);
	CHECK(parts_sum(&b) >= 390 - 100, "parts %llu short of the latency",
	      (unsigned long long)parts_sum(&b));
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
	return unit_done();
}
