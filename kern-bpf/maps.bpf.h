/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The object's maps and globals, what userspace sees of it through the
 * skeleton: the load-time knobs (.rodata, set between open and load), the
 * state and counters it shares at run time (.bss), the maps, and the records
 * they hold. Their order of definition sets the layout of those sections,
 * and so the offsets in the programs' instructions: one file keeps it in one
 * place. The CPUs' pages are in cpu_page.bpf.h (defined last in .bss, by
 * sclat.bpf.c), the task iterator's own in inflight.bpf.h.
 *
 * Part of sclat.bpf.c, after cpu_page.bpf.h (struct class_note),
 * breakdown.bpf.h (struct wait_account) and ustack.bpf.h (struct sclat_ustack).
 */
#ifndef SCLAT_MAPS_BPF_H
#define SCLAT_MAPS_BPF_H

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

/* Classes and their cells (classes.bpf.h). */

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

/* A call that left its CPU (sched_switch.bpf.h). */

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
	__u32 io;	     /* the call waited for storage (CPU_NR_IO) */
	/*
	 * Its histogram's index as its first block found it (block_threshold;
	 * SCLAT_BRAKES: none whose storage threshold is the call's), and that
	 * storage threshold (struct sclat_brake's io_ns), read once the call
	 * leaves its CPU in an I/O wait: what judges its blocks then, when lower.
	 */
	__u32 io_index;
	__u32 io_ns;
	/*
	 * Of its call in flight: how long the threads that woke it had waited
	 * for a CPU themselves, inside its blocks (task_back).
	 */
	__u64 waker_runqueue_ns;
	/* The steal (steal.bpf.h) of its call in flight, up to its last switch away. */
	__u64 steal_ns;
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

/* Wakers (waker.bpf.h). */

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
	/*
	 * With a waker's wait from a softirq on a sender's stack: the ports of
	 * the socket it woke, as that socket has them (call_inet_ports, its
	 * peer's mirrored). 0 with a task's.
	 */
	__u32 waker_ports;
	__u64 wake_ns;
	struct sclat_waker waker;
	/* The waker's last wait for a CPU after a block of its own: how long, when it ended. */
	__u64 waker_wait_ns, waker_wait_end_ns;
	/* A cache line each. */
	__u8 __pad[SCLAT_WAKE_SLOT_BYTES - 4 * sizeof(__u64) - sizeof(struct sclat_waker)];
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1); /* sclat_wake_slots(), set by userspace before load */
	__type(key, __u32);
	__type(value, struct wake_note);
} wake_notes SEC(".maps");

/*
 * Per CPU: how long the task that came in at `at` had waited for it, back
 * from a block in a syscall (task_back). Its own wake-ups of others read it
 * while `at` is its CPU record's in_ns (task_woken). Not on the CPU's page,
 * which is full.
 */
struct cpu_wait {
	__u64 ns, at;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct cpu_wait);
} cpu_waits SEC(".maps");

const volatile __u32 wake_slots_mask; /* a power of two, less one */

/* Wakers whose note was taken by another before it was read; for sclat status. */
__u64 wakers_lost;

/* The histograms, and the ring buffer that outliers go to (outlier.bpf.h). */
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
/*
 * Half of them are kept for the outliers that matter: USTACK_COSTLY times
 * their threshold or more. A flood of outliers just past their threshold
 * (a busy server's socket reads, each the 1-in-1000 tail of its syscall)
 * takes the other half, and an fdatasync of 20 ms among them still gets its
 * stack.
 */
#define USTACK_COSTLY	 4

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct burst_guard);
} ustack_guards SEC(".maps");

/* Scope (scope.bpf.h). */

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

/*
 * sclat_hist_bucket(v) for every v below SCLAT_HIST_SMALL_NS, filled by
 * userspace before load: most calls under their threshold take less, and a
 * load costs less than the computation.
 */
const volatile __u8 hist_bucket_small[SCLAT_HIST_SMALL_NS];

/*
 * Kernel stacks taken when a task came back from a block, and left out
 * because the burst guard of its CPU was spent (its outlier would most
 * likely be throttled). Read by userspace, for sclat status.
 */
__u64 kstacks_taken;
__u64 kstacks_skipped;

/*
 * Calls that blocked and returned without a switch back onto a CPU that the
 * kernel traced (some VMs trace no switch of some tasks): their block's end,
 * waker and kernel stack are unknown, and the block lasts to the exit. Read
 * by userspace, for sclat status and the end of the run.
 */
__u64 backs_unseen;

/*
 * New processes of a process in scope that scope_pids, full, could not take:
 * their syscalls are not measured. Read by userspace, for sclat status and the
 * end of the run.
 */
__u64 children_not_followed;

#endif /* SCLAT_MAPS_BPF_H */
