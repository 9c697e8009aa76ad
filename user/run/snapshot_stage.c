// SPDX-License-Identifier: GPL-2.0-only
/*
 * --snapshot-session: the run drives the trigger of its snapshot sink
 * (outputs/snapshot_trigger.c), which its outliers fire. It asks for the
 * snapshots LTTng took, and sends each to the sinks as it comes; after the
 * last outlier, it waits for those still being taken, and says at the end
 * what became of them all.
 */
#include "run_state.h"
#include "outputs/snapshot_trigger.h"
#include "util/log.h"

/* How often the run loop asks whether LTTng reported snapshots. */
#define SNAPSHOT_POLL_NS 50000000ULL

/* From the run loop, at now: at most every SNAPSHOT_POLL_NS, the snapshots reported since. */
void snapshot_stage_poll(struct run *r, __u64 now)
{
	struct snapshot_taken s;

	if (!r->snapshot_trigger || now < r->next_snapshot_poll_ns)
		return;
	r->next_snapshot_poll_ns = now + SNAPSHOT_POLL_NS;
	while (snapshot_trigger_next(r->snapshot_trigger, &s))
		fanout_snapshot(r, &s);
}

/* The last outliers may have asked for snapshots still being taken. */
void snapshot_stage_settle(struct run *r)
{
	struct snapshot_taken s;

	if (!r->snapshot_trigger)
		return;
	while (snapshot_trigger_settle_next(r->snapshot_trigger, &s))
		fanout_snapshot(r, &s);
	snapshot_trigger_totals(r->snapshot_trigger, &r->snapshots);
}

/* What became of the snapshots the outliers asked for: the sinks' record, and a line. */
void snapshot_stage_end(struct run *r)
{
	const struct snapshot_totals *t = &r->snapshots;

	if (!r->snapshot_trigger)
		return;
	fanout_snapshot_end(r, t);
	log_note("%llu snapshots taken on %llu outliers, %llu failed, %llu unreported, "
		 "%llu discarded (session %s, trigger %s)",
		 (unsigned long long)t->taken, (unsigned long long)t->outliers,
		 (unsigned long long)t->failed, (unsigned long long)t->unreported,
		 (unsigned long long)t->discarded, t->session, t->trigger);
}
