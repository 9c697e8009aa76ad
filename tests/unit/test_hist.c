// SPDX-License-Identifier: GPL-2.0-only
/* The histogram geometry of shm/sclat_abi.h, and its BPF build agreeing with gcc's. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "util/compiler.h"
#include "unit.h"
#include "sclat_abi.h"
#include "hist_check.h"
#include "hist_check.skel.h"

#define NR_VALUES 1024

/* Values that exercise every edge: small ones, powers of two and their neighbours. */
static void values_fill(__u64 *v, int n)
{
	__u64 x = 0x9e3779b97f4a7c15ULL;
	int i = 0, k;

	for (k = 0; k < 40 && i < n; k++)
		v[i++] = k;
	for (k = 4; k < 64 && i + 3 <= n; k++) {
		v[i++] = (1ULL << k) - 1;
		v[i++] = 1ULL << k;
		v[i++] = (1ULL << k) + 1;
	}
	v[i++] = ~0ULL;
	while (i < n) {
		/* xorshift, spread over all magnitudes */
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		v[i++] = x >> (x % 60);
	}
}

static void test_bucket_contains_value(void)
{
	__u64 v[NR_VALUES];
	int i;

	values_fill(v, NR_VALUES);
	for (i = 0; i < NR_VALUES; i++) {
		__u32 b = sclat_hist_bucket(v[i]);

		if (!CHECK(b < SCLAT_HIST_BUCKETS, "bucket(%llu) = %u", (unsigned long long)v[i],
			   b))
			return;
		CHECK(sclat_hist_lower(b) <= v[i], "lower(bucket(%llu)) = %llu",
		      (unsigned long long)v[i], (unsigned long long)sclat_hist_lower(b));
		if (b < SCLAT_HIST_BUCKETS - 1)
			CHECK(v[i] < sclat_hist_upper(b), "%llu past its bucket %u",
			      (unsigned long long)v[i], b);
	}
}

static void test_buckets_contiguous(void)
{
	__u32 b;

	for (b = 1; b < SCLAT_HIST_BUCKETS; b++) {
		CHECK_EQ_U64(sclat_hist_lower(b),
			     sclat_hist_lower(b - 1) + sclat_hist_width(b - 1));
		CHECK_EQ_U64(sclat_hist_upper(b - 1), sclat_hist_lower(b));
		CHECK_EQ_U64(sclat_hist_bucket(sclat_hist_upper(b - 1) - 1), b - 1);
	}
	for (b = 0; b < SCLAT_HIST_BUCKETS; b++)
		CHECK_EQ_U64(sclat_hist_bucket(sclat_hist_lower(b)), b);
}

/* The bound the design promises: a bucket's value is within 6.25 % of anything in it. */
static void test_relative_error_bound(void)
{
	__u64 v[NR_VALUES];
	double worst = 0;
	int i;

	values_fill(v, NR_VALUES);
	for (i = 0; i < NR_VALUES; i++) {
		__u32 b = sclat_hist_bucket(v[i]);
		double err;

		if (!v[i] || b == SCLAT_HIST_BUCKETS - 1)
			continue;
		err = fabs((double)sclat_hist_value(b) - (double)v[i]) / (double)v[i];
		if (err > worst)
			worst = err;
	}
	CHECK(worst <= 0.0625, "worst relative error %.4f > 0.0625", worst);
}

static void test_top_bucket_covers_seconds(void)
{
	/* Blocking syscalls last seconds: they must land in distinct buckets up to ~16 s. */
	CHECK(sclat_hist_bucket(8000000000ULL) < SCLAT_HIST_BUCKETS - 1, "8 s in the last bucket");
	CHECK_EQ_U64(sclat_hist_bucket(100000000000ULL), SCLAT_HIST_BUCKETS - 1);
}

static int silent(enum libbpf_print_level level __always_unused, const char *fmt __always_unused,
		  va_list ap __always_unused)
{
	return 0;
}

/* clang -target bpf and gcc compile the same header: the kernel's answers must match ours. */
static void test_bpf_build_agrees(void)
{
	struct hist_check_args a;
	/* A syscall program's context is copied back into ctx_in. */
	LIBBPF_OPTS(bpf_test_run_opts, opts, .ctx_in = &a, .ctx_size_in = sizeof(a));
	struct hist_check_bpf *skel;
	__u64 v[NR_VALUES];
	int fd, i;

	if (!CHECK(geteuid() == 0, "needs root to run a BPF program"))
		return;
	libbpf_set_print(silent);
	skel = hist_check_bpf__open_and_load();
	if (!CHECK(skel, "loading hist_check.bpf.o: %s", strerror(errno)))
		return;
	fd = bpf_program__fd(skel->progs.hist_check);
	values_fill(v, NR_VALUES);
	for (i = 0; i < NR_VALUES; i++) {
		memset(&a, 0, sizeof(a));
		a.value = v[i];
		a.b = i;
		if (!CHECK(!bpf_prog_test_run_opts(fd, &opts), "test run: %s", strerror(errno)))
			break;
		if (!CHECK(a.bucket == sclat_hist_bucket(v[i]), "value %llu: bpf bucket %u, gcc %u",
			   (unsigned long long)v[i], a.bucket, sclat_hist_bucket(v[i])))
			break;
		if (i < (int)SCLAT_HIST_BUCKETS && !(CHECK_EQ_U64(a.lower, sclat_hist_lower(i)) &&
						     CHECK_EQ_U64(a.mid, sclat_hist_value(i))))
			break;
	}
	hist_check_bpf__destroy(skel);
}

int main(void)
{
	RUN(test_bucket_contains_value);
	RUN(test_buckets_contiguous);
	RUN(test_relative_error_bound);
	RUN(test_top_bucket_covers_seconds);
	RUN(test_bpf_build_agrees);
	return unit_done();
}
