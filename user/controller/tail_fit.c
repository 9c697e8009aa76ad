// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <math.h>
#include <string.h>
#include "sclat_abi.h"
#include "tail_fit.h"

/* Below this |shape| the exponential is used: (1 + xi y)^(-1/xi) loses digits there. */
#define SHAPE_EXPONENTIAL 1e-6
/* The simplex search: at most this many steps (each one or two likelihoods), to this precision. */
#define FIT_STEPS	  300
#define FIT_PRECISION	  1e-10

/* What the likelihood reads: the tail's buckets as intervals of excess over u. */
struct tail_bins {
	double lo[SCLAT_HIST_BUCKETS], hi[SCLAT_HIST_BUCKETS]; /* hi < 0: open-ended */
	double n[SCLAT_HIST_BUCKETS];
	unsigned int nr;
};

/* log P(Y > y) for an excess y >= 0 under GPD(shape, scale); -INFINITY past a bounded tail. */
static double log_survival(double y, double shape, double scale)
{
	double z = shape * y / scale;

	if (fabs(shape) < SHAPE_EXPONENTIAL)
		return -y / scale;
	if (z <= -1)
		return -INFINITY;
	return -log1p(z) / shape;
}

static double log_likelihood(const struct tail_bins *t, double shape, double log_scale)
{
	double scale = exp(log_scale), sum = 0, a, b;
	unsigned int i;

	if (shape < TAIL_FIT_SHAPE_MIN || shape > TAIL_FIT_SHAPE_MAX || !isfinite(scale))
		return -INFINITY;
	for (i = 0; i < t->nr; i++) {
		a = log_survival(t->lo[i], shape, scale);
		b = t->hi[i] < 0 ? -INFINITY : log_survival(t->hi[i], shape, scale);
		if (a == -INFINITY || b >= a)
			return -INFINITY; /* calls where the fit says there are none */
		/* log(S(lo) - S(hi)), without losing the far buckets to underflow */
		sum += t->n[i] * (a + log1p(-exp(b - a)));
	}
	return sum;
}

/* The tail from bucket first up to last, as excesses over first's lower edge; the calls in it. */
static double tail_bins_fill(struct tail_bins *t, const double *window, unsigned int first,
			     unsigned int last)
{
	double u = (double)sclat_hist_lower(first), above = 0;
	unsigned int b;

	t->nr = 0;
	for (b = first; b < last; b++) {
		if (window[b] <= 0)
			continue;
		t->lo[t->nr] = (double)sclat_hist_lower(b) - u;
		t->hi[t->nr] = b == SCLAT_HIST_BUCKETS - 1 ? -1 : (double)sclat_hist_upper(b) - u;
		t->n[t->nr] = window[b];
		above += window[b];
		t->nr++;
	}
	return above;
}

/* The method of moments on the buckets' midpoints: where the search starts. */
static void moments_start(const struct tail_bins *t, double above, double *shape, double *scale)
{
	double m = 0, v = 0, x;
	unsigned int i;

	for (i = 0; i < t->nr; i++)
		m += t->n[i] * (t->hi[i] < 0 ? t->lo[i] : (t->lo[i] + t->hi[i]) / 2);
	m /= above;
	for (i = 0; i < t->nr; i++) {
		x = (t->hi[i] < 0 ? t->lo[i] : (t->lo[i] + t->hi[i]) / 2) - m;
		v += t->n[i] * x * x;
	}
	v /= above;
	if (m <= 0 || v <= 0) {
		*shape = 0.1;
		*scale = m > 0 ? m : 1;
		return;
	}
	*shape = fmin(fmax(0.5 * (1 - m * m / v), TAIL_FIT_SHAPE_MIN + 0.1), 1.0);
	*scale = fmax(0.5 * m * (m * m / v + 1), 1e-3);
}

/* Nelder-Mead on (shape, log scale), maximizing; x[0] holds the start and gets the best. */
static void simplex_search(const struct tail_bins *t, double x[3][2])
{
	double f[3], c[2], r[2], e[2], fr, fe, fc, tmp;
	unsigned int i, j, k, step;

	x[1][0] = x[0][0] + 0.1;
	x[1][1] = x[0][1];
	x[2][0] = x[0][0];
	x[2][1] = x[0][1] + 0.3;
	for (i = 0; i < 3; i++)
		f[i] = log_likelihood(t, x[i][0], x[i][1]);
	for (step = 0; step < FIT_STEPS; step++) {
		/* Sort best first. */
		for (i = 0; i < 3; i++)
			for (j = i + 1; j < 3; j++)
				if (f[j] > f[i]) {
					tmp = f[i], f[i] = f[j], f[j] = tmp;
					for (k = 0; k < 2; k++)
						tmp = x[i][k], x[i][k] = x[j][k], x[j][k] = tmp;
				}
		if (isfinite(f[2]) && f[0] - f[2] <= FIT_PRECISION * (fabs(f[0]) + 1))
			break;
		for (k = 0; k < 2; k++) {
			c[k] = (x[0][k] + x[1][k]) / 2;
			r[k] = c[k] + (c[k] - x[2][k]);
		}
		fr = log_likelihood(t, r[0], r[1]);
		if (fr > f[0]) {
			for (k = 0; k < 2; k++)
				e[k] = c[k] + 2 * (c[k] - x[2][k]);
			fe = log_likelihood(t, e[0], e[1]);
			memcpy(x[2], fe > fr ? e : r, sizeof(x[2]));
			f[2] = fe > fr ? fe : fr;
		} else if (fr > f[1]) {
			memcpy(x[2], r, sizeof(x[2]));
			f[2] = fr;
		} else {
			for (k = 0; k < 2; k++)
				e[k] = c[k] + 0.5 * (x[2][k] - c[k]);
			fc = log_likelihood(t, e[0], e[1]);
			if (fc > f[2]) {
				memcpy(x[2], e, sizeof(x[2]));
				f[2] = fc;
			} else {
				/* Shrink towards the best. */
				for (i = 1; i < 3; i++) {
					for (k = 0; k < 2; k++)
						x[i][k] = x[0][k] + 0.5 * (x[i][k] - x[0][k]);
					f[i] = log_likelihood(t, x[i][0], x[i][1]);
				}
			}
		}
	}
}

/* Whether the calls from bucket b up, at most most of them, are past a stretch sparse below. */
static bool apart_above(const double *suffix, double total, unsigned int first, unsigned int b,
			double most, double sparse)
{
	double low = (double)sclat_hist_lower(b) / TAIL_FIT_APART_RATIO;
	unsigned int g;

	if (!(suffix[b] > 0) || suffix[b] > most * total || low < (double)sclat_hist_lower(first))
		return false;
	g = sclat_hist_bucket((__u64)low);
	return g > first && g < b && suffix[g] - suffix[b] <= sparse * suffix[b];
}

double tail_apart_most(const struct tail_apart *a, __u64 x)
{
	return a->far_ns && x >= a->far_ns && a->far_most > a->most ? a->far_most : a->most;
}

/*
 * The first bucket above first of a population apart from the tail: one
 * whose calls (from that bucket up) are at least 1 / TAIL_FIT_APART_SPARSE
 * times those of the latencies from 1 / TAIL_FIT_APART_RATIO of its start up to
 * it, that stretch lying within the tail, and that holds at most a share
 * most of the calls. SCLAT_HIST_BUCKETS: none. A smooth tail, however
 * heavy, has no such bucket: a Pareto of index a has 2^a - 1 times as
 * many calls in [x / 2, x) as above x.
 *
 * Of several such populations, the highest that holds a share
 * TAIL_FIT_APART_LEAST of most: a read's interrupted calls at 10-50 us,
 * apart from its 300 ns body, are its normal, and its 2 ms stalls above
 * them the population apart. Left out with the stalls, the interrupted
 * calls were all emitted (2.6x the rate). The lowest when none is that large.
 */
static unsigned int apart_start(const double *window, double total, unsigned int first,
				const struct tail_apart *a, double *share)
{
	double suffix[SCLAT_HIST_BUCKETS + 1], found = 0, most;
	unsigned int b, lowest = SCLAT_HIST_BUCKETS;

	*share = 0;
	if (!(a->most > 0))
		return SCLAT_HIST_BUCKETS;
	suffix[SCLAT_HIST_BUCKETS] = 0;
	for (b = SCLAT_HIST_BUCKETS; b-- > first;)
		suffix[b] = suffix[b + 1] + window[b];
	/*
	 * From the top. Once found, down to a lower gap while what that adds
	 * holds at most TAIL_FIT_APART_JOIN of most: a disk's faster reads
	 * under its slow ones are stalls too, and emitting them costs at
	 * most the rate if they are not.
	 */
	for (b = SCLAT_HIST_BUCKETS; b-- > first + 1;) {
		if (window[b] < TAIL_FIT_APART_EMPTY)
			continue;
		most = tail_apart_most(a, sclat_hist_lower(b));
		if (found > 0 && suffix[b] - found > TAIL_FIT_APART_JOIN * most * total)
			break;
		if (!apart_above(suffix, total, first, b, most, TAIL_FIT_APART_SPARSE))
			continue;
		lowest = b;
		if (!(found > 0) && suffix[b] >= TAIL_FIT_APART_LEAST * most * total)
			found = suffix[b];
	}
	/* None as large found: the one held, rather than a straggler's gap. */
	if (!(found > 0) && a->held_ns) {
		b = sclat_hist_bucket(a->held_ns);
		if (b < SCLAT_HIST_BUCKETS &&
		    apart_above(suffix, total, first, b,
				TAIL_FIT_APART_HOLD * tail_apart_most(a, a->held_ns),
				TAIL_FIT_APART_HOLD_SPARSE))
			lowest = b;
	}
	if (lowest < SCLAT_HIST_BUCKETS)
		*share = suffix[lowest] / total;
	return lowest;
}

int tail_fit(const double *window, double total, double tail_q, struct tail_fit *out)
{
	return tail_fit_apart_held(window, total, tail_q, 0, 0, out);
}

int tail_fit_apart(const double *window, double total, double tail_q, double apart_most,
		   struct tail_fit *out)
{
	return tail_fit_apart_held(window, total, tail_q, apart_most, 0, out);
}

int tail_fit_apart_held(const double *window, double total, double tail_q, double apart_most,
			__u64 held_ns, struct tail_fit *out)
{
	struct tail_apart a = { .most = apart_most, .held_ns = held_ns };

	return tail_fit_censored(window, total, tail_q, &a, 0, 0, out);
}

/*
 * The censored calls as one more bin, from censor_ns up (the bin it falls in
 * ends there: what it holds was learnt, so is under it); the calls added.
 */
static double tail_bins_censor(struct tail_bins *t, double u, double censored, __u64 censor_ns)
{
	double c = (double)censor_ns - u;
	unsigned int i;

	if (!(censored > 0) || c <= 0 || t->nr >= SCLAT_HIST_BUCKETS)
		return 0;
	for (i = 0; i < t->nr; i++)
		if (t->lo[i] < c && (t->hi[i] < 0 || t->hi[i] > c))
			t->hi[i] = c;
	t->lo[t->nr] = c;
	t->hi[t->nr] = -1;
	t->n[t->nr] = censored;
	t->nr++;
	return censored;
}

int tail_fit_censored(const double *window, double total, double tail_q,
		      const struct tail_apart *apart_rule, double censored, __u64 censor_ns,
		      struct tail_fit *out)
{
	struct tail_bins t;
	double rank, below = 0, above, shape, scale, x[3][2], apart;
	unsigned int b, cut;

	memset(out, 0, sizeof(*out));
	if (!(censored > 0))
		censored = 0;
	if (total <= 0)
		return -EAGAIN;
	/* The censored calls are the slowest: the quantile counts them, above it. */
	rank = tail_q * (total + censored);
	for (b = 0; b < SCLAT_HIST_BUCKETS - 1; b++) {
		if (below + window[b] > rank)
			break;
		below += window[b];
	}
	/*
	 * The tail starts at the bucket the quantile falls in: all of it is
	 * above u. A body narrower than its bucket (a 200 ns getppid, a 16 ns
	 * bucket holding half of the calls) would put the body in the tail and
	 * fit a shape to it, whose extrapolation is then far too heavy: the tail
	 * starts at the next bucket, where the calls above the quantile are.
	 */
	if (b < SCLAT_HIST_BUCKETS - 1 &&
	    total + censored - below > TAIL_FIT_START_SLACK * (1 - tail_q) * (total + censored))
		b++;
	cut = apart_start(window, total, b, apart_rule, &apart);
	above = tail_bins_fill(&t, window, b, cut);
	/* Censored past a population apart, they are its; under the tail's start, no news. */
	if (cut == SCLAT_HIST_BUCKETS || censor_ns < sclat_hist_lower(cut)) {
		out->censored =
			tail_bins_censor(&t, (double)sclat_hist_lower(b), censored, censor_ns);
		above += out->censored;
	}
	out->start_ns = sclat_hist_lower(b);
	out->above = above;
	out->share = above / (total + censored);
	out->apart_share = apart;
	out->apart_ns = cut < SCLAT_HIST_BUCKETS ? sclat_hist_lower(cut) : 0;
	out->far_ns = apart_rule->far_most > apart_rule->most ? apart_rule->far_ns : 0;
	out->buckets = t.nr;
	if (above < TAIL_FIT_MIN_ABOVE || t.nr < 3)
		return -EAGAIN;
	moments_start(&t, above, &shape, &scale);
	x[0][0] = shape;
	x[0][1] = log(scale);
	if (!isfinite(log_likelihood(&t, x[0][0], x[0][1]))) {
		/* A bounded start that ends below some calls: start from the exponential. */
		x[0][0] = 0;
	}
	simplex_search(&t, x);
	if (!isfinite(log_likelihood(&t, x[0][0], x[0][1])))
		return -EAGAIN;
	out->shape = fabs(x[0][0]) < SHAPE_EXPONENTIAL ? 0 : x[0][0];
	out->scale_ns = exp(x[0][1]);
	out->ok = true;
	return 0;
}

__u64 tail_fit_latency(const struct tail_fit *f, double p)
{
	double r, y;

	if (!f->ok || p >= f->share || p <= 0)
		return f->start_ns;
	r = p / f->share;
	if (f->shape == 0)
		y = -f->scale_ns * log(r);
	else
		y = f->scale_ns / f->shape * expm1(-f->shape * log(r));
	y += (double)f->start_ns;
	return y >= 0x1p63 ? (__u64)1 << 63 : (__u64)y;
}

double tail_fit_exceedance(const struct tail_fit *f, __u64 x)
{
	if (!f->ok)
		return 1;
	if (x <= f->start_ns)
		return f->share;
	return f->share * exp(log_survival((double)(x - f->start_ns), f->shape, f->scale_ns));
}
