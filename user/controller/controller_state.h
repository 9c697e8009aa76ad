/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The controller's state, shared by controller.c (the thread, its passes and
 * status) and controller_publish.c (what the passes write for the BPF side
 * and the consumer), and by no one else.
 */
#ifndef SCLAT_CONTROLLER_STATE_H
#define SCLAT_CONTROLLER_STATE_H

#include <pthread.h>
#include <stdbool.h>
#include "controller.h"
#include "basis.h"
#include "sclat_abi.h"

struct classes;
struct engine;
struct metrics_view;
struct probes;

struct controller {
	struct probes *t;
	struct controller_hooks hooks;
	struct engine *engine;
	int ncpus;
	struct sclat_hist *buf;			      /* SCLAT_HIST_SLOTS * ncpus */
	struct sclat_hist baseline[SCLAT_HIST_SLOTS]; /* each slot's counts at start */
	bool fed[SCLAT_MAX_SYSCALLS];		      /* nr has been fed from its slot */
	struct classes *classes;		/* the class cells and ids, applied to the kernel */
	unsigned int slot_nr[SCLAT_HIST_SLOTS]; /* the syscall of each slot handed out */

	pthread_t thread;
	pthread_mutex_t lock; /* ready, init_err, stop, and the wake-up */
	pthread_cond_t wake;
	bool ready, stop;
	bool stopped;	/* the thread is joined */
	bool published; /* a policy, by controller_policy_publish() */
	int init_err;

	__u64 start_ns, last_ns;
	__u64 guard_window_ns;
	__u32 guard_burst;
	__u64 threshold_changes;

	struct basis_table basis;
	__u64 young_ns[SCLAT_MAX_SYSCALLS];  /* young thresholds published; 0: the syscall's own */
	__u64 delivered[SCLAT_MAX_SYSCALLS]; /* outliers the consumer delivered, atomics */
	__u64 delivered_total;
	__u64 lag_ns;
	__u64 explain_bpf_ns, explain_user_ns; /* atomics */
	/* Kernel stacks taken and left out, wakers lost: at the last interval (atomics). */
	__u64 kstacks_taken, kstacks_skipped, wakers_lost, backs_unseen;

	pthread_mutex_t status_lock;	     /* status, status_valid, totals and user_stacks */
	struct user_stack_costs user_stacks; /* the run's, as it last gave them */
	struct controller_status *status;
	bool status_valid;
	struct controller_totals totals;

	struct metrics_view *metrics; /* what the metrics endpoint reads besides the status */
};

/* Publish nr's threshold from the engine, its basis first, and its young threshold. */
void controller_threshold_publish(struct controller *c, unsigned int nr);

/* Publish the thresholds the step moved, the syscalls' then the cells', and report them. */
void controller_thresholds_changed_publish(struct controller *c);

/*
 * Each window as it is now, for the consumer to judge outliers by (a
 * threshold may hold while its window learns): the syscalls' and the classes'
 * that have calls in them.
 */
void controller_windows_publish(struct controller *c);

#endif
