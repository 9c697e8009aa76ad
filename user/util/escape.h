/* SPDX-License-Identifier: GPL-2.0-only */
/* Untrusted text (a comm, a name read from a trace) made safe to print. */
#ifndef SCLAT_ESCAPE_H
#define SCLAT_ESCAPE_H

#include <stddef.h>

/* Room text_escape() needs for all of n bytes: each may become "\xHH". */
#define TEXT_ESCAPED_SIZE(n) (4 * (n) + 1)

/*
 * The next character of s, of which n bytes are left (n > 0): its length
 * in *len and its code point in *cp. Returns 1 when it may be printed as it
 * is, 0 when it must be escaped: a control character (C0, DEL, C1), a
 * character that reorders or breaks the line (the bidirectional controls
 * U+061C, U+200E, U+200F, U+202A..U+202E, U+2066..U+2069; U+2028, U+2029), or a
 * byte that does not start valid UTF-8 (*len is 1, *cp the byte's value).
 */
int text_next(const char *s, size_t n, size_t *len, unsigned int *cp);

/*
 * s (up to its NUL, at most max bytes) for a terminal, into buf of len
 * bytes, always terminated: valid UTF-8 stays as it is; control characters
 * and bytes that are not valid UTF-8 become \xHH for each of their bytes,
 * and a backslash becomes \\. What does not fit is left out whole (never half
 * an escape or of a character). Returns buf.
 */
const char *text_escape(const char *s, size_t max, char *buf, size_t len);

#endif
