/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Where settings applied to a policy come from (a file and its line, or a
 * change at run time), which section they are in, where each key was set,
 * and the first error, as the file reader, the values' parsers and the
 * checks across keys share them.
 */
#ifndef SCLAT_POLICY_PARSE_STATE_H
#define SCLAT_POLICY_PARSE_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include "policy.h"
#include "policy_keys.h"

struct policy_parse {
	struct policy *p;
	const char *file; /* NULL: run-time KEY=VALUE, no file:line in errors */
	const char *text; /* the file's bytes */
	size_t len, pos;
	int line;
	char *err;
	size_t errlen;
	int err_line; /* 0: no error yet */
	enum policy_section sect;
	int nr; /* of SECT_SYSCALL */
	__u32 global_seen, default_seen;
	int global_line, default_line;
	int syscall_line[SCLAT_MAX_SYSCALLS];
	__u32 syscall_seen[SCLAT_MAX_SYSCALLS]; /* keys this parse set, per [syscall NAME] */
	/* Where floor and ceiling were set, for the cross-key check: [nr], [MAX] = default. */
	int floor_line[SCLAT_MAX_SYSCALLS + 1], ceiling_line[SCLAT_MAX_SYSCALLS + 1];
};

/* A parse of settings into p, errors to err; NULL (and err says so) when out of memory. */
struct policy_parse *policy_parse_new(struct policy *p, const char *file, char *err, size_t errlen);

/* Record the first error, prefixed with file:line when parsing a file. Returns false. */
bool policy_parse_fail(struct policy_parse *ps, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
