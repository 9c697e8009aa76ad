/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Where the syscall arguments sit in the user pt_regs seen by sys_enter, and
 * how a task's user pt_regs tell a syscall in progress from an interrupt or
 * an exception taken in user mode.
 */
#ifndef SCLAT_SYSCALL_REGS_BPF_H
#define SCLAT_SYSCALL_REGS_BPF_H

#if defined(__TARGET_ARCH_x86)
#define SYSCALL_ARGS_COPY(dst, r)    \
	do {                         \
		(dst)[0] = (r)->di;  \
		(dst)[1] = (r)->si;  \
		(dst)[2] = (r)->dx;  \
		(dst)[3] = (r)->r10; \
		(dst)[4] = (r)->r8;  \
		(dst)[5] = (r)->r9;  \
	} while (0)
/* The entry code sets ax to -ENOSYS for the call's duration; orig_ax holds its number. */
#define SYSCALL_REGS_IN_SYSCALL(r) ((long)(r)->orig_ax >= 0 && (long)(r)->ax == -38)
#elif defined(__TARGET_ARCH_arm64)
#define SYSCALL_ARGS_COPY(dst, r)        \
	do {                             \
		(dst)[0] = (r)->orig_x0; \
		(dst)[1] = (r)->regs[1]; \
		(dst)[2] = (r)->regs[2]; \
		(dst)[3] = (r)->regs[3]; \
		(dst)[4] = (r)->regs[4]; \
		(dst)[5] = (r)->regs[5]; \
	} while (0)
/* Every other entry from user mode sets syscallno to NO_SYSCALL (-1). */
#define SYSCALL_REGS_IN_SYSCALL(r) ((int)(r)->syscallno >= 0)
#else
#error "sclat: define SYSCALL_ARGS_COPY for this architecture"
#endif

#endif /* SCLAT_SYSCALL_REGS_BPF_H */
