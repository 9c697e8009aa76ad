/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What every sclat analysis computes from the outliers: filtered latency
 * statistics per group (a grouping key made of parts, util/group_key.h), the slowest outliers,
 * latency histograms, the loss accounting per host, and the hosts compared. Shared by
 * sink.sclat.report and sclat-lami.
 */
#ifndef SCLAT_BT2_AGGREGATE_H
#define SCLAT_BT2_AGGREGATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "util/group_key.h"
#include "util/heap.h"
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

/*
 * Strings interned for the aggregation's life (targets, stacks, folded
 * lines): one copy each, its address its identity, with a number summed
 * over its additions.
 */
struct agg_strings {
	struct agg_string {
		char *s;
		uint64_t value;
	} * slots;
	size_t size; /* a power of two, at least twice nr */
	size_t nr;
};

/* One line of --folded: the stacks of outliers and the sum of their latencies. */
struct agg_folded {
	const char *line; /* comm;user frames;syscall;kernel frames, outermost first */
	uint64_t weight_ns;
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

struct agg_loss {
	uint64_t drops;	      /* sclat:lost: ring buffer full in the kernel */
	uint64_t throttled;   /* sclat:lost: held back by the burst guard or budget */
	uint64_t total_drops; /* the largest running totals sclat:lost gave */
	uint64_t total_throttled;
	uint64_t discarded;	    /* discarded-events messages: LTTng's buffers were full */
	bool discarded_unknown;	    /* a discarded-events message without a count: more */
	uint64_t discarded_packets; /* packets missing from the trace (sequence gaps) */
};

/* The runs of sclat record in a trace, from sclat:session_begin and sclat:session_end. */
struct agg_runs {
	uint64_t begun;		 /* sclat:session_begin events */
	uint64_t ended;		 /* sclat:session_end events */
	uint32_t version;	 /* the lowest trace version they announce; 0: none */
	struct run_end totals;	 /* summed over the runs that ended */
	uint64_t stats_outliers; /* emitted by the kernel, summed over sclat:stats */
};

/* Whether the traces hold everything sclat wrote into them, or count what they lack. */
enum agg_completeness {
	AGG_COMPLETE,
	AGG_INCOMPLETE, /* events are missing that nothing counts: see the warnings */
	AGG_UNKNOWN,	/* version 1: written before sclat:session_end existed */
};

#define AGG_MAX_WARNINGS 8
#define AGG_WARNING_LEN	 384

/* One syscall on one host, from its sclat:stats (the last interval's threshold and p99). */
struct agg_host_syscall {
	char syscall[OUTLIER_NAME_LEN];
	uint64_t calls, outliers; /* over every interval */
	uint64_t threshold_ns;	  /* the last interval's */
	uint64_t p99_ns;	  /* the last interval's, over the decayed window */
	bool learned;		  /* its last threshold_update had an estimate behind it */
	struct threshold_change last_learned; /* that update, when learned */
};

/* One host: what its traces hold. */
struct agg_host {
	char name[OUTLIER_HOST_LEN];
	uint64_t seen, matched; /* its outliers, and those that passed the filter */
	struct agg_loss loss;
	struct agg_runs runs;
	int64_t first_ns, last_ns; /* its first and last event, ns since the epoch */
	bool timed;		   /* first_ns and last_ns are set */
	struct agg_host_syscall *sc;
	size_t nr_sc, cap_sc;
	char *policy; /* its sclat:session_begin's policy (INI), when seen */
};

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

struct agg {
	struct group_key key;
	struct agg_filter filter;
	unsigned int top_n;
	uint64_t seen;					  /* outliers in the traces */
	uint64_t matched;				  /* outliers that passed the filter */
	int64_t first_epoch_ns, last_epoch_ns;		  /* entries of the matched outliers */
	int64_t last_exit_epoch_ns;			  /* the latest exit of a matched outlier */
	struct agg_loss loss;				  /* of every host that passed the filter */
	struct run_end ended;				  /* their sclat:session_end, summed */
	enum agg_completeness complete;			  /* of them all, after agg_finish() */
	char warnings[AGG_MAX_WARNINGS][AGG_WARNING_LEN]; /* why they are incomplete */
	unsigned int nr_warnings;
	struct agg_group *groups; /* sorted by count, then key, after agg_finish() */
	size_t nr_groups, cap_groups;
	uint32_t *group_index;	   /* hash of the groups' keys: 1 + group, 0 empty */
	size_t index_size;	   /* a power of two, at least twice nr_groups */
	struct heap slowest;	   /* of the top_n slowest outliers so far, the least slow on top */
	const struct outlier *top; /* slowest's, sorted slowest first, after agg_finish() */
	unsigned int nr_top;
	struct threshold_change *changes; /* in trace order */
	size_t nr_changes, cap_changes;
	struct snapshot_ref *snapshots; /* of the matched outliers, in trace order */
	size_t nr_snapshots, cap_snapshots;
	struct hung_call *hung; /* one per call: still in flight first, then longest, after
				 * agg_finish() */
	size_t nr_hung, cap_hung;
	struct snapshot_count snapshot_count; /* summed over sclat:snapshot_totals */
	bool snapshot_counted;		      /* the trace has sclat:snapshot_totals */
	struct agg_host **hosts; /* in order of appearance; sorted by name after agg_finish() */
	size_t nr_hosts, cap_hosts;
	struct agg_compare *compare; /* after agg_finish(): stand-outs first, then by name */
	size_t nr_compare;
	struct agg_strings strings;	 /* the matched outliers' targets and stacks */
	bool fold;			 /* collect folded stacks (agg_fold()) */
	struct agg_strings folded;	 /* folded line -> weight */
	struct agg_folded *folded_lines; /* after agg_finish(): by line */
	size_t nr_folded_lines;
};

void agg_filter_init(struct agg_filter *f);

/* Returns 0 or -ENOMEM. */
int agg_init(struct agg *a, const struct group_key *key, const struct agg_filter *f,
	     unsigned int top_n);
void agg_free(struct agg *a);

/*
 * The host named name (added on first sight) in *h, or NULL when the host
 * filter leaves it out. 0 or -ENOMEM.
 */
int agg_host_find(struct agg *a, const char *name, struct agg_host **h);

/* An event of host h at ns since the epoch: its trace's span. */
void agg_host_saw(struct agg_host *h, int64_t ns);

/* Count one outlier of host h (NULL: filtered out) if it passes the filter; 0 or -ENOMEM. */
int agg_add(struct agg *a, struct agg_host *h, const struct outlier *o);

/* Collect the matched outliers' stacks in the folded format (before the first agg_add()). */
void agg_fold(struct agg *a);

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
 * The folded line of outlier o into buf (len bytes): comm, user frames,
 * syscall, kernel frames, outermost first, ';'-separated, offsets dropped
 * (a flame graph merges calls by function). 0, or -ENOSPC.
 */
int agg_folded_line(const struct outlier *o, char *buf, size_t len);

/*
 * A threshold change: a syscall's own (kept when it passes the syscall filter)
 * or a class's (ignored: not its syscall's threshold); 0 or -ENOMEM.
 */
int agg_add_change(struct agg *a, struct agg_host *h, const struct threshold_change *t);

/* One sclat:stats of host h; 0 or -ENOMEM. */
int agg_add_stats(struct agg *a, struct agg_host *h, const struct syscall_stats *s);

/* A snapshot (kept when its outlier passes the filter); 0 or -ENOMEM. */
int agg_add_snapshot(struct agg *a, const struct snapshot_ref *s);

/*
 * A call reported in flight by host h (kept when it passes the filter): one
 * entry per call, its latest report; its outlier, added later, says how it
 * ended. 0 or -ENOMEM.
 */
int agg_add_hung(struct agg *a, struct agg_host *h, const struct hung_call *c);

/* One sclat:snapshot_totals. */
void agg_add_snapshot_count(struct agg *a, const struct snapshot_count *c);

/* The snapshot the outlier o caused, or NULL. */
const struct snapshot_ref *agg_snapshot_of(const struct agg *a, const struct outlier *o);

/* The policy host h's tracer began with (sclat:session_begin); 0 or -ENOMEM. */
int agg_host_set_policy(struct agg_host *h, const char *policy);

/* One sclat:lost of host h. */
void agg_add_loss(struct agg_host *h, const struct lost_count *l);

/* Events LTTng discarded on host h: count, or an unknown number when !known. */
void agg_add_discarded(struct agg_host *h, uint64_t count, bool known);

/* Packets missing from host h's trace (gaps in their sequence numbers). */
void agg_add_discarded_packets(struct agg_host *h, uint64_t count);

/* One sclat:session_begin of host h (its trace version), or one sclat:session_end. */
void agg_add_run_begin(struct agg_host *h, uint32_t version);
void agg_add_run_end(struct agg_host *h, const struct run_end *e);
/* sum += e, field by field. */
void agg_run_end_add(struct run_end *sum, const struct run_end *e);

/*
 * Statistics, histograms, losses and whether each trace is complete,
 * comparison and orders; once, after the last agg_add().
 */
void agg_finish(struct agg *a);

/* Whether events were lost: counted, or missing from an incomplete trace. */
bool agg_loss_any(const struct agg *a);

/*
 * Whether a->ended counts all that the runs could not do (kernel stacks
 * skipped, ... children not followed): every host's traces are of version 8
 * or later, whose sclat:session_end has them. Inline: sclat-lami's tables
 * (lami.c) link without the aggregation.
 */
static inline bool agg_undone_known(const struct agg *a)
{
	size_t i;

	for (i = 0; i < a->nr_hosts; i++)
		if (a->hosts[i]->runs.version < 8)
			return false;
	return a->nr_hosts > 0;
}

/* Whether these counts count a loss (dropped, throttled, discarded). */
bool agg_loss_counted(const struct agg_loss *l);

const char *agg_metric_name(enum agg_metric m);

/* The errno name of a negative return value ("EAGAIN"), or NULL. */
const char *agg_errno_name(int64_t ret);

#endif
