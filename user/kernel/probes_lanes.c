// SPDX-License-Identifier: GPL-2.0-only
/*
 * The CPUs' lanes kept in step with shared memory and the maps: a syscall
 * put on its CPUs' short path with its threshold and classes, the floors
 * lowered, the lanes' cells dropped, checked and given their thresholds.
 */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "probes_lanes.h"

/* What the lanes' slot_classes say of syscall nr's classes: its fd argument too. */
static __u8 lane_classes_of(const struct probes *t, unsigned int nr, __u32 classes)
{
	const struct sclat_target_rule *rule = &t->skel->rodata->target_rules[nr];

	if (!(classes & SCLAT_CLASSES_FD))
		return classes;
	/* No fd argument: every call is of kind none, as fd_kind_of() says. */
	if (rule->kind != SCLAT_RULE_FD || rule->arg >= SCLAT_NR_ARGS)
		return classes & ~SCLAT_CLASSES_FD;
	return classes | rule->arg << SCLAT_LANE_FD_ARG_SHIFT;
}

/* Takes the lane's cells that match off its short path (key 0 first: never read half). */
void probes_lane_cells_drop(struct sclat_cpu_lane *lane, bool (*match)(__u32 key, __u32 arg),
			    __u32 arg)
{
	unsigned int i;
	__u32 key;

	for (i = 0; i < SCLAT_LANE_CELLS; i++) {
		key = __atomic_load_n(&lane->cell[i].key, __ATOMIC_RELAXED);
		if (key && match(key, arg))
			__atomic_store_n(&lane->cell[i].key, 0, __ATOMIC_RELEASE);
	}
}

static bool key_in_slot(__u32 key, __u32 slot)
{
	return sclat_cell_key_slot(key) == slot;
}

/* Each lane's cells of histogram hist get threshold word. */
void probes_lane_cells_threshold_set(struct probes *t, unsigned int hist, __u64 word)
{
	struct sclat_cpu_lane *lane;
	unsigned int i;
	int cpu;

	for (cpu = 0; cpu < t->ncpus; cpu++) {
		lane = lane_of(t, cpu);
		for (i = 0; i < SCLAT_LANE_CELLS; i++)
			if (__atomic_load_n(&lane->cell[i].key, __ATOMIC_RELAXED) &&
			    lane->cell[i].hist == hist)
				LANE_PUT(&lane->cell[i].threshold, word);
	}
}

/*
 * Before slot's syscall or one of its cells compares with threshold word:
 * every lane's floor of slot at or under it, so that a call under the floor
 * is under every threshold of the slot at any time. Raising a floor waits
 * for probes_floors_refresh(), after the thresholds.
 */
void probes_lanes_floor_lower(struct probes *t, unsigned int slot, __u64 word)
{
	__u16 floor = sclat_lane_units(word, SCLAT_LANE_UNIT_SHIFT);
	struct sclat_cpu_lane *lane;
	int cpu;

	t->floors_stale = true;
	if (!slot || slot >= SCLAT_HIST_SLOTS)
		return;
	for (cpu = 0; cpu < t->ncpus; cpu++) {
		lane = lane_of(t, cpu);
		if (__atomic_load_n(&lane->slot[slot].floor, __ATOMIC_RELAXED) > floor)
			__atomic_store_n(&lane->slot[slot].floor, floor, __ATOMIC_RELEASE);
	}
}

/*
 * Puts syscall nr on every CPU's short path (struct sclat_cpu_lane), with its
 * threshold and classes, when it has a slot of its own; else takes it off.
 * The threshold goes first: a CPU that finds the slot finds its threshold. A
 * change of classes takes the slot's cells off the lanes.
 */
void probes_lanes_sync(struct probes *t, unsigned int nr)
{
	unsigned int slot = __atomic_load_n(&t->shared->ctl[nr].slot, __ATOMIC_ACQUIRE);
	__u64 word = __atomic_load_n(&t->shared->ctl[nr].threshold, __ATOMIC_RELAXED);
	bool on = slot != SCLAT_SLOT_NONE && slot < SCLAT_HIST_SLOTS;
	__u32 classes = __atomic_load_n(&t->shared->ctl[nr].classes, __ATOMIC_RELAXED);
	struct sclat_cpu_lane *lane;
	__u8 lane_classes, slot_of;
	__u16 below, block_below;
	int cpu;

	if (!on) {
		for (cpu = 0; cpu < t->ncpus; cpu++)
			LANE_PUT(&lane_of(t, cpu)->slot_of[nr], 0);
		return;
	}
	t->slot_word[slot] = word;
	below = sclat_lane_units(word, SCLAT_LANE_UNIT_SHIFT);
	block_below = sclat_lane_units(word, SCLAT_LANE_BLOCK_SHIFT);
	lane_classes = lane_classes_of(t, nr, classes);
	slot_of = slot | (classes ? SCLAT_LANE_CLASSED : 0);
	for (cpu = 0; cpu < t->ncpus; cpu++) {
		lane = lane_of(t, cpu);
		LANE_PUT(&lane->slot[slot].below, below);
		LANE_PUT(&lane->block_below[slot], block_below);
		if (lane->slot_classes[slot] != lane_classes) {
			probes_lane_cells_drop(lane, key_in_slot, slot);
			__atomic_store_n(&lane->slot_classes[slot], lane_classes, __ATOMIC_RELEASE);
		}
		LANE_PUT(&lane->slot_of[nr], slot_of);
	}
	/* A refused class's calls count with the syscall's, at its threshold. */
	if (classes)
		probes_lane_cells_threshold_set(t, slot, word);
}

/*
 * Every lane's cells checked against what userspace routed, and their
 * thresholds against the words: a call that filled its lane as a route or a
 * threshold changed is put right within an interval.
 */
void probes_lane_cells_check(struct probes *t)
{
	int fd = bpf_map__fd(t->skel->maps.cell_routes);
	struct sclat_lane_cell *e;
	unsigned int i, cell;
	__u32 key, route;
	__u64 word;
	bool ok;
	int cpu;

	for (cpu = 0; cpu < t->ncpus; cpu++) {
		for (i = 0; i < SCLAT_LANE_CELLS; i++) {
			e = &lane_of(t, cpu)->cell[i];
			key = __atomic_load_n(&e->key, __ATOMIC_ACQUIRE);
			if (!key)
				continue;
			if (e->hist >= SCLAT_HIST_SLOTS) {
				cell = e->hist - SCLAT_HIST_SLOTS;
				ok = cell < t->class_cells && t->route_of_cell[cell] == key;
				word = ok ? __atomic_load_n(&t->shared->cell_threshold[cell],
							    __ATOMIC_RELAXED)
					  : 0;
			} else {
				ok = e->hist == sclat_cell_key_slot(key) &&
				     !bpf_map_lookup_elem(fd, &key, &route) &&
				     route == SCLAT_CELL_SHARED;
				word = ok ? t->slot_word[e->hist] : 0;
			}
			if (!ok)
				__atomic_store_n(&e->key, 0, __ATOMIC_RELEASE);
			else
				LANE_PUT(&e->threshold, word);
		}
	}
}

/* After a class id changed in the hash: the CPUs look up the ids they noted again. */
void probes_class_epoch_move(struct probes *t)
{
	int cpu;

	for (cpu = 0; cpu < t->ncpus; cpu++)
		__atomic_fetch_add(&lane_of(t, cpu)->class_epoch, 1, __ATOMIC_RELEASE);
}
