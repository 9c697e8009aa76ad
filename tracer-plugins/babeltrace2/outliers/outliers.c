// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/compiler.h"
#include "util/outlier_line.h"
#include "outlier.h"
#include "outliers.h"
#include "params.h"
#include "sink.h"

struct outliers {
	bt_self_component *self;
	bt_message_iterator *it;
	bool json;
	bool header_done;
	double min_surprise; /* only outliers at least this surprising; < 0: all */
};

static const char *const outliers_keys[] = { "format", "header", "min-surprise" };

/* min-surprise=S (a string: a number from 0 on), as `sclat watch --min-surprise`. */
static int min_surprise_param(struct outliers *o, const bt_value *params)
{
	const char *v = NULL;
	char *end;

	o->min_surprise = -1;
	if (params_string(o->self, params, "min-surprise", &v))
		return -1;
	if (!v)
		return 0;
	errno = 0;
	o->min_surprise = strtod(v, &end);
	if (errno || end == v || *end || !(o->min_surprise >= 0)) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(
			o->self, "Failed to validate parameter: min-surprise=%s (a number from 0)",
			v);
		return -1;
	}
	return 0;
}

bt_component_class_initialize_method_status
outliers_init(bt_self_component_sink *self_sink,
	      bt_self_component_sink_configuration *config __always_unused, const bt_value *params,
	      void *init_data __always_unused)
{
	bt_self_component *self = bt_self_component_sink_as_self_component(self_sink);
	struct outliers *o = calloc(1, sizeof(*o));
	const char *format = "text";
	const bt_value *header;

	if (!o)
		return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_MEMORY_ERROR;
	o->self = self;
	bt_self_component_set_data(self, o);
	if (params_check_keys(self, params, outliers_keys, 3) ||
	    params_string(self, params, "format", &format) || min_surprise_param(o, params))
		return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_ERROR;
	/* header=false: the text lines without their header, which the caller prints. */
	header = bt_value_map_borrow_entry_value_const(params, "header");
	if (header && !bt_value_is_bool(header)) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(
			self, "Failed to validate parameter: header (a boolean)");
		return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_ERROR;
	}
	o->header_done = header && !bt_value_bool_get(header);
	if (strcmp(format, "text") && strcmp(format, "json")) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(
			self, "Failed to validate parameter: format=%s (text or json)", format);
		return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_ERROR;
	}
	o->json = !strcmp(format, "json");
	if (bt_self_component_sink_add_input_port(self_sink, "in", NULL, NULL))
		return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_MEMORY_ERROR;
	return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_OK;
}

void outliers_finalize(bt_self_component_sink *self_sink)
{
	struct outliers *o =
		bt_self_component_get_data(bt_self_component_sink_as_self_component(self_sink));

	if (!o)
		return;
	bt_message_iterator_put_ref(o->it);
	free(o);
}

bt_component_class_sink_graph_is_configured_method_status
outliers_graph_is_configured(bt_self_component_sink *self_sink)
{
	struct outliers *o =
		bt_self_component_get_data(bt_self_component_sink_as_self_component(self_sink));

	return sink_iterator_create(self_sink, &o->it);
}

/* One outlier event as a line; 0, or -EINVAL when it lacks a field, -EIO on a write error. */
static int outlier_print(struct outliers *o, const bt_event *ev)
{
	struct outlier x;
	struct outlier_line line;
	struct outlier_why why;

	if (outlier_read(ev, &x))
		return -EINVAL;
	/* Not known to be that surprising (a trace before version 9 says nothing): left out. */
	if (o->min_surprise >= 0 && (!x.judged || x.surprise < o->min_surprise))
		return 0;
	outlier_line_of(&x, sclat_stream_host(bt_event_borrow_stream_const(ev)), &line, &why);
	if (o->json) {
		outlier_line_json(stdout, &line);
	} else {
		if (!o->header_done)
			outlier_line_header(stdout, true);
		o->header_done = true;
		outlier_line_text(stdout, &line);
	}
	/* A reader on a pipe sees each outlier as it arrives. */
	return fflush(stdout) || ferror(stdout) ? -EIO : 0;
}

bt_component_class_sink_consume_method_status outliers_consume(bt_self_component_sink *self_sink)
{
	struct outliers *o =
		bt_self_component_get_data(bt_self_component_sink_as_self_component(self_sink));
	bt_component_class_sink_consume_method_status status =
		BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_OK;
	bt_message_array_const msgs;
	uint64_t count, i;
	const bt_event *ev;
	bool end;
	int err;

	status = sink_next(self_sink, o->it, &msgs, &count, &end);
	if (status != BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_OK || end)
		return end ? BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_END : status;
	for (i = 0; i < count; i++) {
		if (status == BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_OK &&
		    bt_message_get_type(msgs[i]) == BT_MESSAGE_TYPE_EVENT) {
			ev = bt_message_event_borrow_event_const(msgs[i]);
			err = sclat_event_kind(bt_event_borrow_class_const(ev)) ==
					      SCLAT_EVENT_OUTLIER
				      ? outlier_print(o, ev)
				      : 0;
			if (err) {
				BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(
					o->self, "%s",
					err == -EIO
						? "Failed to write the outliers to stdout"
						: "Failed to read event: name=sclat:syscall_outlier "
						  "has missing or mistyped fields");
				status = BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_ERROR;
			}
		}
		bt_message_put_ref(msgs[i]);
	}
	return status;
}
