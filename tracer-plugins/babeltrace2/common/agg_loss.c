// SPDX-License-Identifier: GPL-2.0-only
/* Losses and completeness (agg_loss.h): what each trace lacks, and why it says so. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "aggregate.h"

/* A host's losses: an sclat:lost that LTTng discarded still shows in the next one's totals. */
static void host_loss_finish(struct agg_loss *l)
{
	if (l->total_drops > l->drops)
		l->drops = l->total_drops;
	if (l->total_throttled > l->throttled)
		l->throttled = l->total_throttled;
	if (l->total_braked > l->braked)
		l->braked = l->total_braked;
}

/* Why a trace is incomplete; of which host, when the traces are of several. */
static void __attribute__((format(printf, 3, 4)))
warn(struct agg *a, const struct agg_host *h, const char *fmt, ...)
{
	char *w = a->warnings[a->nr_warnings];
	va_list ap;
	int n = 0;

	if (a->nr_warnings == AGG_MAX_WARNINGS)
		return;
	a->nr_warnings++;
	if (a->nr_hosts > 1)
		n = snprintf(w, AGG_WARNING_LEN, "host %s: ", h->name);
	va_start(ap, fmt);
	vsnprintf(w + n, AGG_WARNING_LEN - n, fmt, ap);
	va_end(ap);
}

/*
 * What sclat wrote (sclat:session_end) against what host h's trace holds and
 * what LTTng counts as discarded. LTTng counts discarded events of every
 * kind, so outliers are missing only when even all the discards cannot
 * explain them. Returns whether the trace's completeness can be told.
 */
static bool completeness_check(struct agg *a, struct agg_host *h)
{
	const struct agg_runs *r = &h->runs;
	struct agg_loss *l = &h->loss;
	uint64_t wrote = r->totals.outliers;
	bool ended = r->ended && r->ended >= r->begun, known = true;

	if (r->begun && !r->ended && r->version < 2)
		known = false;
	else if (!ended)
		warn(a, h,
		     "no end-of-run accounting (sclat:session_end): sclat record did not finish "
		     "this trace (killed, or its output failed); what it wrote after the last "
		     "event here is lost and not counted");
	/*
	 * Without it (version 1, or cut short), the statistics still count what
	 * the kernel emitted in the intervals that reached the trace.
	 */
	if (!ended && h->seen + l->discarded < r->stats_outliers && !l->discarded_unknown)
		warn(a, h,
		     "%llu of the %llu outliers that the trace's sclat:stats count are neither in "
		     "the trace nor counted as discarded by LTTng",
		     (unsigned long long)(r->stats_outliers - h->seen - l->discarded),
		     (unsigned long long)r->stats_outliers);
	if (ended) {
		if (r->begun < r->ended)
			warn(a, h, "no sclat:session_begin: the start of the trace is missing");
		if (h->seen > wrote)
			warn(a, h,
			     "the trace holds %llu outliers, more than the %llu sclat wrote into "
			     "it: its counts do not add up",
			     (unsigned long long)h->seen, (unsigned long long)wrote);
		else if (h->seen + l->discarded < wrote && !l->discarded_unknown)
			warn(a, h,
			     "%llu of the %llu outliers sclat wrote are neither in the trace nor "
			     "counted as discarded by LTTng",
			     (unsigned long long)(wrote - h->seen - l->discarded),
			     (unsigned long long)wrote);
		if (r->totals.children_not_followed)
			warn(a, h,
			     "%llu new processes of the traced command or pids were not followed (the "
			     "scope's table was full): their syscalls are not in the trace",
			     (unsigned long long)r->totals.children_not_followed);
		/* The kernel's final counts, even when LTTng discarded the last sclat:lost. */
		if (r->totals.drops > l->drops)
			l->drops = r->totals.drops;
		if (r->totals.throttled > l->throttled)
			l->throttled = r->totals.throttled;
		if (r->totals.braked > l->braked)
			l->braked = r->totals.braked;
	}
	if (l->discarded_packets)
		warn(a, h,
		     "packets missing from the trace: %llu (gaps in their sequence numbers); the "
		     "events they held are lost and not counted",
		     (unsigned long long)l->discarded_packets);
	return known;
}

void agg_loss_finish(struct agg *a)
{
	bool known = true;
	size_t i;

	memset(&a->loss, 0, sizeof(a->loss));
	for (i = 0; i < a->nr_hosts; i++) {
		struct agg_loss *l = &a->hosts[i]->loss;

		host_loss_finish(l);
		known &= completeness_check(a, a->hosts[i]);
		a->loss.drops += l->drops;
		a->loss.throttled += l->throttled;
		a->loss.braked += l->braked;
		a->loss.discarded += l->discarded;
		a->loss.discarded_unknown |= l->discarded_unknown;
		a->loss.discarded_packets += l->discarded_packets;
		agg_run_end_add(&a->ended, &a->hosts[i]->runs.totals);
	}
	a->complete = a->nr_warnings ? AGG_INCOMPLETE : known ? AGG_COMPLETE : AGG_UNKNOWN;
}

bool agg_loss_counted(const struct agg_loss *l)
{
	return l->drops || l->throttled || l->braked || l->discarded || l->discarded_unknown;
}

bool agg_loss_any(const struct agg *a)
{
	return agg_loss_counted(&a->loss) || a->complete == AGG_INCOMPLETE;
}
