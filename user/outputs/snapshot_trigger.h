/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * --snapshot-session: an LTTng trigger by which the session daemon snapshots
 * the user's snapshot-mode session on each outlier this process fires as
 * sclat:syscall_outlier (filtered by latency, rate-limited by LTTng's rate
 * policy), and tells this process, on a notification channel, which outlier
 * caused which snapshot.
 */
#ifndef SCLAT_SNAPSHOT_TRIGGER_H
#define SCLAT_SNAPSHOT_TRIGGER_H

#include <stdbool.h>
#include <linux/types.h>

struct snapshot_trigger;

/* LTTng's rate policies (lttng add-trigger --rate-policy). */
enum snapshot_rate {
	SNAPSHOT_RATE_EVERY,	  /* every N-th outlier */
	SNAPSHOT_RATE_ONCE_AFTER, /* the N-th outlier only */
};

struct snapshot_trigger_opts {
	const char *session;  /* the user's snapshot-mode session */
	__u64 min_latency_ns; /* outliers at least this slow; 0: all */
	enum snapshot_rate rate;
	__u64 rate_n; /* N, at least 1 */
};

/* What a snapshot_trigger_opts' rate policy reads as: "every:N" or "once-after:N". */
int snapshot_rate_parse(const char *s, struct snapshot_trigger_opts *o);

/* One snapshot LTTng took (or failed to take) on an outlier of this process. */
struct snapshot_taken {
	const char *session;
	const char *path; /* its directory; "" when LTTng failed to take it */
	__u32 nr;
	__s32 pid;
	__s32 tid;
	const char *comm;
	__u64 entry_ns; /* the outlier's entry, monotonic: with tid, the outlier's key */
	__u64 latency_ns;
};

/* What became of the snapshots, at the end. */
struct snapshot_totals {
	const char *session;
	const char *trigger; /* its name */
	__u64 outliers;	     /* fired at or above the minimum latency */
	__u64 discarded;     /* of those, lost on their way to the session daemon */
	__u64 requested;     /* snapshots the rate policy asked for */
	__u64 taken;	     /* reported, and not failed */
	__u64 failed;	     /* that LTTng failed to take (its count) */
	__u64 unreported;    /* asked for and never reported: notifications LTTng dropped */
};

/*
 * Check that the session exists, is in snapshot mode, runs and has a
 * snapshot output; remove the triggers of sclat processes that are gone;
 * register this process's trigger and subscribe to its notifications.
 * Prints one line on stderr on failure and leaves nothing behind. Returns 0
 * or a negative errno.
 */
int snapshot_trigger_open(struct snapshot_trigger **tp, const struct snapshot_trigger_opts *o);

struct sink;
/*
 * The sink of trigger t: it counts each outlier, which another sink of the
 * run fires as sclat:syscall_outlier before it, against the snapshots
 * reported; and names t for the run to ask for the snapshots taken
 * (snapshot_trigger_next(), _settle_next()).
 */
void snapshot_trigger_sink(struct snapshot_trigger *t, struct sink *s);

/*
 * The next snapshot reported and not handed out yet, in *s, whose strings
 * live until the next call: true; false when there is none now. Never blocks.
 */
bool snapshot_trigger_next(struct snapshot_trigger *t, struct snapshot_taken *s);

/*
 * After the last outlier: the next of the snapshots it asked for, as
 * snapshot_trigger_next(), waiting for it (boundedly, for all of them
 * together); false when none is left to wait for. Then
 * snapshot_trigger_totals() counts what became of them all.
 */
bool snapshot_trigger_settle_next(struct snapshot_trigger *t, struct snapshot_taken *s);
void snapshot_trigger_totals(struct snapshot_trigger *t, struct snapshot_totals *totals);

/* Unregister the trigger and free t; prints one line if the daemon refuses. */
void snapshot_trigger_close(struct snapshot_trigger *t);

#endif
