// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdlib.h>
#include "size.h"

int size_parse(const char *s, size_t *bytes)
{
	unsigned long long v;
	unsigned int shift = 0;
	char *end;

	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -ERANGE;
	switch (*end) {
	case 'K':
	case 'k':
		shift = 10;
		end++;
		break;
	case 'M':
	case 'm':
		shift = 20;
		end++;
		break;
	case 'G':
	case 'g':
		shift = 30;
		end++;
		break;
	}
	if (*end)
		return -EINVAL;
	if (v > (~0ULL >> shift))
		return -ERANGE;
	*bytes = (size_t)(v << shift);
	return 0;
}
