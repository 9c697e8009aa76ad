/* SPDX-License-Identifier: GPL-2.0-only */
/* Which outliers a report counts: by syscall, comm, host, process, thread, latency and time. */
#ifndef SCLAT_BT2_AGG_FILTER_H
#define SCLAT_BT2_AGG_FILTER_H

#include <stdbool.h>
#include <stdint.h>
#include "outlier.h"

/* Outliers outside these are not counted; unset members filter nothing. */
struct agg_filter {
	const char *syscall;
	const char *comm;
	const char *host;
	int64_t pid; /* -1: any */
	int64_t tid; /* -1: any */
	uint64_t min_latency_ns;
	int64_t begin_ns; /* entry time since the epoch; INT64_MIN: no bound */
	int64_t end_ns;	  /* INT64_MAX: no bound */
};

void agg_filter_init(struct agg_filter *f);

/* Whether outlier o passes f (its host is the caller's to check). */
bool agg_filter_pass(const struct agg_filter *f, const struct outlier *o);

#endif
