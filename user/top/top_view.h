/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What `sclat top` shows of two frames in a row: each row's calls, outliers
 * and time lost per second between them (the first frame: the last
 * interval's calls and the averages since the tracer started), in the order
 * of the sort column, each syscall's classes under it.
 */
#ifndef SCLAT_TOP_VIEW_H
#define SCLAT_TOP_VIEW_H

#include <stdbool.h>
#include "control/top_frame.h"

/* The columns of the table, left to right; the sort keys move along them. */
enum top_column {
	TOP_COL_NAME,
	TOP_COL_CALLS,
	TOP_COL_P50,
	TOP_COL_P99,
	TOP_COL_THRESHOLD,
	TOP_COL_OUTLIERS,
	TOP_COL_LOST,
	TOP_COLUMNS,
};

/* One row shown: the frame's row, and its rates. */
struct top_view_row {
	const struct top_row *row;
	double calls_s, outliers_s;
	double lost_s; /* ns lost per s; < 0: not summed */
};

struct top_view {
	enum top_column sort;
	bool reverse;		      /* smallest (or, by name, last) first */
	struct top_frame *cur, *prev; /* prev NULL: the first frame */
	bool since_start;	      /* the rates are the first frame's (averages) */
	unsigned int nr_rows;
	struct top_view_row rows[TOP_FRAME_ROWS];
};

/* The name of column c in the table's head ("P99"), and its key (the letter of `sclat top`). */
const char *top_column_name(enum top_column c);

/*
 * The sort column key asks for: C, P, O, T, N (calls/s, p99, outliers/s,
 * time lost, name), < and > (the column left or right): true when it is one
 * of them, R (reverse) too.
 */
bool top_view_key(struct top_view *v, int key);

/*
 * v's rows from v->cur, rated against v->prev (NULL, or another tracer's:
 * the first frame), then sorted. The rows with no calls are left out.
 */
void top_view_update(struct top_view *v);

#endif
