/* SPDX-License-Identifier: GPL-2.0-only */
/* A clock read as one 64-bit count of ns, and a sleep of a few ms. */
#ifndef SCLAT_CLOCK_H
#define SCLAT_CLOCK_H

#include <time.h>
#include <linux/types.h>

/* CLOCK_MONOTONIC is bpf_ktime_get_ns()'s clock: BPF timestamps compare with it. */
static inline __u64 clock_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static inline void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

#endif
