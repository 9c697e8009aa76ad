/* SPDX-License-Identifier: GPL-2.0-only */
/* Untrusted text made safe for the HTML page's text and quoted attributes. */
#ifndef SCLAT_BT2_RENDER_HTML_TEXT_H
#define SCLAT_BT2_RENDER_HTML_TEXT_H

#include <stddef.h>
#include <stdio.h>

/*
 * s (up to its NUL, at most max bytes) as text_escape() shows it (control
 * and bidirectional characters, invalid bytes as \xHH, a backslash as \\),
 * with & < > " ' as entities.
 */
void html_text(FILE *f, const char *s, size_t max);
/* The same, at most chars characters shown: a longer text is cut and ends with "..". */
void html_text_cut(FILE *f, const char *s, size_t max, size_t chars);
/* Text that text_escape() made safe already (a why line): only & < > " ' as entities. */
void html_line(FILE *f, const char *line);

#endif
