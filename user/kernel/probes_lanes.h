/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The CPUs' lanes (struct sclat_cpu_lane, each CPU's short path) kept in
 * step with what shared memory and the maps say: the modules of user/kernel/
 * that move a knob, a route or a class id call these; not for use outside.
 */
#ifndef SCLAT_PROBES_LANES_H
#define SCLAT_PROBES_LANES_H

#include <stdbool.h>
#include "probes_handle.h"

/*
 * v into a lane's field at ptr, for its CPU's programs to read (release),
 * unless it is there already: the CPU's line is not taken from it for nothing.
 */
#define LANE_PUT(ptr, v)                                             \
	do {                                                         \
		__typeof__(*(ptr)) v_ = (v);                         \
		if (__atomic_load_n(ptr, __ATOMIC_RELAXED) != v_)    \
			__atomic_store_n(ptr, v_, __ATOMIC_RELEASE); \
	} while (0)

/*
 * Puts syscall nr on every CPU's short path, with its threshold and classes,
 * when it has a slot of its own; else takes it off.
 */
void probes_lanes_sync(struct probes *t, unsigned int nr);

/*
 * Before slot's syscall or one of its cells compares with threshold word:
 * every lane's floor of slot at or under it. Raising a floor waits for
 * probes_floors_refresh(), after the thresholds.
 */
void probes_lanes_floor_lower(struct probes *t, unsigned int slot, __u64 word);

/* Takes the lane's cells that match off its short path. */
void probes_lane_cells_drop(struct sclat_cpu_lane *lane, bool (*match)(__u32 key, __u32 arg),
			    __u32 arg);

/* Each lane's cells of histogram hist get threshold word. */
void probes_lane_cells_threshold_set(struct probes *t, unsigned int hist, __u64 word);

/* Every lane's cells checked against the routes, and their thresholds against the words. */
void probes_lane_cells_check(struct probes *t);

/* After a class id changed in the hash: the CPUs look up the ids they noted again. */
void probes_class_epoch_move(struct probes *t);

#endif
