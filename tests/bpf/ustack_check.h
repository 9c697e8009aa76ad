/* SPDX-License-Identifier: GPL-2.0-only */
/* The ring buffer record of tests/bpf/ustack_check.bpf.c: one syscall exit and its user stack. */
#ifndef USTACK_CHECK_H
#define USTACK_CHECK_H

#include "sclat_ustack.h"

struct ustack_check_record {
	__u64 exit_ns; /* bpf_ktime_get_ns() at sys_exit (CLOCK_MONOTONIC) */
	__u64 latency_ns;
	__s64 ret;
	__u32 pid; /* tgid */
	__u32 tid;
	__u32 nr;
	__u32 __pad;
	struct sclat_ustack ustack;
};

#endif
