// SPDX-License-Identifier: GPL-2.0-only
/*
 * Any local user names their threads (prctl PR_SET_NAME) and anyone can hand
 * over a trace: what sclat prints of them must not drive the reader's
 * terminal. One decoder decides what is printable, for text and JSON alike.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include "escape.h"

/* The length of the valid UTF-8 character at s, or 0. */
static size_t utf8_char_len(const unsigned char *s, size_t n)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t len, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] < 0xc2 || s[0] > 0xf4)
		return 0; /* a continuation byte, an overlong lead, or beyond U+10FFFF */
	len = s[0] < 0xe0 ? 2 : s[0] < 0xf0 ? 3 : 4;
	/* The second byte's range rules out overlongs, surrogates and > U+10FFFF. */
	if (s[0] == 0xe0)
		lo = 0xa0;
	else if (s[0] == 0xed)
		hi = 0x9f;
	else if (s[0] == 0xf0)
		lo = 0x90;
	else if (s[0] == 0xf4)
		hi = 0x8f;
	if (n < len || s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < len; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return len;
}

/*
 * Printable characters that still change how a terminal lays text out: the
 * bidirectional controls reorder what follows them on the line (a comm with
 * U+202E shows its end first), and U+2028/U+2029 break the line where a
 * reader expects one record.
 */
static bool lays_out(unsigned int cp)
{
	return cp == 0x061c || cp == 0x200e || cp == 0x200f || (cp >= 0x2028 && cp <= 0x202e) ||
	       (cp >= 0x2066 && cp <= 0x2069);
}

int text_next(const char *str, size_t n, size_t *len, unsigned int *cp)
{
	static const unsigned char lead_bits[] = { 0, 0x7f, 0x1f, 0x0f, 0x07 };
	const unsigned char *s = (const unsigned char *)str;
	size_t l = utf8_char_len(s, n), i;

	if (!l) {
		*len = 1;
		*cp = s[0];
		return 0;
	}
	*cp = s[0] & lead_bits[l];
	for (i = 1; i < l; i++)
		*cp = *cp << 6 | (s[i] & 0x3f);
	*len = l;
	/* C0, DEL and C1: what terminals act on. */
	return !(*cp < 0x20 || (*cp >= 0x7f && *cp < 0xa0) || lays_out(*cp));
}

const char *text_escape(const char *s, size_t max, char *buf, size_t len)
{
	size_t n = s ? strnlen(s, max) : 0, i = 0, o = 0, l, k, need;
	unsigned int cp;
	int plain;

	if (!len)
		return buf;
	while (i < n) {
		plain = text_next(s + i, n - i, &l, &cp);
		need = !plain ? 4 * l : s[i] == '\\' ? 2 : l;
		if (o + need >= len)
			break;
		if (!plain) {
			for (k = 0; k < l; k++)
				o += snprintf(buf + o, len - o, "\\x%02x", (unsigned char)s[i + k]);
		} else {
			if (s[i] == '\\')
				buf[o++] = '\\';
			memcpy(buf + o, s + i, l);
			o += l;
		}
		i += l;
	}
	buf[o] = '\0';
	return buf;
}
