// SPDX-License-Identifier: GPL-2.0-only
/*
 * An ia32 syscall from a 64-bit program, for the 32-bit ABI tests: int $0x80
 * takes the ia32 table (the task is marked TS_COMPAT for the call), as a
 * 32-bit program's calls do, where this kernel has no 32-bit libc to run one.
 *
 *   compat_call N
 *
 * Makes N ia32 nanosleep calls (ia32 number 162, x86_64's sync) of 20 ms,
 * its timespec in the low 4 GiB (MAP_32BIT: int $0x80 takes 32-bit
 * pointers). Prints {"calls":N,"ret":R} with the last call's return value;
 * exits 0 when every call returned 0.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#define IA32_NANOSLEEP 162

int main(int argc, char **argv)
{
	int32_t *ts = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
	long n, i, ret = -1;

	if (argc != 2 || (n = atol(argv[1])) <= 0) {
		fprintf(stderr, "usage: compat_call N\n");
		return 2;
	}
	if (ts == MAP_FAILED) {
		perror("compat_call: mmap");
		return 1;
	}
	for (i = 0; i < n; i++) {
		ts[0] = 0;	  /* old_timespec32: tv_sec */
		ts[1] = 20000000; /* tv_nsec */
		/* The kernel zeroes r8-r11 on return from int $0x80. */
		__asm__ volatile("int $0x80"
				 : "=a"(ret)
				 : "a"(IA32_NANOSLEEP), "b"((long)(uintptr_t)ts), "c"(0L)
				 : "memory", "r8", "r9", "r10", "r11");
		if (ret)
			break;
	}
	printf("{\"calls\":%ld,\"ret\":%ld}\n", i, ret);
	return ret ? 1 : 0;
}
