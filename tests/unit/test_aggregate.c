// SPDX-License-Identifier: GPL-2.0-only
/* The plugin's aggregation (tracer-plugins/babeltrace2/common/agg*.c): groups and order. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
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

/* An outlier explained as a trace of version 3 does: its parts, target and kernel stack. */
static struct outlier explained(const char *syscall, uint64_t cpu, uint64_t runq, uint64_t sleep,
				uint64_t io, const char *target, const char *stack)
{
	struct outlier o = outlier(syscall, 7, 7, cpu + runq + sleep + io);

	o.why = (struct outlier_explanation){ .present = true,
					      .on_cpu_ns = cpu,
					      .runqueue_ns = runq,
					      .sleep_ns = sleep,
					      .io_wait_ns = io,
					      .target = target,
					      .kernel_stack = stack };
	return o;
}

/* Per group, the shares of the explained latency add up to 1; unexplained outliers add none. */
static void test_breakdown_shares(void)
{
	struct outlier r1 = explained("read", 100, 100, 600, 200, "pipe:[1]", "");
	struct outlier r2 = explained("read", 0, 0, 1000, 0, "pipe:[1]", "");
	struct outlier old = outlier("read", 1, 1, 5000);
	struct agg_filter f;
	struct agg_host *h;
	struct agg a;
	double sum = 0;
	unsigned int p;

	agg_filter_init(&f);
	agg_start(&a, "syscall", &f, 0, &h);
	CHECK_EQ_INT(agg_add(&a, h, &r1), 0);
	CHECK_EQ_INT(agg_add(&a, h, &r2), 0);
	CHECK_EQ_INT(agg_add(&a, h, &old), 0);
	agg_finish(&a);
	CHECK_EQ_U64(a.nr_groups, 1);
	CHECK_EQ_U64(a.groups[0].count, 3);
	CHECK_EQ_U64(a.groups[0].explained, 2);
	CHECK_EQ_U64(a.groups[0].time_ns[AGG_SLEEP], 1600);
	CHECK_NEAR(agg_time_share(&a.groups[0], AGG_SLEEP), 0.8, 1e-9);
	CHECK_NEAR(agg_time_share(&a.groups[0], AGG_IO_WAIT), 0.1, 1e-9);
	for (p = 0; p < AGG_NR_TIME_PARTS; p++)
		sum += agg_time_share(&a.groups[0], p);
	CHECK_NEAR(sum, 1.0, 1e-9);
	agg_free(&a);
}

/*
 * By target and by stack: one row per target (kept after the event's strings
 * are gone), (none) for an explained outlier without one, (not recorded) for
 * one of an older trace.
 */
static void test_by_target_and_stack(void)
{
	char t1[] = "pipe:[42]", t2[] = "pipe:[42]", k1[] = "pipe_read+0x1;vfs_read+0x2";
	struct outlier o1 = explained("read", 0, 0, 30, 0, t1, k1);
	struct outlier o2 = explained("read", 0, 0, 10, 0, t2, "pipe_read+0x1;vfs_read+0x2");
	struct outlier none = explained("getrandom", 5, 0, 0, 0, "", "");
	struct outlier old = outlier("read", 1, 1, 1);
	const struct agg_group *g;
	struct agg_filter f;
	struct agg_host *h;
	struct agg a;

	agg_filter_init(&f);
	agg_start(&a, "target", &f, 5, &h);
	CHECK_EQ_INT(agg_add(&a, h, &o1), 0);
	CHECK_EQ_INT(agg_add(&a, h, &o2), 0);
	CHECK_EQ_INT(agg_add(&a, h, &none), 0);
	CHECK_EQ_INT(agg_add(&a, h, &old), 0);
	/* The event's strings die with it: the aggregation keeps its own. */
	memset(t1, 'x', sizeof(t1) - 1);
	memset(k1, 'x', sizeof(k1) - 1);
	agg_finish(&a);
	CHECK_EQ_U64(a.nr_groups, 3);
	g = &a.groups[0];
	CHECK_STR(g->target, "pipe:[42]");
	CHECK_EQ_U64(g->count, 2);
	CHECK_STR(a.groups[1].target, GROUP_NONE);
	CHECK_STR(a.groups[2].target, GROUP_NOT_RECORDED);
	CHECK_STR(a.top[0].why.target, "pipe:[42]");
	CHECK_STR(a.top[0].why.kernel_stack, "pipe_read+0x1;vfs_read+0x2");
	agg_free(&a);

	agg_start(&a, "syscall,stack", &f, 0, &h);
	CHECK_EQ_INT(agg_add(&a, h, &o2), 0);
	CHECK_EQ_INT(agg_add(&a, h, &o2), 0);
	CHECK_EQ_INT(agg_add(&a, h, &none), 0);
	agg_finish(&a);
	CHECK_EQ_U64(a.nr_groups, 2);
	CHECK_STR(a.groups[0].stack, "pipe_read+0x1;vfs_read+0x2");
	CHECK_STR(a.groups[0].syscall, "read");
	CHECK_STR(a.groups[1].stack, GROUP_NONE);
	agg_free(&a);
}

/*
 * Folded stacks: comm, syscall, kernel frames outermost first without their
 * offsets or modules; the same stack once, weighted by the sum of latencies.
 */
static void test_folded(void)
{
	struct outlier o =
		explained("read", 0, 0, 1000, 0, "pipe:[1]",
			  "anon_pipe_read+0x393;vfs_read+0x397 [vmlinux];ksys_read+0xc3");
	struct outlier none = explained("getrandom", 7, 0, 0, 0, "", "");
	struct outlier old = outlier("futex", 1, 1, 20);
	struct agg_filter f;
	struct agg_host *h;
	char line[256];
	struct agg a;

	snprintf(o.comm, sizeof(o.comm), "my app;1");
	CHECK_EQ_INT(agg_folded_line(&o, line, sizeof(line)), 0);
	CHECK_STR(line, "my_app_1;read;ksys_read;vfs_read;anon_pipe_read");
	CHECK_EQ_INT(agg_folded_line(&o, line, 12), -ENOSPC);

	agg_filter_init(&f);
	agg_start(&a, "syscall", &f, 0, &h);
	agg_fold(&a);
	CHECK_EQ_INT(agg_add(&a, h, &o), 0);
	CHECK_EQ_INT(agg_add(&a, h, &o), 0);
	CHECK_EQ_INT(agg_add(&a, h, &none), 0);
	CHECK_EQ_INT(agg_add(&a, h, &old), 0);
	agg_finish(&a);
	CHECK_EQ_U64(a.nr_folded_lines, 3);
	CHECK_STR(a.folded_lines[0].line, "my_app_1;read;ksys_read;vfs_read;anon_pipe_read");
	CHECK_EQ_U64(a.folded_lines[0].weight_ns, 2000);
	CHECK_STR(a.folded_lines[1].line, "t1;futex");
	CHECK_EQ_U64(a.folded_lines[1].weight_ns, 20);
	CHECK_STR(a.folded_lines[2].line, "t7;getrandom");
	agg_free(&a);

	/* With a user stack (trace version 5): main down to the syscall, then the kernel. */
	{
		char u[] =
			"read+0x12 (libc.so.6);slow_read+0x9 (waits) waits.c:40;main+0x30 (waits)";

		o.why.user_stack = u;
		CHECK_EQ_INT(agg_folded_line(&o, line, sizeof(line)), 0);
		CHECK_STR(line,
			  "my_app_1;main;slow_read;read;read;ksys_read;vfs_read;anon_pipe_read");
		/* --by stack: kernel frames, then the user's, kept past the event. */
		agg_start(&a, "stack", &f, 5, &h);
		CHECK_EQ_INT(agg_add(&a, h, &o), 0);
		memset(u, 'x', sizeof(u) - 1);
		agg_finish(&a);
		CHECK_STR(
			a.groups[0].stack,
			"anon_pipe_read+0x393;vfs_read+0x397 [vmlinux];ksys_read+0xc3;"
			"read+0x12 (libc.so.6);slow_read+0x9 (waits) waits.c:40;main+0x30 (waits)");
		CHECK_STR(a.top[0].why.user_stack, "read+0x12 (libc.so.6);slow_read+0x9 (waits) "
						   "waits.c:40;main+0x30 (waits)");
		agg_free(&a);
	}

	/*
	 * A deep user stack over a short kernel one (its frames skipped by the
	 * burst guard): the folded line is longer than the kernel stack allows for.
	 */
	{
		static const char deep[] =
			"read+0x12 (libc.so.6);slow_read+0x9 (waits) waits.c:40;main+0x30 (waits);"
			"__libc_start_call_main+0x80 (libc.so.6);__libc_start_main+0x80 (libc.so.6);"
			"_start+0x25 (waits);handle_request+0x1 (srv);dispatch_loop+0x2 (srv);"
			"worker_thread_main+0x3 (srv);start_thread+0x4 (libc.so.6)";
		struct outlier d = explained("read", 0, 0, 1000, 0, "", "");

		d.why.user_stack = deep;
		agg_start(&a, "syscall", &f, 0, &h);
		agg_fold(&a);
		CHECK_EQ_INT(agg_add(&a, h, &d), 0);
		agg_finish(&a);
		CHECK_EQ_U64(a.nr_folded_lines, 1);
		if (a.nr_folded_lines)
			CHECK_STR(a.folded_lines[0].line,
				  "t7;start_thread;worker_thread_main;dispatch_loop;handle_request;"
				  "_start;__libc_start_main;__libc_start_call_main;main;slow_read;"
				  "read;read");
		agg_free(&a);
	}
}

static struct threshold_change change(const char *syscall, const char *class_name, uint64_t new_ns,
				      uint64_t estimate_ns)
{
	struct threshold_change t = { .new_ns = new_ns, .estimate_ns = estimate_ns, .samples = 9 };

	snprintf(t.syscall, sizeof(t.syscall), "%s", syscall);
	snprintf(t.class_name, sizeof(t.class_name), "%s", class_name);
	return t;
}

/*
 * A trace recorded under classes: what its syscalls learned (sclat policy
 * from-trace) is each syscall's own last update, whatever its classes moved to after.
 */
static void test_learned_is_the_syscalls_own(void)
{
	struct threshold_change own = change("read", "", 3000000, 2900000);
	struct threshold_change cls = change("read", "pid 12 (a)", 2000, 1900);
	struct threshold_change only = change("write", "fd:pipe", 5000, 4000);
	struct agg_filter f;
	struct agg_host *h;
	struct agg a;

	agg_filter_init(&f);
	agg_start(&a, "syscall", &f, 10, &h);
	CHECK_EQ_INT(agg_add_change(&a, h, &own), 0);
	CHECK_EQ_INT(agg_add_change(&a, h, &cls), 0);
	CHECK_EQ_INT(agg_add_change(&a, h, &only), 0);
	agg_finish(&a);
	CHECK_EQ_U64(h->nr_sc, 1);
	CHECK_STR(h->sc[0].syscall, "read");
	CHECK(h->sc[0].learned, "read's own update was learned");
	CHECK_EQ_U64(h->sc[0].last_learned.new_ns, 3000000);
	CHECK_EQ_U64(h->sc[0].last_learned.estimate_ns, 2900000);
	/* The changes listed (LAMI's table) are the syscalls' too. */
	CHECK_EQ_U64(a.nr_changes, 1);
	CHECK_EQ_U64(a.changes[0].new_ns, 3000000);
	agg_free(&a);
}

/* A judged outlier: latency, impact and surprise (< 0: not known). */
static struct outlier judged(int32_t tid, uint64_t lat, uint64_t impact, double surprise)
{
	struct outlier o = outlier("read", 1, tid, lat);

	o.judged = true;
	o.impact_ns = impact;
	o.surprise = surprise;
	return o;
}

/* The top list, kept and sorted by the order asked: each its own first, the rest in turn. */
static void test_top_orders(void)
{
	static const char *const orders[] = { "latency", "impact", "surprise" };
	/* tid 1 the slowest, 2 the costliest, 3 the most surprising, 4 not known. */
	struct outlier o[] = {
		judged(1, 9000, 1000, 2.0),
		judged(2, 8000, 7900, 3.0),
		judged(3, 300, 290, 7.5),
		judged(4, 5000, 5000, -1),
	};
	static const int32_t want[3][3] = { { 1, 2, 4 }, { 2, 4, 1 }, { 3, 2, 1 } };
	struct agg_filter f;
	struct agg_host *h;
	unsigned int i, k;
	struct agg a;

	agg_filter_init(&f);
	for (k = 0; k < 3; k++) {
		agg_start(&a, "syscall", &f, 3, &h);
		CHECK_EQ_INT(agg_order_set(&a, orders[k]), 0);
		for (i = 0; i < 4; i++)
			CHECK_EQ_INT(agg_add(&a, h, &o[i]), 0);
		agg_finish(&a);
		CHECK_EQ_U64(a.nr_top, 3);
		for (i = 0; i < 3 && i < a.nr_top; i++)
			CHECK(a.top[i].tid == want[k][i], "%s: #%u is tid %d, not %d", orders[k], i,
			      a.top[i].tid, want[k][i]);
		CHECK(!strcmp(agg_order_name(a.order), orders[k]), "order %s", orders[k]);
		agg_free(&a);
	}
	agg_start(&a, "syscall", &f, 3, &h);
	CHECK_EQ_INT(agg_order_set(&a, "fastest"), -EINVAL);
	agg_free(&a);
}

int main(void)
{
	RUN(test_empty);
	RUN(test_many_threads);
	RUN(test_by_syscall_and_process);
	RUN(test_by_syscall_and_host);
	RUN(test_breakdown_shares);
	RUN(test_by_target_and_stack);
	RUN(test_folded);
	RUN(test_learned_is_the_syscalls_own);
	RUN(test_top_orders);
	return unit_done();
}
