/* SPDX-License-Identifier: GPL-2.0-only */
/* Capture the current task's user registers and a bounded copy of its user stack. */
#ifndef SCLAT_USTACK_BPF_H
#define SCLAT_USTACK_BPF_H

#include "sclat_ustack.h"

#if defined(__TARGET_ARCH_x86)
/* pt_regs in the DWARF order of shm/sclat_ustack.h. */
#define USTACK_REGS_COPY(dst, r)      \
	do {                          \
		(dst)[0] = (r)->ax;   \
		(dst)[1] = (r)->dx;   \
		(dst)[2] = (r)->cx;   \
		(dst)[3] = (r)->bx;   \
		(dst)[4] = (r)->si;   \
		(dst)[5] = (r)->di;   \
		(dst)[6] = (r)->bp;   \
		(dst)[7] = (r)->sp;   \
		(dst)[8] = (r)->r8;   \
		(dst)[9] = (r)->r9;   \
		(dst)[10] = (r)->r10; \
		(dst)[11] = (r)->r11; \
		(dst)[12] = (r)->r12; \
		(dst)[13] = (r)->r13; \
		(dst)[14] = (r)->r14; \
		(dst)[15] = (r)->r15; \
		(dst)[16] = (r)->ip;  \
	} while (0)
/* The saved registers are a user context (ring 3), not a kernel thread's zeroes. */
#define USTACK_USER_MODE(r) (((r)->cs & 3) == 3)
#else
#error "sclat: ustack.bpf.h: define USTACK_REGS_COPY for this architecture"
#endif

/* log2(SCLAT_USTACK_BYTES / SCLAT_USTACK_GRAIN) + 1 copy sizes, halving. */
#define USTACK_COPY_STEPS 10
_Static_assert(SCLAT_USTACK_BYTES >> (USTACK_COPY_STEPS - 1) == SCLAT_USTACK_GRAIN,
	       "USTACK_COPY_STEPS must go from SCLAT_USTACK_BYTES down to SCLAT_USTACK_GRAIN");

/*
 * Fill u with the current task's user registers and up to limit bytes
 * (<= SCLAT_USTACK_BYTES) of its stack from sp up. Call it in the task's own
 * context (sys_exit): its user memory is the one mapped.
 *
 * One read of the whole size succeeds when the stack goes on that far. When it
 * does not (a shallow main thread: the stack's top is a few KiB above sp), a
 * read that crosses the end fails whole, so the copy goes on by halves: each
 * size from SCLAT_USTACK_BYTES down to SCLAT_USTACK_GRAIN is tried once where
 * the copy stands, and the readable prefix is kept to within the grain.
 * Ten reads at most, on the outlier path only.
 */
static __always_inline void ustack_capture(struct sclat_ustack *u, __u32 limit)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct pt_regs *uregs = (struct pt_regs *)bpf_task_pt_regs(task);
	struct pt_regs r;
	__u32 off = 0, s;
	__u64 sp;
	int k;

	u->size = 0;
	u->flags = 0;
	if (!uregs || bpf_probe_read_kernel(&r, sizeof(r), uregs) || !USTACK_USER_MODE(&r)) {
		__builtin_memset(u->regs, 0, sizeof(u->regs));
		u->flags = SCLAT_USTACK_NO_REGS;
		return;
	}
	USTACK_REGS_COPY(u->regs, &r);
	sp = r.sp;
#pragma unroll
	for (k = 0; k < USTACK_COPY_STEPS; k++) {
		s = SCLAT_USTACK_BYTES >> k;
		/* Both bounds: the verifier's (constant) and the caller's. */
		if (off > SCLAT_USTACK_BYTES - s || off + s > limit)
			continue;
		if (!bpf_probe_read_user(u->stack + off, s, (const void *)(sp + off)))
			off += s;
	}
	u->size = off;
	if (off >= limit)
		u->flags |= SCLAT_USTACK_FULL;
}

#endif /* SCLAT_USTACK_BPF_H */
