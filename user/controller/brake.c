// SPDX-License-Identifier: GPL-2.0-only
/* The kernel brake's allowances, per syscall and class cell, each interval. */
#include <math.h>
#include "brake.h"
#include "classes.h"
#include "classes_auto.h"
#include "engine.h"
#include "kernel/probes_brake.h"
#include "kernel/probes_knobs.h"

/* The share of calls the rule's threshold lets through (narrowed by the budget). */
static double brake_share(const struct engine_syscall *s, const struct policy_rule *r)
{
	double p = r->false_alarm > 0 ? r->false_alarm : 1 - r->quantile;

	return fmax(p, 0) * s->scale;
}

/*
 * A rate's rule tells far calls apart (struct sclat_brake): its stalls are
 * not its normal. A quantile's counts them in the share 1 - q it lets through.
 */
static bool brake_apart(const struct policy_rule *r)
{
	return engine_rule_rate(r);
}

__u32 brake_allowance(const struct engine_syscall *s, const struct policy_rule *r, bool armed,
		      double calls)
{
	double a;

	if (!armed || r->mode != POLICY_ADAPTIVE)
		return 0;
	/* Rounded up, but not for the last bit of 1 - 0.999. */
	a = ceil(BRAKE_FACTOR * fmax(calls, 0) * brake_share(s, r) * (1 - 1e-9));
	a = brake_apart(r) ? fmax(a, BRAKE_MIN) : a + BRAKE_QUANTILE_MORE;
	return a < (double)(1U << 30) ? (__u32)a : 1U << 30;
}

/* Where s's calls that waited for storage are stalls (engine_io.c), raised to min_latency. */
static __u64 brake_io_ns(const struct engine_syscall *s, const struct policy *p)
{
	return s->io_ns && s->io_ns < p->min_latency_ns ? p->min_latency_ns : s->io_ns;
}

__u32 brake_cell_allowance(const struct engine *e, const struct policy *p, unsigned int nr)
{
	if (nr >= SCLAT_MAX_SYSCALLS)
		return 0;
	return brake_allowance(&e->sc[nr], &p->rules[nr], e->sc[nr].armed, 0);
}

void brakes_arm(struct probes *t, const struct engine *e, const struct classes *cs,
		const struct policy *p)
{
	double cells_calls[SCLAT_MAX_SYSCALLS] = { 0 };
	const struct engine_syscall *s, *owner;
	unsigned int nr, slot, cell;

	for (cell = 1; cell < cs->top; cell++)
		if (cs->cell[cell].used && cs->cell[cell].nr < SCLAT_MAX_SYSCALLS)
			cells_calls[cs->cell[cell].nr] += (double)e->cell[cell].i_calls;
	for (nr = 0; nr < SCLAT_MAX_SYSCALLS; nr++) {
		slot = probes_slot(t, nr);
		if (slot == SCLAT_SLOT_NONE || slot >= SCLAT_HIST_SLOTS)
			continue;
		s = &e->sc[nr];
		probes_brake_apart(t, slot, brake_apart(&p->rules[nr]));
		probes_brake_io(t, slot, brake_io_ns(s, p));
		/* Its own histogram counts the calls its cells did not. */
		probes_brake_arm(t, slot,
				 brake_allowance(s, &p->rules[nr], s->armed,
						 (double)s->i_calls - cells_calls[nr]));
	}
	for (cell = 1; cell < cs->top; cell++) {
		if (!cs->cell[cell].used || cs->cell[cell].nr >= SCLAT_MAX_SYSCALLS)
			continue;
		/* A cell merged under auto emits as a share of its ancestor's calls. */
		s = classes_auto_entry(cs, cell);
		owner = &e->sc[cs->cell[cell].nr];
		probes_brake_apart(t, SCLAT_HIST_SLOTS + cell,
				   brake_apart(&p->rules[cs->cell[cell].nr]));
		probes_brake_io(t, SCLAT_HIST_SLOTS + cell, brake_io_ns(s, p));
		probes_brake_arm(t, SCLAT_HIST_SLOTS + cell,
				 brake_allowance(s, &p->rules[cs->cell[cell].nr],
						 s->armed || (s->fallback && owner->armed),
						 (double)s->i_calls));
	}
}
