/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The policy the controller's unit tests feed their engines: adaptive, the
 * 0.999 quantile over 1 s intervals and a 10 s half-life, 10 ms until 1000
 * calls, with the classes a test is about. One place, so that the tests
 * agree on what "the usual policy" is; a test that wants another half-life
 * sets it after, one that wants a false_alarm rule asks policy_fixture_rate().
 */
#ifndef SCLAT_TEST_POLICY_FIXTURE_H
#define SCLAT_TEST_POLICY_FIXTURE_H

#include <stdlib.h>
#include "policy/policy.h"

/* classes: POLICY_CLASS_* bits (0: none); max_classes as policy_rule's (0: no class of its own). */
static inline struct policy *policy_fixture(__u32 classes, __u32 max_classes)
{
	const __u64 sec = 1000000000ULL;
	struct policy *p = calloc(1, sizeof(*p));
	unsigned int nr;

	p->interval_ns = sec;
	p->half_life_ns = 10 * sec;
	p->def = (struct policy_rule){
		.mode = POLICY_ADAPTIVE,
		.quantile = 0.999,
		.margin = 1.0,
		.floor_ns = 100,
		.ceiling_ns = 10 * sec,
		.initial_ns = 10000000,
		.min_samples = 1000,
		.classes = classes,
		.max_classes = max_classes,
	};
	for (nr = 0; nr < SCLAT_MAX_SYSCALLS; nr++)
		p->rules[nr] = p->def;
	return p;
}

/* A false_alarm rule of rate, for [default] and every syscall (0: the quantile's again). */
static inline void policy_fixture_rate(struct policy *p, double rate)
{
	unsigned int nr;

	p->def.false_alarm = rate;
	for (nr = 0; nr < SCLAT_MAX_SYSCALLS; nr++)
		p->rules[nr].false_alarm = rate;
}

#endif
