// SPDX-License-Identifier: GPL-2.0-only
/*
 * The floor: an empty tp_btf sys_enter/sys_exit pair. What any BPF syscall
 * tracer pays before it does any work; scripts/bench measures sclat against it.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

SEC("tp_btf/sys_enter")
int BPF_PROG(floor_enter, struct pt_regs *regs, long id)
{
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(floor_exit, struct pt_regs *regs, long ret)
{
	return 0;
}
