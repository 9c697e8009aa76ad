// SPDX-License-Identifier: GPL-2.0-only
/* Escaping untrusted text: for a terminal (text_escape) and for JSON (json_string). */
#include <stdlib.h>
#include "util/escape.h"
#include "util/json.h"
#include "unit.h"

static const char *text(const char *s)
{
	static char buf[256];

	return text_escape(s, (size_t)-1, buf, sizeof(buf));
}

static const char *json(const char *s, size_t max)
{
	static char *buf;
	size_t len;
	FILE *f;

	free(buf);
	buf = NULL;
	f = open_memstream(&buf, &len);
	json_string_n(f, s, max);
	fclose(f);
	return buf;
}

static void test_text_keeps_printable_utf8(void)
{
	CHECK_STR(text("make"), "make");
	CHECK_STR(text("kworker/0:1"), "kworker/0:1");
	CHECK_STR(text("caf\xc3\xa9"), "caf\xc3\xa9");
	CHECK_STR(text("\xe6\x97\xa5\xe6\x9c\xac"), "\xe6\x97\xa5\xe6\x9c\xac");
	CHECK_STR(text("\xf0\x9f\x98\x80!"), "\xf0\x9f\x98\x80!");
	CHECK_STR(text(""), "");
	CHECK_STR(text(NULL), "");
}

static void test_text_escapes_what_drives_a_terminal(void)
{
	/* Clear the screen, set the title, forge a line, ring the bell. */
	CHECK_STR(text("\x1b[2J\x1b]0;x\x07"), "\\x1b[2J\\x1b]0;x\\x07");
	CHECK_STR(text("a\nroot 1 1"), "a\\x0aroot 1 1");
	CHECK_STR(text("\r\t\x7f"), "\\x0d\\x09\\x7f");
	/* C1 controls, valid UTF-8 (U+009B is CSI) or a lone byte. */
	CHECK_STR(text("\xc2\x9b"
		       "2J"),
		  "\\xc2\\x9b2J");
	CHECK_STR(text("\x9b"
		       "2J"),
		  "\\x9b2J");
	/* A backslash is doubled, so that an escape in the output is always one. */
	CHECK_STR(text("a\\x1b"), "a\\\\x1b");
}

/* A comm that reverses the rest of the line, or breaks it, is shown by its bytes. */
#define RLO "\xe2\x80\xae" /* U+202E, right-to-left override */
#define LS  "\xe2\x80\xa8" /* U+2028, line separator */

static void test_text_escapes_what_reorders_a_line(void)
{
	CHECK_STR(text("ab" RLO "cd"), "ab\\xe2\\x80\\xaecd");
	CHECK_STR(text("ab" LS "cd"), "ab\\xe2\\x80\\xa8cd");
	CHECK_STR(text("\xe2\x80\xa9"), "\\xe2\\x80\\xa9"); /* U+2029 */
	CHECK_STR(text("\xe2\x81\xa6x\xe2\x81\xa9"), "\\xe2\\x81\\xa6x\\xe2\\x81\\xa9");
	CHECK_STR(text("\xe2\x80\x8f\xd8\x9c"), "\\xe2\\x80\\x8f\\xd8\\x9c"); /* RLM, ALM */
	/* Their neighbours print as they are. */
	CHECK_STR(text("\xe2\x80\xa7\xe2\x80\xaf\xe2\x81\xa5\xe2\x81\xaa"),
		  "\xe2\x80\xa7\xe2\x80\xaf\xe2\x81\xa5\xe2\x81\xaa");
	CHECK_STR(json("a" RLO "b" LS, 64), "\"a\\u202eb\\u2028\"");
}

static void test_text_escapes_invalid_utf8(void)
{
	CHECK_STR(text("caf\xc3"), "caf\\xc3");			     /* cut short */
	CHECK_STR(text("\xc3("), "\\xc3(");			     /* bad continuation */
	CHECK_STR(text("\xc0\xaf"), "\\xc0\\xaf");		     /* overlong "/" */
	CHECK_STR(text("\xe0\x80\xaf"), "\\xe0\\x80\\xaf");	     /* overlong, 3 bytes */
	CHECK_STR(text("\xed\xa0\x80"), "\\xed\\xa0\\x80");	     /* a UTF-16 surrogate */
	CHECK_STR(text("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80"); /* above U+10FFFF */
	CHECK_STR(text("\xff\xfe"), "\\xff\\xfe");
	CHECK_STR(text("\x80"), "\\x80");
}

static void test_text_fits_whole_units_only(void)
{
	char buf[8];

	/* "\x1b" takes 4 bytes: a second one does not fit in 8 with the NUL. */
	CHECK_STR(text_escape("\x1b\x1b", 16, buf, sizeof(buf)), "\\x1b");
	CHECK_STR(text_escape("abcdef\xc3\xa9", 16, buf, sizeof(buf)), "abcdef");
	CHECK_STR(text_escape("abc\\\\", 16, buf, sizeof(buf)), "abc\\\\\\\\");
	CHECK_STR(text_escape("abcdef\\", 16, buf, sizeof(buf)), "abcdef");
	CHECK_STR(text_escape("abcdefgh", 16, buf, 1), "");
	/* max bounds a field that need not end with a NUL. */
	CHECK_STR(text_escape("abcdefgh", 3, buf, sizeof(buf)), "abc");
	CHECK_STR(text_escape("ab\xc3\xa9", 3, buf, sizeof(buf)), "ab\\xc3");
}

static void test_json_passes_utf8_escapes_the_rest(void)
{
	CHECK_STR(json("caf\xc3\xa9", 64), "\"caf\xc3\xa9\"");
	CHECK_STR(json("\xf0\x9f\x98\x80", 64), "\"\xf0\x9f\x98\x80\"");
	CHECK_STR(json("say \"hi\" \\ bye", 64), "\"say \\\"hi\\\" \\\\ bye\"");
	CHECK_STR(json("\x1b[2J\n", 64), "\"\\u001b[2J\\u000a\"");
	CHECK_STR(json("\x7f\xc2\x9b", 64), "\"\\u007f\\u009b\"");
	CHECK_STR(json("caf\xc3", 64), "\"caf\\u00c3\"");
	CHECK_STR(json("\xff", 64), "\"\\u00ff\"");
	CHECK_STR(json("truncated", 5), "\"trunc\"");
	CHECK_STR(json(NULL, 64), "\"\"");
}

/* Every byte string of up to 3 bytes: escaped output has no control byte, JSON none either. */
static void test_no_control_byte_survives(void)
{
	char in[4] = "", out[TEXT_ESCAPED_SIZE(3)];
	unsigned int a, b, c, bad = 0;
	const char *j;
	size_t i;

	for (a = 1; a < 256; a++)
		for (b = 0; b < 256; b++)
			for (c = 0; c < 256; c += b ? 15 : 1) {
				in[0] = a;
				in[1] = b;
				in[2] = b ? c : 0;
				text_escape(in, 3, out, sizeof(out));
				for (i = 0; out[i]; i++)
					bad += (unsigned char)out[i] < 0x20 ||
					       (unsigned char)out[i] == 0x7f;
				if (strstr(out, "\xc2\x80") || strstr(out, "\xc2\x9b"))
					bad++;
				if (!(a & 7) && !(b & 7)) {
					j = json(in, 3);
					for (i = 0; j[i]; i++)
						bad += (unsigned char)j[i] < 0x20;
				}
				if (!b)
					break;
			}
	CHECK_EQ_U64(bad, 0);
}

int main(void)
{
	RUN(test_text_keeps_printable_utf8);
	RUN(test_text_escapes_what_drives_a_terminal);
	RUN(test_text_escapes_what_reorders_a_line);
	RUN(test_text_escapes_invalid_utf8);
	RUN(test_text_fits_whole_units_only);
	RUN(test_json_passes_utf8_escapes_the_rest);
	RUN(test_no_control_byte_survives);
	return unit_done();
}
