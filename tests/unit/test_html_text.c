// SPDX-License-Identifier: GPL-2.0-only
/* Names from a trace on report --html's page (render_html_text.h): text, never markup. */
#include <stdint.h>
#include <stdlib.h>
#include "../../tracer-plugins/babeltrace2/report/render_html_text.h"
#include "unit.h"

static char *out;

static const char *shown(const char *s, size_t max, size_t chars)
{
	size_t len;
	FILE *f;

	free(out);
	out = NULL;
	f = open_memstream(&out, &len);
	html_text_cut(f, s, max, chars);
	fclose(f);
	return out;
}

static const char *line(const char *s)
{
	size_t len;
	FILE *f;

	free(out);
	out = NULL;
	f = open_memstream(&out, &len);
	html_line(f, s);
	fclose(f);
	return out;
}

static void test_markup_is_entities(void)
{
	CHECK_STR(shown("<script>alert(1)</script>", SIZE_MAX, SIZE_MAX),
		  "&lt;script&gt;alert(1)&lt;/script&gt;");
	CHECK_STR(shown("a\"b'c&d", SIZE_MAX, SIZE_MAX), "a&quot;b&#39;c&amp;d");
	CHECK_STR(line("read(pipe:[1]) <- \"x\""), "read(pipe:[1]) &lt;- &quot;x&quot;");
}

static void test_what_the_terminal_report_escapes_is_escaped_alike(void)
{
	/* U+202E reorders what follows; a newline forges a line; a backslash, an escape. */
	CHECK_STR(shown("ab\xe2\x80\xae"
			"cd",
			SIZE_MAX, SIZE_MAX),
		  "ab\\xe2\\x80\\xaecd");
	CHECK_STR(shown("x\ny\x1b", SIZE_MAX, SIZE_MAX), "x\\x0ay\\x1b");
	CHECK_STR(shown("a\\b", SIZE_MAX, SIZE_MAX), "a\\\\b");
	CHECK_STR(shown("caf\xc3\xa9 \xff", SIZE_MAX, SIZE_MAX), "caf\xc3\xa9 \\xff");
}

static void test_cut_text_ends_with_dots_and_never_splits_an_escape(void)
{
	CHECK_STR(shown("handle_request", SIZE_MAX, 14), "handle_request");
	CHECK_STR(shown("handle_request", SIZE_MAX, 8), "handle..");
	/* "<" is one character shown, its entity whole. */
	CHECK_STR(shown("<<<<<<", SIZE_MAX, 5), "&lt;&lt;&lt;..");
	/* An escape is 4 characters: it fits whole or not at all. */
	CHECK_STR(shown("ab\x1b"
			"cdef",
			SIZE_MAX, 6),
		  "ab..");
	CHECK_STR(shown("caf\xc3\xa9s are here", SIZE_MAX, 7), "caf\xc3\xa9s..");
	/* max bounds the bytes read: a field without its NUL. */
	CHECK_STR(shown("abcdef", 3, SIZE_MAX), "abc");
}

int main(void)
{
	RUN(test_markup_is_entities);
	RUN(test_what_the_terminal_report_escapes_is_escaped_alike);
	RUN(test_cut_text_ends_with_dots_and_never_splits_an_escape);
	free(out);
	return unit_done();
}
