// SPDX-License-Identifier: GPL-2.0-only
/*
 * The floor: an empty tp_btf sys_enter/sys_exit pair. What any BPF syscall
 * tracer pays before it does any work; scripts/bench measures sclat against it.
 *
 * With clock_reads set, each program also reads the clock once, as any tracer
 * of syscall latency must at entry and at exit: the clock floor. Left unset,
 * the verifier removes the branch and the programs stay empty.
 *
 * The sched_switch and sched_waking programs, loaded on request, are the
 * floor of a tracer that also follows a syscall off its CPU, as sclat does:
 * the same hooks, empty but for their clock read.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

const volatile bool clock_reads;
__u64 last_ns;

SEC("tp_btf/sys_enter")
int BPF_PROG(floor_enter, struct pt_regs *regs, long id)
{
	if (clock_reads)
		last_ns = bpf_ktime_get_ns();
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(floor_exit, struct pt_regs *regs, long ret)
{
	if (clock_reads)
		last_ns = bpf_ktime_get_ns();
	return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(floor_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	if (clock_reads)
		last_ns = bpf_ktime_get_ns();
	return 0;
}

SEC("tp_btf/sched_waking")
int BPF_PROG(floor_waking, struct task_struct *p)
{
	if (clock_reads)
		last_ns = bpf_ktime_get_ns();
	return 0;
}
