/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * filter.sclat.kernelize: each sclat:syscall_outlier becomes an LTTng kernel
 * syscall_entry_<name>/syscall_exit_<name> pair at its true times, on a stream
 * per CPU, with the sched_switch events that make its thread current there.
 */
#ifndef SCLAT_BT2_KERNELIZE_H
#define SCLAT_BT2_KERNELIZE_H

#include <babeltrace2/babeltrace.h>

bt_component_class_initialize_method_status
kernelize_init(bt_self_component_filter *self, bt_self_component_filter_configuration *config,
	       const bt_value *params, void *init_data);
void kernelize_finalize(bt_self_component_filter *self);
bt_message_iterator_class_initialize_method_status
kernelize_iter_init(bt_self_message_iterator *self, bt_self_message_iterator_configuration *config,
		    bt_self_component_port_output *port);
void kernelize_iter_finalize(bt_self_message_iterator *self);
bt_message_iterator_class_next_method_status kernelize_next(bt_self_message_iterator *self,
							    bt_message_array_const msgs,
							    uint64_t capacity, uint64_t *count);

#endif
