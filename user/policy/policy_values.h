/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The values of a policy's keys: each parsed and range-checked into its
 * field of the policy ([global]) or of a rule. False, and ps holds why, on
 * a bad value.
 */
#ifndef SCLAT_POLICY_VALUES_H
#define SCLAT_POLICY_VALUES_H

#include <stdbool.h>
#include "policy.h"
#include "policy_parse_state.h"

/* A [global] key's value into ps->p. */
bool policy_global_apply(struct policy_parse *ps, const struct policy_keydesc *k,
			 const char *value);

/* A rule key's value into r. */
bool policy_rule_apply(struct policy_parse *ps, struct policy_rule *r,
		       const struct policy_keydesc *k, const char *value);

#endif
