/* SPDX-License-Identifier: GPL-2.0-only */
/* Durations as users write them ("250us", "1.5ms") and as sclat prints them. */
#ifndef SCLAT_DURATION_H
#define SCLAT_DURATION_H

#include <stddef.h>
#include <linux/types.h>

/*
 * Parse a duration: a decimal number and a unit, ns, us, ms or s ("250us",
 * "1.5ms", "2s"). Returns 0, -EINVAL (not a duration; a number without a unit
 * is refused) or -ERANGE (2^63 ns or more: about 292 years).
 */
int duration_parse(const char *s, __u64 *ns);

/* Format ns with the largest unit that keeps it readable ("1.25ms"); returns buf. */
const char *duration_format(__u64 ns, char *buf, size_t len);

#endif
