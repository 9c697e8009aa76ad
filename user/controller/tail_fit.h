/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The tail of a syscall's (or class's) latencies, fitted from its bucketed
 * window: peaks over threshold. Above a high empirical quantile u, the
 * excesses X - u of most latency distributions are close to a Generalized
 * Pareto distribution (Pickands-Balkema-de Haan), with
 *
 *	P(X > x) = share * (1 + shape * (x - u) / scale)^(-1 / shape)	(x >= u)
 *
 * (the exponential exp(-(x - u) / scale) when shape is 0), where share is
 * the window's share at or above u. Its inverse gives the latency a normal
 * call exceeds with a chosen probability, past what the window has seen:
 * a 1-in-a-million rule needs far fewer than a million calls (Siffer et al.,
 * "Anomaly Detection in Streams with Extreme Value Theory", KDD 2017).
 *
 * The fit is a maximum-likelihood one on the buckets themselves (each
 * bucket's count is the probability mass of its interval), so a bucket's
 * width costs no bias; a simplex search from the method of moments, bounded
 * in steps, so one fit costs a bounded time whatever the window holds.
 * Pure arithmetic: no BPF, no threads.
 */
#ifndef SCLAT_TAIL_FIT_H
#define SCLAT_TAIL_FIT_H

#include <stdbool.h>
#include <linux/types.h>

/* Fewer (decayed) calls above u than this and the fit is not trusted. */
#define TAIL_FIT_MIN_ABOVE	   100.0
/* The shapes a fit may take: below, a bounded tail; above, no mean. */
#define TAIL_FIT_SHAPE_MIN	   -0.5
#define TAIL_FIT_SHAPE_MAX	   1.5
/*
 * A population apart: its calls at least 1 / TAIL_FIT_APART_SPARSE times
 * those of the stretch of latencies TAIL_FIT_APART_RATIO wide under it; its
 * first bucket holds TAIL_FIT_APART_EMPTY calls or more. No smooth tail a
 * fit may take has such a stretch (a Pareto of index 1 / 1.5 has 0.59 times
 * as many calls in [x / 2, x) as above x), and a loaded machine's body spills
 * into the stretch under a disk's reads: at 0.05, (i)'s were taken for the
 * tail in one run of four (24 % caught).
 */
#define TAIL_FIT_APART_RATIO	   2.0
#define TAIL_FIT_APART_SPARSE	   0.15
#define TAIL_FIT_APART_EMPTY	   0.5
/* Of several populations apart, the highest with this share of the most allowed. */
#define TAIL_FIT_APART_LEAST	   0.1
/* Lower populations joined to it while they add at most this share of the most allowed. */
#define TAIL_FIT_APART_JOIN	   0.2
/* A population left out stays so while it holds this share of the most, */
#define TAIL_FIT_APART_HOLD	   2.0
/* and the stretch under it at most this share of its calls. */
#define TAIL_FIT_APART_HOLD_SPARSE 0.25
/* The quantile's bucket holding more than this times the tail's share: the tail starts after it. */
#define TAIL_FIT_START_SLACK	   2.0

struct tail_fit {
	bool ok;	/* a fit was made; when not, the fields below say nothing */
	__u64 start_ns; /* u: the lower edge of the bucket where the tail starts */
	/* (the bucket after the quantile's when that one holds more than
	 * TAIL_FIT_START_SLACK times the tail's share) */
	double share;	      /* the window's share of calls at or above u */
	double above;	      /* the window's (decayed) calls at or above u */
	double shape;	      /* xi */
	double scale_ns;      /* sigma, ns */
	unsigned int buckets; /* buckets with calls at or above u: what the fit saw */
	/*
	 * A population apart from the tail (tail_fit_apart), left out of the
	 * fit and of share: where it starts (0: none) and its share of calls.
	 */
	__u64 apart_ns;
	double apart_share;
	/* From where a population apart may hold a larger share (struct tail_apart); 0: nowhere. */
	__u64 far_ns;
	/* Of above: calls known only to be past a threshold (tail_fit_censored). */
	double censored;
};

/*
 * Fit the tail of window (SCLAT_HIST_BUCKETS decayed counts summing to
 * total) above its tail_q quantile (0.9 to 0.999; 0.98 is Siffer's choice).
 * Returns 0, or -EAGAIN (out->ok false) when fewer than TAIL_FIT_MIN_ABOVE
 * calls, or fewer than 3 buckets, are above: then no fit is to be trusted.
 */
int tail_fit(const double *window, double total, double tail_q, struct tail_fit *out);

/*
 * The same, leaving out of the fit a population apart from the tail: calls
 * past a stretch of latencies with none (TAIL_FIT_APART_RATIO wide, above
 * u) that hold at most a share apart_most of the window (0: none left out).
 * Stalls (a disk read among page-cache reads, a lock wait among CPU-bound
 * calls) are such: rarer than normal variation and far from it, they would
 * otherwise be the tail the rate's threshold is taken from, and never be
 * outliers. A population apart that holds more is a mode of the normal.
 */
int tail_fit_apart(const double *window, double total, double tail_q, double apart_most,
		   struct tail_fit *out);

/*
 * The same, held_ns the start of the population left out the interval
 * before (0: none): when no population is apart by the rules above, that
 * one is still left out while it is nearly so (at most TAIL_FIT_APART_HOLD
 * times apart_most, the stretch under it at most TAIL_FIT_APART_HOLD_SPARSE
 * of its calls). A disk's reads whose share or gap wavers about the rules
 * would otherwise join the tail for an interval, and the threshold jump
 * above them.
 */
int tail_fit_apart_held(const double *window, double total, double tail_q, double apart_most,
			__u64 held_ns, struct tail_fit *out);

/*
 * Which populations apart are left out (tail_fit_apart_held's apart_most and
 * held_ns), and one more: one from far_ns up (0: none) may hold a share
 * far_most when that is more. Stalls far past the tail are told from it
 * by distance as well as by frequency.
 */
struct tail_apart {
	double most;
	double far_most;
	__u64 far_ns;
	__u64 held_ns;
};

/* The share of the calls a population apart from x ns up may hold under a. */
double tail_apart_most(const struct tail_apart *a, __u64 x);

/*
 * The same, censored calls (decayed, as the window's) known to be slower
 * than censor_ns and not in window: the calls past a threshold, which its
 * window does not learn (SPOT). They are in the fit as that many calls past
 * censor_ns (right-censored), in total and share. Without them, a tail that
 * runs on past the threshold looks lighter than it is, the more so the more
 * calls cross it, and the threshold taken from it lower.
 */
int tail_fit_censored(const double *window, double total, double tail_q,
		      const struct tail_apart *apart, double censored, __u64 censor_ns,
		      struct tail_fit *out);

/* The latency a normal call exceeds with probability p, per the fit (p < f->share). */
__u64 tail_fit_latency(const struct tail_fit *f, double p);

/* The probability that a normal call is slower than x ns, per the fit (x >= f->start_ns). */
double tail_fit_exceedance(const struct tail_fit *f, __u64 x);

#endif
