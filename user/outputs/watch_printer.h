/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The output of `sclat watch`: one line per outlier (text columns or JSON),
 * one per snapshot an outlier caused, and a summary.
 */
#ifndef SCLAT_WATCH_PRINTER_H
#define SCLAT_WATCH_PRINTER_H

#include <stdbool.h>
#include <linux/types.h>
#include "sink.h"
#include "util/outlier_line.h"

struct watch_printer {
	bool json;    /* one JSON object per line */
	bool summary; /* per-syscall counts at the end */
	bool header_done;
	/*
	 * Only outliers at least this surprising (controller/surprise.h), when
	 * min_surprise_set: those whose surprise is not known are left out too.
	 * Calls in flight are shown all the same.
	 */
	bool min_surprise_set;
	double min_surprise;
	__u64 hidden; /* outliers left out by min_surprise */
};

/*
 * The line of record e, explained by x into why and stack (stack_len:
 * EXPLAIN_WHY_TEXT_LEN), its syscall's name in name: what watch prints, and
 * what `sclat top` shows of the latest outliers.
 */
void watch_line_of(struct outlier_line *line, const struct sclat_event *e, __s64 entry_epoch_ns,
		   const struct explanation *x, struct outlier_why *why, char *stack,
		   size_t stack_len, char *name, size_t name_len);

/* The sink that prints to stdout as w says. */
void watch_printer_sink(struct watch_printer *w, struct sink *s);

#endif
