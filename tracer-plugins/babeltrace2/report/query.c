// SPDX-License-Identifier: GPL-2.0-only
/*
 * The query objects sclat.summary and sclat.learned: run src.ctf.fs... ->
 * muxer -> this very sink class over the inputs, and return the aggregation,
 * or each host's policy and learned thresholds, as a value.
 */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "util/compiler.h"
#include "trace/trace_graph.h"
#include "util/ctf_index.h"
#include "util/ctf_metadata.h"
#include "aggregate.h"
#include "report.h"

#define Q_ERROR(self, fmt, ...)                                    \
	BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT_CLASS( \
		bt_self_component_class_sink_as_self_component_class(self), fmt, ##__VA_ARGS__)

struct query_params {
	const bt_value *inputs;
	bt_value *report;   /* the parameters but inputs: the component's */
	bt_value *warnings; /* what the answer says besides the rows: indexes not used */
	bt_value *bypasses; /* the directories read in their place */
};

static bt_value_map_foreach_entry_const_func_status split_param(const char *key, const bt_value *v,
								void *data)
{
	struct query_params *q = data;
	bt_value *copy = NULL;

	if (!strcmp(key, "inputs")) {
		q->inputs = v;
		return BT_VALUE_MAP_FOREACH_ENTRY_CONST_FUNC_STATUS_OK;
	}
	if (bt_value_copy(v, &copy) || bt_value_map_insert_entry(q->report, key, copy)) {
		bt_value_put_ref(copy);
		return BT_VALUE_MAP_FOREACH_ENTRY_CONST_FUNC_STATUS_ERROR;
	}
	bt_value_put_ref(copy);
	return BT_VALUE_MAP_FOREACH_ENTRY_CONST_FUNC_STATUS_OK;
}

/*
 * babeltrace2 2.0 trusts an index it can parse, and aborts on one that points
 * past its stream: an input whose index does not match its streams is read
 * without it, from a directory of links to them, and the answer says so.
 */
static int inputs_bypass_bad_indexes(bt_self_component_class_sink *self, struct query_params *q,
				     bt_value *inputs)
{
	char why[256], bypass[PATH_MAX], warning[PATH_MAX + 320];
	const char *dir, *problem;
	uint64_t i;

	for (i = 0; i < bt_value_array_get_length(inputs); i++) {
		const bt_value *v = bt_value_array_borrow_element_by_index_const(inputs, i);

		if (!bt_value_is_string(v))
			continue;
		dir = bt_value_string_get(v);
		/* Before babeltrace2 opens it: a FIFO would block it forever. */
		problem = ctf_metadata_problem(dir);
		if (problem) {
			Q_ERROR(self, "Cannot read a trace: path=%s/metadata, %s", dir, problem);
			return -1;
		}
		if (!ctf_index_check(dir, why, sizeof(why)))
			continue;
		if (ctf_index_bypass(dir, bypass, sizeof(bypass))) {
			Q_ERROR(self, "Failed to read a trace without its index: path=%s, %s", dir,
				why);
			return -1;
		}
		if (bt_value_array_append_string_element(q->bypasses, bypass)) {
			ctf_index_bypass_remove(bypass);
			return -1;
		}
		snprintf(warning, sizeof(warning), "%s/%s: read without the index", dir, why);
		if (bt_value_array_append_string_element(q->warnings, warning) ||
		    bt_value_array_set_element_by_index(
			    inputs, i,
			    bt_value_array_borrow_element_by_index(
				    q->bypasses, bt_value_array_get_length(q->bypasses) - 1)))
			return -1;
	}
	return 0;
}

/* A src.ctf.fs per input (read without its index if need be), the muxer, and this sink class, which
 * fills a. */
static int summary_run(bt_self_component_class_sink *self, struct query_params *q, struct agg *a)
{
	const bt_plugin *ctf = NULL, *utils = NULL;
	const bt_component_filter *mux;
	const bt_component_sink *sink;
	bt_graph *graph = bt_graph_create(0);
	bt_value *inputs = NULL;
	bt_graph_run_status st;
	int ret = -1;

	if (!graph || bt_value_copy(q->inputs, &inputs) ||
	    inputs_bypass_bad_indexes(self, q, inputs))
		goto out;
	if (bt_plugin_find("ctf", BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, BT_FALSE, &ctf) ||
	    bt_plugin_find("utils", BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, BT_FALSE, &utils)) {
		Q_ERROR(self, "Failed to find babeltrace2's plugins: name=ctf, name=utils");
		goto out;
	}
	if (bt_graph_add_filter_component(
		    graph, bt_plugin_borrow_filter_component_class_by_name_const(utils, "muxer"),
		    "mux", NULL, BT_LOGGING_LEVEL_NONE, &mux) ||
	    graph_add_ctf_sources(graph, ctf, inputs, mux) ||
	    bt_graph_add_sink_component_with_initialize_method_data(
		    graph, bt_self_component_class_sink_as_component_class_sink(self), "report",
		    q->report, a, BT_LOGGING_LEVEL_NONE, &sink))
		goto fail;
	if (bt_graph_connect_ports(
		    graph, bt_component_filter_borrow_output_port_by_index_const(mux, 0),
		    bt_component_sink_borrow_input_port_by_index_const(sink, 0), NULL))
		goto fail;
	while ((st = bt_graph_run(graph)) == BT_GRAPH_RUN_STATUS_AGAIN)
		usleep(1000);
	if (st != BT_GRAPH_RUN_STATUS_OK)
		goto fail;
	ret = 0;
	goto out;
fail:
	Q_ERROR(self, "Failed to summarize the trace: the graph failed");
out:
	bt_graph_put_ref(graph);
	bt_value_put_ref(inputs);
	bt_plugin_put_ref(ctf);
	bt_plugin_put_ref(utils);
	return ret;
}

static int put_u(bt_value *m, const char *k, uint64_t v)
{
	return bt_value_map_insert_unsigned_integer_entry(m, k, v) ? -1 : 0;
}

static int put_s(bt_value *m, const char *k, int64_t v)
{
	return bt_value_map_insert_signed_integer_entry(m, k, v) ? -1 : 0;
}

/* events-lost: whether any was lost, counted or not (the report's), or counted (a host's). */
static int put_loss(bt_value *m, const struct agg_loss *l, bool lost)
{
	return bt_value_map_insert_bool_entry(m, "events-lost", lost) ||
	       put_u(m, "drops", l->drops) || put_u(m, "throttled", l->throttled) ||
	       put_u(m, "braked", l->braked) || put_u(m, "discarded", l->discarded);
}

/*
 * Whether the traces are complete (unknown for version 1: then no
 * "complete"), and why not, after the warnings of the inputs.
 */
static int put_completeness(bt_value *m, const struct agg *a, bt_value *warnings)
{
	unsigned int i;
	int err = 0;

	if (a->complete != AGG_UNKNOWN)
		err = bt_value_map_insert_bool_entry(m, "complete", a->complete == AGG_COMPLETE);
	for (i = 0; !err && i < a->nr_warnings; i++)
		err = bt_value_array_append_string_element(warnings, a->warnings[i]) != 0;
	return err ? -1 : 0;
}

/* The key's members of a row. */
static int put_key(bt_value *row, const struct group_key *k, const struct agg_group *g)
{
	unsigned int i;
	int err = 0;

	for (i = 0; !err && i < k->nr; i++) {
		switch (k->parts[i]) {
		case GROUP_PART_SYSCALL:
			err = bt_value_map_insert_string_entry(row, "syscall", g->syscall);
			break;
		case GROUP_PART_THREAD:
		case GROUP_PART_PROCESS:
			err = bt_value_map_insert_string_entry(row, "comm", g->comm) ||
			      put_s(row, "pid", g->pid) ||
			      (k->parts[i] == GROUP_PART_THREAD && put_s(row, "tid", g->tid));
			break;
		case GROUP_PART_HOST:
			err = bt_value_map_insert_string_entry(row, "host", g->host);
			break;
		case GROUP_PART_TARGET:
			err = bt_value_map_insert_string_entry(row, "target", g->target);
			break;
		case GROUP_PART_STACK:
			err = bt_value_map_insert_string_entry(row, "stack", g->stack);
			break;
		case GROUP_PART_CLASS:
			err = bt_value_map_insert_string_entry(row, "class", g->class_name);
			break;
		case GROUP_PART_TITLE:
			err = bt_value_map_insert_string_entry(row, "title", g->title);
			break;
		case GROUP_NR_PARTS:
			break;
		}
	}
	return err ? -1 : 0;
}

static bt_value *summary_value(const struct agg *a, bt_value *warnings)
{
	bt_value *res = bt_value_map_create(), *rows = bt_value_array_create(), *row = NULL;
	bt_value *hosts = bt_value_array_create();
	char name[GROUP_KEY_NAME_LEN];
	size_t i;
	int err = !res || !rows || !hosts;

	err = err || put_u(res, "outliers", a->seen) || put_u(res, "matched", a->matched) ||
	      put_loss(res, &a->loss, agg_loss_any(a)) || put_completeness(res, a, warnings) ||
	      bt_value_map_insert_string_entry(res, "by",
					       group_key_name(&a->key, name, sizeof(name)));
	/* What the runs could not do (sclat:session_end): absent before trace version 8. */
	if (agg_undone_known(a))
		err = err || put_u(res, "kernel-stacks-skipped", a->ended.kernel_stacks_skipped) ||
		      put_u(res, "wakers-lost", a->ended.wakers_lost) ||
		      put_u(res, "class-ids-refused", a->ended.class_ids_refused) ||
		      put_u(res, "class-requests-lost", a->ended.class_requests_lost) ||
		      put_u(res, "children-not-followed", a->ended.children_not_followed);
	if (!err && a->matched)
		err = put_s(res, "first-entry-ns", a->first_epoch_ns) ||
		      put_s(res, "last-entry-ns", a->last_epoch_ns);
	for (i = 0; !err && i < a->nr_groups; i++) {
		const struct agg_group *g = &a->groups[i];

		row = bt_value_map_create();
		err = !row || put_key(row, &a->key, g) || put_u(row, "count", g->count) ||
		      put_u(row, "min-ns", g->min_ns) || put_u(row, "p50-ns", g->p50_ns) ||
		      put_u(row, "p90-ns", g->p90_ns) || put_u(row, "p99-ns", g->p99_ns) ||
		      put_u(row, "max-ns", g->max_ns) || put_s(row, "top-ret", g->top_ret) ||
		      put_u(row, "explained", g->explained) ||
		      put_u(row, "on-cpu-ns", g->time_ns[AGG_ON_CPU]) ||
		      put_u(row, "runqueue-ns", g->time_ns[AGG_RUNQUEUE]) ||
		      put_u(row, "sleep-ns", g->time_ns[AGG_SLEEP]) ||
		      put_u(row, "io-wait-ns", g->time_ns[AGG_IO_WAIT]) ||
		      bt_value_array_append_element(rows, row);
		bt_value_put_ref(row);
	}
	for (i = 0; !err && i < a->nr_hosts; i++) {
		const struct agg_host *h = a->hosts[i];

		row = bt_value_map_create();
		err = !row || bt_value_map_insert_string_entry(row, "host", h->name) ||
		      put_u(row, "outliers", h->seen) || put_u(row, "matched", h->matched) ||
		      put_loss(row, &h->loss, agg_loss_counted(&h->loss)) ||
		      bt_value_array_append_element(hosts, row);
		bt_value_put_ref(row);
	}
	err = err || bt_value_map_insert_entry(res, "rows", rows) ||
	      bt_value_map_insert_entry(res, "hosts", hosts);
	err = err || bt_value_map_insert_entry(res, "warnings", warnings);
	bt_value_put_ref(rows);
	bt_value_put_ref(hosts);
	if (err) {
		bt_value_put_ref(res);
		return NULL;
	}
	return res;
}

/* sclat.learned: per host, the policy its tracer began with and the thresholds it learned. */
static bt_value *learned_value(const struct agg *a)
{
	bt_value *res = bt_value_map_create(), *hosts = bt_value_array_create();
	bt_value *host = NULL, *list = NULL, *row = NULL;
	size_t i, j;
	int err = !res || !hosts;

	for (i = 0; !err && i < a->nr_hosts; i++) {
		const struct agg_host *h = a->hosts[i];

		host = bt_value_map_create();
		list = bt_value_array_create();
		err = !host || !list || bt_value_map_insert_string_entry(host, "host", h->name) ||
		      (h->policy && bt_value_map_insert_string_entry(host, "policy", h->policy));
		for (j = 0; !err && j < h->nr_sc; j++) {
			const struct threshold_change *t = &h->sc[j].last_learned;

			if (!h->sc[j].learned)
				continue;
			row = bt_value_map_create();
			err = !row ||
			      bt_value_map_insert_string_entry(row, "syscall", t->syscall) ||
			      put_u(row, "threshold-ns", t->new_ns) ||
			      put_u(row, "estimate-ns", t->estimate_ns) ||
			      bt_value_map_insert_real_entry(row, "quantile", t->quantile) ||
			      put_u(row, "samples", t->samples) ||
			      put_s(row, "epoch-ns", t->epoch_ns) ||
			      bt_value_array_append_element(list, row);
			bt_value_put_ref(row);
		}
		err = err || bt_value_map_insert_entry(host, "learned", list) ||
		      bt_value_array_append_element(hosts, host);
		bt_value_put_ref(list);
		bt_value_put_ref(host);
	}
	err = err || bt_value_map_insert_entry(res, "hosts", hosts);
	bt_value_put_ref(hosts);
	if (err) {
		bt_value_put_ref(res);
		return NULL;
	}
	return res;
}

bt_component_class_query_method_status report_query(bt_self_component_class_sink *self,
						    bt_private_query_executor *exec __always_unused,
						    const char *object, const bt_value *params,
						    void *method_data __always_unused,
						    const bt_value **result)
{
	bt_component_class_query_method_status status =
		BT_COMPONENT_CLASS_QUERY_METHOD_STATUS_ERROR;
	struct query_params q = {
		.report = bt_value_map_create(),
		.warnings = bt_value_array_create(),
		.bypasses = bt_value_array_create(),
	};
	struct agg a = {};
	uint64_t i;

	if (strcmp(object, "sclat.summary") && strcmp(object, "sclat.learned")) {
		status = BT_COMPONENT_CLASS_QUERY_METHOD_STATUS_UNKNOWN_OBJECT;
		goto out;
	}
	if (!q.report || !q.warnings || !q.bypasses || !bt_value_is_map(params) ||
	    bt_value_map_foreach_entry_const(params, split_param, &q) || !q.inputs ||
	    !bt_value_is_array(q.inputs)) {
		Q_ERROR(self, "Failed to validate parameters: inputs must be an array of trace "
			      "directories");
		goto out;
	}
	if (!bt_value_array_get_length(q.inputs)) {
		Q_ERROR(self, "Failed to validate parameters: inputs is empty: which traces?");
		goto out;
	}
	for (i = 0; i < bt_value_array_get_length(q.inputs); i++)
		if (!bt_value_is_string(
			    bt_value_array_borrow_element_by_index_const(q.inputs, i))) {
			Q_ERROR(self,
				"Failed to validate parameters: inputs[%" PRIu64
				"] must be a string (a trace directory)",
				i);
			goto out;
		}
	if (summary_run(self, &q, &a))
		goto out;
	*result =
		strcmp(object, "sclat.learned") ? summary_value(&a, q.warnings) : learned_value(&a);
	if (*result)
		status = BT_COMPONENT_CLASS_QUERY_METHOD_STATUS_OK;
out:
	free((char *)a.filter.syscall);
	free((char *)a.filter.comm);
	free((char *)a.filter.host);
	agg_free(&a);
	for (i = 0; q.bypasses && i < bt_value_array_get_length(q.bypasses); i++)
		ctf_index_bypass_remove(bt_value_string_get(
			bt_value_array_borrow_element_by_index_const(q.bypasses, i)));
	bt_value_put_ref(q.bypasses);
	bt_value_put_ref(q.warnings);
	bt_value_put_ref(q.report);
	return status;
}
