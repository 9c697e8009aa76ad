/* SPDX-License-Identifier: GPL-2.0-only */
/* sink.sclat.outliers: one line per outlier as it arrives, with its host, as sclat watch prints. */
#ifndef SCLAT_BT2_OUTLIERS_H
#define SCLAT_BT2_OUTLIERS_H

#include <babeltrace2/babeltrace.h>

bt_component_class_initialize_method_status
outliers_init(bt_self_component_sink *self, bt_self_component_sink_configuration *config,
	      const bt_value *params, void *init_data);
void outliers_finalize(bt_self_component_sink *self);
bt_component_class_sink_graph_is_configured_method_status
outliers_graph_is_configured(bt_self_component_sink *self);
bt_component_class_sink_consume_method_status outliers_consume(bt_self_component_sink *self);

#endif
