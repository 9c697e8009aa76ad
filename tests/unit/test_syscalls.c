// SPDX-License-Identifier: GPL-2.0-only
/* The syscall name table generated from <asm/unistd_64.h>, and did-you-mean. */
#include <sys/syscall.h>
#include "unit.h"
#include "util/suggest.h"
#include "util/syscall_names.h"

static void test_names_match_libc_numbers(void)
{
	CHECK_STR(syscall_name(SYS_read), "read");
	CHECK_STR(syscall_name(SYS_getppid), "getppid");
	CHECK_STR(syscall_name(SYS_clock_nanosleep), "clock_nanosleep");
	CHECK_STR(syscall_name(SYS_epoll_pwait2), "epoll_pwait2");
	CHECK(syscall_name(SCLAT_MAX_SYSCALLS) == NULL, "name past the table");
}

static void test_lookup_by_name(void)
{
	CHECK_EQ_INT(syscall_nr("read"), SYS_read);
	CHECK_EQ_INT(syscall_nr("sys_futex"), SYS_futex);
	CHECK_EQ_INT(syscall_nr("39"), 39);
	CHECK_EQ_INT(syscall_nr("syscall_39"), 39);
	CHECK_EQ_INT(syscall_nr("nosuchcall"), -1);
	CHECK_EQ_INT(syscall_nr(""), -1);
	CHECK_EQ_INT(syscall_nr("512"), -1);
	CHECK_EQ_INT(syscall_nr("3x"), -1);
}

static void test_unnamed_numbers(void)
{
	char buf[32];

	/* x86_64 leaves 335..423 unassigned. */
	CHECK(syscall_name(400) == NULL, "400 has a name");
	CHECK_STR(syscall_name_or_nr(400, buf, sizeof(buf)), "syscall_400");
	CHECK_STR(syscall_name_or_nr(SYS_write, buf, sizeof(buf)), "write");
}

static void test_nearest(void)
{
	const char *keys[] = { "quantile", "margin", "floor", "ceiling", NULL, "initial" };

	CHECK_STR(suggest_nearest("quantil", keys, 6), "quantile");
	CHECK_STR(suggest_nearest("ceilling", keys, 6), "ceiling");
	CHECK(suggest_nearest("zzzzzz", keys, 6) == NULL, "zzzzzz got a suggestion");
	CHECK_STR(syscall_nearest("epol_wait"), "epoll_wait");
	CHECK_STR(syscall_nearest("nanoslep"), "nanosleep");
}

int main(void)
{
	RUN(test_names_match_libc_numbers);
	RUN(test_lookup_by_name);
	RUN(test_unnamed_numbers);
	RUN(test_nearest);
	return unit_done();
}
