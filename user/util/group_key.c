// SPDX-License-Identifier: GPL-2.0-only
#include <stdio.h>
#include <string.h>
#include "group_key.h"

static const char *const part_names[GROUP_NR_PARTS] = {
	[GROUP_PART_SYSCALL] = "syscall", [GROUP_PART_PROCESS] = "process",
	[GROUP_PART_THREAD] = "thread",	  [GROUP_PART_HOST] = "host",
	[GROUP_PART_TARGET] = "target",	  [GROUP_PART_STACK] = "stack",
	[GROUP_PART_CLASS] = "class",	  [GROUP_PART_TITLE] = "title",
};

const char *group_part_name(enum group_part p)
{
	return part_names[p];
}

const char *group_key_name(const struct group_key *k, char *buf, size_t len)
{
	size_t used = 0;
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; i < k->nr && used < len; i++)
		used += snprintf(buf + used, len - used, "%s%s", i ? "," : "",
				 part_names[k->parts[i]]);
	return buf;
}

int group_key_parse(const char *s, struct group_key *k, char *err, size_t errlen)
{
	const char *p = s, *end;
	unsigned int i;
	size_t len;

	memset(k, 0, sizeof(*k));
	do {
		end = strchr(p, ',');
		len = end ? (size_t)(end - p) : strlen(p);
		for (i = 0; i < GROUP_NR_PARTS; i++)
			if (strlen(part_names[i]) == len && !strncmp(p, part_names[i], len))
				break;
		if (i == GROUP_NR_PARTS) {
			snprintf(
				err, errlen,
				"\"%.*s\" is not syscall, process, thread, host, target, stack, class "
				"or title",
				(int)(len > 32 ? 32 : len), p);
			return -1;
		}
		if (group_key_has(k, i) ||
		    (i == GROUP_PART_PROCESS && group_key_has(k, GROUP_PART_THREAD)) ||
		    (i == GROUP_PART_THREAD && group_key_has(k, GROUP_PART_PROCESS))) {
			snprintf(err, errlen, "%s is given twice (a thread names its process)",
				 part_names[i]);
			return -1;
		}
		k->parts[k->nr++] = i;
		p = end ? end + 1 : NULL;
	} while (p);
	return 0;
}
