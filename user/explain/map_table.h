/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The executable mappings of every process, kept by time, so that a stack
 * captured at time t is read against the mappings of that moment, even once
 * the process has exited or exec'ed something else.
 *
 * Fed by user/explain/map_tracker.c (perf's mmap, fork, exec and exit
 * records, after a scan of /proc/PID/maps); pure data, no I/O, one thread.
 * The records may come in any order across CPUs: a mapping is valid from
 * its own time, a child sees its parent's mappings as of its fork until its
 * first exec, and no answer depends on which record was added first.
 */
#ifndef SCLAT_MAP_TABLE_H
#define SCLAT_MAP_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <linux/types.h>

#define MAP_BUILD_ID_MAX 20

/* A mapped file: one per path and build-id, shared by every mapping of it. */
struct map_file {
	char *path; /* as the kernel names it ("/usr/bin/dd", "[vdso]", "//anon") */
	__u8 build_id[MAP_BUILD_ID_MAX];
	__u8 build_id_len; /* 0: not known (the kernel had none to give) */
	/* Without a build-id: the file's device and inode (0: not known), to tell files apart
	 * that share a path (another mount namespace, a binary replaced since). */
	__u64 dev, ino;
	int refs;
	struct map_file *next;
};

struct map_entry {
	__u64 start, end; /* [start, end) */
	__u64 pgoff;	  /* file offset of start */
	__u64 ts;	  /* mapped at (CLOCK_MONOTONIC ns); 0: before the tracker started */
	struct map_file *file;
};

struct map_table_limits {
	unsigned int max_procs;	   /* process incarnations kept; 0: 16384 */
	unsigned int max_mappings; /* per process; 0: 1024 */
};

struct map_table_stats {
	__u64 procs;		/* incarnations held now */
	__u64 mappings;		/* mappings held now */
	__u64 files;		/* distinct files held now */
	__u64 procs_evicted;	/* dropped to stay under max_procs, before their time */
	__u64 mappings_dropped; /* dropped to stay under max_mappings */
};

struct map_table;

struct map_table *map_table_new(const struct map_table_limits *limits);
void map_table_free(struct map_table *t);

/*
 * Process pid mapped [start, start + len) of path (from file offset pgoff) at
 * time ts. build_id may be NULL. 0 or -ENOMEM.
 */
int map_table_mmap(struct map_table *t, pid_t pid, __u64 ts, __u64 start, __u64 len, __u64 pgoff,
		   const char *path, const __u8 *build_id, size_t build_id_len);

/*
 * The same, for a file known by its device and inode (/proc/PID/maps, perf's
 * records without a build-id) rather than by a build-id.
 */
int map_table_mmap_inode(struct map_table *t, pid_t pid, __u64 ts, __u64 start, __u64 len,
			 __u64 pgoff, const char *path, __u64 dev, __u64 ino);

/* Process pid was forked from ppid at ts: until its first exec it sees ppid's mappings. */
int map_table_fork(struct map_table *t, pid_t pid, pid_t ppid, __u64 ts);

/* Process pid exec'ed at ts: the mappings from before are gone. */
int map_table_exec(struct map_table *t, pid_t pid, __u64 ts);

/* Process pid exited at ts: kept until map_table_forget() passes ts. */
void map_table_exit(struct map_table *t, pid_t pid, __u64 ts);

/* Whether the table knows process pid at time ts (a scan or a fork made it). */
bool map_table_knows(const struct map_table *t, pid_t pid, __u64 ts);

/* The mapping of addr in process pid at time ts, or NULL. */
const struct map_entry *map_table_find(const struct map_table *t, pid_t pid, __u64 ts, __u64 addr);

/*
 * Every mapping of process pid valid at ts, sorted by start, none
 * overlapping (a later mapping hides what it was mapped over); at most max.
 * Returns how many were written; the entries stay valid until the next change
 * to the table.
 */
int map_table_snapshot(const struct map_table *t, pid_t pid, __u64 ts, struct map_entry *out,
		       int max);

/* Free the processes that exited before ts and that no live child still reads. */
void map_table_forget(struct map_table *t, __u64 ts);

void map_table_stats(const struct map_table *t, struct map_table_stats *st);

#endif
