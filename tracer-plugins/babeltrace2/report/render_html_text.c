// SPDX-License-Identifier: GPL-2.0-only
/*
 * Text from a trace on the HTML page (render_html_text.h): shown as the
 * terminal report shows it (util/escape.h), with HTML's special characters
 * as entities, so that a name is text in an element or a quoted attribute,
 * never markup.
 */
#include <stdint.h>
#include <string.h>
#include "util/escape.h"
#include "render_html_text.h"

/* One character as HTML: the five specials as entities, the rest as they are. */
static void html_char(FILE *f, const char *s, size_t n)
{
	switch (*s) {
	case '&':
		fputs("&amp;", f);
		break;
	case '<':
		fputs("&lt;", f);
		break;
	case '>':
		fputs("&gt;", f);
		break;
	case '"':
		fputs("&quot;", f);
		break;
	case '\'':
		fputs("&#39;", f);
		break;
	default:
		fwrite(s, 1, n, f);
	}
}

/* The columns character i of s takes once shown (4 per byte of an escape). */
static size_t char_width(const char *s, size_t n, size_t *len)
{
	unsigned int cp;

	if (!text_next(s, n, len, &cp))
		return 4 * *len;
	return cp == '\\' ? 2 : 1;
}

static void char_shown(FILE *f, const char *s, size_t n)
{
	size_t k;

	if (n == 1 && *s == '\\') {
		fputs("\\\\", f);
		return;
	}
	if (char_width(s, n, &n) == 4 * n) {
		for (k = 0; k < n; k++)
			fprintf(f, "\\x%02x", (unsigned char)s[k]);
		return;
	}
	html_char(f, s, n);
}

void html_text_cut(FILE *f, const char *s, size_t max, size_t chars)
{
	size_t i, c, w, total = 0, shown = 0, left = strnlen(s, max);

	for (i = 0; i < left; i += c)
		total += char_width(s + i, left - i, &c);
	if (total > chars)
		chars = chars > 2 ? chars - 2 : 0;
	for (i = 0; i < left; i += c) {
		w = char_width(s + i, left - i, &c);
		if (shown + w > chars)
			break;
		char_shown(f, s + i, c);
		shown += w;
	}
	if (total > shown)
		fputs("..", f);
}

void html_text(FILE *f, const char *s, size_t max)
{
	html_text_cut(f, s, max, SIZE_MAX);
}

void html_line(FILE *f, const char *s)
{
	for (; *s; s++)
		html_char(f, s, 1);
}
