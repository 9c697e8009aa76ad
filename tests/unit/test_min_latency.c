// SPDX-License-Identifier: GPL-2.0-only
/*
 * The policy's min_latency ([global]): every threshold in force is at least
 * it, learnt or static, a syscall's or a class's; the engine keeps learning
 * underneath, and a run-time change moves the thresholds at the next step.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "controller/engine.h"
#include "policy/policy.h"
#include "unit.h"

#define SEC 1000000000ULL
#define MS  1000000ULL

static struct policy *test_policy(void)
{
	char err[256];
	static const char text[] = "[global]\n"
				   "interval = 1s\n"
				   "half_life = 4s\n"
				   "budget = 0\n"
				   "min_latency = 1ms\n"
				   "[default]\n"
				   "quantile = 0.99\n"
				   "false_alarm = off\n"
				   "floor = 100ns\n"
				   "min_samples = 1000\n"
				   "[syscall write]\n"
				   "mode = static\n"
				   "initial = 50us\n"
				   "[syscall getpid]\n"
				   "mode = off\n";
	struct policy *p = policy_load_text("test.ini", text, sizeof(text) - 1, err, sizeof(err));

	CHECK(p, "the policy: %s", err);
	return p;
}

/* An interval of n calls of read (nr 0) of about 10 us, its class cell 0's too. */
static void interval(struct engine *e, const struct policy *p, struct sclat_hist *h,
		     struct sclat_hist *cell, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		__u64 v = 8000 + (i * 7919) % 4000;

		h->bucket[sclat_hist_bucket(v)]++;
		h->calls++;
		cell->bucket[sclat_hist_bucket(v)]++;
	}
	engine_feed(e, 0, h);
	engine_feed_cell(e, 0, cell);
	engine_step(e, p, SEC);
}

static void test_min_latency_over_every_threshold(void)
{
	struct policy *p = test_policy(), *q;
	struct sclat_hist h = { 0 }, cell = { 0 };
	struct engine *e;
	char err[256];
	int i;

	if (!p)
		return;
	CHECK_EQ_U64(p->min_latency_ns, MS);
	e = engine_new(p, 1);
	engine_cell_open(e, 0, 0, &cell);
	/* From the start: the initial 10 ms stays, a static 50 us is raised, off stays off. */
	CHECK_EQ_U64(e->sc[0].threshold_ns, 10 * MS);
	CHECK_EQ_U64(e->sc[1].threshold_ns, MS);
	CHECK_EQ_U64(e->sc[39].threshold_ns, SCLAT_THRESHOLD_NEVER);
	for (i = 0; i < 5; i++)
		interval(e, p, &h, &cell, 5000);
	/* read learnt about 12 us, and its class too; both are held at 1 ms. */
	CHECK(e->sc[0].armed && e->sc[0].learned_ns < 20000, "read learnt %llu",
	      (unsigned long long)e->sc[0].learned_ns);
	CHECK_EQ_U64(e->sc[0].threshold_ns, MS);
	CHECK(!e->cell[0].fallback && e->cell[0].learned_ns < 20000, "the class learnt %llu",
	      (unsigned long long)e->cell[0].learned_ns);
	CHECK_EQ_U64(e->cell[0].threshold_ns, MS);
	CHECK(!e->sc[0].changed && !e->cell[0].changed, "held at 1 ms: nothing moves");
	/* At run time, off: the learnt thresholds are in force at the next step. */
	q = policy_with(p, NULL, "min_latency", "0ns", err, sizeof(err));
	CHECK(q, "policy_with: %s", err);
	if (q) {
		interval(e, q, &h, &cell, 5000);
		CHECK_EQ_U64(e->sc[0].threshold_ns, e->sc[0].learned_ns);
		CHECK(e->sc[0].changed && e->sc[0].old_threshold_ns == MS, "read moved from 1 ms");
		CHECK(e->cell[0].changed && e->cell[0].threshold_ns < 20000, "the class moved");
		CHECK_EQ_U64(e->sc[1].threshold_ns, 50000);
		CHECK_EQ_U64(e->sc[39].threshold_ns, SCLAT_THRESHOLD_NEVER);
		policy_free(q);
	}
	engine_free(e);
	policy_free(p);
}

static void test_min_latency_where_it_stands(void)
{
	char err[256];
	static const char wrong[] = "[default]\nmin_latency = 1ms\n";
	static const char bad[] = "[global]\nmin_latency = fast\n";
	struct policy *p;

	p = policy_load_text("wrong.ini", wrong, sizeof(wrong) - 1, err, sizeof(err));
	CHECK(!p && strstr(err, "min_latency") && strstr(err, "[global]"), "%s", err);
	policy_free(p);
	p = policy_load_text("bad.ini", bad, sizeof(bad) - 1, err, sizeof(err));
	CHECK(!p && strstr(err, "min_latency = fast"), "%s", err);
	policy_free(p);
}

int main(void)
{
	RUN(test_min_latency_over_every_threshold);
	RUN(test_min_latency_where_it_stands);
	return unit_done();
}
