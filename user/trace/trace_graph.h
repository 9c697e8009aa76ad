/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The front of every sclat babeltrace2 graph (sclat report, sclat convert,
 * sclat-lami): src.ctf.fs over the CTF traces under a path, into a muxer.
 */
#ifndef SCLAT_TRACE_GRAPH_H
#define SCLAT_TRACE_GRAPH_H

#include <babeltrace2/babeltrace.h>

enum graph_plugin {
	GRAPH_PLUGIN_CTF,
	GRAPH_PLUGIN_UTILS,
	GRAPH_PLUGIN_SCLAT,
};

struct graph_ctx {
	const char *trace; /* as the user named it */
	bt_graph *graph;
	const bt_plugin *plugins[3]; /* by enum graph_plugin */
	bt_value *inputs;	     /* the CTF trace directories under trace */
	const bt_component_source *src;
	const bt_component_filter *mux;
	char err[512];	    /* one line, "TRACE: what is wrong", after a failure */
	char warn[512];	    /* an index not used: said once the graph has run */
	bt_value *bypasses; /* the directories read in place of those with a bad index */
};

/*
 * Load the plugins and build src.ctf.fs -> muxer over g->trace. The sclat
 * plugin comes from the build tree when the program runs from it. A trace
 * whose index does not match its streams is read without it (g->warn).
 * Returns 0, or -1 with g->err set.
 */
int graph_source(struct graph_ctx *g);

/* The muxer's output port, to connect the rest of the graph to. */
const bt_port_output *graph_mux_out(struct graph_ctx *g);

/* Run the graph to its end; 0 (g->warn, if any, said on stderr), or -1 with g->err set. */
int graph_run(struct graph_ctx *g);

/* Set g->err from the current babeltrace2 error, which it clears. */
void graph_fail_bt(struct graph_ctx *g, const char *doing);
void graph_fail(struct graph_ctx *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Free the graph and the plugins (sink.ctf.fs writes its metadata then), remove bypasses. */
void graph_free(struct graph_ctx *g);

#endif
