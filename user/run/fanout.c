// SPDX-License-Identifier: GPL-2.0-only
/*
 * What the run sends out, to each of its sinks in order: every outlier (from
 * the drain, or handed back by the unwinder; counted by the controller once
 * all have it), the calls in flight, the ticks, the snapshots, the end; and
 * the controller's reports, from its thread, to each sink's hooks.
 */
#include <errno.h>
#include <stdlib.h>
#include "run_state.h"

#define each_sink(r, s) for (s = (r)->sinks; s < (r)->sinks + (r)->nr_sinks; s++)

void fanout_outlier(struct run *r, const struct pending_outlier *p, const struct explanation *x)
{
	const struct sclat_event *e = &p->e;
	__s64 entry_epoch_ns = (__s64)e->entry_ns + r->epoch_offset_ns;
	const struct sink *s;

	if (r->out_err)
		return;
	each_sink(r, s)
	{
		if (!s->outlier)
			continue;
		r->out_err = s->outlier(s->ctx, e, entry_epoch_ns, &p->basis, x);
		if (r->out_err)
			return;
	}
	controller_outlier_delivered(r->ctl, e->nr, e->entry_ns + e->latency_ns, x->bpf_ns,
				     x->user_ns);
}

bool fanout_takes_inflight(const struct run *r)
{
	const struct sink *s;

	each_sink(r, s) if (s->inflight) return true;
	return false;
}

void fanout_inflight(struct run *r, const struct sclat_inflight *rec, __u32 reports, bool final,
		     const struct explanation *x)
{
	__s64 entry_epoch_ns = (__s64)rec->e.entry_ns + r->epoch_offset_ns;
	const struct sink *s;

	each_sink(r, s)
	{
		if (!s->inflight || r->out_err)
			continue;
		r->out_err = s->inflight(s->ctx, rec, entry_epoch_ns, reports, final, x);
	}
}

void fanout_tick(struct run *r, __u64 elapsed_ns)
{
	struct controller_totals totals;
	const struct sink *s;
	bool read = false;

	each_sink(r, s)
	{
		if (!s->tick)
			continue;
		if (!read)
			controller_totals(r->ctl, &totals);
		read = true;
		s->tick(s->ctx, elapsed_ns, &totals);
	}
}

void fanout_snapshot(struct run *r, const struct snapshot_taken *t)
{
	const struct sink *s;

	each_sink(r, s) if (s->snapshot)
		s->snapshot(s->ctx, t, (__s64)t->entry_ns + r->epoch_offset_ns);
}

void fanout_snapshot_end(struct run *r, const struct snapshot_totals *t)
{
	const struct sink *s;

	each_sink(r, s) if (s->snapshot_end) s->snapshot_end(s->ctx, t);
}

/* Each sink's summary from the final per-syscall counts; non-zero when one failed. */
int fanout_end(struct run *r, const struct controller_totals *totals)
{
	struct syscall_count *counts = NULL;
	const struct sink *s;
	unsigned int n = 0;
	int err = 0;

	each_sink(r, s)
	{
		if (!s->end)
			continue;
		if (!counts) {
			counts = calloc(SCLAT_MAX_SYSCALLS + 1, sizeof(*counts));
			if (!counts)
				break;
			n = controller_counts(r->ctl, counts);
		}
		if (s->end(s->ctx, totals, counts, n))
			err = -EIO;
	}
	free(counts);
	return err;
}

/* The controller's reports, on its thread, to each sink's hooks that have them. */
static void on_threshold_update(void *ctx, unsigned int nr, __u64 old_ns, __u64 new_ns,
				const struct threshold_basis *basis)
{
	const struct sink *s;

	each_sink((const struct run *)ctx, s) if (s->hooks && s->hooks->threshold_update)
		s->hooks->threshold_update(s->hooks->ctx, nr, old_ns, new_ns, basis);
}

static void on_stats(void *ctx, const struct syscall_status *st, __u64 calls, __u64 outliers,
		     __u64 throttled, __u64 drops, __u64 interval_ns)
{
	const struct sink *s;

	each_sink((const struct run *)ctx, s) if (s->hooks && s->hooks->stats)
		s->hooks->stats(s->hooks->ctx, st, calls, outliers, throttled, drops, interval_ns);
}

static void on_lost(void *ctx, __u64 drops, __u64 throttled, __u64 braked, __u64 total_drops,
		    __u64 total_throttled, __u64 total_braked)
{
	const struct sink *s;

	each_sink((const struct run *)ctx, s) if (s->hooks && s->hooks->lost)
		s->hooks->lost(s->hooks->ctx, drops, throttled, braked, total_drops,
			       total_throttled, total_braked);
}

static void on_overhead(void *ctx, const struct controller_status *st)
{
	const struct sink *s;

	each_sink((const struct run *)ctx, s) if (s->hooks && s->hooks->overhead)
		s->hooks->overhead(s->hooks->ctx, st);
}

/*
 * The run's sinks; r->hooks has a fan-out hook for each report some sink
 * takes (the controller does no work for a report nobody takes), and
 * r->snapshot_trigger the first sink's trigger.
 */
void fanout_open(struct run *r, const struct sink *sinks, unsigned int nr_sinks)
{
	const struct sink *s;

	r->sinks = sinks;
	r->nr_sinks = nr_sinks < SINKS_MAX ? nr_sinks : SINKS_MAX;
	r->hooks = (struct controller_hooks){ .ctx = r };
	each_sink(r, s)
	{
		if (s->snapshot_trigger && !r->snapshot_trigger)
			r->snapshot_trigger = s->snapshot_trigger;
		if (!s->hooks)
			continue;
		if (s->hooks->threshold_update)
			r->hooks.threshold_update = on_threshold_update;
		if (s->hooks->stats)
			r->hooks.stats = on_stats;
		if (s->hooks->lost)
			r->hooks.lost = on_lost;
		if (s->hooks->overhead)
			r->hooks.overhead = on_overhead;
	}
}
