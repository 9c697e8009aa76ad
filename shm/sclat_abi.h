/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The contract between sclat's BPF programs and its userspace controller.
 *
 * Compiled by clang -target bpf (with vmlinux.h) and by gcc (with
 * <linux/types.h>): fixed-width fields, explicit padding, no pointers.
 * tests/unit/test_abi.c checks from both compilers that every offset agrees.
 * Bump SCLAT_ABI_VERSION whenever a byte here moves.
 */
#ifndef SCLAT_ABI_H
#define SCLAT_ABI_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif
#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif

#define SCLAT_ABI_VERSION 17

/* Syscall numbers 0 .. SCLAT_MAX_SYSCALLS - 1 are measured; others are ignored. */
#define SCLAT_MAX_SYSCALLS 512
/*
 * The calls of the 32-bit ABIs (ia32, x32), counted together under this
 * number, named "compat32": theirs are of other tables (kern-bpf/syscall.bpf.h).
 * No x86_64 syscall has it.
 */
#define SCLAT_NR_COMPAT	   511

#define SCLAT_COMM_LEN 16
#define SCLAT_NR_ARGS  6

/*
 * A threshold as the BPF side reads it: one 64-bit word, the threshold in ns
 * in the low SCLAT_THRESHOLD_BITS and the generation that published it in the
 * high bits. One plain load gives a consistent pair, so an outlier names the
 * exact threshold it crossed and userspace finds that threshold's basis by
 * generation (user/controller/basis.h), never by searching for the value.
 */
#define SCLAT_THRESHOLD_BITS  48
#define SCLAT_THRESHOLD_MASK  ((1ULL << SCLAT_THRESHOLD_BITS) - 1)
#define SCLAT_GEN_MASK	      0xffffU
/*
 * A threshold no latency reaches: the syscall never emits. In a threshold
 * word it is SCLAT_THRESHOLD_MASK, and so is every threshold of 2^48 - 1 ns
 * (about 78 hours) or more.
 */
#define SCLAT_THRESHOLD_NEVER (~0ULL)

/*
 * Histogram geometry: log-linear (HDR-style). Values below SCLAT_HIST_LINEAR ns
 * get one bucket each; above, every power-of-two octave [2^k, 2^(k+1)) is split
 * into SCLAT_HIST_SUB equal sub-buckets. Reporting a bucket's midpoint is
 * within 1 / (2 * SCLAT_HIST_SUB) = 6.25 % of any value in it. The last bucket
 * also holds everything above the top octave (about 16 s and more).
 */
#define SCLAT_HIST_SUB_BITS    3
#define SCLAT_HIST_SUB	       (1U << SCLAT_HIST_SUB_BITS)
#define SCLAT_HIST_LINEAR_BITS (SCLAT_HIST_SUB_BITS + 1)
#define SCLAT_HIST_LINEAR      (1U << SCLAT_HIST_LINEAR_BITS)
#define SCLAT_HIST_OCTAVES     30
#define SCLAT_HIST_BUCKETS     (SCLAT_HIST_LINEAR + SCLAT_HIST_OCTAVES * SCLAT_HIST_SUB)
/* Latencies below this many ns find their bucket in a table (a bucket's index fits a byte). */
#define SCLAT_HIST_SMALL_NS    4096
_Static_assert((SCLAT_HIST_BUCKETS & (SCLAT_HIST_BUCKETS - 1)) == 0,
	       "SCLAT_HIST_BUCKETS must be a power of two");

/*
 * Histograms live in a per-CPU array of SCLAT_HIST_SLOTS slots, not one per
 * syscall number: a machine runs a few dozen distinct syscalls, and a slot per
 * number would cost 512 KiB per CPU. The BPF side gives a syscall the next
 * free slot (1, 2, ...) the first time it sees it. Histogram index 0 is the
 * shared one: once every slot is taken, further syscalls are counted there
 * (their .slot reads SCLAT_SLOT_SHARED) and keep their policy's initial
 * threshold.
 */
#define SCLAT_HIST_SLOTS  112
#define SCLAT_HIST_SHARED 0		   /* index of the shared histogram */
#define SCLAT_SLOT_NONE	  0		   /* sclat_syscall_ctl.slot: not seen yet */
#define SCLAT_SLOT_SHARED SCLAT_HIST_SLOTS /* .slot: seen, no slot left */

/*
 * Classes (thresholds learned per process, cgroup, thread name and/or kind of
 * file, besides the syscall): the most class cells, each a histogram and a
 * threshold of its own, that a machine can have.
 */
#define SCLAT_CLASS_CELLS_MAX 4096

/*
 * How a call finds its cell. The task on a CPU has a class id per task kind
 * (1 .. SCLAT_CLASS_IDS - 1; 0: none yet), looked up in a hash of struct
 * sclat_class_key that userspace fills; the fd argument of the call has a
 * kind (enum sclat_fd_kind, read at sys_exit). The cell is then the value of
 * sclat_cell_key(slot, class id, fd kind) in the cell_routes hash: its
 * histogram is hists[SCLAT_HIST_SLOTS + cell], its threshold word
 * cell_threshold[cell]. A hash, not a table: of the 112 x 256 x 16 keys a
 * machine uses a few hundred at most. Cell 0 is the syscall's own: a syscall
 * without classes never reads these.
 */
#define SCLAT_CLASS_IDS	       256
#define SCLAT_FD_KINDS	       16
#define SCLAT_CELL_NONE	       0      /* a route absent: the syscall's; not asked for yet */
#define SCLAT_CELL_ASKED       0xfffe /* asked for: young_threshold until userspace answers */
#define SCLAT_CELL_SHARED      0xffff /* refused (a cap): the syscall's */
/*
 * A class id hash value: the id userspace gave, 0 while asked for and not
 * answered, or this when refused (no id left): masked, it reads as no id.
 */
#define SCLAT_CLASS_ID_REFUSED SCLAT_CLASS_IDS

/* sclat_syscall_ctl.classes: the task kind (enum sclat_class_kind) and SCLAT_CLASSES_FD. */
#define SCLAT_CLASSES_TASK 0x3
#define SCLAT_CLASSES_FD   0x4

/* What a class id stands for. */
enum sclat_class_kind {
	SCLAT_CLASS_NONE,
	SCLAT_CLASS_PROCESS = 1, /* key: tgid */
	SCLAT_CLASS_CGROUP = 2,	 /* key: cgroup id (the cgroup v2 directory's inode) */
	SCLAT_CLASS_COMM = 3,	 /* key: the thread name's first 8 bytes ^ its last 8 */
	SCLAT_CLASS_CELL = 4,	 /* a request for a cell (struct sclat_class_request) */
};

/* The kind of file behind a call's fd argument. */
enum sclat_fd_kind {
	SCLAT_FD_NONE, /* no fd argument, or no file behind it */
	SCLAT_FD_REGULAR,
	SCLAT_FD_DIR,
	SCLAT_FD_CHR,
	SCLAT_FD_BLK,
	SCLAT_FD_PIPE, /* a pipe or a FIFO */
	SCLAT_FD_UNIX, /* sockets, by family */
	SCLAT_FD_INET,
	SCLAT_FD_INET6,
	SCLAT_FD_NETLINK,
	SCLAT_FD_SOCKET, /* other families */
	SCLAT_FD_ANON,	 /* an anonymous inode: eventfd, timerfd, epoll, ... */
	SCLAT_FD_OTHER,
	SCLAT_FD_KIND_COUNT,
};

/* A key of the class id hash. */
struct sclat_class_key {
	__u64 key;
	__u32 kind; /* enum sclat_class_kind */
	__u32 __pad;
};

/*
 * What the BPF side asks userspace for (a queue): a class id for a task
 * (kind, key, comm), or a cell (SCLAT_CLASS_CELL: slot, class_id, fd_kind).
 */
struct sclat_class_request {
	__u64 key;
	__u32 kind; /* enum sclat_class_kind */
	__u32 pid;  /* tgid of the task that asked */
	__u16 slot;
	__u8 class_id;
	__u8 fd_kind;
	__u32 __pad;
	char comm[SCLAT_COMM_LEN];
};

/*
 * Wakers' notes (the BPF side's wake_notes map), a 64-byte slot each: 256 per
 * possible CPU, 1024 at least, a power of two, sized by userspace at load. A
 * note is read back within microseconds of its wake-up, most of the time; it
 * is lost when another task of the same slot is woken in between.
 */
#define SCLAT_WAKE_SLOT_BYTES	 64
#define SCLAT_WAKE_SLOTS_PER_CPU 256
#define SCLAT_WAKE_SLOTS_MIN	 1024
#define SCLAT_WAKE_SLOTS_MAX	 (1U << 20)

/* The number of wakers' notes for ncpus possible CPUs. */
static __always_inline __u32 sclat_wake_slots(__u32 ncpus)
{
	__u32 n = SCLAT_WAKE_SLOTS_MIN;

	while (n < ncpus * SCLAT_WAKE_SLOTS_PER_CPU && n < SCLAT_WAKE_SLOTS_MAX)
		n <<= 1;
	return n;
}

/* The slot of thread tid's waker's note, of slots (a power of two) less one: mask. */
static __always_inline __u32 sclat_wake_slot(__u32 tid, __u32 mask)
{
	return (__u32)((tid * 0x9e3779b97f4a7c15ULL) >> 32) & mask;
}

/* The key of a cell route (never 0: slots start at 1), and its slot and class id. */
static __always_inline __u32 sclat_cell_key(__u32 slot, __u32 class_id, __u32 fd_kind)
{
	return slot << 12 | (class_id & (SCLAT_CLASS_IDS - 1)) << 4 |
	       (fd_kind & (SCLAT_FD_KINDS - 1));
}

static __always_inline __u32 sclat_cell_key_slot(__u32 key)
{
	return key >> 12;
}

static __always_inline __u32 sclat_cell_key_class_id(__u32 key)
{
	return key >> 4 & (SCLAT_CLASS_IDS - 1);
}

/* The BPF side indexes with masks: these must stay powers of two. */
_Static_assert((SCLAT_MAX_SYSCALLS & (SCLAT_MAX_SYSCALLS - 1)) == 0,
	       "SCLAT_MAX_SYSCALLS must be a power of two");
_Static_assert(SCLAT_HIST_SLOTS < SCLAT_MAX_SYSCALLS, "more slots than syscalls");
_Static_assert((SCLAT_CLASS_IDS & (SCLAT_CLASS_IDS - 1)) == 0 &&
		       (SCLAT_FD_KINDS & (SCLAT_FD_KINDS - 1)) == 0 &&
		       (SCLAT_CLASS_CELLS_MAX & (SCLAT_CLASS_CELLS_MAX - 1)) == 0,
	       "class sizes must be powers of two");
_Static_assert(SCLAT_FD_KIND_COUNT <= SCLAT_FD_KINDS, "more fd kinds than a row holds");

/* One syscall's entry in the shared control table. */
struct sclat_syscall_ctl {
	/*
	 * sclat_threshold_word(): written by userspace with one aligned 64-bit
	 * store, read by BPF with one load.
	 */
	__u64 threshold;
	/* Written once by BPF (compare-and-swap from SCLAT_SLOT_NONE). */
	__u32 slot;
	__u32 classes; /* SCLAT_CLASSES_*, written by userspace; 0: no classes */
};

/*
 * The brake: one per histogram (a slot's, or SCLAT_HIST_SLOTS + a cell's).
 * Every outlier of the histogram that reaches the brake adds one to crossed
 * (atomic adds, all CPUs); once crossed has reached limit (modulo 2^32), the
 * outlier is not emitted but counted as braked (struct sclat_hist). Each
 * interval, userspace moves limit to crossed + the allowance it expects the
 * threshold to let through, a small multiple of it: a shift of the normal,
 * or a new class judged by a threshold below its body, cannot flood before
 * the controller learns. limit 0: no brake.
 *
 * Under a rate's rule (apart set), a call SCLAT_BRAKE_FAR times past the
 * threshold of its own syscall or class (not a young class's stand-in) is
 * no shift of the normal but a stall: it is held by far_limit, a larger
 * allowance, instead, so that stalls more frequent than the rate are let
 * through (the rate's fit leaves them out of the tail: tail_fit_apart).
 * Every call is counted in the histogram, outlier or not: a call kept out
 * of what is learnt while its threshold is under a mode of the normal (the
 * calls interrupts slow) would keep it there.
 */
#define SCLAT_BRAKE_FAR 2
/*
 * io_ns: under a rate's rule, where a call of the histogram that waited for
 * storage (left its CPU in an I/O wait, or submitted block I/O itself) is a
 * stall, when that is below its threshold: the histogram's calls seldom wait
 * for I/O, and those that do are a population apart from the ones that do not
 * (a read from the disk among reads from the page cache), however slow the
 * latter's tail (a VM's host pauses a page cache read as long as a disk read
 * takes). Such a call is held by far_limit. 0: judged as any call.
 */
struct sclat_brake {
	__u32 crossed;	 /* written by BPF */
	__u32 limit;	 /* written by userspace */
	__u32 far_limit; /* written by userspace, with limit; 0: none */
	__u32 apart;	 /* written by userspace: 1, far calls are told apart (a rate's rule) */
	__u32 io_ns;	 /* written by userspace (above) */
};
#define SCLAT_BRAKES (SCLAT_HIST_SLOTS + SCLAT_CLASS_CELLS_MAX)

/* Run-time knobs written by userspace. */
/*
 * SCLAT_JUDGE_SERVICE: a call is judged on its latency less the time its
 * CPU gave to others while it was in flight: on a runqueue (preempted, or
 * woken and waiting to run) and in interrupts (hard and soft) on its CPU.
 * SCLAT_JUDGE_WALL: on its whole latency.
 */
enum sclat_judge {
	SCLAT_JUDGE_SERVICE = 0,
	SCLAT_JUDGE_WALL = 1,
};

struct sclat_knobs {
	/*
	 * Per-CPU burst guard: at most guard_burst outliers per CPU in each
	 * guard_window_ns window; the rest are counted as throttled.
	 * guard_burst == 0 disables the guard.
	 */
	__u64 guard_window_ns;
	__u32 guard_burst;
	/*
	 * What a call's latency is judged on (enum sclat_judge): its threshold,
	 * its histograms and its brake see the same.
	 */
	__u32 judge;
	/*
	 * The budget itself, for the whole machine (all CPUs): one outlier
	 * every budget_gap_ns on average, and no more than budget_ahead_ns
	 * worth of them ahead of that pace (a generic cell rate: in any
	 * window of T ns, at most (T + budget_ahead_ns) / budget_gap_ns + 1
	 * go out); the rest are counted as throttled. budget_gap_ns 0: none.
	 */
	__u64 budget_gap_ns;
	__u64 budget_ahead_ns;
};

/*
 * Everything shared through the mmap'ed .bss of the BPF object: userspace
 * writes a threshold with a plain store, the BPF side reads it with a plain
 * load; no syscall per update.
 */
struct sclat_shared {
	struct sclat_knobs knobs;
	__u32 next_slot; /* last slot handed out (BPF only) */
	/*
	 * Class requests the full queue refused (BPF, atomic adds); userspace
	 * then asks the BPF side to ask again (cells still ASKED, ids still 0).
	 */
	__u32 class_requests_lost;
	struct sclat_syscall_ctl ctl[SCLAT_MAX_SYSCALLS];
	/* The classes' cells (see SCLAT_CLASS_IDS): written by userspace. */
	__u64 cell_threshold[SCLAT_CLASS_CELLS_MAX];
	/*
	 * The threshold word a call of syscall nr is judged by while its class
	 * has no cell yet (route SCLAT_CELL_ASKED): nothing is known of that
	 * class's normal, and its syscall's threshold may be below it (a new
	 * process whose every read waits 3 ms). Written by userspace; 0: the
	 * syscall's own.
	 */
	__u64 young_threshold[SCLAT_MAX_SYSCALLS];
	struct sclat_brake brake[SCLAT_BRAKES];
	/* When the budget's pace lets the next outlier out (BPF only, compare-and-swap). */
	__u64 budget_next_ns;
};

/*
 * Each CPU's lane, at the start of its page (cpu_pages, last in the BPF
 * object's .bss, mmap'ed by userspace): what a call's sys_exit reads and
 * writes on its short path, so that a call under its threshold touches one
 * page of sclat's besides its programs' (each page a call touches costs a
 * TLB walk on every syscall where the kernel flushes the TLB on entry:
 * page-table isolation without PCID). The short path counts the call's
 * latency in the lane's pending list, not in the histogram; a full list is
 * moved into hists by the CPU's next call. Readers add the pending calls to
 * what hists says (probes_hists_read,
 * probes_cells_read).
 */
#define SCLAT_PENDING_MAX   128
#define SCLAT_CPU_PAGE_SIZE 4096
/* The most CPUs the pages are for: the most a Linux kernel has (NR_CPUS on x86). */
#define SCLAT_CPUS_MAX	    8192
#define SCLAT_LANE_CELLS    64 /* a power of two */

/*
 * slot_classes[slot]: the slot's SCLAT_CLASSES_* bits, and the argument that
 * holds its fd (SCLAT_CLASSES_FD only) at SCLAT_LANE_FD_ARG_SHIFT.
 */
#define SCLAT_LANE_FD_ARG_SHIFT 4

/*
 * slot_of[nr]: the slot, and this bit when its syscall has classes: a call
 * without reads neither slot_classes nor a cell, one line less.
 */
#define SCLAT_LANE_CLASSED 0x80
#define SCLAT_LANE_SLOT	   0x7f

/*
 * A slot's entry in the lane (struct sclat_lane_slot): what a call of its
 * syscall reads and writes on the short path, in one 8-byte entry, so that
 * the call touches one line of them. Its floor and below are in units of
 * 2^SCLAT_LANE_UNIT_SHIFT ns, rounded down, at most SCLAT_LANE_UNIT_MAX (that
 * many units or more); a call is compared with them as latency_ns >> the
 * shift, which for 2^32 ns or more (a pending call cannot hold it) is above
 * both.
 *
 * below: the threshold of the slot's syscall (sclat_lane_units()). A call of
 * a syscall without classes under it is counted on the short path; any other
 * goes the long way, which compares it with the threshold word itself: one
 * that the rounding, or the cap (about 1 ms), leaves out is still judged
 * exactly there. One compare does the work of three: 0 (no slot, and the
 * entries from SCLAT_HIST_SLOTS on) sends every call the long way.
 *
 * floor (0: none): a call under it is an outlier in nothing, and its latency
 * is not needed exactly. The short path counts every such call in calls, and
 * only one in sample_n (at random, with weight sample_n) in the histograms;
 * every call above it goes into them one by one.
 * - A syscall without classes: under its threshold and under the body of its
 *   histogram (a quantile well under the one its threshold follows, set by
 *   the controller), so that its tail, where the quantile is, is counted in
 *   full.
 * - A syscall with classes: the lowest threshold of the syscall and of all
 *   its classes' cells, whichever class a call is in.
 * 0 while sample_n is 1, and from SCLAT_HIST_SLOTS on.
 *
 * calls, written by BPF: every call of the slot, each counted once, where its
 * sys_exit ends (the short path, or syscall_done), sampled or not: the exact
 * count that the histograms' sampled counts are not. Slot 0 is the shared
 * slot's. Wraps at 2^32: readers take deltas modulo 2^32.
 */
#define SCLAT_LANE_UNIT_SHIFT 4
#define SCLAT_LANE_UNIT_MAX   0xffff

/*
 * block_below[slot]: the threshold of the slot's syscall in units of
 * 2^SCLAT_LANE_BLOCK_SHIFT ns (about 1 us), rounded down, at most
 * SCLAT_LANE_UNIT_MAX (about 67 ms: above, the exact threshold is looked up).
 * What sched_switch compares a call's block with before it takes a kernel
 * stack (a block that long makes the call slow already), on the page it
 * touches anyway: below's cap is too low for the blocking syscalls.
 */
#define SCLAT_LANE_BLOCK_SHIFT 10

struct sclat_lane_slot {
	__u32 calls; /* written by BPF */
	__u16 floor; /* written by userspace, as below */
	__u16 below;
};

/* The largest sample_n (policy key sample): a weight must fit sclat_pend(). */
#define SCLAT_SAMPLE_MAX 4096

/*
 * A pending call: its latency (ns, below 2^32: the caller has checked it, so
 * that the short path does not cut it again), its histogram's index above
 * it, and above that its weight less one (the calls it stands for).
 */
static __always_inline __u64 sclat_pend(__u64 ns, __u32 hist)
{
	return (__u64)hist << 32 | ns;
}

/* The bits a pending call of weight w (1 .. SCLAT_SAMPLE_MAX) adds to sclat_pend(). */
static __always_inline __u64 sclat_pend_weight_bits(__u32 w)
{
	return (__u64)(w - 1) << 48;
}

static __always_inline __u32 sclat_pend_weight(__u64 pend)
{
	return (__u32)(pend >> 48) + 1;
}

static __always_inline __u32 sclat_pend_ns(__u64 pend)
{
	return (__u32)pend;
}

static __always_inline __u32 sclat_pend_hist(__u64 pend)
{
	return (__u32)(pend >> 32) & 0xffff;
}

/*
 * A class cell on a lane's short path: the cell of a call of slot, class id
 * and fd kind (sclat_cell_key()) that the CPU met last in this entry
 * (sclat_lane_cell_index()). Written by the BPF side when a call finds its
 * cell off the short path; userspace keeps the threshold as it keeps the
 * cell's, and clears the key when the route changes.
 */
struct sclat_lane_cell {
	__u32 key;  /* 0: empty */
	__u16 hist; /* the histogram: SCLAT_HIST_SLOTS + cell; the slot: refused, or asked */
	__u16 __pad;
	__u64 threshold; /* the threshold word of that histogram's cell, or of its syscall */
};

static __always_inline __u32 sclat_lane_cell_index(__u32 key)
{
	return (key * 0x9e3779b1U) >> 26 & (SCLAT_LANE_CELLS - 1);
}

struct sclat_cpu_lane {
	/* Written by BPF: */
	__u32 pend_n;		       /* pend[0 .. pend_n) not in hists yet */
	__u32 flush_seq;	       /* odd while pend moves into hists */
	__u64 pend[SCLAT_PENDING_MAX]; /* each call's sclat_pend(): one store, one line */
	/* Written by userspace: */
	/* The slot of a syscall on the short path (| SCLAT_LANE_CLASSED); 0: none. */
	__u8 slot_of[SCLAT_MAX_SYSCALLS];
	__u8 slot_classes[SCLAT_HIST_SLOTS]; /* classes of the slot's syscall, fd argument */
	__u32 class_epoch; /* moves on when a class id is forgotten: ids noted before are not */
	__u32 sample_n;	   /* 1 in sample_n calls under their floor is counted; 0, 1: each */
	/* Written by both: */
	struct sclat_lane_slot slot[SCLAT_LANE_SLOT + 1];
	struct sclat_lane_cell cell[SCLAT_LANE_CELLS];
	/* Written by userspace: see SCLAT_LANE_BLOCK_SHIFT. */
	__u16 block_below[SCLAT_LANE_SLOT + 1];
};
_Static_assert(SCLAT_HIST_SLOTS + SCLAT_CLASS_CELLS_MAX <= 0xffff,
	       "an index must fit sclat_pend()");
_Static_assert(SCLAT_HIST_SLOTS <= SCLAT_LANE_SLOT + 1, "a slot must fit slot_of");
_Static_assert(6 << SCLAT_LANE_FD_ARG_SHIFT <= 0xff, "an fd argument must fit slot_classes");
_Static_assert((SCLAT_LANE_CELLS & (SCLAT_LANE_CELLS - 1)) == 0 && SCLAT_LANE_CELLS <= 64,
	       "sclat_lane_cell_index() takes 6 bits");

/* Per-CPU value of the histogram map, one per slot. */
struct sclat_hist {
	/* Counts wrap at 2^32: readers take deltas modulo 2^32. */
	__u32 bucket[SCLAT_HIST_BUCKETS];
	__u32 outliers;	 /* written to the ring buffer */
	__u32 drops;	 /* ring buffer full */
	__u32 throttled; /* held back by the per-CPU burst guard */
	/*
	 * The slot's calls, every one: 0 in the map; userspace's reads of a
	 * slot (probes_hists_read) put its lanes' slot[slot].calls here, CPU by CPU.
	 * A cell's stays 0: its calls are its buckets' sum.
	 */
	__u32 calls;
	__u32 braked; /* held back by the brake (struct sclat_brake) */
	__u32 io;     /* calls that waited for storage (struct sclat_brake's io_ns): each counted */
};

/* Where an outlier's time went, in ns; the four add up to its latency. */
struct sclat_breakdown {
	__u64 on_cpu_ns;   /* running */
	__u64 runqueue_ns; /* runnable, waiting for a CPU: preempted, or woken and not running yet
			    */
	__u64 sleep_ns;	   /* blocked interruptibly: waiting for an event */
	__u64 io_wait_ns;  /* blocked uninterruptibly (D state): mostly I/O, some locks */
};

/* In what context the waker ran. */
enum sclat_waker_context {
	SCLAT_WAKER_NONE,      /* no wake-up seen: the call never blocked, or not while traced */
	SCLAT_WAKER_TASK,      /* a task: pid, tid and comm are the waker's */
	SCLAT_WAKER_INTERRUPT, /* an interrupt or a softirq on its stack: pid, tid, comm are 0 */
};

/* Who ended the longest block of an outlier. */
struct sclat_waker {
	__u32 pid; /* tgid */
	__u32 tid;
	__u32 context; /* enum sclat_waker_context */
	__u32 __pad;
	char comm[SCLAT_COMM_LEN];
};

/*
 * The ring buffer record of one outlier: this header, then its parts (struct
 * sclat_part), 8-byte aligned, up to the record's size as the ring buffer
 * gives it. A reader skips the kinds of part it does not know.
 */
struct sclat_event {
	__u64 entry_ns; /* bpf_ktime_get_ns() at sys_enter (CLOCK_MONOTONIC) */
	__u64 latency_ns;
	__u64 threshold_ns; /* the threshold it crossed */
	__s64 ret;
	__u64 args[SCLAT_NR_ARGS];
	__u32 pid; /* tgid */
	__u32 tid;
	__u32 nr;
	__u32 cpu;	     /* CPU of sys_exit */
	__u32 threshold_gen; /* the generation of that threshold */
	__u32 cell;	     /* the class cell whose threshold it was; 0: the syscall's */
	char comm[SCLAT_COMM_LEN];
	/*
	 * BPF time spent explaining this outlier: its kernel stack (taken at
	 * the wake-up), its target and its record, in ns.
	 */
	__u64 explain_ns;
	/* Of its time on a CPU, the time in interrupts there, as far as seen (irq_time.bpf.h). */
	__u64 irq_ns;
	/* What its threshold judged (knobs.judge): the latency, less the CPU's time for others. */
	__u64 judged_ns;
	/*
	 * Of its time blocked, the time the threads that woke it had waited for
	 * a CPU themselves, inside its blocks (woken by them, or by the softirq a
	 * loopback send ran on their stack): left out of judged_ns under service.
	 */
	__u64 waker_runqueue_ns;
	/*
	 * Of its time on a CPU, the time the hypervisor held that virtual CPU
	 * (KVM's steal clock, kern-bpf/steal.bpf.h; 0 on other machines): left
	 * out of judged_ns under service.
	 */
	__u64 steal_ns;
};

/* A task's state as an in-flight report sees it. */
enum sclat_task_state {
	SCLAT_STATE_RUNNING = 1, /* on a CPU now */
	SCLAT_STATE_RUNNABLE,	 /* waiting for a CPU */
	SCLAT_STATE_SLEEPING,	 /* blocked interruptibly (S), or idle (I) */
	SCLAT_STATE_DISK,	 /* blocked uninterruptibly (D) */
	SCLAT_STATE_STOPPED,	 /* stopped or traced */
};

/*
 * A syscall still in flight, as the task iterator (kern-bpf/inflight.bpf.h)
 * writes it: this header, then an outlier record (struct sclat_event: its
 * latency_ns is the time in flight so far, ret 0, cpu the task's CPU now)
 * with its parts (a target, the kernel stack now), size bytes in all.
 */
struct sclat_inflight {
	__u32 size;
	__u32 state; /* enum sclat_task_state */
	struct sclat_event e;
};

/* What a part of an outlier record holds. */
enum sclat_part_kind {
	SCLAT_PART_KSTACK = 1,	/* struct sclat_kstack */
	SCLAT_PART_TARGET = 2,	/* struct sclat_target */
	SCLAT_PART_WAIT = 3,	/* struct sclat_wait */
	SCLAT_PART_USTACK = 4,	/* struct sclat_ustack (shm/sclat_ustack.h), up to its size */
	SCLAT_PART_OFF_CPU = 5, /* struct sclat_off_cpu_list, up to its listed spans */
};

/*
 * How an outlier that left its CPU spent its time, and who woke it. Only
 * those have the part: one without it ran on its CPU all along (its latency
 * is all on_cpu_ns, no switch, no waker), and most outliers of a storm of
 * short calls are such, so their records stay small.
 */
struct sclat_wait {
	struct sclat_breakdown breakdown;
	__u32 switches; /* context switches during the call */
	__u32 __pad;
	struct sclat_waker waker; /* after the longest block */
};

/* Spans off the CPU listed per outlier: the first ones; the rest are only counted. */
#define SCLAT_OFF_CPU_MAX  15
#define SCLAT_OFF_CPU_NONE 0xffffffffU /* sclat_off_cpu_list.waker_index: not listed */

/* How a call left its CPU (kern-bpf/breakdown.bpf.h's enum wait_kind). */
enum sclat_off_cpu_kind {
	SCLAT_OFF_CPU_RUNQUEUE = 1, /* preempted or yielded: still runnable */
	SCLAT_OFF_CPU_SLEEP = 2,    /* blocked interruptibly */
	SCLAT_OFF_CPU_IO = 3,	    /* blocked uninterruptibly (D) */
};

/*
 * One stretch of a call off its CPU, in bpf_ktime_get_ns() time: from its
 * switch out (on cpu) to its switch back in (on in_cpu), woken at wake_ns if
 * it blocked and sched_waking saw the wake-up (0: not). The times are the
 * links of the breakdown's chain: the stretches on a CPU between them add up
 * to its on_cpu_ns.
 */
struct sclat_off_cpu {
	__u64 out_ns;
	__u64 wake_ns;
	__u64 in_ns;
	__u16 cpu;
	__u16 in_cpu;
	__u32 kind; /* enum sclat_off_cpu_kind */
};

/*
 * When and where an outlier that left its CPU ran and waited: its first
 * min(count, SCLAT_OFF_CPU_MAX) stretches off the CPU are in the record.
 */
struct sclat_off_cpu_list {
	__u32 count;	   /* stretches in all: the wait part's switches */
	__u32 waker_index; /* the stretch the wait part's waker ended; SCLAT_OFF_CPU_NONE */
	struct sclat_off_cpu span[SCLAT_OFF_CPU_MAX];
};

#define SCLAT_PART_ALIGN 8

/* The header of each part; len bytes follow it, then padding to SCLAT_PART_ALIGN. */
struct sclat_part {
	__u16 kind; /* enum sclat_part_kind */
	__u16 __pad;
	__u32 len;
};

/* A part's size in the record, header and padding included. */
#define SCLAT_PART_SIZE(len) \
	((sizeof(struct sclat_part) + (len) + SCLAT_PART_ALIGN - 1) & ~(SCLAT_PART_ALIGN - 1UL))

/* Frames kept of a kernel stack. */
#define SCLAT_KSTACK_MAX 32

/*
 * The kernel stack of the task at the end of its longest block: where it
 * waited. Innermost frame first; raw addresses, symbolized in userspace.
 */
struct sclat_kstack {
	__u32 depth;
	__u32 __pad;
	__u64 ip[SCLAT_KSTACK_MAX]; /* only depth of them are in the record */
};

#include "sclat_target.h"

static __always_inline __u64 sclat_threshold_word(__u64 ns, __u32 gen)
{
	if (ns > SCLAT_THRESHOLD_MASK)
		ns = SCLAT_THRESHOLD_MASK;
	return ((__u64)(gen & SCLAT_GEN_MASK) << SCLAT_THRESHOLD_BITS) | ns;
}

/* The threshold of a word in ns; SCLAT_THRESHOLD_MASK means never. */
static __always_inline __u64 sclat_threshold_ns(__u64 word)
{
	return word & SCLAT_THRESHOLD_MASK;
}

static __always_inline __u32 sclat_threshold_gen(__u64 word)
{
	return (__u32)(word >> SCLAT_THRESHOLD_BITS);
}

/*
 * A threshold word in a lane's units of 2^shift ns, rounded down, capped at
 * SCLAT_LANE_UNIT_MAX: a slot's below and its floor's cap
 * (SCLAT_LANE_UNIT_SHIFT), its block_below (SCLAT_LANE_BLOCK_SHIFT).
 */
static __always_inline __u16 sclat_lane_units(__u64 word, unsigned int shift)
{
	__u64 units = sclat_threshold_ns(word) >> shift;

	return units < SCLAT_LANE_UNIT_MAX ? (__u16)units : SCLAT_LANE_UNIT_MAX;
}

/* log2 of v (v > 0), the same branchy code on both sides: BPF has no clz. */
static __always_inline __u32 sclat_log2(__u64 v)
{
	__u32 r = 0;

	if (v >> 32) {
		v >>= 32;
		r += 32;
	}
	if (v >> 16) {
		v >>= 16;
		r += 16;
	}
	if (v >> 8) {
		v >>= 8;
		r += 8;
	}
	if (v >> 4) {
		v >>= 4;
		r += 4;
	}
	if (v >> 2) {
		v >>= 2;
		r += 2;
	}
	if (v >> 1)
		r += 1;
	return r;
}

/* The bucket that counts a latency of v ns. */
static __always_inline __u32 sclat_hist_bucket(__u64 v)
{
	__u32 k;

	if (v < SCLAT_HIST_LINEAR)
		return (__u32)v;
	k = sclat_log2(v);
	if (k >= SCLAT_HIST_LINEAR_BITS + SCLAT_HIST_OCTAVES)
		return SCLAT_HIST_BUCKETS - 1;
	return SCLAT_HIST_LINEAR + (k - SCLAT_HIST_LINEAR_BITS) * SCLAT_HIST_SUB +
	       (__u32)((v >> (k - SCLAT_HIST_SUB_BITS)) & (SCLAT_HIST_SUB - 1));
}

/* The smallest latency (ns) that falls in bucket b. */
static __always_inline __u64 sclat_hist_lower(__u32 b)
{
	__u32 k, j;

	if (b < SCLAT_HIST_LINEAR)
		return b;
	k = (b - SCLAT_HIST_LINEAR) / SCLAT_HIST_SUB + SCLAT_HIST_LINEAR_BITS;
	j = (b - SCLAT_HIST_LINEAR) % SCLAT_HIST_SUB;
	return (1ULL << k) + ((__u64)j << (k - SCLAT_HIST_SUB_BITS));
}

/* The width (ns) of bucket b; the last bucket is open-ended. */
static __always_inline __u64 sclat_hist_width(__u32 b)
{
	if (b < SCLAT_HIST_LINEAR)
		return 1;
	return 1ULL << ((b - SCLAT_HIST_LINEAR) / SCLAT_HIST_SUB + SCLAT_HIST_LINEAR_BITS -
			SCLAT_HIST_SUB_BITS);
}

/* The upper edge (ns) of bucket b, the next one's lower: no latency in b reaches it. */
static __always_inline __u64 sclat_hist_upper(__u32 b)
{
	return sclat_hist_lower(b) + sclat_hist_width(b);
}

/* The value that represents bucket b: its midpoint, exact in the linear range. */
static __always_inline __u64 sclat_hist_value(__u32 b)
{
	if (b < SCLAT_HIST_LINEAR)
		return b;
	return sclat_hist_lower(b) + sclat_hist_width(b) / 2;
}

#endif /* SCLAT_ABI_H */
