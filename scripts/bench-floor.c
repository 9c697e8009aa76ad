// SPDX-License-Identifier: GPL-2.0-only
/*
 * Load and attach the empty sys_enter/sys_exit pair (kern-bpf/floor.bpf.c),
 * then do nothing until SIGINT or SIGTERM: the floor of scripts/bench.
 * --stats turns the kernel's BPF stats on while it runs: the difference is
 * what the stats cost. --clock makes each program read the clock once, the
 * two timestamps any syscall latency tracer takes: the clock floor. --sched
 * adds empty programs on sched_switch and sched_waking, the other hooks sclat
 * uses (with --clock, each reads the clock once too).
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "floor.skel.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	stop = sig;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct floor_bpf *skel;
	sigset_t mask, old;
	int i, err, stats_fd = -1;
	bool stats = false, clock = false, sched = false;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--stats")) {
			stats = true;
		} else if (!strcmp(argv[i], "--clock")) {
			clock = true;
		} else if (!strcmp(argv[i], "--sched")) {
			sched = true;
		} else {
			fprintf(stderr, "usage: floor [--stats] [--clock] [--sched]\n");
			return 2;
		}
	}
	/* Block the stop signals until we wait for them: none is missed. */
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigprocmask(SIG_BLOCK, &mask, &old);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	skel = floor_bpf__open();
	if (!skel) {
		fprintf(stderr, "bench-floor: opening the floor programs: %s\n", strerror(errno));
		return 1;
	}
	skel->rodata->clock_reads = clock;
	bpf_program__set_autoload(skel->progs.floor_switch, sched);
	bpf_program__set_autoload(skel->progs.floor_waking, sched);
	err = floor_bpf__load(skel);
	if (err) {
		fprintf(stderr, "bench-floor: loading the floor programs: %s\n", strerror(-err));
		floor_bpf__destroy(skel);
		return 1;
	}
	err = floor_bpf__attach(skel);
	if (err) {
		fprintf(stderr, "bench-floor: attaching the floor programs: %s\n", strerror(-err));
		floor_bpf__destroy(skel);
		return 1;
	}
	if (stats) {
		stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
		if (stats_fd < 0) {
			fprintf(stderr, "bench-floor: enabling BPF stats: %s\n",
				strerror(-stats_fd));
			floor_bpf__destroy(skel);
			return 1;
		}
	}
	while (!stop)
		sigsuspend(&old);
	if (stats_fd >= 0)
		close(stats_fd);
	floor_bpf__destroy(skel);
	return 0;
}
