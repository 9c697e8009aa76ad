/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The output of `sclat watch`: one line per outlier (text columns or JSON),
 * one per snapshot an outlier caused, and a summary.
 */
#ifndef SCLAT_WATCH_PRINTER_H
#define SCLAT_WATCH_PRINTER_H

#include <stdbool.h>
#include "sink.h"

struct watch_printer {
	bool json;    /* one JSON object per line */
	bool summary; /* per-syscall counts at the end */
	bool header_done;
};

/* The sink that prints to stdout as w says. */
void watch_printer_sink(struct watch_printer *w, struct sink *s);

#endif
