// SPDX-License-Identifier: GPL-2.0-only
/*
 * The duration and size parsers (user/util/duration.c, size.c) on any
 * string. What they accept must be what they return: a value printed in
 * the smallest unit parses back to itself.
 */
#include <errno.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "util/duration.h"
#include "util/size.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char s[256], back[64], shown[32];
	__u64 ns, ns2;
	size_t bytes, bytes2;
	int err;

	if (size >= sizeof(s))
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';

	err = duration_parse(s, &ns);
	if (err && err != -EINVAL && err != -ERANGE)
		abort();
	if (!err) {
		snprintf(back, sizeof(back), "%lluns", (unsigned long long)ns);
		if (duration_parse(back, &ns2) || ns2 != ns)
			abort();
		duration_format(ns, shown, sizeof(shown));
	}
	err = size_parse(s, &bytes);
	if (err && err != -EINVAL && err != -ERANGE)
		abort();
	if (!err) {
		snprintf(back, sizeof(back), "%zu", bytes);
		if (size_parse(back, &bytes2) || bytes2 != bytes)
			abort();
	}
	return 0;
}
