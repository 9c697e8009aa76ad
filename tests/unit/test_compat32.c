// SPDX-License-Identifier: GPL-2.0-only
/*
 * The calls of 32-bit tasks (ia32, x32) are counted apart as one syscall,
 * "compat32" (shm/sclat_abi.h, kern-bpf/syscall.bpf.h): its number is no
 * x86_64 syscall's, and it is named, looked up and taken by a policy as any.
 */
#include <stdio.h>
#include <string.h>
#include "policy/policy.h"
#include "util/syscall_names.h"
#include "unit.h"

#ifndef UNISTD_64
#define UNISTD_64 "/usr/include/x86_64-linux-gnu/asm/unistd_64.h"
#endif

static void test_compat32_is_named_and_found(void)
{
	char buf[32];

	CHECK_STR(syscall_name(SCLAT_NR_COMPAT), "compat32");
	CHECK_STR(syscall_name_or_nr(SCLAT_NR_COMPAT, buf, sizeof(buf)), "compat32");
	CHECK_EQ_INT(syscall_nr("compat32"), SCLAT_NR_COMPAT);
	/* ia32's nanosleep is 162: named from the x86_64 table, it would be sync. */
	CHECK_STR(syscall_name(162), "sync");
}

/* No x86_64 syscall has the number: the system's own header says so. */
static void test_no_x86_64_syscall_has_its_number(void)
{
	char line[256], name[128];
	FILE *f = fopen(UNISTD_64, "r");
	int nr, n = 0;

	if (!CHECK(f, "%s: cannot read", UNISTD_64))
		return;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "#define __NR_%127s %d", name, &nr) == 2) {
			n++;
			CHECK(nr != SCLAT_NR_COMPAT, "__NR_%s is %d", name, nr);
			CHECK(nr >= SCLAT_NR_COMPAT || !strcmp(syscall_name(nr), name),
			      "%d: %s, the header says %s", nr, syscall_name(nr), name);
		}
	fclose(f);
	CHECK(n > 300, "%d syscalls in %s", n, UNISTD_64);
}

static void test_a_policy_section_takes_it(void)
{
	struct policy *p = policy_builtin(), *q;
	char err[256];

	q = policy_with(p, "compat32", "mode", "off", err, sizeof(err));
	if (CHECK(q, "%s", err))
		CHECK_EQ_INT(q->rules[SCLAT_NR_COMPAT].mode, POLICY_OFF);
	policy_free(q);
	policy_free(p);
}

int main(void)
{
	RUN(test_compat32_is_named_and_found);
	RUN(test_no_x86_64_syscall_has_its_number);
	RUN(test_a_policy_section_takes_it);
	return unit_done();
}
