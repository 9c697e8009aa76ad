// SPDX-License-Identifier: GPL-2.0-only
/*
 * A failed graph's line (user/trace/graph_error.c): libbabeltrace2's dump of
 * its objects comes out in words, with what to do, and no address or .so path.
 */
#include <stdlib.h>
#include "trace/graph_error.h"
#include "unit.h"

/* libbabeltrace2's cause when a sink's consume method fails without one of its own. */
static const char consume_dump[] =
	"Component's \"consume\" method failed: status=MEMORY_ERROR, comp-addr=0x55d1c2a0c5e0, "
	"comp-name=\"report\", comp-log-level=NONE, comp-class-type=SINK, "
	"comp-class-name=\"report\", comp-class-partial-descr=\"Summarize sclat outliers\", "
	"comp-class-is-frozen=1, comp-class-so-handle-addr=0x55d1c29f12a0, "
	"comp-class-so-handle-path=\"/usr/lib/sclat/babeltrace-plugin-sclat.so\", "
	"comp-input-port-count=1, comp-output-port-count=0";

static void test_memory_error_is_said_in_words_with_what_to_do(void)
{
	char buf[512];

	graph_error_words(consume_dump, buf, sizeof(buf));
	CHECK_STR(buf, "babeltrace2's component \"report\" ran out of memory (Component's "
		       "\"consume\" method failed: status=MEMORY_ERROR): free memory, or read less "
		       "of the trace at once (--syscall, --pid, --begin/--end)");
}

static void test_an_iterator_failure_names_its_component_and_no_address(void)
{
	char buf[512];

	graph_error_words("Component input port message iterator's \"next\" method failed: "
			  "iter-addr=0x5623, iter-upstream-comp-name=\"mux\", status=ERROR",
			  buf, sizeof(buf));
	CHECK_STR(buf, "babeltrace2's component \"mux\" failed without saying why (Component "
		       "input port message iterator's \"next\" method failed): `babeltrace2 "
		       "TRACE` may tell more");
	CHECK(!strstr(buf, "0x"), "%s", buf);
}

static void test_a_message_without_a_dump_is_kept_whole(void)
{
	char buf[128];

	graph_error_words("Cannot create graph", buf, sizeof(buf));
	CHECK_STR(buf, "Cannot create graph (babeltrace2 said no more)");
}

/* The library's cause is the only one: its words, not its dump. */
static void test_line_of_an_error_with_only_the_library_cause(void)
{
	const bt_error *err;
	char buf[512];

	bt_current_thread_error_append_cause_from_unknown("libbabeltrace2", __FILE__, __LINE__,
							  "%s", consume_dump);
	err = bt_current_thread_take_error();
	graph_error_line(err, buf, sizeof(buf));
	CHECK(!strncmp(buf, "babeltrace2's component \"report\" ran out of memory", 50), "%s", buf);
	CHECK(!strstr(buf, "so-handle"), "%s", buf);
	bt_error_release(err);
	CHECK_STR(graph_error_line(NULL, buf, sizeof(buf)), "unknown error");
}

int main(void)
{
	RUN(test_memory_error_is_said_in_words_with_what_to_do);
	RUN(test_an_iterator_failure_names_its_component_and_no_address);
	RUN(test_a_message_without_a_dump_is_kept_whole);
	RUN(test_line_of_an_error_with_only_the_library_cause);
	return unit_done();
}
