/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One frame of `sclat top` fetched from a tracer: a connection of its own
 * (the tracer's slot is held only while it answers), the request "top", the
 * answer read without blocking what the caller also waits for (keys,
 * signals), and parsed.
 */
#ifndef SCLAT_TOP_FETCH_H
#define SCLAT_TOP_FETCH_H

#include <stdbool.h>
#include "control/control_client.h"
#include "control/top_frame.h"

/* How long a tracer has for its whole answer. */
#define TOP_FETCH_TIMEOUT_MS 10000

/*
 * Called when one of the caller's fds is readable while the answer is awaited:
 * true gives the frame up (-EINTR).
 */
struct top_fetch_wait {
	const int *fds;
	int nr_fds;
	bool (*interrupt)(void *ctx);
	void *ctx;
};

/*
 * The tracer t's frame into fr. 0; -EINTR when w's interrupt said so; else a
 * negative errno after one line on stderr (no tracer, an error, a tracer too
 * old for top, no answer in time, a malformed frame).
 */
int top_fetch(const struct control_target *t, const struct top_fetch_wait *w, struct top_frame *fr);

#endif
