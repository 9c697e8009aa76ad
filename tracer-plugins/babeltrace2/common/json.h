/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef SCLAT_BT2_JSON_H
#define SCLAT_BT2_JSON_H

#include <stdio.h>

/* s as a JSON string, quotes included; bytes outside printable ASCII as \u00XX. */
void json_string(FILE *f, const char *s);

#endif
