/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Strings interned for the aggregation's life (targets, stacks, folded
 * lines): one copy each, its address its identity, with a number summed
 * over its additions.
 */
#ifndef SCLAT_BT2_AGG_STRINGS_H
#define SCLAT_BT2_AGG_STRINGS_H

#include <stddef.h>
#include <stdint.h>

struct agg_strings {
	struct agg_string {
		char *s;
		uint64_t value;
	} * slots;
	size_t size; /* a power of two, at least twice nr */
	size_t nr;
};

/* s's one copy in *out (added on first sight), value added to its number; 0 or -ENOMEM. */
int agg_strings_add(struct agg_strings *t, const char *s, uint64_t value, const char **out);
void agg_strings_free(struct agg_strings *t);

#endif
