/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the programs counted, read: the per-CPU histograms of the slots and
 * the cells (with the calls still pending on the CPUs' lanes), the lanes'
 * calls, and the counters of what explaining and scoping left out. The
 * controller (user/controller/) is the only reader of the histograms.
 */
#ifndef SCLAT_PROBES_HISTS_H
#define SCLAT_PROBES_HISTS_H

#include <stdbool.h>
#include "sclat_abi.h"

struct probes;

/*
 * Put the syscalls that got a slot since the last call (or the last
 * probes_hists_read) on every CPU's short path; one load when none did. A
 * syscall first seen pays the long path until then: call it often. Whether
 * a slot was handed out since.
 */
bool probes_lanes_refresh(struct probes *t);

/*
 * Read the histograms of the slots handed out so far (index 0, the shared
 * one, included) on every CPU with one batch lookup: buf[slot * ncpus + cpu],
 * room for SCLAT_HIST_SLOTS * ncpus entries. all: every slot, handed out or
 * not (the baseline at start). Each entry's calls are the CPU's lane's
 * calls of the slot. Returns how many slots it read (a syscall's
 * slot at or past that was handed out since: not read), or a negative errno.
 */
int probes_hists_read(struct probes *t, struct sclat_hist *buf, bool all);

/*
 * The histograms of cells 1 .. n - 1 on every CPU: buf[(cell - 1) * ncpus + cpu].
 * Returns n - 1 or a negative errno.
 */
int probes_cells_read(struct probes *t, struct sclat_hist *buf, unsigned int n);
/* Cell cell's histogram on every CPU: buf[cpu]. 0 or a negative errno. */
int probes_cell_read(struct probes *t, unsigned int cell, struct sclat_hist *buf);

/*
 * Since load: kernel stacks taken when a call came back from a block, and
 * left out because the burst guard of its CPU was spent; wakers lost (their
 * note overwritten before it was read).
 */
void probes_kstacks(const struct probes *t, __u64 *taken, __u64 *skipped, __u64 *wakers_lost,
		    __u64 *backs_unseen);
/*
 * Since load: new processes of a process in scope (-p, a command) that the
 * scope's table, full (PROBES_SCOPE_PIDS_MAX), could not take: not measured.
 */
__u64 probes_children_not_followed(const struct probes *t);

#endif
