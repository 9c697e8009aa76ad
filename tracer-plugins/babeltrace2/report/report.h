/* SPDX-License-Identifier: GPL-2.0-only */
/* sink.sclat.report: latency tables, slowest outliers and histograms of an sclat trace. */
#ifndef SCLAT_BT2_REPORT_H
#define SCLAT_BT2_REPORT_H

#include <babeltrace2/babeltrace.h>

bt_component_class_initialize_method_status
report_init(bt_self_component_sink *self, bt_self_component_sink_configuration *config,
	    const bt_value *params, void *init_data);
void report_finalize(bt_self_component_sink *self);
bt_component_class_sink_graph_is_configured_method_status
report_graph_is_configured(bt_self_component_sink *self);
bt_component_class_sink_consume_method_status report_consume(bt_self_component_sink *self);

/*
 * babeltrace2 query sink.sclat.report sclat.summary -p 'inputs=["CTF-DIR"],...'
 * (CTF-DIR: a directory that holds a metadata file, e.g. TRACE/ust/uid/0/64-bit):
 * the report's rows as a value, for scripts. The other parameters are the
 * component's (by, top, filters).
 *
 * sclat.learned (same parameters): per host, the policy its tracer began
 * with (sclat:session_begin) and, per syscall whose last threshold change
 * was learned, that change: what `sclat policy from-trace` writes out.
 */
bt_component_class_query_method_status report_query(bt_self_component_class_sink *self,
						    bt_private_query_executor *exec,
						    const char *object, const bt_value *params,
						    void *method_data, const bt_value **result);

#endif
