/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the programs cost: the kernel's BPF run-time stats of each program,
 * and the kernel memory of the maps.
 */
#ifndef SCLAT_PROBES_STATS_H
#define SCLAT_PROBES_STATS_H

#include <stdbool.h>
#include "sclat_abi.h"

struct probes;

/* The programs of the object, at most (those attached, those counted). */
#define PROBES_MAX_PROGS 24

struct probes_prog_stat {
	const char *name;
	__u64 run_cnt;
	__u64 run_time_ns;
};

/* Kernel memory of the maps, as the kernel accounts it (fdinfo memlock). */
struct probes_mem {
	__u64 per_cpu; /* per-CPU maps, bytes per CPU */
	__u64 fixed;   /* all other maps together */
};

/*
 * Turn the kernel's BPF stats on or off (every BPF program on the machine pays
 * for them while on). 0 or a negative errno.
 */
int probes_stats_sample(struct probes *t, bool on);

/*
 * Run count and run time of each attached program, as counted while the
 * kernel's BPF stats were on; returns how many.
 */
int probes_prog_stats(struct probes *t, struct probes_prog_stat *out, int max);

int probes_mem(struct probes *t, struct probes_mem *mem);

#endif
