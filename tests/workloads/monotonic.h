/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The workloads' clock: CLOCK_MONOTONIC in ns, sclat's clock, so that a
 * report's times compare with the trace's; and a sleep that a signal does
 * not cut short.
 */
#ifndef SCLAT_WORKLOAD_MONOTONIC_H
#define SCLAT_WORKLOAD_MONOTONIC_H

#include <errno.h>
#include <time.h>

static inline unsigned long long mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static inline void sleep_ns(long ns)
{
	struct timespec ts = { ns / 1000000000L, ns % 1000000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

#endif
