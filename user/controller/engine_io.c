// SPDX-License-Identifier: GPL-2.0-only
/*
 * Calls that waited for storage, where their syscall or class seldom does
 * (engine.h, engine_io_update): a population apart by what it waited for,
 * not by its latency alone.
 */
#include <math.h>

#include "engine.h"

void engine_io_update(struct engine_syscall *s, const struct policy *p, const struct policy_rule *r,
		      __u64 elapsed_ns)
{
	double keep;

	if (!engine_rule_rate(r) || !p->half_life_ns) {
		s->recent_io = s->recent_io_calls = 0;
		return;
	}
	keep = exp2(-(double)elapsed_ns / (double)p->half_life_ns);
	s->recent_io *= keep;
	s->recent_io_calls *= keep;
	if (!s->fed)
		return;
	s->recent_io += (double)s->i_io;
	s->recent_io_calls += (double)s->i_calls;
}

double engine_io_share(const struct engine_syscall *s)
{
	return s->recent_io_calls > 0 ? fmin(1, s->recent_io / s->recent_io_calls) : 0;
}

void engine_io_decide(struct engine_syscall *s, const struct policy_rule *r)
{
	__u64 io;

	s->io_ns = 0;
	if (!engine_rule_rate(r) || !s->armed || !s->stall_ns || s->recent_io_calls <= 0)
		return;
	/* More than a population apart may hold as stalls, by more than chance: the normal. */
	if (engine_chance_exceeded(s->recent_io, engine_stall_share(r) * s->recent_io_calls))
		return;
	/* Never under the rule's floor: below it, no call of the syscall is an outlier. */
	io = s->stall_ns > r->floor_ns ? s->stall_ns : r->floor_ns;
	if (io < s->threshold_ns && io <= 0xffffffffULL)
		s->io_ns = io;
}
