// SPDX-License-Identifier: GPL-2.0-only
/* sclat status: ask the running tracer how it is doing. */
#include <argp.h>
#include <signal.h>
#include <stdbool.h>
#include "args.h"
#include "commands.h"
#include "control_options.h"
#include "outputs/lttng_session.h"

struct status_opts {
	struct control_target target;
	bool json;
};

static const char status_doc[] =
	"Show the running tracer's per-syscall statistics, thresholds and losses, and its "
	"own cost, explaining its outliers included.\n"
	"\n"
	"EXAMPLES:\n"
	"    sclat status              # the only tracer running\n"
	"    sclat status --json       # the same as one JSON object\n"
	"    sclat status --pid 4242   # when several tracers run\n"
	"\v"
	"CALLS counts every call; RATE is calls per second over the last interval; P50, P99 "
	"and P99.9 are estimated over the decayed window (under a syscall's floor, from 1 call "
	"in N: policy key sample). THRESHOLD is \"off\" for syscalls the policy never reports, "
	"and marked * while it is still the policy's initial value. (other) counts together the "
	"calls, throttled and drops of the syscalls past sclat's 111 histograms (JSON: "
	"\"other\", nr -1), each also listed with its threshold and outliers. Under a syscall "
	"with classes (policy key classes), a line per class in its columns, the class named "
	"last; its threshold is marked = while it is still its syscall's (or, under classes = "
	"auto, judged by its process's or its syscall's: \"(auto: by NAME)\", or \"(auto: "
	"split)\" when it has its own; JSON: auto, judged_by), and a last line says "
	"how many classes the bounds refused. A line counts the class ids, those refused and the "
	"requests lost to a full kernel queue or class key table (asked again), and, when "
	"sample classes 1 call in N under every class's threshold, that the classes' calls and "
	"rates are estimates. Then the calls in flight past their threshold, longest first "
	"(JSON: inflight). First, what a killed sclat record left is ended, and said on stderr: "
	"its session is stopped and destroyed (its trace becomes readable), and the session "
	"daemon it started is stopped.";

static const struct argp_option status_options[] = {
	{ "json", 'j', NULL, 0, "One JSON object", 0 },
	{},
};

static error_t status_parse(int key, char *arg, struct argp_state *state)
{
	struct status_opts *o = state->input;

	switch (key) {
	case 'j':
		o->json = true;
		break;
	default:
		return control_options_parse(key, arg, state, &o->target);
	}
	return 0;
}

static const struct argp status_argp = {
	.options = status_options,
	.parser = status_parse,
	.doc = status_doc,
	.children = control_children,
};

int cmd_status(int argc, char **argv)
{
	struct status_opts o = {};

	if (args_parse(&status_argp, argc, argv, 0, &o))
		return 2;
	/* A killed sclat record's session keeps its trace unreadable until it is ended. */
	signal(SIGPIPE, SIG_IGN);
	trace_session_reap();
	return control_request(&o.target, o.json ? "status json" : "status text", stdout);
}
