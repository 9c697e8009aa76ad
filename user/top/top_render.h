/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The text of one screen of `sclat top`, line by line, for the full screen
 * and for --batch alike: the tracer's line, the keys, the table, the calls in
 * flight and the latest outliers (as `sclat watch` prints them).
 */
#ifndef SCLAT_TOP_RENDER_H
#define SCLAT_TOP_RENDER_H

#include "top_view.h"

enum top_style {
	TOP_STYLE_TEXT,
	TOP_STYLE_TITLE, /* the tracer's line */
	TOP_STYLE_HEAD,	 /* a table's head */
};

/*
 * One line (no newline), its style, and the columns [mark, mark + mark_len)
 * of the sort column in the table's head (mark_len 0: none).
 */
typedef void (*top_emit_fn)(void *ctx, enum top_style style, const char *text, int mark,
			    int mark_len);

/*
 * The lines of view v refreshed every delay_ms: all of them with height 0
 * (--batch), else at most height, the table cut to leave the panes room.
 */
void top_render(const struct top_view *v, int delay_ms, int height, top_emit_fn emit, void *ctx);

#endif
