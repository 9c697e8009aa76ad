// SPDX-License-Identifier: GPL-2.0-only
/*
 * The brakes as the controller arms them in shared memory: limits moved on
 * from the count BPF keeps, the far one 32 times the allowance plus 2, none at 0.
 */
#include "kernel/probes_brake.h"
#include "kernel/probes_handle.h"
#include "unit.h"

static struct sclat_shared shared;

static void test_limits_move_on_from_the_count(void)
{
	struct probes t = { .shared = &shared };
	struct sclat_brake *b = &shared.brake[3];

	b->crossed = 1000;
	probes_brake_arm(&t, 3, 9);
	CHECK_EQ_U64(b->limit, 1009);
	CHECK_EQ_U64(b->far_limit, 1000 + (9 + PROBES_BRAKE_FAR_EXTRA) * PROBES_BRAKE_FAR_FACTOR);
	/* A quiet syscall's allowance, 1: room for 96 far calls, as near ones are braked. */
	probes_brake_arm(&t, 3, 1);
	CHECK_EQ_U64(b->limit, 1001);
	CHECK_EQ_U64(b->far_limit, 1000 + 96);
	/* Past 2^32 the count wraps; so do the limits, never to 0 (no brake). */
	b->crossed = 0xfffffff0U;
	probes_brake_arm(&t, 3, 0x10);
	CHECK_EQ_U64(b->limit, 1);
	CHECK_EQ_U64(b->far_limit,
		     (0xfffffff0U + (0x10U + PROBES_BRAKE_FAR_EXTRA) * PROBES_BRAKE_FAR_FACTOR) &
			     0xffffffffU);
	/* A huge allowance is bounded, the far one with it: both stay ahead of the count. */
	b->crossed = 5;
	probes_brake_arm(&t, 3, 0xffffffffU);
	CHECK_EQ_U64(b->far_limit, 5 + (1U << 30));
	CHECK_EQ_U64(b->limit, 5 + (1U << 30) / PROBES_BRAKE_FAR_FACTOR - PROBES_BRAKE_FAR_EXTRA);
	/* 0: no brake. */
	probes_brake_arm(&t, 3, 0);
	CHECK_EQ_U64(b->limit, 0);
	CHECK_EQ_U64(b->far_limit, 0);
	/* Out of range: nothing written. */
	probes_brake_arm(&t, SCLAT_BRAKES, 9);
}

int main(void)
{
	RUN(test_limits_move_on_from_the_count);
	return unit_done();
}
