/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The local directory a trace goes to: made new with mkdir (never
 * check-then-create), or an existing empty directory of this user that
 * others cannot write to; never reached through a symbolic link.
 */
#ifndef SCLAT_TRACE_DIR_H
#define SCLAT_TRACE_DIR_H

#include <stdbool.h>
#include <stddef.h>

/*
 * The absolute path of the trace directory in path: requested (-o), or
 * ./sclat-trace-<date> (-<pid> after it when that exists), made or checked
 * as above. *created says whether this call made it. Returns 0, or a
 * negative errno after one line on stderr naming the path.
 */
int trace_dir_prepare(const char *requested, const char *date, char *path, size_t len,
		      bool *created);

/* Remove a directory trace_dir_prepare() created, and what LTTng wrote in it. */
void trace_dir_remove(const char *path);

#endif
