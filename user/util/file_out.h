/* SPDX-License-Identifier: GPL-2.0-only */
/* Output files the user names: checked before any work, replaced whole after it. */
#ifndef SCLAT_FILE_OUT_H
#define SCLAT_FILE_OUT_H

#include <stdio.h>

/*
 * Whether path can be written (an existing file, or a new one in its
 * directory), without touching it: 0, or the errno that says why not.
 */
int file_out_check(const char *path);

/*
 * Writes path whole or not at all: a temporary file beside it, renamed over
 * it once fill(f, ctx) returned 0 and the data reached the file. 0, or an
 * errno; path is then as it was.
 */
int file_out_replace(const char *path, int (*fill)(FILE *f, void *ctx), void *ctx);

#endif
