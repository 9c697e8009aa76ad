// SPDX-License-Identifier: GPL-2.0-only
/*
 * sclat's kernel side: measure every syscall, count it in a per-CPU
 * histogram, and send only the ones at or above their syscall's threshold to
 * the ring buffer, with what explains them: where their time went, who woke
 * them, where in the kernel they waited and on what. Policy lives in
 * userspace; this file measures, counts, compares and emits.
 *
 * A call under its threshold pays two clock reads, its CPU's record and a
 * place on its CPU's pending list, which a later call moves into the
 * histograms. What explains an outlier is paid by outliers, or by
 * the scheduler events of tasks inside a syscall.
 *
 * Each program exists twice: tp_btf (direct loads from pt_regs) and raw_tp
 * (the fallback for kernels without tp_btf); userspace autoloads one set.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_endian.h>
#include "sclat_abi.h"
#include "syscall_regs.bpf.h"
#include "breakdown.bpf.h"
#include "target.bpf.h"
#include "ustack.bpf.h"

char LICENSE[] SEC("license") = "GPL";

#define barrier() asm volatile("" ::: "memory")
/* errno values the helpers return (vmlinux.h has no macros). */
#define EEXIST	  17

/* Load-time knobs, set by userspace between open and load. */
const volatile bool scope_tgid;	  /* only the tgids in scope_pids (and their children) */
const volatile bool scope_cgroup; /* only tasks under the cgroup in scope_cgroups[0] */
const volatile bool scope_comm;	  /* only threads whose comm is comm_filter */
const volatile char comm_filter[SCLAT_COMM_LEN];
const volatile __u32 self_tgid; /* sclat itself, never traced */
/* Which argument names each syscall's target (user/explain/target.c). */
const volatile struct sclat_target_rule target_rules[SCLAT_MAX_SYSCALLS];
/* Each outlier's record carries its user stack (ustack.bpf.h). */
const volatile bool user_stacks;

/* Run-time state shared with userspace through the mmap'ed .bss. */
struct sclat_shared sclat_shared;

/* Puts the ring buffer record and its parts in the object's BTF, for the ABI test. */
const struct sclat_event *sclat_event_btf __attribute__((unused));
const struct sclat_part *sclat_part_btf __attribute__((unused));
const struct sclat_target *sclat_target_btf __attribute__((unused));
const struct sclat_wait *sclat_wait_btf __attribute__((unused));
const struct sclat_off_cpu_list *sclat_off_cpu_list_btf __attribute__((unused));
const struct sclat_class_request *sclat_class_request_btf __attribute__((unused));

enum task_scope {
	SCOPE_UNKNOWN, /* zeroed storage: not decided yet */
	SCOPE_IN,
	SCOPE_OUT,
};

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
	__u8 __pad;
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
	/* Calls under their floor to pass before the next sampled; what draws it (lane_sample). */
	__u32 sample_left;
	__u32 sample_rand;
	/*
	 * The class noted, for syscalls with classes: looked up when the key
	 * changes, not per call or switch, until userspace forgets an id.
	 */
	struct class_note cls;
	/* The size of a task's kernel stack (0: not read yet): the same for every task. */
	__u32 stack_size;
} __attribute__((aligned(64))); /* its first line: what a call without classes reads */

/*
 * In cpu_entry.nr, above the syscall number: the call in the record left its
 * CPU before, sched_switch brought it back from its task's storage when the
 * task came in (call_resume), and its wait account stays there. The next
 * sys_enter, writing nr, clears it for nothing.
 */
#define CPU_NR_RESUMED 0x80000000u

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
/* A slot's block_below at its cap, in ns: the threshold is that or more (block_threshold). */
#define LANE_BLOCK_CAP_NS ((__u64)SCLAT_LANE_UNIT_MAX << SCLAT_LANE_BLOCK_SHIFT)

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

/*
 * The user registers at regs (a task's, saved by the entry code), readable:
 * the kernel's own, or, before bpf_rdonly_cast, a copy (zeros if unreadable).
 */
static __always_inline const struct pt_regs *user_regs(__u64 regs, struct pt_regs *copy)
{
	if (bpf_rdonly_cast)
		return kernel_cast(regs, struct pt_regs);
	if (bpf_probe_read_kernel(copy, sizeof(*copy), (void *)regs))
		__builtin_memset(copy, 0, sizeof(*copy));
	return copy;
}

/*
 * The arguments of the syscall in progress whose user registers are at regs,
 * read where a call needs them (an outlier, a class by fd kind, a call in
 * flight), from the registers the entry code saved: sys_enter copies none.
 */
static __always_inline void syscall_args_read(__u64 regs, __u64 *args)
{
	struct pt_regs copy;
	const struct pt_regs *r = user_regs(regs, &copy);

	SYSCALL_ARGS_COPY(args, r);
}

/* Argument i (< SCLAT_NR_ARGS) of that syscall alone. */
static __always_inline __u64 syscall_arg(__u64 regs, __u32 i)
{
	struct pt_regs copy;
	const struct pt_regs *r = user_regs(regs, &copy);

	return SYSCALL_ARG(r, i);
}

/*
 * Class ids of tasks, filled by userspace (see SCLAT_CLASS_ID_REFUSED); 0:
 * asked for. Allocated as filled, and sized by userspace (1 entry when no
 * syscall can have classes): a policy without classes pays no memory for it.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 1);
	__type(key, struct sclat_class_key);
	__type(value, __u32);
} class_ids SEC(".maps");

/*
 * The cell of each sclat_cell_key() (SCLAT_CELL_*, or a cell), filled by
 * userspace, SCLAT_CELL_ASKED by the BPF side; allocated and sized like
 * class_ids. Only calls off the short path read it (see lane_cell_of).
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} cell_routes SEC(".maps");

/* Class ids and cells asked for, read by userspace every interval. */
struct {
	__uint(type, BPF_MAP_TYPE_QUEUE);
	__uint(max_entries, 1024);
	__type(value, struct sclat_class_request);
} class_requests SEC(".maps");

/* A task's syscall that left its CPU, what became of its time, and its scope decision. */
struct task_entry {
	__u64 entry_ns; /* 0: no syscall in flight */
	/*
	 * Its class (kind 0: none kept) as its CPU's record last noted it with
	 * an id: given back to the record of the CPU it comes onto, so that a
	 * CPU that turns between processes looks no class up.
	 */
	struct class_note cls;
	__u32 nr;
	__u32 scope;		  /* enum task_scope, decided once per thread */
	struct sclat_waker waker; /* after the longest block */
	__u64 explain_ns;	  /* BPF time spent on its kernel stack */
	/*
	 * The threshold word that judges its blocks for a kernel stack: its
	 * syscall's, or its class's, when it first left its CPU. Read there,
	 * where the task is current, so that a wake-up reads no other page.
	 */
	__u64 threshold;
	__u32 kstack_taken; /* task_kstacks holds this call's wait point */
	__u32 admitted;	    /* its outlier passed the burst guard when back from a block */
	/*
	 * When it last came onto a CPU (its entry, before the first), and when
	 * before its longest block: a wake-up noted since ended that block.
	 */
	__u64 back_ns;
	__u64 longest_from_ns;
	__u32 waker_pending; /* the longest block's waker is still to be read (wake_notes) */
	__u32 __pad;
	/* Last: a switch touches only the head of its list of stretches off the CPU. */
	struct wait_account wait;
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct task_entry);
} task_entries SEC(".maps");

/* The kernel stack at a call's longest block: only for tasks that had one long enough. */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct sclat_kstack);
} task_kstacks SEC(".maps");

/*
 * Who woke a task, noted by the waker (sched_waking) in the slot that the
 * woken task's thread id hashes to. The waker never reads the woken task's
 * storage, whose lines the woken task's CPU last wrote: that cost about
 * 200 ns per wake-up across CPUs on the reference VM, and as much again at
 * the woken task's next switch and exit, for lines the waker had written.
 * The woken task reads its slot back only when it needs the waker: for an
 * outlier, or before it blocks again (its next waker takes the slot). A
 * note overwritten in between, by another thread of the same slot, is a
 * waker lost, and counted (wakers_lost).
 */
struct wake_note {
	__u32 tid; /* the thread woken; 0 while being written */
	__u32 __pad0;
	__u64 wake_ns;
	struct sclat_waker waker;
	/* A cache line each. */
	__u8 __pad[SCLAT_WAKE_SLOT_BYTES - 2 * sizeof(__u64) - sizeof(struct sclat_waker)];
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1); /* sclat_wake_slots(), set by userspace before load */
	__type(key, __u32);
	__type(value, struct wake_note);
} wake_notes SEC(".maps");

const volatile __u32 wake_slots_mask; /* a power of two, less one */

/* The slot that notes thread tid's waker. */
static __always_inline struct wake_note *wake_note_of(__u32 tid)
{
	__u32 i = sclat_wake_slot(tid, wake_slots_mask);

	return bpf_map_lookup_elem(&wake_notes, &i);
}

/* Wakers whose note was taken by another before it was read; for sclat status. */
__u64 wakers_lost;

/*
 * The waker of t's longest block, if its note is still in its thread's
 * (tid) slot: once per block that became the call's longest, when the call
 * leaves its CPU again (the next wake-up takes the slot) or is an outlier.
 */
static __always_inline void waker_read(struct task_entry *t, __u32 tid)
{
	struct wake_note *n;
	struct sclat_waker w;
	__u64 wake_ns;

	if (!t->waker_pending)
		return;
	t->waker_pending = 0;
	n = wake_note_of(tid);
	if (!n || *(volatile __u32 *)&n->tid != tid)
		goto lost;
	wake_ns = n->wake_ns;
	__builtin_memcpy(&w, &n->waker, sizeof(w));
	barrier();
	/*
	 * Still the same thread's, and not of an earlier block. Nor of a later
	 * one: the longest block's note is read before the call blocks again.
	 */
	if (*(volatile __u32 *)&n->tid != tid || wake_ns < t->longest_from_ns)
		goto lost;
	t->waker = w;
	return;
lost:
	__sync_fetch_and_add(&wakers_lost, 1);
}

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, SCLAT_HIST_SLOTS);
	__type(key, __u32);
	__type(value, struct sclat_hist);
} hists SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 20); /* resized by userspace before load */
} events SEC(".maps");

/*
 * An outlier's record is built here, then copied to the ring buffer at its
 * size: its parts (target, kernel stack, user stack) vary in length, and a
 * reservation's size must be known when the program is loaded. The user
 * stack is a part of the same record, not a record of its own: the outlier
 * and its stack reach the ring buffer, or are dropped and counted, together.
 */
#define OUTLIER_PARTS_MAX 10240

struct outlier_record {
	struct sclat_event e;
	__u8 parts[OUTLIER_PARTS_MAX];
};

/* The size of each part, at most; they come in this order. */
#define WAIT_PART_SIZE	 SCLAT_PART_SIZE(sizeof(struct sclat_wait))
#define OFF_CPU_PART_MAX SCLAT_PART_SIZE(sizeof(struct sclat_off_cpu_list))
#define TARGET_PART_MAX	 SCLAT_PART_SIZE(sizeof(struct sclat_target) + SCLAT_TARGET_STR_MAX)
#define KSTACK_PART_MAX	 SCLAT_PART_SIZE(sizeof(struct sclat_kstack))
#define USTACK_PART_MAX	 SCLAT_PART_SIZE(sizeof(struct sclat_ustack))
_Static_assert(WAIT_PART_SIZE + OFF_CPU_PART_MAX + TARGET_PART_MAX + KSTACK_PART_MAX +
			       USTACK_PART_MAX <=
		       OUTLIER_PARTS_MAX,
	       "parts do not fit");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct outlier_record);
} outlier_records SEC(".maps");

struct burst_guard {
	__u64 window_start_ns;
	__u32 count;
	__u32 __pad;
};

/*
 * Whether guard g lets one more out at now, at most limit in each window of
 * window_ns, and counts it if so. Only its CPU's programs take from a
 * CPU's guards, and they never run in parallel.
 */
static __always_inline bool guard_take(struct burst_guard *g, __u64 now, __u64 window_ns,
				       __u32 limit)
{
	if (now - g->window_start_ns >= window_ns) {
		g->window_start_ns = now;
		g->count = 0;
	}
	if (g->count >= limit)
		return false;
	g->count++;
	return true;
}

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct burst_guard);
} guards SEC(".maps");

/*
 * At most ustacks_per_cpu_per_sec outliers a second per CPU carry their user
 * stack (--user-stacks-per-cpu, set at load); the others go out without it,
 * flagged as when the ring buffer fills. A stack costs its outlier 8 KiB of
 * ring buffer and about 60 us of unwinding and naming on the unwinder's
 * thread: on a busy machine whose syscalls each have their 1-in-1000
 * outliers, that work would be taken from the machine's CPUs, and the first
 * stacks of a burst say what the rest would.
 */
const volatile __u32 ustacks_per_cpu_per_sec = 100;
#define USTACK_WINDOW_NS 1000000000ULL

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct burst_guard);
} ustack_guards SEC(".maps");

/* Whether this CPU's outlier at now may carry its user stack (ustacks_per_cpu_per_sec). */
static __always_inline bool ustack_allowed(__u64 now)
{
	struct burst_guard *g;
	__u32 zero = 0;

	g = bpf_map_lookup_elem(&ustack_guards, &zero);
	return g && guard_take(g, now, USTACK_WINDOW_NS, ustacks_per_cpu_per_sec);
}

/* tgids in scope; resized by userspace when scope_tgid is set. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u8);
} scope_pids SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_CGROUP_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} scope_cgroups SEC(".maps");

static __always_inline bool comm_matches(void)
{
	char comm[SCLAT_COMM_LEN];
	int i;

	bpf_get_current_comm(comm, sizeof(comm));
	for (i = 0; i < SCLAT_COMM_LEN; i++) {
		if (comm[i] != comm_filter[i])
			return false;
		if (!comm[i])
			break;
	}
	return true;
}

static __always_inline __u32 task_scope_of(__u32 tgid)
{
	if (tgid == self_tgid)
		return SCOPE_OUT;
	if (scope_tgid && !bpf_map_lookup_elem(&scope_pids, &tgid))
		return SCOPE_OUT;
	return SCOPE_IN;
}

/* Whether the current task, whose user registers are at regs, is sclat itself. */
static __always_inline bool task_is_self(const struct cpu_entry *c, __u64 regs)
{
	/* What sched_switch noted of it saves a helper call on every syscall. */
	if (c->in_regs == regs && c->task_self != CPU_TASK_UNKNOWN)
		return c->task_self == CPU_TASK_SELF;
	return bpf_get_current_pid_tgid() >> 32 == self_tgid;
}

/* Whether the current task's syscalls are measured; c is its CPU's record. */
static __always_inline bool task_traced(const struct cpu_entry *c, __u64 regs)
{
	struct task_struct *task;
	struct task_entry *t;

	/*
	 * What sched_switch noted of it decides without reading the load-time
	 * knobs: their page stays off the path of every syscall.
	 */
	if (c->in_regs == regs && c->task_self == CPU_TASK_TRACED)
		return true;
	if (scope_tgid) {
		/* A hash lookup per syscall would cost more than the storage: decide once. */
		task = bpf_get_current_task_btf();
		t = bpf_task_storage_get(&task_entries, task, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
		if (!t)
			return false;
		if (t->scope == SCOPE_UNKNOWN)
			t->scope = task_scope_of(task->tgid);
		if (t->scope != SCOPE_IN)
			return false;
	} else if (task_is_self(c, regs)) {
		return false;
	}
	/* cgroup and comm can change under a thread: checked on every call. */
	if (scope_cgroup && bpf_current_task_under_cgroup(&scope_cgroups, 0) != 1)
		return false;
	if (scope_comm && !comm_matches())
		return false;
	return true;
}

/*
 * sys_enter: the CPU's record, claimed for the current task (whose user
 * registers are at regs) if it is traced. Its arguments stay where the entry
 * code saved them (syscall_regs.bpf.h).
 */
static __always_inline void syscall_enter(__u64 *ctx, bool bounded)
{
	struct cpu_page *p = cpu_page_get(bounded);
	struct cpu_entry *c;
	__u64 regs;
	long id;

	if (!p)
		return;
	/* Read after the page is found: held while it is, they were spilled to the stack. */
	regs = ctx[0];
	id = ctx[1];
	c = &p->rec;
	if ((unsigned long)id >= SCLAT_MAX_SYSCALLS || !task_traced(c, regs))
		return;
	/* Incomplete until entry_ns is set again, last (see struct cpu_entry). */
	c->entry_ns = 0;
	barrier();
	c->regs = regs;
	c->nr = id;
	barrier();
	c->entry_ns = bpf_ktime_get_ns();
}

static __always_inline __u32 slot_assign(struct sclat_syscall_ctl *ctl)
{
	__u32 slot, prev;

	slot = __sync_fetch_and_add(&sclat_shared.next_slot, 1) + 1;
	if (slot >= SCLAT_HIST_SLOTS)
		slot = SCLAT_SLOT_SHARED;
	/* Another CPU may have won the race for this syscall: use its slot. */
	prev = __sync_val_compare_and_swap(&ctl->slot, SCLAT_SLOT_NONE, slot);
	return prev == SCLAT_SLOT_NONE ? slot : prev;
}

/* The threshold word of syscall nr (< SCLAT_MAX_SYSCALLS): one load, threshold and generation. */
static __always_inline __u64 threshold_word(__u32 nr)
{
	return *(volatile __u64 *)&sclat_shared.ctl[nr].threshold;
}

/* Ask userspace for a class id or cell; a full queue's refusal is counted, and retried. */
static __always_inline void class_request_push(struct sclat_class_request *req)
{
	if (bpf_map_push_elem(&class_requests, req, 0))
		__sync_fetch_and_add(&sclat_shared.class_requests_lost, 1);
}

/*
 * What names the current task's class of kind (a task kind): its process,
 * its cgroup, or its thread name's bytes (zero-padded by the kernel), read
 * in place: a rename or a move shows at the task's next call.
 */
static __always_inline __u64 task_class_key(__u32 kind)
{
	struct task_struct *task;

	if (kind == SCLAT_CLASS_PROCESS)
		return bpf_get_current_pid_tgid() >> 32;
	if (kind == SCLAT_CLASS_CGROUP)
		return bpf_get_current_cgroup_id();
	task = bpf_get_current_task_btf();
	return *(__u64 *)&task->comm[0] ^ *(__u64 *)&task->comm[8];
}

/*
 * Whether the CPU's record noted the class id of kind (a task kind) for the
 * current task (user registers at regs), whichever task it was noted for;
 * none holds once userspace forgot an id since.
 */
static __always_inline bool class_noted(struct cpu_page *p, __u64 regs, __u32 kind)
{
	struct cpu_entry *c = &p->rec;
	__u64 cset;

	if (c->cls.kind != kind || c->cls.epoch != *(volatile __u32 *)&p->lane.class_epoch)
		return false;
	/* A thread's process is the same until its next switch: no helper call until then. */
	if (kind == SCLAT_CLASS_PROCESS) {
		if (c->cls.regs == regs)
			return true;
		if (c->cls.key != task_class_key(kind))
			return false;
		c->cls.regs = regs;
		return true;
	}
	if (kind != SCLAT_CLASS_CGROUP)
		return c->cls.key == task_class_key(kind);
	cset = (__u64)bpf_get_current_task_btf()->cgroups;
	if (c->cls.regs == regs && c->cls.cset == cset)
		return true;
	if (c->cls.key != task_class_key(kind))
		return false;
	c->cls.regs = regs;
	c->cls.cset = cset;
	return true;
}

/*
 * The current task keeps the class id its CPU's record noted (struct
 * task_entry): looked up once per thread and class, not each time its CPU
 * turns to it from another process.
 */
static __noinline void task_class_keep(struct cpu_entry *c)
{
	struct task_entry *t;

	t = bpf_task_storage_get(&task_entries, bpf_get_current_task_btf(), 0,
				 BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!t)
		return;
	t->cls = c->cls;
}

/* The class id of the current task (user registers at regs) for a task kind; 0: none yet. */
static __always_inline __u32 task_class_of(struct cpu_page *p, __u64 regs, __u32 kind)
{
	__u32 *v, zero = 0, epoch = *(volatile __u32 *)&p->lane.class_epoch;
	struct sclat_class_key key = { .kind = kind };
	struct sclat_class_request req = {};
	struct cpu_entry *c = &p->rec;
	__u64 comm[SCLAT_COMM_LEN / 8];
	long err;

	if (class_noted(p, regs, kind))
		return c->cls.id;
	/* Its css_set before its cgroup: a move in between is seen at the next call. */
	c->cls.cset = (__u64)bpf_get_current_task_btf()->cgroups;
	key.key = task_class_key(kind);
	v = bpf_map_lookup_elem(&class_ids, &key);
	if (!v) {
		/* Ask once: the placeholder stays 0 until userspace gives an id. */
		err = bpf_map_update_elem(&class_ids, &key, &zero, BPF_NOEXIST);
		if (err == -EEXIST) {
			/* Another CPU asked in between: its placeholder is found next call. */
			return 0;
		} else if (err) {
			/*
			 * The table full (userspace frees it as ids retire): a request
			 * lost, noted without an id like one asked for, so that the
			 * task's calls do not try again each time; asked again when the
			 * note goes (another task, or ids given or forgotten).
			 */
			__sync_fetch_and_add(&sclat_shared.class_requests_lost, 1);
		} else {
			/* The thread name names the class for users. */
			bpf_get_current_comm(comm, sizeof(comm));
			req.key = key.key;
			req.kind = kind;
			req.pid = bpf_get_current_pid_tgid() >> 32;
			__builtin_memcpy(req.comm, comm, sizeof(comm));
			class_request_push(&req);
		}
	}
	/* No id yet is noted too: the epoch moves on when userspace gives one. */
	c->cls.key = key.key;
	c->cls.regs = regs;
	c->cls.kind = kind;
	/* As read before the lookup: an id forgotten in between is looked up again. */
	c->cls.epoch = epoch;
	c->cls.id = v ? *v & (SCLAT_CLASS_IDS - 1) : 0;
	if (c->cls.id)
		task_class_keep(c);
	return c->cls.id;
}

/* The kind of file behind the current task's fd. */
static __always_inline __u32 fd_kind_of_fd(long fd)
{
	struct file *f = fd_file(bpf_get_current_task_btf(), (int)fd);

	return f ? fd_kind_of_file(f) & (SCLAT_FD_KINDS - 1) : SCLAT_FD_NONE;
}

/* The kind of file behind the fd argument of syscall nr (user registers at regs), if it has one. */
static __always_inline __u32 fd_kind_of(__u32 nr, __u64 regs)
{
	struct sclat_target_rule rule = target_rules[nr & (SCLAT_MAX_SYSCALLS - 1)];

	if (rule.kind != SCLAT_RULE_FD)
		return SCLAT_FD_NONE;
	return fd_kind_of_fd(syscall_arg(regs, rule.arg));
}

/*
 * The class cell of a call of syscall nr (which has classes): 0 for the
 * syscall's own, until userspace gives the class one. In *lane_key, the
 * route's key when it has one (a cell, refused, or asked for: the syscall's
 * own until answered), for the lane; else 0. Not inlined: syscalls without
 * classes do not pay for its registers.
 */
static __noinline __u32 cell_select(struct cpu_page *p, __u64 regs, __u32 nr, __u32 *lane_key)
{
	struct sclat_syscall_ctl *ctl = &sclat_shared.ctl[nr & (SCLAT_MAX_SYSCALLS - 1)];
	__u32 slot = ctl->slot, classes = ctl->classes, id = 0, fd_kind = 0, cell, key;
	__u32 asked = SCLAT_CELL_ASKED, *cellp;
	struct sclat_class_request req = {};

	*lane_key = 0;
	if (slot == SCLAT_SLOT_NONE || slot >= SCLAT_HIST_SLOTS)
		return 0;
	if (classes & SCLAT_CLASSES_TASK) {
		id = task_class_of(p, regs, classes & SCLAT_CLASSES_TASK);
		if (!id)
			return 0;
	}
	if (classes & SCLAT_CLASSES_FD) {
		fd_kind = fd_kind_of(nr, regs) & (SCLAT_FD_KINDS - 1);
		if (fd_kind == SCLAT_FD_NONE && !id)
			return 0;
	}
	key = sclat_cell_key(slot, id, fd_kind);
	cellp = bpf_map_lookup_elem(&cell_routes, &key);
	if (!cellp) {
		/* Ask once; a full map (cells refused anyway) is not asked. */
		if (bpf_map_update_elem(&cell_routes, &key, &asked, BPF_NOEXIST))
			return 0;
		req.kind = SCLAT_CLASS_CELL;
		req.pid = bpf_get_current_pid_tgid() >> 32;
		req.slot = slot;
		req.class_id = id;
		req.fd_kind = fd_kind;
		class_request_push(&req);
		*lane_key = key;
		return 0;
	}
	cell = *cellp;
	*lane_key = key;
	return cell < SCLAT_CLASS_CELLS_MAX ? cell : 0;
}

/*
 * Puts the cell of key (a route, 0: none) on the lane's short path:
 * its histogram's index and threshold word. Userspace keeps the threshold
 * from then on, and takes the entry off when the route changes.
 */
static __always_inline void lane_cell_fill(struct sclat_cpu_lane *lane, __u32 key, __u32 hist,
					   __u64 threshold)
{
	struct sclat_lane_cell *e;

	if (!key)
		return;
	e = &lane->cell[sclat_lane_cell_index(key)];
	e->key = 0;
	barrier();
	e->hist = hist;
	e->threshold = threshold;
	barrier();
	e->key = key;
}

/*
 * The histogram that counts a call of syscall nr (< SCLAT_MAX_SYSCALLS) on
 * this CPU, the threshold word it is compared with, and its class cell (0:
 * the syscall's own); NULL if none. p is the CPU's page, regs the task's
 * user registers.
 */
static __always_inline struct sclat_hist *hist_select(__u32 nr, __u64 *threshold, __u32 *cell,
						      struct cpu_page *p, __u64 regs)
{
	struct sclat_syscall_ctl *ctl = &sclat_shared.ctl[nr];
	__u32 slot = ctl->slot, index, lane_key = 0;
	struct sclat_hist *h;

	if (ctl->classes) {
		*cell = cell_select(p, regs, nr, &lane_key) & (SCLAT_CLASS_CELLS_MAX - 1);
		if (*cell) {
			index = SCLAT_HIST_SLOTS + *cell;
			h = bpf_map_lookup_elem(&hists, &index);
			*threshold = *(volatile __u64 *)&sclat_shared.cell_threshold[*cell];
			if (h) {
				lane_cell_fill(&p->lane, lane_key, index, *threshold);
				return h;
			}
			*cell = 0;
		}
	}
	if (slot == SCLAT_SLOT_NONE)
		slot = slot_assign(ctl);
	if (slot >= SCLAT_HIST_SLOTS)
		slot = SCLAT_HIST_SHARED;
	*threshold = threshold_word(nr);
	/* A class refused or not answered yet counts with its syscall, on the short path too. */
	if (slot != SCLAT_HIST_SHARED)
		lane_cell_fill(&p->lane, lane_key, slot, *threshold);
	return bpf_map_lookup_elem(&hists, &slot);
}

/* The lane slot counting syscall nr's calls (nr < SCLAT_MAX_SYSCALLS): its own, or the shared. */
static __always_inline __u32 calls_slot(__u32 nr)
{
	__u32 slot = sclat_shared.ctl[nr].slot;

	return slot < SCLAT_HIST_SLOTS ? slot : SCLAT_HIST_SHARED;
}

/* A syscall at sys_exit: from its CPU's record, or parked with its task. */
struct exiting {
	__u64 entry_ns;
	__u64 regs; /* the task's user registers: its arguments */
	__u32 nr;
	struct task_entry *parked; /* NULL: it never left its CPU */
	__u64 in_ns;		   /* parked: when it came back onto this CPU, 0 if unseen */
	/* An outlier's: */
	__u64 exit_ns, latency_ns, threshold;
	long ret;
	struct sclat_hist *h;
	__u32 cell;
};

/* The wait part of a call that left its CPU, at parts[0]; returns its size. */
static __always_inline __u32 wait_part_add(struct outlier_record *r, struct task_entry *t,
					   __u64 in_ns, __u64 exit_ns, __u32 cpu)
{
	struct sclat_part *part = (void *)r->parts;
	struct sclat_wait *w = (void *)(part + 1);

	part->kind = SCLAT_PART_WAIT;
	part->len = sizeof(*w);
	wait_exit(&t->wait, in_ns, exit_ns, cpu, &w->breakdown);
	w->switches = t->wait.switches;
	w->waker = t->waker;
	return WAIT_PART_SIZE;
}

/* Its stretches off the CPU, after the wait part, which closed the last; returns its size. */
static __always_inline __u32 off_cpu_part_add(struct outlier_record *r, struct task_entry *t)
{
	struct sclat_part *part = (void *)r->parts + WAIT_PART_SIZE;
	struct sclat_off_cpu_list *l = (void *)(part + 1);
	__u32 listed = t->wait.switches;

	if (listed > SCLAT_OFF_CPU_MAX)
		listed = SCLAT_OFF_CPU_MAX;
	l->count = t->wait.switches;
	l->waker_index = t->wait.longest_index;
	__builtin_memcpy(l->span, t->wait.span, sizeof(l->span));
	part->kind = SCLAT_PART_OFF_CPU;
	part->len = offsetof(struct sclat_off_cpu_list, span) + listed * sizeof(l->span[0]);
	return SCLAT_PART_SIZE(part->len);
}

/*
 * The target part of a call of syscall nr by task, at part, if its rule names
 * one; returns its size (0: none). Outliers and calls in flight share it.
 */
static __always_inline __u32 target_part_fill(struct sclat_part *part, struct task_struct *task,
					      __u32 nr, const __u64 *args)
{
	struct sclat_target_rule rule = target_rules[nr & (SCLAT_MAX_SYSCALLS - 1)];
	struct sclat_target *tg = (void *)(part + 1);
	__u32 len;

	if (rule.kind == SCLAT_RULE_NONE)
		return 0;
	__builtin_memset(tg, 0, sizeof(*tg));
	if (!target_describe(tg, task, &rule, args))
		return 0;
	len = sizeof(*tg) + tg->str_len[0] + tg->str_len[1];
	if (len > sizeof(*tg) + SCLAT_TARGET_STR_MAX)
		return 0;
	part->kind = SCLAT_PART_TARGET;
	part->len = len;
	return SCLAT_PART_SIZE(len);
}

/* The target part of syscall nr at parts[off], if its rule names one; returns its size. */
static __always_inline __u32 target_part_add(struct outlier_record *r, __u32 off, __u32 nr,
					     const __u64 *args)
{
	if (off > WAIT_PART_SIZE + OFF_CPU_PART_MAX)
		return 0;
	return target_part_fill((void *)r->parts + off, bpf_get_current_task_btf(), nr, args);
}

/* The kernel stack part at parts[off] from the task's storage; returns its size. */
static __always_inline __u32 kstack_part_add(struct outlier_record *r, __u32 off)
{
	struct sclat_kstack *ks;
	struct sclat_part *part;
	__u32 depth;

	ks = bpf_task_storage_get(&task_kstacks, bpf_get_current_task_btf(), 0, 0);
	if (!ks || off > WAIT_PART_SIZE + OFF_CPU_PART_MAX + TARGET_PART_MAX)
		return 0;
	depth = ks->depth;
	if (!depth || depth > SCLAT_KSTACK_MAX)
		return 0;
	part = (void *)r->parts + off;
	part->kind = SCLAT_PART_KSTACK;
	part->len = offsetof(struct sclat_kstack, ip) + depth * sizeof(ks->ip[0]);
	__builtin_memcpy(part + 1, ks, sizeof(*ks));
	return SCLAT_PART_SIZE(part->len);
}

/* The user stack part at parts[off]: registers and the stack copied from sp up. */
static __always_inline __u32 ustack_part_add(struct outlier_record *r, __u32 off, __u64 now)
{
	struct sclat_part *part;
	struct sclat_ustack *u;

	if (off > WAIT_PART_SIZE + OFF_CPU_PART_MAX + TARGET_PART_MAX + KSTACK_PART_MAX)
		return 0;
	part = (void *)r->parts + off;
	u = (void *)(part + 1);
	/*
	 * A stack makes the record up to 8 KiB bigger: when the ring buffer is
	 * a quarter full, the outliers go on without it, so that a burst
	 * fills the buffer with outliers, not stacks; so do this CPU's past
	 * ustacks_per_cpu_per_sec in a second.
	 */
	if (bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) >
		    bpf_ringbuf_query(&events, BPF_RB_RING_SIZE) / 4 ||
	    !ustack_allowed(now)) {
		__builtin_memset(u->regs, 0, sizeof(u->regs));
		u->size = 0;
		u->flags = SCLAT_USTACK_SKIPPED;
	} else {
		ustack_capture(u, SCLAT_USTACK_BYTES);
	}
	part->kind = SCLAT_PART_USTACK;
	part->len = offsetof(struct sclat_ustack, stack) + u->size;
	return SCLAT_PART_SIZE(part->len);
}

/*
 * The outlier path: rate guard, then one ring buffer record with what
 * explains it. Not inlined: the registers it needs would otherwise be saved
 * on the stack on every call's path, outlier or not.
 */
static __noinline void outlier_emit(const struct exiting *f)
{
	__u32 burst = sclat_shared.knobs.guard_burst;
	__u64 exit_ns = f->exit_ns, latency_ns = f->latency_ns, threshold = f->threshold;
	struct task_entry *t = f->parked;
	struct sclat_hist *h = f->h;
	struct outlier_record *r;
	struct burst_guard *g;
	struct sclat_event *e;
	__u32 zero = 0, off;
	__u64 id, explain_ns = 0, wake;

	/* A call admitted at its wake-up was counted then (kstack_guard_admit()). */
	if (burst && !(t && t->admitted)) {
		g = bpf_map_lookup_elem(&guards, &zero);
		if (!g)
			return;
		if (!guard_take(g, exit_ns, sclat_shared.knobs.guard_window_ns, burst)) {
			h->throttled++;
			return;
		}
	}

	r = bpf_map_lookup_elem(&outlier_records, &zero);
	if (!r)
		return;
	e = &r->e;
	id = bpf_get_current_pid_tgid();
	e->entry_ns = f->entry_ns;
	e->latency_ns = latency_ns;
	e->threshold_ns = sclat_threshold_ns(threshold);
	e->threshold_gen = sclat_threshold_gen(threshold);
	e->cell = f->cell;
	e->ret = f->ret;
	syscall_args_read(f->regs, e->args);
	e->pid = id >> 32;
	e->tid = (__u32)id;
	e->nr = f->nr;
	e->cpu = bpf_get_smp_processor_id();
	bpf_get_current_comm(e->comm, sizeof(e->comm));

	off = 0;
	if (t) {
		waker_read(t, (__u32)bpf_get_current_pid_tgid());
		off = wait_part_add(r, t, f->in_ns, exit_ns, e->cpu);
		off += off_cpu_part_add(r, t);
		explain_ns = t->explain_ns;
	}
	off += target_part_add(r, off, f->nr, e->args);
	if (t && t->kstack_taken)
		off += kstack_part_add(r, off);
	if (user_stacks)
		off += ustack_part_add(r, off, exit_ns);
	e->explain_ns = explain_ns + bpf_ktime_get_ns() - exit_ns;
	if (off > OUTLIER_PARTS_MAX)
		return;
	/*
	 * No wake-up per outlier: the reader polls every 20 to 100 ms, and a
	 * wake-up is a context switch on a CPU of the machine's for each
	 * outlier. Past an eighth of the buffer it is woken, so as not to lose
	 * a burst.
	 */
	wake = bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) >
			       bpf_ringbuf_query(&events, BPF_RB_RING_SIZE) / 8
		       ? BPF_RB_FORCE_WAKEUP
		       : BPF_RB_NO_WAKEUP;
	if (bpf_ringbuf_output(&events, r, sizeof(*e) + off, wake)) {
		h->drops++;
		return;
	}
	h->outliers++;
}

/*
 * sys_exit of a call, past its record: count it (as weight calls: see
 * lane_sample), and emit it if it crossed its threshold. p is its CPU's
 * page, t its task's (NULL: it never left its CPU).
 */
static __always_inline void syscall_done(struct cpu_page *p, __u64 regs, long ret,
					 struct task_entry *t, __u64 entry_ns, __u32 nr,
					 __u64 in_ns, __u64 exit_ns, __u32 weight)
{
	__u64 latency_ns = exit_ns - entry_ns, threshold;
	struct sclat_hist *h;
	__u32 cell = 0;

	/* The verifier needs the bound; sys_enter only records nr < SCLAT_MAX_SYSCALLS. */
	nr &= SCLAT_MAX_SYSCALLS - 1;
	h = hist_select(nr, &threshold, &cell, p, regs);
	if (!h)
		return;
	p->lane.slot[calls_slot(nr)].calls++;
	h->bucket[sclat_hist_bucket(latency_ns) & (SCLAT_HIST_BUCKETS - 1)] += weight;
	if (latency_ns >= sclat_threshold_ns(threshold) &&
	    sclat_threshold_ns(threshold) != SCLAT_THRESHOLD_MASK) {
		struct exiting f = {
			.entry_ns = entry_ns,
			.regs = regs,
			.nr = nr,
			.parked = t,
			.in_ns = in_ns,
			.exit_ns = exit_ns,
			.latency_ns = latency_ns,
			.threshold = threshold,
			.ret = ret,
			.h = h,
			.cell = cell,
		};

		outlier_emit(&f);
	}
}

/*
 * sclat_hist_bucket(v) for every v below SCLAT_HIST_SMALL_NS, filled by
 * userspace before load: most calls under their threshold take less, and a
 * load costs less than the computation.
 */
const volatile __u8 hist_bucket_small[SCLAT_HIST_SMALL_NS];

/* The bucket of latency v: always below SCLAT_HIST_BUCKETS. */
static __always_inline __u32 hist_bucket(__u32 v)
{
	if (v < SCLAT_HIST_SMALL_NS) {
		/* The mask, kept: it bounds the index for the verifier in any register. */
		barrier_var(v);
		return hist_bucket_small[v & (SCLAT_HIST_SMALL_NS - 1)];
	}
	return sclat_hist_bucket(v) & (SCLAT_HIST_BUCKETS - 1);
}

/*
 * Moves the CPU's lane's pending calls into their histograms, in one
 * straight loop: a run of calls of one histogram and weight (the common case:
 * a thread that makes the same calls) looks it up once. flush_seq tells a
 * reader of both that it may have seen a call in neither (never in both).
 * A global function: the verifier walks its loop once, not at each push
 * that may call it; it finds the CPU's page again (one call in
 * SCLAT_PENDING_MAX).
 */
__noinline int pending_flush(void)
{
	__u64 pend, run = ~0ULL; /* the run's pend >> 32: its histogram and weight */
	struct cpu_page *p = cpu_page_get(true);
	struct sclat_cpu_lane *lane;
	struct sclat_hist *h = NULL;
	__u32 i, index, weight = 0;

	if (!p)
		return 0;
	lane = &p->lane;
	lane->flush_seq++;
	barrier();
	for (i = 0; i < SCLAT_PENDING_MAX; i++) {
		pend = lane->pend[i];
		if (pend >> 32 != run) {
			run = pend >> 32;
			index = sclat_pend_hist(pend);
			h = bpf_map_lookup_elem(&hists, &index);
			weight = sclat_pend_weight(pend);
		}
		if (h)
			h->bucket[hist_bucket(sclat_pend_ns(pend))] += weight;
	}
	lane->pend_n = 0;
	barrier();
	lane->flush_seq++;
	return 0;
}

/*
 * A classed call's histogram index and threshold on the short path: the
 * class id the CPU's record noted for its task's key (task_class_key), the
 * kind of file behind its fd, and the cell the lane holds for them, with its
 * threshold word; or, with neither, the slot's own, from its below (rounded
 * down and capped: see SCLAT_LANE_UNIT_SHIFT). 0: the long way (no id noted, or the
 * lane does not hold the cell).
 */
static __always_inline __u32 lane_cell_of(struct cpu_page *p, __u32 slot, __u64 regs,
					  __u64 *threshold)
{
	struct sclat_cpu_lane *lane = &p->lane;
	__u32 classes = lane->slot_classes[slot], id = 0, fd_kind = SCLAT_FD_NONE, key, arg;
	struct cpu_entry *c = &p->rec;
	struct sclat_lane_cell *e;

	if (classes & SCLAT_CLASSES_TASK) {
		if (!class_noted(p, regs, classes & SCLAT_CLASSES_TASK))
			return 0;
		id = c->cls.id;
		/* Noted without an id (refused, or not given yet): the syscall's own. */
		if (!id)
			goto own;
	}
	if (classes & SCLAT_CLASSES_FD) {
		arg = classes >> SCLAT_LANE_FD_ARG_SHIFT & 7;
		if (arg >= SCLAT_NR_ARGS)
			return 0;
		fd_kind = fd_kind_of_fd(syscall_arg(regs, arg));
	}
	if (!id && fd_kind == SCLAT_FD_NONE)
		goto own;
	key = sclat_cell_key(slot, id, fd_kind);
	e = &lane->cell[sclat_lane_cell_index(key)];
	if (e->key != key)
		return 0;
	*threshold = *(volatile __u64 *)&e->threshold;
	return e->hist;
own:
	*threshold = (__u64) * (volatile __u16 *)&lane->slot[slot].below << SCLAT_LANE_UNIT_SHIFT;
	return slot;
}

/*
 * A call under its slot's floor is sampled: the weight it counts with, or 0
 * when it is passed over. The gaps between sampled calls are drawn at
 * random, uniform in 1 .. 2 * sample_n - 1 (mean sample_n), so that no
 * pattern of calls beats in step with them: by a xorshift generator (seeded
 * from the kernel's) and a multiply, not a helper call and a division, which
 * cost a sampled call about 10 ns more (prog-ab).
 */
static __always_inline __u32 lane_sample(struct cpu_page *p)
{
	__u32 left = p->rec.sample_left, n, x;

	if (left) {
		p->rec.sample_left = left - 1;
		return 0;
	}
	n = *(volatile __u32 *)&p->lane.sample_n;
	if (n <= 1)
		return 1;
	if (n > SCLAT_SAMPLE_MAX)
		n = SCLAT_SAMPLE_MAX;
	x = p->rec.sample_rand;
	if (!x)
		x = bpf_get_prandom_u32() | 1;
	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	p->rec.sample_rand = x;
	/* x * (2n - 1) / 2^32: uniform in 0 .. 2n - 2. */
	p->rec.sample_left = (__u64)x * (2 * n - 1) >> 32;
	return n;
}

/*
 * pend onto the lane's pending list. The push that fills it empties it, so
 * it always has room (the mask is for the verifier; pend_n past the end
 * would be emptied by the same test).
 */
static __always_inline void pend_push(struct sclat_cpu_lane *lane, __u64 pend)
{
	__u32 n = lane->pend_n;

	lane->pend[n & (SCLAT_PENDING_MAX - 1)] = pend;
	barrier();
	lane->pend_n = n + 1;
	if (n + 1 >= SCLAT_PENDING_MAX)
		pending_flush();
}

/*
 * lane_count of a classed syscall's call (slot: its slot). One under the
 * slot's floor is an outlier in no class: only a sample of those is classed
 * and counted in the histograms (lane_sample).
 */
static __always_inline __u32 lane_count_classed(struct cpu_page *p, __u32 slot, __u64 latency_ns,
						__u64 regs)
{
	struct sclat_cpu_lane *lane = &p->lane;
	__u32 hist, weight = 1;
	__u64 threshold;

	if (!slot || slot >= SCLAT_HIST_SLOTS || latency_ns >> 32)
		return 1;
	if (latency_ns >> SCLAT_LANE_UNIT_SHIFT < *(volatile __u16 *)&lane->slot[slot].floor) {
		weight = lane_sample(p);
		if (!weight) {
			lane->slot[slot].calls++;
			return 0;
		}
	}
	hist = lane_cell_of(p, slot, regs, &threshold);
	if (!hist || latency_ns >= sclat_threshold_ns(threshold))
		return weight;
	lane->slot[slot].calls++;
	pend_push(lane, sclat_pend(latency_ns, hist) | sclat_pend_weight_bits(weight));
	return 0;
}

/*
 * The short path, on the CPU's page only: a call of syscall nr whose lane
 * entry is set (a slot of its own; with classes, a cell the lane holds),
 * under its threshold and under 2^32 ns, is counted in its slot's calls and
 * goes to the pending list; under its slot's floor, only one in sample_n
 * goes (lane_sample). Returns 0 when done, else the weight the call counts
 * with on the long way (1 but for a sampled call: lane_count_classed). regs
 * are the call's user registers.
 */
static __always_inline __u32 lane_count(struct cpu_page *p, __u32 nr, __u64 latency_ns, __u64 regs)
{
	struct sclat_cpu_lane *lane = &p->lane;
	__u32 slot = lane->slot_of[nr & (SCLAT_MAX_SYSCALLS - 1)], hist = slot & SCLAT_LANE_SLOT;
	__u64 units = latency_ns >> SCLAT_LANE_UNIT_SHIFT;
	struct sclat_lane_slot *e;
	__u32 weight;

	if (slot & SCLAT_LANE_CLASSED)
		return lane_count_classed(p, hist, latency_ns, regs);
	e = &lane->slot[hist];
	/*
	 * Under the floor, which is under below (0 without a slot: the
	 * compare fails, as for 2^32 ns or more: 2^28 units).
	 */
	if (units < *(volatile __u16 *)&e->floor) {
		weight = lane_sample(p);
	} else {
		/* No slot, a slot past the lane's, 2^32 ns or more: not under below (its ABI). */
		if (units >= *(volatile __u16 *)&e->below)
			return 1;
		weight = 1;
	}
	e->calls++;
	/* One push for both ways: the verifier walks the flush it may call once. */
	if (weight)
		pend_push(lane, sclat_pend(latency_ns, hist) | sclat_pend_weight_bits(weight));
	return 0;
}

/*
 * sys_exit of a call whose wait account is in its task's storage, where
 * sched_switch parked it: still parked there (exit_ns 0: counted here), or
 * resumed into the CPU's record when the task came back (call_resume), and
 * found by the short path at exit_ns to be an outlier, or off its way, as
 * weight calls; its caller then clears the record. A global function: the
 * verifier walks it once, whichever call reaches it, and its arguments are
 * plain numbers; it finds the task's user registers and the CPU's page again.
 */
__noinline int syscall_exit_parked(long ret, __u64 exit_ns, __u32 weight)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u64 regs = (__u64)bpf_task_pt_regs(task), entry_ns;
	struct cpu_page *p = cpu_page_get(true);
	struct task_entry *t;
	struct cpu_entry *c;

	if (!p)
		return 0;
	c = &p->rec;
	t = bpf_task_storage_get(&task_entries, task, 0, 0);
	if (exit_ns) {
		entry_ns = c->entry_ns;
	} else {
		entry_ns = t ? t->entry_ns : 0;
		if (!entry_ns)
			return 0;
		exit_ns = bpf_ktime_get_ns();
		weight = lane_count(p, t->nr, exit_ns - entry_ns, regs);
	}
	if (!t)
		return 0;
	if (weight)
		syscall_done(p, regs, ret, t, entry_ns, t->nr,
			     c->in_task == (__u64)task ? c->in_ns : 0, exit_ns, weight);
	t->entry_ns = 0;
	return 0;
}

/* sys_exit of an outlier, or of a call off the short path, that never left its CPU. */
static __noinline void syscall_exit_slow(struct cpu_page *p, __u64 regs, long ret, __u64 exit_ns,
					 __u32 weight)
{
	struct cpu_entry *c = &p->rec;

	syscall_done(p, regs, ret, NULL, c->entry_ns, c->nr, 0, exit_ns, weight);
}

/*
 * A CPU's sys_exit programs never nest and never run in parallel with each
 * other: its histograms and counters need no atomic increments.
 *
 * The common call never left its CPU, or came back to it (resumed), and takes
 * the short path (lane_count), a straight line. Anything else is in
 * functions of their own, out of line, so that the short path saves no
 * registers for them.
 */
static __always_inline void syscall_exit(__u64 *ctx, bool bounded)
{
	struct cpu_page *p = cpu_page_get(bounded);
	__u64 entry_ns, exit_ns, regs;
	struct cpu_entry *c;
	__u32 weight;

	if (!p)
		return;
	/*
	 * Read after the page is found (as sys_enter's): held while it is, regs
	 * was spilled to the stack and loaded back. ret is read where needed.
	 */
	regs = ctx[0];
	c = &p->rec;
	entry_ns = c->entry_ns;
	if (!entry_ns || c->regs != regs) {
		syscall_exit_parked(ctx[1], 0, 0);
		return;
	}
	exit_ns = bpf_ktime_get_ns();
	/* regs read again from ctx, which stays in a register, rather than kept on the stack. */
	weight = lane_count(p, c->nr, exit_ns - entry_ns, *(volatile __u64 *)&ctx[0]);
	if (weight) {
		if (c->nr & CPU_NR_RESUMED)
			syscall_exit_parked(ctx[1], exit_ns, weight);
		else
			syscall_exit_slow(p, ctx[0], ctx[1], exit_ns, weight);
	}
	c->entry_ns = 0;
}

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

/* Task flags (task_struct.flags). */
#define TASK_PF_IDLE	  0x00000002
#define TASK_PF_IO_WORKER 0x00000010
#define TASK_PF_KTHREAD	  0x00200000

/* The size of a task's kernel stack when the kernel does not say (!CONFIG_VMAP_STACK). */
#define TASK_STACK_SIZE_DEFAULT (16 << 10)

/*
 * Whether the tracepoint that gave this program ctx fired in the context of
 * task, the current task.
 * The tracepoint's arguments (ctx) are on the kernel stack it runs on: an
 * interrupt that came from kernel mode runs on a stack of its own (x86_64,
 * arm64); one that came from user mode runs on the task's stack, whose user
 * registers then show no syscall in progress. Without CONFIG_KALLSYMS_ALL the
 * per-CPU preempt count that says it directly is out of reach.
 */
static __always_inline bool in_task_context(void *ctx, struct task_struct *task)
{
	struct cpu_page *p = cpu_page_get(true);
	struct pt_regs *regs;
	__u64 size;

	/* Read once per CPU: the stack's area is a page of its own, a TLB miss at every read. */
	size = p ? p->rec.stack_size : 0;
	if (!size) {
		size = BPF_CORE_READ(task, stack_vm_area, size);
		if (!size)
			size = TASK_STACK_SIZE_DEFAULT;
		if (p)
			p->rec.stack_size = size;
	}
	if ((__u64)ctx - (__u64)task->stack >= size)
		return false;
	/* Never in user mode: no interrupt from there runs on their stack. */
	if (task->flags & (TASK_PF_KTHREAD | TASK_PF_IO_WORKER))
		return true;
	/*
	 * A syscall of the task in the CPU's record, since it came in: it is in
	 * kernel mode, no interrupt from user mode (the waker of most wake-ups,
	 * without a helper call). A parked call, or an unseen switch, asks.
	 */
	if (p && p->rec.entry_ns && p->rec.in_task == (__u64)task && p->rec.regs == p->rec.in_regs)
		return true;
	regs = (struct pt_regs *)bpf_task_pt_regs(task);
	return regs && SYSCALL_REGS_IN_SYSCALL(regs);
}

/* Who is waking: the current task, or an interrupt (or softirq) on top of it. */
static __always_inline void waker_note(void *ctx, struct sclat_waker *w)
{
	struct task_struct *task = bpf_get_current_task_btf();

	if (!in_task_context(ctx, task)) {
		*w = (struct sclat_waker){ .context = SCLAT_WAKER_INTERRUPT };
		return;
	}
	/* Plain loads, no helper call: comm is NUL-terminated in place. */
	w->context = SCLAT_WAKER_TASK;
	w->pid = task->tgid;
	w->tid = task->pid;
	*(__u64 *)&w->comm[0] = *(__u64 *)&task->comm[0];
	*(__u64 *)&w->comm[8] = *(__u64 *)&task->comm[8];
}

/*
 * Kernel stacks taken when a task came back from a block, and left out
 * because the burst guard of its CPU was spent (its outlier would most
 * likely be throttled). Read by userspace, for sclat status.
 */
__u64 kstacks_taken;
__u64 kstacks_skipped;

/*
 * A call past its threshold when back from a block is an outlier at its
 * exit: the burst guard of the CPU it came back on, where its sys_exit most
 * likely runs, decides here whether it goes out, and counts it then, so
 * that a kernel stack (about a microsecond) is taken only for an outlier
 * that goes out, and the stacks, like the outliers, stay within the rate
 * budget.
 */
static __always_inline bool kstack_guard_admit(struct task_entry *t, __u64 now)
{
	__u32 burst = sclat_shared.knobs.guard_burst, zero = 0;
	struct burst_guard *g;

	if (!burst || t->admitted)
		return true;
	g = bpf_map_lookup_elem(&guards, &zero);
	if (!g || !guard_take(g, now, sclat_shared.knobs.guard_window_ns, burst))
		return false;
	t->admitted = 1;
	return true;
}

/*
 * p is being woken (sched_waking runs in the waker's context): the waker
 * notes itself in p's slot, whether or not p is in a measured syscall, which
 * only p's storage says and only p's CPU reads cheaply.
 */
static __always_inline void task_woken(void *ctx, struct task_struct *p)
{
	struct wake_note *n;

	/* A kernel thread makes no syscall. */
	if (!p || p->flags & TASK_PF_KTHREAD)
		return;
	n = wake_note_of(p->pid);
	if (!n)
		return;
	n->tid = 0;
	barrier();
	n->wake_ns = bpf_ktime_get_ns();
	waker_note(ctx, &n->waker);
	barrier();
	n->tid = p->pid;
}

/*
 * How long task, coming onto this CPU, waited on its runqueue since it was
 * queued (woken, or preempted), as the kernel's sched_info accounts it
 * (CONFIG_SCHED_INFO, which delay accounting selects): its queueing time
 * and its runqueue's clock, which the switch under way has just updated.
 * The runqueue is reached through the task's group's (CONFIG_FAIR_GROUP_SCHED):
 * the per-CPU variable itself is not a kernel symbol without
 * CONFIG_KALLSYMS_ALL. 0 without them.
 */
static __always_inline __u64 runqueue_wait(struct task_struct *task)
{
	__u64 queued, clock;
	struct cfs_rq *cfs;
	struct rq *rq;

	if (!bpf_core_field_exists(task->sched_info) || !bpf_core_field_exists(struct cfs_rq, rq))
		return 0;
	cfs = task->se.cfs_rq;
	if (!cfs)
		return 0;
	rq = cfs->rq;
	if (!rq)
		return 0;
	queued = task->sched_info.last_queued;
	clock = rq->clock;
	return queued && clock > queued ? clock - queued : 0;
}

/*
 * The call parked with t (entry_ns), whose task comes onto this CPU with its
 * user registers at regs, moves back into the CPU's record: its sys_exit,
 * on this CPU, then takes the short path and reads no task storage unless
 * it is an outlier. Its wait account stays in t (CPU_NR_RESUMED). A switch away
 * parks it again. The record is complete before the storage lets it go: a
 * reader of both (the in-flight iterator) never misses it.
 */
static __always_inline void call_resume(struct cpu_entry *c, struct task_entry *t, __u64 regs,
					__u64 entry_ns)
{
	c->entry_ns = 0;
	barrier();
	c->regs = regs;
	c->nr = t->nr | CPU_NR_RESUMED;
	barrier();
	c->entry_ns = entry_ns;
	barrier();
	t->entry_ns = 0;
}

/*
 * The class next kept (struct task_entry) into the CPU's record, as noted
 * for it (its user registers at next_regs), unless userspace forgot an id
 * since (the CPU's epoch moved on).
 */
static __always_inline void class_restore(struct cpu_entry *c, const struct task_entry *t,
					  __u64 next_regs, __u32 epoch)
{
	if (t->cls.epoch != epoch)
		return;
	c->cls = t->cls;
	c->cls.regs = next_regs;
}

/*
 * next comes onto this CPU at now (sched_switch, on its CPU: no other CPU's
 * lines are read). If it was blocked inside a measured syscall, its block
 * ended when it was queued to run, and it waited on the runqueue since.
 * After the call's longest block so far, its waker is to be read, and when
 * the call is already slow, its kernel stack is taken: next is still off its
 * CPU, its saved stack is where it waited.
 */
static __always_inline void task_back(struct cpu_page *p, struct task_struct *next, __u64 next_regs,
				      __u64 now)
{
	__u64 block, threshold, from, entry_ns;
	struct sclat_kstack *ks;
	struct task_entry *t;
	long n;

	/* An idle task or a kernel thread makes no syscall: no lookup. */
	if (next->flags & (TASK_PF_IDLE | TASK_PF_KTHREAD))
		return;
	t = bpf_task_storage_get(&task_entries, next, 0, 0);
	if (!t)
		return;
	if (t->cls.kind)
		class_restore(&p->rec, t, next_regs, *(volatile __u32 *)&p->lane.class_epoch);
	entry_ns = t->entry_ns;
	if (!entry_ns)
		return;
	call_resume(&p->rec, t, next_regs, entry_ns);
	from = t->back_ns;
	t->back_ns = now;
	if ((t->wait.kind != WAIT_SLEEP && t->wait.kind != WAIT_IO) || t->wait.wake_ns)
		return;
	block = wait_woken(&t->wait, now - runqueue_wait(next));
	if (block <= t->wait.longest_ns)
		return;
	wait_longest(&t->wait, block);
	t->waker = (struct sclat_waker){};
	t->waker_pending = 1;
	t->longest_from_ns = from;

	/*
	 * Only a block that ends a call already slow (past its threshold, its
	 * class's when it has one) has its stack taken: every call that pays
	 * for it is an outlier, and the many short blocks of a busy machine
	 * pay nothing.
	 */
	threshold = sclat_threshold_ns(t->threshold);
	if (threshold == SCLAT_THRESHOLD_MASK || now - entry_ns < threshold)
		return;
	if (!kstack_guard_admit(t, now)) {
		__sync_fetch_and_add(&kstacks_skipped, 1);
		return;
	}
	ks = bpf_task_storage_get(&task_kstacks, next, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!ks)
		return;
	n = bpf_get_task_stack(next, ks->ip, sizeof(ks->ip), 0);
	ks->depth = n > 0 ? n / sizeof(ks->ip[0]) : 0;
	t->kstack_taken = ks->depth > 0;
	t->explain_ns += bpf_ktime_get_ns() - now;
	__sync_fetch_and_add(&kstacks_taken, 1);
}

/*
 * The threshold word of the call in p's record, its class's if it has one:
 * what decides whether one of its blocks is long enough for a kernel stack.
 * A syscall on the short path has it in the CPU's lane, on the page the
 * switch already touches, and so has a class whose cell the lane holds; the
 * cell of any other is found here, where the task is current, once per call
 * that blocks.
 */
static __always_inline __u64 block_threshold(struct cpu_page *p)
{
	struct cpu_entry *c = &p->rec;
	__u32 nr = c->nr & (SCLAT_MAX_SYSCALLS - 1), slot = p->lane.slot_of[nr], cell, lane_key;
	__u32 own = slot & SCLAT_LANE_SLOT, hist;
	__u64 threshold;

	if (own && own < SCLAT_HIST_SLOTS) {
		hist = own;
		if (slot & SCLAT_LANE_CLASSED)
			hist = lane_cell_of(p, own, c->regs, &threshold);
		/* A cell the lane holds: its threshold word is there. */
		if (hist >= SCLAT_HIST_SLOTS)
			return threshold;
		/*
		 * The syscall's own (it has no classes, or the call is in none of
		 * its own), rounded down: only below the cap is it the threshold.
		 */
		if (hist) {
			threshold = (__u64) * (volatile __u16 *)&p->lane.block_below[own]
				    << SCLAT_LANE_BLOCK_SHIFT;
			return threshold != LANE_BLOCK_CAP_NS ? threshold : threshold_word(nr);
		}
	}
	if (sclat_shared.ctl[nr].classes) {
		cell = cell_select(p, c->regs, nr, &lane_key) & (SCLAT_CLASS_CELLS_MAX - 1);
		if (cell)
			return *(volatile __u64 *)&sclat_shared.cell_threshold[cell];
	}
	return threshold_word(nr);
}

/*
 * The current task (sched_switch's prev) leaves its CPU for next, at now. If
 * it is inside a measured syscall, the CPU's record moves into its task
 * storage the first time, and each time its time on the CPU and how it
 * leaves are accounted (breakdown.bpf.h). The CPU notes the task that comes
 * in and when: its time there is counted when it leaves or exits.
 */
static __always_inline __u64 cpu_switch(struct cpu_page *p, struct task_struct *prev, __u64 next,
					__u64 next_regs, __u32 kind, __u32 next_self)
{
	bool noted, owned = false;
	struct cpu_entry *c = &p->rec;
	struct task_entry *t;
	__u64 now;

	now = bpf_ktime_get_ns();
	noted = c->in_task == (__u64)prev;
	if (c->entry_ns)
		/* Its user registers as noted when it came in, or asked for. */
		owned = c->regs ==
			(noted && c->in_regs ? c->in_regs : (__u64)bpf_task_pt_regs(prev));
	if (owned && !(c->nr & CPU_NR_RESUMED)) {
		t = bpf_task_storage_get(&task_entries, prev, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
		if (t) {
			t->nr = c->nr;
			t->entry_ns = c->entry_ns;
			wait_first_leave(&t->wait, c->entry_ns, now, kind, prev->thread_info.cpu);
			t->waker = (struct sclat_waker){};
			t->waker_pending = 0;
			t->back_ns = c->entry_ns;
			t->kstack_taken = 0;
			t->admitted = 0;
			t->explain_ns = 0;
			t->threshold = block_threshold(p);
		}
		c->entry_ns = 0;
	} else if (owned || !(prev->flags & (TASK_PF_IDLE | TASK_PF_KTHREAD))) {
		/*
		 * Back from an earlier block of the same call, and leaving again?
		 * Resumed into the record (owned), it is parked again; its switch
		 * back unseen, or under raw_tp, it stayed parked. An idle task or
		 * a kernel thread makes no syscall: no lookup.
		 */
		t = bpf_task_storage_get(&task_entries, prev, 0, 0);
		if (owned) {
			if (t)
				t->entry_ns = c->entry_ns;
			c->entry_ns = 0;
		}
		if (t && t->entry_ns) {
			wait_leave(&t->wait, noted ? c->in_ns : 0, now, kind,
				   prev->thread_info.cpu);
			/* Before a wake-up of its next block takes the slot. */
			waker_read(t, prev->pid);
		}
	}
	c->in_task = next;
	c->cls.regs = 0;
	c->in_regs = next_regs;
	c->in_ns = now;
	c->task_self = next_self;
	return now;
}

/*
 * The state of a task leaving its CPU. sched_switch's prev_state argument
 * (Linux 5.18) says the same but for a racing wake-up, which reads as
 * runnable here: the task's own field keeps 5.15 to 5.17 supported. A plain
 * load: task is the current task, a trusted pointer, and a probe read would
 * be a helper call on every switch.
 */
static __always_inline unsigned int task_state(struct task_struct *task)
{
	return *(volatile unsigned int *)&task->__state;
}

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
 * New processes of a process in scope that scope_pids, full, could not take:
 * their syscalls are not measured. Read by userspace, for sclat status and the
 * end of the run.
 */
__u64 children_not_followed;

/* -p / -- COMMAND: a new process whose parent is in scope is in scope too. */
static __always_inline void scope_follow_fork(__u32 parent_tgid, __u32 child_tgid)
{
	__u8 one = 1;

	if (parent_tgid == child_tgid || !bpf_map_lookup_elem(&scope_pids, &parent_tgid))
		return;
	if (bpf_map_update_elem(&scope_pids, &child_tgid, &one, BPF_ANY))
		__sync_fetch_and_add(&children_not_followed, 1);
}

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

/* The last thread of a process in scope is gone: its tgid may be reused. */
static __always_inline void scope_forget(__u32 tgid, int live)
{
	if (!live)
		bpf_map_delete_elem(&scope_pids, &tgid);
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

/* Last, so that it is last in .bss (struct cpu_page says why). */
struct cpu_page cpu_pages[SCLAT_CPUS_MAX] __attribute__((aligned(SCLAT_CPU_PAGE_SIZE)));
