// SPDX-License-Identifier: GPL-2.0-only
/*
 * The run-time knobs in shared memory: each store goes with what the CPUs'
 * lanes must then hold, in the order that never lets a call through that a
 * threshold would have caught.
 */
#include "probes_knobs.h"
#include "probes_lanes.h"

__u64 probes_threshold_word(const struct probes *t, unsigned int nr)
{
	return nr < SCLAT_MAX_SYSCALLS
		       ? __atomic_load_n(&t->shared->ctl[nr].threshold, __ATOMIC_RELAXED)
		       : SCLAT_THRESHOLD_NEVER;
}

void probes_threshold_set(struct probes *t, unsigned int nr, __u64 word)
{
	if (nr >= SCLAT_MAX_SYSCALLS)
		return;
	probes_lanes_floor_lower(t, __atomic_load_n(&t->shared->ctl[nr].slot, __ATOMIC_ACQUIRE),
				 word);
	/* Release: whatever was published for this generation is visible before it. */
	__atomic_store_n(&t->shared->ctl[nr].threshold, word, __ATOMIC_RELEASE);
	probes_lanes_sync(t, nr);
}

unsigned int probes_slot(const struct probes *t, unsigned int nr)
{
	if (nr >= SCLAT_MAX_SYSCALLS)
		return SCLAT_SLOT_NONE;
	return __atomic_load_n(&t->shared->ctl[nr].slot, __ATOMIC_RELAXED);
}

void probes_guard_set(struct probes *t, __u64 window_ns, __u32 burst)
{
	/* The BPF side reads the window when burst is non-zero: window first. */
	__atomic_store_n(&t->shared->knobs.guard_window_ns, window_ns, __ATOMIC_RELAXED);
	__atomic_store_n(&t->shared->knobs.guard_burst, burst, __ATOMIC_RELEASE);
}

void probes_budget_set(struct probes *t, __u64 gap_ns, __u64 ahead_ns)
{
	/* The BPF side reads ahead when gap is non-zero: ahead first. */
	__atomic_store_n(&t->shared->knobs.budget_ahead_ns, ahead_ns, __ATOMIC_RELAXED);
	__atomic_store_n(&t->shared->knobs.budget_gap_ns, gap_ns, __ATOMIC_RELEASE);
}

void probes_judge_set(struct probes *t, __u32 judge)
{
	__atomic_store_n(&t->shared->knobs.judge, judge, __ATOMIC_RELAXED);
}

void probes_classes_set(struct probes *t, unsigned int nr, __u32 classes)
{
	if (nr >= SCLAT_MAX_SYSCALLS || t->shared->ctl[nr].classes == classes)
		return;
	t->floors_stale = true;
	__atomic_store_n(&t->shared->ctl[nr].classes, classes, __ATOMIC_RELEASE);
	probes_lanes_sync(t, nr);
}

void probes_cell_threshold_set(struct probes *t, unsigned int cell, __u64 word)
{
	if (cell >= SCLAT_CLASS_CELLS_MAX)
		return;
	/* A cell not routed yet lowers its slot's floor when it is (probes_cell_route). */
	probes_lanes_floor_lower(t,
				 cell < t->class_cells && t->route_of_cell[cell]
					 ? sclat_cell_key_slot(t->route_of_cell[cell])
					 : 0,
				 word);
	__atomic_store_n(&t->shared->cell_threshold[cell], word, __ATOMIC_RELEASE);
	/* Its very next call on the short path compares with it. */
	probes_lane_cells_threshold_set(t, SCLAT_HIST_SLOTS + cell, word);
}

void probes_young_threshold_set(struct probes *t, unsigned int nr, __u64 word)
{
	if (nr >= SCLAT_MAX_SYSCALLS)
		return;
	/* Never on the short path (hist_select), but its calls are under the slot's floor. */
	probes_lanes_floor_lower(t, __atomic_load_n(&t->shared->ctl[nr].slot, __ATOMIC_ACQUIRE),
				 word);
	__atomic_store_n(&t->shared->young_threshold[nr], word, __ATOMIC_RELEASE);
}

/*
 * The floor of slot, of a syscall without classes whose threshold word is
 * floor f: under its threshold and its body; 0 while its body is not known
 * (every call goes into its histogram: the window that learns its body, and
 * the first estimate of its threshold, are exact), and when sampling is off.
 */
static __u16 own_floor(const struct probes *t, unsigned int slot, __u16 f)
{
	if (t->sample <= 1 || t->body[slot] == SCLAT_LANE_UNIT_MAX)
		return 0;
	return t->body[slot] < f ? t->body[slot] : f;
}

void probes_floors_refresh(struct probes *t)
{
	__u16 floor[SCLAT_HIST_SLOTS] = { 0 };
	bool used[SCLAT_HIST_SLOTS] = { false };
	unsigned int nr, slot, cell;
	__u16 f;
	int cpu;

	if (!t->floors_stale)
		return;
	t->floors_stale = false;
	for (slot = 0; slot < SCLAT_HIST_SLOTS; slot++)
		floor[slot] = SCLAT_LANE_UNIT_MAX;
	for (nr = 0; nr < SCLAT_MAX_SYSCALLS; nr++) {
		slot = __atomic_load_n(&t->shared->ctl[nr].slot, __ATOMIC_ACQUIRE);
		if (!slot || slot >= SCLAT_HIST_SLOTS)
			continue;
		used[slot] = true;
		f = sclat_lane_units(
			__atomic_load_n(&t->shared->ctl[nr].threshold, __ATOMIC_RELAXED),
			SCLAT_LANE_UNIT_SHIFT);
		if (!__atomic_load_n(&t->shared->ctl[nr].classes, __ATOMIC_RELAXED))
			f = own_floor(t, slot, f);
		if (f < floor[slot])
			floor[slot] = f;
	}
	for (cell = 1; cell < t->class_cells; cell++) {
		if (!t->route_of_cell[cell])
			continue;
		slot = sclat_cell_key_slot(t->route_of_cell[cell]);
		f = sclat_lane_units(
			__atomic_load_n(&t->shared->cell_threshold[cell], __ATOMIC_RELAXED),
			SCLAT_LANE_UNIT_SHIFT);
		if (slot < SCLAT_HIST_SLOTS && f < floor[slot])
			floor[slot] = f;
	}
	/* Not sampled: every call of a slot nobody has, or sampling off. */
	for (slot = 0; slot < SCLAT_HIST_SLOTS; slot++)
		if (!used[slot] || t->sample <= 1)
			floor[slot] = 0;
	for (cpu = 0; cpu < t->ncpus; cpu++)
		for (slot = 1; slot < SCLAT_HIST_SLOTS; slot++)
			LANE_PUT(&lane_of(t, cpu)->slot[slot].floor, floor[slot]);
}

void probes_sample_set(struct probes *t, __u32 n)
{
	int cpu;

	if (n < 1)
		n = 1;
	if (n > SCLAT_SAMPLE_MAX)
		n = SCLAT_SAMPLE_MAX;
	if (n == t->sample)
		return;
	t->sample = n;
	t->floors_stale = true;
	/* Down to 1: the floors go first, so that no call is passed over from then on. */
	if (n == 1)
		probes_floors_refresh(t);
	for (cpu = 0; cpu < t->ncpus; cpu++)
		__atomic_store_n(&lane_of(t, cpu)->sample_n, n, __ATOMIC_RELEASE);
}

void probes_body_set(struct probes *t, unsigned int nr, __u64 ns)
{
	unsigned int slot = probes_slot(t, nr);
	/* Rounded up: the calls under it are the body's (its threshold's floor rounds down). */
	__u64 units = (ns + (1U << SCLAT_LANE_UNIT_SHIFT) - 1) >> SCLAT_LANE_UNIT_SHIFT;
	__u16 body = units && units < SCLAT_LANE_UNIT_MAX ? units : SCLAT_LANE_UNIT_MAX;

	if (slot == SCLAT_SLOT_NONE || slot >= SCLAT_HIST_SLOTS || t->body[slot] == body)
		return;
	t->body[slot] = body;
	t->floors_stale = true;
}

__u64 probes_floor_ns(const struct probes *t, unsigned int nr)
{
	unsigned int slot = probes_slot(t, nr);

	if (slot == SCLAT_SLOT_NONE || slot >= SCLAT_HIST_SLOTS)
		return 0;
	return (__u64)__atomic_load_n(&lane_of(t, 0)->slot[slot].floor, __ATOMIC_RELAXED)
	       << SCLAT_LANE_UNIT_SHIFT;
}
