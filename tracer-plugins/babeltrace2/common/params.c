// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <string.h>
#include "util/compiler.h"
#include "util/duration.h"
#include "params.h"
#include "util/suggest.h"

#define PARAM_ERROR(self, fmt, ...) \
	BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(self, fmt, ##__VA_ARGS__)

struct key_check {
	bt_self_component *self;
	const char *const *keys;
	size_t n;
};

static bt_value_map_foreach_entry_const_func_status
check_key(const char *key, const bt_value *v __always_unused, void *data)
{
	struct key_check *c = data;
	const char *near;
	size_t i;

	for (i = 0; i < c->n; i++)
		if (!strcmp(key, c->keys[i]))
			return BT_VALUE_MAP_FOREACH_ENTRY_CONST_FUNC_STATUS_OK;
	near = suggest_nearest(key, c->keys, c->n);
	if (near)
		PARAM_ERROR(c->self,
			    "Failed to validate parameters: unknown key=%s "
			    "(did you mean \"%s\"?)",
			    key, near);
	else
		PARAM_ERROR(c->self, "Failed to validate parameters: unknown key=%s", key);
	return BT_VALUE_MAP_FOREACH_ENTRY_CONST_FUNC_STATUS_ERROR;
}

int params_check_keys(bt_self_component *self, const bt_value *params, const char *const *keys,
		      size_t n)
{
	struct key_check c = { self, keys, n };

	if (!bt_value_is_map(params)) {
		PARAM_ERROR(self, "Failed to validate parameters: not a map");
		return -1;
	}
	return bt_value_map_foreach_entry_const(params, check_key, &c) ==
			       BT_VALUE_MAP_FOREACH_ENTRY_CONST_STATUS_OK
		       ? 0
		       : -1;
}

int params_string(bt_self_component *self, const bt_value *params, const char *key, const char **v)
{
	const bt_value *val = bt_value_map_borrow_entry_value_const(params, key);

	if (!val)
		return 0;
	if (!bt_value_is_string(val)) {
		PARAM_ERROR(self, "Failed to validate parameter: %s must be a string", key);
		return -1;
	}
	*v = bt_value_string_get(val);
	return 0;
}

int params_s64(bt_self_component *self, const bt_value *params, const char *key, int64_t min,
	       int64_t max, int64_t *v)
{
	const bt_value *val = bt_value_map_borrow_entry_value_const(params, key);
	int64_t s;

	if (!val)
		return 0;
	if (bt_value_is_signed_integer(val)) {
		s = bt_value_integer_signed_get(val);
	} else if (bt_value_is_unsigned_integer(val)) {
		if (bt_value_integer_unsigned_get(val) > INT64_MAX) {
			PARAM_ERROR(self, "Failed to validate parameter: %s=%llu is too large", key,
				    (unsigned long long)bt_value_integer_unsigned_get(val));
			return -1;
		}
		s = (int64_t)bt_value_integer_unsigned_get(val);
	} else {
		PARAM_ERROR(self, "Failed to validate parameter: %s must be an integer", key);
		return -1;
	}
	if (s < min || s > max) {
		PARAM_ERROR(self,
			    "Failed to validate parameter: %s=%lld is out of range "
			    "[%lld, %lld]",
			    key, (long long)s, (long long)min, (long long)max);
		return -1;
	}
	*v = s;
	return 0;
}

int params_duration(bt_self_component *self, const bt_value *params, const char *key, uint64_t *ns)
{
	const bt_value *val = bt_value_map_borrow_entry_value_const(params, key);
	__u64 parsed;
	int64_t s;
	int err;

	if (val && bt_value_is_string(val)) {
		err = duration_parse(bt_value_string_get(val), &parsed);
		if (err) {
			PARAM_ERROR(self, "Failed to parse duration: %s=\"%s\" (%s)", key,
				    bt_value_string_get(val),
				    err == -ERANGE ? "too large" : "a number and ns, us, ms or s");
			return -1;
		}
		*ns = parsed;
		return 0;
	}
	s = -1;
	if (params_s64(self, params, key, 0, INT64_MAX, &s))
		return -1;
	if (s >= 0)
		*ns = (uint64_t)s;
	return 0;
}
