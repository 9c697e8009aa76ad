/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Where the syscall arguments sit in a task's user pt_regs, and how those
 * registers tell a syscall in progress from an interrupt or an exception
 * taken in user mode. The entry code saves the arguments there, and nothing
 * writes them back before sys_exit but execve (a new image's registers) and
 * rt_sigreturn (the interrupted context's): sys_exit reads them there, and
 * sys_enter copies nothing.
 */
#ifndef SCLAT_SYSCALL_REGS_BPF_H
#define SCLAT_SYSCALL_REGS_BPF_H

#if defined(__TARGET_ARCH_x86)
/* Argument i (< 6). */
#define SYSCALL_ARG(r, i)      \
	((i) == 0   ? (r)->di  \
	 : (i) == 1 ? (r)->si  \
	 : (i) == 2 ? (r)->dx  \
	 : (i) == 3 ? (r)->r10 \
	 : (i) == 4 ? (r)->r8  \
		    : (r)->r9)
/* The entry code sets ax to -ENOSYS for the call's duration; orig_ax holds its number. */
#define SYSCALL_REGS_IN_SYSCALL(r) ((long)(r)->orig_ax >= 0 && (long)(r)->ax == -38)
#elif defined(__TARGET_ARCH_arm64)
/* Argument i (< 6). */
#define SYSCALL_ARG(r, i)          \
	((i) == 0   ? (r)->orig_x0 \
	 : (i) == 1 ? (r)->regs[1] \
	 : (i) == 2 ? (r)->regs[2] \
	 : (i) == 3 ? (r)->regs[3] \
	 : (i) == 4 ? (r)->regs[4] \
		    : (r)->regs[5])
/* Every other entry from user mode sets syscallno to NO_SYSCALL (-1). */
#define SYSCALL_REGS_IN_SYSCALL(r) ((int)(r)->syscallno >= 0)
#else
#error "sclat: define SYSCALL_ARG for this architecture"
#endif

/* The six arguments into dst. */
#define SYSCALL_ARGS_COPY(dst, r)             \
	do {                                  \
		(dst)[0] = SYSCALL_ARG(r, 0); \
		(dst)[1] = SYSCALL_ARG(r, 1); \
		(dst)[2] = SYSCALL_ARG(r, 2); \
		(dst)[3] = SYSCALL_ARG(r, 3); \
		(dst)[4] = SYSCALL_ARG(r, 4); \
		(dst)[5] = SYSCALL_ARG(r, 5); \
	} while (0)

#endif /* SCLAT_SYSCALL_REGS_BPF_H */
