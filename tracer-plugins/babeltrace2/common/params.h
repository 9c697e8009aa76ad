/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Component parameters, validated up front. Each function appends a cause
 * ("Failed to X: key=value") to the current thread's error and returns -1
 * on a bad value; an absent key leaves the output untouched and returns 0.
 */
#ifndef SCLAT_BT2_PARAMS_H
#define SCLAT_BT2_PARAMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <babeltrace2/babeltrace.h>

/* Refuse keys not in keys[] (suggesting the nearest one). */
int params_check_keys(bt_self_component *self, const bt_value *params, const char *const *keys,
		      size_t n);
int params_string(bt_self_component *self, const bt_value *params, const char *key, const char **v);
/* Integers in [min, max]. */
int params_s64(bt_self_component *self, const bt_value *params, const char *key, int64_t min,
	       int64_t max, int64_t *v);
/* A duration: an integer of ns or a string such as "1.5ms". */
int params_duration(bt_self_component *self, const bt_value *params, const char *key, uint64_t *ns);

#endif
