/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What every sclat analysis computes from the outliers: filtered per-group
 * latency statistics, the slowest outliers, latency histograms and the loss
 * accounting. Shared by sink.sclat.report and sclat-lami.
 */
#ifndef SCLAT_BT2_AGGREGATE_H
#define SCLAT_BT2_AGGREGATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "outlier.h"

enum agg_by {
	AGG_BY_SYSCALL,
	AGG_BY_PROCESS,
	AGG_BY_THREAD,
};

/* Outliers outside these are not counted; unset members filter nothing. */
struct agg_filter {
	const char *syscall;
	const char *comm;
	int64_t pid; /* -1: any */
	int64_t tid; /* -1: any */
	uint64_t min_latency_ns;
	int64_t begin_ns; /* entry time since the epoch; INT64_MIN: no bound */
	int64_t end_ns;	  /* INT64_MAX: no bound */
};

#define AGG_HIST_MAX_BINS 64

struct agg_hist_bin {
	uint64_t from_ns; /* [from_ns, to_ns) */
	uint64_t to_ns;
	uint64_t count;
};

/* One row: an outlier group and its statistics, valid after agg_finish(). */
struct agg_group {
	char syscall[OUTLIER_NAME_LEN]; /* AGG_BY_SYSCALL */
	char comm[OUTLIER_COMM_LEN];	/* by process or thread: the first comm seen */
	int32_t pid;
	int32_t tid; /* AGG_BY_THREAD */
	uint64_t count;
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

struct agg_loss {
	uint64_t drops;	      /* sclat:lost: ring buffer full in the kernel */
	uint64_t throttled;   /* sclat:lost: held back by the burst guard or budget */
	uint64_t total_drops; /* the largest running totals sclat:lost gave */
	uint64_t total_throttled;
	uint64_t discarded;	    /* discarded-events messages: LTTng's buffers were full */
	bool discarded_unknown;	    /* a discarded-events message without a count: more */
	uint64_t discarded_packets; /* packets missing from the trace (sequence gaps) */
};

/* The runs of sclat record in the trace, from sclat:session_begin and sclat:session_end. */
struct agg_runs {
	uint64_t begun;		 /* sclat:session_begin events */
	uint64_t ended;		 /* sclat:session_end events */
	uint32_t version;	 /* the lowest trace version they announce; 0: none */
	struct run_end totals;	 /* summed over the runs that ended */
	uint64_t stats_outliers; /* emitted by the kernel, summed over sclat:stats */
};

/* Whether the trace holds everything sclat wrote into it, or counts what it lacks. */
enum agg_completeness {
	AGG_COMPLETE,
	AGG_INCOMPLETE, /* events are missing that nothing counts: see the warnings */
	AGG_UNKNOWN,	/* version 1: written before sclat:session_end existed */
};

#define AGG_MAX_WARNINGS 4
#define AGG_WARNING_LEN	 320

struct agg {
	enum agg_by by;
	struct agg_filter filter;
	unsigned int top_n;
	uint64_t seen;			       /* outliers in the trace */
	uint64_t matched;		       /* outliers that passed the filter */
	int64_t first_epoch_ns, last_epoch_ns; /* entries of the matched outliers */
	int64_t last_exit_epoch_ns;	       /* the latest exit of a matched outlier */
	struct agg_loss loss;
	struct agg_runs runs;
	enum agg_completeness complete;			  /* after agg_finish() */
	char warnings[AGG_MAX_WARNINGS][AGG_WARNING_LEN]; /* why it is incomplete */
	unsigned int nr_warnings;
	struct agg_group *groups; /* sorted by count, then name, after agg_finish() */
	size_t nr_groups, cap_groups;
	struct outlier *top; /* slowest first after agg_finish() */
	unsigned int nr_top, cap_top;
	struct threshold_change *changes; /* in trace order */
	size_t nr_changes, cap_changes;
	struct snapshot_ref *snapshots; /* of the matched outliers, in trace order */
	size_t nr_snapshots, cap_snapshots;
	struct snapshot_count snapshot_count; /* summed over sclat:snapshot_totals */
	bool snapshot_counted;		      /* the trace has sclat:snapshot_totals */
};

void agg_filter_init(struct agg_filter *f);

/* Returns 0 or -ENOMEM. */
int agg_init(struct agg *a, enum agg_by by, const struct agg_filter *f, unsigned int top_n);
void agg_free(struct agg *a);

/* Count one outlier if it passes the filter; 0 or -ENOMEM. */
int agg_add(struct agg *a, const struct outlier *o);

/* A threshold change (kept when its syscall passes the syscall filter); 0 or -ENOMEM. */
int agg_add_change(struct agg *a, const struct threshold_change *t);

/* One sclat:lost. */
void agg_add_loss(struct agg *a, const struct lost_count *l);

/* One sclat:session_begin (its trace version), or one sclat:session_end. */
void agg_add_run_begin(struct agg *a, uint32_t version);
void agg_add_run_end(struct agg *a, const struct run_end *e);

/* A snapshot (kept when its outlier passes the filter); 0 or -ENOMEM. */
int agg_add_snapshot(struct agg *a, const struct snapshot_ref *s);

/* One sclat:snapshot_totals. */
void agg_add_snapshot_count(struct agg *a, const struct snapshot_count *c);

/* The snapshot the outlier o caused, or NULL. */
const struct snapshot_ref *agg_snapshot_of(const struct agg *a, const struct outlier *o);

/*
 * Statistics, histograms and orders, and whether the trace is complete;
 * call once, after the last agg_add().
 */
void agg_finish(struct agg *a);

/* Whether events were lost: counted, or missing from an incomplete trace. */
bool agg_loss_any(const struct agg *a);

const char *agg_by_name(enum agg_by by);
/* 0 and *by, or -1 for a name other than syscall, process or thread. */
int agg_by_parse(const char *s, enum agg_by *by);

/* The errno name of a negative return value ("EAGAIN"), or NULL. */
const char *agg_errno_name(int64_t ret);

#endif
