// SPDX-License-Identifier: GPL-2.0-only
/*
 * The policy's budget (outliers/s for the whole system): the quantiles of the
 * heaviest emitters narrowed while it is passed, widened back well below it;
 * and the per-CPU burst guard derived from it.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "engine.h"

static int double_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * Water-filling: the cap c with sum(min(d_i, c)) == budget. Those above it
 * are the heaviest emitters; the others are left alone.
 */
static double budget_cap(const double *demand, unsigned int n, double budget)
{
	double *d = malloc(n * sizeof(*d)), left = budget, cap = INFINITY;
	unsigned int i;

	if (!d)
		return budget / (n ? n : 1);
	memcpy(d, demand, n * sizeof(*d));
	qsort(d, n, sizeof(*d), double_cmp);
	for (i = 0; i < n; i++) {
		if (d[i] * (n - i) > left) {
			cap = left / (n - i);
			break;
		}
		left -= d[i];
	}
	free(d);
	return cap;
}

/* The syscall whose rule entry i follows, or ENGINE_CELL_FREE (shared histogram, free cell). */
static unsigned int entry_nr(const struct engine *e, unsigned int i)
{
	if (i < SCLAT_MAX_SYSCALLS)
		return i;
	if (i < ENGINE_ENTRIES)
		return ENGINE_CELL_FREE;
	return e->cell_nr[i - ENGINE_ENTRIES];
}

/*
 * Above budget, narrow 1 - q of the syscalls (or classes) emitting more than
 * their fair share by as much as needed (at most 8x per interval: a shift of
 * the body is also a burst, and the estimate catches up by itself). Well
 * below budget, widen it back by up to 2x per interval. A syscall with
 * classes answers only for the calls counted at its own threshold; each
 * class answers for its own.
 */
void engine_budget_apply(struct engine *e, const struct policy *p, double secs)
{
	unsigned int n = ENGINE_ENTRIES + e->nr_cells, i, nr;
	double *demand = calloc(n, sizeof(*demand)), total = 0, cap, k;

	if (!demand)
		return;
	for (i = 0; i < n; i++) {
		const struct engine_syscall *s = engine_entry_at(e, i);
		__u64 emitted = s->i_outliers + s->i_throttled + s->i_drops + s->i_braked;

		if (i < ENGINE_ENTRIES)
			emitted -= s->i_cells_emitted;
		demand[i] = emitted / secs;
		total += demand[i];
	}
	e->demand = total;
	if (!p->budget) {
		for (i = 0; i < n; i++)
			engine_entry_at(e, i)->scale = 1.0;
	} else if (total > (double)p->budget) {
		cap = budget_cap(demand, n, (double)p->budget);
		for (i = 0; i < n; i++) {
			struct engine_syscall *s = engine_entry_at(e, i);

			nr = entry_nr(e, i);
			if (demand[i] <= cap || nr == ENGINE_CELL_FREE ||
			    p->rules[nr].mode != POLICY_ADAPTIVE || !s->armed)
				continue;
			k = fmax(cap / demand[i], 0.125);
			s->scale = fmax(s->scale * k, ENGINE_SCALE_MIN);
		}
	} else if (total < 0.5 * (double)p->budget) {
		k = total > 0 ? fmin(2.0, 0.75 * (double)p->budget / total) : 2.0;
		for (i = 0; i < n; i++)
			engine_entry_at(e, i)->scale = fmin(1.0, engine_entry_at(e, i)->scale * k);
	}
	free(demand);
}

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
