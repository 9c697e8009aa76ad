// SPDX-License-Identifier: GPL-2.0-only
#include "sink.h"

bt_component_class_sink_graph_is_configured_method_status
sink_iterator_create(bt_self_component_sink *self_sink, bt_message_iterator **it)
{
	bt_self_component_port_input *port =
		bt_self_component_sink_borrow_input_port_by_index(self_sink, 0);

	if (!bt_port_is_connected(bt_self_component_port_as_port(
		    bt_self_component_port_input_as_self_component_port(port)))) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(
			bt_self_component_sink_as_self_component(self_sink),
			"Failed to find an upstream component: port=in is not connected");
		return BT_COMPONENT_CLASS_SINK_GRAPH_IS_CONFIGURED_METHOD_STATUS_ERROR;
	}
	if (bt_message_iterator_create_from_sink_component(self_sink, port, it))
		return BT_COMPONENT_CLASS_SINK_GRAPH_IS_CONFIGURED_METHOD_STATUS_ERROR;
	return BT_COMPONENT_CLASS_SINK_GRAPH_IS_CONFIGURED_METHOD_STATUS_OK;
}

bt_component_class_sink_consume_method_status sink_next(bt_self_component_sink *self_sink,
							bt_message_iterator *it,
							bt_message_array_const *msgs,
							uint64_t *count, bool *end)
{
	*end = false;
	switch (bt_message_iterator_next(it, msgs, count)) {
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_OK:
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_OK;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_END:
		*end = true;
		*count = 0;
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_OK;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_AGAIN:
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_AGAIN;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_MEMORY_ERROR:
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_MEMORY_ERROR;
	default:
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(
			bt_self_component_sink_as_self_component(self_sink),
			"Failed to read the trace: upstream message iterator failed");
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_ERROR;
	}
}
