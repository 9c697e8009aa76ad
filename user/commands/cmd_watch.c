// SPDX-License-Identifier: GPL-2.0-only
/* sclat watch: print outliers live, as text columns or JSON lines. */
#include <argp.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <time.h>
#include "util/compiler.h"
#include "args.h"
#include "commands.h"
#include "trace_run.h"
#include "outputs/snapshot_trigger.h"
#include "outputs/trace_events.h"
#include "outputs/watch_printer.h"
#include "policy/policy.h"

/* How long this process may take to receive the trigger's event notifier. */
#define EVENT_NOTIFIER_TIMEOUT_MS 5000

struct watch {
	struct trace_options tracing;
	struct watch_printer printer;
};

static const char watch_doc[] =
	"Print syscalls slower than their threshold, live, until Ctrl-C, --duration or the "
	"end of COMMAND.\n"
	"\n"
	"EXAMPLES:\n"
	"    sclat watch                        # every process, default policy\n"
	"    sclat watch --threshold 2ms        # 2 ms for every syscall\n"
	"    sclat watch -p 1234 --json         # pid 1234 and children, JSON\n"
	"    sclat watch -- make -j2            # a command and all its children\n"
	"    sclat watch --snapshot-session app --snapshot-min-latency 50ms\n"
	"\v"
	"DUR is a number and a unit: ns, us, ms or s (250us, 1.5ms, 2s). The exit status is "
	"COMMAND's when one is given. With --snapshot-session, a line follows each outlier "
	"that made LTTng snapshot the session: where the snapshot is.";

static const struct argp_option watch_options[] = {
	{ "json", 'j', NULL, 0, "One JSON object per line", 0 },
	{ "summary", 's', NULL, 0,
	  "At the end, calls and outliers per syscall (JSON: one last {\"summary\":...} line)", 0 },
	{},
};

static error_t watch_parse(int key, char *arg __always_unused, struct argp_state *state)
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
	case ARGP_KEY_ARG:
		trace_options_command(&w->tracing, state);
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

/*
 * The trigger matches sclat:syscall_outlier in this process once the session
 * daemon gave it the trigger's event notifier: lttng-ust registers the
 * process with the daemon at its start (or when a daemon appears), and the
 * daemon hands every registered process the triggers it has.
 */
static int outlier_event_wait(const char *session)
{
	struct timespec pause = { 0, 20 * 1000000L };
	int waited;

	for (waited = 0; waited < EVENT_NOTIFIER_TIMEOUT_MS; waited += 20) {
		if (trace_events_outlier_enabled())
			return 0;
		nanosleep(&pause, NULL);
	}
	fprintf(stderr,
		"sclat: --snapshot-session %s: this process did not register with "
		"lttng-sessiond within %d ms (is LTTNG_UST_DEBUG or a LTTNG_HOME mismatch in "
		"the way?)\n",
		session, EVENT_NOTIFIER_TIMEOUT_MS);
	return -ETIMEDOUT;
}

int cmd_watch(int argc, char **argv)
{
	struct watch w = {};
	struct policy *policy;
	const char *policy_file;
	struct output out;
	int status;

	if (args_parse(&watch_argp, argc, argv, ARGP_IN_ORDER, &w))
		return 2;
	/* A bad policy stops us before anything is started or attached. */
	policy = trace_policy(&w.tracing, &policy_file);
	if (!policy)
		return 1;
	w.printer.fire_outlier_event = w.tracing.snapshot.session != NULL;
	watch_printer_output(&w.printer, &out);
	if (w.tracing.snapshot.session) {
		/* liblttng-ctl talks to a daemon that may go away: an error, not a death. */
		signal(SIGPIPE, SIG_IGN);
		if (snapshot_trigger_open(&out.snapshot_trigger, &w.tracing.snapshot) ||
		    outlier_event_wait(w.tracing.snapshot.session)) {
			snapshot_trigger_close(out.snapshot_trigger);
			policy_free(policy);
			return 1;
		}
	}
	status = trace_run(&w.tracing, policy, policy_file, &out);
	snapshot_trigger_close(out.snapshot_trigger);
	return status;
}
