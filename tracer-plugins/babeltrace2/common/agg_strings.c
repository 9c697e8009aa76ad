// SPDX-License-Identifier: GPL-2.0-only
/* The aggregation's interned strings (agg_strings.h): open addressing on FNV-1a. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "agg_strings.h"
#include "fnv1a.h"

void agg_strings_free(struct agg_strings *t)
{
	size_t i;

	for (i = 0; i < t->size; i++)
		free(t->slots[i].s);
	free(t->slots);
	memset(t, 0, sizeof(*t));
}

/* The slot of s: where it is, or the empty one where it goes. */
static struct agg_string *strings_slot(struct agg_string *slots, size_t size, const char *s)
{
	size_t mask = size - 1, i = fnv1a(FNV1A_BASIS, s, strlen(s)) & mask;

	while (slots[i].s && strcmp(slots[i].s, s))
		i = (i + 1) & mask;
	return &slots[i];
}

/* Twice the slots, every string placed again. */
static int strings_grow(struct agg_strings *t)
{
	size_t size = t->size ? 2 * t->size : 64, i;
	struct agg_string *slots = calloc(size, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (i = 0; i < t->size; i++)
		if (t->slots[i].s)
			*strings_slot(slots, size, t->slots[i].s) = t->slots[i];
	free(t->slots);
	t->slots = slots;
	t->size = size;
	return 0;
}

int agg_strings_add(struct agg_strings *t, const char *s, uint64_t value, const char **out)
{
	struct agg_string *slot;

	if (2 * (t->nr + 1) > t->size && strings_grow(t))
		return -ENOMEM;
	slot = strings_slot(t->slots, t->size, s);
	if (!slot->s) {
		slot->s = strdup(s);
		if (!slot->s)
			return -ENOMEM;
		t->nr++;
	}
	slot->value += value;
	*out = slot->s;
	return 0;
}
