// SPDX-License-Identifier: GPL-2.0-only
/*
 * The kernel brake's allowances (controller/brake.c), and what a braked
 * interval tells the engine: the normal moved, learn it now.
 */
#include <math.h>
#include <stdlib.h>
#include "controller/brake.h"
#include "controller/engine.h"
#include "policy_fixture.h"
#include "rng.h"
#include "unit.h"

#define SEC 1000000000ULL

/* One interval of syscall 0: n lognormal calls around median ns, k more at slow ns. */
static void interval_feed(struct engine *e, const struct policy *p, struct sclat_hist *raw,
			  double median, unsigned int n, __u64 slow, unsigned int k, __u32 braked)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		raw->bucket[sclat_hist_bucket((__u64)(median * exp(0.3 * normal())) + 1)]++;
	raw->bucket[sclat_hist_bucket(slow)] += k;
	raw->calls += n + k;
	raw->braked += braked;
	engine_feed(e, 0, raw);
	engine_step(e, p, SEC);
}

/*
 * Twice the calls the threshold should let through: under a quantile two
 * more, under a rate at least one; none unless learnt.
 */
static void test_allowance(void)
{
	struct policy *p = policy_fixture(0, 0);
	struct engine *e = engine_new(p, 0);
	struct engine_syscall *s = &e->sc[0];
	struct policy_rule r = p->def;

	CHECK_EQ_U64(brake_allowance(s, &r, false, 100000), 0);
	CHECK_EQ_U64(brake_allowance(s, &r, true, 100000), 2 * 100 + BRAKE_QUANTILE_MORE);
	/* A young class, no calls of its own yet: a couple of outliers (stalls, or a shift). */
	CHECK_EQ_U64(brake_allowance(s, &r, true, 0), 2);
	/* A quiet class, 300 calls an interval: its stalls two in an interval pass. */
	CHECK_EQ_U64(brake_allowance(s, &r, true, 300), 3);
	/* The budget narrows the share, and the allowance with it. */
	s->scale = 0.5;
	CHECK_EQ_U64(brake_allowance(s, &r, true, 100000), 100 + BRAKE_QUANTILE_MORE);
	s->scale = 1;
	r.false_alarm = 1e-5;
	/* A rate's far calls pass apart: its next call may be slow, one near one passes. */
	CHECK_EQ_U64(brake_allowance(s, &r, true, 0), BRAKE_MIN);
	CHECK_EQ_U64(BRAKE_MIN, 1);
	CHECK_EQ_U64(brake_allowance(s, &r, true, 1000000), 20);
	/* A fraction of a call expected: one, not more (28,000 calls at 1e-5: 0.28). */
	CHECK_EQ_U64(brake_allowance(s, &r, true, 28000), 1);
	CHECK_EQ_U64(brake_allowance(s, &r, true, 60000), 2);
	r.mode = POLICY_STATIC;
	CHECK_EQ_U64(brake_allowance(s, &r, true, 1000000), 0);
	engine_free(e);
	free(p);
}

/*
 * A quiet syscall (2000 calls a second, 2 expected above its 0.999
 * quantile) steps 3x slower: too few calls for the shift rule to see it
 * alone (16 expected). Braked, the interval is the evidence: the next
 * threshold is the new body's, not a half-life later.
 */
static void test_braked_interval_is_a_shift(void)
{
	struct policy *p = policy_fixture(0, 0);
	struct engine *e = engine_new(p, 0), *f = engine_new(p, 0);
	struct sclat_hist raw = {}, raw_f = {};
	unsigned int i;

	rng_state = 0x2545f4914f6cdd1dULL;
	for (i = 0; i < 10; i++)
		interval_feed(e, p, &raw, 1000000, 2000, 0, 0, 0);
	rng_state = 0x2545f4914f6cdd1dULL;
	for (i = 0; i < 10; i++)
		interval_feed(f, p, &raw_f, 1000000, 2000, 0, 0, 0);
	CHECK(e->sc[0].armed && e->sc[0].threshold_ns < 3000000, "threshold %llu before",
	      (unsigned long long)e->sc[0].threshold_ns);
	interval_feed(e, p, &raw, 3000000, 2000, 0, 0, 500);
	interval_feed(f, p, &raw_f, 3000000, 2000, 0, 0, 0);
	CHECK(e->sc[0].shifted, "a braked 3x step not taken for a shift");
	CHECK(e->sc[0].threshold_ns > 5000000, "threshold %llu after a braked 3x step",
	      (unsigned long long)e->sc[0].threshold_ns);
	/* Not braked, the same step is learnt by the window's decay alone. */
	CHECK(!f->sc[0].shifted && f->sc[0].threshold_ns < e->sc[0].threshold_ns,
	      "unbraked: shifted %d, threshold %llu", f->sc[0].shifted,
	      (unsigned long long)f->sc[0].threshold_ns);
	engine_free(e);
	engine_free(f);
	free(p);
}

/*
 * A rate's calls above its threshold are not learnt (alarms), unless the
 * interval was braked: then far more than the rate crossed it, and they are
 * the new normal (a slow phase of the program at 1 call in 500, under the 1 %
 * that would say so by itself).
 */
static void test_braked_rate_learns_what_crossed(void)
{
	struct policy *p = policy_fixture(0, 0);
	struct engine *e = engine_new(p, 0);
	struct sclat_hist raw = {};
	unsigned int nr, i;

	rng_state = 0x853c49e6748fea9bULL;
	for (nr = 0; nr < SCLAT_MAX_SYSCALLS; nr++)
		p->rules[nr].false_alarm = 1e-5;
	for (i = 0; i < 10; i++)
		interval_feed(e, p, &raw, 10000, 300000, 0, 0, 0);
	CHECK(e->sc[0].armed && e->sc[0].threshold_ns < 2000000, "threshold %llu before",
	      (unsigned long long)e->sc[0].threshold_ns);
	for (i = 0; i < 3; i++)
		interval_feed(e, p, &raw, 10000, 300000, 2000000, 600, 590);
	CHECK(e->sc[0].threshold_ns >= 2000000, "threshold %llu after 3 braked intervals",
	      (unsigned long long)e->sc[0].threshold_ns);
	engine_free(e);
	free(p);
}

int main(void)
{
	RUN(test_allowance);
	RUN(test_braked_interval_is_a_shift);
	RUN(test_braked_rate_learns_what_crossed);
	return unit_done();
}
