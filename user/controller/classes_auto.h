/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * classes = auto: a syscall's calls split by process and kind of file only
 * where their normals differ. The BPF side keys the cells as under
 * process,fd; each interval, after the engine's step, the controller sees
 * each such syscall as a tree (the syscall, its processes, their cells) and
 * gives a process or a cell a threshold of its own only when it is a
 * population of its own: min_samples calls, a real share of its parent's
 * calls, and a median far from its parent's. Every other cell is judged by
 * its nearest split ancestor's threshold, learnt from that ancestor's calls
 * but those of its split children (their mixture by call rates). A rare kind
 * of call (one in 5000 pipe reads that stall) is then its process's tail,
 * caught, while a process whose every read waits 3 ms learns its own normal.
 */
#ifndef SCLAT_CLASSES_AUTO_H
#define SCLAT_CLASSES_AUTO_H

#include <stdbool.h>
#include <stddef.h>
#include "sclat_abi.h"
#include "policy/policy.h"

struct classes;
struct engine_syscall;

/*
 * A child is a population of its own from this share of its parent's calls
 * on: rarer, its calls are its parent's tail (at the default quantile 0.999
 * a share under 1 - q never moves the parent's threshold onto them), and
 * they are judged by the parent's threshold. Measured on mixed-procs: A's
 * stalled pipe reads are 1 in 5000 of A's reads (0.02 %), B's reads 0.8 %
 * of all reads.
 */
#define CLASSES_AUTO_SHARE 0.001

/* And with a median this many times its parent's, either way. */
#define CLASSES_AUTO_FACTOR 2.0

/*
 * A split child merges back only below half the share, or with a median
 * within this factor of its parent's: no flapping on a boundary.
 */
#define CLASSES_AUTO_MERGE_FACTOR 1.5

/* The weight of the last interval in a cell's rate of calls (the shares). */
#define CLASSES_AUTO_RATE_WEIGHT 0.3

/*
 * Whether a child splits from its parent (was_split: it had): window and
 * samples of each (their medians compared), the child's share of its
 * parent's calls, and the rule's min_samples.
 */
bool classes_auto_splits(const double *child, double child_samples, const double *parent,
			 double parent_samples, double share, __u64 min_samples, bool was_split);

/* Whether syscall nr is under classes = auto in p. */
bool classes_auto_on(const struct policy *p, unsigned int nr);

/*
 * After the engine's step: the cells of the syscalls under auto take the
 * thresholds of the tree (their own, or their nearest split ancestor's,
 * raised to p's min_latency), changed set where the one in force moved.
 */
void classes_auto_step(struct classes *cs, const struct policy *p);

void classes_auto_free(struct classes *cs);

/*
 * The entry whose window and basis cell's threshold in force comes from, and
 * whose calls its brake allows for: its ancestor's for a cell merged into
 * one, else the cell's own.
 */
const struct engine_syscall *classes_auto_entry(const struct classes *cs, unsigned int cell);

/* How a cell is judged under auto, for the status. */
enum classes_auto_state {
	CLASSES_AUTO_NONE,   /* its syscall is not under auto */
	CLASSES_AUTO_SPLIT,  /* a threshold of its own */
	CLASSES_AUTO_MERGED, /* its ancestor's, named by classes_auto_judge() */
};

/*
 * The state of cell under auto, and in by the name of the class whose
 * threshold judges a merged one ("" for its syscall's).
 */
enum classes_auto_state classes_auto_judge(const struct classes *cs, unsigned int cell, char *by,
					   size_t len);

#endif
