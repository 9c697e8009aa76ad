/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The brakes in shared memory (shm/sclat_abi.h, struct sclat_brake): how many
 * outliers each histogram may emit until the next interval.
 */
#ifndef SCLAT_PROBES_BRAKE_H
#define SCLAT_PROBES_BRAKE_H

#include <stdbool.h>
#include "sclat_abi.h"

struct probes;

/*
 * Calls SCLAT_BRAKE_FAR times past their own threshold may take this many
 * times the allowance plus PROBES_BRAKE_FAR_EXTRA: rare stalls are let
 * through where a shift of the normal, near the threshold, is braked. 32:
 * stalls at 16x the rate's expectation all pass. The extra: near and far
 * outliers count alike, and a quiet syscall's allowance is 1 (brake.h), so
 * 32 near ones braked in a shift would leave no room for a stall; with the
 * extra, 96, as when the allowance was 2 more than twice the expectation.
 */
#define PROBES_BRAKE_FAR_FACTOR 32
#define PROBES_BRAKE_FAR_EXTRA	2

/*
 * From now on, histogram index (a slot, or SCLAT_HIST_SLOTS + a cell) may
 * emit allowance more outliers ((allowance + PROBES_BRAKE_FAR_EXTRA) x
 * PROBES_BRAKE_FAR_FACTOR for far ones); the rest are braked. 0: no brake.
 */
void probes_brake_arm(struct probes *t, unsigned int index, __u32 allowance);

/* Whether histogram index tells far calls apart (a rate's rule: struct sclat_brake). */
void probes_brake_apart(struct probes *t, unsigned int index, bool apart);

/*
 * Where a call of histogram index that waited for storage is a stall, when
 * under its threshold (struct sclat_brake's io_ns); 0: judged as any call.
 * Past 2^32 - 1 ns, none.
 */
void probes_brake_io(struct probes *t, unsigned int index, __u64 io_ns);

/* The outliers of histogram index that reached its brake, since load (wraps at 2^32). */
__u32 probes_brake_crossed(const struct probes *t, unsigned int index);

#endif
