/* SPDX-License-Identifier: GPL-2.0-only */
/* What an outlier waited on: which argument names it, and its target part as text. */
#ifndef SCLAT_TARGET_H
#define SCLAT_TARGET_H

#include <stddef.h>
#include "sclat_abi.h"

/*
 * Fill rules[SCLAT_MAX_SYSCALLS] from the syscall argument table
 * (util/syscall_args.h): an exec (it has argv) is its new executable; else a
 * path argument, relative to its directory fd argument; else an fd argument.
 * Syscalls with none, or unknown to the table, get SCLAT_RULE_NONE.
 */
void target_rules_build(struct sclat_target_rule *rules);

/*
 * The target of a part (len bytes of tg) as text into buf: "/var/tmp/data",
 * "pipe:[38211]", "socket:TCP 127.0.0.1:5432->127.0.0.1:40112",
 * "anon_inode:[eventfd]". Returns buf, or NULL when the part says nothing
 * (no target, or malformed).
 */
const char *target_format(const struct sclat_target *tg, size_t len, char *buf, size_t buflen);

#endif
