// SPDX-License-Identifier: GPL-2.0-only
/*
 * How often the machine stops under its programs: the gaps a thread sees
 * that spins on each CPU, reading CLOCK_MONOTONIC (the vDSO: no syscall).
 *
 *   pauses [--seconds S] [--gap-us G] [--cpus N,M,...]
 *
 * On every CPU it may run on, or on those listed.
 * A gap of G µs (default 30) or more is time the thread did not run: an
 * interrupt, another task, or, in a virtual machine, the host keeping the
 * virtual CPU. A pause of the host that takes every virtual CPU at once
 * shows as gaps that overlap on every CPU; a guest's own interrupts or
 * tasks seldom line up so. Steal time does not always count it (a vCPU
 * the host holds in a VM exit is not runnable and waiting, it is running
 * the host). sclat's evaluation scripts print this next to their figures:
 * calls slowed that way are outliers no tracer in the guest can explain.
 *
 * One JSON line on stdout: the CPUs, the seconds, the gaps a second per CPU
 * (from G and from 100 µs), the share of the gaps that overlap a gap on
 * every other CPU, the longest gap, and the share of the time in gaps.
 * The threads are SCHED_OTHER: a busy machine's tasks show as gaps too, so
 * run it on a quiet one, before or after what it describes.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "monotonic.h"

#define MAX_CPUS 64
#define MAX_GAPS 65536

struct gap {
	unsigned long long from, to;
};

struct cpu_gaps {
	int cpu;
	unsigned int n;
	unsigned long long lost; /* gaps past MAX_GAPS, counted only */
	struct gap gaps[MAX_GAPS];
};

static double seconds = 5;
static unsigned long long gap_ns = 30000, end_ns;
static struct cpu_gaps *per_cpu;

static void *spin(void *arg)
{
	struct cpu_gaps *g = arg;
	unsigned long long t, prev;
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(g->cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		fprintf(stderr, "pauses: CPU %d: %s\n", g->cpu, strerror(errno));
		exit(1);
	}
	for (prev = mono_ns(); prev < end_ns; prev = t) {
		t = mono_ns();
		if (t - prev < gap_ns)
			continue;
		if (g->n < MAX_GAPS)
			g->gaps[g->n++] = (struct gap){ prev, t };
		else
			g->lost++;
	}
	return NULL;
}

/* Whether [from, to) overlaps one of g's gaps (sorted by time, as they were seen). */
static int overlaps(const struct cpu_gaps *g, unsigned long long from, unsigned long long to)
{
	unsigned int lo = 0, hi = g->n;

	while (lo < hi) {
		unsigned int mid = (lo + hi) / 2;

		if (g->gaps[mid].to <= from)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < g->n && g->gaps[lo].from < to;
}

int main(int argc, char **argv)
{
	pthread_t threads[MAX_CPUS];
	unsigned long long n = 0, big = 0, together = 0, longest = 0, in_gaps = 0, lost = 0;
	const char *list = NULL;
	cpu_set_t online, chosen;
	int cpus = 0, c, i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
			seconds = atof(argv[++i]);
		else if (!strcmp(argv[i], "--gap-us") && i + 1 < argc)
			gap_ns = strtoull(argv[++i], NULL, 10) * 1000;
		else if (!strcmp(argv[i], "--cpus") && i + 1 < argc)
			list = argv[++i];
		else {
			fprintf(stderr,
				"usage: pauses [--seconds S] [--gap-us G] [--cpus N,M,...]\n");
			return 2;
		}
	}
	if (seconds <= 0 || !gap_ns) {
		fprintf(stderr, "pauses: --seconds and --gap-us must be positive\n");
		return 2;
	}
	if (sched_getaffinity(0, sizeof(online), &online))
		return perror("pauses: sched_getaffinity"), 1;
	if (list) {
		char *end;

		CPU_ZERO(&chosen);
		for (const char *p = list; *p; p = *end ? end + 1 : end) {
			long n = strtol(p, &end, 10);

			if (end == p || (*end && *end != ',') || n < 0 || n >= CPU_SETSIZE ||
			    !CPU_ISSET(n, &online)) {
				fprintf(stderr,
					"pauses: --cpus %s: not a list of this process's CPUs\n",
					list);
				return 2;
			}
			CPU_SET(n, &chosen);
		}
		online = chosen;
	}
	per_cpu = calloc(MAX_CPUS, sizeof(*per_cpu));
	if (!per_cpu)
		return perror("pauses"), 1;
	end_ns = mono_ns() + (unsigned long long)(seconds * 1e9);
	for (c = 0; c < CPU_SETSIZE && cpus < MAX_CPUS; c++) {
		if (!CPU_ISSET(c, &online))
			continue;
		per_cpu[cpus].cpu = c;
		if (pthread_create(&threads[cpus], NULL, spin, &per_cpu[cpus]))
			return perror("pauses: pthread_create"), 1;
		cpus++;
	}
	for (i = 0; i < cpus; i++)
		pthread_join(threads[i], NULL);
	for (i = 0; i < cpus; i++) {
		const struct cpu_gaps *g = &per_cpu[i];

		lost += g->lost;
		for (unsigned int k = 0; k < g->n; k++) {
			unsigned long long d = g->gaps[k].to - g->gaps[k].from;
			int all = cpus > 1;

			n++;
			big += d >= 100000;
			in_gaps += d;
			if (d > longest)
				longest = d;
			for (int o = 0; o < cpus && all; o++)
				if (o != i &&
				    !overlaps(&per_cpu[o], g->gaps[k].from, g->gaps[k].to))
					all = 0;
			together += all;
		}
	}
	printf("{\"cpus\":%d,\"seconds\":%g,\"gap_us\":%llu,\"gaps_per_s\":%.1f,"
	       "\"gaps_100us_per_s\":%.1f,\"together_share\":%.3f,\"longest_ns\":%llu,"
	       "\"time_share\":%.5f,\"uncounted\":%llu}\n",
	       cpus, seconds, gap_ns / 1000, n / seconds / cpus, big / seconds / cpus,
	       n ? (double)together / n : 0.0, longest, in_gaps / (seconds * 1e9 * cpus), lost);
	return 0;
}
