// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "heap.h"

void heap_init(struct heap *h, size_t size, heap_before_fn before)
{
	memset(h, 0, sizeof(*h));
	h->size = size;
	h->before = before;
}

void heap_free(struct heap *h)
{
	free(h->items);
	h->items = NULL;
	h->nr = h->cap = 0;
}

static void *item(const struct heap *h, size_t i)
{
	return (char *)h->items + i * h->size;
}

/* Items are of any size: swapped a piece at a time. */
static void swap(struct heap *h, size_t i, size_t j)
{
	unsigned char *a = item(h, i), *b = item(h, j), tmp[64];
	size_t left, n;

	for (left = h->size; left; left -= n, a += n, b += n) {
		n = left < sizeof(tmp) ? left : sizeof(tmp);
		memcpy(tmp, a, n);
		memcpy(a, b, n);
		memcpy(b, tmp, n);
	}
}

static void sift_up(struct heap *h, size_t i)
{
	while (i && h->before(item(h, i), item(h, (i - 1) / 2))) {
		swap(h, i, (i - 1) / 2);
		i = (i - 1) / 2;
	}
}

static void sift_down(struct heap *h, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;

		if (l < h->nr && h->before(item(h, l), item(h, m)))
			m = l;
		if (r < h->nr && h->before(item(h, r), item(h, m)))
			m = r;
		if (m == i)
			return;
		swap(h, i, m);
		i = m;
	}
}

/* Room for one more item, the array at most max items long; 0 or -ENOMEM. */
static int reserve(struct heap *h, size_t max)
{
	size_t cap = h->cap ? 2 * h->cap : 64;
	void *items;

	if (h->nr < h->cap)
		return 0;
	if (cap > max)
		cap = max;
	if (cap > SIZE_MAX / h->size)
		return -ENOMEM;
	items = realloc(h->items, cap * h->size);
	if (!items)
		return -ENOMEM;
	h->items = items;
	h->cap = cap;
	return 0;
}

int heap_push(struct heap *h, const void *it)
{
	if (reserve(h, SIZE_MAX))
		return -ENOMEM;
	memcpy(item(h, h->nr), it, h->size);
	sift_up(h, h->nr++);
	return 0;
}

void heap_pop(struct heap *h, void *out)
{
	if (out)
		memcpy(out, h->items, h->size);
	if (--h->nr)
		memcpy(h->items, item(h, h->nr), h->size);
	sift_down(h, 0);
}

int heap_keep(struct heap *h, const void *it, size_t max)
{
	if (h->nr < max) {
		if (reserve(h, max))
			return -ENOMEM;
		memcpy(item(h, h->nr), it, h->size);
		sift_up(h, h->nr++);
		return 0;
	}
	if (h->nr && h->before(h->items, it)) {
		memcpy(h->items, it, h->size);
		sift_down(h, 0);
	}
	return 0;
}
