// SPDX-License-Identifier: GPL-2.0-only
/*
 * The policy's min_latency: one switch that gives "only above X" for every
 * syscall and class at once, whatever each learnt. The engine learns and
 * decides on the thresholds as learnt (the hysteresis, shifts and drifts are
 * about the rule's own threshold); the one in force, which the kernel
 * compares with, is that one raised to min_latency.
 */
#include "engine.h"

void engine_min_latency_begin(struct engine *e)
{
	unsigned int i;

	for (i = 0; i < ENGINE_ENTRIES + e->nr_cells; i++) {
		struct engine_syscall *s = engine_entry_at(e, i);

		s->prev_in_force_ns = s->threshold_ns;
		s->threshold_ns = s->learned_ns;
	}
}

void engine_min_latency_apply(struct engine *e, const struct policy *p)
{
	unsigned int i;

	for (i = 0; i < ENGINE_ENTRIES + e->nr_cells; i++) {
		struct engine_syscall *s = engine_entry_at(e, i);

		s->learned_ns = s->threshold_ns;
		/* Off stays off. */
		if (s->threshold_ns != SCLAT_THRESHOLD_NEVER && s->threshold_ns < p->min_latency_ns)
			s->threshold_ns = p->min_latency_ns;
		/* What moved is the threshold in force: the kernel's, the one outliers carry. */
		s->old_threshold_ns = s->prev_in_force_ns;
		s->changed = s->threshold_ns != s->old_threshold_ns;
	}
}
