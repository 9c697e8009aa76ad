// SPDX-License-Identifier: GPL-2.0-only
/*
 * The front of every sclat babeltrace2 graph: the CTF traces under a path,
 * src.ctf.fs -> filter.utils.muxer, with the plugins it needs.
 */
#include <errno.h>
#include <inttypes.h>
#include <ftw.h>
#include <libgen.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "util/clock.h"
#include "util/compiler.h"
#include "util/ctf_index.h"
#include "util/escape.h"
#include "graph_error.h"
#include "trace_graph.h"
#include "util/ctf_metadata.h"
#include "util/log.h"

void graph_fail(struct graph_ctx *g, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(g->err, sizeof(g->err), "%s: ", g->trace);
	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < sizeof(g->err))
		vsnprintf(g->err + n, sizeof(g->err) - n, fmt, ap);
	va_end(ap);
}

#define SCLAT_PLUGIN_FILE "babeltrace-plugin-sclat.so"

/* Where `make` puts the plugin, from user/sclat and tracer-plugins/tracecompass/sclat-lami. */
static const char *const plugin_tree_dirs[] = { "../.output/plugins", "../../.output/plugins" };

static const bt_plugin *plugin_from_tree(void)
{
	const bt_plugin_set *set = NULL;
	const bt_plugin *p = NULL;
	char exe[PATH_MAX], path[PATH_MAX + 64];
	ssize_t n;
	size_t i;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return NULL;
	exe[n] = '\0';
	dirname(exe);
	for (i = 0; i < sizeof(plugin_tree_dirs) / sizeof(plugin_tree_dirs[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s/%s", exe, plugin_tree_dirs[i],
			 SCLAT_PLUGIN_FILE);
		if (access(path, R_OK) || bt_plugin_find_all_from_file(path, BT_TRUE, &set) !=
						  BT_PLUGIN_FIND_ALL_FROM_FILE_STATUS_OK)
			continue;
		p = bt_plugin_set_borrow_plugin_by_index_const(set, 0);
		bt_plugin_get_ref(p);
		bt_plugin_set_put_ref(set);
		return p;
	}
	return NULL;
}

/* A plugin of babeltrace2's own, or sclat's: from the tree first. */
static const bt_plugin *plugin_load(struct graph_ctx *g, const char *name)
{
	const bt_plugin *p = NULL;

	if (!strcmp(name, "sclat")) {
		p = plugin_from_tree();
		if (p)
			return p;
	}
	if (bt_plugin_find(name, BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, BT_FALSE, &p) !=
	    BT_PLUGIN_FIND_STATUS_OK) {
		snprintf(g->err, sizeof(g->err), "cannot find the babeltrace2 plugin \"%s\"%s",
			 name, strcmp(name, "sclat") ? "" : " (run make, or make install)");
		bt_current_thread_clear_error();
		return NULL;
	}
	return p;
}

/* nftw() has no user data pointer. */
static bt_value *trace_dirs;
static char trace_dir_unreadable[PATH_MAX]; /* the first directory the walk could not read */

static int trace_dir_add(const char *path, const struct stat *st __always_unused, int type,
			 struct FTW *ftw)
{
	char dir[PATH_MAX];

	if (type == FTW_DNR && !trace_dir_unreadable[0])
		snprintf(trace_dir_unreadable, sizeof(trace_dir_unreadable), "%s", path);
	if (type != FTW_F || strcmp(path + ftw->base, "metadata"))
		return 0;
	snprintf(dir, sizeof(dir), "%.*s", ftw->base ? ftw->base - 1 : 1, path);
	return bt_value_array_append_string_element(trace_dirs, dir) ? -1 : 0;
}

/*
 * babeltrace2 2.0 trusts an index it can parse, and aborts on one that points
 * past its stream: input i is read without its index when that does not
 * match its streams, from a directory of links to them, and g->warn says so.
 */
static int index_bypass(struct graph_ctx *g, uint64_t i)
{
	const char *dir =
		bt_value_string_get(bt_value_array_borrow_element_by_index_const(g->inputs, i));
	char why[256], bypass[PATH_MAX];
	int err;

	if (!ctf_index_check(dir, why, sizeof(why)))
		return 0;
	if (!g->bypasses)
		g->bypasses = bt_value_array_create();
	err = g->bypasses ? ctf_index_bypass(dir, bypass, sizeof(bypass)) : -ENOMEM;
	if (err) {
		graph_fail(g, "%s/%s, and it cannot be read without it: %s", dir, why,
			   strerror(-err));
		return -1;
	}
	if (bt_value_array_append_string_element(g->bypasses, bypass)) {
		ctf_index_bypass_remove(bypass);
		return -1;
	}
	if (!g->warn[0])
		snprintf(g->warn, sizeof(g->warn), "%s/%s: read without the index", dir, why);
	return bt_value_array_set_element_by_index(
		       g->inputs, i,
		       bt_value_array_borrow_element_by_index(
			       g->bypasses, bt_value_array_get_length(g->bypasses) - 1))
		       ? -1
		       : 0;
}

/*
 * path cannot be read (err): a trace sclat record wrote as root is root's,
 * so a user who is not says so rather than "no trace here" or "corrupt".
 */
static void unreadable_fail(struct graph_ctx *g, const char *path, int err)
{
	graph_fail(g, "cannot read %s: %s%s", path, strerror(err),
		   err == EACCES && geteuid() ? " (recorded as root? read it as root)" : "");
}

/* Every CTF trace under one path (an LTTng session directory holds one per buffer kind). */
static int trace_dirs_walk(struct graph_ctx *g, const char *path, bt_value *found)
{
	struct stat st;
	uint64_t before;

	/* An error names the path it is about. */
	g->trace = path;
	if (stat(path, &st)) {
		graph_fail(g, "%s", errno == ENOENT ? "no such trace" : strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		graph_fail(g, "not a CTF trace (not a directory)");
		return -1;
	}
	trace_dirs = found;
	trace_dir_unreadable[0] = 0;
	before = bt_value_array_get_length(found);
	if (nftw(path, trace_dir_add, 16, FTW_PHYS)) {
		graph_fail(g, "cannot walk the directory %s", path);
		return -1;
	}
	if (trace_dir_unreadable[0]) {
		unreadable_fail(g, trace_dir_unreadable, EACCES);
		return -1;
	}
	if (bt_value_array_get_length(found) == before) {
		graph_fail(g, "not a CTF trace (no metadata file in it)");
		return -1;
	}
	return 0;
}

/* Whether the metadata of the CTF trace in dir declares sclat:* events. */
static bool trace_declares_sclat(struct graph_ctx *g, const char *dir)
{
	const bt_component_class *fs = bt_component_class_source_as_component_class_const(
		bt_plugin_borrow_source_component_class_by_name_const(g->plugins[GRAPH_PLUGIN_CTF],
								      "fs"));
	bt_value *params = bt_value_map_create();
	bt_query_executor *q = NULL;
	const bt_value *res = NULL, *text;
	bool found = false;

	if (params && !bt_value_map_insert_string_entry(params, "path", dir))
		q = bt_query_executor_create(fs, "metadata-info", params);
	if (q && bt_query_executor_query(q, &res) == BT_QUERY_EXECUTOR_QUERY_STATUS_OK) {
		text = bt_value_map_borrow_entry_value_const(res, "text");
		found = text && bt_value_is_string(text) &&
			strstr(bt_value_string_get(text), "name = \"sclat:");
	}
	bt_value_put_ref(res);
	bt_query_executor_put_ref(q);
	bt_value_put_ref(params);
	bt_current_thread_clear_error();
	return found;
}

/*
 * The sclat traces under the paths into g->inputs. A trace that is not
 * sclat's is skipped with a note, unless it is the only one: then it is the
 * error.
 */
static int trace_dirs_find(struct graph_ctx *g)
{
	char *const single[] = { (char *)g->trace };
	char *const *paths = g->paths ? g->paths : single;
	size_t nr_paths = g->paths ? g->nr_paths : 1, i;
	bt_value *found = bt_value_array_create();
	char meta[PATH_MAX];
	const char *dir, *why;
	uint64_t n, k;
	int ret = -1;

	g->inputs = bt_value_array_create();
	if (!found || !g->inputs)
		goto out;
	for (i = 0; i < nr_paths; i++)
		if (trace_dirs_walk(g, paths[i], found))
			goto out;
	g->trace = paths[0];
	/* Not 0: each path's walk refused a path without a trace. */
	n = bt_value_array_get_length(found);
	for (k = 0; k < n; k++) {
		dir = bt_value_string_get(bt_value_array_borrow_element_by_index_const(found, k));
		snprintf(meta, sizeof(meta), "%s/metadata", dir);
		if (access(meta, R_OK)) {
			unreadable_fail(g, meta, errno);
			goto out;
		}
		/* Before babeltrace2 opens it: a FIFO would block it forever. */
		why = ctf_metadata_problem(dir);
		if (why) {
			graph_fail(g,
				   strncmp(why, "not a regular file", 18)
					   ? "truncated or corrupt trace (%s/metadata: %s)"
					   : "cannot read %s/metadata: %s",
				   dir, why);
			goto out;
		}
		if (n > 1 && !trace_declares_sclat(g, dir)) {
			log_warn("%s: not an sclat trace (no sclat:* events), skipped", dir);
			continue;
		}
		if (bt_value_array_append_string_element(g->inputs, dir))
			goto out;
		if (index_bypass(g, bt_value_array_get_length(g->inputs) - 1))
			goto out;
	}
	if (!bt_value_array_get_length(g->inputs)) {
		graph_fail(g, "no sclat trace in it (no sclat:* events; record one with sclat "
			      "record)");
		goto out;
	}
	ret = 0;
out:
	bt_value_put_ref(found);
	return ret;
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

/*
 * Whether the metadata of a trace under the paths declares sclat:* events:
 * then a trace without any is an empty sclat trace, not someone else's.
 */
static bool inputs_declare_sclat(struct graph_ctx *g)
{
	uint64_t i;

	for (i = 0; i < bt_value_array_get_length(g->inputs); i++)
		if (trace_declares_sclat(
			    g, bt_value_string_get(
				       bt_value_array_borrow_element_by_index_const(g->inputs, i))))
			return true;
	return false;
}

void graph_fail_bt(struct graph_ctx *g, const char *doing)
{
	const bt_error *err = bt_current_thread_take_error();
	char root[sizeof(g->err)], line[sizeof(g->err)];
	size_t n;

	graph_error_line(err, root, sizeof(root));

	/* One line, and what a trace put in it cannot drive the terminal. */
	text_escape(root, strcspn(root, "\n"), line, sizeof(line));

	if (error_mentions(err, "not an sclat trace") && inputs_declare_sclat(g))
		graph_fail(g, "empty sclat trace (no events: its data streams hold none)");
	else if (error_mentions(err, "not an sclat trace"))
		graph_fail(g,
			   "not an sclat trace (no sclat:* events; record one with sclat record)");
	else
		graph_fail(g, "%s: %s", doing, line);
	/* The one line says all: an index was not used, too. */
	n = strlen(g->err);
	if (g->warn[0] && n + 4 < sizeof(g->err))
		snprintf(g->err + n, sizeof(g->err) - n, " (%.*s)", (int)(sizeof(g->err) - n - 4),
			 g->warn);
	bt_error_release(err);
}

/* Every output port of src to a free input port of the muxer; 0, or -1 with the error set. */
static int source_connect(bt_graph *graph, const bt_component_source *src,
			  const bt_component_filter *mux)
{
	uint64_t i, j;

	/* The muxer adds an input port each time one gets connected. */
	for (i = 0; i < bt_component_source_get_output_port_count(src); i++) {
		const bt_port_input *in = NULL;

		for (j = 0; j < bt_component_filter_get_input_port_count(mux); j++) {
			in = bt_component_filter_borrow_input_port_by_index_const(mux, j);
			if (!bt_port_is_connected(bt_port_input_as_port_const(in)))
				break;
		}
		if (bt_graph_connect_ports(
			    graph, bt_component_source_borrow_output_port_by_index_const(src, i),
			    in, NULL))
			return -1;
	}
	return 0;
}

int graph_add_ctf_sources(bt_graph *graph, const bt_plugin *ctf, const bt_value *dirs,
			  const bt_component_filter *mux)
{
	const bt_component_class_source *fs =
		bt_plugin_borrow_source_component_class_by_name_const(ctf, "fs");
	const bt_component_source *src;
	bt_value *params = NULL, *inputs = NULL;
	uint64_t k;
	char name[32];
	int ret = -1;

	/* One source per trace: src.ctf.fs reads several inputs as one trace only. */
	for (k = 0; k < bt_value_array_get_length(dirs); k++) {
		const char *dir =
			bt_value_string_get(bt_value_array_borrow_element_by_index_const(dirs, k));

		params = bt_value_map_create();
		inputs = bt_value_array_create();
		if (!params || !inputs || bt_value_array_append_string_element(inputs, dir) ||
		    bt_value_map_insert_entry(params, "inputs", inputs))
			goto out;
		snprintf(name, sizeof(name), "src-%" PRIu64, k);
		if (bt_graph_add_source_component(graph, fs, name, params, BT_LOGGING_LEVEL_NONE,
						  &src))
			goto out;
		if (source_connect(graph, src, mux))
			goto out;
		BT_VALUE_PUT_REF_AND_RESET(params);
		BT_VALUE_PUT_REF_AND_RESET(inputs);
	}
	ret = 0;
out:
	bt_value_put_ref(params);
	bt_value_put_ref(inputs);
	return ret;
}

/* The graph up to the muxer's output: a source per trace, all into the muxer. */
int graph_source(struct graph_ctx *g)
{
	static const char *const names[] = { "ctf", "utils", "sclat" };
	uint64_t i;

	for (i = 0; i < 3; i++) {
		g->plugins[i] = plugin_load(g, names[i]);
		if (!g->plugins[i])
			return -1;
	}
	if (trace_dirs_find(g))
		return -1;
	g->graph = bt_graph_create(0);
	if (!g->graph)
		return -1;
	if (bt_graph_add_filter_component(g->graph,
					  bt_plugin_borrow_filter_component_class_by_name_const(
						  g->plugins[GRAPH_PLUGIN_UTILS], "muxer"),
					  "mux", NULL, BT_LOGGING_LEVEL_NONE, &g->mux)) {
		graph_fail_bt(g, "cannot build the babeltrace2 graph");
		return -1;
	}
	if (graph_add_ctf_sources(g->graph, g->plugins[GRAPH_PLUGIN_CTF], g->inputs, g->mux)) {
		graph_fail_bt(g, "not a readable CTF trace");
		return -1;
	}
	return 0;
}

/* The live sessions of the relay daemon at url (an array of maps with "url"), or NULL. */
static const bt_value *live_sessions(struct graph_ctx *g, const char *url)
{
	const bt_component_class *live = bt_component_class_source_as_component_class_const(
		bt_plugin_borrow_source_component_class_by_name_const(g->plugins[GRAPH_PLUGIN_CTF],
								      "lttng-live"));
	bt_value *params = bt_value_map_create();
	bt_query_executor *q = NULL;
	const bt_value *res = NULL;

	if (params && !bt_value_map_insert_string_entry(params, "url", url))
		q = bt_query_executor_create(live, "sessions", params);
	if (!q || bt_query_executor_query(q, &res) != BT_QUERY_EXECUTOR_QUERY_STATUS_OK)
		graph_fail_bt(g, "cannot list the relay daemon's live sessions");
	bt_query_executor_put_ref(q);
	bt_value_put_ref(params);
	return res;
}

static int plugins_load(struct graph_ctx *g)
{
	static const char *const names[] = { "ctf", "utils", "sclat" };
	int i;

	for (i = 0; i < 3; i++) {
		g->plugins[i] = plugin_load(g, names[i]);
		if (!g->plugins[i])
			return -1;
	}
	return 0;
}

/* One live session (surl) -> muxer -> sink.sclat.sink: a graph of its own in g. */
static int live_graph(struct graph_ctx *g, const char *surl, const char *sink,
		      const bt_value *sink_params)
{
	bt_value *params = bt_value_map_create(), *inputs = bt_value_array_create();
	const bt_component_source *src;
	int ret = -1;

	g->graph = bt_graph_create(0);
	/* A session that ends (its host stopped) ends its graph, not the others. */
	if (!params || !inputs || !g->graph || bt_value_array_append_string_element(inputs, surl) ||
	    bt_value_map_insert_entry(params, "inputs", inputs) ||
	    bt_value_map_insert_string_entry(params, "session-not-found-action", "end") ||
	    bt_graph_add_filter_component(g->graph,
					  bt_plugin_borrow_filter_component_class_by_name_const(
						  g->plugins[GRAPH_PLUGIN_UTILS], "muxer"),
					  "mux", NULL, BT_LOGGING_LEVEL_NONE, &g->mux) ||
	    bt_graph_add_source_component(g->graph,
					  bt_plugin_borrow_source_component_class_by_name_const(
						  g->plugins[GRAPH_PLUGIN_CTF], "lttng-live"),
					  "live", params, BT_LOGGING_LEVEL_NONE, &src) ||
	    source_connect(g->graph, src, g->mux))
		graph_fail_bt(g, "cannot build the babeltrace2 graph");
	else
		ret = graph_add_sink(g, sink, sink_params);
	bt_value_put_ref(params);
	bt_value_put_ref(inputs);
	return ret;
}

struct followed {
	char *url; /* the session's live URL */
	struct graph_ctx g;
	bool ended;
};

static bool followed_has(const struct followed *f, size_t n, const char *url)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(f[i].url, url))
			return true;
	return false;
}

/* Follow the sessions of the list that are new; returns how many, or -1 with g->err set. */
static int follow_new(struct graph_ctx *g, const bt_value *sessions, struct followed **fp,
		      size_t *np, const char *sink, const bt_value *sink_params)
{
	uint64_t k, n = bt_value_array_get_length(sessions);
	struct followed *f;
	const char *surl;
	int added = 0;

	for (k = 0; k < n; k++) {
		const bt_value *v = bt_value_map_borrow_entry_value_const(
			bt_value_array_borrow_element_by_index_const(sessions, k), "url");

		if (!v || !bt_value_is_string(v))
			continue;
		surl = bt_value_string_get(v);
		if (followed_has(*fp, *np, surl))
			continue;
		f = realloc(*fp, (*np + 1) * sizeof(**fp));
		if (!f) {
			graph_fail(g, "%s", strerror(ENOMEM));
			return -1;
		}
		*fp = f;
		f = &f[*np];
		*f = (struct followed){ .url = strdup(surl), .g = { .trace = g->trace } };
		if (!f->url || plugins_load(&f->g) || live_graph(&f->g, surl, sink, sink_params)) {
			snprintf(g->err, sizeof(g->err), "%s",
				 f->url ? f->g.err : strerror(ENOMEM));
			graph_free(&f->g);
			free(f->url);
			return -1;
		}
		(*np)++;
		added++;
	}
	return added;
}

int graph_live_follow(struct graph_ctx *g, const char *url, const char *sink,
		      const bt_value *sink_params)
{
	struct followed *f = NULL;
	const bt_value *sessions;
	size_t n = 0, i, running;
	__u64 listed = 0, now;
	bool said = false, moved;
	int ret = -1, added;

	if (plugins_load(g))
		return -1;
	while (!g->stop) {
		now = clock_ns(CLOCK_MONOTONIC);
		running = 0;
		for (i = 0; i < n; i++)
			running += !f[i].ended;
		/* The relay daemon's sessions, again every second: a host may join any time. */
		if (!listed || now - listed >= 1000000000ULL || !running) {
			if (listed && !running && now - listed < 1000000000ULL)
				usleep((1000000000ULL - (now - listed)) / 1000);
			g->busy_since_ns = clock_ns(CLOCK_MONOTONIC);
			sessions = live_sessions(g, url);
			g->busy_since_ns = 0;
			if (!sessions)
				goto out;
			added = follow_new(g, sessions, &f, &n, sink, sink_params);
			bt_value_put_ref(sessions);
			listed = clock_ns(CLOCK_MONOTONIC);
			if (added < 0)
				goto out;
			/* Every session followed has ended, and no new one began: done. */
			if (n && !running && !added)
				break;
			if (!n && !said)
				log_note("%s: no live session yet, waiting for one", url);
			said = said || !n;
		}
		/* One step of each session's graph in turn, on this thread. */
		moved = false;
		for (i = 0; i < n && !g->stop; i++) {
			enum bt_graph_run_once_status st;

			if (f[i].ended)
				continue;
			g->busy_since_ns = clock_ns(CLOCK_MONOTONIC);
			st = bt_graph_run_once(f[i].g.graph);
			g->busy_since_ns = 0;
			switch (st) {
			case BT_GRAPH_RUN_ONCE_STATUS_OK:
				moved = true;
				break;
			case BT_GRAPH_RUN_ONCE_STATUS_AGAIN:
				break;
			case BT_GRAPH_RUN_ONCE_STATUS_END:
				f[i].ended = true;
				graph_free(&f[i].g);
				break;
			default:
				graph_fail_bt(g, "cannot read the live session");
				goto out;
			}
		}
		if (!moved)
			usleep(1000);
	}
	ret = 0;
out:
	for (i = 0; i < n; i++) {
		graph_free(&f[i].g);
		free(f[i].url);
	}
	free(f);
	return ret;
}

int graph_query(struct graph_ctx *g, const char *object, const bt_value **result)
{
	const bt_component_class *report = bt_component_class_sink_as_component_class_const(
		bt_plugin_borrow_sink_component_class_by_name_const(g->plugins[GRAPH_PLUGIN_SCLAT],
								    "report"));
	bt_value *params = bt_value_map_create();
	bt_query_executor *q = NULL;
	int ret = -1;

	*result = NULL;
	if (params && !bt_value_map_insert_entry(params, "inputs", g->inputs))
		q = bt_query_executor_create(report, object, params);
	if (q && bt_query_executor_query(q, result) == BT_QUERY_EXECUTOR_QUERY_STATUS_OK)
		ret = 0;
	else
		graph_fail_bt(g, "cannot read the trace");
	bt_query_executor_put_ref(q);
	bt_value_put_ref(params);
	return ret;
}

const bt_port_output *graph_mux_out(struct graph_ctx *g)
{
	return bt_component_filter_borrow_output_port_by_index_const(g->mux, 0);
}

int graph_add_sink(struct graph_ctx *g, const char *name, const bt_value *params)
{
	const bt_component_sink *sink;

	if (bt_graph_add_sink_component(g->graph,
					bt_plugin_borrow_sink_component_class_by_name_const(
						g->plugins[GRAPH_PLUGIN_SCLAT], name),
					name, params, BT_LOGGING_LEVEL_NONE, &sink) ||
	    bt_graph_connect_ports(g->graph, graph_mux_out(g),
				   bt_component_sink_borrow_input_port_by_index_const(sink, 0),
				   NULL)) {
		graph_fail_bt(g, "cannot build the babeltrace2 graph");
		return -1;
	}
	return 0;
}

int graph_run(struct graph_ctx *g)
{
	bt_graph_run_status st;

	do {
		st = bt_graph_run(g->graph);
		if (st == BT_GRAPH_RUN_STATUS_AGAIN)
			usleep(1000);
	} while (st == BT_GRAPH_RUN_STATUS_AGAIN);
	if (st != BT_GRAPH_RUN_STATUS_OK) {
		graph_fail_bt(g, "cannot read the trace");
		return -1;
	}
	if (g->warn[0])
		log_warn("%s", g->warn);
	return 0;
}

void graph_free(struct graph_ctx *g)
{
	uint64_t k;
	int i;

	bt_graph_put_ref(g->graph);
	bt_value_put_ref(g->inputs);
	for (k = 0; g->bypasses && k < bt_value_array_get_length(g->bypasses); k++)
		ctf_index_bypass_remove(bt_value_string_get(
			bt_value_array_borrow_element_by_index_const(g->bypasses, k)));
	bt_value_put_ref(g->bypasses);
	g->bypasses = NULL;
	for (i = 0; i < 3; i++)
		bt_plugin_put_ref(g->plugins[i]);
	g->graph = NULL;
	g->inputs = NULL;
	memset(g->plugins, 0, sizeof(g->plugins));
}
