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
	bool reverse; /* smallest (or, by name, last) first */
	/*
	 * The frame shown, and the last one before it of an earlier interval
	 * of the tracer (NULL: none yet); frames[] holds them and the next.
	 */
	struct top_frame *cur, *prev;
	struct top_frame *frames[3];
	bool since_start; /* the rates are the first frame's (averages) */
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

/* A view sorted by time lost, with room for its frames; NULL when out of memory. */
struct top_view *top_view_new(void);
void top_view_free(struct top_view *v);

/* Where the next frame is to be fetched: neither the frame shown nor the one before. */
struct top_frame *top_view_next(struct top_view *v);

/*
 * Show frame f (top_view_next()'s, fetched): the frame before it moves on
 * only when f is of a later interval of the tracer, whose counts move once an
 * interval; a refresh within one shows the same rates and the latest outliers.
 */
void top_view_take(struct top_view *v, struct top_frame *f);

/* A view sorted by time lost, with room for its frames; NULL when out of memory. */
struct top_view *top_view_new(void);
void top_view_free(struct top_view *v);

/* Where the next frame is to be fetched: neither the frame shown nor the one before. */
struct top_frame *top_view_next(struct top_view *v);

/*
 * Show frame f (top_view_next()'s, fetched): the frame before it moves on
 * only when f is of a later interval of the tracer, whose counts move once an
 * interval; a refresh within one shows the same rates and the latest outliers.
 */
void top_view_take(struct top_view *v, struct top_frame *f);

/*
 * v's rows from v->cur, rated against v->prev (NULL, or another tracer's:
 * the first frame), then sorted. The rows with neither calls nor outliers are left out.
 */
void top_view_update(struct top_view *v);

#endif
