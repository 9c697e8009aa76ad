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

#define SCLAT_ABI_VERSION 2

/* Syscall numbers 0 .. SCLAT_MAX_SYSCALLS - 1 are measured; others are ignored. */
#define SCLAT_MAX_SYSCALLS 512

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

/* The BPF side indexes with masks: these must stay powers of two. */
_Static_assert((SCLAT_MAX_SYSCALLS & (SCLAT_MAX_SYSCALLS - 1)) == 0,
	       "SCLAT_MAX_SYSCALLS must be a power of two");
_Static_assert(SCLAT_HIST_SLOTS < SCLAT_MAX_SYSCALLS, "more slots than syscalls");

/* One syscall's entry in the shared control table. */
struct sclat_syscall_ctl {
	/*
	 * sclat_threshold_word(): written by userspace with one aligned 64-bit
	 * store, read by BPF with one load.
	 */
	__u64 threshold;
	/* Written once by BPF (compare-and-swap from SCLAT_SLOT_NONE). */
	__u32 slot;
	__u32 __pad;
};

/* Run-time knobs written by userspace. */
struct sclat_knobs {
	/*
	 * Per-CPU burst guard: at most guard_burst outliers per CPU in each
	 * guard_window_ns window; the rest are counted as throttled.
	 * guard_burst == 0 disables the guard.
	 */
	__u64 guard_window_ns;
	__u32 guard_burst;
	__u32 __pad;
};

/*
 * Everything shared through the mmap'ed .bss of the BPF object: userspace
 * writes a threshold with a plain store, the BPF side reads it with a plain
 * load; no syscall per update.
 */
struct sclat_shared {
	struct sclat_knobs knobs;
	__u32 next_slot; /* last slot handed out (BPF only) */
	__u32 __pad;
	struct sclat_syscall_ctl ctl[SCLAT_MAX_SYSCALLS];
};

/* Per-CPU value of the histogram map, one per slot. */
struct sclat_hist {
	/* Counts wrap at 2^32: readers take deltas modulo 2^32. */
	__u32 bucket[SCLAT_HIST_BUCKETS];
	__u32 outliers;	 /* written to the ring buffer */
	__u32 drops;	 /* ring buffer full */
	__u32 throttled; /* held back by the per-CPU burst guard */
	__u32 __pad;
};

/* The ring buffer record of one outlier. */
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
	__u32 __pad;
	char comm[SCLAT_COMM_LEN];
};

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

/* The value that represents bucket b: its midpoint, exact in the linear range. */
static __always_inline __u64 sclat_hist_value(__u32 b)
{
	if (b < SCLAT_HIST_LINEAR)
		return b;
	return sclat_hist_lower(b) + sclat_hist_width(b) / 2;
}

#endif /* SCLAT_ABI_H */
