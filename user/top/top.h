/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sclat top: a running tracer seen live through its control socket, on a
 * full screen (top_screen.c) or as plain text frames (top_batch.c), and the
 * signals that end either (top_signals.c).
 */
#ifndef SCLAT_TOP_H
#define SCLAT_TOP_H

#include <stdbool.h>
#include "control/control_client.h"

struct top_opts {
	struct control_target target;
	int delay_ms;	 /* between frames */
	long iterations; /* frames, then exit; 0: until q or a signal */
	bool batch;	 /* plain text frames on stdout */
};

/* Each returns sclat's exit status: 0, 1 after an error said on stderr, 128 + a signal. */
int top_screen_run(const struct top_opts *o);
int top_batch_run(const struct top_opts *o);

/*
 * SIGINT, SIGTERM and SIGHUP caught until top_signals_close(): the fd that is
 * readable once one came (poll it), and which came (0: none yet).
 */
int top_signals_open(void);
int top_signal_caught(void);
void top_signals_close(void);

#endif
