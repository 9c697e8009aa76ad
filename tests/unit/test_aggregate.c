// SPDX-License-Identifier: GPL-2.0-only
/* The plugin's aggregation (tracer-plugins/babeltrace2/common/aggregate.c): groups and order. */
#include <stdlib.h>
#include "aggregate.h"
#include "unit.h"
#include "util/group_key.h"

/* An aggregation grouped by key ("syscall", "thread,host", ...), and its first host. */
static void agg_start(struct agg *a, const char *key, const struct agg_filter *f, unsigned int top,
		      struct agg_host **h)
{
	struct group_key k;
	char err[128];

	CHECK(!group_key_parse(key, &k, err, sizeof(err)), "%s: %s", key, err);
	CHECK_EQ_INT(agg_init(a, &k, f, top), 0);
	CHECK_EQ_INT(agg_host_find(a, "h1", h), 0);
}

static struct outlier outlier(const char *syscall, int32_t pid, int32_t tid, uint64_t lat)
{
	struct outlier o = { .pid = pid, .tid = tid, .latency_ns = lat };

	snprintf(o.syscall, sizeof(o.syscall), "%s", syscall);
	snprintf(o.comm, sizeof(o.comm), "t%d", tid);
	return o;
}

/* Nothing matched: no rows, no top, and agg_finish() has nothing to sort. */
static void test_empty(void)
{
	struct agg_filter f;
	struct agg_host *h;
	struct agg a;
	struct outlier o = outlier("read", 1, 1, 5);

	agg_filter_init(&f);
	f.comm = "nobody";
	agg_start(&a, "syscall", &f, 10, &h);
	CHECK_EQ_INT(agg_add(&a, h, &o), 0);
	agg_finish(&a);
	CHECK_EQ_U64(a.seen, 1);
	CHECK_EQ_U64(a.matched, 0);
	CHECK_EQ_U64(a.nr_groups, 0);
	CHECK_EQ_U64(a.nr_top, 0);
	agg_free(&a);
}

/* Many threads (a trace may hold any number): each its own row, busiest first. */
static void test_many_threads(void)
{
	enum { THREADS = 20000 };
	struct agg_filter f;
	struct agg a;
	uint64_t total = 0;
	int32_t t;
	size_t i;
	bool sorted = true, exact = true;
	struct agg_host *h;

	agg_filter_init(&f);
	agg_start(&a, "thread", &f, 3, &h);
	for (t = 1; t <= THREADS; t++) {
		/* Thread t has t % 7 + 1 outliers; pid 100 + t % 3: tids repeat across pids. */
		for (i = 0; i < (size_t)(t % 7 + 1); i++) {
			struct outlier o = outlier("read", 100 + t % 3, t, 1000 + i);
			struct outlier twin = outlier("read", 200 + t % 3, t, 1000 + i);

			CHECK_EQ_INT(agg_add(&a, h, &o), 0);
			if (t % 1000 == 0)
				agg_add(&a, h, &twin);
		}
	}
	agg_finish(&a);
	CHECK_EQ_U64(a.nr_groups, THREADS + THREADS / 1000);
	for (i = 0; i < a.nr_groups; i++) {
		const struct agg_group *g = &a.groups[i];

		total += g->count;
		exact &= g->count == (uint64_t)(g->tid % 7 + 1);
		if (i)
			sorted &= a.groups[i - 1].count >= g->count;
	}
	CHECK(exact, "a thread's row counts another's outliers");
	CHECK(sorted, "rows are not busiest first");
	CHECK_EQ_U64(total, a.matched);
	CHECK_EQ_U64(a.nr_top, 3);
	CHECK_EQ_U64(a.top[0].latency_ns, 1006);
	agg_free(&a);
}

static void test_by_syscall_and_process(void)
{
	static const char *const names[] = { "read", "write", "futex", "openat" };
	struct agg_filter f;
	struct agg_host *h;
	struct agg a;
	int i;

	agg_filter_init(&f);
	agg_start(&a, "syscall", &f, 0, &h);
	for (i = 0; i < 1000; i++) {
		struct outlier o = outlier(names[i % 4], 1, i, 10);

		agg_add(&a, h, &o);
	}
	agg_finish(&a);
	CHECK_EQ_U64(a.nr_groups, 4);
	for (i = 0; i < 4; i++)
		CHECK_EQ_U64(a.groups[i].count, 250);
	CHECK_STR(a.groups[0].syscall, "futex"); /* ties by name */
	agg_free(&a);

	agg_start(&a, "process", &f, 0, &h);
	for (i = 0; i < 1000; i++) {
		struct outlier o = outlier("read", i % 10, i, 10);

		agg_add(&a, h, &o);
	}
	agg_finish(&a);
	CHECK_EQ_U64(a.nr_groups, 10);
	CHECK_EQ_INT(a.groups[0].pid, 0);
	CHECK_EQ_U64(a.groups[9].count, 100);
	agg_free(&a);
}

/* Split by host too: the same syscall on two hosts is two rows, the hash tells them apart. */
static void test_by_syscall_and_host(void)
{
	struct agg_host *h1, *h2;
	struct agg_filter f;
	struct agg a;
	int i;

	agg_filter_init(&f);
	agg_start(&a, "syscall,host", &f, 0, &h1);
	CHECK_EQ_INT(agg_host_find(&a, "h2", &h2), 0);
	for (i = 0; i < 300; i++) {
		struct outlier o = outlier(i % 3 ? "read" : "fsync", 1, i, 10);

		agg_add(&a, i % 2 ? h1 : h2, &o);
	}
	agg_finish(&a);
	CHECK_EQ_U64(a.nr_groups, 4);
	CHECK_EQ_U64(a.groups[0].count + a.groups[1].count + a.groups[2].count + a.groups[3].count,
		     300);
	CHECK_EQ_U64(a.groups[0].count, 100);
	CHECK_STR(a.groups[0].syscall, "read");
	agg_free(&a);
}

int main(void)
{
	RUN(test_empty);
	RUN(test_many_threads);
	RUN(test_by_syscall_and_process);
	RUN(test_by_syscall_and_host);
	return unit_done();
}
