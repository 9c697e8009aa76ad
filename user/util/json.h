/* SPDX-License-Identifier: GPL-2.0-only */
/* JSON string output, shared by sclat and its trace readers. */
#ifndef SCLAT_JSON_H
#define SCLAT_JSON_H

#include <stddef.h>
#include <stdio.h>

/*
 * s as a JSON string, quotes included. Valid UTF-8 stays as it is; control
 * characters as \uXXXX, and a byte that is not valid UTF-8 as \u00XX, its
 * value (escape.h decides). NULL is written as "".
 */
void json_string(FILE *f, const char *s);

/* The same for at most max bytes of s: a fixed-size field such as a comm. */
void json_string_n(FILE *f, const char *s, size_t max);

#endif
