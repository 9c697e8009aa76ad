// SPDX-License-Identifier: GPL-2.0-only
/*
 * A young class (fewer than min_samples) under the quantile rule, the
 * built-in one: judged by the slowest call it made, never by a syscall-wide
 * threshold below its body (issue 33: a new process whose reads wait 3 ms
 * beside a syscall whose threshold is tens of us).
 */
#include <math.h>
#include <stdlib.h>
#include "controller/engine.h"
#include "policy_fixture.h"
#include "rng.h"
#include "unit.h"

#define SEC 1000000000ULL

/* n lognormal calls around median ns into h; returns the slowest. */
static __u64 calls_add(struct sclat_hist *h, double median, unsigned int n)
{
	__u64 v, slowest = 0;
	unsigned int i;

	for (i = 0; i < n; i++) {
		v = (__u64)(median * exp(0.2 * normal())) + 1;
		slowest = v > slowest ? v : slowest;
		h->bucket[sclat_hist_bucket(v)]++;
		h->calls++;
	}
	return slowest;
}

static void test_young_class_of_a_quantile_is_judged_by_its_own(void)
{
	struct policy *p = policy_fixture(POLICY_CLASS_PROCESS, 0);
	struct engine *e = engine_new(p, 1);
	struct sclat_hist wide = {}, young = {};
	__u64 slowest = 0, v;
	unsigned int i;

	for (i = 0; i < 5; i++) {
		calls_add(&wide, 10000, 100000);
		engine_feed(e, 0, &wide);
		engine_step(e, p, SEC);
	}
	CHECK(e->sc[0].armed && e->sc[0].threshold_ns < 100000, "read's threshold %llu",
	      (unsigned long long)e->sc[0].threshold_ns);
	engine_cell_open(e, 0, 0, &young);
	/* Its first seconds: 300 calls a second, 3 ms each, far from min_samples. */
	for (i = 0; i < 3; i++) {
		calls_add(&wide, 10000, 100000);
		v = calls_add(&young, 3000000, 300);
		slowest = v > slowest ? v : slowest;
		engine_feed(e, 0, &wide);
		engine_feed_cell(e, 0, &young);
		engine_step(e, p, SEC);
		CHECK(e->cell[0].fallback && !e->cell[0].armed, "%.0f samples armed the class",
		      e->cell[0].samples);
		CHECK(e->cell[0].threshold_ns >= slowest, "second %u: class %llu, its slowest %llu",
		      i, (unsigned long long)e->cell[0].threshold_ns, (unsigned long long)slowest);
		CHECK(e->cell[0].threshold_ns < 2 * slowest,
		      "class %llu, far above its slowest %llu",
		      (unsigned long long)e->cell[0].threshold_ns, (unsigned long long)slowest);
	}
	/* A class whose calls are under the syscall's threshold keeps the syscall's. */
	engine_cell_close(e, 0);
	memset(&young, 0, sizeof(young));
	engine_cell_open(e, 0, 0, &young);
	calls_add(&young, 1000, 300);
	engine_feed(e, 0, &wide);
	engine_feed_cell(e, 0, &young);
	engine_step(e, p, SEC);
	CHECK_EQ_U64(e->cell[0].threshold_ns, e->sc[0].threshold_ns);
	engine_free(e);
	free(p);
}

/*
 * Before any of its calls is read, a class is judged at the rule's initial
 * threshold, or its syscall's when higher (engine_young_ns): at read's
 * learnt tens of us, a new process whose reads wait 3 ms emitted its first
 * calls. A static rule's class keeps the static threshold.
 */
static void test_a_class_none_of_whose_calls_was_read_is_judged_at_initial(void)
{
	struct policy *p = policy_fixture(POLICY_CLASS_PROCESS, 0);
	struct engine *e = engine_new(p, 1);
	struct sclat_hist wide = {}, young = {};
	unsigned int i;

	for (i = 0; i < 5; i++) {
		calls_add(&wide, 10000, 100000);
		engine_feed(e, 0, &wide);
		engine_step(e, p, SEC);
	}
	CHECK(e->sc[0].armed && e->sc[0].threshold_ns < p->rules[0].initial_ns,
	      "read's threshold %llu", (unsigned long long)e->sc[0].threshold_ns);
	CHECK_EQ_U64(engine_young_ns(e, 0), p->rules[0].initial_ns);
	engine_cell_open(e, 0, 0, &young);
	CHECK_EQ_U64(e->cell[0].threshold_ns, p->rules[0].initial_ns);
	/* An interval without its calls: still nothing known. */
	calls_add(&wide, 10000, 100000);
	engine_feed(e, 0, &wide);
	engine_feed_cell(e, 0, &young);
	engine_step(e, p, SEC);
	CHECK_EQ_U64(e->cell[0].threshold_ns, p->rules[0].initial_ns);
	/* Its first calls read: its syscall's, raised to the slowest of them. */
	calls_add(&young, 1000, 300);
	engine_feed(e, 0, &wide);
	engine_feed_cell(e, 0, &young);
	engine_step(e, p, SEC);
	CHECK_EQ_U64(e->cell[0].threshold_ns, e->sc[0].threshold_ns);
	/* A syscall that learnt a threshold above initial keeps it for its young classes. */
	e->sc[0].threshold_ns = 3 * p->rules[0].initial_ns;
	CHECK_EQ_U64(engine_young_ns(e, 0), 3 * p->rules[0].initial_ns);
	e->sc[0].rule.mode = POLICY_STATIC;
	e->sc[0].threshold_ns = p->rules[0].initial_ns / 2;
	CHECK_EQ_U64(engine_young_ns(e, 0), p->rules[0].initial_ns / 2);
	engine_free(e);
	free(p);
}

/*
 * initial = off, the built-in policy's waits: nothing is judged until the
 * syscall has learnt its normal. A quiet one (a daemon's poll once a second,
 * whose window never holds min_samples) stays unjudged; once a busy one has
 * learnt, a new class is unjudged until its first calls are read, then
 * judged by the slowest of them.
 */
static void test_a_wait_with_initial_off_is_judged_only_once_learnt(void)
{
	struct policy *p = policy_fixture(POLICY_CLASS_PROCESS, 0);
	struct engine *e;
	struct sclat_hist wide = {}, young = {};
	__u64 slowest;
	unsigned int i;

	p->rules[0].initial_ns = SCLAT_THRESHOLD_NEVER;
	e = engine_new(p, 1);
	CHECK_EQ_U64(e->sc[0].threshold_ns, SCLAT_THRESHOLD_NEVER);
	for (i = 0; i < 60; i++) {
		calls_add(&wide, 1e9, 1);
		engine_feed(e, 0, &wide);
		engine_step(e, p, SEC);
	}
	CHECK(!e->sc[0].armed, "a call a second armed it");
	CHECK_EQ_U64(e->sc[0].threshold_ns, SCLAT_THRESHOLD_NEVER);
	CHECK_EQ_U64(engine_young_ns(e, 0), SCLAT_THRESHOLD_NEVER);
	for (i = 0; i < 5; i++) {
		calls_add(&wide, 100000, 100000);
		engine_feed(e, 0, &wide);
		engine_step(e, p, SEC);
	}
	CHECK(e->sc[0].armed && e->sc[0].threshold_ns < SEC, "learnt %llu",
	      (unsigned long long)e->sc[0].threshold_ns);
	/* Nothing known of a new process: its waits are not judged yet. */
	CHECK_EQ_U64(engine_young_ns(e, 0), SCLAT_THRESHOLD_NEVER);
	engine_cell_open(e, 0, 0, &young);
	CHECK_EQ_U64(e->cell[0].threshold_ns, SCLAT_THRESHOLD_NEVER);
	/* Its first waits, 50 ms each: judged by the slowest of them. */
	slowest = calls_add(&young, 50e6, 20);
	calls_add(&wide, 100000, 100000);
	engine_feed(e, 0, &wide);
	engine_feed_cell(e, 0, &young);
	engine_step(e, p, SEC);
	CHECK(e->cell[0].threshold_ns >= slowest && e->cell[0].threshold_ns < 2 * slowest,
	      "class %llu, its slowest %llu", (unsigned long long)e->cell[0].threshold_ns,
	      (unsigned long long)slowest);
	engine_free(e);
	free(p);
}

int main(void)
{
	RUN(test_young_class_of_a_quantile_is_judged_by_its_own);
	RUN(test_a_class_none_of_whose_calls_was_read_is_judged_at_initial);
	RUN(test_a_wait_with_initial_off_is_judged_only_once_learnt);
	return unit_done();
}
