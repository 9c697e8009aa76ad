/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The control socket of a running tracer: `sclat status` and `sclat policy
 * show|set|load` talk to it. One unix stream socket per tracer,
 * $SCLAT_RUN_DIR/<pid>.sock (default /run/sclat, directory 0700, socket 0600),
 * served by a thread; only root or the tracer's own user may use it.
 *
 * Protocol: the client sends one request line; the server answers "ok" or
 * "error: REASON" on the first line, then the body, and closes.
 *
 *	status json | status text
 *	policy show
 *	policy set [--syscall NAME] KEY=VALUE... (all or nothing)
 *	policy load /ABSOLUTE/PATH
 */
#ifndef SCLAT_CONTROL_H
#define SCLAT_CONTROL_H

#include <argp.h>
#include <stdio.h>
#include <sys/types.h>

struct control;
struct controller;

#define CONTROL_RUN_DIR "/run/sclat"

/* $SCLAT_RUN_DIR when set (tests), else CONTROL_RUN_DIR. */
const char *control_run_dir(void);

/*
 * Serve this process's control socket from a thread, and reload policy_file
 * (NULL: none given) on SIGHUP. The policy must be published. Prints one
 * line and returns -errno on failure.
 */
int control_start(struct control **cp, struct controller *ctl, const char *policy_file);

/* Stop the thread, restore SIGHUP, remove the socket; c may be NULL. */
void control_stop(struct control *c);

/* Which tracer a client talks to: --pid, --socket, or the only one running. */
struct control_target {
	pid_t pid;
	const char *socket;
};

/* The --pid and --socket options, as an argp child; state->input is a struct control_target. */
extern const struct argp control_argp;

/*
 * Send one request to the target tracer and copy the body of the answer to
 * out. Returns 0, or 1 after one line on stderr (no tracer, refused, ...).
 */
int control_request(const struct control_target *t, const char *request, FILE *out);

#endif
