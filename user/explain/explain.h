/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What explains an outlier, decoded from its ring buffer record: where its
 * time went, when it ran and waited, who woke it, its target as text and its
 * kernel stack symbolized.
 * The stage between the kernel's records and the outputs.
 */
#ifndef SCLAT_EXPLAIN_H
#define SCLAT_EXPLAIN_H

#include <stdbool.h>
#include <stddef.h>
#include "sclat_abi.h"
#include "util/outlier_line.h"
#include "util/proc_title.h"

struct explain;
struct sclat_ustack;
struct ustack_result;

#define EXPLAIN_TARGET_LEN 1024
#define EXPLAIN_FRAME_LEN  128
#define EXPLAIN_COMM_LEN   24

struct explanation {
	struct sclat_breakdown breakdown;
	__u64 irq_ns;	/* of breakdown.on_cpu_ns, in interrupts on its CPU */
	__u64 steal_ns; /* of breakdown.on_cpu_ns, its virtual CPU held by the hypervisor */
	/* Of its time blocked, its wakers' own waits for a CPU inside its blocks. */
	__u64 waker_runqueue_ns;
	__u32 switches;
	bool has_waker;
	struct {
		__u32 pid, tid;
		/* The task's name, or "[interrupt]" (pid and tid 0) for an interrupt. */
		char comm[EXPLAIN_COMM_LEN];
	} waker;
	bool has_target;
	char target[EXPLAIN_TARGET_LEN];
	unsigned int kstack_depth;
	__u64 kstack_ip[SCLAT_KSTACK_MAX];
	/* "function+0xoff", "function+0xoff [module]", or the address in hex. */
	char kstack[SCLAT_KSTACK_MAX][EXPLAIN_FRAME_LEN];
	__u32 inflight_reports; /* times it was reported in flight before it returned */
	__u64 bpf_ns;		/* what explaining it cost in the kernel */
	__u64 user_ns;		/* and decoding it here */
	/* The user stack as the kernel copied it, inside the record: NULL when none. */
	const struct sclat_ustack *ustack_capture;
	/* That stack unwound and named (user/explain/ustack_worker.h): NULL when none. */
	const struct ustack_result *user_stack;
	bool user_stack_dropped; /* captured, but refused by the unwinder's full queue */
	__u8 user_stack_missing; /* enum outlier_ustack_missing (util/outlier_line.h) */
	/* Its first stretches off the CPU (none: it never left it), times after its entry. */
	unsigned int off_cpu_listed;
	__u32 off_cpu_unlisted; /* the stretches beyond them */
	int off_cpu_waker;	/* the listed stretch the waker ended; -1: none */
	struct outlier_off_cpu off_cpu[SCLAT_OFF_CPU_MAX];
	/* Its process's title (util/proc_title.h) as the record is read: "" when gone. */
	char title[PROC_TITLE_LEN];
};

#define EXPLAIN_KALLSYMS "/proc/kallsyms"

/*
 * The decoder, with kernel symbols from kallsyms (EXPLAIN_KALLSYMS), loaded
 * now. Without them (unreadable, or kernel.kptr_restrict) frames stay
 * addresses; a note says so on stderr. Returns 0 or -ENOMEM; *xp NULL, a
 * decoder without symbols, will do for explain_outlier().
 */
int explain_open(struct explain **xp, const char *kallsyms);

void explain_close(struct explain *x);

/*
 * Decode outlier record e (size bytes, as the ring buffer gave it) into out;
 * x may be NULL (no symbols).
 * Parts of kinds it does not know are skipped. Returns 0, or -EINVAL when a
 * part runs past the record (out then holds what came before it).
 */
int explain_outlier(struct explain *x, const struct sclat_event *e, size_t size,
		    struct explanation *out);

/* The frames of x's kernel stack joined with ';' into buf, innermost first. */
#define EXPLAIN_KSTACK_TEXT_LEN (SCLAT_KSTACK_MAX * EXPLAIN_FRAME_LEN)
const char *explanation_kernel_stack(const struct explanation *x, char *buf, size_t len);

/* The frames of x's user stack joined with ';' into buf, innermost first; "" when none. */
#define EXPLAIN_USTACK_TEXT_LEN 8192
const char *explanation_user_stack(const struct explanation *x, char *buf, size_t len);

/*
 * x as an outlier line shows it; its kernel then its user stack are joined
 * into text (len bytes, EXPLAIN_WHY_TEXT_LEN is room for both).
 */
#define EXPLAIN_WHY_TEXT_LEN (EXPLAIN_KSTACK_TEXT_LEN + EXPLAIN_USTACK_TEXT_LEN)
void explanation_why(const struct explanation *x, struct outlier_why *w, char *text, size_t len);

#endif
