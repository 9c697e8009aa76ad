// SPDX-License-Identifier: GPL-2.0-only
/* sclat top: a running tracer live, on a full screen or as text frames. */
#include <argp.h>
#include <errno.h>
#include <stdlib.h>
#include "args.h"
#include "commands.h"
#include "control_options.h"
#include "top/top.h"

/* The refresh's bounds: below 0.1 s the frames cost the tracer more than they tell. */
#define TOP_DELAY_MIN_MS 100
#define TOP_DELAY_MAX_MS 3600000

static const char top_doc[] =
	"Show a running tracer live, refreshed every -d seconds: one row per syscall (and "
	"class) with its calls per second, P50, P99, threshold, outliers per second and the "
	"time lost beyond its threshold per second; the calls in flight past their threshold; "
	"the latest outliers as sclat watch prints them.\n"
	"\n"
	"EXAMPLES:\n"
	"    sclat top                 # the only tracer running, every 2 s\n"
	"    sclat top -d 1 --pid 4242\n"
	"    sclat top -b -n 3         # three text frames, for scripts\n"
	"\v"
	"Keys: C sort by calls/s, P by p99, O by outliers/s, T by time lost, N by name; < and "
	"> move the sort column; R reverses the order; q quits. LOST/S is the time the "
	"outliers delivered in the last refresh spent beyond the threshold they crossed "
	"(latency - threshold, summed), per second of the refresh: 25ms means 25 ms of each "
	"second; throttled and dropped outliers are not in it. CALLS/S, OUTL/S and LOST/S are "
	"counted between two frames (the tracer's counts move once per interval: a frame "
	"within the same interval shows the same rates); the first frame shows the last "
	"interval's calls and the averages since the tracer started. P50 and P99 are the tracer's, over its decayed "
	"window. THRESHOLD is marked * while it is the policy's initial value, and a class's = "
	"while it is its syscall's. Each frame is asked for on a connection of its own. Exit "
	"status: 0, 1 on an error (no tracer, the tracer gone), 128 + the signal that ended "
	"it (SIGINT, SIGTERM, SIGHUP); the terminal is restored on every exit.";

static const struct argp_option top_options[] = {
	{ "delay", 'd', "SECONDS", 0, "Refresh every SECONDS (default 2; 0.1 to 3600)", 0 },
	{ "batch", 'b', NULL, 0, "Plain text frames on stdout, one after the other (as top -b)",
	  0 },
	{ "iterations", 'n', "N", 0, "Exit after N frames (default: until q or a signal)", 0 },
	{},
};

static error_t top_parse(int key, char *arg, struct argp_state *state)
{
	struct top_opts *o = state->input;
	char *end;
	double secs;
	long n;

	switch (key) {
	case 'd':
		errno = 0;
		secs = strtod(arg, &end);
		if (errno || end == arg || *end || !(secs * 1000 >= TOP_DELAY_MIN_MS) ||
		    secs * 1000 > TOP_DELAY_MAX_MS)
			argp_failure(state, 2, 0, "-d %s: not a number of seconds from 0.1 to 3600",
				     arg);
		o->delay_ms = (int)(secs * 1000 + 0.5);
		break;
	case 'b':
		o->batch = true;
		break;
	case 'n':
		errno = 0;
		n = strtol(arg, &end, 10);
		if (errno || end == arg || *end || n < 1)
			argp_failure(state, 2, 0, "-n %s: not a number of frames (1 or more)", arg);
		o->iterations = n;
		break;
	default:
		return control_options_parse(key, arg, state, &o->target);
	}
	return 0;
}

static const struct argp top_argp = {
	.options = top_options,
	.parser = top_parse,
	.doc = top_doc,
	.children = control_children,
};

int cmd_top(int argc, char **argv)
{
	struct top_opts o = { .delay_ms = 2000 };

	if (args_parse(&top_argp, argc, argv, 0, &o))
		return 2;
	return o.batch ? top_batch_run(&o) : top_screen_run(&o);
}
