// SPDX-License-Identifier: GPL-2.0-only
/* The per-CPU burst guard's window and allowance, from the policy's budget (engine.h). */
#include <math.h>
#include "engine.h"

void engine_guard(__u64 budget, int ncpus, __u64 *window_ns, __u32 *burst)
{
	double share;

	*window_ns = ENGINE_GUARD_WINDOW_NS;
	if (!budget || ncpus <= 0) {
		*burst = 0;
		return;
	}
	/* A CPU's share of the budget in a window, with headroom: the guard only cuts bursts. */
	share = (double)budget * (ENGINE_GUARD_WINDOW_NS / 1e9) / ncpus;
	share = ceil(share * ENGINE_GUARD_HEADROOM);
	*burst = share < 4 ? 4 : share > 1e9 ? 1000000000U : (__u32)share;
}
