/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What every sclat analysis computes from the outliers: filtered latency
 * statistics per group (a grouping key made of parts, util/group_key.h), the slowest outliers,
 * latency histograms, the loss accounting per host, and the hosts compared. Shared by
 * sink.sclat.report and sclat-lami. Its parts, each in agg_*.h, are included here: a
 * reader includes this header alone.
 */
#ifndef SCLAT_BT2_AGGREGATE_H
#define SCLAT_BT2_AGGREGATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "util/group_key.h"
#include "util/heap.h"
#include "agg_compare.h"
#include "agg_filter.h"
#include "agg_folded.h"
#include "agg_groups.h"
#include "agg_hosts.h"
#include "agg_hung.h"
#include "agg_loss.h"
#include "agg_snapshots.h"
#include "agg_strings.h"
#include "outlier.h"

/* The order of the top list (agg.top): the largest first. */
enum agg_order {
	AGG_BY_LATENCY, /* the slowest */
	AGG_BY_IMPACT, /* the most time beyond their normal (trace version 9 on; before, latency) */
	AGG_BY_SURPRISE, /* the most surprising; those not known last, by impact */
};

struct agg {
	struct group_key key;
	struct agg_filter filter;
	unsigned int top_n;
	enum agg_order order; /* of the top list: by latency unless agg_order_set() */
	uint64_t seen;	      /* outliers in the traces */
	uint64_t matched;     /* outliers that passed the filter */
	int64_t first_epoch_ns, last_epoch_ns;		  /* entries of the matched outliers */
	int64_t last_exit_epoch_ns;			  /* the latest exit of a matched outlier */
	struct agg_loss loss;				  /* of every host that passed the filter */
	struct run_end ended;				  /* their sclat:session_end, summed */
	uint64_t ustack_missing[OUTLIER_USTACK_WHYS];	  /* matched, no user stack: by why */
	enum agg_completeness complete;			  /* of them all, after agg_finish() */
	char warnings[AGG_MAX_WARNINGS][AGG_WARNING_LEN]; /* why they are incomplete */
	unsigned int nr_warnings;
	struct agg_group *groups; /* sorted by count, then key, after agg_finish() */
	size_t nr_groups, cap_groups;
	uint32_t *group_index;	   /* hash of the groups' keys: 1 + group, 0 empty */
	size_t index_size;	   /* a power of two, at least twice nr_groups */
	struct heap slowest;	   /* the top_n first by order so far, the last of them on top */
	const struct outlier *top; /* slowest's, sorted by order, after agg_finish() */
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

/* Returns 0 or -ENOMEM. */
int agg_init(struct agg *a, const struct group_key *key, const struct agg_filter *f,
	     unsigned int top_n);
void agg_free(struct agg *a);

/* Order the top list by o ("latency", "impact" or "surprise"): before agg_add(). -EINVAL. */
int agg_order_set(struct agg *a, const char *o);

/* The name agg_order_set() takes for a->order. */
const char *agg_order_name(enum agg_order o);

/* Count one outlier of host h (NULL: filtered out) if it passes the filter; 0 or -ENOMEM. */
int agg_add(struct agg *a, struct agg_host *h, const struct outlier *o);

/*
 * Statistics, histograms, losses and whether each trace is complete,
 * comparison and orders; once, after the last agg_add().
 */
void agg_finish(struct agg *a);

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

/* The errno name of a negative return value ("EAGAIN"), or NULL. */
const char *agg_errno_name(int64_t ret);

#endif
