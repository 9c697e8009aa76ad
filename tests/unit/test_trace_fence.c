// SPDX-License-Identifier: GPL-2.0-only
/*
 * trace_fenced(): a reader that crashes in its child is one line and -1, its
 * exit status passes through, and what it prints as it crashes is dropped.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "unit.h"
#include "trace/trace_fence.h"

static int returns_3(void *arg __attribute__((unused)))
{
	return 3;
}

static int aborts(void *arg __attribute__((unused)))
{
	fprintf(stderr, "11-28 07:57:01.873  7102  7102 F LIB/PACKET bt_packet_create@packet.c:221 "
			"Aborting...\n");
	abort();
}

static int allocates(void *arg)
{
	size_t n = *(size_t *)arg;
	char *p = malloc(n);

	/* A bound that holds: the allocation fails, as GLib's g_malloc() then aborts. */
	if (!p)
		abort();
	memset(p, 1, n);
	free(p);
	return 0;
}

static void test_status_passes_and_crashes_are_named(void)
{
	char *paths[] = { "tests/fixtures/sclat-trace" };
	char why[256] = "";
	size_t n;

	CHECK_EQ_INT(trace_fenced(paths, 1, returns_3, NULL, why, sizeof(why)), 3);
	CHECK_EQ_INT(trace_fenced(paths, 1, aborts, NULL, why, sizeof(why)), -1);
	CHECK(strstr(why, "babeltrace2 crashed reading it (SIGABRT)"), "%s", why);
	/* The fixture is 36 KiB: 1 GiB and a little is the bound. */
	CHECK(strstr(why, "more memory than 1024 MiB"), "%s", why);
	/* Beyond the bound: a crash (-1), or an exit of its own under a sanitizer. */
	n = 2ULL << 30;
	CHECK(trace_fenced(paths, 1, allocates, &n, why, sizeof(why)) != 0, "2 GiB allowed");
	n = 64 << 20;
	CHECK_EQ_INT(trace_fenced(paths, 1, allocates, &n, why, sizeof(why)), 0);
}

int main(void)
{
	RUN(test_status_passes_and_crashes_are_named);
	return unit_done();
}
