// SPDX-License-Identifier: GPL-2.0-only
/*
 * An outlier's surprise and impact (user/controller/surprise.c), judged by
 * the basis the engine publishes with its threshold: the probability of a
 * normal call being that slow, from the window's calls or the fitted tail,
 * and the time beyond a normal call.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "controller/engine.h"
#include "controller/surprise.h"
#include "policy_fixture.h"
#define RNG_SEED 0x2545f4914f6cdd1dULL
#include "rng.h"
#include "unit.h"

#define SEC	1000000000ULL
#define MEAN_NS 10000.0

/* Exponential latencies of mean MEAN_NS: P(X >= x) = exp(-x / MEAN_NS), exactly known. */
static __u64 exp_sample(void)
{
	return (__u64)(-MEAN_NS * log(uniform01())) + 1;
}

static double exp_score(__u64 x)
{
	return (double)x / MEAN_NS / log(10);
}

/* The usual policy (policy_fixture.h), with a longer half-life and the rate given. */
static struct policy *test_policy(double false_alarm)
{
	struct policy *p = policy_fixture(0, 0);

	p->half_life_ns = 60 * SEC;
	policy_fixture_rate(p, false_alarm);
	return p;
}

/* An engine whose syscall 0 learnt from calls exponential calls, one interval a 100k. */
static struct engine *engine_learnt(const struct policy *p, unsigned long calls)
{
	struct engine *e = engine_new(p, 0);
	struct sclat_hist h = { 0 };
	unsigned long i;

	for (i = 1; e && i <= calls; i++) {
		__u64 v = exp_sample();

		h.bucket[sclat_hist_bucket(v)]++;
		h.calls++;
		if (i % 100000 == 0 || i == calls) {
			engine_feed(e, 0, &h);
			engine_step(e, p, SEC);
		}
	}
	return e;
}

/* A quantile rule: the window's own calls say how rare a latency is. */
static void test_window_share(void)
{
	struct policy *p = test_policy(0);
	struct engine *e = engine_learnt(p, 1000000);
	struct threshold_basis b;
	struct surprise s;
	__u64 x;

	engine_basis(&e->sc[0], &b);
	CHECK(b.w.calls > 100000, "window of %.0f calls", b.w.calls);
	CHECK(!b.w.fit.ok, "a quantile rule has no fit");
	/* The normal is the median: MEAN_NS ln 2. */
	CHECK(fabs((double)b.w.normal_ns - MEAN_NS * M_LN2) < 0.07 * MEAN_NS * M_LN2,
	      "normal %llu ns", (unsigned long long)b.w.normal_ns);
	/* From the threshold (p 1e-3) to 3e-5, tens of the window's calls: within 0.25 of the
	 * truth. */
	for (x = e->sc[0].threshold_ns; x < (__u64)(4.5 * MEAN_NS * M_LN10); x += 5000) {
		surprise_judge(&b, x, &s);
		CHECK(s.known && !s.fitted, "known, from the window");
		CHECK(fabs(s.score - exp_score(x)) < 0.25, "at %llu ns: score %.2f, truth %.2f",
		      (unsigned long long)x, s.score, exp_score(x));
		CHECK_EQ_U64(s.impact_ns, x - b.w.normal_ns);
	}
	/* Beyond every call it held: no more than "fewer than one in its calls". */
	surprise_judge(&b, 50 * (__u64)MEAN_NS, &s);
	CHECK(s.known && s.at_least, "a bound beyond the window");
	CHECK(fabs(s.score - log10(b.w.calls)) < 1e-9, "score %.2f, log10 of %.0f calls", s.score,
	      b.w.calls);
	engine_free(e);
	free(p);
}

/* A false_alarm rule: the fitted tail says how rare, past what the window has seen. */
static void test_fitted_tail(void)
{
	struct policy *p = test_policy(1e-5);
	struct engine *e = engine_learnt(p, 1000000);
	struct threshold_basis b;
	struct surprise s;
	__u64 x;

	engine_basis(&e->sc[0], &b);
	CHECK(b.w.fit.ok, "the threshold came from a fit");
	CHECK(b.w.fit.start_ns > 0 && b.w.fit.above >= 100 && b.w.fit.scale_ns > 0,
	      "fit: start %llu, above %.0f, scale %.0f", (unsigned long long)b.w.fit.start_ns,
	      b.w.fit.above, b.w.fit.scale_ns);
	CHECK(fabs(b.w.rate - 1e-5) < 1e-9, "rate %g", b.w.rate);
	/* One in a million and one in a billion: the window of a million calls never saw them. */
	for (x = (__u64)(6 * MEAN_NS * M_LN10); x <= (__u64)(9 * MEAN_NS * M_LN10);
	     x += (__u64)(MEAN_NS * M_LN10)) {
		surprise_judge(&b, x, &s);
		CHECK(s.known && s.fitted && !s.at_least, "known, fitted");
		CHECK(fabs(s.score - exp_score(x)) < 0.5 + 0.1 * exp_score(x),
		      "at %llu ns: score %.2f, truth %.2f", (unsigned long long)x, s.score,
		      exp_score(x));
	}
	engine_free(e);
	free(p);
}

/* Nothing learnt: the surprise is not known, the impact is the whole latency. */
static void test_nothing_learnt(void)
{
	struct policy *p = test_policy(0);
	struct engine *e = engine_new(p, 0);
	struct threshold_basis b;
	struct surprise s;

	engine_basis(&e->sc[0], &b);
	surprise_judge(&b, 123456, &s);
	CHECK(!s.known, "not known");
	CHECK_EQ_U64(s.impact_ns, 123456);
	CHECK_EQ_U64(s.normal_ns, 0);
	engine_free(e);
	free(p);
}

/* A basis goes through the hand-off whole: what the consumer judges by is the controller's. */
static void test_basis_carries_window(void)
{
	struct policy *p = test_policy(1e-5);
	struct engine *e = engine_learnt(p, 300000);
	struct basis_table *t = calloc(1, sizeof(*t));
	struct threshold_basis b, got;
	__u64 word;

	engine_basis(&e->sc[0], &b);
	word = basis_publish(t, 0, e->sc[0].threshold_ns, &b);
	CHECK(basis_lookup(t, 0, sclat_threshold_gen(word), e->sc[0].threshold_ns, &got), "found");
	CHECK(!memcmp(&got.w, &b.w, sizeof(b.w)), "the window as published");
	free(t);
	engine_free(e);
	free(p);
}

/*
 * A threshold that holds while its window learns: an outlier of it is judged by
 * the window now; one of a generation published after that window (a cell's
 * next class) by its own.
 */
static void test_window_now(void)
{
	struct basis_table *t = calloc(1, sizeof(*t));
	struct threshold_basis b = { 0 }, got;
	struct basis_window now = { 0 };
	__u64 old_word, new_word;

	if (!CHECK(t, "out of memory"))
		return;
	b.w.calls = 300;
	b.w.normal_ns = 1000;
	old_word = basis_publish(t, 7, 50000, &b);
	now.calls = 300000;
	now.normal_ns = 1200;
	basis_window_publish(t, 7, &now);
	CHECK(basis_lookup(t, 7, sclat_threshold_gen(old_word), 50000, &got), "found");
	CHECK(got.w.calls == 300000 && got.w.normal_ns == 1200, "the window now: %.0f calls",
	      got.w.calls);
	b.w.calls = 10;
	new_word = basis_publish(t, 7, 90000, &b);
	CHECK(basis_lookup(t, 7, sclat_threshold_gen(new_word), 90000, &got), "found");
	CHECK(got.w.calls == 10, "its own window, not an older one: %.0f calls", got.w.calls);
	free(t);
}

int main(void)
{
	RUN(test_window_share);
	RUN(test_fitted_tail);
	RUN(test_nothing_learnt);
	RUN(test_basis_carries_window);
	RUN(test_window_now);
	return unit_done();
}
