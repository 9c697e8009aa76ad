// SPDX-License-Identifier: GPL-2.0-only
/* The table of a policy file's keys, and the lookups in it. */
#include <string.h>
#include "policy_keys.h"
#include "util/suggest.h"

static const struct policy_keydesc keydescs[] = {
	{ "interval", GLOBAL_KEY_INTERVAL, IN_GLOBAL, false },
	{ "half_life", GLOBAL_KEY_HALF_LIFE, IN_GLOBAL, false },
	{ "budget", GLOBAL_KEY_BUDGET, IN_GLOBAL, false },
	{ "class_cells", GLOBAL_KEY_CLASS_CELLS, IN_GLOBAL, false },
	{ "class_idle", GLOBAL_KEY_CLASS_IDLE, IN_GLOBAL, false },
	{ "sample", GLOBAL_KEY_SAMPLE, IN_GLOBAL, false },
	{ "class_sample", GLOBAL_KEY_SAMPLE, IN_GLOBAL, false }, /* sample's older name */
	{ "min_latency", GLOBAL_KEY_MIN_LATENCY, IN_GLOBAL, false },
	{ "judge", GLOBAL_KEY_JUDGE, IN_GLOBAL, false },
	{ "classes", POLICY_KEY_CLASSES, IN_GLOBAL | IN_SYSCALL, true },
	{ "max_classes", POLICY_KEY_MAX_CLASSES, IN_GLOBAL | IN_SYSCALL, true },
	{ "mode", POLICY_KEY_MODE, IN_DEFAULT | IN_SYSCALL, true },
	{ "quantile", POLICY_KEY_QUANTILE, IN_DEFAULT | IN_SYSCALL, true },
	{ "false_alarm", POLICY_KEY_FALSE_ALARM, IN_DEFAULT | IN_SYSCALL, true },
	{ "margin", POLICY_KEY_MARGIN, IN_DEFAULT | IN_SYSCALL, true },
	{ "floor", POLICY_KEY_FLOOR, IN_DEFAULT | IN_SYSCALL, true },
	{ "ceiling", POLICY_KEY_CEILING, IN_DEFAULT | IN_SYSCALL, true },
	{ "min_samples", POLICY_KEY_MIN_SAMPLES, IN_DEFAULT | IN_SYSCALL, true },
	{ "initial", POLICY_KEY_INITIAL, IN_DEFAULT | IN_SYSCALL, true },
	{ "inflight_after", POLICY_KEY_INFLIGHT_AFTER, IN_DEFAULT | IN_SYSCALL, true },
};

#define NR_KEYS (sizeof(keydescs) / sizeof(keydescs[0]))

const struct policy_keydesc *policy_key_find(const char *name)
{
	size_t i;

	for (i = 0; i < NR_KEYS; i++)
		if (!strcmp(keydescs[i].name, name))
			return &keydescs[i];
	return NULL;
}

const char *policy_key_nearest(const char *name, unsigned int sections)
{
	const char *cands[NR_KEYS];
	size_t i;

	for (i = 0; i < NR_KEYS; i++)
		cands[i] = keydescs[i].sections & sections ? keydescs[i].name : NULL;
	return suggest_nearest(name, cands, NR_KEYS);
}

const char *policy_key_sections(const struct policy_keydesc *k)
{
	switch (k->sections) {
	case IN_GLOBAL:
		return "[global]";
	case IN_GLOBAL | IN_SYSCALL:
		return "[global] or [syscall NAME]";
	default:
		return "[default] or [syscall NAME]";
	}
}
