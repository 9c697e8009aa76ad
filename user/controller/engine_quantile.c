// SPDX-License-Identifier: GPL-2.0-only
/*
 * What a bucketed window says of its calls: the latency at a rank (a
 * quantile) and the share above a latency. The engine sets thresholds from
 * them; the controller reports percentiles with them, and hands what an
 * outlier is judged by (its basis) to the consumer.
 */
#include <math.h>
#include <string.h>
#include "engine.h"

/*
 * The bucket that holds the sample of rank q * total, and how far into it
 * that rank falls (0..1); -1 when the window is empty. Past the last non-empty
 * bucket (rounding), that bucket, all the way in.
 */
static int quantile_bucket(const double *window, double total, double q, double *frac)
{
	double rank, cum = 0;
	int b, last = -1;

	if (total <= 0)
		return -1;
	/* A hair under q * total so that an exact product is not lost to rounding. */
	rank = q * total * (1 - 1e-12);
	for (b = 0; b < (int)SCLAT_HIST_BUCKETS; b++) {
		if (window[b] <= 0)
			continue;
		last = b;
		if (cum + window[b] >= rank) {
			*frac = fmax(rank - cum, 0) / window[b];
			return b;
		}
		cum += window[b];
	}
	*frac = 1;
	return last;
}

__u64 engine_quantile(const double *window, double total, double q)
{
	double frac;
	int b = quantile_bucket(window, total, q, &frac);

	return b < 0 ? 0 : sclat_hist_value(b);
}

__u64 engine_quantile_upper(const double *window, double total, double q)
{
	double frac;
	int b = quantile_bucket(window, total, q, &frac);

	return b < 0 ? 0 : sclat_hist_upper(b);
}

__u64 engine_quantile_interp(const double *window, double total, double q)
{
	double frac;
	__u64 width;
	int b = quantile_bucket(window, total, q, &frac);

	if (b < 0)
		return 0;
	width = sclat_hist_width(b);
	/* All the way in is the bucket's last ns, not the next bucket's first. */
	return sclat_hist_lower(b) + (frac >= 1 ? width - 1 : (__u64)(frac * width));
}

double engine_exceedance(const double *window, double total, __u64 t)
{
	unsigned int b = sclat_hist_bucket(t), i;
	double above = 0, part;

	if (total <= 0)
		return 0;
	for (i = b + 1; i < SCLAT_HIST_BUCKETS; i++)
		above += window[i];
	part = (double)(sclat_hist_upper(b) - t) / sclat_hist_width(b);
	above += window[b] * fmin(fmax(part, 0), 1);
	return above / total;
}

/* The share of the window above t, from its sums above each bucket (above[b]: b + 1 on). */
static double share_above(const struct engine_syscall *s, const double *above, __u64 t)
{
	unsigned int b = sclat_hist_bucket(t);
	double part = (double)(sclat_hist_upper(b) - t) / sclat_hist_width(b);

	return (above[b] + s->window[b] * fmin(fmax(part, 0), 1)) / s->samples;
}

void engine_window_basis(const struct engine_syscall *s, struct basis_window *w)
{
	const struct tail_fit *f = &s->fit_basis;
	double above[SCLAT_HIST_BUCKETS], x, sum = 0;
	unsigned int k;
	int b;

	memset(w, 0, sizeof(*w));
	if (s->samples <= 0)
		return;
	w->calls = s->samples;
	w->normal_ns = engine_quantile_interp(s->window, s->samples, 0.5);
	/* One pass from the top: the points of the tail cost a lookup each. */
	for (b = SCLAT_HIST_BUCKETS - 1; b >= 0; b--) {
		above[b] = sum;
		sum += s->window[b];
		if (s->window[b] > 0 && !w->max_ns)
			w->max_ns = sclat_hist_upper(b);
	}
	w->rate = s->quantile > 0 ? 1 - s->quantile : 0;
	/* A threshold that is off has no tail above it worth keeping. */
	w->tail_ns = s->threshold_ns < SCLAT_THRESHOLD_NEVER ? s->threshold_ns : 0;
	for (k = 0; w->tail_ns && k < BASIS_TAIL_POINTS; k++) {
		x = (double)w->tail_ns * exp2(k / 2.0);
		if (x >= 1.8e19)
			break;
		w->tail[k] = (float)share_above(s, above, (__u64)x);
	}
	/* A rate's threshold only: a rule changed to a quantile leaves its last fit behind. */
	if (s->armed && f->ok && engine_rule_rate(&s->rule))
		w->fit = (struct basis_fit){
			.ok = true,
			.start_ns = f->start_ns,
			.share = f->share,
			.above = f->above,
			.shape = f->shape,
			.scale_ns = f->scale_ns,
			.apart_ns = f->apart_ns,
			.apart_share = f->apart_share,
			.far_ns = f->far_ns,
			.censored = f->censored,
		};
	w->io_share = engine_io_share(s);
	w->io_ns = s->io_ns;
}

double engine_interval_exceedance(const struct engine_syscall *s, double total, __u64 t)
{
	double delta[SCLAT_HIST_BUCKETS];
	unsigned int b;

	for (b = 0; b < SCLAT_HIST_BUCKETS; b++)
		delta[b] = s->delta.bucket[b];
	return engine_exceedance(delta, total, t);
}
