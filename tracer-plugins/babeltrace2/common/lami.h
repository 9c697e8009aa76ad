/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * LAMI 1.0, the protocol of Trace Compass's external analyses: the table
 * classes sclat-lami announces (--metadata) and the result tables that fill
 * them, from one aggregation. Shared by sink.sclat.report (format=lami) and
 * sclat-lami, so the two can never disagree about a column. Every cell is a
 * 1.0 data object ("number", not the older "int"; time ranges end in
 * timestamp objects), as lttng-analyses' reference producer writes them.
 */
#ifndef SCLAT_BT2_LAMI_H
#define SCLAT_BT2_LAMI_H

#include <stdint.h>
#include <stdio.h>
#include "aggregate.h"

#define LAMI_MI_VERSION "1.0"

void lami_metadata(FILE *f);

/*
 * The result tables over [begin_ns, end_ns] (INT64_MIN/INT64_MAX: the
 * outliers' own range), at most limit rows each.
 */
void lami_results(FILE *f, const struct agg *a, int64_t begin_ns, int64_t end_ns, uint64_t limit);

/* A LAMI error object. */
void lami_error(FILE *f, const char *message);

#endif
