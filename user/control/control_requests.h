/* SPDX-License-Identifier: GPL-2.0-only */
/* The control socket's requests, answered (control_requests.c). */
#ifndef SCLAT_CONTROL_REQUESTS_H
#define SCLAT_CONTROL_REQUESTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "control_protocol.h"

struct controller;
struct inflight;
struct recent_outliers;

/* What a request reads: the run's controller, its calls in flight and latest outliers. */
struct control_view {
	struct controller *ctl;
	struct inflight *inflight;	/* listed in the status */
	struct recent_outliers *recent; /* for top */
};

/*
 * Answer req on out: 0, or a negative errno with err set (-EAGAIN: a status
 * asked before the controller's first pass, to be asked again).
 */
int control_request_answer(const struct control_view *c, const struct control_req *req, FILE *out,
			   char *err, size_t errlen);

/*
 * Load the policy file at path, alone (replace) or merged into the running
 * policy, and publish it through the controller; on error the running policy
 * stays. What it turns on and off goes to out (NULL: nowhere). 0, or
 * -EINVAL with msg saying why.
 */
int control_policy_reload(const struct control_view *c, const char *path, bool replace, FILE *out,
			  char *msg, size_t len);

#endif
