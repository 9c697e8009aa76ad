// SPDX-License-Identifier: GPL-2.0-only
/* The grouping key of sclat report: parts, order, names, and what is refused. */
#include <string.h>
#include "util/group_key.h"
#include "unit.h"

static void test_parts_in_order(void)
{
	struct group_key k;
	char err[128], name[GROUP_KEY_NAME_LEN];

	CHECK_EQ_INT(group_key_parse("syscall", &k, err, sizeof(err)), 0);
	CHECK(group_key_is(&k, GROUP_PART_SYSCALL), "syscall alone");
	CHECK_EQ_INT(group_key_parse("syscall,host", &k, err, sizeof(err)), 0);
	CHECK_EQ_INT(k.nr, 2);
	CHECK_EQ_INT(k.parts[0], GROUP_PART_SYSCALL);
	CHECK_EQ_INT(k.parts[1], GROUP_PART_HOST);
	CHECK(!group_key_is(&k, GROUP_PART_SYSCALL), "not syscall alone");
	CHECK(group_key_has(&k, GROUP_PART_HOST) && !group_key_has(&k, GROUP_PART_THREAD),
	      "host, no thread");
	CHECK_STR(group_key_name(&k, name, sizeof(name)), "syscall,host");
	CHECK_EQ_INT(group_key_parse("host,thread,syscall", &k, err, sizeof(err)), 0);
	CHECK_STR(group_key_name(&k, name, sizeof(name)), "host,thread,syscall");
	CHECK_EQ_INT(group_key_parse("syscall,target,stack", &k, err, sizeof(err)), 0);
	CHECK_EQ_INT(k.parts[1], GROUP_PART_TARGET);
	CHECK_EQ_INT(k.parts[2], GROUP_PART_STACK);
	CHECK_STR(group_key_name(&k, name, sizeof(name)), "syscall,target,stack");
	CHECK_EQ_INT(group_key_parse("syscall,class", &k, err, sizeof(err)), 0);
	CHECK_EQ_INT(k.parts[1], GROUP_PART_CLASS);
	CHECK_STR(group_key_name(&k, name, sizeof(name)), "syscall,class");
	CHECK_EQ_INT(group_key_parse("title,process", &k, err, sizeof(err)), 0);
	CHECK_EQ_INT(k.parts[0], GROUP_PART_TITLE);
	CHECK_STR(group_key_name(&k, name, sizeof(name)), "title,process");
}

static void test_refused(void)
{
	struct group_key k;
	char err[128];

	CHECK_EQ_INT(group_key_parse("syscal", &k, err, sizeof(err)), -1);
	CHECK_STR(
		err,
		"\"syscal\" is not syscall, process, thread, host, target, stack, class or title");
	CHECK_EQ_INT(group_key_parse("syscall,", &k, err, sizeof(err)), -1);
	CHECK_STR(err, "\"\" is not syscall, process, thread, host, target, stack, class or title");
	CHECK_EQ_INT(group_key_parse("host,host", &k, err, sizeof(err)), -1);
	CHECK_STR(err, "host is given twice (a thread names its process)");
	CHECK_EQ_INT(group_key_parse("process,thread", &k, err, sizeof(err)), -1);
	CHECK_STR(err, "thread is given twice (a thread names its process)");
	CHECK_EQ_INT(group_key_parse("", &k, err, sizeof(err)), -1);
}

int main(void)
{
	RUN(test_parts_in_order);
	RUN(test_refused);
	return unit_done();
}
