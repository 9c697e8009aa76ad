// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/compiler.h"
#include "util/file_out.h"
#include "aggregate.h"
#include "feed.h"
#include "lami.h"
#include "params.h"
#include "render.h"
#include "render_html.h"
#include "sink.h"
#include "report.h"

#define REPORT_DEFAULT_TOP 10
#define REPORT_MAX_TOP	   INT32_MAX

enum report_format {
	REPORT_TEXT,
	REPORT_JSON,
	REPORT_LAMI,
};

struct report {
	bt_self_component *self;
	bt_message_iterator *it;
	enum report_format format;
	struct agg agg;
	struct agg *export; /* from the summary query: the result goes there */
	struct feed feed;
	bool folded_out;	 /* folded stacks on stdout: only them */
	const char *folded_path; /* their file, written whole at the end (file_out_replace) */
	const char *html_path;	 /* the HTML page's (render_html.h), written the same way */
	struct html_data *html;	 /* what the page needs beyond the aggregation */
};

static const char *const report_keys[] = {
	"by",  "top",	      "format", "syscall", "comm",   "host", "pid",
	"tid", "min-latency", "begin",	"end",	   "folded", "html", "sort",
};

/* html=FILE: the page's file, checked now, written at the end; 0 or -1. */
static int report_html_params(struct report *r, const char *html)
{
	int err = file_out_check(html);

	if (err) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(
			r->self, "Failed to open the HTML page's file: html=%s: %s", html,
			strerror(err));
		return -1;
	}
	r->html_path = strdup(html);
	r->html = malloc(sizeof(*r->html));
	if (!r->html_path || !r->html)
		return -1;
	if (html_data_init(r->html, &r->agg, r->agg.top_n)) {
		free(r->html);
		r->html = NULL;
		return -1;
	}
	return 0;
}

static int report_params(struct report *r, const bt_value *params)
{
	bt_self_component *self = r->self;
	const char *by = "syscall", *format = "text", *folded = NULL, *html = NULL;
	const char *sort = "impact";
	int64_t top = REPORT_DEFAULT_TOP;
	struct agg_filter f;
	struct group_key key;
	char why[128];
	int err;

	agg_filter_init(&f);
	if (params_check_keys(self, params, report_keys,
			      sizeof(report_keys) / sizeof(report_keys[0])) ||
	    params_string(self, params, "by", &by) ||
	    params_string(self, params, "format", &format) ||
	    params_s64(self, params, "top", 0, REPORT_MAX_TOP, &top) ||
	    params_string(self, params, "syscall", &f.syscall) ||
	    params_string(self, params, "comm", &f.comm) ||
	    params_string(self, params, "host", &f.host) ||
	    params_s64(self, params, "pid", 0, INT32_MAX, &f.pid) ||
	    params_s64(self, params, "tid", 0, INT32_MAX, &f.tid) ||
	    params_duration(self, params, "min-latency", &f.min_latency_ns) ||
	    params_s64(self, params, "begin", INT64_MIN, INT64_MAX, &f.begin_ns) ||
	    params_s64(self, params, "end", INT64_MIN, INT64_MAX, &f.end_ns) ||
	    params_string(self, params, "folded", &folded) ||
	    params_string(self, params, "html", &html) ||
	    params_string(self, params, "sort", &sort))
		return -1;
	if (group_key_parse(by, &key, why, sizeof(why))) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(
			self, "Failed to validate parameter: by=%s: %s", by, why);
		return -1;
	}
	if (!strcmp(format, "text")) {
		r->format = REPORT_TEXT;
	} else if (!strcmp(format, "json")) {
		r->format = REPORT_JSON;
	} else if (!strcmp(format, "lami")) {
		r->format = REPORT_LAMI;
	} else {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(
			self, "Failed to validate parameter: format=%s (text, json or lami)",
			format);
		return -1;
	}
	if (f.begin_ns > f.end_ns) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(
			self, "Failed to validate parameters: begin=%lld is after end=%lld",
			(long long)f.begin_ns, (long long)f.end_ns);
		return -1;
	}
	/* The parameters are not ours after init: keep copies of the strings. */
	if ((f.syscall && !(f.syscall = strdup(f.syscall))) ||
	    (f.comm && !(f.comm = strdup(f.comm))) || (f.host && !(f.host = strdup(f.host))))
		return -1;
	if (agg_init(&r->agg, &key, &f, (unsigned int)top))
		return -1;
	if (agg_order_set(&r->agg, sort)) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(
			self, "Failed to validate parameter: sort=%s (impact, surprise or latency)",
			sort);
		return -1;
	}
	if (folded) {
		r->folded_out = !strcmp(folded, "-");
		err = r->folded_out ? 0 : file_out_check(folded);
		if (err) {
			BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(
				self, "Failed to open the folded stacks' file: folded=%s: %s",
				folded, strerror(err));
			return -1;
		}
		if (!r->folded_out && !(r->folded_path = strdup(folded)))
			return -1;
		agg_fold(&r->agg);
	}
	return html ? report_html_params(r, html) : 0;
}

bt_component_class_initialize_method_status
report_init(bt_self_component_sink *self_sink,
	    bt_self_component_sink_configuration *config __always_unused, const bt_value *params,
	    void *init_data __always_unused)
{
	bt_self_component *self = bt_self_component_sink_as_self_component(self_sink);
	struct report *r = calloc(1, sizeof(*r));

	if (!r)
		return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_MEMORY_ERROR;
	r->self = self;
	r->export = init_data;
	r->feed.agg = &r->agg;
	bt_self_component_set_data(self, r);
	if (report_params(r, params))
		return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_ERROR;
	if (bt_self_component_sink_add_input_port(self_sink, "in", NULL, NULL))
		return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_MEMORY_ERROR;
	return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_OK;
}

void report_finalize(bt_self_component_sink *self_sink)
{
	struct report *r =
		bt_self_component_get_data(bt_self_component_sink_as_self_component(self_sink));

	if (!r)
		return;
	bt_message_iterator_put_ref(r->it);
	free((char *)r->folded_path);
	free((char *)r->html_path);
	if (r->html)
		html_data_free(r->html);
	free(r->html);
	free((char *)r->agg.filter.syscall);
	free((char *)r->agg.filter.comm);
	free((char *)r->agg.filter.host);
	agg_free(&r->agg);
	free(r);
}

bt_component_class_sink_graph_is_configured_method_status
report_graph_is_configured(bt_self_component_sink *self_sink)
{
	struct report *r =
		bt_self_component_get_data(bt_self_component_sink_as_self_component(self_sink));

	return sink_iterator_create(self_sink, &r->it);
}

/* file_out_replace's writer of the HTML page. */
static int html_write(FILE *f, void *html)
{
	return render_html(f, html);
}

/* file_out_replace's writer of the folded stacks. */
static int folded_write(FILE *f, void *agg)
{
	render_folded(f, agg);
	return 0;
}

static bt_component_class_sink_consume_method_status report_end(struct report *r)
{
	int err;

	if (!r->feed.sclat_streams) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(
			r->self,
			"Failed to find sclat events: not an sclat trace (no sclat:* event class)");
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_ERROR;
	}
	agg_finish(&r->agg);
	if (r->export) {
		/* The query owns the aggregation, filter strings included, from now on. */
		*r->export = r->agg;
		memset(&r->agg, 0, sizeof(r->agg));
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_END;
	}
	/* The page is a file, whatever goes to stdout. */
	err = r->html_path ? file_out_replace(r->html_path, html_write, r->html) : 0;
	if (err) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(
			r->self, "Failed to write the HTML page: html=%s: %s", r->html_path,
			strerror(err));
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_ERROR;
	}
	/* On stdout, the folded stacks are all: a flame graph tool reads them. */
	if (r->folded_out) {
		render_folded(stdout, &r->agg);
		if (fflush(stdout) || ferror(stdout)) {
			BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(
				r->self, "Failed to write the folded stacks: %s", strerror(errno));
			return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_ERROR;
		}
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_END;
	}
	/* Whole or not at all: a file from an earlier run stays until this one is complete. */
	err = r->folded_path ? file_out_replace(r->folded_path, folded_write, &r->agg) : 0;
	if (err) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(
			r->self, "Failed to write the folded stacks: folded=%s: %s", r->folded_path,
			strerror(err));
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_ERROR;
	}
	switch (r->format) {
	case REPORT_TEXT:
		render_text(stdout, &r->agg);
		break;
	case REPORT_JSON:
		render_json(stdout, &r->agg);
		break;
	case REPORT_LAMI:
		/* top is the row limit of every LAMI table. */
		lami_results(stdout, &r->agg, r->agg.filter.begin_ns, r->agg.filter.end_ns,
			     r->agg.top_n);
		break;
	}
	fflush(stdout);
	return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_END;
}

bt_component_class_sink_consume_method_status report_consume(bt_self_component_sink *self_sink)
{
	struct report *r =
		bt_self_component_get_data(bt_self_component_sink_as_self_component(self_sink));
	bt_component_class_sink_consume_method_status status =
		BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_OK;
	bt_message_array_const msgs;
	uint64_t count, i;
	bool end;
	int err;

	status = sink_next(self_sink, r->it, &msgs, &count, &end);
	if (status != BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_OK)
		return status;
	if (end)
		return report_end(r);
	for (i = 0; i < count; i++) {
		err = status == BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_OK
			      ? feed_message(&r->feed, msgs[i])
			      : 0;
		if (!err && r->html && status == BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_OK)
			err = html_data_feed(r->html, &r->feed, msgs[i]);
		if (err == -ENOMEM) {
			/* In words: else babeltrace2's dump of the component is all a user reads.
			 */
			BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(
				r->self,
				"Failed to keep the outliers: out of memory (free memory, or read "
				"less at once: --syscall, --pid, --begin/--end)");
			status = BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_MEMORY_ERROR;
		} else if (err && !r->feed.bad_event) {
			BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(
				r->self,
				"Failed to aggregate the events: %s (a bug of sclat: report it)",
				strerror(-err));
			status = BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_ERROR;
		} else if (err) {
			BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(
				r->self, "Failed to read event: name=%s %s", r->feed.bad_event,
				r->feed.bad_reason);
			status = BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_ERROR;
		}
		bt_message_put_ref(msgs[i]);
	}
	return status;
}
