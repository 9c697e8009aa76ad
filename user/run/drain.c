// SPDX-License-Identifier: GPL-2.0-only
/*
 * The drain: each outlier the kernel wrote into the ring buffer, explained,
 * and on its way out (or to the unwinder first, when it carries a user
 * stack). Runs on the run's own thread, inside probes_poll().
 */
#include "run_state.h"
#include "controller/inflight.h"

/*
 * An outlier with a user stack goes to the unwinder and comes back to this
 * thread once named, in the order they came; the others go out at once. So
 * a thread's outliers with stacks keep their order among themselves, and an
 * outlier without one (the queue was full, a kernel thread) may go out
 * before that thread's earlier ones still being unwound: entry_ts orders
 * them.
 */
int drain_event(void *ctx, const struct sclat_event *e, size_t size)
{
	struct run *r = ctx;
	struct pending_outlier *p = &r->p;
	const struct sclat_ustack *cap;

	unwound_deliver(r);
	p->e = *e;
	controller_basis(r->ctl, e->nr, e->cell, e->threshold_gen, e->threshold_ns, &p->basis);
	/* A malformed part loses that part, not the outlier. */
	explain_outlier(r->explain, e, size, &p->x);
	p->x.inflight_reports = inflight_returned(r->inflight, e->tid, e->entry_ns);
	cap = p->x.ustack_capture;
	/* The capture stays in the ring buffer: the queue keeps its own copy. */
	p->x.ustack_capture = NULL;
	if (cap && (cap->flags & SCLAT_USTACK_SKIPPED)) {
		/* The kernel left it out: its ring buffer filling up, or the CPU past its rate. */
		r->unwound.skipped++;
		p->x.user_stack_dropped = true;
	} else if (cap && r->unwound.worker) {
		if (!unwound_submit(r, e, cap))
			return r->out_err;
		p->x.user_stack_dropped = true;
		p->x.user_stack_missing = OUTLIER_USTACK_QUEUE;
	}
	fanout_outlier(r, p, &p->x);
	return r->out_err;
}
