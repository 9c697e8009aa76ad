/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The names lttng-modules (after the kernel's syscall trace events) gives the
 * arguments of each syscall; the table is generated at build time from tracefs
 * by scripts/gen-syscall-args.sh, and empty where tracefs was not there. The
 * kernel conversion names arguments with it; the tracer finds each syscall's
 * fd or path argument in it.
 */
#ifndef SCLAT_SYSCALL_ARGS_H
#define SCLAT_SYSCALL_ARGS_H

#include <stdbool.h>

struct syscall_arg {
	const char *name;
	bool pointer; /* shown in hex */
};

struct syscall_args {
	const char *syscall;
	unsigned int nr_args;
	struct syscall_arg arg[6];
};

/* Sorted by syscall name. */
extern const struct syscall_args syscall_args_table[];
extern const unsigned int syscall_args_count;

/* The arguments of the syscall called name, or NULL when the table does not know it. */
const struct syscall_args *syscall_args_find(const char *name);

#endif
