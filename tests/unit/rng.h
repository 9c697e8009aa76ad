/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The unit tests' random numbers: deterministic (xorshift64), so that no test
 * depends on its run. Each test file has its own state, seeded with RNG_SEED
 * when it defines one before including this.
 */
#ifndef SCLAT_TEST_RNG_H
#define SCLAT_TEST_RNG_H

#include <math.h>
#include <linux/types.h>

#ifndef RNG_SEED
#define RNG_SEED 0x9e3779b97f4a7c15ULL
#endif

static __u64 rng_state = RNG_SEED;

/* Uniform in (0, 1), never 0 nor 1. */
static inline double uniform01(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return ((rng_state >> 11) + 0.5) / 9007199254740992.0;
}

/* Standard normal (Box-Muller). */
static inline double normal(void)
{
	return sqrt(-2 * log(uniform01())) * cos(2 * M_PI * uniform01());
}

#endif
