/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * FNV-1a, the hash of the aggregation's open-addressing tables (interned
 * strings, group keys): a few lines, and spread enough for their keys.
 */
#ifndef SCLAT_BT2_FNV1A_H
#define SCLAT_BT2_FNV1A_H

#include <stddef.h>
#include <stdint.h>

#define FNV1A_BASIS 0xcbf29ce484222325ULL

static inline uint64_t fnv1a(uint64_t h, const void *data, size_t n)
{
	const unsigned char *k = data;
	size_t i;

	for (i = 0; i < n; i++)
		h = (h ^ k[i]) * 0x100000001b3ULL;
	return h;
}

#endif
