// SPDX-License-Identifier: GPL-2.0-only
/*
 * sink.sclat.report (tracer-plugins/babeltrace2/report/) over sclat events
 * made of fuzzer bytes (trace_source.h): the outlier decoding, the
 * aggregation and the three renderings. Besides the sanitizers, it checks
 * what a reader relies on: text has no control byte but newlines, and JSON
 * (and LAMI) is valid UTF-8 with no raw control byte either.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "report.h"
#include "trace_source.h"

static bt_component_class_sink *report_class;
static int out_fd;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	report_class = bt_component_class_sink_create("report", report_consume);
	if (!report_class ||
	    bt_component_class_sink_set_initialize_method(report_class, report_init) ||
	    bt_component_class_sink_set_finalize_method(report_class, report_finalize) ||
	    bt_component_class_sink_set_graph_is_configured_method(report_class,
								   report_graph_is_configured))
		abort();
	/* What the sink prints, kept to be checked, not shown. */
	out_fd = memfd_create("report", 0);
	if (out_fd < 0 || dup2(out_fd, STDOUT_FILENO) < 0)
		abort();
	return 0;
}

/* Valid UTF-8 without control characters, newlines aside: checked apart from util/escape.c. */
static int printable_utf8(const unsigned char *s, size_t n)
{
	size_t i = 0, len, k;

	while (i < n) {
		if (s[i] < 0x80) {
			if ((s[i] < 0x20 && s[i] != '\n') || s[i] == 0x7f)
				return 0;
			i++;
			continue;
		}
		len = s[i] >= 0xf0 ? 4 : s[i] >= 0xe0 ? 3 : s[i] >= 0xc2 ? 2 : 0;
		if (!len || s[i] > 0xf4 || i + len > n)
			return 0;
		for (k = 1; k < len; k++)
			if ((s[i + k] & 0xc0) != 0x80)
				return 0;
		/* C1 controls, as UTF-8. */
		if (s[i] == 0xc2 && s[i + 1] < 0xa0)
			return 0;
		i += len;
	}
	return 1;
}

static void output_check(void)
{
	static unsigned char buf[1 << 20];
	off_t n;

	fflush(stdout);
	n = lseek(out_fd, 0, SEEK_END);
	if (n > 0 && n <= (off_t)sizeof(buf) && pread(out_fd, buf, n, 0) == n &&
	    !printable_utf8(buf, n)) {
		fprintf(stderr, "fuzz_report: output with a control byte or invalid UTF-8\n");
		abort();
	}
	if (ftruncate(out_fd, 0) || lseek(out_fd, 0, SEEK_SET) < 0)
		abort();
	rewind(stdout);
}

static bt_value *report_params(const struct fuzz_header *h)
{
	static const char *const formats[] = { "text", "json", "lami" };
	static const char *const bys[] = { "syscall", "process", "thread" };
	bt_value *p = bt_value_map_create();

	if (!p || bt_value_map_insert_string_entry(p, "format", formats[h->format]) ||
	    bt_value_map_insert_string_entry(p, "by", bys[h->by]) ||
	    bt_value_map_insert_signed_integer_entry(p, "top", h->top) ||
	    (h->filters && (bt_value_map_insert_string_entry(p, "syscall", "read") ||
			    bt_value_map_insert_string_entry(p, "min-latency", "1us"))))
		abort();
	return p;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const bt_component_source *src;
	const bt_component_sink *sink;
	struct fuzz_header h;
	bt_graph *graph;
	bt_value *params;

	if (fuzz_header_read(data, size, &h))
		return 0;
	graph = bt_graph_create(0);
	params = report_params(&h);
	if (!graph || fuzz_source_add(graph, data, size, &src) ||
	    bt_graph_add_sink_component(graph, report_class, "report", params,
					BT_LOGGING_LEVEL_NONE, &sink) ||
	    bt_graph_connect_ports(
		    graph, bt_component_source_borrow_output_port_by_index_const(src, 0),
		    bt_component_sink_borrow_input_port_by_index_const(sink, 0), NULL))
		abort();
	while (bt_graph_run(graph) == BT_GRAPH_RUN_STATUS_AGAIN)
		;
	/* A trace the report refuses is fine: it said why, as causes. */
	bt_current_thread_clear_error();
	bt_graph_put_ref(graph);
	bt_value_put_ref(params);
	output_check();
	return 0;
}
