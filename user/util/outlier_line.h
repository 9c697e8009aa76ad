/* SPDX-License-Identifier: GPL-2.0-only */
/* One outlier as `sclat watch` prints it: a line of text columns or a JSON object. */
#ifndef SCLAT_OUTLIER_LINE_H
#define SCLAT_OUTLIER_LINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define OUTLIER_LINE_NR_ARGS 6

/* What a line shows; the tracer fills it from its ring buffer, a reader from a trace. */
struct outlier_line {
	const char *host;  /* NULL: no host column or key (the tracer's own outliers) */
	uint64_t entry_ns; /* CLOCK_MONOTONIC */
	int64_t entry_epoch_ns;
	const char *syscall;
	unsigned int nr;
	const char *comm;
	size_t comm_len; /* comm need not be NUL-terminated within it */
	int32_t pid, tid;
	uint32_t cpu;
	uint64_t latency_ns, threshold_ns;
	int64_t ret;
	uint64_t args[OUTLIER_LINE_NR_ARGS];
	uint64_t estimate_ns, samples;
};

/* The text columns' head: TIME COMM PID TID SYSCALL LATENCY RET THRESHOLD (HOST first). */
void outlier_line_header(FILE *f, bool host);

/* One line of text columns (time of day local), or one JSON object, and a newline. */
void outlier_line_text(FILE *f, const struct outlier_line *o);
void outlier_line_json(FILE *f, const struct outlier_line *o);

#endif
