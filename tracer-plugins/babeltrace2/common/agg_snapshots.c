// SPDX-License-Identifier: GPL-2.0-only
/* The snapshots taken for outliers and their totals (agg_snapshots.h). */
#include "aggregate.h"
#include "agg_grow.h"

int agg_add_snapshot(struct agg *a, const struct snapshot_ref *s)
{
	if (!agg_filter_pass(&a->filter, &s->outlier))
		return 0;
	if (agg_grow((void **)&a->snapshots, &a->cap_snapshots, a->nr_snapshots,
		     sizeof(*a->snapshots)))
		return -ENOMEM;
	a->snapshots[a->nr_snapshots++] = *s;
	return 0;
}

void agg_add_snapshot_count(struct agg *a, const struct snapshot_count *c)
{
	/* One per run; a trace of several runs (one session, --session) holds several. */
	a->snapshot_count.outliers += c->outliers;
	a->snapshot_count.discarded += c->discarded;
	a->snapshot_count.requested += c->requested;
	a->snapshot_count.taken += c->taken;
	a->snapshot_count.failed += c->failed;
	a->snapshot_count.unreported += c->unreported;
	a->snapshot_counted = true;
}

const struct snapshot_ref *agg_snapshot_of(const struct agg *a, const struct outlier *o)
{
	size_t i;

	/* Snapshots are few: the rate policy and the minimum latency keep them so. */
	for (i = 0; i < a->nr_snapshots; i++)
		if (a->snapshots[i].outlier.tid == o->tid &&
		    a->snapshots[i].outlier.entry_ts == o->entry_ts)
			return &a->snapshots[i];
	return NULL;
}
