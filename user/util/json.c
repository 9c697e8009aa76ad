// SPDX-License-Identifier: GPL-2.0-only
#include <stdint.h>
#include <string.h>
#include "escape.h"
#include "json.h"

void json_string(FILE *f, const char *s)
{
	json_string_n(f, s, SIZE_MAX);
}

void json_string_n(FILE *f, const char *s, size_t max)
{
	size_t n = s ? strnlen(s, max) : 0, i, len;
	unsigned int cp;

	fputc('"', f);
	for (i = 0; i < n; i += len) {
		if (!text_next(s + i, n - i, &len, &cp))
			fprintf(f, "\\u%04x", cp);
		else if (s[i] == '"' || s[i] == '\\')
			fprintf(f, "\\%c", s[i]);
		else
			fwrite(s + i, 1, len, f);
	}
	fputc('"', f);
}
