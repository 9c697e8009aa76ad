/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Opening a file of a trace (metadata, index) that anyone may have made: a
 * FIFO there would block a reader forever, a device could be endless.
 */
#ifndef SCLAT_TRACE_FILE_H
#define SCLAT_TRACE_FILE_H

#include <stdio.h>
#include <sys/stat.h>

/*
 * path opened for reading when it is a regular file, without blocking on
 * what it is not; its fd (and *st), or -errno: -EINVAL when it is not a
 * regular file, and then *why (when not NULL) says what it is ("not a
 * regular file (a FIFO)"), else *why is strerror's.
 */
int trace_file_open(const char *path, struct stat *st, const char **why);

/* The same as a stdio stream ("rb"); NULL with errno and *why. */
FILE *trace_file_fopen(const char *path, struct stat *st, const char **why);

#endif
