/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the traces lost and whether they hold everything sclat wrote into
 * them: the losses counted per host and in all, the runs' end-of-run
 * accounting (sclat:session_begin, sclat:session_end) and why a trace is
 * incomplete when its counts do not add up.
 */
#ifndef SCLAT_BT2_AGG_LOSS_H
#define SCLAT_BT2_AGG_LOSS_H

#include <stdbool.h>
#include <stdint.h>
#include "outlier.h"

struct agg;

struct agg_loss {
	uint64_t drops;	      /* sclat:lost: ring buffer full in the kernel */
	uint64_t throttled;   /* sclat:lost: held back by the burst guard or budget */
	uint64_t total_drops; /* the largest running totals sclat:lost gave */
	uint64_t total_throttled;
	uint64_t braked, total_braked; /* sclat:lost: held back by the kernel brake (version 9) */
	uint64_t discarded;	       /* discarded-events messages: LTTng's buffers were full */
	bool discarded_unknown;	       /* a discarded-events message without a count: more */
	uint64_t discarded_packets;    /* packets missing from the trace (sequence gaps) */
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

/* Whether events were lost: counted, or missing from an incomplete trace. */
bool agg_loss_any(const struct agg *a);

/* Whether these counts count a loss (dropped, throttled, discarded). */
bool agg_loss_counted(const struct agg_loss *l);

/*
 * For agg_finish(), the hosts in order: each host's losses and completeness,
 * the losses and the runs' totals summed over them, the traces' completeness.
 */
void agg_loss_finish(struct agg *a);

#endif
