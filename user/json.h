/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef SCLAT_JSON_H
#define SCLAT_JSON_H

#include <stdio.h>

/* JSON output for sclat and its babeltrace2 plugin. */

/* s as a JSON string, quotes included; bytes outside printable ASCII as \u00XX. */
void json_string(FILE *f, const char *s);

#endif
