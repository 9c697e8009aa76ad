// SPDX-License-Identifier: GPL-2.0-only
/* Which outliers the aggregation counts (agg_filter.h). */
#include <string.h>
#include "agg_filter.h"

void agg_filter_init(struct agg_filter *f)
{
	memset(f, 0, sizeof(*f));
	f->pid = -1;
	f->tid = -1;
	f->begin_ns = INT64_MIN;
	f->end_ns = INT64_MAX;
}

bool agg_filter_pass(const struct agg_filter *f, const struct outlier *o)
{
	if (f->syscall && strcmp(f->syscall, o->syscall))
		return false;
	if (f->comm && strcmp(f->comm, o->comm))
		return false;
	if (f->pid >= 0 && f->pid != o->pid)
		return false;
	if (f->tid >= 0 && f->tid != o->tid)
		return false;
	return o->latency_ns >= f->min_latency_ns && o->entry_epoch_ns >= f->begin_ns &&
	       o->entry_epoch_ns <= f->end_ns;
}
