// SPDX-License-Identifier: GPL-2.0-only
/*
 * Runs shm/sclat_abi.h's bucket math as compiled by clang -target bpf, inside
 * the kernel, so tests/unit/test_hist.c can compare it with gcc's build.
 * One value and one bucket per run, passed in and out through the context.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "sclat_abi.h"
#include "hist_check.h"

char LICENSE[] SEC("license") = "GPL";

SEC("syscall")
int hist_check(struct hist_check_args *a)
{
	a->bucket = sclat_hist_bucket(a->value);
	if (a->b < SCLAT_HIST_BUCKETS) {
		a->lower = sclat_hist_lower(a->b);
		a->mid = sclat_hist_value(a->b);
	}
	return 0;
}
