/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A user stack as the BPF side captures it: the user registers at the
 * syscall and a bounded copy of the stack from sp up, for userspace to
 * unwind with the binaries' CFI (user/explain/unwind.h).
 *
 * Compiled by clang -target bpf and by gcc, like sclat_abi.h: the asserts
 * at the end pin the layout in both compilers, so they cannot disagree.
 */
#ifndef SCLAT_USTACK_H
#define SCLAT_USTACK_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/*
 * Bytes of stack copied at most: perf's default for --call-graph dwarf. A
 * syscall wrapper, a few library frames and the program's own reach main()
 * in far less on the programs we measured; deep C++ or Java stacks need more.
 */
#define SCLAT_USTACK_BYTES 8192
/* The copy is exact to this many bytes below a fault (the top of the stack). */
#define SCLAT_USTACK_GRAIN 16

/*
 * The registers, in x86_64 DWARF numbering (what libdwfl's
 * dwfl_thread_state_registers takes): rax rdx rcx rbx rsi rdi rbp rsp
 * r8..r15, then rip as the return-address column 16.
 */
#define SCLAT_USTACK_NR_REGS 17
#define SCLAT_USTACK_REG_BP  6
#define SCLAT_USTACK_REG_SP  7
#define SCLAT_USTACK_REG_IP  16

/* sclat_ustack.flags */
#define SCLAT_USTACK_FULL    0x1 /* the copy reached its limit: the stack may go on above it */
#define SCLAT_USTACK_NO_REGS 0x2 /* no 64-bit user registers (a kernel or 32-bit task): no copy */
#define SCLAT_USTACK_SKIPPED 0x4 /* not copied: the ring buffer was filling up (sclat.bpf.c) */
#define SCLAT_USTACK_BUDGET  0x8 /* with SKIPPED: not copied, its CPU past its stacks a second */

struct sclat_ustack {
	__u64 regs[SCLAT_USTACK_NR_REGS];
	__u32 size; /* bytes of stack[] copied, from regs[SCLAT_USTACK_REG_SP] up */
	__u32 flags;
	__u8 stack[SCLAT_USTACK_BYTES];
};

_Static_assert(__builtin_offsetof(struct sclat_ustack, size) == 8 * SCLAT_USTACK_NR_REGS,
	       "sclat_ustack.size moved");
_Static_assert(__builtin_offsetof(struct sclat_ustack, stack) == 8 * SCLAT_USTACK_NR_REGS + 8,
	       "sclat_ustack.stack moved");
_Static_assert(sizeof(struct sclat_ustack) == 8 * SCLAT_USTACK_NR_REGS + 8 + SCLAT_USTACK_BYTES,
	       "sclat_ustack has padding");

#endif /* SCLAT_USTACK_H */
