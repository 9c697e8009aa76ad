/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The brakes in shared memory (shm/sclat_abi.h, struct sclat_brake): how many
 * outliers each histogram may emit until the next interval.
 */
#ifndef SCLAT_PROBES_BRAKE_H
#define SCLAT_PROBES_BRAKE_H

#include "sclat_abi.h"

struct probes;

/*
 * From now on, histogram index (a slot, or SCLAT_HIST_SLOTS + a cell) may
 * emit allowance more outliers; the rest are braked. 0: no brake.
 */
void probes_brake_arm(struct probes *t, unsigned int index, __u32 allowance);

/* The outliers of histogram index that reached its brake, since load (wraps at 2^32). */
__u32 probes_brake_crossed(const struct probes *t, unsigned int index);

#endif
