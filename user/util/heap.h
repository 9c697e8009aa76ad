/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A binary heap of fixed-size items in one growing array, ordered by the
 * caller's before(): on top is the item no other goes before. The trace
 * readers keep two: kernelize's events waiting for their time (the earliest
 * on top) and the report's slowest outliers, a bounded top-N (the least slow
 * on top: the first to give way to a slower one).
 */
#ifndef SCLAT_HEAP_H
#define SCLAT_HEAP_H

#include <stdbool.h>
#include <stddef.h>

/* Whether item a goes nearer the top than item b. */
typedef bool (*heap_before_fn)(const void *a, const void *b);

struct heap {
	void *items; /* nr of them, the top first; the caller may sort them when done */
	size_t nr, cap;
	size_t size; /* of one item */
	heap_before_fn before;
};

void heap_init(struct heap *h, size_t size, heap_before_fn before);
void heap_free(struct heap *h);

/* The top item, NULL when there is none. */
static inline void *heap_top(const struct heap *h)
{
	return h->nr ? h->items : NULL;
}

/* Add a copy of item; 0 or -ENOMEM. */
int heap_push(struct heap *h, const void *item);

/* Take the top item away, copied to out unless out is NULL; the heap is not empty. */
void heap_pop(struct heap *h, void *out);

/*
 * Keep the max items that go last (the largest when before() is "smaller"):
 * a copy of item is added while fewer are kept, then it takes the top's place
 * when the top goes before it; an item equal to the top is not kept. The
 * array grows up to max items, not past. 0 or -ENOMEM; max 0 keeps none.
 */
int heap_keep(struct heap *h, const void *item, size_t max);

#endif
