// SPDX-License-Identifier: GPL-2.0-only
#include <string.h>
#include "suggest.h"

#define SUGGEST_MAX_LEN 64

/* Levenshtein distance, capped: words longer than SUGGEST_MAX_LEN never match. */
static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j;
	size_t row[SUGGEST_MAX_LEN + 1];

	if (la > SUGGEST_MAX_LEN || lb > SUGGEST_MAX_LEN)
		return (size_t)-1;
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		size_t diag = row[0];

		row[0] = i;
		for (j = 1; j <= lb; j++) {
			size_t up = row[j];
			size_t best = diag + (a[i - 1] != b[j - 1]);

			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[lb];
}

const char *suggest_nearest(const char *word, const char *const *candidates, size_t n)
{
	size_t limit = strlen(word) / 3 + 1, best_d = (size_t)-1, i;
	const char *best = NULL;

	if (limit > 3)
		limit = 3;
	for (i = 0; i < n; i++) {
		size_t d;

		if (!candidates[i])
			continue;
		d = edit_distance(word, candidates[i]);
		if (d < best_d) {
			best_d = d;
			best = candidates[i];
		}
	}
	return best_d <= limit ? best : NULL;
}
