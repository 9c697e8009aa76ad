/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Where the syscall arguments sit in a task's user pt_regs, and how those
 * registers tell a syscall in progress from an interrupt or an exception
 * taken in user mode. The entry code saves the arguments there, and nothing
 * writes them back before sys_exit but execve (a new image's registers) and
 * rt_sigreturn (the interrupted context's): sys_exit reads them there, and
 * sys_enter copies nothing.
 *
 * Needs vmlinux.h, bpf_helpers.h and target.bpf.h (kernel_cast) before it.
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

/*
 * The user registers at regs (a task's, saved by the entry code), readable:
 * the kernel's own, or, before bpf_rdonly_cast, a copy (zeros if unreadable).
 */
static __always_inline const struct pt_regs *user_regs(__u64 regs, struct pt_regs *copy)
{
	if (bpf_rdonly_cast)
		return kernel_cast(regs, struct pt_regs);
	if (bpf_probe_read_kernel(copy, sizeof(*copy), (void *)regs))
		__builtin_memset(copy, 0, sizeof(*copy));
	return copy;
}

/*
 * The arguments of the syscall in progress whose user registers are at regs,
 * read where a call needs them (an outlier, a class by fd kind, a call in
 * flight), from the registers the entry code saved: sys_enter copies none.
 */
static __always_inline void syscall_args_read(__u64 regs, __u64 *args)
{
	struct pt_regs copy;
	const struct pt_regs *r = user_regs(regs, &copy);

	SYSCALL_ARGS_COPY(args, r);
}

/* Argument i (< SCLAT_NR_ARGS) of that syscall alone. */
static __always_inline __u64 syscall_arg(__u64 regs, __u32 i)
{
	struct pt_regs copy;
	const struct pt_regs *r = user_regs(regs, &copy);

	return SYSCALL_ARG(r, i);
}

#endif /* SCLAT_SYSCALL_REGS_BPF_H */
