/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A 32-bit (ia32) program without libc, for the 32-bit ABI tests: three
 * nanosleep calls of 20 ms through int $0x80 (ia32 number 162, x86_64's
 * sync), then exit 0. Assembled and linked with binutils alone (as --32,
 * ld -m elf_i386): no 32-bit libc or compiler is needed to run it on a
 * kernel with IA32 emulation.
 */
	.globl	_start
	.text
_start:
	movl	$3, %esi		/* calls left */
1:	movl	$162, %eax		/* __NR_nanosleep (unistd_32.h) */
	movl	$request, %ebx
	xorl	%ecx, %ecx
	int	$0x80
	testl	%eax, %eax
	jnz	2f
	decl	%esi
	jnz	1b
2:	movl	%eax, %ebx		/* exit status: 0, or the failed call's -errno */
	movl	$1, %eax		/* __NR_exit */
	int	$0x80

	.data
request:
	.long	0, 20000000		/* struct old_timespec32: 0 s, 20 ms */
