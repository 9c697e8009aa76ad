// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "classes.h"
#include "classes_auto.h"
#include "brake.h"
#include "cgroup_path.h"
#include "engine.h"
#include "status.h"
#include "kernel/probes_brake.h"
#include "kernel/probes_hists.h"
#include "kernel/probes_knobs.h"
#include "kernel/probes_load.h"
#include "kernel/probes_routes.h"
#include "util/proc_stat.h"
#include "util/syscall_names.h"
#include "util/log.h"

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
	cgroup_paths_close(cs->cgroups);
	classes_auto_free(cs);
	free(cs->cell_buf);
	free(cs->cell);
	free(cs);
}

struct classes *classes_open(struct probes *t, struct engine *engine, struct basis_table *basis)
{
	struct classes *cs = classes_new(probes_class_cells(t));

	if (!cs)
		return NULL;
	cs->t = t;
	cs->engine = engine;
	cs->basis = basis;
	cs->ncpus = probes_ncpus(t);
	cs->cell_buf =
		calloc((size_t)(probes_class_cells(t) + 1) * cs->ncpus, sizeof(*cs->cell_buf));
	if (!cs->cell_buf) {
		classes_free(cs);
		return NULL;
	}
	return cs;
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

/*
 * What process class tc's process runs, from now on (classes_exec_look). Its
 * request was asked at its first call (by a thread named comm) and answered
 * a tick later: a process none of whose threads is named comm any more
 * exec'd meanwhile (`sh -c 'exec prog'`) or renamed itself, and is named by
 * its main thread's command. One with a thread of that name keeps it.
 */
static void process_class_known(struct task_class *tc, __u32 pid, const char *comm)
{
	char asked[SCLAT_COMM_LEN + 1];
	struct proc_stat st;

	memcpy(asked, comm, SCLAT_COMM_LEN);
	asked[SCLAT_COMM_LEN] = '\0';
	tc->exe_known = !proc_exe_id((pid_t)tc->key, &tc->exe_dev, &tc->exe_ino);
	if (tc->exe_known && !proc_stat_read((pid_t)tc->key, &st) && strcmp(st.comm, asked) &&
	    !proc_thread_named((pid_t)tc->key, asked))
		task_class_name(tc, pid, st.comm, NULL);
}

unsigned int classes_task_id(struct classes *cs, __u32 kind, __u64 key, __u32 pid, const char *comm,
			     const char *path, __u64 now)
{
	unsigned int i, free_id = 0;

	for (i = 1; i < SCLAT_CLASS_IDS; i++) {
		struct task_class *tc = &cs->id[i];

		if (tc->used && !tc->title && tc->kind == kind && tc->key == key)
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
	if (kind == SCLAT_CLASS_PROCESS)
		process_class_known(&cs->id[free_id], pid, comm);
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

/*
 * Where a rule key of syscall nr was set, for a message: " for NAME" when its
 * own section set it, "" when it is [default]'s (or [global]'s) for all.
 */
static const char *key_where(const struct policy *p, unsigned int nr, __u32 key, char *buf,
			     size_t len)
{
	char name[32];

	if (!(p->overrides[nr] & key))
		return "";
	snprintf(buf, len, " for %s", syscall_name_or_nr(nr, name, sizeof(name)));
	return buf;
}

int classes_policy_fits(const struct policy *p, unsigned int nr_cells, char *msg, size_t len)
{
	unsigned int nr, room = nr_cells > 1 ? nr_cells - 1 : 0;
	char kinds[64], where[48];

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
				 "classes = %s%s: this tracer has no room for class cells (it "
				 "started with a policy without classes, and sized its kernel maps "
				 "then); restart it with classes in its policy (--policy FILE)",
				 policy_classes_format(r->classes, kinds, sizeof(kinds)),
				 key_where(p, nr, POLICY_KEY_CLASSES, where, sizeof(where)));
			return -EINVAL;
		}
		if (r->max_classes > room) {
			snprintf(msg, len,
				 "max_classes = %u%s: this tracer has room for %u class cells "
				 "in all, set when it started: classes beyond them share their "
				 "syscall's threshold (restart it for more)",
				 r->max_classes,
				 key_where(p, nr, POLICY_KEY_MAX_CLASSES, where, sizeof(where)),
				 room);
			return 1;
		}
	}
	return 0;
}

/*
 * What was refused for want of room is asked again once room frees, and
 * then only what was refused since the last time: while the tables stay
 * full, nothing asks twice.
 */
static void refusals_rearm(struct classes *cs, bool ids_freed, bool cells_freed)
{
	bool ids = ids_freed && cs->ids_refused != cs->ids_refused_rearmed;
	bool cells = cells_freed && cs->cells_refused != cs->cells_refused_rearmed;

	if (!ids && !cells)
		return;
	probes_class_refusals_rearm(cs->t, ids, cells);
	if (ids)
		cs->ids_refused_rearmed = cs->ids_refused;
	if (cells)
		cs->cells_refused_rearmed = cs->cells_refused;
}

/* Cell's route and statistics gone: its calls go back to its syscall's threshold. */
static void cell_forget(struct classes *cs, unsigned int cell)
{
	const struct class_cell *k = &cs->cell[cell];

	probes_cell_route(cs->t, k->slot, k->class_id, k->fd_kind, SCLAT_CELL_NONE);
	probes_brake_arm(cs->t, SCLAT_HIST_SLOTS + cell, 0);
	engine_cell_close(cs->engine, cell);
}

/* Close cell, no longer wanted: forgotten, and its place free. */
static void cell_close(struct classes *cs, unsigned int cell)
{
	cell_forget(cs, cell);
	classes_cell_close(cs, cell);
}

/* Close every cell of syscall nr (its classes changed at run time). */
static void syscall_cells_close(struct classes *cs, unsigned int nr)
{
	unsigned int cell;
	bool closed = false;

	for (cell = 1; cell < cs->top; cell++)
		if (cs->cell[cell].used && cs->cell[cell].nr == nr) {
			cell_close(cs, cell);
			closed = true;
		}
	if (closed)
		refusals_rearm(cs, false, true);
}

/* want[]'s own bit, beside SCLAT_CLASSES_*: process keys name title classes. */
#define WANT_TITLE (1U << 31)

/*
 * Whether a cell request is of classes its syscall is no longer split by
 * (a policy changed them since it was asked, or its class id retired).
 */
static bool request_stale(const struct classes *cs, unsigned int nr,
			  const struct sclat_class_request *r)
{
	__u32 want = cs->want[nr], task = want & SCLAT_CLASSES_TASK;

	if (!want)
		return true;
	if (r->class_id && (!classes_id_used(cs, r->class_id) || cs->id[r->class_id].kind != task ||
			    cs->id[r->class_id].title != !!(want & WANT_TITLE)))
		return true;
	if (!r->class_id && task)
		return true;
	return r->fd_kind != SCLAT_FD_NONE && !(want & SCLAT_CLASSES_FD);
}

/* Id's keys (its process's, cgroup's or name's, or its title's processes') and routes forgotten. */
static void id_keys_forget(struct classes *cs, unsigned int id)
{
	if (cs->id[id].title)
		class_titles_forget(cs, id);
	else
		probes_class_id_forget(cs->t, cs->id[id].kind, cs->id[id].key);
	probes_class_routes_clear(cs->t, id);
}

/* Retire class id now, its cells with it; returns whether it had a cell. */
static bool id_retire(struct classes *cs, unsigned int id)
{
	unsigned int cell;
	bool closed = false;

	for (cell = 1; cell < cs->top; cell++)
		if (cs->cell[cell].used && cs->cell[cell].class_id == id) {
			cell_close(cs, cell);
			closed = true;
		}
	cs->id[id].used = false;
	id_keys_forget(cs, id);
	return closed;
}

/*
 * The classes keyed by process retired at once: a policy turned classes =
 * title on or off, and the kernel's process keys now name the other kind.
 * The keys it refused ask again.
 */
static void process_ids_retire(struct classes *cs)
{
	unsigned int id;

	for (id = 1; id < SCLAT_CLASS_IDS; id++)
		if (cs->id[id].used && cs->id[id].kind == SCLAT_CLASS_PROCESS)
			id_retire(cs, id);
	probes_class_refusals_rearm(cs->t, true, false);
}

void classes_apply(struct classes *cs, const struct policy *p)
{
	bool raised = false, titled = false;
	__u32 bits, want;
	unsigned int nr;

	for (nr = 0; nr < SCLAT_MAX_SYSCALLS; nr++) {
		raised |= p->rules[nr].max_classes > cs->max_classes[nr];
		cs->max_classes[nr] = p->rules[nr].max_classes;
		bits = p->rules[nr].classes;
		want = 0;
		if (bits & POLICY_CLASS_PROCESS)
			want = SCLAT_CLASS_PROCESS;
		else if (bits & POLICY_CLASS_CGROUP)
			want = SCLAT_CLASS_CGROUP;
		else if (bits & POLICY_CLASS_COMM)
			want = SCLAT_CLASS_COMM;
		else if (bits & POLICY_CLASS_TITLE) /* kept per process in the kernel */
			want = SCLAT_CLASS_PROCESS | WANT_TITLE;
		if (bits & POLICY_CLASS_FD)
			want |= SCLAT_CLASSES_FD;
		/* Keyed as process,fd; classes_auto.c decides which cells judge alone. */
		if (bits & POLICY_CLASS_AUTO)
			want = SCLAT_CLASS_PROCESS | SCLAT_CLASSES_FD;
		if (cs->nr_cells <= 1 || p->rules[nr].mode != POLICY_ADAPTIVE)
			want = 0;
		/* Split otherwise, or not at all: its classes so far go, and their places. */
		if (want != cs->want[nr] && cs->want[nr])
			syscall_cells_close(cs, nr);
		cs->want[nr] = want;
		probes_classes_set(cs->t, nr, want & ~WANT_TITLE);
		titled |= want & WANT_TITLE;
	}
	if (titled != cs->titled)
		process_ids_retire(cs);
	cs->titled = titled;
	probes_sample_set(cs->t, p->sample);
	refusals_rearm(cs, false, raised);
}

void classes_cell_threshold_publish(struct classes *cs, unsigned int cell)
{
	const struct engine_syscall *s = &cs->engine->cell[cell];
	struct threshold_basis b;

	/* A cell merged under auto is judged by its ancestor's window. */
	engine_basis(classes_auto_entry(cs, cell), &b);
	classes_name(cs, cell, b.class_name, sizeof(b.class_name));
	probes_cell_threshold_set(
		cs->t, cell,
		basis_publish(cs->basis, SCLAT_MAX_SYSCALLS + cell, s->threshold_ns, &b));
}

/*
 * A new cell starts from its histogram's counts now (an earlier class's
 * are in them), on its syscall's young threshold (engine_young_ns: nothing
 * is known of its normal yet), braked from its first call (a class whose
 * normal is above that threshold emits a few outliers, not its calls until
 * the next interval). False when they cannot be read: the cell is not
 * opened, since its first reading would count that class's.
 */
static bool cell_open(struct classes *cs, const struct policy *p, unsigned int cell,
		      unsigned int nr)
{
	struct sclat_hist sum;

	if (probes_cell_read(cs->t, cell, cs->cell_buf))
		return false;
	engine_hist_sum(&sum, cs->cell_buf, cs->ncpus);
	engine_cell_open(cs->engine, cell, nr, &sum);
	probes_brake_arm(cs->t, SCLAT_HIST_SLOTS + cell, brake_cell_allowance(cs->engine, p, nr));
	classes_cell_threshold_publish(cs, cell);
	return true;
}

/* A cgroup class's name: its path, or NULL (named by id) when it cannot be read. */
static const char *cgroup_name(struct classes *cs, __u64 id, char *buf, size_t len)
{
	if (!cs->cgroups && !cs->cgroups_failed) {
		cs->cgroups = cgroup_paths_open();
		if (!cs->cgroups) {
			cs->cgroups_failed = true;
			log_warn("cgroup2: no hierarchy to read (%s): cgroup classes are "
				 "named by id",
				 strerror(errno));
		}
	}
	return cs->cgroups && !cgroup_path_of(cs->cgroups, id, buf, len) ? buf : NULL;
}

/* A task class asked for: its id, or the refusal, set where BPF looks it up. */
static void task_request_answer(struct classes *cs, const struct sclat_class_request *r, __u64 now)
{
	char path[CLASS_NAME_MAX];
	unsigned int id;

	if (r->kind == SCLAT_CLASS_PROCESS && cs->titled) {
		class_titles_answer(cs, (__u32)r->key, r->comm, now);
		return;
	}
	id = classes_task_id(
		cs, r->kind, r->key, r->pid, r->comm,
		r->kind == SCLAT_CLASS_CGROUP ? cgroup_name(cs, r->key, path, sizeof(path)) : NULL,
		now);
	probes_class_id_set(cs->t, r->kind, r->key, id ? id : SCLAT_CLASS_ID_REFUSED);
}

void classes_requests_answer(struct classes *cs, const struct policy *p, __u64 now,
			     const unsigned int *slot_nr, const bool *fed)
{
	struct sclat_class_request req[64];
	unsigned int nr, cell;
	bool opened;
	int n, i;

	do {
		n = probes_class_requests(cs->t, req, 64);
		for (i = 0; i < n; i++) {
			const struct sclat_class_request *r = &req[i];

			if (r->kind != SCLAT_CLASS_CELL) {
				task_request_answer(cs, r, now);
				continue;
			}
			if (r->slot == SCLAT_SLOT_NONE || r->slot >= SCLAT_HIST_SLOTS)
				continue;
			nr = slot_nr[r->slot];
			/*
			 * Its slot came after the controller looked (asked again), its
			 * class id retired since it asked (its tasks ask for a new one),
			 * or the policy changed: the route goes.
			 */
			if (!fed[nr] || probes_slot(cs->t, nr) != r->slot ||
			    request_stale(cs, nr, r)) {
				probes_cell_route(cs->t, r->slot, r->class_id, r->fd_kind,
						  SCLAT_CELL_NONE);
				continue;
			}
			cell = classes_cell(cs, nr, r->slot, r->class_id, r->fd_kind,
					    p->rules[nr].max_classes, now, &opened);
			/* Unread, it is asked again on a later call. */
			if (opened && !cell_open(cs, p, cell, nr)) {
				classes_cell_close(cs, cell);
				cell = SCLAT_CELL_NONE;
			}
			probes_cell_route(cs->t, r->slot, r->class_id, r->fd_kind, cell);
		}
	} while (n == 64);
}

/*
 * What the full queue refused, asked again: after classes_requests_answer()
 * drained it, cells and ids still waiting for an answer are put back for the
 * BPF side to ask again on their next call.
 */
void classes_requests_rearm(struct classes *cs)
{
	__u32 lost = probes_class_requests_lost(cs->t);

	if (lost == cs->requests_lost)
		return;
	cs->requests_lost_total += lost - cs->requests_lost;
	cs->requests_lost = lost;
	probes_class_requests_rearm(cs->t);
}

/*
 * Under pressure (ids refused, or requests lost to a full key table, since
 * the last pass: a fork storm), the classes of processes that are gone
 * retire now rather than class_idle later, their cells with them, and the
 * keys refused to processes that are gone are forgotten: the new processes
 * get the ids and the table's room. Returns whether an id was freed; sets
 * *cells_freed when a cell was.
 */
static bool classes_retire_gone(struct classes *cs, __u64 now, bool *cells_freed)
{
	__u64 pressure = cs->ids_refused + cs->requests_lost_total;
	bool freed = false;
	unsigned int id;

	if (pressure == cs->pressure)
		return false;
	cs->pressure = pressure;
	/* Every title class's processes: those gone are forgotten, and a class left without. */
	class_titles_look(cs, now, cs->titles.nr);
	for (id = 1; id < SCLAT_CLASS_IDS; id++) {
		struct task_class *tc = &cs->id[id];

		if (!tc->used || tc->kind != SCLAT_CLASS_PROCESS ||
		    (tc->title ? tc->procs : !pid_vacant((pid_t)tc->key)))
			continue;
		*cells_freed |= id_retire(cs, id);
		freed = true;
	}
	probes_class_refusals_of_gone_forget(cs->t);
	return freed;
}

/*
 * A process class is named by its command when its first call was seen: a
 * child that execs later (runuser starting pgbench, a traced command before
 * its exec) kept the name it had before. Up to CLASS_COMM_LOOKS process
 * classes per pass look at what their process runs: one that exec'd since
 * it was named takes its new command's name (its main thread's), and its
 * cells' thresholds are published again, so that their outliers carry it.
 */
static void classes_exec_look(struct classes *cs)
{
	unsigned long long dev, ino;
	struct task_class *tc, named;
	struct proc_stat st;
	unsigned int n, id, cell;
	bool execd;

	for (n = 0; n < CLASS_COMM_LOOKS; n++) {
		id = cs->comm_next++ % (SCLAT_CLASS_IDS - 1) + 1;
		tc = &cs->id[id];
		if (!tc->used || tc->title || tc->kind != SCLAT_CLASS_PROCESS ||
		    proc_exe_id((pid_t)tc->key, &dev, &ino))
			continue;
		if (tc->exe_known && dev == tc->exe_dev && ino == tc->exe_ino)
			continue;
		/* Unknown when named (no access then): known from now on, the name kept. */
		execd = tc->exe_known && !proc_stat_read((pid_t)tc->key, &st);
		tc->exe_known = true;
		tc->exe_dev = dev;
		tc->exe_ino = ino;
		if (!execd)
			continue;
		named = (struct task_class){ .kind = SCLAT_CLASS_PROCESS };
		task_class_name(&named, (__u32)tc->key, st.comm, NULL);
		if (!strcmp(named.name, tc->name))
			continue;
		memcpy(tc->name, named.name, sizeof(tc->name));
		for (cell = 1; cs->t && cell < cs->top; cell++)
			if (cs->cell[cell].used && cs->cell[cell].class_id == id)
				classes_cell_threshold_publish(cs, cell);
	}
}

void classes_retire(struct classes *cs, const struct policy *p, __u64 now)
{
	bool cells_freed = false, ids_freed;
	unsigned int cell, id;

	/* A title class's processes that went are forgotten, those that took another title move. */
	class_titles_look(cs, now, CLASS_TITLE_LOOKS);
	classes_exec_look(cs);
	ids_freed = classes_retire_gone(cs, now, &cells_freed);

	/* classes_retire_cell() closed it on its side; its key stays for cell_forget(). */
	while ((cell = classes_retire_cell(cs, now, p->class_idle_ns))) {
		cell_forget(cs, cell);
		cells_freed = true;
	}
	while ((id = classes_retire_id(cs, now, p->class_idle_ns))) {
		id_keys_forget(cs, id);
		ids_freed = true;
	}
	refusals_rearm(cs, ids_freed, cells_freed);
}

int classes_feed(struct classes *cs, __u64 now)
{
	struct sclat_hist sum;
	unsigned int cell;
	int n;

	if (cs->top <= 1)
		return 0;
	n = probes_cells_read(cs->t, cs->cell_buf, cs->top);
	if (n < 0)
		return n;
	for (cell = 1; cell <= (unsigned int)n; cell++) {
		if (!cs->cell[cell].used)
			continue;
		engine_hist_sum(&sum, &cs->cell_buf[(cell - 1) * cs->ncpus], cs->ncpus);
		engine_feed_cell(cs->engine, cell, &sum);
		if (cs->engine->cell[cell].i_calls)
			classes_cell_used(cs, cell, now);
	}
	return 0;
}

void classes_cell_status(const struct classes *cs, unsigned int cell, double secs,
			 struct syscall_status *ss)
{
	status_row_fill(&cs->engine->cell[cell], cs->cell[cell].nr, secs, ss);
	classes_name(cs, cell, ss->basis.class_name, sizeof(ss->basis.class_name));
}

void classes_status_fill(const struct classes *cs, struct controller_status *st, double secs)
{
	unsigned int cell, n = 0;

	for (cell = 1; cell < cs->top && n < CONTROLLER_STATUS_CLASSES; cell++) {
		struct class_status *cl;

		if (!cs->cell[cell].used)
			continue;
		cl = &st->classes[n++];
		classes_cell_status(cs, cell, secs, &cl->s);
		cl->fallback = cs->engine->cell[cell].fallback;
		cl->auto_state = classes_auto_judge(cs, cell, cl->judged_by, sizeof(cl->judged_by));
		if (cl->auto_state == CLASSES_AUTO_SPLIT)
			memcpy(cl->judged_by, cl->s.basis.class_name, sizeof(cl->judged_by));
		/* Merged: on its ancestor's threshold, not one of its own. */
		cl->fallback |= cl->auto_state == CLASSES_AUTO_MERGED;
	}
	st->nr_classes = n;
	st->class_ids = classes_ids_used(cs);
	st->class_ids_refused = cs->ids_refused;
	st->class_requests_lost = cs->requests_lost_total;
}
