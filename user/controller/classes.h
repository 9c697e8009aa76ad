/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The task classes and their cells, from birth to retirement. The
 * bookkeeping: which class ids and cells exist, handed out as the BPF side
 * asks, bounded by max_classes per syscall and the machine's cells, named,
 * and retired when idle (unit-tested alone, from classes_new()). And the
 * lifecycle the controller's thread drives on the kernel (from
 * classes_open()): what the policy splits each syscall by, the requests the
 * BPF side queued, the cells' histograms and thresholds, and their rows in
 * the status.
 */
#ifndef SCLAT_CLASSES_H
#define SCLAT_CLASSES_H

#include <stdbool.h>
#include <stddef.h>
#include "sclat_abi.h"
#include "basis.h"
#include "class_titles.h"
#include "policy/policy.h"

struct cgroup_paths;
struct controller_status;
struct engine;
struct probes;
struct syscall_status;

#define CLASS_NAME_MAX	 BASIS_CLASS_MAX
/* Process classes whose command is read again per pass of the controller. */
#define CLASS_COMM_LOOKS 64

/*
 * class_cells = 0: the cells that fit in 2 MiB of histograms (1 KiB per cell
 * and CPU), at least 64: 1024 on 2 CPUs, 64 from 32 CPUs on.
 */
#define CLASSES_PER_CPU_BYTES (2UL << 20)
#define CLASSES_CELLS_MIN     64

/* A task class: a process, cgroup, thread name or process title, by its id. */
struct task_class {
	bool used;
	bool title;	    /* a process title's: kind process, its processes in classes.titles */
	__u32 kind;	    /* enum sclat_class_kind */
	__u64 key;	    /* 0 for a title's */
	unsigned int procs; /* a title's: its processes */
	char name[CLASS_NAME_MAX];
	/* A process's: what it ran when named (proc_exe_id); an exec renames it. */
	bool exe_known;
	unsigned long long exe_dev, exe_ino;
	__u64 last_ns; /* last interval one of its cells counted a call */
	unsigned int cells;
};

/* A cell: a syscall's calls of one class id and kind of file. */
struct class_cell {
	bool used;
	unsigned int nr, slot, class_id, fd_kind;
	__u64 last_ns;
};

struct classes {
	unsigned int nr_cells; /* cells 1 .. nr_cells - 1 (0 is every syscall's own) */
	struct class_cell *cell;
	unsigned int top; /* cells below this index may be in use */
	struct task_class id[SCLAT_CLASS_IDS];
	unsigned int per_syscall[SCLAT_MAX_SYSCALLS]; /* cells in use */
	__u64 refused[SCLAT_MAX_SYSCALLS];	      /* cells refused (caps), since start */
	__u64 cells_refused;			      /* the sum of refused[] */
	__u64 ids_refused;			      /* task classes refused: no id left */

	/* The kernel side (classes_open()); NULL in the bookkeeping alone. */
	struct probes *t;
	struct engine *engine; /* the cells' histograms and thresholds */
	struct basis_table *basis;
	int ncpus;
	struct sclat_hist *cell_buf;  /* (nr_cells + 1) * ncpus */
	struct cgroup_paths *cgroups; /* opened at the first cgroup class */
	bool cgroups_failed;
	__u32 requests_lost; /* the kernel's count at the last rearm */
	__u64 requests_lost_total;
	__u64 ids_refused_rearmed;   /* ids_refused when refusals were last asked again */
	__u64 cells_refused_rearmed; /* the same for cells_refused */
	__u64 pressure;		     /* ids_refused + requests_lost_total at the last pass */
	unsigned int max_classes[SCLAT_MAX_SYSCALLS]; /* each syscall's, as last applied */
	__u32 want[SCLAT_MAX_SYSCALLS];		      /* what BPF splits each by, as last set */
	bool titled;		    /* process keys are given title classes (classes = title) */
	struct class_titles titles; /* their processes */
	unsigned int comm_next;	    /* the process class whose command is looked at next */
	struct classes_auto *autos; /* classes = auto's trees (classes_auto.c), NULL without */
};

/*
 * The cells (cell 0 included) for policy p at start on ncpus CPUs: its
 * class_cells; when 0, none if no syscall has classes (a cell is 1 KiB of
 * kernel memory per CPU), else sized by CPUs.
 */
unsigned int classes_cells_for(const struct policy *p, int ncpus);

/*
 * Whether policy p fits a tracer that has nr_cells cells (cell 0 included,
 * sized when it started): -EINVAL when it cannot apply (classes and no cell,
 * class_cells above nr_cells - 1), 1 when it applies within a smaller bound
 * (max_classes above nr_cells - 1), 0 when it fits. msg says why, naming the
 * key and the bound.
 */
int classes_policy_fits(const struct policy *p, unsigned int nr_cells, char *msg, size_t len);

/* nr_cells counts cell 0: at most SCLAT_CLASS_CELLS_MAX. NULL on no memory. */
struct classes *classes_new(unsigned int nr_cells);
void classes_free(struct classes *cs);

/*
 * The classes of the programs t, as many cells as they were loaded with,
 * fed into engine and published with their bases in basis. NULL on no memory.
 */
struct classes *classes_open(struct probes *t, struct engine *engine, struct basis_table *basis);

/*
 * What the BPF side splits each syscall's calls by, from policy p: a split
 * that changed closes that syscall's cells; a max_classes raised makes room
 * as a retired class does.
 */
void classes_apply(struct classes *cs, const struct policy *p);

/* Close the cells idle for p's class_idle at now, then forget the class ids left without one. */
void classes_retire(struct classes *cs, const struct policy *p, __u64 now);

/*
 * Answer what the BPF side asked for since the last call: ids for new task
 * classes, cells for a syscall's calls of a class. slot_nr[] is the syscall
 * each histogram slot was adopted for, fed[nr] whether it was.
 */
void classes_requests_answer(struct classes *cs, const struct policy *p, __u64 now,
			     const unsigned int *slot_nr, const bool *fed);

/* What the kernel's full queue refused since the last call, asked again. */
void classes_requests_rearm(struct classes *cs);

/* Feed the cells in use into the engine; those that counted calls are not idle at now. */
int classes_feed(struct classes *cs, __u64 now);

/* Publish cell's threshold from the engine: its basis, its class named, then the BPF word. */
void classes_cell_threshold_publish(struct classes *cs, unsigned int cell);

/* Cell as a syscall's status row over an interval of secs, its class in the basis. */
void classes_cell_status(const struct classes *cs, unsigned int cell, double secs,
			 struct syscall_status *ss);

/* Each class cell in use, and the ids and requests, in the status. */
void classes_status_fill(const struct classes *cs, struct controller_status *st, double secs);

/*
 * The id for a task class the BPF side asked for, at now; 0 when every id is
 * taken. Named from its pid and comm, a cgroup by its path (NULL: by its id).
 */
unsigned int classes_task_id(struct classes *cs, __u32 kind, __u64 key, __u32 pid, const char *comm,
			     const char *path, __u64 now);

/*
 * The cell for syscall nr's calls of class_id and fd_kind (in slot); a new
 * one unless nr already has max_classes or none is free: then
 * SCLAT_CELL_SHARED, counted as refused. *opened says whether it is new.
 */
unsigned int classes_cell(struct classes *cs, unsigned int nr, unsigned int slot,
			  unsigned int class_id, unsigned int fd_kind, unsigned int max_classes,
			  __u64 now, bool *opened);

/* Whether class id id is in use (given to a class and not retired). */
bool classes_id_used(const struct classes *cs, unsigned int id);

/* Close cell cell: its place is free again. */
void classes_cell_close(struct classes *cs, unsigned int cell);

/* The task classes that have an id now. */
unsigned int classes_ids_used(const struct classes *cs);

/* The cell counted calls in the interval that ended at now. */
void classes_cell_used(struct classes *cs, unsigned int cell, __u64 now);

/* The next cell idle since before now - idle_ns, closed; 0 when none is. */
unsigned int classes_retire_cell(struct classes *cs, __u64 now, __u64 idle_ns);

/* The next class id with no cell left, forgotten; 0 when none is. */
unsigned int classes_retire_id(struct classes *cs, __u64 now, __u64 idle_ns);

/* A cell's class as users read it: "pid 123 (nginx)", "fd:pipe", both joined by a space. */
const char *classes_name(const struct classes *cs, unsigned int cell, char *buf, size_t len);

/* The name of a kind of file: "pipe", "socket/inet", ... */
const char *classes_fd_kind_name(unsigned int fd_kind);

#endif
