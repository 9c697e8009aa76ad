// SPDX-License-Identifier: GPL-2.0-only
/*
 * An application instrumented with lttng-ust, for the snapshot tests: what a
 * user's snapshot-mode session records, and what a snapshot taken on an
 * outlier must cover.
 *
 *   flight [--lead-ms L] [--go GO] [--slow MS]... [--gap-ms G] [--report FILE]
 *
 * A thread fires flight:tick every millisecond (clock_nanosleep of 1 ms in
 * between) from start to exit. The main thread waits L ms (default 300), and
 * with --go until the file GO exists (looked for every 5 ms), then for each
 * --slow MS makes one poll(2) with no fd and a timeout of MS ms (the injected
 * slow syscall) between flight:slow_begin and flight:slow_end, and waits G ms
 * (default 300) after each. Its waits are sleeps of 5 ms at most: the polls
 * are its only slow syscalls. FILE (or stdout) gets one JSON line per slow
 * call: {"ms":...,"tid":...,"begin_ns":...,"end_ns":...} (CLOCK_MONOTONIC,
 * LTTng's clock) and {"pid":...,"ticks":...} at the end.
 */
#define _GNU_SOURCE
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define LTTNG_UST_TRACEPOINT_DEFINE
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#include "flight_tp.h"

#define MAX_SLOW 16

static atomic_bool done;
static atomic_ulong ticks;

static unsigned long long mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* In steps of at most 5 ms: no wait of its own is a slow syscall. */
static void sleep_ms(long ms)
{
	struct timespec ts;
	long step;

	for (; ms > 0; ms -= step) {
		step = ms < 5 ? ms : 5;
		ts = (struct timespec){ 0, step * 1000000L };
		clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
	}
}

static void *ticker(void *arg)
{
	(void)arg;
	while (!atomic_load(&done)) {
		lttng_ust_tracepoint(flight, tick, atomic_fetch_add(&ticks, 1));
		sleep_ms(1);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	long lead_ms = 300, gap_ms = 300, slow[MAX_SLOW];
	unsigned long long begin[MAX_SLOW], end[MAX_SLOW];
	const char *report = NULL, *go = NULL;
	struct stat st;
	int nr_slow = 0, i;
	pthread_t thread;
	FILE *out;

	for (i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--lead-ms"))
			lead_ms = atol(argv[i + 1]);
		else if (!strcmp(argv[i], "--gap-ms"))
			gap_ms = atol(argv[i + 1]);
		else if (!strcmp(argv[i], "--slow") && nr_slow < MAX_SLOW)
			slow[nr_slow++] = atol(argv[i + 1]);
		else if (!strcmp(argv[i], "--report"))
			report = argv[i + 1];
		else if (!strcmp(argv[i], "--go"))
			go = argv[i + 1];
		else
			break;
	}
	if (i != argc) {
		fprintf(stderr, "usage: flight [--lead-ms L] [--go GO] [--slow MS]... "
				"[--gap-ms G] [--report FILE]\n");
		return 2;
	}
	if (pthread_create(&thread, NULL, ticker, NULL))
		return 1;
	sleep_ms(lead_ms);
	while (go && stat(go, &st))
		sleep_ms(5);
	for (i = 0; i < nr_slow; i++) {
		lttng_ust_tracepoint(flight, slow_begin, slow[i]);
		begin[i] = mono_ns();
		poll(NULL, 0, (int)slow[i]);
		end[i] = mono_ns();
		lttng_ust_tracepoint(flight, slow_end, slow[i]);
		sleep_ms(gap_ms);
	}
	atomic_store(&done, true);
	pthread_join(thread, NULL);

	out = report ? fopen(report, "a") : stdout;
	if (!out)
		return 1;
	for (i = 0; i < nr_slow; i++)
		fprintf(out, "{\"ms\":%ld,\"tid\":%d,\"begin_ns\":%llu,\"end_ns\":%llu}\n", slow[i],
			gettid(), begin[i], end[i]);
	fprintf(out, "{\"pid\":%d,\"ticks\":%lu}\n", getpid(), atomic_load(&ticks));
	return fclose(out) ? 1 : 0;
}
