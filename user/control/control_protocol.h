/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The control protocol between a running tracer (control_server.c) and the
 * sclat commands that talk to it (control_client.c): where the sockets live,
 * how a line is sent, and what a request line asks. The parser is pure (no
 * socket, no policy), so that it is unit-tested and fuzzed.
 *
 * One unix stream socket per tracer, $SCLAT_RUN_DIR/<pid>.sock (default
 * /run/sclat, directory 0700, socket 0600); only root or the tracer's own
 * user may use it. The client sends one request line; the server answers
 * "ok LENGTH" (the body's, in bytes) or "error: REASON" on the first line,
 * then the body, and closes; a client that gets less knows it was cut.
 *
 *	status json | status text | status
 *	policy show | policy show learned
 *	policy set [--syscall NAME] KEY=VALUE... [--syscall NAME KEY=VALUE...]
 *	policy load /ABSOLUTE/PATH       (merged into the running policy)
 *	policy replace /ABSOLUTE/PATH    (in its place)
 *	top			(a frame of `sclat top`: top_frame.h)
 */
#ifndef SCLAT_CONTROL_PROTOCOL_H
#define SCLAT_CONTROL_PROTOCOL_H

#include <stdbool.h>
#include <stddef.h>

#define CONTROL_RUN_DIR	     "/run/sclat"
/* How long either side waits for the other to send or take a line. */
#define CONTROL_IO_TIMEOUT_S 5

/* The longest request line, newline included. */
#define CONTROL_REQUEST_MAX  4096
/* At most this many KEY=VALUE pairs in one policy set. */
#define CONTROL_MAX_PAIRS    64
/* Why a "--syscall NAME" with no KEY=VALUE after it is refused, by the client and the tracer. */
#define CONTROL_BARE_SYSCALL "no KEY=VALUE after it (pairs apply to the --syscall before them)"

enum control_verb {
	CONTROL_STATUS,
	CONTROL_POLICY_SHOW,
	CONTROL_POLICY_SET,
	CONTROL_POLICY_LOAD,
	CONTROL_TOP,
};

/* One KEY=VALUE of policy set, for [default]/[global] (syscall NULL) or one syscall. */
struct control_pair {
	const char *syscall;
	const char *key;
	const char *value;
};

struct control_req {
	enum control_verb verb;
	bool json;	  /* CONTROL_STATUS */
	bool learned;	  /* CONTROL_POLICY_SHOW: with the learned thresholds as initial values */
	const char *path; /* CONTROL_POLICY_LOAD */
	bool replace;	  /* CONTROL_POLICY_LOAD: the file alone, not merged */
	struct control_pair pairs[CONTROL_MAX_PAIRS]; /* CONTROL_POLICY_SET */
	int nr_pairs;
};

/* $SCLAT_RUN_DIR when set (tests), else CONTROL_RUN_DIR. */
const char *control_run_dir(void);

/* Send all of buf on a socket (no SIGPIPE); 0 or a negative errno. */
int control_send(int fd, const char *buf, size_t len);

/*
 * Parse one request line (without its newline) in place: the strings in req
 * point into line. Returns 0, or -EINVAL with the reason in err.
 */
int control_request_parse(char *line, struct control_req *req, char *err, size_t errlen);

#endif
