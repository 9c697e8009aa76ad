/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The LTTng session daemon (lttng-sessiond) of this user: where it keeps its
 * pid file, starting one of sclat's own and stopping it again, and waiting
 * until this process is registered with it.
 */
#ifndef SCLAT_LTTNG_SESSIOND_H
#define SCLAT_LTTNG_SESSIOND_H

#include <stddef.h>
#include <sys/types.h>

struct session_owner_record;

/* Where a session daemon of this user keeps its pid file (the run directory). */
void sessiond_rundir(char *buf, size_t len);

/* The pid in the daemon's pid file, or 0. */
pid_t sessiond_pid_read(void);

/*
 * Start a session daemon; *ours gets its pid when it is sclat's, and stays
 * when another one started meanwhile. 0 or a negative errno, after one line
 * on stderr.
 */
int sessiond_start(pid_t *ours);

/*
 * Stop the daemon sclat started (*pid; 0: none), unless sessions of others
 * now live in it. *pid is 0 after.
 */
void sessiond_stop(pid_t *pid);

/*
 * The daemon only pushes a session to the applications registered with it:
 * wait until this process's sclat provider is listed. 0 or -ETIMEDOUT (after
 * one line on stderr).
 */
int sessiond_registration_wait(void);

/* Stop a daemon that a sclat now gone started, once no session lives in it. */
void sessiond_reap(const struct session_owner_record *gone);

#endif
