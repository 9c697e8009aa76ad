/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The rows of a report: outliers grouped by a key made of parts
 * (util/group_key.h), each group with its latency statistics, histogram,
 * most frequent return value and where its explained latency went.
 */
#ifndef SCLAT_BT2_AGG_GROUPS_H
#define SCLAT_BT2_AGG_GROUPS_H

#include <stddef.h>
#include <stdint.h>
#include "outlier.h"

struct agg;

#define AGG_HIST_MAX_BINS 64

struct agg_hist_bin {
	uint64_t from_ns; /* [from_ns, to_ns) */
	uint64_t to_ns;
	uint64_t count;
};

/* Where the latency of explained outliers went (struct outlier_explanation). */
enum agg_time_part {
	AGG_ON_CPU,
	AGG_RUNQUEUE,
	AGG_SLEEP,
	AGG_IO_WAIT,
	AGG_NR_TIME_PARTS,
};

/* One row: an outlier group and its statistics, valid after agg_finish(). */
struct agg_group {
	/* The key: only the members of its parts are set. */
	char syscall[OUTLIER_NAME_LEN];
	char comm[OUTLIER_COMM_LEN]; /* process or thread: the first comm seen */
	int32_t pid;		     /* process or thread, else -1 */
	int32_t tid;		     /* thread, else -1 */
	const char *host;	     /* host, else NULL */
	const char *target; /* target: interned, or GROUP_NONE or GROUP_NOT_RECORDED; else NULL */
	const char *stack;  /* stack: the same */
	char class_name[OUTLIER_CLASS_LEN]; /* class: "" for the syscall's own threshold */
	char title[OUTLIER_CLASS_LEN];	    /* title: its process's, "" unknown */
	uint64_t count;
	uint64_t explained;		     /* outliers of a trace that explains them */
	uint64_t time_ns[AGG_NR_TIME_PARTS]; /* their latency, summed by where it went */
	uint64_t min_ns, p50_ns, p90_ns, p99_ns, max_ns, mean_ns;
	int64_t top_ret; /* the most frequent return value */
	uint64_t top_ret_count;
	struct agg_hist_bin hist[AGG_HIST_MAX_BINS];
	unsigned int nr_bins;
	/* private */
	uint64_t *lat;
	int64_t *ret;
	size_t cap;
};

/* A group's share of explained latency spent in part p, from 0 to 1; the parts add up to 1. */
static inline double agg_time_share(const struct agg_group *g, enum agg_time_part p)
{
	uint64_t sum = 0;
	unsigned int i;

	for (i = 0; i < AGG_NR_TIME_PARTS; i++)
		sum += g->time_ns[i];
	return sum ? (double)g->time_ns[p] / (double)sum : 0;
}

const char *agg_time_part_name(enum agg_time_part p);

/*
 * For agg_add(): the group of outlier o, its strings interned already (added
 * on first sight), or NULL when out of memory; then o counted in it, 0 or
 * -ENOMEM.
 */
struct agg_group *agg_group_of(struct agg *a, const struct outlier *o);
int agg_group_add(struct agg_group *g, const struct outlier *o);

/* For agg_finish(): each group's statistics and histogram, the groups by count, then key. */
void agg_groups_finish(struct agg *a);

#endif
