// SPDX-License-Identifier: GPL-2.0-only
/* The state of a parse of policy settings, and its first error. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include "policy_parse_state.h"

struct policy_parse *policy_parse_new(struct policy *p, const char *file, char *err, size_t errlen)
{
	struct policy_parse *ps = calloc(1, sizeof(*ps));

	if (!ps) {
		if (err && errlen)
			snprintf(err, errlen, "out of memory");
		return NULL;
	}
	ps->p = p;
	ps->file = file;
	ps->err = err;
	ps->errlen = errlen;
	return ps;
}

bool policy_parse_fail(struct policy_parse *ps, const char *fmt, ...)
{
	size_t n = 0;
	va_list ap;

	if (ps->err_line)
		return false;
	ps->err_line = ps->line > 0 ? ps->line : -1;
	if (!ps->err || !ps->errlen)
		return false;
	if (ps->file)
		n = snprintf(ps->err, ps->errlen, "%s:%d: ", ps->file, ps->line);
	if (n < ps->errlen) {
		va_start(ap, fmt);
		vsnprintf(ps->err + n, ps->errlen - n, fmt, ap);
		va_end(ap);
	}
	return false;
}
