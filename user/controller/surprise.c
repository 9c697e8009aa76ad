// SPDX-License-Identifier: GPL-2.0-only
/* An outlier's surprise and impact, from its threshold's basis (surprise.h). */
#include <math.h>
#include <string.h>
#include "surprise.h"
#include "tail_fit.h"

/*
 * The window's share of calls at or above x: between two of the points
 * kept above the threshold, log-linear in log latency (a tail's shares fall
 * as a power of the latency); below the first, the first; past the last
 * point with calls, the last.
 */
static double window_share(const struct basis_window *w, __u64 x)
{
	double pos, frac, lo, hi;
	unsigned int k;

	if (!w->tail_ns || x <= w->tail_ns)
		return w->tail[0];
	pos = 2 * log2((double)x / (double)w->tail_ns);
	k = pos >= BASIS_TAIL_POINTS - 1 ? BASIS_TAIL_POINTS - 1 : (unsigned int)pos;
	lo = w->tail[k];
	if (k == BASIS_TAIL_POINTS - 1 || lo <= 0)
		return lo;
	hi = w->tail[k + 1];
	if (hi <= 0)
		return lo;
	frac = pos - k;
	return exp(log(lo) + frac * (log(hi) - log(lo)));
}

/* p as a score, a bound when p is below what can be said (floor). */
static void score_set(struct surprise *out, double p, double floor)
{
	if (!(p > floor)) {
		p = floor;
		out->at_least = true;
	}
	out->p = p;
	out->score = fmax(-log10(p), 0);
}

void surprise_judge_call(const struct threshold_basis *b, __u64 judged_ns, __u64 latency_ns,
			 struct surprise *out)
{
	surprise_judge(b, judged_ns, out);
	if (out->known)
		out->impact_ns = latency_ns > out->normal_ns ? latency_ns - out->normal_ns : 0;
	else
		out->impact_ns = latency_ns;
}

void surprise_judge(const struct threshold_basis *b, __u64 latency_ns, struct surprise *out)
{
	const struct basis_window *w = &b->w;
	struct tail_fit f;

	memset(out, 0, sizeof(*out));
	out->impact_ns = latency_ns;
	if (!(w->calls > 0))
		return;
	out->known = true;
	out->normal_ns = w->normal_ns;
	out->impact_ns = latency_ns > w->normal_ns ? latency_ns - w->normal_ns : 0;
	if (w->fit.ok && latency_ns >= w->fit.start_ns) {
		f = (struct tail_fit){
			.ok = true,
			.start_ns = w->fit.start_ns,
			.share = w->fit.share,
			.above = w->fit.above,
			.shape = w->fit.shape,
			.scale_ns = w->fit.scale_ns,
		};
		out->fitted = true;
		score_set(out, tail_fit_exceedance(&f, latency_ns), pow(10, -SURPRISE_MAX));
		return;
	}
	/* Slower than every call the window held: all it says is fewer than one in its calls. */
	if (latency_ns >= w->max_ns) {
		score_set(out, 0, 1 / fmax(w->calls, 1));
		return;
	}
	score_set(out, window_share(w, latency_ns), 1 / fmax(w->calls, 1));
}
