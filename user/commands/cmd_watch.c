// SPDX-License-Identifier: GPL-2.0-only
/*
 * sclat watch: print outliers live, as text columns or JSON lines: this
 * machine's, or with --from those every host streams live to a relay daemon,
 *
 *   src.ctf.lttng-live... -> filter.utils.muxer -> sink.sclat.outliers
 */
#include <argp.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "args.h"
#include "commands.h"
#include "trace_options.h"
#include "watch_from.h"
#include "controller/surprise.h"
#include "outputs/watch_printer.h"
#include "run/watch.h"
#include "util/log.h"

enum { OPT_MIN_SURPRISE = 0x200 };

struct watch {
	struct trace_options tracing;
	struct watch_printer printer;
	const char *from; /* a relay daemon's live URL: read, do not trace */
};

static const char watch_doc[] =
	"Print syscalls slower than their threshold, live, until Ctrl-C, --duration or the "
	"end of COMMAND, and why each was slow: where its time went (cpu, irq, steal, runq, sleep, "
	"io), the kernel function it waited in, what it waited on, who woke it.\n"
	"\n"
	"EXAMPLES:\n"
	"    sclat watch                        # every process, default policy\n"
	"    sclat watch --threshold 2ms        # 2 ms for every syscall\n"
	"    sclat watch -p 1234 --json         # pid 1234 and children, JSON\n"
	"    sclat watch -- make -j2            # a command and all its children\n"
	"    sclat watch --snapshot-session app --snapshot-min-latency 50ms\n"
	"    sclat watch --from net://collector # every host streaming live to its relayd\n"
	"    sclat watch --metrics 127.0.0.1:9464 # and Prometheus metrics on /metrics\n"
	"\v"
	"DUR is a number and a unit: ns, us, ms or s (250us, 1.5ms, 2s). The exit status is "
	"COMMAND's when one is given. A call still in flight past its policy's inflight_after "
	"has a line marked IN FLIGHT (JSON: \"inflight\":true) with its state now and where "
	"it waits; at stop, every call still in flight past its threshold has one. An outlier "
	"that waited for storage where its calls seldom do, judged at its syscall's or class's "
	"storage threshold (its THRESHOLD), ends \"(waited for storage, which its calls seldom "
	"do)\" (JSON: \"storage_stall\":true). With "
	"--snapshot-session, a line follows each outlier "
	"that made LTTng snapshot the session: where the snapshot is. With --from, sclat traces "
	"nothing: it reads the live sessions of the relay daemon at URL (net://HOST[:PORT], "
	"PORT its live port, 5344 unless given), one source per session, and prints their "
	"outliers with a HOST column (JSON: a host key) until every session has ended and "
	"no new one is listed, or Ctrl-C; it takes no tracing option. A session that begins "
	"later is followed too (the sessions are listed every second). A relay daemon that does "
	"not answer for 10 s ends it with status 1, saying so.";

static const struct argp_option watch_options[] = {
	{ "json", 'j', NULL, 0, "One JSON object per line", 0 },
	{ "summary", 's', NULL, 0,
	  "At the end, calls and outliers per syscall (JSON: one last {\"summary\":...} line)", 0 },
	{ "from", 'f', "URL", 0,
	  "Print the outliers of every host streaming live to the relay daemon at URL", 0 },
	{ "min-surprise", OPT_MIN_SURPRISE, "S", 0,
	  "Print only outliers at least S surprising: a normal call that slow is at most one "
	  "in 10^S (e.g. 6: one in a million); the trace keeps all",
	  0 },
	{},
};

/* S of --min-surprise: a number from 0 to SURPRISE_MAX. */
static void min_surprise_parse(struct watch *w, const char *arg, struct argp_state *state)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (errno || end == arg || *end || !(v >= 0 && v <= SURPRISE_MAX))
		argp_failure(state, 2, 0,
			     "--min-surprise %s: not a surprise (a number from 0 to %.0f; 6: a "
			     "normal call that slow is one in a million)",
			     arg, SURPRISE_MAX);
	w->printer.min_surprise = v;
	w->printer.min_surprise_set = true;
}

static error_t watch_parse(int key, char *arg, struct argp_state *state)
{
	struct watch *w = state->input;

	switch (key) {
	case ARGP_KEY_INIT:
		state->child_inputs[0] = &w->tracing;
		break;
	case 'j':
		w->printer.json = true;
		break;
	case 's':
		w->printer.summary = true;
		break;
	case OPT_MIN_SURPRISE:
		min_surprise_parse(w, arg, state);
		break;
	case 'f':
		if (strncmp(arg, "net://", 6) && strncmp(arg, "net6://", 7))
			argp_failure(state, 2, 0,
				     "--from %s: not a relay daemon's URL (net://HOST[:PORT])",
				     arg);
		w->from = arg;
		break;
	case ARGP_KEY_ARG:
		trace_options_command(&w->tracing, state);
		break;
	case ARGP_KEY_END:
		if (w->from &&
		    (w->tracing.run.command || w->tracing.run.nr_pids || w->tracing.run.cgroup ||
		     w->tracing.run.comm || w->tracing.policy_file || w->tracing.threshold_set ||
		     w->tracing.run.duration_ns || w->tracing.run.ringbuf_bytes ||
		     w->tracing.run.verbose || w->tracing.run.no_user_stack ||
		     w->tracing.run.user_stacks_per_cpu || w->tracing.run.metrics.addr ||
		     w->printer.summary || w->tracing.snapshot.session ||
		     w->tracing.min_latency_set))
			argp_failure(state, 2, 0,
				     "--from reads a relay daemon: it takes no tracing option, "
				     "--summary, --snapshot-session or COMMAND");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp_child watch_children[] = {
	{ &trace_argp, 0, NULL, 0 },
	{},
};

static const struct argp watch_argp = {
	.options = watch_options,
	.parser = watch_parse,
	.args_doc = "[-- COMMAND [ARGS...]]",
	.doc = watch_doc,
	.children = watch_children,
};

int cmd_watch(int argc, char **argv)
{
	struct watch w = {};
	struct policy *policy;
	const char *policy_file;

	if (args_parse(&watch_argp, argc, argv, ARGP_IN_ORDER, &w))
		return 2;
	if (w.from)
		return watch_from(w.from, w.printer.json,
				  w.printer.min_surprise_set ? w.printer.min_surprise : -1);
	/* A bad policy stops us before anything is started or attached. */
	policy = trace_policy(&w.tracing, &policy_file);
	if (!policy)
		return 1;
	return run_watch(&w.tracing.run, policy, policy_file, &w.printer, &w.tracing.snapshot);
}
