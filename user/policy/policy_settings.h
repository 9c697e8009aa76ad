/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The one path that applies settings to a policy, whether they come from a
 * file, the built-in table or a change at run time: policy_section_enter()
 * and policy_key_apply() for each, then policy_finish(). Each returns false,
 * and ps holds why, on the first mistake.
 */
#ifndef SCLAT_POLICY_SETTINGS_H
#define SCLAT_POLICY_SETTINGS_H

#include <stdbool.h>
#include "policy_parse_state.h"

/* A section header's text between the brackets: "global", "default", "syscall NAME". */
bool policy_section_enter(struct policy_parse *ps, const char *text);

/* Apply one key in the current section (ps->sect, ps->nr). */
bool policy_key_apply(struct policy_parse *ps, const char *name, const char *value);

/* Syscalls take [default] for every key they don't override; then check across keys. */
bool policy_finish(struct policy_parse *ps);

#endif
