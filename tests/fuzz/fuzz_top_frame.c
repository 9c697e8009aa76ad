// SPDX-License-Identifier: GPL-2.0-only
/*
 * sclat top's frame reader (user/control/top_frame_parse.c) on any answer, as
 * a client gets it from whatever listens on a socket. What it accepts must
 * hold together: counts within their arrays, every text field terminated and
 * free of what a terminal acts on. Its checked-in seeds: a frame a tracer wrote
 * (`sclat watch` on a process named with escapes), and two small ones, of this
 * version and of a later one.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "control/top_frame.h"

static struct top_frame frame;

/* s is terminated within len, and holds no control character (the reader escaped them). */
static void text_check(const char *s, size_t len)
{
	size_t i, n = strnlen(s, len);

	if (n == len)
		abort();
	for (i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[256], *body;
	unsigned int i;

	body = malloc(size + 1);
	if (!body)
		return 0;
	memcpy(body, data, size);
	body[size] = '\0';
	err[0] = '\0';
	if (top_frame_parse(body, size, &frame, err, sizeof(err))) {
		if (!err[0])
			abort();
		free(body);
		return 0;
	}
	if (frame.nr_rows > TOP_FRAME_ROWS || frame.nr_inflight > CONTROLLER_INFLIGHT_MAX ||
	    frame.nr_outliers > RECENT_OUTLIERS_KEPT || frame.pid <= 0)
		abort();
	for (i = 0; i < frame.nr_rows; i++) {
		text_check(frame.rows[i].syscall, sizeof(frame.rows[i].syscall));
		text_check(frame.rows[i].cls, sizeof(frame.rows[i].cls));
	}
	for (i = 0; i < frame.nr_inflight; i++) {
		text_check(frame.inflight[i].comm, sizeof(frame.inflight[i].comm));
		text_check(frame.inflight[i].state, sizeof(frame.inflight[i].state));
	}
	for (i = 0; i < frame.nr_outliers; i++)
		text_check(frame.outliers[i].line, sizeof(frame.outliers[i].line));
	free(body);
	return 0;
}
