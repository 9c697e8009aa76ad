// SPDX-License-Identifier: GPL-2.0-only
/*
 * The tail fit: its parameters on tails of known shape, and what a user of a
 * false-alarm rate checks: a threshold learnt from a window too small to see
 * that rate is crossed by about that share of the calls that come after.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include "controller/tail_fit.h"
#include "sclat_abi.h"
#include "unit.h"

/* splitmix64: a stream of its own per test, the same on every run. */
static uint64_t rng_state;

static double uniform(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	z ^= z >> 31;
	return ((z >> 11) + 0.5) * 0x1p-53; /* in (0, 1) */
}

/* A latency of ns: x = 1 us + Exp(mean 200 ns): an exponential tail (shape 0, scale 200). */
static double exponential_call(void)
{
	return 1000 - 200 * log(uniform());
}

/* Pareto of index 4 from 2 us: excesses over any u are GPD of shape 0.25, scale u / 4. */
static double pareto_call(void)
{
	return 2000 * pow(uniform(), -0.25);
}

/* A lognormal around 5 us (sigma 0.5): no exact GPD tail, as real latencies. */
static double lognormal_call(void)
{
	double z = sqrt(-2 * log(uniform())) * cos(2 * M_PI * uniform());

	return 5000 * exp(0.5 * z);
}

/*
 * A getppid: 99.5 % of calls within 8 ns of 193 ns, one bucket of the
 * histogram's, and an exponential tail from 260 ns (mean 300 ns) beyond.
 */
static double narrow_call(void)
{
	if (uniform() < 0.995)
		return 193 + 8 * uniform();
	return 260 - 300 * log(uniform());
}

/*
 * A read from the page cache, 5 us and an exponential tail, and one in 5000
 * from the disk, 1 to 3 ms: stalls, apart from the tail.
 */
static double stalled_call(void)
{
	if (uniform() < 1.0 / 5000)
		return 1e6 + 2e6 * uniform();
	return 5000 - 500 * log(uniform());
}

/* Two modes of the normal: 99 % of calls at 5 us, 1 % (a socket's) at 1 ms. */
static double two_mode_call(void)
{
	if (uniform() < 0.01)
		return 1e6 - 1e5 * log(uniform());
	return 5000 - 500 * log(uniform());
}

/*
 * (d)'s fast read measured: a 300 ns body, 3 in 10,000 calls interrupted for
 * 7 us or more (apart from the body too, a Pareto tail of index 1.5 whose
 * stragglers reach up to the stalls), and one in 5000 stalled 2 ms.
 */
static double interrupted_call(void)
{
	double u = uniform(), x;

	if (u < 2e-4)
		return 2e6 + 2e5 * uniform();
	if (u < 5e-4) {
		x = 7000 * pow(uniform(), -1 / 1.5);
		return x < 1.9e6 ? x : 1.9e6;
	}
	return 250 - 30 * log(uniform());
}

/*
 * (e)'s file: reads from the page cache (5 us), and one in 5000 from the
 * disk: most of them 1 to 3 ms, one in ten of them 40 to 60 us.
 */
static double two_disk_call(void)
{
	double u = uniform();

	if (u < 1.8e-4)
		return 1e6 + 2e6 * uniform();
	if (u < 2e-4)
		return 40000 + 20000 * uniform();
	return 5000 - 500 * log(uniform());
}

/*
 * Reads of 5 us, one in 5000 stalled 1 to 3 ms, and a heavy tail (Pareto of
 * index 1 from 10 us, 4 in 1000) that fills the stretch under the stalls
 * with a little more than the rules allow a population apart (a fifth of
 * the stalls' calls, TAIL_FIT_APART_SPARSE 0.15) and less than they allow one
 * held (TAIL_FIT_APART_HOLD_SPARSE 0.25).
 */
static double wavering_call(void)
{
	double u = uniform(), x;

	if (u < 2e-4)
		return 1e6 + 2e6 * uniform();
	if (u < 4.2e-3) {
		x = 10000 / uniform();
		return x < 1e8 ? x : 1e8;
	}
	return 5000 - 500 * log(uniform());
}

/*
 * (i)'s file reads on a loaded machine: page-cache reads (1.3 us), one in
 * 5000 from the disk at 128 us to 2 ms, and the body's stragglers (2 in
 * 1000, a Pareto of index 2 from 8 us), which put under the disk's reads,
 * from 64 to 128 us, an eighth as many calls as theirs.
 */
static double loaded_disk_call(void)
{
	double u = uniform();

	if (u < 2e-4)
		return 128000 + 1.9e6 * uniform();
	if (u < 2.2e-3)
		return 8000 / sqrt(uniform());
	return 1300 - 300 * log(uniform());
}

static double window[SCLAT_HIST_BUCKETS];

static double fill(double (*call)(void), unsigned long n)
{
	unsigned long i;

	memset(window, 0, sizeof(window));
	for (i = 0; i < n; i++)
		window[sclat_hist_bucket((__u64)call())]++;
	return (double)n;
}

/* Of n fresh calls, how many are slower than t. */
static unsigned long slower(double (*call)(void), unsigned long n, __u64 t)
{
	unsigned long i, k = 0;

	for (i = 0; i < n; i++)
		k += call() > (double)t;
	return k;
}

/* fill() of the calls at most censor_ns; the rest only counted, returned in *past. */
static double fill_censored(double (*call)(void), unsigned long n, __u64 censor_ns, double *past)
{
	unsigned long i;
	double v, in = 0;

	memset(window, 0, sizeof(window));
	*past = 0;
	for (i = 0; i < n; i++) {
		v = call();
		if (v > (double)censor_ns) {
			(*past)++;
			continue;
		}
		window[sclat_hist_bucket((__u64)v)]++;
		in++;
	}
	return in;
}

/*
 * A window that does not learn the calls past a threshold set too low (at
 * 1e-3 of a Pareto's calls, where the rate is 1e-4): fitted from the calls
 * under it alone, the tail looks light (measured: shape -0.06 for 0.25), and
 * its 1e-4 point 40 % low; with the calls past it counted (censored), the fit has the
 * Pareto's shape again, and its 1e-4 point is within 25 % of the true one.
 */
static void test_calls_past_a_threshold_are_in_the_fit(void)
{
	/* Pareto of index 4 from 2 us: 1e-3 past 2 us * 1000^0.25, 1e-4 past 2 us * 10. */
	__u64 censor = (__u64)(2000 * pow(1000, 0.25)), truth = 20000, t;
	struct tail_fit f;
	double past, in;

	rng_state = 11;
	in = fill_censored(pareto_call, 1000000, censor, &past);
	CHECK(past > 900 && past < 1100, "%g calls past %llu ns", past, (unsigned long long)censor);
	CHECK_EQ_INT(tail_fit_apart_held(window, in, 0.98, 0, 0, &f), 0);
	t = tail_fit_latency(&f, 1e-4);
	CHECK(t < truth * 0.75, "truncated fit: 1e-4 at %llu ns, shape %g", (unsigned long long)t,
	      f.shape);
	CHECK_EQ_INT(
		tail_fit_censored(window, in, 0.98, &(struct tail_apart){ 0 }, past, censor, &f),
		0);
	t = tail_fit_latency(&f, 1e-4);
	CHECK(fabs(f.shape - 0.25) < 0.1, "censored fit: shape %g, expected 0.25", f.shape);
	CHECK(t > truth * 0.75 && t < truth * 1.25, "censored fit: 1e-4 at %llu ns, expected %llu",
	      (unsigned long long)t, (unsigned long long)truth);
	CHECK(f.share > 0.02 && f.share < 0.04, "share %g, the censored calls in it", f.share);
	CHECK(f.censored == past, "%g censored in the fit, %g past", f.censored, past);
}

static void test_exponential_tail_has_shape_zero(void)
{
	struct tail_fit f;

	rng_state = 1;
	CHECK_EQ_INT(tail_fit(window, fill(exponential_call, 1000000), 0.98, &f), 0);
	CHECK(f.ok, "no fit");
	CHECK(fabs(f.shape) < 0.05, "shape %g, expected 0", f.shape);
	CHECK_NEAR(f.scale_ns, 200, 0.1);
	/* The tail starts at the 0.98 quantile's bucket: 1000 + 200 ln 50 = 1782 ns. */
	CHECK(f.start_ns <= 1782 && f.start_ns > 1600, "start %llu",
	      (unsigned long long)f.start_ns);
	CHECK(f.share >= 0.02 && f.share < 0.04, "share %g", f.share);
}

static void test_pareto_tail_has_its_shape(void)
{
	struct tail_fit f;

	rng_state = 2;
	CHECK_EQ_INT(tail_fit(window, fill(pareto_call, 1000000), 0.98, &f), 0);
	CHECK(fabs(f.shape - 0.25) < 0.05, "shape %g, expected 0.25", f.shape);
	/* GPD scale of a Pareto's excesses over u: u / 4. */
	CHECK_NEAR(f.scale_ns, f.start_ns / 4.0, 0.15);
}

/*
 * The rate the operator chose, 1e-5 per call, from a window of 200,000 calls
 * (2 expected above: the window alone cannot place it): 10 million calls
 * after, within 2x of the 100 expected (3x for a tail that is not a GPD).
 */
static void check_rate(double (*call)(void), double slack)
{
	struct tail_fit f;
	unsigned long n;
	__u64 t;

	CHECK_EQ_INT(tail_fit(window, fill(call, 200000), 0.98, &f), 0);
	t = tail_fit_latency(&f, 1e-5);
	n = slower(call, 10000000, t);
	CHECK(n >= 100 / slack && n <= 100 * slack,
	      "%lu of 10M calls over %llu ns (shape %g scale %g from %llu), expected ~100", n,
	      (unsigned long long)t, f.shape, f.scale_ns, (unsigned long long)f.start_ns);
	/* The fit's own word for that latency is the rate it was asked for. */
	CHECK_NEAR(tail_fit_exceedance(&f, t), 1e-5, 0.01);
}

static void test_chosen_rate_holds_past_the_window(void)
{
	rng_state = 3;
	check_rate(exponential_call, 2);
	rng_state = 4;
	check_rate(pareto_call, 2);
	rng_state = 5;
	check_rate(lognormal_call, 3);
}

static void test_exceedance_falls_with_latency(void)
{
	struct tail_fit f;

	rng_state = 6;
	tail_fit(window, fill(lognormal_call, 100000), 0.98, &f);
	CHECK(f.ok, "no fit");
	CHECK_NEAR(tail_fit_exceedance(&f, f.start_ns), f.share, 1e-9);
	CHECK(tail_fit_exceedance(&f, 2 * f.start_ns) < f.share, "not below the share");
	CHECK(tail_fit_exceedance(&f, 10 * f.start_ns) < 1e-6, "10x the tail's start: %g",
	      tail_fit_exceedance(&f, 10 * f.start_ns));
	/* Rates the window sees need no fit: the tail's start. */
	CHECK_EQ_U64(tail_fit_latency(&f, 0.5), f.start_ns);
}

static void test_too_few_calls_above_is_no_fit(void)
{
	struct tail_fit f;

	rng_state = 7;
	CHECK_EQ_INT(tail_fit(window, fill(exponential_call, 1000), 0.98, &f), -EAGAIN);
	CHECK(!f.ok, "a fit on 20 calls");
	/* One latency, all calls in one bucket: nothing to fit. */
	memset(window, 0, sizeof(window));
	window[sclat_hist_bucket(5000)] = 1e6;
	CHECK_EQ_INT(tail_fit(window, 1e6, 0.98, &f), -EAGAIN);
	CHECK_EQ_INT(tail_fit(window, 0, 0.98, &f), -EAGAIN);
}

/*
 * When the quantile's bucket holds the body, the tail starts after it: the
 * body is no part of the fit, and the rate holds (it fitted a shape of 1.4
 * and put the 1e-5 threshold at 100 us when the body was in).
 */
static void test_narrow_body_stays_out_of_the_tail(void)
{
	struct tail_fit f;
	unsigned long n;
	__u64 t;

	rng_state = 5;
	CHECK_EQ_INT(tail_fit(window, fill(narrow_call, 1000000), 0.99, &f), 0);
	CHECK(f.share < 0.02, "share %g: the body's bucket is in the tail", f.share);
	CHECK(f.start_ns > 200, "start %llu", (unsigned long long)f.start_ns);
	CHECK(f.shape < 0.3, "shape %g, expected about 0", f.shape);
	t = tail_fit_latency(&f, 1e-5);
	n = slower(narrow_call, 10000000, t);
	CHECK(n >= 50 && n <= 200, "%lu of 10M calls over %llu ns, expected ~100", n,
	      (unsigned long long)t);
}

/*
 * Stalls at 20x the rate, far from the tail: left out of the fit, the tail
 * is the body's (exponential, its 1e-5 point at 5 us + 500 ns ln 1e5 =
 * 10.8 us). In the fit, they bend its shape: the threshold is 13x higher,
 * and a stall population nearer the body would be under it.
 */
static void test_stalls_apart_stay_out_of_the_fit(void)
{
	struct tail_fit in, apart;
	__u64 t;

	rng_state = 6;
	fill(stalled_call, 2000000);
	CHECK_EQ_INT(tail_fit(window, 2000000, 0.99, &in), 0);
	CHECK(in.shape > 0.5, "with the stalls, shape %g", in.shape);
	CHECK_EQ_INT(tail_fit_apart(window, 2000000, 0.99, 100 * 1e-5, &apart), 0);
	CHECK(fabs(apart.shape) < 0.1, "without, shape %g", apart.shape);
	t = tail_fit_latency(&apart, 1e-5);
	CHECK(t > 9000 && t < 13000, "without: %llu ns, expected ~10800", (unsigned long long)t);
	CHECK(tail_fit_latency(&in, 1e-5) > 5 * t, "with: %llu ns",
	      (unsigned long long)tail_fit_latency(&in, 1e-5));
	CHECK(apart.apart_ns > 100000 && apart.apart_ns <= 1000000, "apart from %llu ns",
	      (unsigned long long)apart.apart_ns);
	CHECK(apart.apart_share > 1e-4 && apart.apart_share < 3e-4, "apart share %g",
	      apart.apart_share);
}

/* A second mode that holds 1 % of the calls is normal: it stays in, and the threshold above it. */
static void test_a_mode_of_the_normal_is_kept(void)
{
	struct tail_fit f;

	rng_state = 7;
	fill(two_mode_call, 2000000);
	CHECK_EQ_INT(tail_fit_apart(window, 2000000, 0.99, 100 * 1e-5, &f), 0);
	CHECK(f.apart_ns == 0, "apart from %llu ns", (unsigned long long)f.apart_ns);
	CHECK(tail_fit_latency(&f, 1e-5) > 1000000, "threshold %llu ns under the mode",
	      (unsigned long long)tail_fit_latency(&f, 1e-5));
}

/*
 * Two populations apart from the body: the stalls at the top are the ones left
 * out, the interrupted calls under them stay in the tail (they are normal, and
 * a rate of 1e-4 sits among them).
 */
static void test_the_highest_population_is_the_one_apart(void)
{
	struct tail_fit f;

	rng_state = 8;
	fill(interrupted_call, 4000000);
	CHECK_EQ_INT(tail_fit_apart(window, 4000000, 0.99, 5 * 1e-4, &f), 0);
	/* The stalls, and the interrupted calls' stragglers up to a twentieth of them. */
	CHECK(f.apart_ns > 20000 && f.apart_ns <= 2000000, "apart from %llu ns",
	      (unsigned long long)f.apart_ns);
	CHECK(f.apart_share > 1.8e-4 && f.apart_share < 2.2e-4, "apart share %g", f.apart_share);
	/* The interrupted calls are in the tail fitted. */
	CHECK(f.share > 3e-4, "tail share %g", f.share);
}

/* A lower population apart that holds less than the rate joins the one above: both are stalls. */
static void test_faster_stalls_join_the_slower(void)
{
	struct tail_fit f;

	rng_state = 9;
	fill(two_disk_call, 4000000);
	CHECK_EQ_INT(tail_fit_apart(window, 4000000, 0.99, 5 * 1e-4, &f), 0);
	CHECK(f.apart_ns > 10000 && f.apart_ns <= 40000, "apart from %llu ns",
	      (unsigned long long)f.apart_ns);
	CHECK(f.apart_share > 1.8e-4 && f.apart_share < 2.2e-4, "apart share %g", f.apart_share);
}

/*
 * A disk's reads stay apart when a loaded machine's body spills into the
 * stretch under them, a tenth as many calls as theirs: no smooth tail is
 * that sparse under its top.
 */
static void test_disk_reads_over_a_spilt_body_are_apart(void)
{
	struct tail_fit f;

	rng_state = 12;
	fill(loaded_disk_call, 4000000);
	CHECK_EQ_INT(tail_fit_apart(window, 4000000, 0.99, 5 * 1e-4, &f), 0);
	CHECK(f.apart_ns >= 98304 && f.apart_ns <= 131072, "apart from %llu ns",
	      (unsigned long long)f.apart_ns);
	CHECK(f.apart_share > 1.9e-4 && f.apart_share < 2.3e-4, "apart share %g", f.apart_share);
}

/* The same page-cache reads, and one in 5000 at 20 to 30 us: near their body, apart from it. */
static double near_mode_call(void)
{
	if (uniform() < 1.0 / 5000)
		return 20000 + 10000 * uniform();
	return 5000 - 500 * log(uniform());
}

/*
 * Under a rate of 1e-5, a population apart far from the body may hold 5 x
 * 1e-4 of the calls, and one near it the rate: stalls one call in 5000 at 1 to
 * 3 ms are left out, the same share at 20 to 30 us is a mode of the normal.
 */
static void test_far_stalls_may_hold_more_than_near_ones(void)
{
	struct tail_apart rule = { .most = 1e-5, .far_most = 5e-4, .far_ns = 200000 };
	struct tail_fit f;

	rng_state = 13;
	fill(stalled_call, 4000000);
	CHECK_EQ_INT(tail_fit_censored(window, 4000000, 0.99, &rule, 0, 0, &f), 0);
	CHECK(f.apart_ns > 100000 && f.apart_ns <= 1000000 && f.far_ns == 200000,
	      "far stalls apart from %llu ns (far from %llu ns)", (unsigned long long)f.apart_ns,
	      (unsigned long long)f.far_ns);
	/* Far only from past them: they are held to the rate, and stay in the tail. */
	rule.far_ns = 10000000;
	CHECK_EQ_INT(tail_fit_censored(window, 4000000, 0.99, &rule, 0, 0, &f), 0);
	CHECK(f.apart_share < 1e-5, "stalls apart from %llu ns, share %g, though near",
	      (unsigned long long)f.apart_ns, f.apart_share);
	rule.far_ns = 200000;
	fill(near_mode_call, 4000000);
	CHECK_EQ_INT(tail_fit_censored(window, 4000000, 0.99, &rule, 0, 0, &f), 0);
	CHECK(f.apart_share < 1e-5, "a near mode apart from %llu ns, share %g",
	      (unsigned long long)f.apart_ns, f.apart_share);
	CHECK(tail_fit_latency(&f, 1e-5) > 20000, "threshold %llu ns under the near mode",
	      (unsigned long long)tail_fit_latency(&f, 1e-5));
}

/*
 * Stalls left out the interval before stay out while nearly apart; what was
 * never apart is not made so.
 */
static void test_a_population_apart_is_held(void)
{
	__u64 edge = sclat_hist_lower(sclat_hist_bucket(1000000));
	struct tail_fit f;

	rng_state = 10;
	fill(wavering_call, 4000000);
	/* Fresh, the stalls are in the tail (at most a straggler far above is apart). */
	CHECK_EQ_INT(tail_fit_apart(window, 4000000, 0.99, 5 * 1e-4, &f), 0);
	CHECK(f.apart_share < 1e-5, "apart from %llu ns, share %g", (unsigned long long)f.apart_ns,
	      f.apart_share);
	CHECK_EQ_INT(tail_fit_apart_held(window, 4000000, 0.99, 5 * 1e-4, edge, &f), 0);
	CHECK(f.apart_ns == edge, "apart from %llu ns, held %llu", (unsigned long long)f.apart_ns,
	      (unsigned long long)edge);
	CHECK(f.apart_share > 2e-4 && f.apart_share < 2.6e-4, "apart share %g", f.apart_share);
	/* Held where the tail is dense: nothing apart. */
	CHECK_EQ_INT(tail_fit_apart_held(window, 4000000, 0.99, 5 * 1e-4, 20480, &f), 0);
	CHECK(f.apart_share < 1e-5, "apart from %llu ns, share %g", (unsigned long long)f.apart_ns,
	      f.apart_share);
}

int main(void)
{
	RUN(test_exponential_tail_has_shape_zero);
	RUN(test_pareto_tail_has_its_shape);
	RUN(test_chosen_rate_holds_past_the_window);
	RUN(test_exceedance_falls_with_latency);
	RUN(test_too_few_calls_above_is_no_fit);
	RUN(test_narrow_body_stays_out_of_the_tail);
	RUN(test_stalls_apart_stay_out_of_the_fit);
	RUN(test_a_mode_of_the_normal_is_kept);
	RUN(test_the_highest_population_is_the_one_apart);
	RUN(test_faster_stalls_join_the_slower);
	RUN(test_a_population_apart_is_held);
	RUN(test_disk_reads_over_a_spilt_body_are_apart);
	RUN(test_far_stalls_may_hold_more_than_near_ones);
	RUN(test_calls_past_a_threshold_are_in_the_fit);
	return unit_done();
}
