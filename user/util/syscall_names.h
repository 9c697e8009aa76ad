/* SPDX-License-Identifier: GPL-2.0-only */
/* The syscall name table, generated at build time from <asm/unistd_64.h>. */
#ifndef SCLAT_SYSCALL_NAMES_H
#define SCLAT_SYSCALL_NAMES_H

#include <stddef.h>
#include "sclat_abi.h"

extern const char *const syscall_names[SCLAT_MAX_SYSCALLS];

/* The name of syscall nr, or NULL when this architecture has none. */
const char *syscall_name(unsigned int nr);

/* The name of syscall nr into buf, "syscall_<nr>" when it has none; returns buf. */
const char *syscall_name_or_nr(unsigned int nr, char *buf, size_t len);

/*
 * A row of statistics per syscall, named: syscall nr's name as
 * syscall_name_or_nr(), or, for nr SCLAT_MAX_SYSCALLS and above (the
 * syscalls without a histogram of their own, counted together), other:
 * "other" in JSON and in the trace, "(other)" in a table. Returns buf or other.
 */
const char *syscall_label(unsigned int nr, const char *other, char *buf, size_t len);

/* The number of the syscall called name ("read", "sys_read" or "0"), or -1. */
int syscall_nr(const char *name);

/* The known syscall name nearest to name (for "did you mean"), or NULL. */
const char *syscall_nearest(const char *name);

#endif
