// SPDX-License-Identifier: GPL-2.0-only
/*
 * A policy file merged into the running policy (policy_load_over), and what
 * a change turns on and off (policy_write_switches): what `sclat policy load`
 * does and says.
 */
#include <stdlib.h>
#include <unistd.h>
#include "policy/policy.h"
#include "util/syscall_names.h"
#include "unit.h"

static char path[64];

static const char *file_with(const char *text)
{
	int fd;

	snprintf(path, sizeof(path), "/tmp/sclat-test-policy-merge.XXXXXX");
	fd = mkstemp(path);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;

	if (!f)
		return NULL;
	fputs(text, f);
	fclose(f);
	return path;
}

static const char *switches(const struct policy *old, const struct policy *new)
{
	static char *buf;
	size_t len;
	FILE *f;

	free(buf);
	buf = NULL;
	f = open_memstream(&buf, &len);
	policy_write_switches(old, new, f);
	fclose(f);
	return buf;
}

static void test_a_partial_file_changes_only_what_it_says(void)
{
	struct policy *base = policy_builtin(), *p, *alone;
	const char *file = file_with("[default]\nfloor = 500us\n[syscall read]\nfloor = 1ms\n");
	int futex = syscall_nr("futex"), rd = syscall_nr("read"), wr = syscall_nr("write");
	int sleep = syscall_nr("nanosleep");
	char err[256];

	p = policy_load_over(base, file, err, sizeof(err));
	if (!CHECK(p, "%s", err))
		return;
	CHECK_EQ_U64(p->def.floor_ns, 500000);
	CHECK_EQ_U64(p->rules[wr].floor_ns, 500000);
	CHECK_EQ_U64(p->rules[rd].floor_ns, 1000000);
	/* The built-in policy's sleeps stay off, its waits unjudged until learnt. */
	CHECK_EQ_INT(p->rules[sleep].mode, POLICY_OFF);
	CHECK_EQ_INT(p->overrides[sleep], POLICY_KEY_MODE);
	CHECK_EQ_INT(p->rules[futex].mode, POLICY_ADAPTIVE);
	CHECK_EQ_U64(p->rules[futex].initial_ns, SCLAT_THRESHOLD_NEVER);
	CHECK_STR(switches(base, p), "");
	CHECK(!strncmp(p->source, "built-in + /tmp/", 16), "%s", p->source);

	/* The same file alone drops them: that turns them on, and says so. */
	alone = policy_load(file, err, sizeof(err));
	if (!CHECK(alone, "%s", err))
		return;
	CHECK_EQ_INT(alone->rules[sleep].mode, POLICY_ADAPTIVE);
	CHECK_EQ_U64(alone->rules[futex].initial_ns, 10000000ULL);
	CHECK(!strncmp(switches(base, alone), "now on: ", 8), "%s", switches(base, alone));
	CHECK(strstr(switches(base, alone), "nanosleep") && strstr(switches(base, alone), "wait4"),
	      "%s", switches(base, alone));
	CHECK(!strstr(switches(base, alone), "now off"), "%s", switches(base, alone));
	CHECK(!strncmp(switches(alone, base), "now off: ", 9), "%s", switches(alone, base));
	policy_free(alone);
	policy_free(p);
	policy_free(base);
	unlink(file);
}

static void test_a_merged_file_may_set_a_syscall_key_the_policy_has(void)
{
	struct policy *base = policy_builtin(), *p;
	const char *file;
	int sleep = syscall_nr("nanosleep");
	char err[256];

	file = file_with("[syscall nanosleep]\nmode = adaptive\n");
	p = policy_load_over(base, file, err, sizeof(err));
	if (CHECK(p, "%s", err)) {
		CHECK_EQ_INT(p->rules[sleep].mode, POLICY_ADAPTIVE);
		CHECK_STR(switches(base, p), "now on: nanosleep\n");
		policy_free(p);
	}
	unlink(file);
	/* Twice in one file is still a duplicate. */
	file = file_with("[syscall futex]\nmode = adaptive\nmode = off\n");
	CHECK(!policy_load_over(base, file, err, sizeof(err)), "a duplicate key is refused");
	CHECK(strstr(err, ":3: duplicate key \"mode\""), "%s", err);
	unlink(file);
	policy_free(base);
}

int main(void)
{
	RUN(test_a_partial_file_changes_only_what_it_says);
	RUN(test_a_merged_file_may_set_a_syscall_key_the_policy_has);
	return unit_done();
}
