/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Feed a map_table from the kernel: a scan of /proc/PID/maps at start, then
 * perf's side-band records (a dummy software event per CPU: executable
 * mmaps with build-ids, forks, execs, exits, on CLOCK_MONOTONIC), so that the
 * mappings of a process that has exited since are still known.
 */
#ifndef SCLAT_MAP_TRACKER_H
#define SCLAT_MAP_TRACKER_H

#include <sys/types.h>
#include <linux/types.h>
#include "explain/map_table.h"

struct map_tracker_opts {
	unsigned int pages_per_cpu; /* perf buffer per CPU, a power of two; 0: 64 (256 KiB) */
	bool no_scan;		    /* skip the /proc scan (tests of the records alone) */
};

struct map_tracker_stats {
	__u64 records; /* perf records read */
	__u64 mmaps, forks, execs, exits;
	__u64 lost;	     /* records the kernel lost (perf buffer full) */
	__u64 scanned_procs; /* processes read from /proc at start */
	__u64 late_scans;    /* /proc/PID/maps read for a process no record told of */
	__u64 scan_ns;	     /* time the start scan took */
};

struct map_tracker;

/*
 * Open the per-CPU events, then scan /proc (in that order: nothing mapped in
 * between is missed). Needs CAP_PERFMON (root). Prints one line to stderr
 * saying what failed; 0 or a negative errno.
 */
int map_tracker_open(struct map_tracker **mtp, struct map_table *table,
		     const struct map_tracker_opts *opts);

/* The event fds, for poll(): readable when a buffer is a quarter full. */
int map_tracker_fds(const struct map_tracker *mt, const int **fds);

/* Read every record the kernel has written so far into the table; returns how many. */
int map_tracker_drain(struct map_tracker *mt);

/*
 * The table has no mapping of process pid (its records were lost): read
 * /proc/PID/maps, if it is still alive, into it as of ts. 0 or a negative errno.
 */
int map_tracker_scan_late(struct map_tracker *mt, pid_t pid, __u64 ts);

void map_tracker_stats(const struct map_tracker *mt, struct map_tracker_stats *st);

void map_tracker_close(struct map_tracker *mt);

#endif
