// SPDX-License-Identifier: GPL-2.0-only
/*
 * sclat convert: a babeltrace2 graph that writes a recorded trace again as an
 * LTTng kernel trace for Trace Compass,
 *
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
#include "util/compiler.h"
#include "args.h"
#include "commands.h"
#include "trace/trace_fence.h"
#include "trace/trace_graph.h"
#include "util/log.h"

struct convert_args {
	const char *trace;
	const char *out;
};

static const char convert_doc[] =
	"Convert a trace recorded by sclat record into an LTTng kernel trace that Trace "
	"Compass and lttng-analyses open as one, laid out as an LTTng session (the kernel "
	"trace in OUT/kernel): each outlier becomes a syscall_entry_NAME and syscall_exit_NAME "
	"pair at its true times, with the sched_switch events that place its thread on its "
	"CPU, so the System Call Latency views show the outliers, and a "
	"lttng_statedump_process_state before each thread first runs: its process and name; "
	"and an lttng_statedump_file_descriptor before the first call on an fd whose file "
	"the outlier names. "
	"An outlier that left its CPU (a trace of version 7) is switched out, woken "
	"(sched_waking, sched_wakeup) and switched back in at the times and on the CPUs "
	"recorded, so the thread views show when it ran and when it waited.\n"
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
			argp_failure(state, 2, 0,
				     "which trace, and where to? "
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

static int out_remove_entry(const char *path, const struct stat *st __always_unused,
			    int type __always_unused, struct FTW *ftw __always_unused)
{
	return remove(path) ? -1 : 0;
}

/*
 * sink.ctf.fs writes only into a directory it creates: into an existing empty
 * OUT through a new one inside it, whose entries move up to OUT at the end.
 */
#define CONVERT_STAGING	   ".sclat-convert"
#define CONVERT_KERNEL_DIR "kernel"

static int staging_move_up(const char *staging, const char *out)
{
	char from[PATH_MAX + NAME_MAX + 2], to[PATH_MAX + NAME_MAX + 2];
	struct dirent *de;
	DIR *d = opendir(staging);
	int err = 0;

	if (!d)
		return -errno;
	while (!err && (de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(from, sizeof(from), "%s/%s", staging, de->d_name);
		snprintf(to, sizeof(to), "%s/%s", out, de->d_name);
		if (rename(from, to))
			err = -errno;
	}
	closedir(d);
	if (!err && rmdir(staging))
		err = -errno;
	return err;
}

struct convert_run {
	struct convert_args a;
	char write_dir[PATH_MAX];
	bool new_out; /* OUT did not exist: write_dir is OUT */
};

/* The conversion itself: in a child process (trace_fenced()), as babeltrace2 may crash on a trace.
 */
static int convert_read(void *arg)
{
	struct convert_run *c = arg;
	struct graph_ctx g = {};
	const bt_component_filter *kz;
	const bt_component_sink *sink;
	bt_value *params = NULL;
	char kernel[PATH_MAX + 16], meta[PATH_MAX + 32];
	int ret = 1, moved;

	g.trace = c->a.trace;
	if (graph_source(&g)) {
		log_err("%s", g.err);
		goto out;
	}
	/* As LTTng lays out a session: the kernel trace in kernel/ (lttng-analyses looks there). */
	snprintf(kernel, sizeof(kernel), "%s/" CONVERT_KERNEL_DIR, c->write_dir);
	params = bt_value_map_create();
	if (!params || bt_value_map_insert_string_entry(params, "path", kernel) ||
	    bt_value_map_insert_bool_entry(params, "assume-single-trace", BT_TRUE) ||
	    bt_value_map_insert_bool_entry(params, "quiet", BT_TRUE))
		goto out;
	if (bt_graph_add_filter_component(g.graph,
					  bt_plugin_borrow_filter_component_class_by_name_const(
						  g.plugins[GRAPH_PLUGIN_SCLAT], "kernelize"),
					  "kernelize", NULL, BT_LOGGING_LEVEL_NONE, &kz) ||
	    bt_graph_add_sink_component(g.graph,
					bt_plugin_borrow_sink_component_class_by_name_const(
						g.plugins[GRAPH_PLUGIN_CTF], "fs"),
					"out", params, BT_LOGGING_LEVEL_NONE, &sink) ||
	    bt_graph_connect_ports(g.graph, graph_mux_out(&g),
				   bt_component_filter_borrow_input_port_by_index_const(kz, 0),
				   NULL) ||
	    bt_graph_connect_ports(
		    g.graph, bt_component_filter_borrow_output_port_by_index_const(kz, 0),
		    bt_component_sink_borrow_input_port_by_index_const(sink, 0), NULL)) {
		graph_fail_bt(&g, "cannot build the babeltrace2 graph");
		log_err("%s", g.err);
		goto out;
	}
	if (graph_run(&g)) {
		log_err("%s", g.err);
		goto out;
	}
	/* sink.ctf.fs writes the metadata when the graph goes away. */
	graph_free(&g);
	snprintf(meta, sizeof(meta), "%s/metadata", kernel);
	if (access(meta, F_OK)) {
		log_err("%s: no outliers to convert", c->a.trace);
		goto out;
	}
	if (!c->new_out) {
		moved = staging_move_up(c->write_dir, c->a.out);
		if (moved) {
			log_err("%s: moving the trace into it: %s", c->a.out, strerror(-moved));
			goto out;
		}
	}
	log_note("wrote %s", c->a.out);
	ret = 0;
out:
	bt_value_put_ref(params);
	graph_free(&g);
	return ret;
}

int cmd_convert(int argc, char **argv)
{
	struct convert_run c = {};
	char why[256];
	int ret, err;

	if (args_parse(&convert_argp, argc, argv, 0, &c.a))
		return 2;
	err = out_check(c.a.out);
	if (err < 0) {
		log_err("%s: %s", c.a.out,
			err == -ENOTEMPTY ? "not empty; name a new directory" : strerror(-err));
		return 1;
	}
	c.new_out = err;
	if ((size_t)snprintf(c.write_dir, sizeof(c.write_dir),
			     c.new_out ? "%s" : "%s/" CONVERT_STAGING,
			     c.a.out) >= sizeof(c.write_dir)) {
		log_err("%s: path too long", c.a.out);
		return 1;
	}
	ret = trace_fenced((char *const *)&c.a.trace, 1, convert_read, &c, why, sizeof(why));
	if (ret < 0) {
		log_err("%s: %s", c.a.trace, why);
		ret = 1;
	}
	/* No half-written trace: OUT as it was, gone when it was new, else empty again. */
	if (ret)
		nftw(c.write_dir, out_remove_entry, 16, FTW_DEPTH | FTW_PHYS);
	return ret;
}
