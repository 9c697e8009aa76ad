/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The calls reported while in flight (sclat:syscall_inflight): one entry per
 * call, its latest report, and how it ended when its outlier followed.
 */
#ifndef SCLAT_BT2_AGG_HUNG_H
#define SCLAT_BT2_AGG_HUNG_H

#include "outlier.h"

struct agg;
struct agg_host;

/*
 * A call reported in flight by host h (kept when it passes the filter): one
 * entry per call, its latest report; its outlier, added later, says how it
 * ended. 0 or -ENOMEM.
 */
int agg_add_hung(struct agg *a, struct agg_host *h, const struct hung_call *c);

/* For agg_add(): the outlier o ends the call it is, if it was reported in flight. */
void agg_hung_returned(struct agg *a, const struct outlier *o);

/* For agg_finish(): still in flight first, then the longest. */
void agg_hung_finish(struct agg *a);

#endif
