// SPDX-License-Identifier: GPL-2.0-only
/*
 * The basis hand-off (user/controller/basis.c): an outlier's threshold
 * generation finds the basis that threshold was published with, or nothing;
 * never another threshold's, even while the controller publishes new ones.
 */
#include <pthread.h>
#include <time.h>
#include <stdlib.h>
#include "util/compiler.h"
#include "controller/basis.h"
#include "unit.h"

/* Every threshold's basis is a function of the threshold: a reader can check what it got. */
static void basis_for(__u64 threshold_ns, struct threshold_basis *b)
{
	b->estimate_ns = threshold_ns / 2 + 1;
	b->quantile = 1.0 - 1.0 / (double)(threshold_ns % 1000 + 2);
	b->samples = threshold_ns ^ 0x5555;
}

static bool basis_is_for(__u64 threshold_ns, const struct threshold_basis *b)
{
	struct threshold_basis want;

	basis_for(threshold_ns, &want);
	return b->estimate_ns == want.estimate_ns && b->quantile == want.quantile &&
	       b->samples == want.samples;
}

static __u64 threshold_of(unsigned long i)
{
	return 1000 + (i * 7919) % 1000000000ULL;
}

static void test_last_generations_found(void)
{
	struct basis_table *t = calloc(1, sizeof(*t));
	struct threshold_basis b;
	__u64 words[40];
	int i;

	if (!CHECK(t, "out of memory"))
		return;
	for (i = 0; i < 40; i++) {
		basis_for(threshold_of(i), &b);
		words[i] = basis_publish(t, 3, threshold_of(i), &b);
		CHECK_EQ_U64(sclat_threshold_ns(words[i]), threshold_of(i));
		CHECK_EQ_U64(sclat_threshold_gen(words[i]), i + 1);
	}
	/* The last BASIS_HISTORY are there, each with its own basis. */
	for (i = 40 - BASIS_HISTORY; i < 40; i++) {
		CHECK(basis_lookup(t, 3, sclat_threshold_gen(words[i]), threshold_of(i), &b),
		      "generation %d not found", i + 1);
		CHECK(basis_is_for(threshold_of(i), &b), "generation %d: wrong basis", i + 1);
	}
	/* Older ones are gone: unknown, zeroed, not a newer threshold's basis. */
	for (i = 0; i < 40 - BASIS_HISTORY; i++) {
		CHECK(!basis_lookup(t, 3, sclat_threshold_gen(words[i]), threshold_of(i), &b),
		      "generation %d still found", i + 1);
		CHECK_EQ_U64(b.estimate_ns, 0);
		CHECK_EQ_U64(b.samples, 0);
	}
	/* The right generation with another threshold is not a match either. */
	CHECK(!basis_lookup(t, 3, sclat_threshold_gen(words[39]), threshold_of(39) + 1, &b),
	      "matched a threshold that was never published");
	/* Syscalls have generations of their own. */
	CHECK(!basis_lookup(t, 4, sclat_threshold_gen(words[39]), threshold_of(39), &b),
	      "syscall 4 found syscall 3's threshold");
	CHECK(!basis_lookup(t, SCLAT_MAX_SYSCALLS, 1, 1, &b), "an out-of-range syscall");
	free(t);
}

/* Generations are 16 bits: they wrap, and the cells keep up. */
static void test_generation_wrap(void)
{
	struct basis_table *t = calloc(1, sizeof(*t));
	struct threshold_basis b;
	unsigned long i;
	__u64 w = 0;

	if (!CHECK(t, "out of memory"))
		return;
	for (i = 0; i < 70000; i++) {
		basis_for(threshold_of(i), &b);
		w = basis_publish(t, 0, threshold_of(i), &b);
	}
	CHECK_EQ_U64(sclat_threshold_gen(w), 70000 & SCLAT_GEN_MASK);
	CHECK(basis_lookup(t, 0, sclat_threshold_gen(w), threshold_of(i - 1), &b) &&
		      basis_is_for(threshold_of(i - 1), &b),
	      "the newest generation after a wrap");
	free(t);
}

/*
 * One writer publishing as fast as it can, readers that take a threshold
 * word as the BPF side would and look its basis up a little later, as the
 * consumer does for an outlier that waited in the ring buffer.
 */
#define NR_SYSCALLS  4
#define PUBLICATIONS 400000
#define READERS	     3
/*
 * Lookups the readers make, at least, while the writer runs: a loaded machine
 * may not schedule them during the publications alone, so the writer goes on
 * until they have (within MAX_SECONDS).
 */
#define MIN_LOOKUPS  10000
#define MAX_SECONDS  20

static struct basis_table *shared_table;
static __u64 shared_words[NR_SYSCALLS];
static unsigned long published[NR_SYSCALLS]; /* generations published, not wrapped */
static volatile bool writer_done;
static unsigned long lookups_made; /* by every reader, atomics */

struct reader_result {
	unsigned long lookups, found, wrong, missed;
};

/* The threshold of generation gen (not wrapped) of nr, in the concurrent test. */
static __u64 threshold_at(unsigned int nr, unsigned long gen)
{
	return 1000 + gen * NR_SYSCALLS + nr;
}

static void *writer(void *arg __always_unused)
{
	struct threshold_basis b;
	unsigned long i, gen;
	unsigned int nr;
	__u64 w;

	time_t deadline = time(NULL) + MAX_SECONDS;

	for (i = 0;
	     i < PUBLICATIONS || (__atomic_load_n(&lookups_made, __ATOMIC_RELAXED) < MIN_LOOKUPS &&
				  time(NULL) < deadline);
	     i++) {
		nr = i % NR_SYSCALLS;
		gen = published[nr] + 1;
		basis_for(threshold_at(nr, gen), &b);
		w = basis_publish(shared_table, nr, threshold_at(nr, gen), &b);
		/* What probes_threshold_set() does. */
		__atomic_store_n(&shared_words[nr], w, __ATOMIC_RELEASE);
		__atomic_store_n(&published[nr], gen, __ATOMIC_RELEASE);
	}
	writer_done = true;
	return NULL;
}

static void *reader(void *arg)
{
	struct reader_result *r = arg;
	struct threshold_basis b;
	unsigned long before, after;
	unsigned int nr = 0, spin;
	__u64 w;
	bool ok;

	while (!writer_done) {
		nr = (nr + 1) % NR_SYSCALLS;
		before = __atomic_load_n(&published[nr], __ATOMIC_ACQUIRE);
		w = __atomic_load_n(&shared_words[nr], __ATOMIC_RELAXED);
		if (!w)
			continue;
		/* The outlier waits a little in the ring buffer. */
		for (spin = 0; spin < (r->lookups % 64) * 20; spin++)
			__asm__ volatile("" ::: "memory");
		ok = basis_lookup(shared_table, nr, sclat_threshold_gen(w), sclat_threshold_ns(w),
				  &b);
		after = __atomic_load_n(&published[nr], __ATOMIC_ACQUIRE);
		r->lookups++;
		__atomic_fetch_add(&lookups_made, 1, __ATOMIC_RELAXED);
		if (ok) {
			r->found++;
			if (!basis_is_for(sclat_threshold_ns(w), &b))
				r->wrong++;
		} else if (after - before < BASIS_HISTORY - 1) {
			/*
			 * w is at least generation "before", and the writer was at most
			 * one past "after": its cell was never reused while we read it.
			 */
			r->missed++;
		}
		/*
		 * The oldest generation still kept: its cell is the one the writer
		 * rewrites next. A torn read must never pass for a match.
		 */
		if (before > BASIS_HISTORY) {
			__u64 old = threshold_at(nr, before - BASIS_HISTORY + 1);

			if (basis_lookup(shared_table, nr,
					 (before - BASIS_HISTORY + 1) & SCLAT_GEN_MASK, old, &b)) {
				r->found++;
				if (!basis_is_for(old, &b))
					r->wrong++;
			}
		}
	}
	return NULL;
}

static void test_concurrent_handoff(void)
{
	struct reader_result res[READERS] = {};
	pthread_t w, r[READERS];
	unsigned long lookups = 0, found = 0;
	int i;

	shared_table = calloc(1, sizeof(*shared_table));
	if (!CHECK(shared_table, "out of memory"))
		return;
	for (i = 0; i < READERS; i++)
		pthread_create(&r[i], NULL, reader, &res[i]);
	pthread_create(&w, NULL, writer, NULL);
	pthread_join(w, NULL);
	for (i = 0; i < READERS; i++) {
		pthread_join(r[i], NULL);
		CHECK_EQ_U64(res[i].wrong, 0);
		CHECK_EQ_U64(res[i].missed, 0);
		lookups += res[i].lookups;
		found += res[i].found;
	}
	CHECK(lookups >= MIN_LOOKUPS, "only %lu lookups ran alongside the writer in %d s", lookups,
	      MAX_SECONDS);
	CHECK(found > 0, "no lookup found its basis in %lu", lookups);
	free(shared_table);
}

int main(void)
{
	RUN(test_last_generations_found);
	RUN(test_generation_wrap);
	RUN(test_concurrent_handoff);
	return unit_done();
}
