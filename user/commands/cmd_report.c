// SPDX-License-Identifier: GPL-2.0-only
/*
 * sclat report: a babeltrace2 graph over recorded traces, one source per
 * trace (of one host or many),
 *
 *   src.ctf.fs... -> filter.utils.muxer -> sink.sclat.report
 */
#include <argp.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "args.h"
#include "commands.h"
#include "trace/trace_fence.h"
#include "trace/trace_graph.h"
#include "util/duration.h"
#include "util/file_out.h"
#include "util/group_key.h"
#include "util/syscall_names.h"
#include "util/log.h"

struct report_args {
	char **traces;
	size_t nr_traces;
	bt_value *params;
	const char *folded;	 /* --folded FILE */
	const char *html;	 /* --html FILE */
	const char *begin, *end; /* --begin, --end as given, and in ns */
	long long begin_ns, end_ns;
	bool json;
};

static const char report_doc[] =
	"Summarize the outliers of traces recorded by sclat record: latency statistics per "
	"syscall, process, thread, host, target, stack or class, with where the outliers' time went, "
	"the outliers that cost most (--sort) with how surprising and why, and latency "
	"histograms. Each "
	"TRACE is searched for sclat traces (a session directory, a relay daemon's output "
	"root, copies of many hosts' traces); they are merged in time. Over several hosts the "
	"report lists each host with its losses and compares the hosts per syscall.\n"
	"\n"
	"EXAMPLES:\n"
	"    sclat report ./sclat-trace-20250101-120000\n"
	"    sclat report TRACE --by process --top 20\n"
	"    sclat report TRACE --syscall read --min-latency 5ms --json\n"
	"    sclat report /var/lib/sclat-relay --by syscall,host\n"
	"    sclat report hostA-trace hostB-trace --host hostB\n"
	"    sclat report TRACE --by target\n"
	"    sclat report TRACE --folded - | flamegraph.pl > outliers.svg\n"
	"    sclat report TRACE --html outliers.html\n"
	"\v"
	"KEY is one part or several, comma-separated: syscall, process, thread, host, target, "
	"stack, class, title (not process with thread: a thread names its process). A title is "
	"the process's command line when the outlier was read, as a server rewrites it to name "
	"each of its processes (\"postgres: checkpointer\"; trace version 9 on, else \"-\"). A host is the trace's hostname; a class is the one whose threshold an "
	"outlier crossed (policy key classes; \"-\": its syscall's own); a target what the call waited on (a file, "
	"pipe:[INODE], a socket's addresses); a stack where it waited and who called it "
	"(the kernel stack then the user stack, innermost frame first). An outlier without a target or stack is grouped as (none), "
	"one of a trace recorded before sclat explained outliers as (not recorded). For the "
	"outliers a trace explains, each row has the shares of their latency spent on CPU, on "
	"the runqueue, asleep and in I/O wait (CPU RUNQ SLEEP IO; in --json, \"breakdown\"). "
	"--folded writes one line per stack, \"comm;user frames outermost first;syscall;kernel "
	"frames outermost first WEIGHT\", WEIGHT the sum of the outliers' latencies in ns, as flame graph tools "
	"(flamegraph.pl, inferno) read it; FILE - writes them to stdout instead of the report. "
	"--html writes one self-contained page (no network: its style and script are inline) "
	"with the outliers over time, a flame graph of their stacks weighted by time beyond "
	"normal, each syscall's histogram and threshold over time, the outliers of most impact "
	"explained, and the run's health; the report still goes to stdout. "
	"Traces that are not sclat's are skipped with a note. "
	"T is a time since the epoch, in ns (1700000000250000000) or in seconds with a "
	"fraction as babeltrace2 --clock-seconds prints it (1700000000.250000000); an outlier "
	"is in the range when its entry is. Times in the report are UTC.";

enum {
	OPT_BY = 0x100,
	OPT_TOP,
	OPT_SYSCALL,
	OPT_COMM,
	OPT_HOST,
	OPT_PID,
	OPT_TID,
	OPT_MIN_LATENCY,
	OPT_BEGIN,
	OPT_END,
	OPT_FOLDED,
	OPT_HTML,
	OPT_SORT,
};

static const struct argp_option report_options[] = {
	{ "by", OPT_BY, "KEY", 0,
	  "Group by syscall (default), process, thread, host, target, stack, class or title, or by "
	  "several: syscall,host",
	  0 },
	{ "top", OPT_TOP, "N", 0, "Show the N first outliers by --sort (default 10, 0: none)", 0 },
	{ "sort", OPT_SORT, "ORDER", 0,
	  "Order of the top list: impact (time beyond the normal, default), surprise or latency",
	  0 },
	{ "json", 'j', NULL, 0, "One JSON object instead of text", 0 },
	{ "folded", OPT_FOLDED, "FILE", 0,
	  "Also write the outliers' stacks, weighted by latency in ns, for flame graphs (-: "
	  "only them, to stdout)",
	  0 },
	{ "html", OPT_HTML, "FILE", 0,
	  "Also write one HTML page of pictures (scatter, flame graph, histograms), no network "
	  "needed",
	  0 },
	{ "syscall", OPT_SYSCALL, "NAME", 0, "Only this syscall", 1 },
	{ "comm", OPT_COMM, "NAME", 0, "Only threads named NAME", 1 },
	{ "host", OPT_HOST, "NAME", 0, "Only the traces of host NAME", 1 },
	{ "pid", OPT_PID, "PID", 0, "Only this process", 1 },
	{ "tid", OPT_TID, "TID", 0, "Only this thread", 1 },
	{ "min-latency", OPT_MIN_LATENCY, "DUR", 0, "Only outliers at least this slow", 1 },
	{ "begin", OPT_BEGIN, "T", 0, "Only outliers that entered at or after T", 1 },
	{ "end", OPT_END, "T", 0, "Only outliers that entered at or before T", 1 },
	{},
};

static long long parse_id(struct argp_state *state, const char *opt, const char *arg)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(arg, &end, 10);
	if (errno || *end || v < 0 || v > INT32_MAX)
		argp_failure(state, 2, 0, "%s %s: not a process or thread id", opt, arg);
	return v;
}

/* ns since the epoch, or seconds with a fraction. */
static long long parse_time(struct argp_state *state, const char *opt, const char *arg)
{
	const char *dot = strchr(arg, '.');
	long long secs, frac = 0;
	char *end;
	int digits = 0;

	errno = 0;
	secs = strtoll(arg, &end, 10);
	if (!errno && end != arg && !*end && !dot)
		return secs;
	if (!errno && end == dot && secs >= 0 && secs < 9223372036LL) {
		for (end = (char *)dot + 1; *end >= '0' && *end <= '9' && digits < 9; end++) {
			frac = frac * 10 + (*end - '0');
			digits++;
		}
		for (; digits < 9; digits++)
			frac *= 10;
		if (!*end && end != dot + 1)
			return secs * 1000000000LL + frac;
	}
	argp_failure(state, 2, 0, "%s %s: not a time (ns since the epoch, or seconds.fraction)",
		     opt, arg);
	return 0;
}

/* The top list: --top N outliers, first by --sort ORDER. */
static void top_parse(struct argp_state *state, bt_value *p, int key, const char *arg)
{
	char *end;
	long top;

	if (key == OPT_SORT) {
		if (strcmp(arg, "impact") && strcmp(arg, "surprise") && strcmp(arg, "latency"))
			argp_failure(state, 2, 0, "--sort %s: impact, surprise or latency", arg);
		bt_value_map_insert_string_entry(p, "sort", arg);
		return;
	}
	errno = 0;
	top = strtol(arg, &end, 10);
	if (errno || *end || top < 0 || top > 100000)
		argp_failure(state, 2, 0, "--top %s: a number from 0 to 100000", arg);
	bt_value_map_insert_signed_integer_entry(p, "top", top);
}

static error_t report_parse(int key, char *arg, struct argp_state *state)
{
	struct report_args *a = state->input;
	bt_value *p = a->params;
	struct group_key by;
	const char *near;
	char name[64], why[128];
	__u64 ns;
	int nr;

	switch (key) {
	case OPT_BY:
		if (group_key_parse(arg, &by, why, sizeof(why)))
			argp_failure(state, 2, 0, "--by %s: %s", arg, why);
		bt_value_map_insert_string_entry(p, "by", arg);
		break;
	case OPT_TOP:
	case OPT_SORT:
		top_parse(state, p, key, arg);
		break;
	case 'j':
		a->json = true;
		bt_value_map_insert_string_entry(p, "format", "json");
		break;
	case OPT_SYSCALL:
		/* The trace names syscalls as the table does: "sys_read" or "0" is "read". */
		nr = syscall_nr(arg);
		if (nr < 0 && strncmp(arg, "syscall_", 8)) {
			near = syscall_nearest(arg);
			if (near)
				argp_failure(state, 2, 0,
					     "--syscall %s: unknown syscall "
					     "(did you mean \"%s\"?)",
					     arg, near);
			argp_failure(state, 2, 0, "--syscall %s: unknown syscall", arg);
		}
		bt_value_map_insert_string_entry(
			p, "syscall", nr < 0 ? arg : syscall_name_or_nr(nr, name, sizeof(name)));
		break;
	case OPT_COMM:
		bt_value_map_insert_string_entry(p, "comm", arg);
		break;
	case OPT_HOST:
		bt_value_map_insert_string_entry(p, "host", arg);
		break;
	case OPT_PID:
		bt_value_map_insert_signed_integer_entry(p, "pid", parse_id(state, "--pid", arg));
		break;
	case OPT_TID:
		bt_value_map_insert_signed_integer_entry(p, "tid", parse_id(state, "--tid", arg));
		break;
	case OPT_MIN_LATENCY:
		if (duration_parse(arg, &ns) || ns > INT64_MAX)
			argp_failure(state, 2, 0,
				     "--min-latency %s: not a duration "
				     "(a number and ns, us, ms or s)",
				     arg);
		bt_value_map_insert_signed_integer_entry(p, "min-latency", (int64_t)ns);
		break;
	case OPT_BEGIN:
		a->begin = arg;
		a->begin_ns = parse_time(state, "--begin", arg);
		bt_value_map_insert_signed_integer_entry(p, "begin", a->begin_ns);
		break;
	case OPT_END:
		a->end = arg;
		a->end_ns = parse_time(state, "--end", arg);
		bt_value_map_insert_signed_integer_entry(p, "end", a->end_ns);
		break;
	case OPT_FOLDED:
	case OPT_HTML: /* files written whole at the end */
		*(key == OPT_HTML ? &a->html : &a->folded) = arg;
		bt_value_map_insert_string_entry(p, key == OPT_HTML ? "html" : "folded", arg);
		break;
	case ARGP_KEY_ARGS:
		a->traces = state->argv + state->next;
		a->nr_traces = state->argc - state->next;
		state->next = state->argc;
		break;
	case ARGP_KEY_NO_ARGS:
		argp_failure(state, 2, 0, "which trace? (sclat report TRACE...)");
		break;
	case ARGP_KEY_END:
		if (a->json && a->folded && !strcmp(a->folded, "-"))
			argp_failure(state, 2, 0,
				     "--folded - writes only the stacks to stdout: --json has no "
				     "room there (--folded FILE writes both)");
		if (a->begin && a->end && a->begin_ns > a->end_ns)
			argp_failure(state, 2, 0, "--begin %s is after --end %s", a->begin, a->end);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp report_argp = {
	.options = report_options,
	.parser = report_parse,
	.args_doc = "TRACE...",
	.doc = report_doc,
};

/*
 * Whether --folded FILE can be written; 0, or -1 with the reason on stderr.
 * Nothing is written yet: a FILE from an earlier run stays whole when the
 * trace turns out to be wrong.
 */
static int folded_check(const char *path)
{
	int err = file_out_check(path);

	if (err)
		log_err("%s: cannot write the folded stacks there: %s", path, strerror(err));
	return err ? -1 : 0;
}

/* The reading itself: in a child process (trace_fenced()), as babeltrace2 may crash on a trace. */
static int report_read(void *arg)
{
	struct report_args *a = arg;
	struct graph_ctx g = {};
	int ret = 1;

	g.trace = a->traces[0];
	g.paths = a->traces;
	g.nr_paths = a->nr_traces;
	if (graph_source(&g)) {
		log_err("%s", g.err);
		goto out;
	}
	ret = graph_add_sink(&g, "report", a->params) || graph_run(&g) ? 1 : 0;
	if (ret)
		log_err("%s", g.err);
out:
	graph_free(&g);
	return ret;
}

/* The same for --html FILE. */
static int html_check(const char *path)
{
	int err = file_out_check(path);

	if (err)
		log_err("%s: cannot write the HTML page there: %s", path, strerror(err));
	return err ? -1 : 0;
}

int cmd_report(int argc, char **argv)
{
	struct report_args a = { .params = bt_value_map_create() };
	char why[256];
	int ret = 1;

	if (!a.params)
		return 1;
	if (args_parse(&report_argp, argc, argv, 0, &a)) {
		ret = 2;
		goto out;
	}
	/* Before reading any trace: the file is the user's input, its error theirs. */
	if (a.folded && strcmp(a.folded, "-") && folded_check(a.folded))
		goto out;
	if (a.html && html_check(a.html))
		goto out;
	ret = trace_fenced(a.traces, a.nr_traces, report_read, &a, why, sizeof(why));
	if (ret < 0) {
		log_err("%s: %s", a.traces[0], why);
		ret = 1;
	}
out:
	bt_value_put_ref(a.params);
	return ret;
}
