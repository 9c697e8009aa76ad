/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The outliers' stacks in the folded format of flame graph tools: one line
 * per stack, "comm;frame;...;frame", outermost first, weighted by the sum of
 * the latencies of the outliers that had it.
 */
#ifndef SCLAT_BT2_AGG_FOLDED_H
#define SCLAT_BT2_AGG_FOLDED_H

#include <stddef.h>
#include <stdint.h>
#include "outlier.h"

struct agg;

/* One line of --folded: the stacks of outliers and the sum of their latencies. */
struct agg_folded {
	const char *line; /* comm;user frames;syscall;kernel frames, outermost first */
	uint64_t weight_ns;
};

/* Collect the matched outliers' stacks in the folded format (before the first agg_add()). */
void agg_fold(struct agg *a);

/*
 * The folded line of outlier o into buf (len bytes): comm, user frames,
 * syscall, kernel frames, outermost first, ';'-separated, offsets dropped
 * (a flame graph merges calls by function). 0, or -ENOSPC.
 */
int agg_folded_line(const struct outlier *o, char *buf, size_t len);

/* For agg_add() and agg_finish(): o's line weighed in (0 or -ENOMEM); the lines in order. */
int agg_folded_add(struct agg *a, const struct outlier *o);
void agg_folded_finish(struct agg *a);

#endif
