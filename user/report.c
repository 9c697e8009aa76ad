// SPDX-License-Identifier: GPL-2.0-only
/*
 * sclat report and sclat convert: babeltrace2 graphs over a recorded trace,
 *
 *   src.ctf.fs -> filter.utils.muxer -> sink.sclat.report
 *   src.ctf.fs -> filter.utils.muxer -> filter.sclat.kernelize -> sink.ctf.fs
 *
 * with the sclat plugin from the build tree when run from it, else from
 * where babeltrace2 finds its plugins.
 */
#include <argp.h>
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <libgen.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <babeltrace2/babeltrace.h>
#include "commands.h"
#include "duration.h"
#include "syscalls.h"

#define SCLAT_PLUGIN_FILE "babeltrace-plugin-sclat.so"
/* Where `make` puts the plugin, relative to user/sclat. */
#define SCLAT_PLUGIN_TREE "../.output/plugins/" SCLAT_PLUGIN_FILE

struct graph_ctx {
	const char *trace;		/* as the user named it */
	bt_graph *graph;
	const bt_plugin *plugins[3];	/* ctf, utils, sclat */
	bt_value *inputs;		/* the CTF trace directories under trace */
	const bt_component_source *src;
	const bt_component_filter *mux;
};

/* A plugin of babeltrace2's own, or sclat's: from the tree first. */
static const bt_plugin *plugin_load(const char *name)
{
	const bt_plugin_set *set = NULL;
	const bt_plugin *p = NULL;
	char exe[PATH_MAX], path[PATH_MAX + sizeof(SCLAT_PLUGIN_TREE)];
	ssize_t n;

	if (!strcmp(name, "sclat")) {
		n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
		if (n > 0) {
			exe[n] = '\0';
			snprintf(path, sizeof(path), "%s/%s", dirname(exe), SCLAT_PLUGIN_TREE);
			if (!access(path, R_OK) &&
			    bt_plugin_find_all_from_file(path, BT_TRUE, &set) ==
			    BT_PLUGIN_FIND_ALL_FROM_FILE_STATUS_OK) {
				p = bt_plugin_set_borrow_plugin_by_index_const(set, 0);
				bt_plugin_get_ref(p);
				bt_plugin_set_put_ref(set);
				return p;
			}
		}
	}
	if (bt_plugin_find(name, BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, BT_FALSE, &p) !=
	    BT_PLUGIN_FIND_STATUS_OK) {
		fprintf(stderr, "sclat: cannot find the babeltrace2 plugin \"%s\"%s\n", name,
			strcmp(name, "sclat") ? "" : " (run make, or make install)");
		bt_current_thread_clear_error();
		return NULL;
	}
	return p;
}

/* nftw() has no user data pointer. */
static bt_value *trace_dirs;

static int trace_dir_add(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	char dir[PATH_MAX];

	if (type != FTW_F || strcmp(path + ftw->base, "metadata"))
		return 0;
	snprintf(dir, sizeof(dir), "%.*s", ftw->base ? ftw->base - 1 : 1, path);
	return bt_value_array_append_string_element(trace_dirs, dir) ? -1 : 0;
}

#define CTF_METADATA_MAGIC	0x75d11d57U
#define CTF_METADATA_HEADER	37	/* bytes of a metadata packet header */

/*
 * babeltrace2 2.0 loops forever on packetized metadata cut inside a packet:
 * check that every packet the headers announce is there.
 */
static int metadata_check(const char *dir)
{
	unsigned char h[CTF_METADATA_HEADER];
	char path[PATH_MAX];
	long long off = 0, size;
	__u32 magic, content, packet;
	bool swap;
	FILE *f;
	int ret = -1;

	snprintf(path, sizeof(path), "%s/metadata", dir);
	f = fopen(path, "rb");
	if (!f || fseek(f, 0, SEEK_END) || (size = ftell(f)) < 0)
		goto out;
	ret = size ? 0 : -1;
	while (off < size) {
		if (fseek(f, off, SEEK_SET) || fread(h, sizeof(h), 1, f) != 1) {
			ret = off ? -1 : 0;	/* a short text metadata file is fine */
			break;
		}
		memcpy(&magic, h, 4);
		swap = magic == __builtin_bswap32(CTF_METADATA_MAGIC);
		if (magic != CTF_METADATA_MAGIC && !swap)
			break;		/* text metadata: babeltrace2 parses it */
		memcpy(&content, h + 24, 4);
		memcpy(&packet, h + 28, 4);
		if (swap) {
			content = __builtin_bswap32(content);
			packet = __builtin_bswap32(packet);
		}
		if (packet < CTF_METADATA_HEADER * 8 || content > packet ||
		    off + packet / 8 > size) {
			ret = -1;
			break;
		}
		off += packet / 8;
	}
out:
	if (f)
		fclose(f);
	return ret;
}

/* Every CTF trace under path (an LTTng session directory holds one per buffer kind). */
static int trace_dirs_find(struct graph_ctx *g)
{
	const char *dir;
	struct stat st;
	uint64_t i;

	if (stat(g->trace, &st)) {
		fprintf(stderr, "sclat: %s: %s\n", g->trace, errno == ENOENT ? "no such trace"
									     : strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		fprintf(stderr, "sclat: %s: not a CTF trace (not a directory)\n", g->trace);
		return -1;
	}
	g->inputs = bt_value_array_create();
	if (!g->inputs)
		return -1;
	trace_dirs = g->inputs;
	if (nftw(g->trace, trace_dir_add, 16, FTW_PHYS)) {
		fprintf(stderr, "sclat: %s: cannot walk the directory\n", g->trace);
		return -1;
	}
	if (!bt_value_array_get_length(g->inputs)) {
		fprintf(stderr, "sclat: %s: not a CTF trace (no metadata file in it)\n", g->trace);
		return -1;
	}
	for (i = 0; i < bt_value_array_get_length(g->inputs); i++) {
		dir = bt_value_string_get(bt_value_array_borrow_element_by_index_const(g->inputs, i));
		if (metadata_check(dir)) {
			fprintf(stderr, "sclat: %s: truncated or corrupt trace (%s/metadata is empty "
					"or ends inside a packet)\n", g->trace, dir);
			return -1;
		}
	}
	return 0;
}

/* The root cause of the current error, for the one line we print. */
static const char *error_root(const bt_error *err)
{
	uint64_t n = err ? bt_error_get_cause_count(err) : 0;

	/* Causes are kept in the order they were appended: the root first. */
	return n ? bt_error_cause_get_message(bt_error_borrow_cause_by_index(err, 0))
		 : "unknown error";
}

static bool error_mentions(const bt_error *err, const char *what)
{
	uint64_t i, n = err ? bt_error_get_cause_count(err) : 0;

	for (i = 0; i < n; i++)
		if (strstr(bt_error_cause_get_message(bt_error_borrow_cause_by_index(err, i)),
			   what))
			return true;
	return false;
}

/* One line for a failed graph step; the causes' first line only. */
static void error_print(const char *trace, const char *doing)
{
	const bt_error *err = bt_current_thread_take_error();
	const char *root = error_root(err);
	int len = (int)strcspn(root, "\n");

	if (error_mentions(err, "not an sclat trace"))
		fprintf(stderr, "sclat: %s: not an sclat trace (no sclat:* events; "
				"record one with sclat record)\n", trace);
	else
		fprintf(stderr, "sclat: %s: %s: %.*s\n", trace, doing, len, root);
	bt_error_release(err);
}

/* The graph up to the muxer's output: sources of every trace, all into the muxer. */
static int graph_source(struct graph_ctx *g)
{
	static const char *const names[] = { "ctf", "utils", "sclat" };
	bt_value *params = NULL;
	uint64_t i, j, n;
	int ret = -1;

	for (i = 0; i < 3; i++) {
		g->plugins[i] = plugin_load(names[i]);
		if (!g->plugins[i])
			return -1;
	}
	if (trace_dirs_find(g))
		return -1;
	g->graph = bt_graph_create(0);
	params = bt_value_map_create();
	if (!g->graph || !params ||
	    bt_value_map_insert_entry(params, "inputs", g->inputs))
		goto out;
	if (bt_graph_add_source_component(g->graph,
		    bt_plugin_borrow_source_component_class_by_name_const(g->plugins[0], "fs"),
		    "src", params, BT_LOGGING_LEVEL_NONE, &g->src)) {
		error_print(g->trace, "not a readable CTF trace");
		goto out;
	}
	if (bt_graph_add_filter_component(g->graph,
		    bt_plugin_borrow_filter_component_class_by_name_const(g->plugins[1], "muxer"),
		    "mux", NULL, BT_LOGGING_LEVEL_NONE, &g->mux))
		goto graph_error;
	/* The muxer adds an input port each time one gets connected. */
	n = bt_component_source_get_output_port_count(g->src);
	for (i = 0; i < n; i++) {
		const bt_port_input *in = NULL;

		for (j = 0; j < bt_component_filter_get_input_port_count(g->mux); j++) {
			in = bt_component_filter_borrow_input_port_by_index_const(g->mux, j);
			if (!bt_port_is_connected(bt_port_input_as_port_const(in)))
				break;
		}
		if (bt_graph_connect_ports(g->graph,
			    bt_component_source_borrow_output_port_by_index_const(g->src, i), in,
			    NULL))
			goto graph_error;
	}
	ret = 0;
	goto out;
graph_error:
	error_print(g->trace, "cannot build the babeltrace2 graph");
out:
	bt_value_put_ref(params);
	return ret;
}

static const bt_port_output *mux_out(struct graph_ctx *g)
{
	return bt_component_filter_borrow_output_port_by_index_const(g->mux, 0);
}

static int graph_run(struct graph_ctx *g)
{
	bt_graph_run_status st;

	do {
		st = bt_graph_run(g->graph);
		if (st == BT_GRAPH_RUN_STATUS_AGAIN)
			usleep(1000);
	} while (st == BT_GRAPH_RUN_STATUS_AGAIN);
	if (st != BT_GRAPH_RUN_STATUS_OK) {
		error_print(g->trace, "cannot read the trace");
		return -1;
	}
	return 0;
}

static void graph_free(struct graph_ctx *g)
{
	int i;

	bt_graph_put_ref(g->graph);
	bt_value_put_ref(g->inputs);
	for (i = 0; i < 3; i++)
		bt_plugin_put_ref(g->plugins[i]);
}

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
	"T is a time in ns since the epoch (as babeltrace2 --clock-seconds shows, times 1e9), "
	"or seconds with a fraction (1700000000.25); an outlier is in the range when its "
	"entry is. Times in the report are UTC.";

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
	if (argp_parse(&report_argp, argc, argv, 0, NULL, &a))
		goto out;
	g.trace = a.trace;
	if (graph_source(&g))
		goto out;
	if (bt_graph_add_sink_component(g.graph,
		    bt_plugin_borrow_sink_component_class_by_name_const(g.plugins[2], "report"),
		    "report", a.params, BT_LOGGING_LEVEL_NONE, &sink) ||
	    bt_graph_connect_ports(g.graph, mux_out(&g),
		    bt_component_sink_borrow_input_port_by_index_const(sink, 0), NULL)) {
		error_print(g.trace, "cannot build the babeltrace2 graph");
		goto out;
	}
	ret = graph_run(&g) ? 1 : 0;
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
	"OUT must not exist or be an empty directory.";

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

/* OUT must be new or an empty directory: sink.ctf.fs writes into it. */
static int out_check(const char *out)
{
	struct dirent *de;
	DIR *d = opendir(out);

	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
			closedir(d);
			return -ENOTEMPTY;
		}
	closedir(d);
	return 0;
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

	if (argp_parse(&convert_argp, argc, argv, 0, NULL, &a))
		return 1;
	err = out_check(a.out);
	if (err) {
		fprintf(stderr, "sclat: %s: %s\n", a.out,
			err == -ENOTEMPTY ? "not empty; name a new directory" : strerror(-err));
		return 1;
	}
	g.trace = a.trace;
	if (graph_source(&g))
		goto out;
	params = bt_value_map_create();
	if (!params || bt_value_map_insert_string_entry(params, "path", a.out) ||
	    bt_value_map_insert_bool_entry(params, "assume-single-trace", BT_TRUE) ||
	    bt_value_map_insert_bool_entry(params, "quiet", BT_TRUE))
		goto out;
	if (bt_graph_add_filter_component(g.graph,
		    bt_plugin_borrow_filter_component_class_by_name_const(g.plugins[2],
									  "kernelize"),
		    "kernelize", NULL, BT_LOGGING_LEVEL_NONE, &kz) ||
	    bt_graph_add_sink_component(g.graph,
		    bt_plugin_borrow_sink_component_class_by_name_const(g.plugins[0], "fs"),
		    "out", params, BT_LOGGING_LEVEL_NONE, &sink) ||
	    bt_graph_connect_ports(g.graph, mux_out(&g),
		    bt_component_filter_borrow_input_port_by_index_const(kz, 0), NULL) ||
	    bt_graph_connect_ports(g.graph,
		    bt_component_filter_borrow_output_port_by_index_const(kz, 0),
		    bt_component_sink_borrow_input_port_by_index_const(sink, 0), NULL)) {
		error_print(g.trace, "cannot build the babeltrace2 graph");
		goto out;
	}
	if (graph_run(&g))
		goto out;
	/* sink.ctf.fs writes the metadata when the graph goes away. */
	graph_free(&g);
	memset(&g, 0, sizeof(g));
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
	return ret;
}
