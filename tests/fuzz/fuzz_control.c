// SPDX-License-Identifier: GPL-2.0-only
/*
 * The control-request parser (user/control/control_protocol.c) on any line,
 * as the tracer gets it from its socket. What it accepts must hold together:
 * 1 to CONTROL_MAX_PAIRS non-empty keys for policy set, an absolute path for
 * policy load, strings inside the line.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "control/control_protocol.h"

static int inside(const char *p, const char *line, size_t len)
{
	return p >= line && p <= line + len;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char line[CONTROL_REQUEST_MAX], err[256];
	struct control_req req;
	size_t len;
	int i;

	if (size >= sizeof(line))
		return 0;
	/* The server parses up to the newline, as a C string. */
	memcpy(line, data, size);
	line[size] = '\0';
	len = strlen(line);
	if (control_request_parse(line, &req, err, sizeof(err))) {
		if (!err[0])
			abort();
		return 0;
	}
	switch (req.verb) {
	case CONTROL_POLICY_SET:
		if (req.nr_pairs < 1 || req.nr_pairs > CONTROL_MAX_PAIRS)
			abort();
		for (i = 0; i < req.nr_pairs; i++)
			if (!inside(req.pairs[i].key, line, len) || !req.pairs[i].key[0] ||
			    strchr(req.pairs[i].key, '=') || !inside(req.pairs[i].value, line, len))
				abort();
		break;
	case CONTROL_POLICY_LOAD:
		if (!inside(req.path, line, len) || req.path[0] != '/')
			abort();
		break;
	default:
		break;
	}
	return 0;
}
