/* SPDX-License-Identifier: GPL-2.0-only */
/* "Did you mean" suggestions for mistyped names. */
#ifndef SCLAT_SUGGEST_H
#define SCLAT_SUGGEST_H

#include <stddef.h>

/*
 * The candidate closest to word by edit distance, if close enough to be a
 * likely typo, else NULL. NULL entries in candidates are skipped.
 */
const char *suggest_nearest(const char *word, const char *const *candidates, size_t n);

#endif
