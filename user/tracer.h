/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The kernel side seen from userspace: load and attach sclat's BPF programs,
 * write thresholds and knobs into shared memory, read histograms and
 * counters, consume outliers from the ring buffer.
 */
#ifndef SCLAT_TRACER_H
#define SCLAT_TRACER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include "sclat_abi.h"

struct tracer;

/* Called for each outlier, from tracer_poll(). Non-zero stops the poll. */
typedef int (*tracer_event_fn)(void *ctx, const struct sclat_event *e);

struct tracer_opts {
	/* Scope: these processes and every process they fork from now on. */
	const pid_t *pids;
	int nr_pids;
	/* Scope by tgid even with no pid yet (a command added with tracer_scope_add()). */
	bool scope_tgid;
	const char *cgroup;	/* cgroup v2 directory, or NULL */
	const char *comm;	/* thread name, or NULL */
	size_t ringbuf_bytes;	/* 0: TRACER_RINGBUF_DEFAULT */
	bool verbose;		/* libbpf's messages to stderr */
	tracer_event_fn on_event;
	void *ctx;
};

#define TRACER_RINGBUF_DEFAULT	(1U << 20)
#define TRACER_MAX_PROGS	12

struct tracer_prog_stat {
	const char *name;
	__u64 run_cnt;
	__u64 run_time_ns;
};

/* Kernel memory of the maps, as the kernel accounts it (fdinfo memlock). */
struct tracer_mem {
	__u64 per_cpu;		/* per-CPU maps, bytes per CPU */
	__u64 fixed;		/* all other maps together */
};

/*
 * Open, configure and load the BPF object; thresholds all start at
 * SCLAT_THRESHOLD_NEVER. Prints one line to stderr saying what failed.
 * Returns 0 or a negative errno.
 */
int tracer_load(struct tracer **tp, const struct tracer_opts *opts);

/* Attach the programs: syscalls are measured from here on. */
int tracer_attach(struct tracer *t);

/* Detach them, sys_enter first; tracer_close() does it too. */
void tracer_detach(struct tracer *t);

/* Put one more process (and its future children) in scope. */
int tracer_scope_add(struct tracer *t, pid_t tgid);

/* Consume outliers for up to timeout_ms; returns how many or a negative errno. */
int tracer_poll(struct tracer *t, int timeout_ms);

/* Consume what is in the ring buffer now, without waiting. */
int tracer_drain(struct tracer *t);

void tracer_threshold_set(struct tracer *t, unsigned int nr, __u64 ns);
__u64 tracer_threshold(const struct tracer *t, unsigned int nr);
/* The histogram slot of syscall nr: SCLAT_SLOT_NONE, 1..SLOTS-1 or SCLAT_SLOT_SHARED. */
unsigned int tracer_slot(const struct tracer *t, unsigned int nr);
void tracer_guard_set(struct tracer *t, __u64 window_ns, __u32 burst);

int tracer_ncpus(const struct tracer *t);

/*
 * Read the histograms of the slots handed out so far (slot 0, the shared one,
 * included) on every CPU with one batch lookup: buf[slot * ncpus + cpu], room
 * for SCLAT_HIST_SLOTS * ncpus entries. Returns how many slots it read (a
 * syscall's slot at or past that was handed out since: not read), or a
 * negative errno.
 */
int tracer_hists_read(struct tracer *t, struct sclat_hist *buf);

/*
 * Turn the kernel's BPF stats on or off (every BPF program on the machine pays
 * for them while on). 0 or a negative errno.
 */
int tracer_stats_sample(struct tracer *t, bool on);

/*
 * Run count and run time of each attached program, as counted while the
 * kernel's BPF stats were on; returns how many.
 */
int tracer_prog_stats(struct tracer *t, struct tracer_prog_stat *out, int max);

int tracer_mem(struct tracer *t, struct tracer_mem *mem);

/* Bytes written to the ring buffer and not consumed yet, and its size. */
__u64 tracer_ringbuf_used(const struct tracer *t);
__u64 tracer_ringbuf_size(const struct tracer *t);

/* "tp_btf" or "raw_tp". */
const char *tracer_attach_kind(const struct tracer *t);

/* Detach and free everything; t may be NULL. */
void tracer_close(struct tracer *t);

#endif
