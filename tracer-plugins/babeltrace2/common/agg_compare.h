/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The hosts compared, per syscall: the spread of their thresholds, p99s and
 * outlier rates, and the hosts that stand out against the median host.
 */
#ifndef SCLAT_BT2_AGG_COMPARE_H
#define SCLAT_BT2_AGG_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include "agg_hosts.h"
#include "outlier.h"

struct agg;

/* The measures hosts are compared on, per syscall. */
enum agg_metric {
	AGG_METRIC_THRESHOLD, /* ns */
	AGG_METRIC_P99,	      /* ns */
	AGG_METRIC_RATE,      /* outliers per second of the host's trace */
	AGG_NR_METRICS,
};

/*
 * A host stands out when one of its measures is at least this many times the
 * median host's (the lower median with an even count, so that of two hosts
 * the slower one stands out against the other).
 */
#define AGG_STAND_OUT_FACTOR 4.0

struct agg_compare_host {
	const struct agg_host *host;
	const struct agg_host_syscall *sc;
	double value[AGG_NR_METRICS];
	double ratio[AGG_NR_METRICS]; /* value / median, 0 when the median is 0 */
	bool stands_out[AGG_NR_METRICS];
};

struct agg_spread {
	double min, median, max;
};

/* One syscall seen on two hosts or more. */
struct agg_compare {
	char syscall[OUTLIER_NAME_LEN];
	struct agg_spread spread[AGG_NR_METRICS];
	struct agg_compare_host *hosts; /* slowest p99 first */
	size_t nr_hosts;
	unsigned int nr_stand_out; /* hosts that stand out on any measure */
};

const char *agg_metric_name(enum agg_metric m);

/* For agg_finish(): every syscall two hosts or more have stats of, stand-outs first. */
void agg_compare_hosts(struct agg *a);

#endif
