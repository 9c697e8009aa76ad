/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The run-time knobs in shared memory that the controller moves: each
 * syscall's threshold word, slot and classes, each cell's threshold, the
 * burst guard, sampling, and the floors they make on the CPUs' lanes.
 */
#ifndef SCLAT_PROBES_KNOBS_H
#define SCLAT_PROBES_KNOBS_H

#include "sclat_abi.h"

struct probes;

/* The threshold word of syscall nr as the programs read it now. */
__u64 probes_threshold_word(const struct probes *t, unsigned int nr);
/* Publish sclat_threshold_word(ns, gen) for syscall nr: one 64-bit store. */
void probes_threshold_set(struct probes *t, unsigned int nr, __u64 word);
/* The histogram slot of syscall nr: SCLAT_SLOT_NONE, 1..SLOTS-1 or SCLAT_SLOT_SHARED. */
unsigned int probes_slot(const struct probes *t, unsigned int nr);
void probes_guard_set(struct probes *t, __u64 window_ns, __u32 burst);
/* The machine's budget (struct sclat_knobs): its pace and how far ahead of it; gap 0: none. */
void probes_budget_set(struct probes *t, __u64 gap_ns, __u64 ahead_ns);
/* What sys_exit judges a latency on (enum sclat_judge in shm/sclat_abi.h). */
void probes_judge_set(struct probes *t, __u32 judge);

/* Classes (shm/sclat_abi.h): what nr's calls are split by (SCLAT_CLASSES_*), 0: nothing. */
void probes_classes_set(struct probes *t, unsigned int nr, __u32 classes);
/* The threshold word of a cell: one 64-bit store. */
void probes_cell_threshold_set(struct probes *t, unsigned int cell, __u64 word);
/*
 * The threshold word of syscall nr's calls in a class not answered yet
 * (struct sclat_shared's young_threshold): one 64-bit store; 0: its own.
 */
void probes_young_threshold_set(struct probes *t, unsigned int nr, __u64 word);
/*
 * Calls under their slot's floor (shm/sclat_abi.h: SCLAT_LANE_UNIT_SHIFT) are
 * outliers in nothing: each is counted in the lanes' calls, and 1 in n of
 * them goes into the histograms (classed, for a syscall with classes), with
 * weight n (policy key sample; 1: every call).
 */
void probes_sample_set(struct probes *t, __u32 n);
/*
 * Calls of syscall nr (with no classes) under ns are the body of its
 * latencies, and need not be counted one by one: its floor goes no higher,
 * nor higher than its threshold. 0: no body known yet, and no floor: every
 * call goes into its histogram (so too a body of a floor's most, about 1 ms,
 * or more: a syscall that slow is not busy enough to sample). Nothing for a
 * syscall without a slot of its own.
 */
void probes_body_set(struct probes *t, unsigned int nr, __u64 ns);
/* The floor of syscall nr's slot in ns (the first CPU's lane's: all are kept the same); 0: none. */
__u64 probes_floor_ns(const struct probes *t, unsigned int nr);
/*
 * The lanes' floors raised to what the thresholds now allow, once a pass of
 * threshold and route changes is done (each lowered its floor already).
 */
void probes_floors_refresh(struct probes *t);

#endif
