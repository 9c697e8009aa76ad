/* SPDX-License-Identifier: GPL-2.0-only */
/* Byte counts as users write them ("1M", "64K"). */
#ifndef SCLAT_SIZE_H
#define SCLAT_SIZE_H

#include <stddef.h>

/* Parse a byte count with an optional K, M or G suffix (powers of 1024). 0 or -EINVAL/-ERANGE. */
int size_parse(const char *s, size_t *bytes);

#endif
