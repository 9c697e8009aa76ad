/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Each CPU's page: its lane (struct sclat_cpu_lane, shm/sclat_abi.h), then
 * its record of the syscall in flight (struct cpu_entry), and how a program
 * finds its own CPU's page. A call that never leaves its CPU reads and
 * writes this page and hardly anything else: its layout is the hot path's.
 *
 * Part of sclat.bpf.c, its first: it needs only the headers. sclat.bpf.c
 * defines cpu_pages at its end, so that it is last in .bss.
 */
#ifndef SCLAT_CPU_PAGE_BPF_H
#define SCLAT_CPU_PAGE_BPF_H

/* Whether the task on a CPU is sclat itself, as sched_switch saw it come in. */
enum cpu_task {
	CPU_TASK_UNKNOWN, /* not seen come in (raw_tp, or since before attach) */
	CPU_TASK_OTHER,
	CPU_TASK_SELF,
	CPU_TASK_TRACED, /* not sclat, and no scope to check per call: traced */
};

/*
 * A task's class id of kind kind (0: none) whose key is key
 * (task_class_key), as a CPU's record notes it (struct cpu_entry) and a
 * thread keeps it (struct task_entry); with the css_set the task had then
 * (for a cgroup's), and the lanes' class_epoch: userspace forgets ids noted
 * before it moved on.
 */
struct class_note {
	__u64 key;
	__u64 cset;
	/*
	 * CPU record only: the task at regs (0: none since the last switch) was
	 * checked to be of the class noted: its process's stays so; a cgroup's
	 * key takes three pages to read, and its css_set, cset, seen then says
	 * it still is (a move gives the task another css_set).
	 */
	__u64 regs;
	__u32 epoch;
	__u8 kind;
	__u8 pending; /* id 0: asked for and not answered yet (not refused) */
	__u16 id;
};

/*
 * The syscall in flight on a CPU, from sys_enter to sys_exit, and what
 * sched_switch noted of the task that came onto the CPU last.
 *
 * Why per CPU and not per task: a syscall that returns without leaving its
 * CPU (nearly all of them) then costs its CPU's page (struct cpu_page), no task
 * storage lookup at enter or at exit (measured: 55 ns less per syscall on the
 * 2-vCPU reference VM, see scripts/BENCHMARKS.md). One that blocks or is
 * preempted does leave it: sched_switch then moves the record into the task's
 * local storage (struct task_entry), and moves it back into the record of the
 * CPU the task comes back on (call_resume; under raw_tp, sys_exit finds it in
 * the storage).
 *
 * A record is complete once .entry_ns is not 0, and belongs to the task whose
 * user registers are at .regs: the syscall tracepoints pass that address, so
 * sys_exit knows its own record without a helper call. The switch that parks
 * a record clears it. Some switches go unreported (the kernel of the
 * reference VM traces no switch away from some tasks): a record they leave
 * behind is never taken for another task's, and a note of theirs not
 * renewed is never taken for the task that came in unseen. This relies on
 * the syscall tracepoints running their BPF programs with preemption off
 * (they do: the kernel disables it around syscall tracepoint probes), so no
 * switch falls inside a program.
 */
struct cpu_entry {
	/* What every call reads or writes first, in one cache line: */
	__u64 entry_ns; /* 0: none in flight */
	__u64 regs;	/* the user registers of the record's task */
	__u32 nr;
	__u32 task_self; /* enum cpu_task of the task noted */
	/* The last switch onto this CPU: the task's user registers (0: not known), the task, when.
	 */
	__u64 in_regs;
	__u64 in_task;
	__u64 in_ns;
	/* Where this CPU's steal clock is (steal.bpf.h): 0 until a switch here notes it. */
	__u64 steal_at;
	/*
	 * The steal clock's low 32 bits at the call's entry, or less the steal
	 * it had before it came back onto this CPU (steal.bpf.h).
	 */
	__u32 steal_base;
	/*
	 * Calls under their floor to pass before the next sampled (lane_sample):
	 * under 2 * SCLAT_SAMPLE_MAX.
	 */
	__u16 sample_left;
	/* How deep in interrupts this CPU is (irq_time.bpf.h). */
	__u16 irq_depth;
	/* What draws the next sampled call (lane_sample). */
	__u32 sample_rand;
	/* The size of a task's kernel stack (0: not read yet): the same for every task. */
	__u32 stack_size;
	/*
	 * The class noted, for syscalls with classes: looked up when the key
	 * changes, not per call or switch, until userspace forgets an id.
	 */
	struct class_note cls;
	/*
	 * Interrupts on this CPU (irq_time.bpf.h, with irq_depth): since when,
	 * and the time they took from the call that entered at irq_of.
	 */
	__u64 irq_start;
	__u64 irq_of;
	__u64 irq_ns;
} __attribute__((aligned(64))); /* its first line: what a call without classes reads */

_Static_assert(sizeof(struct cpu_entry) == 128, "the record outgrows its two cache lines");

/*
 * In cpu_entry.nr, above the syscall number: the call in the record left its
 * CPU before, sched_switch brought it back from its task's storage when the
 * task came in (call_resume), and its wait account stays there. The next
 * sys_enter, writing nr, clears it for nothing.
 */
#define CPU_NR_RESUMED 0x80000000u
/*
 * In cpu_entry.nr too: the call waited for storage (struct sclat_brake's
 * io_ns): it submitted block I/O while in the record, or, resumed, its task's
 * storage says it did or left its CPU in an I/O wait. Such a call takes the
 * long way, where its histogram's io_ns may judge it.
 */
#define CPU_NR_IO      0x40000000u
#define CPU_NR_FLAGS   (CPU_NR_RESUMED | CPU_NR_IO)

/*
 * Each CPU's page (struct sclat_cpu_lane in shm/sclat_abi.h says why one):
 * its lane, then its record. Userspace writes the lanes' thresholds in place,
 * without a syscall: the pages are mmap'ed.
 */
_Static_assert(sizeof(struct sclat_cpu_lane) + sizeof(struct cpu_entry) <= SCLAT_CPU_PAGE_SIZE,
	       "the lane and the record outgrow their page");

struct cpu_page {
	struct sclat_cpu_lane lane;
	__u8 __pad[SCLAT_CPU_PAGE_SIZE - sizeof(struct sclat_cpu_lane) - sizeof(struct cpu_entry)];
	struct cpu_entry rec; /* at the end, on a line of its own */
};

/*
 * The pages, indexed by CPU: a global, and not an array map looked up by
 * CPU, so that a program has the page's address with no key stored on its
 * stack and loaded back (prog-ab: 3 ns less per syscall). Declared for the
 * most CPUs a kernel has, last in .bss; before load, userspace cuts .bss
 * down to the possible CPUs' pages (probes.c, pages_size). Page-aligned, as
 * .bss's map value is: a CPU's page is one page.
 */
extern struct cpu_page cpu_pages[SCLAT_CPUS_MAX];

/* The possible CPUs, set by userspace: what bounds an index the verifier knows nothing of. */
const volatile __u32 nr_cpu_pages = 1;

/* CPU cpu's page; NULL past the possible CPUs. */
static __always_inline struct cpu_page *cpu_page_of(__u32 cpu)
{
	if (cpu >= nr_cpu_pages)
		return NULL;
	/* The address computed after the check, where the verifier sees the bound. */
	barrier_var(cpu);
	return &cpu_pages[cpu];
}

/*
 * The current CPU's page. Its programs never run in parallel with each other.
 * Since Linux 6.10 the verifier knows that bpf_get_smp_processor_id() is
 * below the possible CPUs, as many as there are pages: the index needs no
 * check, and sys_enter and sys_exit, which every syscall runs, make none.
 * Before, they must (bounded: the *_bounded programs, and raw_tp's), and so
 * does every other program, whose own cost hides the check's.
 */
static __always_inline struct cpu_page *cpu_page_get(bool bounded)
{
	__u32 cpu = bpf_get_smp_processor_id();
	struct cpu_page *p;

	if (bounded)
		return cpu_page_of(cpu);
	p = &cpu_pages[cpu];
	/* Kept in a register, not computed again from cpu, which costs spills. */
	barrier_var(p);
	return p;
}

#endif /* SCLAT_CPU_PAGE_BPF_H */
