// SPDX-License-Identifier: GPL-2.0-only
/*
 * What a policy change turns on and off (policy.h): a partial file merged or
 * a whole file in place of the running policy can start tracing syscalls that
 * were off (nanosleep, accept: long by design); `sclat policy load`
 * says which, so that a change's reach is seen before its outliers are.
 */
#include "util/syscall_names.h"
#include "policy.h"

/* One line of the syscalls whose mode went from off (was_off) to on, or back; their count. */
static unsigned int switches_line(const struct policy *old, const struct policy *new, bool was_off,
				  FILE *f)
{
	unsigned int nr, n = 0;
	char name[32];

	for (nr = 0; nr < SCLAT_MAX_SYSCALLS; nr++) {
		bool off_before = old->rules[nr].mode == POLICY_OFF;
		bool off_now = new->rules[nr].mode == POLICY_OFF;

		/* Numbers without a syscall on this machine are not worth a word. */
		if (off_before == off_now || off_before != was_off || !syscall_name(nr))
			continue;
		fprintf(f, "%s%s",
			n	  ? ", "
			: was_off ? "now on: "
				  : "now off: ",
			syscall_name_or_nr(nr, name, sizeof(name)));
		n++;
	}
	if (n)
		fprintf(f, "\n");
	return n;
}

unsigned int policy_write_switches(const struct policy *old, const struct policy *new, FILE *f)
{
	unsigned int n = switches_line(old, new, true, f);

	return n + switches_line(old, new, false, f);
}
