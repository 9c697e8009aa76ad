/* SPDX-License-Identifier: GPL-2.0-only */
/* The client side of the control socket: what `sclat status` and `sclat policy` send. */
#ifndef SCLAT_CONTROL_CLIENT_H
#define SCLAT_CONTROL_CLIENT_H

#include <argp.h>
#include <stdio.h>
#include <sys/types.h>

/* Which tracer a client talks to: --pid, --socket, or the only one running. */
struct control_target {
	pid_t pid;
	const char *socket;
};

/* The --pid and --socket options, as an argp child; state->input is a struct control_target. */
extern const struct argp control_argp;

/*
 * A connection to the target tracer, or a negative errno after one line on
 * stderr (no tracer, several, refused, ...): for a client that reads the
 * answer its own way (`sclat top`). One request per connection.
 */
int control_connect(const struct control_target *t);

/*
 * Send one request to the target tracer and copy the body of the answer to
 * out. Returns 0, or 1 after one line on stderr (no tracer, refused, ...).
 */
int control_request(const struct control_target *t, const char *request, FILE *out);

#endif
