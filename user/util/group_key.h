/* SPDX-License-Identifier: GPL-2.0-only */
/* The grouping key of a report: the parts it is made of (sclat report --by syscall,host). */
#ifndef SCLAT_GROUP_KEY_H
#define SCLAT_GROUP_KEY_H

#include <stdbool.h>
#include <stddef.h>

/* The parts a grouping key is made of; a key lists each at most once. */
enum group_part {
	GROUP_PART_SYSCALL,
	GROUP_PART_PROCESS, /* pid (and the first comm seen) */
	GROUP_PART_THREAD,  /* tid and pid (and the first comm seen) */
	GROUP_PART_HOST,    /* the host that recorded the trace */
	GROUP_PART_TARGET,  /* what the call waited on (a file, pipe, socket) */
	GROUP_PART_STACK,   /* where it waited: its stacks, user then kernel */
	GROUP_PART_CLASS,   /* the class whose threshold an outlier crossed ("" the syscall's) */
	GROUP_PART_TITLE,   /* its process's title (its cmdline; "" unknown) */
	GROUP_NR_PARTS,
};

struct group_key {
	enum group_part parts[GROUP_NR_PARTS];
	unsigned int nr;
};

#define GROUP_KEY_NAME_LEN 64

/*
 * The target or stack part of an outlier that has none, and of one that a
 * trace of version 1 or 2 cannot explain.
 */
#define GROUP_NONE	   "(none)"
#define GROUP_NOT_RECORDED "(not recorded)"

/*
 * Parse "PART[,PART...]" (syscall, process, thread, host, target, stack, class, title). 0, or -1
 * with the reason in err.
 */
int group_key_parse(const char *s, struct group_key *k, char *err, size_t errlen);

/* "syscall", "process,host": the key's parts, comma-separated. */
const char *group_key_name(const struct group_key *k, char *buf, size_t len);

const char *group_part_name(enum group_part p);

/* Whether the key has part p. */
static inline bool group_key_has(const struct group_key *k, enum group_part p)
{
	unsigned int i;

	for (i = 0; i < k->nr; i++)
		if (k->parts[i] == p)
			return true;
	return false;
}

/* Whether the key is exactly part p. */
static inline bool group_key_is(const struct group_key *k, enum group_part p)
{
	return k->nr == 1 && k->parts[0] == p;
}

#endif
