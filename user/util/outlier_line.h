/* SPDX-License-Identifier: GPL-2.0-only */
/* One outlier as `sclat watch` prints it: a line of text columns or a JSON object. */
#ifndef SCLAT_OUTLIER_LINE_H
#define SCLAT_OUTLIER_LINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define OUTLIER_LINE_NR_ARGS 6

/* How a call left its CPU: numbered as shm/sclat_abi.h's enum sclat_off_cpu_kind. */
enum outlier_off_cpu_kind {
	OUTLIER_OFF_CPU_RUNQUEUE = 1, /* preempted or yielded: still runnable */
	OUTLIER_OFF_CPU_SLEEP = 2,    /* blocked interruptibly */
	OUTLIER_OFF_CPU_IO = 3,	      /* blocked uninterruptibly (D) */
};

/* "runqueue", "sleep" or "io"; NULL for a kind that is none of them. */
const char *outlier_off_cpu_kind_name(uint32_t kind);

/*
 * One stretch of a call off its CPU: switched out of cpu out_ns after the
 * call's entry, woken wake_ns after it (if woken: a block whose wake-up was
 * seen), switched back in on in_cpu in_ns after it.
 */

/*
 * Why an outlier has no user stack (trace field user_stack_missing; 0: it
 * has one, or user stacks are off): the kernel left it out, its CPU past
 * --user-stacks-per-cpu (half of them kept for outliers 4x their threshold
 * or more) or its ring buffer filling up; the unwinder's queue was full; the
 * task had no user registers (a kernel thread, a 32-bit task); or no byte of
 * its stack could be read.
 */
enum outlier_ustack_missing {
	OUTLIER_USTACK_HAS,
	OUTLIER_USTACK_BUDGET,
	OUTLIER_USTACK_RING,
	OUTLIER_USTACK_QUEUE,
	OUTLIER_USTACK_NO_USER,
	OUTLIER_USTACK_UNREADABLE,
	OUTLIER_USTACK_WHYS,
};

/* Its name in JSON and reports ("budget", "ring buffer", ...); NULL for OUTLIER_USTACK_HAS. */
const char *outlier_ustack_missing_name(unsigned int why);

struct outlier_off_cpu {
	uint64_t out_ns, wake_ns, in_ns;
	uint32_t cpu, in_cpu;
	uint32_t kind; /* enum outlier_off_cpu_kind */
	bool woken;
};

/*
 * What explains an outlier (README.md, "sclat watch"): where its time went,
 * who woke it, what it waited on and where in the kernel.
 */
struct outlier_why {
	uint64_t on_cpu_ns, runqueue_ns, sleep_ns, io_wait_ns; /* they add up to the latency */
	uint64_t irq_ns; /* of on_cpu_ns, in interrupts on its CPU (trace 10 on; before, 0) */
	/* Of on_cpu_ns, its virtual CPU held by the hypervisor (trace 13 on; before, 0). */
	uint64_t steal_ns;
	/* Of sleep_ns + io_wait_ns, its wakers' waits for a CPU (trace 11 on; before, 0). */
	uint64_t waker_runqueue_ns;
	uint32_t switches;
	bool has_waker;
	int32_t waker_pid, waker_tid; /* 0 for an interrupt */
	const char *waker_comm;
	const char *target;	  /* NULL: none */
	const char *kernel_stack; /* frames innermost first, separated by ';'; "" none */
	const char *user_stack;	  /* the same; NULL or "" none */
	bool user_stack_dropped;  /* captured but not unwound: the unwinder's queue was full */
	unsigned int user_stack_missing; /* enum outlier_ustack_missing: why it has none */
	/* Its first stretches off the CPU, in time order; NULL: not known (a trace before 7). */
	const struct outlier_off_cpu *off_cpu;
	uint32_t off_cpu_listed;   /* how many there are */
	uint32_t off_cpu_unlisted; /* stretches beyond them, only counted */
	int32_t off_cpu_waker;	   /* the listed stretch the waker ended; -1: none */
};

/* What a line shows; the tracer fills it from its ring buffer, a reader from a trace. */
struct outlier_line {
	const char *host;  /* NULL: no host column or key (the tracer's own outliers) */
	uint64_t entry_ns; /* CLOCK_MONOTONIC */
	int64_t entry_epoch_ns;
	const char *syscall;
	unsigned int nr;
	const char *comm;
	size_t comm_len;   /* comm need not be NUL-terminated within it */
	const char *title; /* its process's (util/proc_title.h); NULL or "": none known */
	int32_t pid, tid;
	uint32_t cpu;
	uint64_t latency_ns, threshold_ns;
	int64_t ret;
	uint64_t args[OUTLIER_LINE_NR_ARGS];
	uint64_t estimate_ns, samples;
	const char
		*class_name; /* the class whose threshold it crossed; NULL or "": the syscall's */
	const struct outlier_why *why; /* NULL: a trace older than explanations */
	/*
	 * A call still in flight: its state now ("running", "runnable",
	 * "sleeping", "D", "stopped"); latency_ns is its time in flight so far,
	 * ret means nothing. NULL: a call that returned.
	 */
	const char *inflight_state;
	/* Returned: times it was reported in flight; in flight: which report this is (1: first). */
	uint32_t inflight_reports;
	/*
	 * How surprising and how costly (controller/surprise.h); judged false:
	 * not said (a trace before version 9, a call in flight). surprise < 0:
	 * not known (nothing learnt behind its threshold; normal_ns 0).
	 */
	bool judged;
	double surprise;	/* -log10 of the probability of a normal call being that slow */
	bool surprise_at_least; /* a bound: at least that surprising */
	uint64_t normal_ns, impact_ns;
	/*
	 * Judged at its storage threshold: it waited for storage where the calls
	 * of its syscall or class seldom do (README.md, "What an outlier is").
	 */
	bool storage_stall;
};

/* A surprise as a line shows it: "4.3", ">=5.5", "-" when not known. */
const char *outlier_surprise_format(bool judged, double surprise, bool at_least, char *buf,
				    size_t len);

/*
 * The text columns' head: TIME COMM PID TID SYSCALL LATENCY RET THRESHOLD
 * SURPRISE IMPACT WHY (HOST first).
 */
void outlier_line_header(FILE *f, bool host);

/* One line of text columns (time of day local), or one JSON object, and a newline. */
void outlier_line_text(FILE *f, const struct outlier_line *o);
void outlier_line_json(FILE *f, const struct outlier_line *o);

/*
 * The same object left open (no closing brace, no newline), for a reader that
 * adds members of its own: the one list of an outlier's JSON keys, that
 * `sclat watch --json` and `sclat report --json`'s "top" share.
 */
void outlier_line_json_open(FILE *f, const struct outlier_line *o);

/*
 * The WHY column (after a space) of an outlier of syscall (already escaped):
 * "sleep 20.1ms pipe_read <- read(pipe:[38211]) woken by writer 4243".
 */
void outlier_why_text(FILE *f, const struct outlier_why *w, const char *syscall);

/*
 * An outlier's surprise and impact as members of its JSON object, each after
 * a comma: "surprise" (null when not known), "surprise_at_least",
 * "normal_ns" (null when not known), "impact_ns" (null when not judged).
 */
void outlier_judgement_json(FILE *f, bool judged, double surprise, bool at_least,
			    uint64_t normal_ns, uint64_t impact_ns);

/* The explanation's members of an outlier's JSON object, each after a comma. */
void outlier_why_json(FILE *f, const struct outlier_why *w);

/*
 * The largest part of the latency as "cpu", "runq", "sleep" or "io", with
 * its ns in *ns.
 */
const char *outlier_why_main_part(const struct outlier_why *w, uint64_t *ns);

/*
 * The first frame of the user stack in the program's own code, past libc's
 * (and the dynamic linker's) frames, as its length in *len from the returned
 * start; NULL when none.
 */
const char *outlier_why_caller_frame(const struct outlier_why *w, size_t *len);

/*
 * The frame of the kernel stack where the task waited, the first that is not
 * the scheduler's own (schedule, io_schedule, ...), as its length in *len from
 * the returned start; NULL when none.
 */
const char *outlier_why_wait_frame(const struct outlier_why *w, size_t *len);

#endif
