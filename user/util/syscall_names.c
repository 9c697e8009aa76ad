// SPDX-License-Identifier: GPL-2.0-only
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "suggest.h"
#include "syscall_names.h"

const char *syscall_name(unsigned int nr)
{
	return nr < SCLAT_MAX_SYSCALLS ? syscall_names[nr] : NULL;
}

const char *syscall_name_or_nr(unsigned int nr, char *buf, size_t len)
{
	const char *name = syscall_name(nr);

	if (name)
		snprintf(buf, len, "%s", name);
	else
		snprintf(buf, len, "syscall_%u", nr);
	return buf;
}

const char *syscall_label(unsigned int nr, const char *other, char *buf, size_t len)
{
	return nr < SCLAT_MAX_SYSCALLS ? syscall_name_or_nr(nr, buf, len) : other;
}

int syscall_nr(const char *name)
{
	unsigned long v;
	char *end;
	int nr;

	if (!name || !*name)
		return -1;
	if (!strncmp(name, "sys_", 4))
		name += 4;
	if (!strncmp(name, "syscall_", 8) && name[8])
		name += 8;
	v = strtoul(name, &end, 10);
	if (!*end && name[0] >= '0' && name[0] <= '9')
		return v < SCLAT_MAX_SYSCALLS ? (int)v : -1;
	for (nr = 0; nr < SCLAT_MAX_SYSCALLS; nr++)
		if (syscall_names[nr] && !strcmp(syscall_names[nr], name))
			return nr;
	return -1;
}

const char *syscall_nearest(const char *name)
{
	return suggest_nearest(name, syscall_names, SCLAT_MAX_SYSCALLS);
}
