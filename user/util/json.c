// SPDX-License-Identifier: GPL-2.0-only
#include <stdint.h>
#include "json.h"

void json_string(FILE *f, const char *s)
{
	json_string_n(f, s, SIZE_MAX);
}

void json_string_n(FILE *f, const char *s, size_t max)
{
	size_t i;

	fputc('"', f);
	for (i = 0; s && i < max && s[i]; i++) {
		unsigned char c = s[i];

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}
