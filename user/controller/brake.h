/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The kernel brake's allowances (shm/sclat_abi.h, struct sclat_brake): each
 * interval, each adaptive syscall and class cell may emit a small multiple of
 * the outliers its threshold should let through over the last interval's
 * calls; past it, its outliers are counted as braked. A shift of the normal,
 * or a new class judged by a threshold below its body, then costs a few
 * outliers, not an interval's worth of its calls, before the engine learns.
 */
#ifndef SCLAT_BRAKE_H
#define SCLAT_BRAKE_H

#include <stdbool.h>
#include "sclat_abi.h"
#include "policy/policy.h"

struct classes;
struct engine;
struct engine_syscall;
struct probes;

/*
 * The allowance: BRAKE_FACTOR times the expected outliers, rounded up. Twice
 * the expectation: a threshold in force lets through 1x to 1.5x of it (the
 * engine's hysteresis), and a one-second reading that straddles two
 * intervals, after a shift that halved the calls, sees at most 2 x 2 x 2 =
 * 8x its own (scripts/adaptive-eval (g) asks <= 10x). The expectation of a
 * quiet syscall or a young class is a fraction of a call, and its next one
 * may still be slow: under a rate, whose brake lets calls far past the
 * threshold through apart (SCLAT_BRAKE_FAR: stalls stay outliers), at least
 * BRAKE_MIN; at 1e-5, a read making 28,000 calls a second expects 0.28
 * outliers, and with 2 more, a 3x step of its body emitted 4 in the second
 * after it (14x), where one an interval is two at most. Under a quantile,
 * whose brake cannot tell stalls from a shift, BRAKE_QUANTILE_MORE more: a
 * quiet class's stalls that come two in an interval all pass.
 */
#define BRAKE_FACTOR	    2.0
#define BRAKE_MIN	    1
#define BRAKE_QUANTILE_MORE 2

/*
 * The allowance of entry s under rule r over calls calls, 0 (no brake) unless
 * its threshold is learnt (armed: its own, or, for a young class, its
 * syscall's).
 */
__u32 brake_allowance(const struct engine_syscall *s, const struct policy_rule *r, bool armed,
		      double calls);

/* The allowance of a cell of syscall nr, just opened (no calls of its own yet). */
__u32 brake_cell_allowance(const struct engine *e, const struct policy *p, unsigned int nr);

/*
 * Arm every brake for the next interval, from the engine after a step: each
 * syscall with a slot of its own (of a syscall with classes, for the calls of
 * no class: refused, or not answered yet) and each cell in use.
 */
void brakes_arm(struct probes *t, const struct engine *e, const struct classes *cs,
		const struct policy *p);

#endif
