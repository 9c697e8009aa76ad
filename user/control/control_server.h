/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The control socket of a running tracer (see control_protocol.h), served by
 * a thread that also reloads the policy file on SIGHUP.
 */
#ifndef SCLAT_CONTROL_SERVER_H
#define SCLAT_CONTROL_SERVER_H

struct control;
struct controller;
struct inflight;
struct recent_outliers;

/*
 * Serve this process's control socket from a thread, and reload policy_file
 * (NULL: none given) on SIGHUP. ctl has started (it published the policy);
 * each policy the socket or SIGHUP loads, it publishes. The status lists the
 * calls in flight of the run's table inflight (NULL: none); `sclat top`'s
 * frames the latest outliers of recent (NULL: none). Prints one line and
 * returns -errno on failure.
 */
int control_start(struct control **cp, struct controller *ctl, struct inflight *inflight,
		  struct recent_outliers *recent, const char *policy_file);

/* Stop the thread, restore SIGHUP, remove the socket; c may be NULL. */
void control_stop(struct control *c);

#endif
