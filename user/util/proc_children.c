// SPDX-License-Identifier: GPL-2.0-only
/* The descendants of a process now (proc_children.h), breadth first. */
#include <errno.h>
#include <stdlib.h>
#include "proc_children.h"
#include "proc_tasks.h"

struct pid_list {
	pid_t *pids;
	unsigned int nr, size, max;
};

/* Append pid unless it is there; 0, 1 when the list is full, or -ENOMEM. */
static int list_add(struct pid_list *l, pid_t pid)
{
	unsigned int i;
	pid_t *grown;

	/* A process is one thread's child only: a repeat is a pid reused meanwhile. */
	for (i = 0; i < l->nr; i++)
		if (l->pids[i] == pid)
			return 0;
	if (l->nr == l->max)
		return 1;
	if (l->nr == l->size) {
		grown = realloc(l->pids, (l->size ? l->size * 2 : 16) * sizeof(*grown));
		if (!grown)
			return -ENOMEM;
		l->pids = grown;
		l->size = l->size ? l->size * 2 : 16;
	}
	l->pids[l->nr++] = pid;
	return 0;
}

/* The children a thread's file f lists, added to list l; 0, 1 (full) or -ENOMEM. */
static int children_listed(FILE *f, void *l)
{
	int child, err = 0;

	while (!err && fscanf(f, "%d", &child) == 1)
		err = list_add(l, child);
	return err;
}

/* The children of each thread of pid, added to l; 0, 1 (full) or -ENOMEM. */
static int children_add(struct pid_list *l, pid_t pid)
{
	return proc_task_files(pid, "children", 0, children_listed, l);
}

int proc_descendants(pid_t pid, unsigned int max, int (*fn)(pid_t child, void *ctx), void *ctx)
{
	struct pid_list l = { .max = max + 1 };
	unsigned int i;
	int err, listed;

	/* pid itself first, so that no descendant can list it again. */
	err = list_add(&l, pid);
	for (i = 0; !err && i < l.nr; i++) {
		if (i && (err = fn(l.pids[i], ctx)))
			break;
		/* Full (1): the ones listed are still passed to fn. */
		listed = children_add(&l, l.pids[i]);
		if (listed < 0)
			err = listed;
	}
	free(l.pids);
	return err;
}
