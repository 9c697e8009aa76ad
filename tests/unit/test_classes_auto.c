// SPDX-License-Identifier: GPL-2.0-only
/*
 * classes = auto: which processes and cells split from their parents, and
 * the thresholds the others take, on the two mixes of README's "Choosing
 * classes" fed to the engine as the kernel's cells would count them.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "controller/classes.h"
#include "controller/classes_auto.h"
#include "controller/engine.h"
#include "policy_fixture.h"
#include "rng.h"
#include "unit.h"

#define SEC   1000000000ULL
#define US    1000.0
#define MS    1000000.0
#define CELLS 16

/* n lognormal calls around median ns into a cell's and its syscall's counts; the slowest. */
static __u64 calls_add(struct sclat_hist *h, struct sclat_hist *all, double median, unsigned int n)
{
	__u64 v, slowest = 0;
	unsigned int i, b;

	for (i = 0; i < n; i++) {
		v = (__u64)(median * exp(0.2 * normal())) + 1;
		slowest = v > slowest ? v : slowest;
		b = sclat_hist_bucket(v);
		h->bucket[b]++;
		h->calls++;
		all->bucket[b]++;
		all->calls++;
	}
	return slowest;
}

struct mix {
	struct policy *p;
	struct engine *e;
	struct classes *cs;
	struct sclat_hist all, h[CELLS];
};

static void mix_open(struct mix *m)
{
	memset(m, 0, sizeof(*m));
	m->p = policy_fixture(POLICY_CLASS_AUTO, 64);
	m->e = engine_new(m->p, CELLS);
	m->cs = classes_new(CELLS);
	m->cs->engine = m->e;
}

static void mix_close(struct mix *m)
{
	classes_free(m->cs);
	engine_free(m->e);
	free(m->p);
}

/* A process's id, named as the controller names it. */
static unsigned int task(struct mix *m, __u32 pid, const char *comm)
{
	char name[SCLAT_COMM_LEN] = {};

	strncpy(name, comm, sizeof(name) - 1);
	return classes_task_id(m->cs, SCLAT_CLASS_PROCESS, pid, pid, name, NULL, 0);
}

/* The cell of read's calls of a process and kind of file, opened in the engine. */
static unsigned int cell(struct mix *m, unsigned int id, unsigned int fd_kind)
{
	bool opened;
	unsigned int c = classes_cell(m->cs, 0, 0, id, fd_kind, 64, 0, &opened);

	engine_cell_open(m->e, c, 0, &m->h[c]);
	return c;
}

/* An interval: the counts fed, the engine's step, then auto's. */
static void step(struct mix *m)
{
	unsigned int c;

	engine_feed(m->e, 0, &m->all);
	for (c = 1; c < m->cs->top; c++)
		if (m->cs->cell[c].used)
			engine_feed_cell(m->e, c, &m->h[c]);
	engine_step(m->e, m->p, SEC);
	classes_auto_step(m->cs, m->p);
}

static enum classes_auto_state judge(struct mix *m, unsigned int c, char *by)
{
	return classes_auto_judge(m->cs, c, by, BASIS_CLASS_MAX);
}

static __u64 thr(struct mix *m, unsigned int c)
{
	return m->e->cell[c].threshold_ns;
}

/* Process A of mixed-procs (pid 100): its /dev/zero reads' cell and its pipe reads'. */
static void a_open(struct mix *m, unsigned int *a_chr, unsigned int *a_pipe)
{
	unsigned int a = task(m, 100, "mixed-a");

	*a_chr = cell(m, a, SCLAT_FD_CHR);
	*a_pipe = cell(m, a, SCLAT_FD_PIPE);
}

/* A's second: 100k reads of ~1 us, and 20 pipe reads that stall 2 ms (1 in 5000). */
static void a_calls(struct mix *m, unsigned int a_chr, unsigned int a_pipe)
{
	calls_add(&m->h[a_chr], &m->all, 1 * US, 100000);
	calls_add(&m->h[a_pipe], &m->all, 2 * MS, 20);
}

static void test_splits_by_share_factor_and_samples(void)
{
	double child[SCLAT_HIST_BUCKETS] = {}, parent[SCLAT_HIST_BUCKETS] = {};

	child[sclat_hist_bucket(3000000)] = 2000;
	parent[sclat_hist_bucket(1000)] = 100000;
	/* 3 ms against 1 us, 1 % of the calls, 2000 of them: a population. */
	CHECK(classes_auto_splits(child, 2000, parent, 100000, 0.01, 1000, false), "split");
	/* Too few calls to say, or too rare a share: its parent's tail. */
	CHECK(!classes_auto_splits(child, 900, parent, 100000, 0.01, 1000, false), "samples");
	CHECK(!classes_auto_splits(child, 2000, parent, 100000, 0.0002, 1000, false), "share");
	/* Split, it stays above half the share, and merges back below. */
	CHECK(classes_auto_splits(child, 2000, parent, 100000, 0.0006, 1000, true), "held");
	CHECK(!classes_auto_splits(child, 2000, parent, 100000, 0.0004, 1000, true), "merged");
	/* The same normal (1.8x: under the factor), however many calls. */
	memset(child, 0, sizeof(child));
	child[sclat_hist_bucket(1800)] = 50000;
	CHECK(!classes_auto_splits(child, 50000, parent, 100000, 0.5, 1000, false), "1.8x split");
	/* Once split, it merges back within 1.5x only. */
	CHECK(classes_auto_splits(child, 50000, parent, 100000, 0.5, 1000, true), "1.8x merged");
}

/*
 * mixed-procs: A reads a character device at 100k calls a second, ~1 us,
 * and one read in 5000 is a pipe read that stalls 2 ms; B's reads (0.8 %
 * of them) all wait 3 ms on pipes.
 */
static void test_mixed_procs(void)
{
	struct mix m;
	unsigned int a_chr, a_pipe, b_pipe, i;
	char by[BASIS_CLASS_MAX];

	mix_open(&m);
	a_open(&m, &a_chr, &a_pipe);
	b_pipe = cell(&m, task(&m, 200, "mixed-b"), SCLAT_FD_PIPE);
	for (i = 0; i < 12; i++) {
		a_calls(&m, a_chr, a_pipe);
		calls_add(&m.h[b_pipe], &m.all, 3 * MS, 800);
		step(&m);
	}
	/* One threshold for read is B's: A's stalls would pass under it. */
	CHECK(m.e->sc[0].threshold_ns > 1000000, "read's own threshold %llu",
	      (unsigned long long)m.e->sc[0].threshold_ns);
	/* B splits: its 3 ms reads are its normal, under its threshold. */
	CHECK_EQ_INT(judge(&m, b_pipe, by), CLASSES_AUTO_MERGED);
	CHECK_STR(by, "pid 200 (mixed-b)");
	CHECK(thr(&m, b_pipe) > 4 * MS, "B's reads at %llu", (unsigned long long)thr(&m, b_pipe));
	/* A is the syscall's normal: its stalls are its tail, caught. */
	CHECK_EQ_INT(judge(&m, a_pipe, by), CLASSES_AUTO_MERGED);
	CHECK_STR(by, "");
	CHECK_EQ_INT(judge(&m, a_chr, by), CLASSES_AUTO_MERGED);
	CHECK(thr(&m, a_pipe) < 20 * US, "A's stalls judged at %llu",
	      (unsigned long long)thr(&m, a_pipe));
	CHECK_EQ_U64(thr(&m, a_chr), thr(&m, a_pipe));
	CHECK(classes_auto_entry(m.cs, a_pipe) != &m.e->cell[a_pipe], "A's stalls' basis");

	/* B's reads become A's: it merges back into the syscall. */
	for (i = 0; i < 60 && judge(&m, b_pipe, by) == CLASSES_AUTO_MERGED && by[0]; i++) {
		a_calls(&m, a_chr, a_pipe);
		calls_add(&m.h[b_pipe], &m.all, 1 * US, 800);
		step(&m);
	}
	CHECK_EQ_INT(judge(&m, b_pipe, by), CLASSES_AUTO_MERGED);
	CHECK_STR(by, "");
	mix_close(&m);
}

/*
 * A new process whose reads wait 3 ms, beside A: young, it is judged by
 * the slowest call it made, not by A's threshold; then it splits.
 */
static void test_new_process_is_not_flooded(void)
{
	struct mix m;
	unsigned int b, a_chr, a_pipe, b_pipe, i;
	char by[BASIS_CLASS_MAX];
	__u64 slowest = 0, v;

	mix_open(&m);
	a_open(&m, &a_chr, &a_pipe);
	for (i = 0; i < 8; i++) {
		a_calls(&m, a_chr, a_pipe);
		step(&m);
	}
	b = task(&m, 200, "mixed-b");
	b_pipe = cell(&m, b, SCLAT_FD_PIPE);
	for (i = 0; i < 3; i++) {
		a_calls(&m, a_chr, a_pipe);
		v = calls_add(&m.h[b_pipe], &m.all, 3 * MS, 300);
		slowest = v > slowest ? v : slowest;
		step(&m);
		CHECK(thr(&m, b_pipe) >= slowest, "second %u: B at %llu, its slowest %llu", i,
		      (unsigned long long)thr(&m, b_pipe), (unsigned long long)slowest);
		/* A's stalls are still caught meanwhile. */
		CHECK(thr(&m, a_pipe) < 20 * US, "A's stalls judged at %llu",
		      (unsigned long long)thr(&m, a_pipe));
	}
	for (i = 0; i < 5; i++) {
		a_calls(&m, a_chr, a_pipe);
		calls_add(&m.h[b_pipe], &m.all, 3 * MS, 800);
		step(&m);
	}
	judge(&m, b_pipe, by);
	CHECK_STR(by, "pid 200 (mixed-b)");
	mix_close(&m);
}

/*
 * mixed-fds: one process reads a file from the page cache (one read in
 * 5000 from the disk, 2 ms) and a socket whose peer answers after 1 ms.
 */
static void test_mixed_fds(void)
{
	struct mix m;
	unsigned int pid, file, sock, i;
	char by[BASIS_CLASS_MAX];

	mix_open(&m);
	pid = task(&m, 300, "mixed-fds");
	file = cell(&m, pid, SCLAT_FD_REGULAR);
	sock = cell(&m, pid, SCLAT_FD_INET);
	for (i = 0; i < 12; i++) {
		calls_add(&m.h[file], &m.all, 1 * US, 100000);
		calls_add(&m.h[file], &m.all, 2 * MS, 20);
		calls_add(&m.h[sock], &m.all, 1 * MS, 1000);
		step(&m);
	}
	CHECK_EQ_INT(judge(&m, sock, by), CLASSES_AUTO_SPLIT);
	CHECK(thr(&m, sock) > 1 * MS, "the socket's reads at %llu",
	      (unsigned long long)thr(&m, sock));
	CHECK_EQ_INT(judge(&m, file, by), CLASSES_AUTO_MERGED);
	CHECK(thr(&m, file) < 20 * US, "the disk reads judged at %llu",
	      (unsigned long long)thr(&m, file));
	mix_close(&m);
}

/*
 * Under a rate: a shell beside A. Its pipe reads mostly return at once (a
 * median like A's), and one in twenty waits 0.2 s for input: a mode of its
 * own, not stalls, while A's stalled pipe reads (2e-4 of A's) stay stalls.
 * Young (its window under min_samples), the shell is judged by the slowest
 * read it made, not by A's threshold.
 */
static void test_a_shell_waiting_for_input_is_a_mode_of_its_own(void)
{
	struct mix m;
	unsigned int a_chr, a_pipe, sh_pipe, i;
	char by[BASIS_CLASS_MAX];

	mix_open(&m);
	policy_fixture_rate(m.p, 1e-5);
	a_open(&m, &a_chr, &a_pipe);
	sh_pipe = cell(&m, task(&m, 400, "bash"), SCLAT_FD_PIPE);
	for (i = 0; i < 20; i++) {
		a_calls(&m, a_chr, a_pipe);
		calls_add(&m.h[sh_pipe], &m.all, 1 * US, 38);
		calls_add(&m.h[sh_pipe], &m.all, 200 * MS, 2);
		step(&m);
		if (i < 3)
			continue;
		/* Its waits are not judged by A's threshold, at any second. */
		CHECK(thr(&m, sh_pipe) > 100 * MS, "second %u: the shell's reads at %llu", i,
		      (unsigned long long)thr(&m, sh_pipe));
		CHECK(thr(&m, a_pipe) < 20 * US, "second %u: A's stalls judged at %llu", i,
		      (unsigned long long)thr(&m, a_pipe));
	}
	/* Neither has a threshold of its own. */
	CHECK_EQ_INT(judge(&m, sh_pipe, by), CLASSES_AUTO_MERGED);
	CHECK_STR(by, "");
	CHECK_EQ_INT(judge(&m, a_pipe, by), CLASSES_AUTO_MERGED);
	CHECK_STR(by, "");
	mix_close(&m);
}

/* A policy without auto leaves every cell's threshold to the engine. */
static void test_off_without_auto(void)
{
	struct mix m;
	unsigned int a, a_chr, a_pipe, i, nr;
	char by[BASIS_CLASS_MAX];

	mix_open(&m);
	for (nr = 0; nr < SCLAT_MAX_SYSCALLS; nr++)
		m.p->rules[nr].classes = POLICY_CLASS_PROCESS | POLICY_CLASS_FD;
	a = task(&m, 100, "mixed-a");
	a_chr = cell(&m, a, SCLAT_FD_CHR);
	a_pipe = cell(&m, a, SCLAT_FD_PIPE);
	for (i = 0; i < 40; i++) {
		calls_add(&m.h[a_chr], &m.all, 1 * US, 100000);
		calls_add(&m.h[a_pipe], &m.all, 2 * MS, 20);
		step(&m);
	}
	CHECK_EQ_INT(judge(&m, a_pipe, by), CLASSES_AUTO_NONE);
	CHECK(m.cs->autos == NULL, "auto's trees kept");
	/* Under process,fd the stalls are a class that learns them as its normal. */
	CHECK(thr(&m, a_pipe) > 1 * MS, "A's pipe at %llu", (unsigned long long)thr(&m, a_pipe));
	mix_close(&m);
}

/*
 * Eight processes whose lseeks share one normal (300 ns); one of them
 * stalls on a lock for an interval (200 calls at 3 ms). None splits, and
 * the threshold that judges them all is learnt from their calls together,
 * as a syscall's is from its own, and a burst of one interval is no mode of
 * it: the threshold stays where it was.
 * A node rebuilt each interval from its cells' windows took the stalled
 * cell's, which had forgotten all but that interval, as a share of the
 * normal, and moved with it (in scripts/pg-eval, PostgreSQL's lseeks were
 * judged at 20 us one second and 147 us the next, and 5x the false alarms
 * of classes = none came through).
 */
static void test_a_stalled_process_moves_no_threshold_of_others(void)
{
	unsigned int c[8], i, k;
	struct mix m;
	char by[BASIS_CLASS_MAX];
	__u64 before = 0, v;

	mix_open(&m);
	policy_fixture_rate(m.p, 1e-5);
	for (k = 0; k < 8; k++)
		c[k] = cell(&m, task(&m, 100 + k, "postgres"), SCLAT_FD_REGULAR);
	for (i = 0; i < 40; i++) {
		for (k = 0; k < 8; k++)
			calls_add(&m.h[c[k]], &m.all, 300, 3000);
		if (i == 30) {
			before = thr(&m, c[0]);
			v = 3 * (__u64)MS;
			m.h[c[3]].bucket[sclat_hist_bucket(v)] += 200;
			m.all.bucket[sclat_hist_bucket(v)] += 200;
			m.all.calls += 200;
		}
		step(&m);
		for (k = 0; i >= 20 && k < 8; k++)
			CHECK_EQ_INT(judge(&m, c[k], by), CLASSES_AUTO_MERGED);
		if (i >= 30)
			CHECK(thr(&m, c[0]) < 2 * before && 2 * thr(&m, c[0]) > before,
			      "second %u: judged at %llu, at %llu before the stall", i,
			      (unsigned long long)thr(&m, c[0]), (unsigned long long)before);
	}
	mix_close(&m);
}

int main(void)
{
	RUN(test_splits_by_share_factor_and_samples);
	RUN(test_mixed_procs);
	RUN(test_new_process_is_not_flooded);
	RUN(test_mixed_fds);
	RUN(test_off_without_auto);
	RUN(test_a_stalled_process_moves_no_threshold_of_others);
	RUN(test_a_shell_waiting_for_input_is_a_mode_of_its_own);
	return unit_done();
}
