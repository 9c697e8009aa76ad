/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The front of every sclat babeltrace2 graph (sclat report, sclat convert,
 * sclat-lami): one src.ctf.fs per sclat trace found under the paths (a trace
 * directory, a relay daemon's output root, copies of many hosts' traces), all
 * into a muxer that merges them in time.
 */
#ifndef SCLAT_TRACE_GRAPH_H
#define SCLAT_TRACE_GRAPH_H

#include <babeltrace2/babeltrace.h>
#include <linux/types.h>

enum graph_plugin {
	GRAPH_PLUGIN_CTF,
	GRAPH_PLUGIN_UTILS,
	GRAPH_PLUGIN_SCLAT,
};

struct graph_ctx {
	const char *trace;  /* as the user named it (the first path, when several) */
	char *const *paths; /* every path the user named; NULL: trace alone */
	size_t nr_paths;
	bt_graph *graph;
	const bt_plugin *plugins[3]; /* by enum graph_plugin */
	bt_value *inputs;	     /* the sclat CTF trace directories under the paths */
	const bt_component_filter *mux;
	char err[512];	    /* one line, "TRACE: what is wrong", after a failure */
	char warn[512];	    /* an index not used: said once the graph has run */
	bt_value *bypasses; /* the directories read in place of those with a bad index */
	/*
	 * graph_live_follow(), for a thread that watches it: when the call into
	 * babeltrace2 in progress began (CLOCK_MONOTONIC ns; 0: none), and a
	 * request to end at the next step (set from that thread).
	 */
	volatile __u64 busy_since_ns;
	volatile int stop;
};

/*
 * Load the plugins and build src.ctf.fs -> muxer over the paths: one source
 * per CTF trace (a directory holding metadata) that declares sclat events;
 * other traces are skipped with a note on stderr. A trace whose index does
 * not match its streams is read without it (g->warn). The sclat plugin comes
 * from the build tree when the program runs from it. Returns 0, or -1 with
 * g->err set.
 */
int graph_source(struct graph_ctx *g);

/*
 * Follow every session a relay daemon serves live at url (net://HOST[:PORT],
 * the live port): each gets a graph of its own, src.ctf.lttng-live -> muxer ->
 * the sclat plugin's sink class sink (with sink_params), as soon as it is
 * listed; the graphs run a step each in turn, on this thread, so each
 * session's events come in time order and sessions interleave as they arrive.
 * The sessions are listed again every second: a host that starts streaming
 * later is followed too. Waits, saying so once on stderr, while there is none;
 * returns 0 once every session followed has ended and no new one is listed,
 * or -1 with g->err set (g->trace names url). Each call that may wait on
 * the relay daemon (a listing, a graph's step) is timed in g->busy_since_ns;
 * g->stop ends the follow at the next step, as if every session had ended.
 */
int graph_live_follow(struct graph_ctx *g, const char *url, const char *sink,
		      const bt_value *sink_params);

/*
 * Add one src.ctf.fs (of plugin ctf) per directory of dirs to graph and
 * connect every output port to mux. 0, or -1 with babeltrace2's error set.
 */
int graph_add_ctf_sources(bt_graph *graph, const bt_plugin *ctf, const bt_value *dirs,
			  const bt_component_filter *mux);

/* The muxer's output port, to connect the rest of the graph to. */
const bt_port_output *graph_mux_out(struct graph_ctx *g);

/*
 * Ask sink.sclat.report for a query object (sclat.learned) over g->inputs,
 * after graph_source(). 0 and *result (the caller puts it), or -1 with g->err set.
 */
int graph_query(struct graph_ctx *g, const char *object, const bt_value **result);

/*
 * Add the sclat plugin's sink class name with params, its input connected to
 * the muxer; 0, or -1 with g->err set.
 */
int graph_add_sink(struct graph_ctx *g, const char *name, const bt_value *params);

/* Run the graph to its end; 0 (g->warn, if any, said on stderr), or -1 with g->err set. */
int graph_run(struct graph_ctx *g);

/* Set g->err from the current babeltrace2 error, which it clears. */
void graph_fail_bt(struct graph_ctx *g, const char *doing);
void graph_fail(struct graph_ctx *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Free the graph and the plugins (sink.ctf.fs writes its metadata then), remove bypasses. */
void graph_free(struct graph_ctx *g);

#endif
