/* SPDX-License-Identifier: GPL-2.0-only */
/* The snapshots LTTng took of a session for outliers (--snapshot-session), and their totals. */
#ifndef SCLAT_BT2_AGG_SNAPSHOTS_H
#define SCLAT_BT2_AGG_SNAPSHOTS_H

#include "outlier.h"

struct agg;

/* A snapshot (kept when its outlier passes the filter); 0 or -ENOMEM. */
int agg_add_snapshot(struct agg *a, const struct snapshot_ref *s);

/* One sclat:snapshot_totals. */
void agg_add_snapshot_count(struct agg *a, const struct snapshot_count *c);

/* The snapshot the outlier o caused, or NULL. */
const struct snapshot_ref *agg_snapshot_of(const struct agg *a, const struct outlier *o);

#endif
