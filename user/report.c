// SPDX-License-Identifier: GPL-2.0-only
/*
 * sclat report and sclat convert: babeltrace2 graphs over a recorded trace,
 *
 *   src.ctf.fs -> filter.utils.muxer -> sink.sclat.report
 *   src.ctf.fs -> filter.utils.muxer -> filter.sclat.kernelize -> sink.ctf.fs
 */
#include <argp.h>
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "args.h"
#include "bt_graph.h"
#include "commands.h"
#include "duration.h"
#include "syscalls.h"

/* sclat report */

struct report_args {
	const char *trace;
	bt_value *params;
};

static const char report_doc[] =
	"Summarize the outliers of a trace recorded by sclat record: latency statistics per "
	"syscall, process or thread, the slowest outliers and latency histograms.\n"
	"\n"
	"EXAMPLES:\n"
	"    sclat report ./sclat-trace-20250101-120000\n"
	"    sclat report TRACE --by process --top 20\n"
	"    sclat report TRACE --syscall read --min-latency 5ms --json\n"
	"\v"
	"T is a time since the epoch, in ns (1700000000250000000) or in seconds with a "
	"fraction as babeltrace2 --clock-seconds prints it (1700000000.250000000); an outlier "
	"is in the range when its entry is. Times in the report are UTC.";

enum {
	OPT_BY = 0x100,
	OPT_TOP,
	OPT_SYSCALL,
	OPT_COMM,
	OPT_PID,
	OPT_TID,
	OPT_MIN_LATENCY,
	OPT_BEGIN,
	OPT_END,
};

static const struct argp_option report_options[] = {
	{ "by", OPT_BY, "KEY", 0, "Group by syscall (default), process or thread", 0 },
	{ "top", OPT_TOP, "N", 0, "Show the N slowest outliers (default 10, 0: none)", 0 },
	{ "json", 'j', NULL, 0, "One JSON object instead of text", 0 },
	{ "syscall", OPT_SYSCALL, "NAME", 0, "Only this syscall", 1 },
	{ "comm", OPT_COMM, "NAME", 0, "Only threads named NAME", 1 },
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

static error_t report_parse(int key, char *arg, struct argp_state *state)
{
	struct report_args *a = state->input;
	bt_value *p = a->params;
	const char *near;
	char name[64];
	__u64 ns;
	char *end;
	long top;
	int nr;

	switch (key) {
	case OPT_BY:
		if (strcmp(arg, "syscall") && strcmp(arg, "process") && strcmp(arg, "thread"))
			argp_failure(state, 2, 0, "--by %s: syscall, process or thread", arg);
		bt_value_map_insert_string_entry(p, "by", arg);
		break;
	case OPT_TOP:
		errno = 0;
		top = strtol(arg, &end, 10);
		if (errno || *end || top < 0 || top > 100000)
			argp_failure(state, 2, 0, "--top %s: a number from 0 to 100000", arg);
		bt_value_map_insert_signed_integer_entry(p, "top", top);
		break;
	case 'j':
		bt_value_map_insert_string_entry(p, "format", "json");
		break;
	case OPT_SYSCALL:
		/* The trace names syscalls as the table does: "sys_read" or "0" is "read". */
		nr = syscall_nr(arg);
		if (nr < 0 && strncmp(arg, "syscall_", 8)) {
			near = syscall_nearest(arg);
			if (near)
				argp_failure(state, 2, 0, "--syscall %s: unknown syscall "
					     "(did you mean \"%s\"?)", arg, near);
			argp_failure(state, 2, 0, "--syscall %s: unknown syscall", arg);
		}
		bt_value_map_insert_string_entry(p, "syscall", nr < 0 ? arg :
			syscall_name_or_nr(nr, name, sizeof(name)));
		break;
	case OPT_COMM:
		bt_value_map_insert_string_entry(p, "comm", arg);
		break;
	case OPT_PID:
		bt_value_map_insert_signed_integer_entry(p, "pid", parse_id(state, "--pid", arg));
		break;
	case OPT_TID:
		bt_value_map_insert_signed_integer_entry(p, "tid", parse_id(state, "--tid", arg));
		break;
	case OPT_MIN_LATENCY:
		if (duration_parse(arg, &ns) || ns > INT64_MAX)
			argp_failure(state, 2, 0, "--min-latency %s: not a duration "
				     "(a number and ns, us, ms or s)", arg);
		bt_value_map_insert_signed_integer_entry(p, "min-latency", (int64_t)ns);
		break;
	case OPT_BEGIN:
		bt_value_map_insert_signed_integer_entry(p, "begin",
							 parse_time(state, "--begin", arg));
		break;
	case OPT_END:
		bt_value_map_insert_signed_integer_entry(p, "end", parse_time(state, "--end", arg));
		break;
	case ARGP_KEY_ARG:
		if (a->trace)
			argp_failure(state, 2, 0, "%s: one trace at a time", arg);
		a->trace = arg;
		break;
	case ARGP_KEY_END:
		if (!a->trace)
			argp_failure(state, 2, 0, "which trace? (sclat report TRACE)");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp report_argp = {
	.options = report_options,
	.parser = report_parse,
	.args_doc = "TRACE",
	.doc = report_doc,
};

int cmd_report(int argc, char **argv)
{
	struct report_args a = { .params = bt_value_map_create() };
	struct graph_ctx g = {};
	const bt_component_sink *sink;
	int ret = 1;

	if (!a.params)
		return 1;
	if (args_parse(&report_argp, argc, argv, 0, &a)) {
		ret = 2;
		goto out;
	}
	g.trace = a.trace;
	if (graph_source(&g)) {
		fprintf(stderr, "sclat: %s\n", g.err);
		goto out;
	}
	if (bt_graph_add_sink_component(g.graph,
		    bt_plugin_borrow_sink_component_class_by_name_const(g.plugins[GRAPH_PLUGIN_SCLAT], "report"),
		    "report", a.params, BT_LOGGING_LEVEL_NONE, &sink) ||
	    bt_graph_connect_ports(g.graph, graph_mux_out(&g),
		    bt_component_sink_borrow_input_port_by_index_const(sink, 0), NULL)) {
		graph_fail_bt(&g, "cannot build the babeltrace2 graph");
		fprintf(stderr, "sclat: %s\n", g.err);
		goto out;
	}
	ret = graph_run(&g) ? 1 : 0;
	if (ret)
		fprintf(stderr, "sclat: %s\n", g.err);
out:
	graph_free(&g);
	bt_value_put_ref(a.params);
	return ret;
}

/* sclat convert */

struct convert_args {
	const char *trace;
	const char *out;
};

static const char convert_doc[] =
	"Convert a trace recorded by sclat record into an LTTng kernel trace that Trace "
	"Compass opens as one: each outlier becomes a syscall_entry_NAME and syscall_exit_NAME "
	"pair at its true times, with the sched_switch events that place its thread on its "
	"CPU, so the System Call Latency views show the outliers.\n"
	"\n"
	"EXAMPLES:\n"
	"    sclat convert ./sclat-trace-20250101-120000 -o /tmp/kernel-trace\n"
	"\v"
	"OUT must not exist or be an empty directory. The trace is read twice: once for how "
	"late its slowest outlier reached it, so that every outlier finds its place in time.";

static const struct argp_option convert_options[] = {
	{ "output", 'o', "OUT", 0, "Directory of the kernel-style trace to write", 0 },
	{},
};

static error_t convert_parse(int key, char *arg, struct argp_state *state)
{
	struct convert_args *a = state->input;

	switch (key) {
	case 'o':
		a->out = arg;
		break;
	case ARGP_KEY_ARG:
		if (a->trace)
			argp_failure(state, 2, 0, "%s: one trace at a time", arg);
		a->trace = arg;
		break;
	case ARGP_KEY_END:
		if (!a->trace || !a->out)
			argp_failure(state, 2, 0, "which trace, and where to? "
				     "(sclat convert TRACE -o OUT)");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp convert_argp = {
	.options = convert_options,
	.parser = convert_parse,
	.args_doc = "TRACE -o OUT",
	.doc = convert_doc,
};

/* OUT must be new (1) or an empty directory (0): sink.ctf.fs writes into it. */
static int out_check(const char *out)
{
	struct dirent *de;
	DIR *d = opendir(out);

	if (!d)
		return errno == ENOENT ? 1 : -errno;
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
			closedir(d);
			return -ENOTEMPTY;
		}
	closedir(d);
	return 0;
}

static int out_remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	return remove(path) ? -1 : 0;
}

int cmd_convert(int argc, char **argv)
{
	struct convert_args a = {};
	struct graph_ctx g = {};
	const bt_component_filter *kz;
	const bt_component_sink *sink;
	bt_value *params = NULL;
	char meta[PATH_MAX];
	int ret = 1, err;

	if (args_parse(&convert_argp, argc, argv, 0, &a))
		return 2;
	err = out_check(a.out);
	if (err < 0) {
		fprintf(stderr, "sclat: %s: %s\n", a.out,
			err == -ENOTEMPTY ? "not empty; name a new directory" : strerror(-err));
		return 1;
	}
	g.trace = a.trace;
	if (graph_source(&g)) {
		fprintf(stderr, "sclat: %s\n", g.err);
		goto out;
	}
	params = bt_value_map_create();
	if (!params || bt_value_map_insert_string_entry(params, "path", a.out) ||
	    bt_value_map_insert_bool_entry(params, "assume-single-trace", BT_TRUE) ||
	    bt_value_map_insert_bool_entry(params, "quiet", BT_TRUE))
		goto out;
	if (bt_graph_add_filter_component(g.graph,
		    bt_plugin_borrow_filter_component_class_by_name_const(g.plugins[GRAPH_PLUGIN_SCLAT],
									  "kernelize"),
		    "kernelize", NULL, BT_LOGGING_LEVEL_NONE, &kz) ||
	    bt_graph_add_sink_component(g.graph,
		    bt_plugin_borrow_sink_component_class_by_name_const(g.plugins[GRAPH_PLUGIN_CTF], "fs"),
		    "out", params, BT_LOGGING_LEVEL_NONE, &sink) ||
	    bt_graph_connect_ports(g.graph, graph_mux_out(&g),
		    bt_component_filter_borrow_input_port_by_index_const(kz, 0), NULL) ||
	    bt_graph_connect_ports(g.graph,
		    bt_component_filter_borrow_output_port_by_index_const(kz, 0),
		    bt_component_sink_borrow_input_port_by_index_const(sink, 0), NULL)) {
		graph_fail_bt(&g, "cannot build the babeltrace2 graph");
		fprintf(stderr, "sclat: %s\n", g.err);
		goto out;
	}
	if (graph_run(&g)) {
		fprintf(stderr, "sclat: %s\n", g.err);
		goto out;
	}
	/* sink.ctf.fs writes the metadata when the graph goes away. */
	graph_free(&g);
	snprintf(meta, sizeof(meta), "%s/metadata", a.out);
	if (access(meta, F_OK)) {
		fprintf(stderr, "sclat: %s: no outliers to convert\n", a.trace);
		goto out;
	}
	fprintf(stderr, "sclat: wrote %s\n", a.out);
	ret = 0;
out:
	bt_value_put_ref(params);
	graph_free(&g);
	/* No half-written trace where we made a new one. */
	if (ret && err == 1)
		nftw(a.out, out_remove_entry, 16, FTW_DEPTH | FTW_PHYS);
	return ret;
}
