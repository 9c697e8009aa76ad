// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "duration.h"

static const struct {
	const char *unit;
	__u64 ns;
} units[] = {
	{ "ns", 1 },
	{ "us", 1000 },
	{ "ms", 1000000 },
	{ "s", 1000000000 },
};

int duration_parse(const char *s, __u64 *ns)
{
	const char *p = s;
	char *end;
	double v;
	size_t i;

	if (!s || !*s || *s == '-' || *s == '+' || *s == ' ')
		return -EINVAL;
	/* strtod would also take "inf", "nan" and hex: require plain decimal. */
	for (; *p >= '0' && *p <= '9'; p++)
		;
	if (*p == '.')
		for (p++; *p >= '0' && *p <= '9'; p++)
			;
	if (p == s || (p == s + 1 && *s == '.'))
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (end != p)
		return -EINVAL;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(p, units[i].unit))
			continue;
		v *= (double)units[i].ns;
		/* Below 2^63: every reader may take it as a signed 64-bit count. */
		if (errno == ERANGE || v >= 9223372036854775808.0)
			return -ERANGE;
		*ns = (__u64)llround(v);
		return 0;
	}
	return -EINVAL;
}

const char *duration_format(__u64 ns, char *buf, size_t len)
{
	if (ns < 1000ULL)
		snprintf(buf, len, "%lluns", (unsigned long long)ns);
	else if (ns < 1000000ULL)
		snprintf(buf, len, "%.3gus", ns / 1e3);
	else if (ns < 1000000000ULL)
		snprintf(buf, len, "%.3gms", ns / 1e6);
	else if (ns < 10000000000000ULL)
		snprintf(buf, len, "%.4gs", ns / 1e9);
	else /* no exponent: "86400s", not "8.64e+04s" */
		snprintf(buf, len, "%.0fs", ns / 1e9);
	return buf;
}
