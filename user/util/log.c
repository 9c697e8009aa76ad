// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "log.h"

static const char *prefix = "sclat";
static int threshold = -1; /* -1: not set yet, read SCLAT_DEBUG once */

void log_set_prefix(const char *name)
{
	prefix = name;
}

void log_set_level(enum log_level level)
{
	threshold = level;
}

bool log_enabled(enum log_level level)
{
	if (threshold < 0)
		threshold = getenv("SCLAT_DEBUG") ? LOG_DEBUG : LOG_NOTE;
	return (int)level <= threshold;
}

void log_vmsg(enum log_level level, const char *fmt, va_list ap)
{
	size_t n = strlen(fmt);
	int saved = errno; /* "log_err(...); return -errno;" reports what failed */

	if (!log_enabled(level))
		return;
	flockfile(stderr);
	fprintf(stderr, "%s: ", prefix);
	vfprintf(stderr, fmt, ap);
	/* A format that ends its own line (libbpf's do) gets no second newline. */
	if (!n || fmt[n - 1] != '\n')
		fputc('\n', stderr);
	funlockfile(stderr);
	errno = saved;
}

void log_msg(enum log_level level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vmsg(level, fmt, ap);
	va_end(ap);
}
