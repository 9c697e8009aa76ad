// SPDX-License-Identifier: GPL-2.0-only
/*
 * The metrics page (outputs/metrics_render.c) and the histograms behind it
 * (controller/metrics_view.c): the exported buckets are edges of the
 * kernel's, folded from the engine's counts they only grow and are
 * cumulative, +Inf is the count, and a hostile class name stays inside its
 * label; and the addresses --metrics takes (outputs/metrics_server.c).
 */
#include <stdlib.h>
#include "unit.h"
#include "controller/engine.h"
#include "controller/metrics_view.h"
#include "outputs/metrics_render.h"
#include "outputs/metrics_server.h"
#include "policy/policy.h"

#define NR_READ 0

/* Every exported bound ends a kernel bucket, and each kernel bucket is under the first that holds
 * it. */
static void test_bounds_are_kernel_bucket_edges(void)
{
	unsigned int b, i;

	for (i = 0; i < LATENCY_LE_BUCKETS; i++)
		CHECK_EQ_U64(sclat_hist_lower(sclat_hist_bucket(latency_le_ns(i))),
			     latency_le_ns(i));
	for (b = 0; b < SCLAT_HIST_BUCKETS - 1; b++) {
		__u64 end = sclat_hist_upper(b);

		i = latency_le_index(b);
		if (i == LATENCY_LE_BUCKETS) {
			CHECK(end > latency_le_ns(LATENCY_LE_BUCKETS - 1), "bucket %u only in +Inf",
			      b);
			continue;
		}
		CHECK(end <= latency_le_ns(i), "bucket %u ends at %llu, over %llu", b,
		      (unsigned long long)end, (unsigned long long)latency_le_ns(i));
		CHECK(!i || end > latency_le_ns(i - 1), "bucket %u belongs under bound %u", b,
		      i - 1);
	}
	/* The kernel's last bucket is open-ended: +Inf only. */
	CHECK_EQ_U64(latency_le_index(SCLAT_HIST_BUCKETS - 1), LATENCY_LE_BUCKETS);
}

/* The page of one status with nr_syscalls rows, and series, into a string. */
static char *page(const struct controller_status *st, const struct latency_series *s, size_t n)
{
	struct metrics_snapshot snap = {
		.st = st,
		.series = s,
		.nr_series = n,
		.version = "1.2.3",
		.abi = 13,
	};
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	CHECK(!metrics_render(&snap, f), "render");
	fclose(f);
	return buf;
}

/* The value of the sample whose line starts with prefix (up to its value), or -1. */
static double sample(const char *text, const char *prefix)
{
	const char *p = text;
	size_t n = strlen(prefix);

	while (p && *p) {
		if (!strncmp(p, prefix, n) && p[n] == ' ')
			return strtod(p + n + 1, NULL);
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return -1;
}

static struct controller_status *status_new(void)
{
	struct controller_status *st = calloc(1, sizeof(*st));

	st->nr_syscalls = 1;
	st->syscalls[0] = (struct syscall_status){ .nr = NR_READ,
						   .calls = 9,
						   .threshold_ns = SCLAT_THRESHOLD_NEVER };
	return st;
}

/*
 * Counts fed to the engine in two intervals come out of the view as one
 * cumulative histogram: each bucket at least the one before, the second
 * interval added to the first, +Inf and _count every call, _sum their
 * midpoints.
 */
static void test_folded_buckets_are_cumulative_and_inf_is_the_count(void)
{
	struct policy *p = policy_static(1000000);
	struct engine *e = engine_new(p, 0);
	struct metrics_view *mv = metrics_view_new(0);
	struct controller_status *st = status_new();
	static struct sclat_hist raw;
	struct latency_series *s;
	struct metrics_budget budget;
	__u64 cpu, sum = 0;
	double last = 0, v;
	size_t n;
	unsigned int i;
	char *text, name[160];

	engine_baseline(e, NR_READ, &raw);
	/* 3 calls of 300 ns, 5 of 3 ms; then 1 more of 3 ms and one past 8.6 s. */
	raw.bucket[sclat_hist_bucket(300)] += 3;
	raw.bucket[sclat_hist_bucket(3000000)] += 5;
	engine_feed(e, NR_READ, &raw);
	metrics_view_fold(mv, e, NULL, p);
	engine_step(e, p, 1000000000ULL);
	raw.bucket[sclat_hist_bucket(3000000)] += 1;
	raw.bucket[SCLAT_HIST_BUCKETS - 1] += 1;
	engine_feed(e, NR_READ, &raw);
	metrics_view_fold(mv, e, NULL, p);
	engine_step(e, p, 1000000000ULL);
	/* A pass with nothing fed adds nothing. */
	metrics_view_fold(mv, e, NULL, p);

	CHECK(!metrics_view_read(mv, &s, &n, &budget, &cpu), "read");
	CHECK_EQ_U64(n, 1);
	CHECK_EQ_U64(s[0].h.count, 10);
	text = page(st, s, n);
	for (i = 0; i < LATENCY_LE_BUCKETS; i++) {
		snprintf(name, sizeof(name),
			 "sclat_syscall_latency_seconds_bucket{syscall=\"read\",le=\"%.9f\"}",
			 latency_le_ns(i) / 1e9);
		v = sample(text, name);
		CHECK(v >= last, "%s: %g after %g: not cumulative", name, v, last);
		last = v;
	}
	CHECK_EQ_U64(sample(text, "sclat_syscall_latency_seconds_bucket{syscall=\"read\","
				  "le=\"0.000000512\"}"),
		     3);
	CHECK_EQ_U64(sample(text, "sclat_syscall_latency_seconds_bucket{syscall=\"read\","
				  "le=\"0.004194304\"}"),
		     9);
	/* The call past the last bound is in +Inf alone. */
	CHECK_EQ_U64(last, 9);
	CHECK_EQ_U64(sample(text, "sclat_syscall_latency_seconds_bucket{syscall=\"read\","
				  "le=\"+Inf\"}"),
		     10);
	CHECK_EQ_U64(sample(text, "sclat_syscall_latency_seconds_count{syscall=\"read\"}"), 10);
	sum = 3 * sclat_hist_value(sclat_hist_bucket(300)) +
	      6 * sclat_hist_value(sclat_hist_bucket(3000000)) +
	      sclat_hist_value(SCLAT_HIST_BUCKETS - 1);
	CHECK_NEAR(sample(text, "sclat_syscall_latency_seconds_sum{syscall=\"read\"}"), sum / 1e9,
		   1e-9);
	free(text);
	free(s);
	free(st);
	metrics_view_free(mv);
	engine_free(e);
	policy_free(p);
}

/*
 * A class named by a traced process, made to break out of its label: its
 * quote, backslash and newline escaped, its bad byte as the text \xff, every
 * sample on one line of its own.
 */
static void test_hostile_class_name_stays_in_its_label(void)
{
	const char hostile[] = "a\"} 1\nevil{x=\"\\\xff";
	const char *want = "class=\"a\\\"} 1\\nevil{x=\\\"\\\\\\\\xff\"";
	struct controller_status *st = status_new();
	struct latency_series s = { .nr = NR_READ, .h = { .count = 2 } };
	const char *line;
	char *text;
	int lines = 0;

	snprintf(s.class_name, sizeof(s.class_name), "%s", hostile);
	st->nr_classes = 1;
	st->classes[0].s =
		(struct syscall_status){ .nr = NR_READ, .calls = 2, .threshold_ns = 5000 };
	snprintf(st->classes[0].s.basis.class_name, BASIS_CLASS_MAX, "%s", hostile);
	text = page(st, &s, 1);
	CHECK(strstr(text, want) != NULL, "no %s in the page", want);
	for (line = text; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		/* No line starts inside a label: each is a comment or a sample of ours. */
		CHECK(*line == '#' || !strncmp(line, "sclat_", 6), "a line starts with %.20s",
		      line);
		if (strstr(line, want) && strstr(line, want) < strchr(line, '\n'))
			lines++;
	}
	/* Bucket by bucket, +Inf, _sum, _count, then calls..drops and the threshold. */
	CHECK_EQ_INT(lines, LATENCY_LE_BUCKETS + 3 + 5);
	CHECK(strstr(text, "sclat_syscall_threshold_seconds{syscall=\"read\"}") == NULL,
	      "a threshold for a syscall that is off");
	free(text);
	free(st);
}

/*
 * Two classes of one name (a cgroup made again at its path before the old
 * one's class retired) are one series: their calls added, the busier one's
 * threshold.
 */
static void test_classes_of_one_name_are_one_series(void)
{
	struct controller_status *st = status_new();
	struct latency_series s[3] = {
		{ .nr = NR_READ, .class_name = "/web", .h = { .in = { 1 }, .count = 1 } },
		{ .nr = NR_READ, .h = { .in = { 5 }, .count = 5 } },
		{ .nr = NR_READ, .class_name = "/web", .h = { .in = { 2 }, .count = 4 } },
	};
	const char *p;
	char *text;
	int n = 0;

	st->nr_classes = 2;
	st->classes[0].s = (struct syscall_status){ .nr = NR_READ, .calls = 1, .threshold_ns = 7 };
	st->classes[1].s = (struct syscall_status){ .nr = NR_READ, .calls = 4, .threshold_ns = 9 };
	strcpy(st->classes[0].s.basis.class_name, "/web");
	strcpy(st->classes[1].s.basis.class_name, "/web");
	text = page(st, s, 3);
	CHECK_EQ_U64(sample(text, "sclat_syscall_latency_seconds_count{syscall=\"read\","
				  "class=\"/web\"}"),
		     5);
	CHECK_EQ_U64(sample(text, "sclat_syscall_latency_seconds_bucket{syscall=\"read\","
				  "class=\"/web\",le=\"0.000000256\"}"),
		     3);
	CHECK_EQ_U64(sample(text, "sclat_syscall_latency_seconds_count{syscall=\"read\"}"), 5);
	CHECK_EQ_U64(sample(text, "sclat_syscall_calls_total{syscall=\"read\",class=\"/web\"}"), 5);
	CHECK_NEAR(sample(text, "sclat_syscall_threshold_seconds{syscall=\"read\",class=\"/web\"}"),
		   9e-9, 1e-9);
	for (p = text; (p = strstr(p, "sclat_syscall_calls_total{syscall=\"read\",class")); p++)
		n++;
	CHECK_EQ_INT(n, 1);
	free(text);
	free(st);
}

/* --metrics: the forms it takes, loopback only unless any, a port from 1 to 65535. */
static void test_addresses_are_loopback_unless_any(void)
{
	static const struct {
		const char *arg;
		bool any, ok;
		int family;
	} cases[] = {
		{ "9464", false, true, AF_INET },
		{ "127.0.0.1:9464", false, true, AF_INET },
		{ "127.1.2.3:1", false, true, AF_INET },
		{ "localhost:65535", false, true, AF_INET },
		{ "[::1]:9464", false, true, AF_INET6 },
		{ "0.0.0.0:9464", false, false, 0 },
		{ "0.0.0.0:9464", true, true, AF_INET },
		{ "[::]:9464", false, false, 0 },
		{ "[::]:9464", true, true, AF_INET6 },
		{ "10.0.0.1:9464", false, false, 0 },
		{ "127.0.0.1:0", false, false, 0 },
		{ "127.0.0.1:65536", false, false, 0 },
		{ "127.0.0.1:", false, false, 0 },
		{ "127.0.0.1:-1", false, false, 0 },
		{ "example.com:9464", true, false, 0 },
		{ "::1:9464", true, false, 0 },
		{ "", false, false, 0 },
	};
	struct sockaddr_storage sa;
	socklen_t len;
	char err[256];
	unsigned int i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int ret =
			metrics_addr_parse(cases[i].arg, cases[i].any, &sa, &len, err, sizeof(err));

		CHECK(!ret == cases[i].ok, "%s (any %d): %d %s", cases[i].arg, cases[i].any, ret,
		      ret ? err : "");
		if (!ret)
			CHECK_EQ_INT(sa.ss_family, cases[i].family);
	}
	CHECK(metrics_addr_parse("0.0.0.0:80", false, &sa, &len, err, sizeof(err)) &&
		      strstr(err, "--metrics-bind-any"),
	      "the refusal says how to allow it: %s", err);
}

/* The build, and the families a scraper expects, each typed once. */
static void test_build_info_and_types(void)
{
	struct controller_status *st = status_new();
	char *text = page(st, NULL, 0);

	CHECK(strstr(text, "sclat_build_info{version=\"1.2.3\",abi=\"13\"} 1\n") != NULL,
	      "build info");
	CHECK(strstr(text, "# TYPE sclat_syscall_latency_seconds histogram\n") != NULL, "hist");
	CHECK(strstr(text, "# TYPE sclat_syscall_calls_total counter\n") != NULL, "calls");
	CHECK(strstr(text, "# TYPE sclat_controller_cpu_seconds_total counter\n") != NULL, "cpu");
	CHECK_EQ_U64(sample(text, "sclat_syscall_calls_total{syscall=\"read\"}"), 9);
	free(text);
	free(st);
}

int main(void)
{
	RUN(test_bounds_are_kernel_bucket_edges);
	RUN(test_folded_buckets_are_cumulative_and_inf_is_the_count);
	RUN(test_hostile_class_name_stays_in_its_label);
	RUN(test_classes_of_one_name_are_one_series);
	RUN(test_addresses_are_loopback_unless_any);
	RUN(test_build_info_and_types);
	return unit_done();
}
