// SPDX-License-Identifier: GPL-2.0-only
/*
 * The kernel<->user contract seen by both compilers: every member offset and
 * struct size that clang wrote into sclat.bpf.o's BTF must equal gcc's.
 */
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <unistd.h>
#include <bpf/btf.h>
#include "unit.h"
#include "sclat_abi.h"

static struct btf *btf;

/* .output/sclat.bpf.o, next to .output/tests/ where this test lives. */
static struct btf *bpf_object_btf(void)
{
	char exe[PATH_MAX], path[PATH_MAX + 32];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *slash;

	if (n < 0)
		return NULL;
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (!slash)
		return NULL;
	*slash = '\0';
	snprintf(path, sizeof(path), "%s/../sclat.bpf.o", exe);
	return btf__parse(path, NULL);
}

static const struct btf_member *member_of(const struct btf_type *t, const char *name)
{
	const struct btf_member *m = btf_members(t);
	int i;

	for (i = 0; i < btf_vlen(t); i++, m++)
		if (!strcmp(btf__name_by_offset(btf, m->name_off), name))
			return m;
	return NULL;
}

struct member_off {
	const char *name;
	size_t off;
};

#define M(type, m)                           \
	{                                    \
#m, offsetof(struct type, m) \
	}
#define CHECK_LAYOUT(type, ...)                                                        \
	do {                                                                           \
		const struct member_off m[] = { __VA_ARGS__ };                         \
		check_layout(#type, sizeof(struct type), m, sizeof(m) / sizeof(m[0])); \
	} while (0)

/* The struct's size in BPF's BTF, and each listed member's byte offset, against gcc's. */
static void check_layout(const char *type, size_t size, const struct member_off *want, size_t n)
{
	int id = btf__find_by_name_kind(btf, type, BTF_KIND_STRUCT);
	const struct btf_type *t;
	size_t i;

	if (!CHECK(id > 0, "struct %s missing from the BPF object's BTF", type))
		return;
	t = btf__type_by_id(btf, id);
	CHECK(t->size == size, "sizeof(struct %s): bpf %u, gcc %zu", type, t->size, size);
	CHECK(btf_vlen(t) == n, "struct %s: bpf has %u members, the test lists %zu", type,
	      btf_vlen(t), n);
	for (i = 0; i < n; i++) {
		const struct btf_member *m = member_of(t, want[i].name);
		__u32 off;

		if (!CHECK(m, "%s.%s missing in bpf", type, want[i].name))
			continue;
		off = btf_member_bit_offset(t, m - btf_members(t)) / 8;
		CHECK(off == want[i].off, "%s.%s: bpf offset %u, gcc %zu", type, want[i].name, off,
		      want[i].off);
	}
}

static void test_btf_present(void)
{
	CHECK(btf, "cannot read the BTF of .output/sclat.bpf.o (run make first): %s",
	      strerror(errno));
}

static void test_event_layout(void)
{
	CHECK_LAYOUT(sclat_event, M(sclat_event, entry_ns), M(sclat_event, latency_ns),
		     M(sclat_event, threshold_ns), M(sclat_event, ret), M(sclat_event, args),
		     M(sclat_event, pid), M(sclat_event, tid), M(sclat_event, nr),
		     M(sclat_event, cpu), M(sclat_event, threshold_gen), M(sclat_event, cell),
		     M(sclat_event, comm), M(sclat_event, explain_ns), M(sclat_event, irq_ns),
		     M(sclat_event, judged_ns), M(sclat_event, waker_runqueue_ns),
		     M(sclat_event, steal_ns));
	CHECK_LAYOUT(sclat_breakdown, M(sclat_breakdown, on_cpu_ns),
		     M(sclat_breakdown, runqueue_ns), M(sclat_breakdown, sleep_ns),
		     M(sclat_breakdown, io_wait_ns));
	CHECK_LAYOUT(sclat_waker, M(sclat_waker, pid), M(sclat_waker, tid), M(sclat_waker, context),
		     M(sclat_waker, __pad), M(sclat_waker, comm));
}

/* The parts that follow a record's header, and the rules that say which argument to read. */
static void test_part_layout(void)
{
	CHECK_LAYOUT(sclat_part, M(sclat_part, kind), M(sclat_part, __pad), M(sclat_part, len));
	CHECK_LAYOUT(sclat_wait, M(sclat_wait, breakdown), M(sclat_wait, switches),
		     M(sclat_wait, __pad), M(sclat_wait, waker));
	CHECK_LAYOUT(sclat_off_cpu, M(sclat_off_cpu, out_ns), M(sclat_off_cpu, wake_ns),
		     M(sclat_off_cpu, in_ns), M(sclat_off_cpu, cpu), M(sclat_off_cpu, in_cpu),
		     M(sclat_off_cpu, kind));
	CHECK_LAYOUT(sclat_off_cpu_list, M(sclat_off_cpu_list, count),
		     M(sclat_off_cpu_list, waker_index), M(sclat_off_cpu_list, span));
	CHECK_LAYOUT(sclat_kstack, M(sclat_kstack, depth), M(sclat_kstack, __pad),
		     M(sclat_kstack, ip));
	CHECK_LAYOUT(sclat_target, M(sclat_target, kind), M(sclat_target, flags),
		     M(sclat_target, fd), M(sclat_target, ino), M(sclat_target, dev),
		     M(sclat_target, magic), M(sclat_target, family), M(sclat_target, type),
		     M(sclat_target, protocol), M(sclat_target, local_port),
		     M(sclat_target, peer_port), M(sclat_target, str_len), M(sclat_target, __pad),
		     M(sclat_target, local_addr), M(sclat_target, peer_addr), M(sclat_target, str));
	CHECK_LAYOUT(sclat_target_rule, M(sclat_target_rule, kind), M(sclat_target_rule, arg),
		     M(sclat_target_rule, dirfd), M(sclat_target_rule, __pad));
	/* The task iterator's record of a call in flight: a header, then an outlier's. */
	CHECK_LAYOUT(sclat_inflight, M(sclat_inflight, size), M(sclat_inflight, state),
		     M(sclat_inflight, e));
}

/* Every part starts 8-byte aligned, whatever the length of the one before. */
static void test_part_alignment(void)
{
	CHECK(sizeof(struct sclat_event) % SCLAT_PART_ALIGN == 0,
	      "parts after the header unaligned");
	CHECK_EQ_U64(SCLAT_PART_SIZE(0), sizeof(struct sclat_part));
	CHECK_EQ_U64(SCLAT_PART_SIZE(1), sizeof(struct sclat_part) + 8);
	CHECK_EQ_U64(SCLAT_PART_SIZE(8), sizeof(struct sclat_part) + 8);
	CHECK_EQ_U64(SCLAT_PART_SIZE(9), sizeof(struct sclat_part) + 16);
	CHECK(sizeof(struct sclat_target) % 8 == 0, "the target's strings start unaligned");
	CHECK(sizeof(struct sclat_inflight) % SCLAT_PART_ALIGN == 0,
	      "parts after an in-flight record's header unaligned");
}

static void test_shared_layout(void)
{
	CHECK_LAYOUT(sclat_shared, M(sclat_shared, knobs), M(sclat_shared, next_slot),
		     M(sclat_shared, class_requests_lost), M(sclat_shared, ctl),
		     M(sclat_shared, cell_threshold), M(sclat_shared, young_threshold),
		     M(sclat_shared, brake), M(sclat_shared, budget_next_ns));
	CHECK_LAYOUT(sclat_brake, M(sclat_brake, crossed), M(sclat_brake, limit),
		     M(sclat_brake, far_limit), M(sclat_brake, apart), M(sclat_brake, io_ns));
	CHECK_LAYOUT(sclat_syscall_ctl, M(sclat_syscall_ctl, threshold), M(sclat_syscall_ctl, slot),
		     M(sclat_syscall_ctl, classes));
	CHECK_LAYOUT(sclat_knobs, M(sclat_knobs, guard_window_ns), M(sclat_knobs, guard_burst),
		     M(sclat_knobs, judge), M(sclat_knobs, budget_gap_ns),
		     M(sclat_knobs, budget_ahead_ns));
}

/* What the BPF side asks userspace for, and how it finds a call's cell. */
static void test_class_layout(void)
{
	CHECK_LAYOUT(sclat_class_key, M(sclat_class_key, key), M(sclat_class_key, kind),
		     M(sclat_class_key, __pad));
	CHECK_LAYOUT(sclat_class_request, M(sclat_class_request, key), M(sclat_class_request, kind),
		     M(sclat_class_request, pid), M(sclat_class_request, slot),
		     M(sclat_class_request, class_id), M(sclat_class_request, fd_kind),
		     M(sclat_class_request, __pad), M(sclat_class_request, comm));
}

static void test_hist_layout(void)
{
	int id;

	CHECK_LAYOUT(sclat_hist, M(sclat_hist, bucket), M(sclat_hist, outliers),
		     M(sclat_hist, drops), M(sclat_hist, throttled), M(sclat_hist, calls),
		     M(sclat_hist, braked), M(sclat_hist, io));
	CHECK_LAYOUT(sclat_cpu_lane, M(sclat_cpu_lane, pend_n), M(sclat_cpu_lane, flush_seq),
		     M(sclat_cpu_lane, pend), M(sclat_cpu_lane, slot_of),
		     M(sclat_cpu_lane, slot_classes), M(sclat_cpu_lane, class_epoch),
		     M(sclat_cpu_lane, sample_n), M(sclat_cpu_lane, slot), M(sclat_cpu_lane, cell),
		     M(sclat_cpu_lane, block_below));
	CHECK_LAYOUT(sclat_lane_slot, M(sclat_lane_slot, calls), M(sclat_lane_slot, floor),
		     M(sclat_lane_slot, below));
	CHECK_LAYOUT(sclat_lane_cell, M(sclat_lane_cell, key), M(sclat_lane_cell, hist),
		     M(sclat_lane_cell, __pad), M(sclat_lane_cell, threshold));
	/* The lane and the CPU's record share one page (kern-bpf/sclat.bpf.c, struct cpu_page). */
	id = btf__find_by_name_kind(btf, "cpu_page", BTF_KIND_STRUCT);
	CHECK(id > 0 && btf__type_by_id(btf, id)->size == SCLAT_CPU_PAGE_SIZE,
	      "struct cpu_page is not one page");
	/* A call touches the record's first line, and one line of the lane's slots. */
	if (id > 0) {
		const struct btf_type *page = btf__type_by_id(btf, id);
		const struct btf_member *rec = member_of(page, "rec");

		CHECK(rec && btf_member_bit_offset(page, rec - btf_members(page)) / 8 % 64 == 0,
		      "the CPU's record does not start a cache line");
	}
	/*
	 * What a call without classes reads and writes there, in the record's
	 * first line (sample_rand, read once per sampled call, is not).
	 */
	id = btf__find_by_name_kind(btf, "cpu_entry", BTF_KIND_STRUCT);
	if (CHECK(id > 0, "no struct cpu_entry in the BPF object")) {
		const struct btf_type *rec = btf__type_by_id(btf, id);
		const char *first_line[] = { "entry_ns", "regs",     "nr",	   "task_self",
					     "in_regs",	 "steal_at", "steal_base", "sample_left" };
		size_t i;

		for (i = 0; i < sizeof(first_line) / sizeof(first_line[0]); i++) {
			const struct btf_member *m = member_of(rec, first_line[i]);
			__s64 size = m ? btf__resolve_size(btf, m->type) : 0;

			CHECK(m && size > 0 &&
				      btf_member_bit_offset(rec, m - btf_members(rec)) / 8 + size <=
					      64,
			      "cpu_entry.%s is not in the record's first line", first_line[i]);
		}
	}
	CHECK(offsetof(struct sclat_cpu_lane, slot) % 64 == 0 &&
		      64 % sizeof(struct sclat_lane_slot) == 0,
	      "a lane slot's entry spans two cache lines");
	CHECK(offsetof(struct sclat_cpu_lane, cell) % 8 == 0,
	      "lane cells' threshold words not 8-byte aligned");
	/*
	 * The CPUs' pages end .bss, each on a page of its own: userspace cuts .bss
	 * down to the possible CPUs' (probes.c, pages_size).
	 */
	id = btf__find_by_name_kind(btf, ".bss", BTF_KIND_DATASEC);
	CHECK(id > 0, "no .bss in the BPF object");
	if (id > 0) {
		const struct btf_type *sec = btf__type_by_id(btf, id);
		const struct btf_var_secinfo *last = btf_var_secinfos(sec) + btf_vlen(sec) - 1;

		CHECK(!strcmp(btf__name_by_offset(btf, btf__type_by_id(btf, last->type)->name_off),
			      "cpu_pages"),
		      ".bss does not end with cpu_pages");
		CHECK(last->offset % SCLAT_CPU_PAGE_SIZE == 0, "cpu_pages is not page-aligned");
		CHECK(last->offset + last->size == sec->size &&
			      last->size == (__u64)SCLAT_CPUS_MAX * SCLAT_CPU_PAGE_SIZE,
		      "cpu_pages is not SCLAT_CPUS_MAX pages at the end of .bss");
	}
}

/* A threshold word holds every threshold up to 78 hours and its generation, losslessly. */
static void test_threshold_word(void)
{
	__u64 w = sclat_threshold_word(1500000, 0x1234);

	CHECK_EQ_U64(sclat_threshold_ns(w), 1500000);
	CHECK_EQ_U64(sclat_threshold_gen(w), 0x1234);
	w = sclat_threshold_word(SCLAT_THRESHOLD_MASK - 1, SCLAT_GEN_MASK);
	CHECK_EQ_U64(sclat_threshold_ns(w), SCLAT_THRESHOLD_MASK - 1);
	CHECK_EQ_U64(sclat_threshold_gen(w), SCLAT_GEN_MASK);
	/* "Never", and anything too long to be a threshold, read back as never. */
	CHECK_EQ_U64(sclat_threshold_ns(sclat_threshold_word(SCLAT_THRESHOLD_NEVER, 7)),
		     SCLAT_THRESHOLD_MASK);
	CHECK_EQ_U64(sclat_threshold_gen(sclat_threshold_word(SCLAT_THRESHOLD_NEVER, 7)), 7);
	/* A generation never spills into the threshold. */
	CHECK_EQ_U64(sclat_threshold_ns(sclat_threshold_word(5, 0x10000 + 3)), 5);
	CHECK_EQ_U64(sclat_threshold_gen(sclat_threshold_word(5, 0x10000 + 3)), 3);
}

/* A threshold word as a lane slot's below (and floor), and as its block_below. */
#define BELOW(word)	  sclat_lane_units(word, SCLAT_LANE_UNIT_SHIFT)
#define BLOCK_BELOW(word) sclat_lane_units(word, SCLAT_LANE_BLOCK_SHIFT)

/*
 * A lane slot's below is the threshold in units of 16 ns, rounded down (a
 * call under it is under the threshold), and the cap from about 1 ms up: no
 * call of 2^32 ns or more (which a pending call cannot hold) is under it, and
 * a generation never shows in it. Under the short path's compare, a call one
 * unit under the threshold's is in, and one at the threshold is not.
 */
static void test_lane_below(void)
{
	__u64 cap = (__u64)SCLAT_LANE_UNIT_MAX << SCLAT_LANE_UNIT_SHIFT, ns = 150007;
	__u16 below = BELOW(sclat_threshold_word(ns, 0x1234));

	CHECK_EQ_U64(below, ns >> SCLAT_LANE_UNIT_SHIFT);
	CHECK((ns - (1U << SCLAT_LANE_UNIT_SHIFT)) >> SCLAT_LANE_UNIT_SHIFT < below,
	      "a call a unit under the threshold is not under below");
	CHECK(!(ns >> SCLAT_LANE_UNIT_SHIFT < below), "a call at the threshold is under below");
	CHECK_EQ_U64(BELOW(sclat_threshold_word(15, 9)), 0);
	CHECK_EQ_U64(BELOW(sclat_threshold_word(16, 9)), 1);
	CHECK_EQ_U64(BELOW(sclat_threshold_word(0, SCLAT_GEN_MASK)), 0);
	CHECK_EQ_U64(BELOW(sclat_threshold_word(cap - 1, 9)), SCLAT_LANE_UNIT_MAX - 1);
	CHECK_EQ_U64(BELOW(sclat_threshold_word(cap, 9)), SCLAT_LANE_UNIT_MAX);
	CHECK_EQ_U64(BELOW(sclat_threshold_word(1ULL << 32, 9)), SCLAT_LANE_UNIT_MAX);
	CHECK_EQ_U64(BELOW(sclat_threshold_word(SCLAT_THRESHOLD_NEVER, 9)), SCLAT_LANE_UNIT_MAX);
}
_Static_assert(!((1ULL << 32) >> SCLAT_LANE_UNIT_SHIFT < SCLAT_LANE_UNIT_MAX),
	       "a call of 2^32 ns is under the lane's cap");

/*
 * A lane's block_below: the threshold in steps of 1024 ns, rounded down (a
 * block that long is one that may make the call slow), up to about 67 ms,
 * which the blocking syscalls' thresholds (10 ms as they start) are under;
 * the cap from there, and for the thresholds that are never crossed.
 */
static void test_lane_block_below(void)
{
	__u64 cap = (__u64)SCLAT_LANE_UNIT_MAX << SCLAT_LANE_BLOCK_SHIFT;

	CHECK_EQ_U64(BLOCK_BELOW(sclat_threshold_word(10000000, 7)),
		     10000000 >> SCLAT_LANE_BLOCK_SHIFT);
	CHECK((__u64)BLOCK_BELOW(sclat_threshold_word(10000000, 7)) << SCLAT_LANE_BLOCK_SHIFT >
		      10000000 - 1024,
	      "block_below is more than a step under the threshold");
	CHECK_EQ_U64(BLOCK_BELOW(sclat_threshold_word(1023, 7)), 0);
	CHECK_EQ_U64(BLOCK_BELOW(sclat_threshold_word(cap - 1, 7)), SCLAT_LANE_UNIT_MAX - 1);
	CHECK_EQ_U64(BLOCK_BELOW(sclat_threshold_word(cap, 7)), SCLAT_LANE_UNIT_MAX);
	CHECK_EQ_U64(BLOCK_BELOW(sclat_threshold_word(SCLAT_THRESHOLD_NEVER, 7)),
		     SCLAT_LANE_UNIT_MAX);
}

/* A route's key gives back its slot and class id, at the bounds too, and is never 0. */
static void test_cell_key(void)
{
	__u32 k = sclat_cell_key(SCLAT_HIST_SLOTS - 1, SCLAT_CLASS_IDS - 1, SCLAT_FD_KINDS - 1);

	CHECK_EQ_U64(sclat_cell_key_slot(k), SCLAT_HIST_SLOTS - 1);
	CHECK_EQ_U64(sclat_cell_key_class_id(k), SCLAT_CLASS_IDS - 1);
	k = sclat_cell_key(1, 0, 0);
	CHECK(k != 0, "slot 1's key is 0");
	CHECK_EQ_U64(sclat_cell_key_slot(k), 1);
	CHECK_EQ_U64(sclat_cell_key_class_id(k), 0);
	CHECK_EQ_U64(sclat_cell_key_class_id(sclat_cell_key(3, 42, 5)), 42);
}

/* A pending call gives back its latency, histogram and weight, at their bounds too. */
static void test_pend(void)
{
	__u64 pend = sclat_pend(0xffffffffU, 0xffff);

	CHECK_EQ_U64(sclat_pend_ns(pend), 0xffffffffU);
	CHECK_EQ_U64(sclat_pend_hist(pend), 0xffff);
	CHECK_EQ_U64(sclat_pend_weight(pend), 1);
	pend |= sclat_pend_weight_bits(SCLAT_SAMPLE_MAX);
	CHECK_EQ_U64(sclat_pend_ns(pend), 0xffffffffU);
	CHECK_EQ_U64(sclat_pend_hist(pend), 0xffff);
	CHECK_EQ_U64(sclat_pend_weight(pend), SCLAT_SAMPLE_MAX);
	pend = sclat_pend(1234, SCLAT_HIST_SLOTS + 7) | sclat_pend_weight_bits(16);
	CHECK_EQ_U64(sclat_pend_ns(pend), 1234);
	CHECK_EQ_U64(sclat_pend_hist(pend), SCLAT_HIST_SLOTS + 7);
	CHECK_EQ_U64(sclat_pend_weight(pend), 16);
}

/* Thresholds are written with one 64-bit store: they must be naturally aligned. */
static void test_threshold_alignment(void)
{
	CHECK(offsetof(struct sclat_shared, ctl) % 8 == 0, "ctl[] not 8-byte aligned");
	CHECK(offsetof(struct sclat_shared, cell_threshold) % 8 == 0,
	      "cell_threshold[] not 8-byte aligned");
	CHECK(offsetof(struct sclat_shared, young_threshold) % 8 == 0,
	      "young_threshold[] not 8-byte aligned");
	CHECK(sizeof(struct sclat_syscall_ctl) % 8 == 0, "ctl[] stride not a multiple of 8");
	CHECK(sizeof(struct sclat_hist) % 8 == 0, "per-CPU value size not a multiple of 8");
}

int main(void)
{
	btf = bpf_object_btf();
	RUN(test_btf_present);
	if (btf) {
		RUN(test_event_layout);
		RUN(test_part_layout);
		RUN(test_shared_layout);
		RUN(test_class_layout);
		RUN(test_hist_layout);
	}
	RUN(test_threshold_alignment);
	RUN(test_part_alignment);
	RUN(test_threshold_word);
	RUN(test_lane_below);
	RUN(test_lane_block_below);
	RUN(test_cell_key);
	RUN(test_pend);
	btf__free(btf);
	return unit_done();
}
