// SPDX-License-Identifier: GPL-2.0-only
/* sclat record: write outliers, threshold changes, statistics and losses into an LTTng trace. */
#include <argp.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "args.h"
#include "commands.h"
#include "trace_options.h"
#include "outputs/lttng_session.h"
#include "run/interrupts.h"
#include "run/record.h"
#include "util/duration.h"

struct record {
	struct trace_options tracing;
	struct trace_session_opts session;
};

/* The live timer travels in LTTng's protocols as a signed 32-bit count of us. */
#define LIVE_PERIOD_MAX_NS (2147483647ULL * 1000)

enum {
	OPT_URL = 0x200,
	OPT_LIVE,
	OPT_SESSION,
};

static const char record_doc[] =
	"Record syscalls slower than their threshold into an LTTng trace, with the threshold "
	"changes, statistics, losses and sclat's own overhead, until Ctrl-C, --duration or the "
	"end of COMMAND.\n"
	"\n"
	"EXAMPLES:\n"
	"    sclat record -- make -j2              # to ./sclat-trace-<date>\n"
	"    sclat record -o /tmp/t --threshold 1ms\n"
	"    sclat record --url net://relay        # stream to an lttng-relayd\n"
	"    sclat record --live=500ms -p 1234     # for babeltrace2 lttng-live\n"
	"    sclat record --session mine -- ./app  # into a session made with lttng\n"
	"    sclat record --snapshot-session app   # snapshot your session on outliers\n"
	"\v"
	"A session daemon is started when none runs, and stopped at the end (unless other "
	"sessions live in it by then). The session sclat creates records sclat's events only. "
	"--session adds sclat's channel and events to an existing session (and, while sclat "
	"runs, this process to the processes it tracks, if it tracks some), starts it if it is "
	"not started, and leaves it running for you to stop and destroy. The trace's location "
	"is printed on stdout at the end. With --snapshot-session, the trace says which outlier "
	"caused which snapshot, and where it is (sclat:snapshot). The exit status is COMMAND's "
	"when one is given. When the trace cannot be written any more (a daemon exits, the "
	"relay daemon goes, the disk fills), sclat says so, stops, and exits with status 200 "
	"(the trace is incomplete), whatever COMMAND's status. When the session does not record "
	"outliers for a while (lttng stop, or sclat's channel or events disabled), sclat says "
	"so and carries on, counts them, and at the end says how many and exits with 200 too; "
	"so it does when the session is left stopped at the end (its last events are missing). "
	"What a killed sclat record left "
	"(its session, the daemon it started) is ended first.";

static const struct argp_option record_options[] = {
	{ "output", 'o', "DIR", 0,
	  "Trace directory (default ./sclat-trace-<date>), made new; an existing one must be "
	  "yours, empty, not writable by others, and not a symbolic link",
	  0 },
	{ "url", OPT_URL, "URL", 0,
	  "Stream to an lttng-relayd: net://HOST[:CTRL:DATA] (net6:// for IPv6)", 0 },
	{ "live", OPT_LIVE, "PERIOD", OPTION_ARG_OPTIONAL,
	  "Live session through a relayd (default net://127.0.0.1), flushed every PERIOD "
	  "(default 1s, at most 2147s)",
	  0 },
	{ "name", 'n', "NAME", 0, "Name of the session to create (default sclat-<date>)", 0 },
	{ "session", OPT_SESSION, "NAME", 0,
	  "Add to this existing session instead, and leave it running", 0 },
	{},
};

static error_t record_parse(int key, char *arg, struct argp_state *state)
{
	struct record *r = state->input;
	struct trace_session_opts *s = &r->session;
	__u64 ns;
	int err;

	switch (key) {
	case ARGP_KEY_INIT:
		state->child_inputs[0] = &r->tracing;
		break;
	case 'o':
		if (!*arg)
			argp_failure(state, 2, 0, "-o '': an empty path; name the trace directory");
		s->output_dir = arg;
		break;
	case OPT_URL:
		/* tcp:// names one of the two ports LTTng needs: net:// names both. */
		if (strncmp(arg, "net://", 6) && strncmp(arg, "net6://", 7))
			argp_failure(state, 2, 0,
				     "--url %s: not a relayd URL "
				     "(net://HOST[:CTRL:DATA] or net6://)",
				     arg);
		s->url = arg;
		break;
	case OPT_LIVE:
		s->live = true;
		if (arg) {
			err = duration_parse(arg, &s->live_period_ns);
			if (err == -ERANGE || (!err && s->live_period_ns > LIVE_PERIOD_MAX_NS))
				argp_failure(state, 2, 0,
					     "--live=%s: too large: at most 2147s (LTTng counts it "
					     "in us, in 31 bits)",
					     arg);
			if (err || s->live_period_ns < 1000)
				argp_failure(state, 2, 0, "--live=%s: %s", arg,
					     err ? "not a duration (a number and ns, us, ms or s)"
						 : "must be at least 1us");
		}
		break;
	case 'n':
		s->name = arg;
		break;
	case OPT_SESSION:
		s->join = arg;
		break;
	case ARGP_KEY_ARG:
		/* The period is optional, so it must be joined to the option. */
		if (s->live && !s->live_period_ns && !duration_parse(arg, &ns))
			argp_failure(state, 2, 0,
				     "--live %s: write --live=%s (the period is optional, so it "
				     "is joined to the option)",
				     arg, arg);
		trace_options_command(&r->tracing, state);
		break;
	case ARGP_KEY_END:
		if (s->output_dir && (s->url || s->live))
			argp_failure(state, 2, 0,
				     "-o writes a local trace: it cannot go with "
				     "--url or --live");
		if (s->join && (s->output_dir || s->url || s->live || s->name))
			argp_failure(state, 2, 0,
				     "--session %s: the session already has its "
				     "output; drop -o, --url, --live and --name",
				     s->join);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp_child record_children[] = {
	{ &trace_argp, 0, NULL, 0 },
	{},
};

static const struct argp record_argp = {
	.options = record_options,
	.parser = record_parse,
	.args_doc = "[-- COMMAND [ARGS...]]",
	.doc = record_doc,
	.children = record_children,
};

/* What the run traces, as sclat:session_begin's scope says it. */
static char *scope_text(const struct run_opts *o)
{
	char *text = NULL;
	size_t len;
	FILE *f = open_memstream(&text, &len);
	const char *sep = "";
	int i;

	if (!f)
		return NULL;
	if (o->nr_pids) {
		fputs("pids", f);
		for (i = 0; i < o->nr_pids; i++)
			fprintf(f, "%c%d", i ? ',' : ' ', o->pids[i]);
		sep = "; ";
	}
	if (o->command && o->command[0]) {
		fprintf(f, "%scommand", sep);
		for (i = 0; o->command[i]; i++)
			fprintf(f, " %s", o->command[i]);
		sep = "; ";
	}
	if (o->cgroup) {
		fprintf(f, "%scgroup %s", sep, o->cgroup);
		sep = "; ";
	}
	if (o->comm) {
		fprintf(f, "%scomm %s", sep, o->comm);
		sep = "; ";
	}
	if (!*sep)
		fputs("all processes", f);
	fclose(f);
	return text;
}

int cmd_record(int argc, char **argv)
{
	struct record r = {};
	struct policy *policy;
	const char *policy_file;
	char *scope;
	int status;

	if (args_parse(&record_argp, argc, argv, ARGP_IN_ORDER, &r))
		return 2;
	/* liblttng-ctl talks to daemons that may go away: an error, not a death. */
	signal(SIGPIPE, SIG_IGN);
	/* Outside run_trace(), Ctrl-C must not leave a session or a daemon behind. */
	run_interrupts_hold();
	/* A bad policy stops us before anything is started or attached. */
	policy = trace_policy(&r.tracing, &policy_file);
	if (!policy)
		return 1;
	scope = scope_text(&r.tracing.run);
	status = run_record(&r.tracing.run, policy, policy_file, &r.tracing.snapshot, &r.session,
			    scope);
	free(scope);
	return status;
}
