/* SPDX-License-Identifier: GPL-2.0-only */
/* From babeltrace2 messages to an aggregation: the loop body every sclat sink shares. */
#ifndef SCLAT_BT2_FEED_H
#define SCLAT_BT2_FEED_H

#include <babeltrace2/babeltrace.h>
#include "aggregate.h"

struct feed {
	struct agg *agg;
	const bt_trace *trace;	/* the trace of the last message, and its host */
	struct agg_host *host;	/* NULL: the host filter leaves it out */
	uint64_t sclat_streams; /* streams whose class has sclat:* events */
	const char *bad_event;	/* set with -EINVAL: the event that could not be read */
	const char *bad_reason; /* and what is wrong with it */
};

/*
 * Account one message to the host of its trace: outliers, threshold
 * changes, statistics, sclat:lost counts, snapshots, the runs' beginnings
 * and ends, discarded events and packets.
 * Returns 0, -ENOMEM, or -EINVAL when an sclat event cannot be read: it lacks
 * a field (another version of user/outputs/lttng_provider.h) or holds values
 * out of range.
 */
int feed_message(struct feed *fd, const bt_message *msg);

#endif
