/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What explains an outlier, decoded from its ring buffer record: where its
 * time went, who woke it, its target as text and its kernel stack symbolized.
 * The stage between the kernel's records and the outputs.
 */
#ifndef SCLAT_EXPLAIN_H
#define SCLAT_EXPLAIN_H

#include <stdbool.h>
#include <stddef.h>
#include "sclat_abi.h"
#include "util/outlier_line.h"

struct explain;

#define EXPLAIN_TARGET_LEN 1024
#define EXPLAIN_FRAME_LEN  128
#define EXPLAIN_COMM_LEN   24

struct explanation {
	struct sclat_breakdown breakdown;
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
	__u64 bpf_ns;  /* what explaining it cost in the kernel */
	__u64 user_ns; /* and decoding it here */
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

/* x as an outlier line shows it; its kernel stack is joined into stack (len bytes). */
void explanation_why(const struct explanation *x, struct outlier_why *w, char *stack, size_t len);

#endif
