// SPDX-License-Identifier: GPL-2.0-only
/* The babeltrace2 plugin "sclat": descriptors only; each component class has its folder. */
#include <babeltrace2/babeltrace.h>
#include "kernelize/kernelize.h"
#include "outliers/outliers.h"
#include "report/report.h"

BT_PLUGIN_MODULE();

BT_PLUGIN(sclat);
BT_PLUGIN_DESCRIPTION("Reports and conversions of sclat syscall latency outlier traces");
BT_PLUGIN_AUTHOR("sclat authors");
BT_PLUGIN_LICENSE("GPL-2.0-only");

BT_PLUGIN_SINK_COMPONENT_CLASS(report, report_consume);
BT_PLUGIN_SINK_COMPONENT_CLASS_DESCRIPTION(
	report, "Lost events and whether the traces are complete, latency tables per syscall, "
		"process, thread, host, target or stack with where the outliers' time went, the "
		"slowest outliers, latency histograms and hosts compared, as text or JSON on "
		"stdout; the outliers' stacks in the folded format of flame graphs");
BT_PLUGIN_SINK_COMPONENT_CLASS_HELP(
	report,
	"Parameters: by=PART[,PART...] (syscall, process, thread, host, target, stack; default "
	"syscall), top=N, format=text|json|lami, syscall=NAME, comm=NAME, host=NAME, pid=PID, "
	"tid=TID, min-latency=NS|\"DUR\", begin=NS, end=NS (begin and end: entry times in ns "
	"since the epoch), folded=FILE (also write the outliers' stacks, "
	"\"comm;syscall;kernel frames outermost first\" and their summed latency in ns, one "
	"line each; \"-\": only them, on stdout). Over traces of several hosts, the report lists "
	"each host with its losses and compares the hosts per syscall.");
BT_PLUGIN_SINK_COMPONENT_CLASS_INITIALIZE_METHOD(report, report_init);
BT_PLUGIN_SINK_COMPONENT_CLASS_FINALIZE_METHOD(report, report_finalize);
BT_PLUGIN_SINK_COMPONENT_CLASS_GRAPH_IS_CONFIGURED_METHOD(report, report_graph_is_configured);
BT_PLUGIN_SINK_COMPONENT_CLASS_QUERY_METHOD(report, report_query);

BT_PLUGIN_SINK_COMPONENT_CLASS(outliers, outliers_consume);
BT_PLUGIN_SINK_COMPONENT_CLASS_DESCRIPTION(
	outliers, "One line per outlier as it arrives, with the host that recorded it, as sclat "
		  "watch prints them: text columns or JSON lines on stdout");
BT_PLUGIN_SINK_COMPONENT_CLASS_HELP(outliers, "Parameters: format=text|json (default text).");
BT_PLUGIN_SINK_COMPONENT_CLASS_INITIALIZE_METHOD(outliers, outliers_init);
BT_PLUGIN_SINK_COMPONENT_CLASS_FINALIZE_METHOD(outliers, outliers_finalize);
BT_PLUGIN_SINK_COMPONENT_CLASS_GRAPH_IS_CONFIGURED_METHOD(outliers, outliers_graph_is_configured);

BT_PLUGIN_FILTER_COMPONENT_CLASS(kernelize, kernelize_next);
BT_PLUGIN_FILTER_COMPONENT_CLASS_DESCRIPTION(
	kernelize, "Turn sclat:syscall_outlier events into LTTng kernel syscall entry/exit, "
		   "sched_switch and sched_waking/sched_wakeup events, for Trace Compass's "
		   "system call and thread views");
BT_PLUGIN_FILTER_COMPONENT_CLASS_HELP(
	kernelize,
	"Parameters: horizon=NS|\"DUR\": convert in one pass, releasing the events of "
	"outliers older than the horizon plus the largest latency seen; an outlier later than "
	"that is an error. Without it (the default) the input is read twice, first for how "
	"late its outliers reach it, and every outlier is placed.");
BT_PLUGIN_FILTER_COMPONENT_CLASS_INITIALIZE_METHOD(kernelize, kernelize_init);
BT_PLUGIN_FILTER_COMPONENT_CLASS_FINALIZE_METHOD(kernelize, kernelize_finalize);
BT_PLUGIN_FILTER_COMPONENT_CLASS_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD(kernelize,
									  kernelize_iter_init);
BT_PLUGIN_FILTER_COMPONENT_CLASS_MESSAGE_ITERATOR_CLASS_FINALIZE_METHOD(kernelize,
									kernelize_iter_finalize);
