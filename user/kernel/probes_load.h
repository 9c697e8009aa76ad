/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sclat's BPF programs loaded and attached: the handle (struct probes) that
 * the other modules of user/kernel/ take, from open through configure, load
 * (tp_btf, else raw_tp) and attach to detach and close. The first stage of
 * the pipeline; the other probes_*.h say what the handle then does.
 */
#ifndef SCLAT_PROBES_LOAD_H
#define SCLAT_PROBES_LOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include "sclat_abi.h"

struct probes;

/*
 * Called for each outlier, from probes_poll(): its record, size bytes with
 * its parts (shm/sclat_abi.h). Non-zero stops the poll.
 */
typedef int (*probes_event_fn)(void *ctx, const struct sclat_event *e, size_t size);

struct probes_opts {
	/* Scope: these processes and every process they fork from now on. */
	const pid_t *pids;
	int nr_pids;
	/* Scope by tgid even with no pid yet (a command added with probes_scope_add()). */
	bool scope_tgid;
	const char *cgroup;   /* cgroup v2 directory, or NULL */
	const char *comm;     /* thread name, or NULL */
	size_t ringbuf_bytes; /* 0: PROBES_RINGBUF_DEFAULT */
	bool verbose;	      /* debug messages (libbpf's among them) to stderr */
	/* Which argument names each syscall's target; NULL: none is resolved. */
	const struct sclat_target_rule *target_rules; /* SCLAT_MAX_SYSCALLS of them */
	bool user_stacks; /* each outlier's record carries its user stack (SCLAT_PART_USTACK) */
	/* ... at most this many outliers a second per CPU; the others go without, flagged */
	unsigned int user_stacks_per_cpu;
	/* Class cells (counting cell 0, every syscall's own): histograms after the slots. */
	unsigned int class_cells;
	probes_event_fn on_event;
	void *ctx;
};

#define PROBES_RINGBUF_DEFAULT	   (1U << 20)
/* A map's max_entries is 32 bits: the largest power of two it holds. */
#define PROBES_RINGBUF_MAX	   (1UL << 31)
/* The default of probes_opts.user_stacks_per_cpu (--user-stacks-per-cpu). */
#define PROBES_USER_STACKS_PER_CPU 100
/* The processes a scope (-p, a command and its children) holds at once. */
#define PROBES_SCOPE_PIDS_MAX	   8192

/*
 * Whether this process may load and attach the programs (root, or CAP_BPF and
 * CAP_PERFMON); when not, says so in one line on stderr and returns -EPERM.
 */
int probes_check_privilege(void);

/*
 * Open, configure and load the BPF object; thresholds all start at
 * SCLAT_THRESHOLD_NEVER. Prints one line to stderr saying what failed.
 * Returns 0 or a negative errno. opts->verbose turns debug messages on
 * (util/log.h), libbpf's among them.
 *
 * Test hook: $SCLAT_TEST_COUNTER_BASE (a number) starts every histogram
 * counter and the lanes' calls at that value instead of 0, so that a short test crosses the 2^32
 * wrap that a long run would.
 */
int probes_load(struct probes **tp, const struct probes_opts *opts);

/* Attach the programs: syscalls are measured from here on. */
int probes_attach(struct probes *t);

/* Detach them, sys_enter first; probes_close() does it too. */
void probes_detach(struct probes *t);

/* Put one more process (and its future children) in scope. */
int probes_scope_add(struct probes *t, pid_t tgid);

/* "tp_btf" or "raw_tp". */
const char *probes_attach_kind(const struct probes *t);

int probes_ncpus(const struct probes *t);

/* The cells there are room for (cell 0 included), as loaded. */
unsigned int probes_class_cells(const struct probes *t);

/* Detach and free everything; t may be NULL. */
void probes_close(struct probes *t);

#endif
