// SPDX-License-Identifier: GPL-2.0-only
/*
 * The brakes in shared memory: a limit moved on from the count the BPF side
 * keeps, never a reset of it, so that no outlier is counted twice or lost
 * between the read and the store.
 */
#include "probes_brake.h"
#include "probes_handle.h"

void probes_brake_arm(struct probes *t, unsigned int index, __u32 allowance)
{
	struct sclat_brake *b;
	__u32 limit = 0, far_limit = 0, crossed;

	if (index >= SCLAT_BRAKES)
		return;
	b = &t->shared->brake[index];
	if (allowance) {
		if (allowance > (1U << 30) / PROBES_BRAKE_FAR_FACTOR - PROBES_BRAKE_FAR_EXTRA)
			allowance = (1U << 30) / PROBES_BRAKE_FAR_FACTOR - PROBES_BRAKE_FAR_EXTRA;
		crossed = __atomic_load_n(&b->crossed, __ATOMIC_RELAXED);
		limit = crossed + allowance;
		far_limit =
			crossed + (allowance + PROBES_BRAKE_FAR_EXTRA) * PROBES_BRAKE_FAR_FACTOR;
		/* 0 is "no brake": one more, rather than none. */
		if (!limit)
			limit = 1;
		if (!far_limit)
			far_limit = 1;
	}
	__atomic_store_n(&b->far_limit, far_limit, __ATOMIC_RELAXED);
	__atomic_store_n(&b->limit, limit, __ATOMIC_RELAXED);
}

void probes_brake_apart(struct probes *t, unsigned int index, bool apart)
{
	if (index < SCLAT_BRAKES)
		__atomic_store_n(&t->shared->brake[index].apart, apart ? 1 : 0, __ATOMIC_RELAXED);
}

void probes_brake_io(struct probes *t, unsigned int index, __u64 io_ns)
{
	if (index < SCLAT_BRAKES)
		__atomic_store_n(&t->shared->brake[index].io_ns,
				 io_ns <= 0xffffffffULL ? (__u32)io_ns : 0, __ATOMIC_RELAXED);
}

__u32 probes_brake_crossed(const struct probes *t, unsigned int index)
{
	if (index >= SCLAT_BRAKES)
		return 0;
	return __atomic_load_n(&t->shared->brake[index].crossed, __ATOMIC_RELAXED);
}
