/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * `sclat report --html`: one self-contained page of pictures. What the
 * aggregation does not keep (every outlier's point in time, the stacks'
 * tree weighed by time beyond normal, the threshold changes of classes, the
 * throttling over time, sclat's own cost) is collected here while the trace
 * is read, bounded; the pieces of the page (render_html_*.c) share it.
 */
#ifndef SCLAT_BT2_RENDER_HTML_H
#define SCLAT_BT2_RENDER_HTML_H

#include <stdio.h>
#include <babeltrace2/babeltrace.h>
#include "util/heap.h"
#include "aggregate.h"
#include "feed.h"
#include "render_html_text.h"

#define HTML_MAX_POINTS	   20000   /* outliers drawn in the scatter: past it, a sample */
#define HTML_MAX_FRAMES	   6000	   /* frames drawn in the flame graph: past it, the widest */
#define HTML_MAX_NODES	   1000000 /* frames kept in the stacks' tree */
#define HTML_MAX_SERIES	   512	   /* syscalls and classes with a card of their own */
#define HTML_MAX_THROTTLES 2000	   /* intervals with throttling marked on the timelines */
#define HTML_MAX_TOP	   100	   /* outliers explained in full */
#define HTML_HIST_BINS	   64	   /* log2 buckets: [2^k, 2^(k+1)) ns */

/* One outlier in the scatter: its time, latency, series and one-line why (terminal-escaped). */
struct html_point {
	int64_t epoch_ns;
	uint64_t latency_ns;
	uint32_t series;
	char *line;
};

/* One threshold change of a series (sclat:threshold_update). */
struct html_change {
	int64_t epoch_ns;
	uint64_t old_ns, new_ns, estimate_ns; /* estimate 0: not learned */
};

/* A syscall, or one class of it: the outliers' histogram and its threshold over time. */
struct html_series {
	char syscall[OUTLIER_NAME_LEN];
	char class_name[OUTLIER_CLASS_LEN]; /* "": the syscall's own threshold */
	uint64_t count;
	uint64_t hist[HTML_HIST_BINS];
	uint64_t min_ns, max_ns;
	uint64_t threshold_ns; /* the last outlier's */
	uint64_t normal_ns;    /* the last outlier's estimate, else its threshold */
	struct html_change *changes;
	size_t nr_changes, cap_changes;
};

/* An interval in which the budget or the burst guard held events back (sclat:lost). */
struct html_throttle {
	int64_t epoch_ns;
	uint64_t throttled, drops;
};

/* Per host: what the aggregation does not count. */
struct html_host {
	const struct agg_host *host;
	uint64_t no_kernel_stack, no_user_stack, explained;
	bool overhead_seen;
	uint64_t ns_per_syscall, explain_bpf_ns, explain_user_ns, delivered;
	uint64_t user_stacks_dropped, user_stacks_unwound, consumer_lag_max_ns;
};

/* One frame of the stacks' tree: user frames, then the syscall, then kernel frames. */
enum html_frame_kind { HTML_FRAME_ROOT, HTML_FRAME_USER, HTML_FRAME_SYSCALL, HTML_FRAME_KERNEL };

struct html_node {
	const char *name; /* interned */
	uint32_t parent, first_child, next_sibling;
	uint32_t kind;
	uint64_t weight_ns; /* time beyond normal of the outliers through it */
};

/* One of the outliers explained in full: a copy that owns its strings. */
struct html_top {
	struct outlier o;
	uint64_t normal_ns, impact_ns;
	uint32_t series; /* its index in series, UINT32_MAX when it has none */
	char *strings;	 /* target, kernel and user stack, NUL-separated: o.why points here */
};

struct html_data {
	const struct agg *agg;
	unsigned int top_n;
	uint64_t outliers;  /* matched, seen here */
	uint64_t beyond_ns; /* their time beyond normal, summed */
	uint64_t rng;	    /* the sample's: the same trace samples the same way */
	struct html_point *points;
	size_t nr_points;
	struct html_series *series;
	size_t nr_series, cap_series;
	uint64_t series_dropped; /* outliers of series past HTML_MAX_SERIES */
	struct html_throttle *throttles;
	size_t nr_throttles, cap_throttles;
	uint64_t throttles_dropped;
	struct html_host *hosts;
	size_t nr_hosts, cap_hosts;
	struct agg_strings names; /* the frames' names */
	struct html_node *nodes;
	size_t nr_nodes, cap_nodes;
	uint32_t *node_index; /* hash of (parent, name): 1 + node, 0 empty */
	size_t index_size;
	uint64_t stacks_cut; /* outliers whose stack did not fit in HTML_MAX_NODES */
	struct heap top;     /* the least impact on top */
};

/* Returns 0 or -ENOMEM. */
int html_data_init(struct html_data *d, const struct agg *a, unsigned int top_n);
void html_data_free(struct html_data *d);

/*
 * One message, after feed_message() counted it: what the page needs of it.
 * 0, -ENOMEM, or -EINVAL when an sclat event cannot be read.
 */
int html_data_feed(struct html_data *d, const struct feed *fd, const bt_message *msg);

/* A point's title: "read 25ms comm[pid/tid] @host: why", text-escaped; NULL if no memory. */
char *html_point_line(const struct outlier *o, bool host);

/* The weight of an outlier in the flame graph and the top list: its time beyond normal. */
uint64_t html_normal_ns(const struct outlier *o);

/* For html_data_feed(): the outlier's stack into the tree; 0 or -ENOMEM. */
int html_flame_add(struct html_data *d, const struct outlier *o, uint64_t weight_ns);

/* The page: after agg_finish(), into f. 0, or an errno. */
int render_html(FILE *f, const struct html_data *d);

/* "1.25ms" */
const char *html_dur(uint64_t ns, char *buf, size_t len);
/* "2025-01-01 12:00:00.250" UTC */
const char *html_time(int64_t ns, char *buf, size_t len);
/* A series' color, by its index. */
const char *html_color(size_t i);

/* The pieces (render_html_svg.c, render_html_flame.c, render_html_top.c). */
void html_scatter(FILE *f, const struct html_data *d);
void html_series_cards(FILE *f, const struct html_data *d);
void html_flame(FILE *f, const struct html_data *d);
void html_top(FILE *f, const struct html_data *d);
void html_health(FILE *f, const struct html_data *d);
/* The page's span: the hosts' first and last events. */
void html_span(const struct html_data *d, int64_t *t0, int64_t *t1);

#endif
