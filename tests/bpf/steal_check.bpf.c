// SPDX-License-Identifier: GPL-2.0-only
/*
 * kern-bpf/steal.bpf.h at work: at a sys_enter of one process (tgid), where
 * the steal clock of the CPU it runs on is, found from its runqueue as sclat
 * finds it, and what it reads, so that tests/unit/test_steal.c can compare
 * it with the kernel's own account of steal time on that CPU.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_endian.h>
#include "sclat_abi.h"
#include "target.bpf.h"
#include "steal.bpf.h"

char LICENSE[] SEC("license") = "GPL";

/* In: the process. Out: its last sys_enter's CPU, the clock's address (0: none) and reading. */
__u32 target_tgid;
__u32 cpu, seen;
__u64 at, clock_ns;

SEC("tp_btf/sys_enter")
int steal_check(__u64 *ctx)
{
	if (bpf_get_current_pid_tgid() >> 32 != target_tgid)
		return 0;
	at = steal_clock_at(bpf_get_current_task_btf());
	clock_ns = steal_read(at);
	cpu = bpf_get_smp_processor_id();
	seen++;
	return 0;
}
