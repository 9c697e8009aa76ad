// SPDX-License-Identifier: GPL-2.0-only
/*
 * sclat's kernel side: measure every syscall, count it in a per-CPU
 * histogram, and send only the ones at or above their syscall's threshold to
 * the ring buffer, with what explains them: where their time went, who woke
 * them, where in the kernel they waited and on what. Policy lives in
 * userspace; this object measures, counts, compares and emits.
 *
 * A call under its threshold pays two clock reads, its CPU's record and a
 * place on its CPU's pending list, which a later call moves into the
 * histograms. What explains an outlier is paid by outliers, or by
 * the scheduler events of tasks inside a syscall.
 *
 * Each program exists twice: tp_btf (direct loads from pt_regs) and raw_tp
 * (the fallback for kernels without tp_btf); userspace autoloads one set.
 *
 * This file holds the programs, what attaches where; their work is in the
 * parts it includes, each after those it uses, so that the verifier still
 * loads one object with one set of maps: the CPU's page (cpu_page.bpf.h),
 * the maps and knobs (maps.bpf.h), who is traced (scope.bpf.h), classes and
 * their cells (classes.bpf.h), wakers (waker.bpf.h), an outlier's record
 * (outlier.bpf.h), sys_enter and sys_exit (syscall.bpf.h), a call off its
 * CPU (sched_switch.bpf.h) and the calls still in flight (inflight.bpf.h).
 */

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_endian.h>
#include "sclat_abi.h"
#include "breakdown.bpf.h"
#include "target.bpf.h"
#include "syscall_regs.bpf.h"
#include "ustack.bpf.h"

char LICENSE[] SEC("license") = "GPL";

/* For every part: */
#define barrier() asm volatile("" ::: "memory")
/* errno values the helpers return (vmlinux.h has no macros). */
#define EEXIST	  17

/* Task flags (task_struct.flags). */
#define TASK_PF_IDLE	  0x00000002
#define TASK_PF_IO_WORKER 0x00000010
#define TASK_PF_KTHREAD	  0x00200000

#include "cpu_page.bpf.h"
#include "maps.bpf.h"
#include "steal.bpf.h"
#include "scope.bpf.h"
#include "classes.bpf.h"
#include "waker.bpf.h"
#include "irq_time.bpf.h"
#include "outlier.bpf.h"
#include "syscall.bpf.h"
#include "sched_switch.bpf.h"

/* sys_enter and sys_exit, the path of every syscall (syscall.bpf.h). */

SEC("tp_btf/sys_enter")
int sclat_enter_btf(__u64 *ctx) /* struct pt_regs *regs, long id */
{
	syscall_enter(ctx, false);
	return 0;
}

SEC("tp_btf/sys_exit")
int sclat_exit_btf(__u64 *ctx) /* struct pt_regs *regs, long ret */
{
	syscall_exit(ctx, false);
	return 0;
}

/* The same, for a verifier that does not know the CPU's range (see cpu_page_get). */
SEC("tp_btf/sys_enter")
int sclat_enter_bounded(__u64 *ctx) /* struct pt_regs *regs, long id */
{
	syscall_enter(ctx, true);
	return 0;
}

SEC("tp_btf/sys_exit")
int sclat_exit_bounded(__u64 *ctx) /* struct pt_regs *regs, long ret */
{
	syscall_exit(ctx, true);
	return 0;
}

SEC("raw_tp/sys_enter")
int sclat_enter_raw(__u64 *ctx) /* struct pt_regs *regs, long id */
{
	syscall_enter(ctx, true);
	return 0;
}

SEC("raw_tp/sys_exit")
int sclat_exit_raw(__u64 *ctx) /* struct pt_regs *regs, long ret */
{
	syscall_exit(ctx, true);
	return 0;
}

/* A call leaving its CPU and coming back (sched_switch.bpf.h), and its waker (waker.bpf.h). */

/* sched_switch runs before the switch: current is still prev, no helper call to ask for it. */
SEC("tp_btf/sched_switch")
int BPF_PROG(sclat_switch_btf, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	struct cpu_page *p = cpu_page_get(true);
	__u64 now, next_regs;

	if (!prev || !next || !p)
		return 0;
	next_regs = (__u64)bpf_task_pt_regs(next);
	now = cpu_switch(p, prev, (__u64)next, next_regs, wait_kind_of(preempt, task_state(prev)),
			 next->tgid == self_tgid		    ? CPU_TASK_SELF
			 : scope_tgid || scope_cgroup || scope_comm ? CPU_TASK_OTHER
								    : CPU_TASK_TRACED);
	task_back(p, next, next_regs, now);
	return 0;
}

/* raw_tp: next is no BTF pointer, so neither its user registers nor its tgid are noted. */
SEC("raw_tp/sched_switch")
int BPF_PROG(sclat_switch_raw, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct cpu_page *p = cpu_page_get(true);

	if (p)
		cpu_switch(p, task, (__u64)next, 0, wait_kind_of(preempt, task_state(task)),
			   CPU_TASK_UNKNOWN);
	return 0;
}

/*
 * tp_btf only: a raw_tp program cannot hand p to the task storage helpers,
 * nor its switch program next. Without them a block is all sleep or I/O up
 * to the switch back in, and has no waker or kernel stack.
 */
SEC("tp_btf/sched_waking")
int BPF_PROG(sclat_waking_btf, struct task_struct *p)
{
	task_woken(ctx, p);
	return 0;
}

/*
 * Interrupts, hard and soft (irq_time.bpf.h): raw_tp, which every kernel
 * with BPF has; a tracepoint this kernel lacks is not loaded (probes_load.c).
 */

SEC("raw_tp/irq_handler_entry")
int sclat_irq_entry(void *ctx)
{
	irq_span_open();
	return 0;
}

SEC("raw_tp/irq_handler_exit")
int sclat_irq_exit(void *ctx)
{
	irq_span_close();
	return 0;
}

SEC("raw_tp/softirq_entry")
int sclat_softirq_entry(void *ctx)
{
	irq_span_open();
	return 0;
}

SEC("raw_tp/softirq_exit")
int sclat_softirq_exit(void *ctx)
{
	irq_span_close();
	return 0;
}

SEC("raw_tp/local_timer_entry")
int sclat_timer_entry(void *ctx)
{
	irq_span_open();
	return 0;
}

SEC("raw_tp/local_timer_exit")
int sclat_timer_exit(void *ctx)
{
	irq_span_close();
	return 0;
}

SEC("raw_tp/reschedule_entry")
int sclat_resched_entry(void *ctx)
{
	irq_span_open();
	return 0;
}

SEC("raw_tp/reschedule_exit")
int sclat_resched_exit(void *ctx)
{
	irq_span_close();
	return 0;
}

SEC("raw_tp/call_function_entry")
int sclat_callfn_entry(void *ctx)
{
	irq_span_open();
	return 0;
}

SEC("raw_tp/call_function_exit")
int sclat_callfn_exit(void *ctx)
{
	irq_span_close();
	return 0;
}

SEC("raw_tp/call_function_single_entry")
int sclat_callfn1_entry(void *ctx)
{
	irq_span_open();
	return 0;
}

SEC("raw_tp/call_function_single_exit")
int sclat_callfn1_exit(void *ctx)
{
	irq_span_close();
	return 0;
}

/* A call that submits block I/O waited for storage (syscall.bpf.h, call_submits_io). */
SEC("tp_btf/block_bio_queue")
int BPF_PROG(sclat_bio_btf, struct bio *bio)
{
	call_submits_io();
	return 0;
}

/* Processes in scope: their new processes follow them in, their tgids go at exit (scope.bpf.h). */

SEC("tp_btf/sched_process_fork")
int BPF_PROG(sclat_fork_btf, struct task_struct *parent, struct task_struct *child)
{
	scope_follow_fork(parent->tgid, child->tgid);
	return 0;
}

SEC("raw_tp/sched_process_fork")
int BPF_PROG(sclat_fork_raw, struct task_struct *parent, struct task_struct *child)
{
	scope_follow_fork(BPF_CORE_READ(parent, tgid), BPF_CORE_READ(child, tgid));
	return 0;
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(sclat_pexit_btf, struct task_struct *p)
{
	scope_forget(p->tgid, p->signal->live.counter);
	return 0;
}

SEC("raw_tp/sched_process_exit")
int BPF_PROG(sclat_pexit_raw, struct task_struct *p)
{
	scope_forget(BPF_CORE_READ(p, tgid), BPF_CORE_READ(p, signal, live.counter));
	return 0;
}

/* The syscalls still in flight, read by a task iterator: none of the above pays for it. */
#include "inflight.bpf.h"

/* Last, so that it is last in .bss (cpu_page.bpf.h says why). */
struct cpu_page cpu_pages[SCLAT_CPUS_MAX] __attribute__((aligned(SCLAT_CPU_PAGE_SIZE)));
