/* SPDX-License-Identifier: GPL-2.0-only */
/* What every sclat sink does with its one input port: connect it, and take the next messages. */
#ifndef SCLAT_BT2_SINK_H
#define SCLAT_BT2_SINK_H

#include <stdbool.h>
#include <babeltrace2/babeltrace.h>

/* The graph-is-configured method's work: the iterator on port "in", which must be connected. */
bt_component_class_sink_graph_is_configured_method_status
sink_iterator_create(bt_self_component_sink *self, bt_message_iterator **it);

/*
 * The next messages of it for a consume method: OK with *msgs and *count
 * set; OK with *end set at the end of the input; or the status to return.
 */
bt_component_class_sink_consume_method_status sink_next(bt_self_component_sink *self,
							bt_message_iterator *it,
							bt_message_array_const *msgs,
							uint64_t *count, bool *end);

#endif
