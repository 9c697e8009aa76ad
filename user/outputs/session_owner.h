/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Which sclat record owns which LTTng session: one file per sclat record in
 * the session daemon's run directory (RUNDIR/sclat/PID), locked for as long
 * as that sclat lives. A killed sclat leaves its file unlocked, so that the
 * next sclat finds its session and the daemon it started, and ends them.
 */
#ifndef SCLAT_SESSION_OWNER_H
#define SCLAT_SESSION_OWNER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define SESSION_OWNER_NAME_MAX 255 /* LTTNG_NAME_MAX */

struct session_owner_record {
	pid_t pid; /* the sclat record */
	char session[SESSION_OWNER_NAME_MAX];
	bool joined;			 /* --session: the user's, to leave running */
	uint64_t created;		 /* the session's creation time (LTTng's); 0: unknown */
	uint64_t claimed;		 /* wall-clock seconds just before it made it; 0: unknown */
	pid_t daemon_pid;		 /* the session daemon this sclat started, or 0 */
	unsigned long long daemon_start; /* its start time, in clock ticks after boot */
};

struct session_owner;

/* Write and lock this process's record; 0 or -errno (nothing on stderr). */
int session_owner_claim(struct session_owner **op, const char *rundir,
			const struct session_owner_record *r);

/* Write the record again, with what became known since the claim. */
int session_owner_update(struct session_owner *o, const struct session_owner_record *r);

/* Remove the record: the session is ended, or left as the user wants. o may be NULL. */
void session_owner_release(struct session_owner *o);

/* The records of the sclat processes alive: a reaper must leave their sessions alone. */
struct session_owners_live {
	const struct session_owner_record *r;
	int n;
};

typedef void (*session_owner_gone_fn)(const struct session_owner_record *gone,
				      const struct session_owners_live *live, void *ctx);

/* Call fn for each record of a sclat that is gone, holding its lock; then remove it. */
void session_owners_gone(const char *rundir, session_owner_gone_fn fn, void *ctx);

#endif
