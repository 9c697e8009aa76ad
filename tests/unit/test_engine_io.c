// SPDX-License-Identifier: GPL-2.0-only
/*
 * Calls that waited for storage (controller/engine_io.c): where a syscall's
 * calls seldom wait for I/O, one that did is a stall from where its calls are
 * far from their body, under a threshold its other calls' tail keeps high;
 * where they often do, it is one of its normal calls.
 */
#include <math.h>
#include <stdlib.h>
#include "controller/engine.h"
#include "policy_fixture.h"
#include "rng.h"
#include "unit.h"

#define SEC 1000000000ULL

/*
 * One interval of syscall 0 as the kernel counts it: n page cache reads of
 * about 2 us, 1 in 1000 of them paused 100-300 us on their CPU (a VM's host),
 * and one in io_every (0: none) a read that waited for storage, 150 us.
 */
static void feed(struct engine *e, const struct policy *p, struct sclat_hist *raw, __u32 n,
		 __u32 io_every)
{
	__u64 v;
	__u32 i;

	for (i = 0; i < n; i++) {
		v = (__u64)(2000 * exp(0.1 * normal()));
		if (io_every && i % io_every == io_every - 1) {
			v = 150000;
			raw->io++;
		} else if (uniform01() < 1e-3) {
			v = 100000 + (__u64)(200000 * uniform01());
		}
		raw->bucket[sclat_hist_bucket(v)]++;
		raw->calls++;
	}
	engine_feed(e, 0, raw);
	engine_step(e, p, SEC);
}

/* An engine under a rate of 1e-5 (*p its policy), fed intervals of 200,000 calls. */
static struct engine *rate_engine(struct policy **p, struct sclat_hist *raw, unsigned int intervals,
				  __u32 io_every)
{
	struct engine *e;

	*p = policy_fixture(0, 0);
	policy_fixture_rate(*p, 1e-5);
	rng_state = 0x243f6a8885a308d3ULL;
	*raw = (struct sclat_hist){};
	e = engine_new(*p, 0);
	while (intervals--)
		feed(e, *p, raw, 200000, io_every);
	return e;
}

/*
 * Reads from the disk one in 5000 among page cache reads whose tail a host
 * makes as slow: the threshold stays above both, and the disk reads are
 * stalls from the body's far edge (16 x its 0.99 quantile, at least 50 us).
 */
static void test_seldom_storage_waits_are_stalls(void)
{
	struct sclat_hist raw;
	struct policy *p;
	struct engine *e = rate_engine(&p, &raw, 30, 5000);
	struct engine_syscall *s = &e->sc[0];

	CHECK(s->armed && s->stall_ns, "armed %d, stall_ns %llu", s->armed,
	      (unsigned long long)s->stall_ns);
	CHECK(s->threshold_ns > 150000, "threshold %llu ns: the host's pauses are its normal",
	      (unsigned long long)s->threshold_ns);
	CHECK_EQ_U64(s->io_ns, s->stall_ns);
	CHECK(s->io_ns >= ENGINE_STALL_MIN_NS && s->io_ns < 150000,
	      "io_ns %llu: the disk reads (150 us) are past it", (unsigned long long)s->io_ns);
	CHECK(fabs(engine_io_share(s) - 2e-4) < 2e-5, "io share %g, 1 in 5000 fed",
	      engine_io_share(s));
	/* Never under the rule's floor. */
	p->rules[0].floor_ns = 400000;
	feed(e, p, &raw, 200000, 5000);
	CHECK(!s->io_ns || s->io_ns >= 400000, "io_ns %llu under a floor of 400 us",
	      (unsigned long long)s->io_ns);
	engine_free(e);
	free(p);
}

/*
 * A syscall whose calls wait for storage one in 50 (a database's reads that
 * miss its cache): those are normal, judged as any call (io_ns 0), and so
 * they are when that share is reached later.
 */
static void test_frequent_storage_waits_are_normal(void)
{
	struct sclat_hist raw;
	struct policy *p;
	struct engine *e = rate_engine(&p, &raw, 30, 50);
	struct engine_syscall *s = &e->sc[0];
	unsigned int i;

	CHECK(s->armed, "not armed");
	CHECK_EQ_U64(s->io_ns, 0);
	engine_free(e);
	free(p);

	e = rate_engine(&p, &raw, 20, 5000);
	s = &e->sc[0];
	CHECK(s->io_ns, "seldom: no io_ns");
	/* Within a few half-lives of the change, the storage waits are its normal again. */
	for (i = 0; i < 20; i++)
		feed(e, p, &raw, 200000, 50);
	CHECK_EQ_U64(s->io_ns, 0);
	engine_free(e);
	free(p);
}

/* Under a quantile, or with no calls that waited: no storage threshold. */
static void test_no_storage_threshold_without_a_rate(void)
{
	struct sclat_hist raw = {};
	struct policy *p = policy_fixture(0, 0);
	struct engine *e = engine_new(p, 0);
	unsigned int i;

	rng_state = 0x13198a2e03707344ULL;
	for (i = 0; i < 10; i++)
		feed(e, p, &raw, 200000, 5000);
	CHECK(e->sc[0].armed, "not armed");
	CHECK_EQ_U64(e->sc[0].io_ns, 0);
	CHECK(engine_io_share(&e->sc[0]) == 0, "io share %g under a quantile",
	      engine_io_share(&e->sc[0]));
	engine_free(e);
	free(p);
}

int main(void)
{
	RUN(test_seldom_storage_waits_are_stalls);
	RUN(test_frequent_storage_waits_are_normal);
	RUN(test_no_storage_threshold_without_a_rate);
	return unit_done();
}
