/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The report of an aggregation, as text tables and histograms or as one JSON
 * object; its outliers' stacks in the folded format of flame graph tools.
 */
#ifndef SCLAT_BT2_RENDER_H
#define SCLAT_BT2_RENDER_H

#include <stdio.h>
#include "aggregate.h"

void render_text(FILE *f, const struct agg *a);
void render_json(FILE *f, const struct agg *a);
/* One line per stack: "comm;frame;...;frame WEIGHT", outermost first, weight in ns. */
void render_folded(FILE *f, const struct agg *a);

#endif
