// SPDX-License-Identifier: GPL-2.0-only
/* sclat record: write outliers, threshold changes, statistics and losses into an LTTng trace. */
#include <argp.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "util/compiler.h"
#include "args.h"
#include "commands.h"
#include "trace_options.h"
#include "run/interrupts.h"
#include "run/run.h"
#include "kernel/probes.h"
#include "outputs/lttng_session.h"
#include "outputs/output.h"
#include "outputs/snapshot_trigger.h"
#include "outputs/trace_events.h"
#include "util/duration.h"

struct record {
	struct trace_options tracing;
	struct trace_session_opts session;
	struct trace_session *ts;
	bool status_line; /* stderr is a terminal */
	bool status_drawn;
	__u64 last_elapsed_ns, last_syscalls;
};

/*
 * The trace lacks events that it does not count. Above 128 + any signal
 * number, so that no command's status as a shell reports it (its exit code,
 * or 128 + the signal that killed it) means this; it wins over the
 * command's status, which the last line on stderr gives.
 */
#define RECORD_EXIT_INCOMPLETE 200

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

static void status_clear(struct record *r)
{
	if (r->status_drawn)
		fputs("\r\033[K", stderr);
	r->status_drawn = false;
}

static void record_tick(void *ctx, __u64 elapsed_ns, const struct controller_totals *t)
{
	struct record *r = ctx;
	char rate[32];
	double per_s = 0;

	/* A failure is said in a line of its own. */
	status_clear(r);
	if (!trace_session_check(r->ts)) {
		/* The run stops on SIGTERM as on Ctrl-C. */
		raise(SIGTERM);
		return;
	}
	if (!r->status_line)
		return;
	if (elapsed_ns > r->last_elapsed_ns)
		per_s = (double)(t->syscalls - r->last_syscalls) * 1e9 /
			(double)(elapsed_ns - r->last_elapsed_ns);
	r->last_elapsed_ns = elapsed_ns;
	r->last_syscalls = t->syscalls;
	if (per_s >= 1e6)
		snprintf(rate, sizeof(rate), "%.1fM", per_s / 1e6);
	else if (per_s >= 1e3)
		snprintf(rate, sizeof(rate), "%.1fk", per_s / 1e3);
	else
		snprintf(rate, sizeof(rate), "%.0f", per_s);
	fprintf(stderr,
		"\r\033[Ksclat: %llus  %s syscalls/s  %llu outliers  %llu dropped  "
		"%llu throttled  %llu threshold changes",
		(unsigned long long)(elapsed_ns / 1000000000ULL), rate,
		(unsigned long long)t->outliers, (unsigned long long)t->drops,
		(unsigned long long)t->throttled, (unsigned long long)t->threshold_changes);
	r->status_drawn = true;
}

static int record_outlier(void *ctx, const struct sclat_event *e, __s64 entry_epoch_ns,
			  const struct threshold_basis *basis, const struct explanation *x)
{
	struct record *r = ctx;

	trace_session_outlier(r->ts);
	return trace_events_outlier(ctx, e, entry_epoch_ns, basis, x);
}

static int record_end(void *ctx, const struct controller_totals *totals,
		      const struct syscall_count *counts __always_unused,
		      unsigned int n __always_unused)
{
	status_clear(ctx);
	/* After the controller's last sclat:lost and sclat:stats: the last event of the run. */
	trace_events_session_end(totals);
	return 0;
}

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
	struct output out = {
		.outlier = record_outlier,
		.inflight = trace_events_inflight,
		.tick = record_tick,
		.end = record_end,
		.hooks = &trace_events_hooks,
		.snapshot = trace_events_snapshot,
		.snapshot_end = trace_events_snapshot_totals,
		.ctx = &r,
	};
	char location[PATH_MAX + 64], *scope;
	struct policy *policy;
	const char *policy_file;
	int status, err;

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
	/* Without the privilege, the session would be made only to be taken down again. */
	if (probes_check_privilege()) {
		policy_free(policy);
		return 1;
	}
	r.status_line = isatty(STDERR_FILENO);
	/* The user's snapshot session is checked before ours is made. */
	if (r.tracing.snapshot.session &&
	    snapshot_trigger_open(&out.snapshot_trigger, &r.tracing.snapshot)) {
		policy_free(policy);
		return 1;
	}

	/* The session runs before the programs attach and after they detach: nothing is missed. */
	err = trace_session_open(&r.ts, &r.session);
	if (err) {
		snapshot_trigger_close(out.snapshot_trigger);
		policy_free(policy);
		return 1;
	}
	if (run_interrupted()) {
		snapshot_trigger_close(out.snapshot_trigger);
		policy_free(policy);
		trace_session_close(r.ts);
		return 128 + run_interrupted();
	}
	fprintf(stderr, "sclat: recording to %s (session %s)\n", trace_session_location(r.ts),
		trace_session_name(r.ts));
	scope = scope_text(&r.tracing.run);
	trace_events_session_begin(scope, policy);
	free(scope);

	/* A Ctrl-C from here to the end stops the run, and the session is still closed. */
	status = run_trace(&r.tracing.run, policy, policy_file, &out);
	status_clear(&r);
	/* No snapshot after the last outlier, nor a trigger left behind. */
	snapshot_trigger_close(out.snapshot_trigger);

	snprintf(location, sizeof(location), "%s", trace_session_location(r.ts));
	err = trace_session_close(r.ts);
	if (err == TRACE_SESSION_INCOMPLETE) {
		/* What is there is still worth reading: the report says what it lacks. */
		printf("%s\n", location);
		fprintf(stderr,
			"sclat: %s: the trace is incomplete: events are missing that it does not "
			"count (exit status %d",
			location, RECORD_EXIT_INCOMPLETE);
		if (r.tracing.run.command)
			fprintf(stderr, " instead of %d, the command's", status);
		fprintf(stderr, ")\n");
		return RECORD_EXIT_INCOMPLETE;
	}
	if (err)
		return status ? status : 1;
	printf("%s\n", location);
	return status;
}
