// SPDX-License-Identifier: GPL-2.0-only
/*
 * Title classes: their processes, the id each is given, and the moves when
 * a title changes (class_titles.h).
 */
#include <stdio.h>
#include <string.h>
#include "class_titles.h"
#include "classes.h"
#include "kernel/probes_routes.h"
#include "util/proc_stat.h"
#include "util/proc_title.h"

/* A title class's name: "title " and the title's bytes, cut to a class name's room. */
static void title_class_name(const char *title, char buf[CLASS_NAME_MAX])
{
	static const char prefix[] = "title ";
	size_t n = strnlen(title, CLASS_NAME_MAX - sizeof(prefix));

	memcpy(buf, prefix, sizeof(prefix) - 1);
	memcpy(buf + sizeof(prefix) - 1, title, n);
	buf[sizeof(prefix) - 1 + n] = '\0';
}

static int proc_find(const struct class_titles *ts, __u32 pid)
{
	unsigned int i;

	for (i = 0; i < ts->nr; i++)
		if (ts->proc[i].pid == pid)
			return (int)i;
	return -1;
}

/* The process at i out of its class and of the table (the last one takes its place). */
static unsigned int proc_remove(struct classes *cs, unsigned int i)
{
	struct class_titles *ts = &cs->titles;
	unsigned int id = ts->proc[i].id;

	if (cs->id[id].procs)
		cs->id[id].procs--;
	ts->proc[i] = ts->proc[--ts->nr];
	return id;
}

/* The id of the title class named name; else a free id in *free_id (0: none). */
static unsigned int title_id_find(const struct classes *cs, const char *name, unsigned int *free_id)
{
	unsigned int i;

	*free_id = 0;
	for (i = 1; i < SCLAT_CLASS_IDS; i++) {
		const struct task_class *tc = &cs->id[i];

		if (tc->used && tc->title && !strncmp(tc->name, name, sizeof(tc->name)))
			return i;
		if (!tc->used && !*free_id)
			*free_id = i;
	}
	return 0;
}

unsigned int class_titles_id(struct classes *cs, __u32 pid, const char *title, __u64 now)
{
	struct class_titles *ts = &cs->titles;
	int at = proc_find(ts, pid);
	char name[CLASS_NAME_MAX];
	unsigned int id, free_id;

	title_class_name(title, name);
	id = title_id_find(cs, name, &free_id);
	if (at >= 0 && id && ts->proc[at].id == id)
		return id;
	if ((!id && !free_id) || (at < 0 && ts->nr == CLASS_TITLE_PROCS)) {
		if (at >= 0)
			proc_remove(cs, at);
		cs->ids_refused++;
		return 0;
	}
	if (!id) {
		id = free_id;
		cs->id[id] = (struct task_class){
			.used = true,
			.kind = SCLAT_CLASS_PROCESS,
			.title = true,
			.last_ns = now,
		};
		memcpy(cs->id[id].name, name, sizeof(name));
	}
	if (at < 0)
		at = ts->nr++;
	else if (cs->id[ts->proc[at].id].procs)
		cs->id[ts->proc[at].id].procs--;
	ts->proc[at] = (struct class_title_proc){ .pid = pid, .id = id };
	cs->id[id].procs++;
	/* A process that joins is news of the class: not idle since. */
	if (cs->id[id].last_ns < now)
		cs->id[id].last_ns = now;
	return id;
}

unsigned int class_titles_leave(struct classes *cs, __u32 pid)
{
	int at = proc_find(&cs->titles, pid);

	return at < 0 ? 0 : proc_remove(cs, at);
}

void class_titles_answer(struct classes *cs, __u32 pid, const char *comm, __u64 now)
{
	char title[PROC_TITLE_LEN];
	unsigned int id;

	if (!*proc_title_read((pid_t)pid, title, sizeof(title)))
		snprintf(title, sizeof(title), "[%.*s]", SCLAT_COMM_LEN, comm);
	id = class_titles_id(cs, pid, title, now);
	probes_class_id_set(cs->t, SCLAT_CLASS_PROCESS, pid, id ? id : SCLAT_CLASS_ID_REFUSED);
}

void class_titles_look(struct classes *cs, __u64 now, unsigned int max)
{
	struct class_titles *ts = &cs->titles;
	char title[PROC_TITLE_LEN], name[CLASS_NAME_MAX];
	unsigned int n, id;
	__u32 pid;

	for (n = 0; n < max && ts->nr; n++) {
		if (ts->next >= ts->nr)
			ts->next = 0;
		pid = ts->proc[ts->next].pid;
		/* The last process takes the place of one that leaves: looked at next. */
		if (!*proc_title_read((pid_t)pid, title, sizeof(title))) {
			/* A zombie has no title either: it keeps its class until it is gone. */
			if (pid_vacant((pid_t)pid)) {
				probes_class_id_forget(cs->t, SCLAT_CLASS_PROCESS, pid);
				proc_remove(cs, ts->next);
				continue;
			}
		} else {
			title_class_name(title, name);
			if (strncmp(name, cs->id[ts->proc[ts->next].id].name, sizeof(name))) {
				id = class_titles_id(cs, pid, title, now);
				probes_class_id_set(cs->t, SCLAT_CLASS_PROCESS, pid,
						    id ? id : SCLAT_CLASS_ID_REFUSED);
				if (!id)
					continue;
			}
		}
		ts->next++;
	}
}

void class_titles_forget(struct classes *cs, unsigned int id)
{
	struct class_titles *ts = &cs->titles;
	unsigned int i = 0;

	while (i < ts->nr) {
		if (ts->proc[i].id != id) {
			i++;
			continue;
		}
		probes_class_id_forget(cs->t, SCLAT_CLASS_PROCESS, ts->proc[i].pid);
		proc_remove(cs, i);
	}
}
