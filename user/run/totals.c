// SPDX-License-Identifier: GPL-2.0-only
/*
 * The end of a run: the sinks' summaries from the controller's final counts,
 * and the closing lines on stderr, which say what the run measured and what
 * it could not do or lost.
 */
#include <stdio.h>
#include "run_state.h"
#include "controller/inflight.h"
#include "kernel/probes_load.h"
#include "util/log.h"

/* Counted while the tracer ran, and said once more when it ends: not lost with it. */
static void losses_say(const struct run *r, const struct controller_totals *totals)
{
	__u64 inflight_reports = inflight_reports_total(r->inflight);

	if (totals->kernel_stacks_skipped || totals->wakers_lost || totals->class_ids_refused ||
	    totals->class_requests_lost)
		log_warn("%llu kernel stacks skipped (burst guard), %llu wakers lost, %llu "
			 "class ids refused, %llu class requests lost (asked again)",
			 (unsigned long long)totals->kernel_stacks_skipped,
			 (unsigned long long)totals->wakers_lost,
			 (unsigned long long)totals->class_ids_refused,
			 (unsigned long long)totals->class_requests_lost);
	if (totals->backs_unseen)
		log_warn("%llu blocked calls not traced back onto a CPU (the kernel traced no "
			 "switch): their block's end, waker and kernel stack are unknown",
			 (unsigned long long)totals->backs_unseen);
	if (totals->children_not_followed)
		log_warn("%llu new processes not followed: the scope's table of %d "
			 "processes was full, their syscalls were not measured",
			 (unsigned long long)totals->children_not_followed, PROBES_SCOPE_PIDS_MAX);
	if (inflight_reports)
		log_note("%llu reports of calls in flight, %llu still in flight at stop",
			 (unsigned long long)inflight_reports,
			 (unsigned long long)r->inflight_at_stop);
	/*
	 * What the kernel emitted and was never written, counted: the output
	 * failed, or (a bug) an outlier went astray on its way.
	 */
	if (totals->emitted > totals->outliers)
		log_err("%llu outliers not written: %s",
			(unsigned long long)(totals->emitted - totals->outliers),
			r->out_err	 ? "the output failed"
			: r->poll_failed ? "the ring buffer could not be read"
					 : "lost on their way out");
}

int run_totals_end(struct run *r)
{
	struct controller_totals totals;
	int err;

	controller_totals(r->ctl, &totals);
	err = fanout_end(r, &totals);
	/* Braked: only when the brake held some back (the line's end is read as is). */
	if (totals.braked)
		log_note("%llu syscalls, %llu outliers, %llu dropped, %llu throttled, %llu braked",
			 (unsigned long long)totals.syscalls, (unsigned long long)totals.outliers,
			 (unsigned long long)totals.drops, (unsigned long long)totals.throttled,
			 (unsigned long long)totals.braked);
	else
		log_note("%llu syscalls, %llu outliers, %llu dropped, %llu throttled",
			 (unsigned long long)totals.syscalls, (unsigned long long)totals.outliers,
			 (unsigned long long)totals.drops, (unsigned long long)totals.throttled);
	losses_say(r, &totals);
	return err;
}
