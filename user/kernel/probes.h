/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sclat's BPF programs seen from userspace: load and attach them, write
 * thresholds and knobs into shared memory, read the histograms, consume
 * outliers from the ring buffer. The first stage of the pipeline; the
 * controller (user/controller/) is the only reader of the histograms.
 */
#ifndef SCLAT_PROBES_H
#define SCLAT_PROBES_H

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
	bool verbose;	      /* libbpf's messages to stderr */
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
#define PROBES_MAX_PROGS	   16
/* The default of probes_opts.user_stacks_per_cpu (--user-stacks-per-cpu). */
#define PROBES_USER_STACKS_PER_CPU 100
/* The processes a scope (-p, a command and its children) holds at once. */
#define PROBES_SCOPE_PIDS_MAX	   8192

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
 * Whether this process may load and attach the programs (root, or CAP_BPF and
 * CAP_PERFMON); when not, says so in one line on stderr and returns -EPERM.
 */
int probes_check_privilege(void);

/*
 * Open, configure and load the BPF object; thresholds all start at
 * SCLAT_THRESHOLD_NEVER. Prints one line to stderr saying what failed.
 * Returns 0 or a negative errno.
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

/* Consume outliers for up to timeout_ms; returns how many or a negative errno. */
int probes_poll(struct probes *t, int timeout_ms);

/* Consume what is in the ring buffer now, without waiting. */
int probes_drain(struct probes *t);

/* The threshold word of syscall nr as the programs read it now. */
__u64 probes_threshold_word(const struct probes *t, unsigned int nr);
/* Publish sclat_threshold_word(ns, gen) for syscall nr: one 64-bit store. */
void probes_threshold_set(struct probes *t, unsigned int nr, __u64 word);
/* The histogram slot of syscall nr: SCLAT_SLOT_NONE, 1..SLOTS-1 or SCLAT_SLOT_SHARED. */
unsigned int probes_slot(const struct probes *t, unsigned int nr);
void probes_guard_set(struct probes *t, __u64 window_ns, __u32 burst);

/* Classes (shm/sclat_abi.h): what nr's calls are split by (SCLAT_CLASSES_*), 0: nothing. */
void probes_classes_set(struct probes *t, unsigned int nr, __u32 classes);
/* The threshold word of a cell: one 64-bit store. */
void probes_cell_threshold_set(struct probes *t, unsigned int cell, __u64 word);
/*
 * Calls under their slot's floor (shm/sclat_abi.h: SCLAT_LANE_UNIT_SHIFT) are
 * outliers in nothing: each is counted in the lanes' calls, and 1 in n of
 * them goes into the histograms (classed, for a syscall with classes), with
 * weight n (policy key sample; 1: every call).
 */
void probes_sample_set(struct probes *t, __u32 n);
/*
 * Calls of syscall nr (with no classes) under ns are the body of its
 * latencies, and need not be counted one by one: its floor goes no higher,
 * nor higher than its threshold. 0: no body known yet, and no floor: every
 * call goes into its histogram (so too a body of a floor's most, about 1 ms,
 * or more: a syscall that slow is not busy enough to sample). Nothing for a
 * syscall without a slot of its own.
 */
void probes_body_set(struct probes *t, unsigned int nr, __u64 ns);
/* The floor of syscall nr's slot in ns (the first CPU's lane's: all are kept the same); 0: none. */
__u64 probes_floor_ns(const struct probes *t, unsigned int nr);
/*
 * The lanes' floors raised to what the thresholds now allow, once a pass of
 * threshold and route changes is done (each lowered its floor already).
 */
void probes_floors_refresh(struct probes *t);
/* The cell of slot's calls of class id and fd kind (SCLAT_CELL_*, or a cell). */
void probes_cell_route(struct probes *t, unsigned int slot, unsigned int id, unsigned int fd_kind,
		       unsigned int cell);
/* Every route of class id, in every slot, deleted: the id is free again. */
void probes_class_routes_clear(struct probes *t, unsigned int id);
/*
 * Give a task class its id (SCLAT_CLASS_ID_REFUSED: refused); forget: delete
 * it, -ENOENT if absent.
 */
int probes_class_id_set(struct probes *t, __u32 kind, __u64 key, __u32 id);
int probes_class_id_forget(struct probes *t, __u32 kind, __u64 key);
/* The requests the BPF side queued, at most max; returns how many. */
int probes_class_requests(struct probes *t, struct sclat_class_request *out, int max);
/*
 * Since load: kernel stacks taken when a call came back from a block, and
 * left out because the burst guard of its CPU was spent; wakers lost (their
 * note overwritten before it was read).
 */
void probes_kstacks(const struct probes *t, __u64 *taken, __u64 *skipped, __u64 *wakers_lost);
/* The requests the full queue refused, since load (wraps at 2^32). */
__u32 probes_class_requests_lost(const struct probes *t);
/*
 * Since load: new processes of a process in scope (-p, a command) that the
 * scope's table, full (PROBES_SCOPE_PIDS_MAX), could not take: not measured.
 */
__u64 probes_children_not_followed(const struct probes *t);
/*
 * Have the BPF side ask again for what it asked and was never answered: routes
 * still SCLAT_CELL_ASKED and class ids still 0 deleted. Only after
 * the queue is drained, or a request in it is asked twice (harmless). Returns
 * how many.
 */
unsigned int probes_class_requests_rearm(struct probes *t);
/*
 * Have the BPF side ask again for what was refused, once room is free: class
 * ids SCLAT_CLASS_ID_REFUSED deleted (ids), routes SCLAT_CELL_SHARED deleted
 * (cells). Returns how many.
 */
unsigned int probes_class_refusals_rearm(struct probes *t, bool ids, bool cells);
/*
 * The histograms of cells 1 .. n - 1 on every CPU: buf[(cell - 1) * ncpus + cpu].
 * Returns n - 1 or a negative errno.
 */
int probes_cells_read(struct probes *t, struct sclat_hist *buf, unsigned int n);
/* Cell cell's histogram on every CPU: buf[cpu]. 0 or a negative errno. */
int probes_cell_read(struct probes *t, unsigned int cell, struct sclat_hist *buf);
/* The cells there are room for (cell 0 included), as loaded. */
unsigned int probes_class_cells(const struct probes *t);

int probes_ncpus(const struct probes *t);

/* A call in flight that the task iterator reported (shm/sclat_abi.h), r->size bytes. */
typedef void (*probes_inflight_fn)(void *ctx, const struct sclat_inflight *r);

/* From now on, report a call of syscall nr in flight once it is ns old; 0: never. */
void probes_inflight_after_set(struct probes *t, unsigned int nr, __u64 ns);

/*
 * Run the task iterator once: fn gets every call in flight past its syscall's
 * inflight_after. Returns how many, or a negative errno (-ENOTSUP: the
 * kernel could not attach the iterator; attach said so).
 */
int probes_inflight_scan(struct probes *t, probes_inflight_fn fn, void *ctx);

/*
 * Put the syscalls that got a slot since the last call (or the last
 * probes_hists_read) on every CPU's short path; one load when none did. A
 * syscall first seen pays the long path until then: call it often. Whether
 * a slot was handed out since.
 */
bool probes_lanes_refresh(struct probes *t);

/*
 * Read the histograms of the slots handed out so far (index 0, the shared
 * one, included) on every CPU with one batch lookup: buf[slot * ncpus + cpu],
 * room for SCLAT_HIST_SLOTS * ncpus entries. all: every slot, handed out or
 * not (the baseline at start). Each entry's calls are the CPU's lane's
 * calls of the slot. Returns how many slots it read (a syscall's
 * slot at or past that was handed out since: not read), or a negative errno.
 */
int probes_hists_read(struct probes *t, struct sclat_hist *buf, bool all);

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

/* Bytes written to the ring buffer and not consumed yet, and its size. */
__u64 probes_ringbuf_used(const struct probes *t);
__u64 probes_ringbuf_size(const struct probes *t);

/* "tp_btf" or "raw_tp". */
const char *probes_attach_kind(const struct probes *t);

/* Detach and free everything; t may be NULL. */
void probes_close(struct probes *t);

#endif
