// SPDX-License-Identifier: GPL-2.0-only
/*
 * What the run sends out: every outlier, from the drain or handed back by
 * the unwinder, to the output, and counted where it counts (the controller,
 * the snapshot trigger).
 */
#include "run_state.h"
#include "outputs/snapshot_trigger.h"

void fanout_outlier(struct run *r, const struct pending_outlier *p, const struct explanation *x)
{
	const struct sclat_event *e = &p->e;
	int err;

	if (r->out_err)
		return;
	err = r->out->outlier(r->out->ctx, e, (__s64)e->entry_ns + r->epoch_offset_ns, &p->basis,
			      x);
	if (err) {
		r->out_err = err;
		return;
	}
	controller_outlier_delivered(r->ctl, e->nr, e->entry_ns + e->latency_ns, x->bpf_ns,
				     x->user_ns);
	if (r->out->snapshot_trigger)
		snapshot_trigger_outlier(r->out->snapshot_trigger, e->latency_ns);
}
