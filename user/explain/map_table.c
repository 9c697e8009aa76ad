// SPDX-License-Identifier: GPL-2.0-only
/* Executable mappings per process incarnation, valid by time. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "explain/map_table.h"

#define PID_BUCKETS	 4096 /* power of two */
#define FILE_BUCKETS	 1024 /* power of two */
/* Execs remembered per process: a stack from before the oldest one is not read. */
#define EXECS_KEPT	 4
/* A child reads its parent, which reads its own: a bound against a cycle of bad records. */
#define PARENT_DEPTH_MAX 64

struct map_proc {
	pid_t pid;
	__u64 born_ns;		   /* fork time; 0: found by the scan at start */
	__u64 exit_ns;		   /* 0: not exited */
	__u64 exec_ns[EXECS_KEPT]; /* the latest execs, newest first; 0: none */
	struct map_proc *parent;   /* read until the first exec (holds a reference) */
	__u64 fork_ns;
	struct map_entry *maps; /* in the order added */
	unsigned int nr_maps, cap_maps;
	int refs; /* the table's (while hashed) and each child's */
	bool hashed;
	bool implicit;	       /* made for a record that came before its fork's (or a scan) */
	struct map_proc *next; /* same pid bucket, newest incarnation first */
	struct map_proc *lru_prev, *lru_next; /* by birth, oldest first */
};

struct map_table {
	struct map_table_limits lim;
	struct map_proc *pids[PID_BUCKETS];
	struct map_file *files[FILE_BUCKETS];
	struct map_proc *oldest, *newest; /* incarnations by insertion */
	struct map_table_stats st;
};

static unsigned int pid_hash(pid_t pid)
{
	return ((unsigned int)pid * 2654435761U) & (PID_BUCKETS - 1);
}

static unsigned int file_hash(const char *path, const __u8 *id, size_t id_len)
{
	unsigned int h = 2166136261U;
	size_t i;

	for (; *path; path++)
		h = (h ^ (unsigned char)*path) * 16777619U;
	for (i = 0; i < id_len; i++)
		h = (h ^ id[i]) * 16777619U;
	return h & (FILE_BUCKETS - 1);
}

struct map_table *map_table_new(const struct map_table_limits *limits)
{
	struct map_table *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	if (limits)
		t->lim = *limits;
	if (!t->lim.max_procs)
		t->lim.max_procs = 16384;
	if (!t->lim.max_mappings)
		t->lim.max_mappings = 1024;
	return t;
}

static struct map_file *file_get(struct map_table *t, const char *path, const __u8 *id,
				 size_t id_len, __u64 dev, __u64 ino)
{
	unsigned int h;
	struct map_file *f;

	if (id_len > MAP_BUILD_ID_MAX)
		id_len = MAP_BUILD_ID_MAX;
	if (!id)
		id_len = 0;
	h = file_hash(path, id, id_len);
	for (f = t->files[h]; f; f = f->next) {
		if (f->build_id_len == id_len && (!id_len || !memcmp(f->build_id, id, id_len)) &&
		    f->dev == dev && f->ino == ino && !strcmp(f->path, path)) {
			f->refs++;
			return f;
		}
	}
	f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->path = strdup(path);
	if (!f->path) {
		free(f);
		return NULL;
	}
	if (id_len)
		memcpy(f->build_id, id, id_len);
	f->build_id_len = id_len;
	f->dev = dev;
	f->ino = ino;
	f->refs = 1;
	f->next = t->files[h];
	t->files[h] = f;
	t->st.files++;
	return f;
}

static void file_put(struct map_table *t, struct map_file *f)
{
	struct map_file **p;

	if (--f->refs > 0)
		return;
	p = &t->files[file_hash(f->path, f->build_id, f->build_id_len)];
	while (*p != f)
		p = &(*p)->next;
	*p = f->next;
	free(f->path);
	free(f);
	t->st.files--;
}

static void proc_put(struct map_table *t, struct map_proc *p);

static void proc_unhash(struct map_table *t, struct map_proc *p)
{
	struct map_proc **pp = &t->pids[pid_hash(p->pid)];

	while (*pp != p)
		pp = &(*pp)->next;
	*pp = p->next;
	if (p->lru_prev)
		p->lru_prev->lru_next = p->lru_next;
	else
		t->oldest = p->lru_next;
	if (p->lru_next)
		p->lru_next->lru_prev = p->lru_prev;
	else
		t->newest = p->lru_prev;
	p->hashed = false;
	t->st.procs--;
	proc_put(t, p);
}

static void proc_put(struct map_table *t, struct map_proc *p)
{
	struct map_proc *parent;
	unsigned int i;

	/* Iterative up the parent chain: a long line of forks must not recurse. */
	while (p && --p->refs == 0) {
		for (i = 0; i < p->nr_maps; i++)
			file_put(t, p->maps[i].file);
		t->st.mappings -= p->nr_maps;
		parent = p->parent;
		free(p->maps);
		free(p);
		p = parent;
	}
}

/* Make room under max_procs: the oldest exited first, then the oldest at all. */
static void procs_make_room(struct map_table *t)
{
	struct map_proc *p;

	while (t->st.procs >= t->lim.max_procs) {
		for (p = t->oldest; p && !p->exit_ns; p = p->lru_next)
			;
		proc_unhash(t, p ? p : t->oldest);
		t->st.procs_evicted++;
	}
}

static struct map_proc *proc_new(struct map_table *t, pid_t pid, __u64 born_ns)
{
	struct map_proc *p, **pp;

	procs_make_room(t);
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->pid = pid;
	p->born_ns = born_ns;
	p->refs = 1;
	p->hashed = true;
	/* Incarnations of a pid stay sorted by birth, newest first. */
	pp = &t->pids[pid_hash(pid)];
	while (*pp && !((*pp)->pid == pid && (*pp)->born_ns <= born_ns))
		pp = &(*pp)->next;
	p->next = *pp;
	*pp = p;
	p->lru_prev = t->newest;
	if (t->newest)
		t->newest->lru_next = p;
	else
		t->oldest = p;
	t->newest = p;
	t->st.procs++;
	return p;
}

/* The incarnation of pid alive at ts: the newest born at or before it. */
static struct map_proc *proc_at(const struct map_table *t, pid_t pid, __u64 ts)
{
	struct map_proc *p;

	for (p = t->pids[pid_hash(pid)]; p; p = p->next)
		if (p->pid == pid && p->born_ns <= ts)
			return p;
	return NULL;
}

/* The incarnation records at ts are about, made when none is known (a scan's). */
static struct map_proc *proc_for_record(struct map_table *t, pid_t pid, __u64 ts)
{
	struct map_proc *p = proc_at(t, pid, ts);

	if (!p && (p = proc_new(t, pid, 0)))
		p->implicit = true;
	return p;
}

/*
 * The incarnation made for pid's records that came before its fork record
 * (another CPU's buffer read first): one with no parent, none of whose
 * mappings is older than the fork.
 */
static struct map_proc *proc_early(struct map_table *t, pid_t pid, __u64 fork_ns)
{
	struct map_proc *p;
	unsigned int i;

	for (p = t->pids[pid_hash(pid)]; p && p->pid != pid; p = p->next)
		;
	if (!p || !p->implicit || p->parent)
		return NULL;
	for (i = 0; i < p->nr_maps; i++)
		if (p->maps[i].ts < fork_ns)
			return NULL;
	return p;
}

void map_table_free(struct map_table *t)
{
	if (!t)
		return;
	while (t->oldest)
		proc_unhash(t, t->oldest);
	free(t);
}

static int mapping_add(struct map_table *t, pid_t pid, __u64 ts, __u64 start, __u64 len,
		       __u64 pgoff, const char *path, const __u8 *build_id, size_t build_id_len,
		       __u64 dev, __u64 ino)
{
	struct map_proc *p = proc_for_record(t, pid, ts);
	struct map_entry *m;
	unsigned int cap;

	if (!p)
		return -ENOMEM;
	if (p->nr_maps == t->lim.max_mappings) {
		/* The oldest mapping goes: most likely one mapped over since. */
		file_put(t, p->maps[0].file);
		memmove(p->maps, p->maps + 1, (p->nr_maps - 1) * sizeof(*p->maps));
		p->nr_maps--;
		t->st.mappings--;
		t->st.mappings_dropped++;
	}
	if (p->nr_maps == p->cap_maps) {
		cap = p->cap_maps ? p->cap_maps * 2 : 16;
		if (cap > t->lim.max_mappings)
			cap = t->lim.max_mappings;
		m = realloc(p->maps, cap * sizeof(*m));
		if (!m)
			return -ENOMEM;
		p->maps = m;
		p->cap_maps = cap;
	}
	m = &p->maps[p->nr_maps];
	m->file = file_get(t, path, build_id, build_id_len, dev, ino);
	if (!m->file)
		return -ENOMEM;
	m->start = start;
	m->end = start + len;
	m->pgoff = pgoff;
	m->ts = ts;
	p->nr_maps++;
	t->st.mappings++;
	return 0;
}

int map_table_mmap(struct map_table *t, pid_t pid, __u64 ts, __u64 start, __u64 len, __u64 pgoff,
		   const char *path, const __u8 *build_id, size_t build_id_len)
{
	return mapping_add(t, pid, ts, start, len, pgoff, path, build_id, build_id_len, 0, 0);
}

int map_table_mmap_inode(struct map_table *t, pid_t pid, __u64 ts, __u64 start, __u64 len,
			 __u64 pgoff, const char *path, __u64 dev, __u64 ino)
{
	return mapping_add(t, pid, ts, start, len, pgoff, path, NULL, 0, dev, ino);
}

int map_table_fork(struct map_table *t, pid_t pid, pid_t ppid, __u64 ts)
{
	struct map_proc *parent = proc_for_record(t, ppid, ts);
	struct map_proc *p;

	if (!parent)
		return -ENOMEM;
	/* The child's reference first: making room for the child must not free the parent. */
	parent->refs++;
	p = proc_early(t, pid, ts);
	if (p) {
		p->born_ns = ts;
		p->implicit = false;
	} else if (!(p = proc_new(t, pid, ts))) {
		proc_put(t, parent);
		return -ENOMEM;
	}
	p->parent = parent;
	p->fork_ns = ts;
	return 0;
}

int map_table_exec(struct map_table *t, pid_t pid, __u64 ts)
{
	struct map_proc *p = proc_for_record(t, pid, ts);
	int i, at;

	if (!p)
		return -ENOMEM;
	/* Keep exec_ns sorted, newest first: records may come out of order. */
	for (at = 0; at < EXECS_KEPT && p->exec_ns[at] > ts; at++)
		;
	if (at == EXECS_KEPT || p->exec_ns[at] == ts)
		return 0;
	for (i = EXECS_KEPT - 1; i > at; i--)
		p->exec_ns[i] = p->exec_ns[i - 1];
	p->exec_ns[at] = ts;
	return 0;
}

void map_table_exit(struct map_table *t, pid_t pid, __u64 ts)
{
	struct map_proc *p = proc_at(t, pid, ts);

	if (p && (!p->exit_ns || ts < p->exit_ns))
		p->exit_ns = ts;
}

bool map_table_knows(const struct map_table *t, pid_t pid, __u64 ts)
{
	return proc_at(t, pid, ts) != NULL;
}

/* The latest exec of p at or before ts, 0 if none; -1 (all ones) if older than we keep. */
static __u64 exec_before(const struct map_proc *p, __u64 ts)
{
	int i;

	for (i = 0; i < EXECS_KEPT && p->exec_ns[i]; i++)
		if (p->exec_ns[i] <= ts)
			return p->exec_ns[i];
	return i == EXECS_KEPT ? ~0ULL : 0;
}

/*
 * Walk the mappings valid for p at ts, its own then its parent's as of the
 * fork, calling fn on each; a mapping found earlier (own, or newer) wins.
 */
typedef bool (*map_visit_fn)(void *arg, const struct map_entry *m);

static void maps_visit(const struct map_proc *p, __u64 ts, map_visit_fn fn, void *arg)
{
	int depth;
	__u64 e;
	int i;

	for (depth = 0; p && depth < PARENT_DEPTH_MAX; depth++) {
		e = exec_before(p, ts);
		if (e == ~0ULL)
			return;
		/* Newest first, so the first hit of an address is the one in force. */
		for (i = (int)p->nr_maps - 1; i >= 0; i--) {
			const struct map_entry *m = &p->maps[i];

			if (m->ts >= e && m->ts <= ts && !fn(arg, m))
				return;
		}
		if (e || !p->parent)
			return;
		if (p->fork_ns < ts)
			ts = p->fork_ns;
		p = p->parent;
	}
}

struct find_arg {
	__u64 addr;
	const struct map_entry *found;
};

static bool find_visit(void *arg, const struct map_entry *m)
{
	struct find_arg *a = arg;

	if (a->addr < m->start || a->addr >= m->end)
		return true;
	/* Among a process's own, the newest mapping wins; maps_visit gives them newest first. */
	a->found = m;
	return false;
}

const struct map_entry *map_table_find(const struct map_table *t, pid_t pid, __u64 ts, __u64 addr)
{
	struct find_arg a = { .addr = addr };

	maps_visit(proc_at(t, pid, ts), ts, find_visit, &a);
	return a.found;
}

struct snapshot_arg {
	struct map_entry *out;
	int n, max;
};

static bool snapshot_visit(void *arg, const struct map_entry *m)
{
	struct snapshot_arg *a = arg;
	int i;

	/* What is hidden by a mapping already taken (newer) stays out. */
	for (i = 0; i < a->n; i++)
		if (m->start < a->out[i].end && a->out[i].start < m->end)
			return true;
	if (a->n == a->max)
		return false;
	a->out[a->n++] = *m;
	return true;
}

static int entry_cmp(const void *x, const void *y)
{
	const struct map_entry *a = x, *b = y;

	return a->start < b->start ? -1 : a->start > b->start;
}

int map_table_snapshot(const struct map_table *t, pid_t pid, __u64 ts, struct map_entry *out,
		       int max)
{
	struct snapshot_arg a = { .out = out, .max = max };

	maps_visit(proc_at(t, pid, ts), ts, snapshot_visit, &a);
	qsort(out, a.n, sizeof(*out), entry_cmp);
	return a.n;
}

void map_table_forget(struct map_table *t, __u64 ts)
{
	struct map_proc *p, *next;

	for (p = t->oldest; p; p = next) {
		next = p->lru_next;
		if (p->exit_ns && p->exit_ns < ts)
			proc_unhash(t, p);
	}
}

void map_table_stats(const struct map_table *t, struct map_table_stats *st)
{
	*st = t->st;
}
