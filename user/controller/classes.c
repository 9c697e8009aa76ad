// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "classes.h"
#include "util/syscall_names.h"

struct classes *classes_new(unsigned int nr_cells)
{
	struct classes *cs = calloc(1, sizeof(*cs));

	if (!cs)
		return NULL;
	if (nr_cells > SCLAT_CLASS_CELLS_MAX)
		nr_cells = SCLAT_CLASS_CELLS_MAX;
	cs->nr_cells = nr_cells;
	cs->top = 1;
	cs->cell = calloc(nr_cells ? nr_cells : 1, sizeof(*cs->cell));
	if (!cs->cell) {
		free(cs);
		return NULL;
	}
	return cs;
}

void classes_free(struct classes *cs)
{
	if (!cs)
		return;
	free(cs->cell);
	free(cs);
}

static void task_class_name(struct task_class *tc, __u32 pid, const char *comm, const char *path)
{
	char name[SCLAT_COMM_LEN + 1];

	memcpy(name, comm, SCLAT_COMM_LEN);
	name[SCLAT_COMM_LEN] = '\0';
	switch (tc->kind) {
	case SCLAT_CLASS_PROCESS:
		snprintf(tc->name, sizeof(tc->name), "pid %u (%s)", pid, name);
		break;
	case SCLAT_CLASS_CGROUP:
		if (path && *path)
			snprintf(tc->name, sizeof(tc->name), "%s", path);
		else
			snprintf(tc->name, sizeof(tc->name), "cgroup id %llu",
				 (unsigned long long)tc->key);
		break;
	default:
		snprintf(tc->name, sizeof(tc->name), "comm %s", name);
		break;
	}
}

unsigned int classes_task_id(struct classes *cs, __u32 kind, __u64 key, __u32 pid, const char *comm,
			     const char *path, __u64 now)
{
	unsigned int i, free_id = 0;

	for (i = 1; i < SCLAT_CLASS_IDS; i++) {
		struct task_class *tc = &cs->id[i];

		if (tc->used && tc->kind == kind && tc->key == key)
			return i;
		if (!tc->used && !free_id)
			free_id = i;
	}
	if (!free_id) {
		cs->ids_refused++;
		return 0;
	}
	cs->id[free_id] = (struct task_class){
		.used = true,
		.kind = kind,
		.key = key,
		.last_ns = now,
	};
	task_class_name(&cs->id[free_id], pid, comm, path);
	return free_id;
}

unsigned int classes_cell(struct classes *cs, unsigned int nr, unsigned int slot,
			  unsigned int class_id, unsigned int fd_kind, unsigned int max_classes,
			  __u64 now, bool *opened)
{
	unsigned int i, free_cell = 0;

	*opened = false;
	if (nr >= SCLAT_MAX_SYSCALLS || class_id >= SCLAT_CLASS_IDS)
		return SCLAT_CELL_SHARED;
	for (i = 1; i < cs->top; i++) {
		const struct class_cell *c = &cs->cell[i];

		if (c->used && c->nr == nr && c->class_id == class_id && c->fd_kind == fd_kind)
			return i;
		if (!c->used && !free_cell)
			free_cell = i;
	}
	if (!free_cell && cs->top < cs->nr_cells)
		free_cell = cs->top;
	if (!free_cell || cs->per_syscall[nr] >= max_classes) {
		cs->refused[nr]++;
		cs->cells_refused++;
		return SCLAT_CELL_SHARED;
	}
	if (free_cell == cs->top)
		cs->top++;
	cs->cell[free_cell] = (struct class_cell){
		.used = true,
		.nr = nr,
		.slot = slot,
		.class_id = class_id,
		.fd_kind = fd_kind,
		.last_ns = now,
	};
	cs->per_syscall[nr]++;
	if (class_id)
		cs->id[class_id].cells++;
	*opened = true;
	return free_cell;
}

unsigned int classes_ids_used(const struct classes *cs)
{
	unsigned int i, n = 0;

	for (i = 1; i < SCLAT_CLASS_IDS; i++)
		n += cs->id[i].used;
	return n;
}

void classes_cell_used(struct classes *cs, unsigned int cell, __u64 now)
{
	if (cell < cs->top && cs->cell[cell].used) {
		cs->cell[cell].last_ns = now;
		cs->id[cs->cell[cell].class_id].last_ns = now;
	}
}

bool classes_id_used(const struct classes *cs, unsigned int id)
{
	return id < SCLAT_CLASS_IDS && cs->id[id].used;
}

void classes_cell_close(struct classes *cs, unsigned int cell)
{
	struct class_cell *c;

	if (!cell || cell >= cs->top || !cs->cell[cell].used)
		return;
	c = &cs->cell[cell];
	c->used = false;
	cs->per_syscall[c->nr]--;
	if (c->class_id && cs->id[c->class_id].cells)
		cs->id[c->class_id].cells--;
	while (cs->top > 1 && !cs->cell[cs->top - 1].used)
		cs->top--;
}

unsigned int classes_retire_cell(struct classes *cs, __u64 now, __u64 idle_ns)
{
	unsigned int i;

	for (i = 1; i < cs->top; i++) {
		struct class_cell *c = &cs->cell[i];

		if (!c->used || now - c->last_ns < idle_ns)
			continue;
		classes_cell_close(cs, i);
		return i;
	}
	return 0;
}

unsigned int classes_retire_id(struct classes *cs, __u64 now, __u64 idle_ns)
{
	unsigned int i;

	for (i = 1; i < SCLAT_CLASS_IDS; i++) {
		struct task_class *tc = &cs->id[i];

		if (!tc->used || tc->cells || now - tc->last_ns < idle_ns)
			continue;
		tc->used = false;
		return i;
	}
	return 0;
}

const char *classes_fd_kind_name(unsigned int fd_kind)
{
	static const char *const names[SCLAT_FD_KIND_COUNT] = {
		[SCLAT_FD_NONE] = "none",
		[SCLAT_FD_REGULAR] = "file",
		[SCLAT_FD_DIR] = "dir",
		[SCLAT_FD_CHR] = "chr",
		[SCLAT_FD_BLK] = "blk",
		[SCLAT_FD_PIPE] = "pipe",
		[SCLAT_FD_UNIX] = "socket/unix",
		[SCLAT_FD_INET] = "socket/inet",
		[SCLAT_FD_INET6] = "socket/inet6",
		[SCLAT_FD_NETLINK] = "socket/netlink",
		[SCLAT_FD_SOCKET] = "socket",
		[SCLAT_FD_ANON] = "anon",
		[SCLAT_FD_OTHER] = "other",
	};

	return fd_kind < SCLAT_FD_KIND_COUNT ? names[fd_kind] : "other";
}

const char *classes_name(const struct classes *cs, unsigned int cell, char *buf, size_t len)
{
	const struct class_cell *c;
	const char *task = "";

	if (!cell || cell >= cs->top || !cs->cell[cell].used) {
		snprintf(buf, len, "%s", "");
		return buf;
	}
	c = &cs->cell[cell];
	if (c->class_id)
		task = cs->id[c->class_id].name;
	if (c->fd_kind)
		snprintf(buf, len, "%s%sfd:%s", task, *task ? " " : "",
			 classes_fd_kind_name(c->fd_kind));
	else
		snprintf(buf, len, "%s", task);
	return buf;
}

unsigned int classes_cells_for(const struct policy *p, int ncpus)
{
	unsigned long n;
	unsigned int nr;
	bool any = p->def.classes;

	for (nr = 0; nr < SCLAT_MAX_SYSCALLS && !any; nr++)
		any = p->rules[nr].classes;
	if (p->class_cells)
		n = (unsigned long)p->class_cells + 1;
	else if (!any)
		return 0;
	else
		n = CLASSES_PER_CPU_BYTES / (sizeof(struct sclat_hist) * (ncpus > 0 ? ncpus : 1));
	if (n < CLASSES_CELLS_MIN)
		n = CLASSES_CELLS_MIN;
	return n > SCLAT_CLASS_CELLS_MAX ? SCLAT_CLASS_CELLS_MAX : n;
}

int classes_policy_fits(const struct policy *p, unsigned int nr_cells, char *msg, size_t len)
{
	unsigned int nr, room = nr_cells > 1 ? nr_cells - 1 : 0;
	char kinds[64], name[32];

	msg[0] = '\0';
	/* The most a tracer ever has (classes_cells_for()) is room enough for any. */
	if (p->class_cells > room && nr_cells < SCLAT_CLASS_CELLS_MAX) {
		snprintf(msg, len,
			 "class_cells = %u: this tracer has room for %u class cells, set when it "
			 "started; restart it to have more",
			 p->class_cells, room);
		return -EINVAL;
	}
	for (nr = 0; nr < SCLAT_MAX_SYSCALLS; nr++) {
		const struct policy_rule *r = &p->rules[nr];

		if (!r->classes || r->mode != POLICY_ADAPTIVE)
			continue;
		if (!room) {
			snprintf(msg, len,
				 "classes = %s (%s): this tracer has no room for class cells "
				 "(class_cells: 0, set when it started with a policy without "
				 "classes); restart it with this policy",
				 policy_classes_format(r->classes, kinds, sizeof(kinds)),
				 syscall_name_or_nr(nr, name, sizeof(name)));
			return -EINVAL;
		}
		if (r->max_classes > room) {
			snprintf(msg, len,
				 "max_classes = %u (%s): this tracer has room for %u class cells "
				 "in all, set when it started: classes beyond them share their "
				 "syscall's threshold",
				 r->max_classes, syscall_name_or_nr(nr, name, sizeof(name)), room);
			return 1;
		}
	}
	return 0;
}
