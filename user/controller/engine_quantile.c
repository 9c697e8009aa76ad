// SPDX-License-Identifier: GPL-2.0-only
/*
 * What a bucketed window says of its calls: the latency at a rank (a
 * quantile) and the share above a latency. The engine sets thresholds from
 * them; the controller reports percentiles with them.
 */
#include <math.h>
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
	part = (double)(sclat_hist_lower(b) + sclat_hist_width(b) - t) / sclat_hist_width(b);
	above += window[b] * fmin(fmax(part, 0), 1);
	return above / total;
}
