// SPDX-License-Identifier: GPL-2.0-only
/*
 * sclat-lami: a LAMI 1.0 external analysis for Trace Compass over a trace
 * recorded by sclat record. The tables come from sink.sclat.report
 * (format=lami), the aggregation every sclat report uses.
 *
 *   sclat-lami --mi-version | --metadata
 *   sclat-lami [--test-compatibility] [--output-progress] [--begin NS] [--end NS]
 *              [--limit N|unlimited] TRACE
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "trace/trace_fence.h"
#include "trace/trace_graph.h"
#include "lami.h"

struct lami_args {
	bool test_compatibility;
	bool progress;
	bool begin_set, end_set;
	long long begin, end;
	long long limit; /* -1: unlimited */
	const char *trace;
};

enum {
	OPT_MI_VERSION = 0x100,
	OPT_METADATA,
	OPT_TEST_COMPATIBILITY,
	OPT_OUTPUT_PROGRESS,
	OPT_BEGIN,
	OPT_END,
	OPT_LIMIT,
};

static const struct option lami_options[] = {
	{ "mi-version", no_argument, NULL, OPT_MI_VERSION },
	{ "metadata", no_argument, NULL, OPT_METADATA },
	{ "test-compatibility", no_argument, NULL, OPT_TEST_COMPATIBILITY },
	{ "output-progress", no_argument, NULL, OPT_OUTPUT_PROGRESS },
	{ "begin", required_argument, NULL, OPT_BEGIN },
	{ "end", required_argument, NULL, OPT_END },
	{ "limit", required_argument, NULL, OPT_LIMIT },
	{ "help", no_argument, NULL, 'h' },
	{},
};

/* Errors are LAMI error objects on stdout, where Trace Compass reads them. */
static int fail(const char *fmt, const char *arg)
{
	char msg[600];

	snprintf(msg, sizeof(msg), fmt, arg);
	lami_error(stdout, msg);
	return 1;
}

static int parse_ns(const char *s, long long *v)
{
	char *end;

	errno = 0;
	*v = strtoll(s, &end, 10);
	return errno || end == s || *end ? -1 : 0;
}

/* Run the graph with stdout in memory: nothing but one JSON document leaves. */
static int lami_run(struct graph_ctx *g, const struct lami_args *a)
{
	bt_value *params = bt_value_map_create();
	int out = -1, mem = -1, ret = -1;
	char buf[65536];
	ssize_t n;

	if (!params || bt_value_map_insert_string_entry(params, "format", "lami") ||
	    bt_value_map_insert_signed_integer_entry(params, "top",
						     a->limit < 0 ? INT32_MAX : a->limit) ||
	    (a->begin_set && bt_value_map_insert_signed_integer_entry(params, "begin", a->begin)) ||
	    (a->end_set && bt_value_map_insert_signed_integer_entry(params, "end", a->end)))
		goto out;
	if (graph_add_sink(g, "report", params))
		goto out;
	fflush(stdout);
	mem = memfd_create("sclat-lami", MFD_CLOEXEC);
	out = dup(STDOUT_FILENO);
	if (mem < 0 || out < 0 || dup2(mem, STDOUT_FILENO) < 0) {
		graph_fail(g, "cannot capture the results: %s", strerror(errno));
		goto out;
	}
	ret = graph_run(g);
	fflush(stdout);
	dup2(out, STDOUT_FILENO);
	if (ret || a->test_compatibility)
		goto out;
	if (a->progress)
		printf("1.000 done\n");
	fflush(stdout);
	lseek(mem, 0, SEEK_SET);
	while ((n = read(mem, buf, sizeof(buf))) > 0)
		if (write(STDOUT_FILENO, buf, n) != n)
			break;
out:
	if (out >= 0)
		close(out);
	if (mem >= 0)
		close(mem);
	bt_value_put_ref(params);
	return ret;
}

/* The reading itself: in a child process (trace_fenced()), as babeltrace2 may crash on a trace. */
static int lami_read(void *arg)
{
	const struct lami_args *a = arg;
	struct graph_ctx g = { .trace = a->trace };
	int ret = graph_source(&g) || lami_run(&g, a) ? 1 : 0;

	if (ret)
		lami_error(stdout, g.err[0] ? g.err : "out of memory");
	graph_free(&g);
	return ret;
}

static void usage(FILE *f)
{
	fprintf(f, "Usage: sclat-lami --mi-version | --metadata\n"
		   "       sclat-lami [--test-compatibility] [--output-progress] [--begin NS] "
		   "[--end NS]\n"
		   "                  [--limit N|unlimited] TRACE\n"
		   "A LAMI " LAMI_MI_VERSION " analysis of a trace recorded by sclat record, for "
		   "Trace Compass.\n");
}

int main(int argc, char **argv)
{
	struct lami_args a = { .limit = -1 };
	char why[256], msg[PATH_MAX + 300];
	int opt, ret;

	opterr = 0;
	/* A leading ':': a missing value is ':', told apart from an unknown option. */
	while ((opt = getopt_long(argc, argv, ":h", lami_options, NULL)) != -1) {
		switch (opt) {
		case OPT_MI_VERSION:
			printf("%s\n", LAMI_MI_VERSION);
			return 0;
		case OPT_METADATA:
			lami_metadata(stdout);
			return 0;
		case OPT_TEST_COMPATIBILITY:
			a.test_compatibility = true;
			break;
		case OPT_OUTPUT_PROGRESS:
			a.progress = true;
			break;
		case OPT_BEGIN:
			if (parse_ns(optarg, &a.begin))
				return fail("--begin %s: not a time in ns since the epoch", optarg);
			a.begin_set = true;
			break;
		case OPT_END:
			if (parse_ns(optarg, &a.end))
				return fail("--end %s: not a time in ns since the epoch", optarg);
			a.end_set = true;
			break;
		case OPT_LIMIT:
			if (!strcmp(optarg, "unlimited"))
				a.limit = -1;
			else if (parse_ns(optarg, &a.limit) || a.limit < 0 || a.limit > INT32_MAX)
				return fail("--limit %s: a number of rows or \"unlimited\"",
					    optarg);
			break;
		case 'h':
			usage(stdout);
			return 0;
		case ':':
			return fail("%s needs a value", argv[optind - 1]);
		default:
			return fail("%s: unknown option", argv[optind - 1]);
		}
	}
	if (optind != argc - 1)
		return fail("%s", optind < argc ? "one trace at a time" : "which trace?");
	if (a.begin_set && a.end_set && a.begin > a.end)
		return fail("%s", "--begin is after --end");
	a.trace = argv[optind];
	if (a.progress && !a.test_compatibility) {
		printf("0.000 reading %s\n", a.trace);
		fflush(stdout);
	}
	ret = trace_fenced((char *const *)&a.trace, 1, lami_read, &a, why, sizeof(why));
	if (ret < 0) {
		snprintf(msg, sizeof(msg), "%s: %s", a.trace, why);
		lami_error(stdout, msg);
		ret = 1;
	}
	return ret;
}
