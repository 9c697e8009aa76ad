/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The output of `sclat watch`: one line per outlier (text columns or JSON),
 * one per snapshot an outlier caused, and a summary.
 */
#ifndef SCLAT_WATCH_PRINTER_H
#define SCLAT_WATCH_PRINTER_H

#include <stdbool.h>
#include "output.h"

struct watch_printer {
	bool json;    /* one JSON object per line */
	bool summary; /* per-syscall counts at the end */
	/* --snapshot-session: fire sclat:syscall_outlier too, for the trigger to match */
	bool fire_outlier_event;
	bool header_done;
};

/* The output that prints to stdout as w says. */
void watch_printer_output(struct watch_printer *w, struct output *out);

#endif
