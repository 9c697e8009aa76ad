/* SPDX-License-Identifier: GPL-2.0-only */
/* Capture the current task's user registers and a bounded copy of its user stack. */
#ifndef SCLAT_USTACK_BPF_H
#define SCLAT_USTACK_BPF_H

#include <bpf/bpf_core_read.h>
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
/*
 * The saved registers are a 64-bit user context (__USER_CS): not a kernel
 * thread's zeroes, nor a 32-bit task's, which the numbering above does not
 * describe and the unwinder would read wrong.
 */
#define USTACK_USER_MODE(r) ((r)->cs == 0x33)
#else
#error "sclat: ustack.bpf.h: define USTACK_REGS_COPY for this architecture"
#endif

/* Bytes above mm->start_stack still copied: argc and the first argv pointers. */
#define USTACK_ABOVE_START 64

/* bpf_find_vma()'s callback: the end of the mapping that holds the stack pointer. */
static long ustack_vma_end(struct task_struct *task, struct vm_area_struct *vma, void *end)
{
	*(__u64 *)end = vma->vm_end;
	return 0;
}

/* log2(SCLAT_USTACK_BYTES / SCLAT_USTACK_GRAIN) + 1 copy sizes, halving. */
#define USTACK_COPY_STEPS 10
_Static_assert(SCLAT_USTACK_BYTES >> (USTACK_COPY_STEPS - 1) == SCLAT_USTACK_GRAIN,
	       "USTACK_COPY_STEPS must go from SCLAT_USTACK_BYTES down to SCLAT_USTACK_GRAIN");

/*
 * Fill u with the current task's user registers and up to limit bytes
 * (<= SCLAT_USTACK_BYTES) of its stack from sp up. Call it in the task's own
 * context (sys_exit): its user memory is the one mapped.
 *
 * The copy ends where the stack does: a read that crosses the end of its
 * mapping fails whole, and a fault costs tens of microseconds here. So the
 * copy stops at the end of the mapping that holds sp (bpf_find_vma), and a
 * main thread's at mm->start_stack, the sp _start began with: nothing above
 * it is a frame (argv, the environment), and it is often most of the copy.
 * Then one read copies it. Should that fail (the mapping could not be
 * looked up, a page is swapped out), the copy goes by halves: each size from
 * SCLAT_USTACK_BYTES down to SCLAT_USTACK_GRAIN is read once where the copy
 * stands if it fits, and kept if the read succeeds, which keeps the readable
 * prefix to within the grain; eleven reads at most, outliers only.
 */
static __always_inline void ustack_capture(struct sclat_ustack *u, __u32 limit)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct pt_regs *uregs = (struct pt_regs *)bpf_task_pt_regs(task);
	__u64 sp, start_stack, vma_end = 0;
	struct pt_regs r;
	__u32 off = 0, s;
	bool whole = false; /* limit is the end of the stack, not the caller's */
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
	if (limit > SCLAT_USTACK_BYTES)
		limit = SCLAT_USTACK_BYTES;
	if (!bpf_find_vma(task, sp, ustack_vma_end, &vma_end, 0) && vma_end > sp &&
	    vma_end - sp < limit) {
		limit = vma_end - sp;
		whole = true;
	}
	start_stack = BPF_CORE_READ(task, mm, start_stack);
	if (start_stack > sp && start_stack - sp + USTACK_ABOVE_START < limit) {
		limit = start_stack - sp + USTACK_ABOVE_START;
		whole = true;
	}
	/* The verifier's bound, where it checks it: the read's size. */
	asm volatile("" : "+r"(limit));
	if (limit > SCLAT_USTACK_BYTES)
		limit = SCLAT_USTACK_BYTES;
	if (!bpf_probe_read_user(u->stack, limit, (const void *)sp)) {
		off = limit;
	} else {
#pragma unroll
		for (k = 0; k < USTACK_COPY_STEPS; k++) {
			s = SCLAT_USTACK_BYTES >> k;
			/* Both bounds: the verifier's (constant) and the copy's. */
			if (off > SCLAT_USTACK_BYTES - s || off + s > limit)
				continue;
			if (!bpf_probe_read_user(u->stack + off, s, (const void *)(sp + off)))
				off += s;
		}
	}
	u->size = off;
	if (!whole && off + SCLAT_USTACK_GRAIN > limit)
		u->flags |= SCLAT_USTACK_FULL;
}

#endif /* SCLAT_USTACK_BPF_H */
