/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Title classes (classes = title): one class per process title, shared by
 * every process that has it ("postgres: walwriter", "nginx: worker
 * process"). The BPF side cannot read a title, so it keys them by process, as
 * for classes = process; here each process is given its title's class id,
 * several processes one id, and moved to its new title's class when it sets
 * another (postgres does after fork). The processes of each class are kept
 * here, to be forgotten in the kernel as they go and when their class retires.
 */
#ifndef SCLAT_CLASS_TITLES_H
#define SCLAT_CLASS_TITLES_H

#include <linux/types.h>

struct classes;

/* As many processes as the kernel remembers class keys (kernel/probes_load.c). */
#define CLASS_TITLE_PROCS 4096

/* Titles re-read in a pass of the controller, from where the last pass stopped. */
#define CLASS_TITLE_LOOKS 512

struct class_title_proc {
	__u32 pid;
	__u32 id; /* its class */
};

struct class_titles {
	unsigned int nr;
	unsigned int next; /* where the next look starts */
	struct class_title_proc proc[CLASS_TITLE_PROCS];
};

/*
 * The class id of title for process pid at now, pid in it from now on (out
 * of the one it was in): an id of a class of that title, or a new one; 0
 * (counted as refused, pid in none) when no id or no room for pid is left.
 * The bookkeeping alone: the caller tells the kernel.
 */
unsigned int class_titles_id(struct classes *cs, __u32 pid, const char *title, __u64 now);

/* Process pid out of its title class; returns the class's id, 0 when it was in none. */
unsigned int class_titles_leave(struct classes *cs, __u32 pid);

/*
 * The kernel asked for process pid's class (comm its thread name): the class
 * of its title, or of "[comm]" when it has none (gone already, a kernel
 * thread), given where the BPF side looks it up.
 */
void class_titles_answer(struct classes *cs, __u32 pid, const char *comm, __u64 now);

/*
 * Re-read the titles of at most max processes: one that is gone is forgotten
 * (in the kernel too), one whose title changed moves to that title's class.
 */
void class_titles_look(struct classes *cs, __u64 now, unsigned int max);

/* The processes of class id, forgotten in the kernel and here: the id retires. */
void class_titles_forget(struct classes *cs, unsigned int id);

#endif
