/* SPDX-License-Identifier: GPL-2.0-only */
/* The aggregation's arrays: each grows by doubling as it fills. */
#ifndef SCLAT_BT2_AGG_GROW_H
#define SCLAT_BT2_AGG_GROW_H

#include <errno.h>
#include <stdlib.h>

/* Grow an array of *cap elements of size to hold one more; 0 or -ENOMEM. */
static inline int agg_grow(void **arr, size_t *cap, size_t nr, size_t size)
{
	size_t n = *cap ? 2 * *cap : 16;
	void *p;

	if (nr < *cap)
		return 0;
	p = realloc(*arr, n * size);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = n;
	return 0;
}

#endif
