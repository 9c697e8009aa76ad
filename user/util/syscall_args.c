// SPDX-License-Identifier: GPL-2.0-only
#include <stdlib.h>
#include <string.h>
#include "syscall_args.h"

static int cmp_name(const void *key, const void *elem)
{
	return strcmp(key, ((const struct syscall_args *)elem)->syscall);
}

const struct syscall_args *syscall_args_find(const char *name)
{
	return bsearch(name, syscall_args_table, syscall_args_count, sizeof(syscall_args_table[0]),
		       cmp_name);
}
