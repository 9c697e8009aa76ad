/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A running tracer's metrics in the Prometheus text exposition format
 * (version 0.0.4): a pure function of a snapshot, so that the page is
 * unit-tested without HTTP (outputs/metrics_server.c serves it).
 */
#ifndef SCLAT_METRICS_RENDER_H
#define SCLAT_METRICS_RENDER_H

#include <stddef.h>
#include <stdio.h>
#include "controller/controller.h"
#include "controller/metrics_view.h"

/* What one page shows, read by the server from the controller and the run. */
struct metrics_snapshot {
	const struct controller_status *st; /* its calls in flight: the run's table */
	const struct latency_series *series;
	size_t nr_series;
	struct metrics_budget budget;
	__u64 controller_cpu_ns;
	__u64 process_cpu_ns; /* sclat's whole process, all its threads */
	const char *version;
	unsigned int abi;
};

/* The page; 0, or -errno when f failed. */
int metrics_render(const struct metrics_snapshot *s, FILE *f);

/*
 * v as a label value between double quotes: backslash, double quote and
 * newline escaped as the format says; a control character or a byte that is
 * not UTF-8 (names come from traced processes) written as the text \xHH.
 */
void metrics_label_value(FILE *f, const char *v, size_t max);

#endif
