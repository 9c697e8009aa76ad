// SPDX-License-Identifier: GPL-2.0-only
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include "util/compiler.h"
#include "args.h"

/*
 * argp writes two kinds of lines to state->err_stream: errors, which start
 * with the program's name ("sclat watch: ..."), and its "Try ... --help"
 * hint, which does not (in any language). This stream passes the first kind
 * to stderr and drops the second.
 */
static struct {
	const char *name;
	char start[64]; /* enough of the line to tell its kind */
	size_t len;
	bool decided, pass;
	FILE *stream;
} err_filter;

static void err_filter_decide(void)
{
	size_t n = strlen(err_filter.name);

	err_filter.pass = err_filter.len > n && !memcmp(err_filter.start, err_filter.name, n) &&
			  err_filter.start[n] == ':';
	err_filter.decided = true;
	if (err_filter.pass)
		fwrite(err_filter.start, 1, err_filter.len, stderr);
}

static ssize_t err_filter_write(void *cookie __always_unused, const char *buf, size_t size)
{
	size_t i;

	for (i = 0; i < size; i++) {
		if (err_filter.decided) {
			if (err_filter.pass)
				fputc(buf[i], stderr);
		} else {
			err_filter.start[err_filter.len++] = buf[i];
			if (buf[i] == '\n' || err_filter.len == sizeof(err_filter.start))
				err_filter_decide();
		}
		if (buf[i] == '\n') {
			err_filter.len = 0;
			err_filter.decided = false;
		}
	}
	return size;
}

static error_t args_outer_parse(int key, char *arg __always_unused, struct argp_state *state)
{
	if (key != ARGP_KEY_INIT)
		return ARGP_ERR_UNKNOWN;
	state->child_inputs[0] = state->input;
	if (err_filter.stream)
		state->err_stream = err_filter.stream;
	return 0;
}

error_t args_parse(const struct argp *argp, int argc, char **argv, unsigned int flags, void *input)
{
	cookie_io_functions_t io = { .write = err_filter_write };
	/* argp under a parser that only sets the stream up; its texts move up with it. */
	struct argp inner = *argp;
	const struct argp_child children[] = {
		{ &inner, 0, NULL, 0 },
		{},
	};
	const struct argp outer = {
		.parser = args_outer_parse,
		.args_doc = argp->args_doc,
		.doc = argp->doc,
		.children = children,
	};
	error_t err;

	inner.args_doc = NULL;
	inner.doc = NULL;
	memset(&err_filter, 0, sizeof(err_filter));
	err_filter.name = argv[0];
	err_filter.stream = fopencookie(NULL, "w", io);
	err = argp_parse(&outer, argc, argv, flags, NULL, input);
	if (err_filter.stream)
		fclose(err_filter.stream);
	err_filter.stream = NULL;
	return err;
}
