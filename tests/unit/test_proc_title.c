// SPDX-License-Identifier: GPL-2.0-only
/* A process's title from its cmdline (user/util/proc_title.c): joined, trimmed, bounded. */
#include <string.h>
#include <unistd.h>
#include "util/proc_title.h"
#include "unit.h"

#define TITLE(raw) proc_title_of((raw), sizeof(raw) - 1, buf, sizeof(buf))

static void test_arguments_are_joined_by_blanks(void)
{
	char buf[PROC_TITLE_LEN];

	CHECK_STR(TITLE("sleep\0"
			"10\0"),
		  "sleep 10");
	CHECK_STR(TITLE("/usr/sbin/nginx\0-g\0daemon off;\0"), "/usr/sbin/nginx -g daemon off;");
	CHECK_STR(TITLE(""), "");
}

/* postgres writes its title over argv and zeroes the rest of the area. */
static void test_a_title_written_over_argv_ends_at_its_text(void)
{
	char buf[PROC_TITLE_LEN];

	CHECK_STR(TITLE("postgres: checkpointer \0\0\0\0\0\0\0\0\0\0"), "postgres: checkpointer");
	CHECK_STR(TITLE("postgres: walwriter   \0\0\0\0"), "postgres: walwriter");
}

static void test_a_long_title_is_cut_and_bytes_are_kept_raw(void)
{
	char raw[200], buf[PROC_TITLE_LEN], small[8];

	memset(raw, 'x', sizeof(raw));
	proc_title_of(raw, sizeof(raw), buf, sizeof(buf));
	CHECK_EQ_U64(strlen(buf), PROC_TITLE_LEN - 1);
	CHECK_STR(proc_title_of("abcdefghij", 10, small, sizeof(small)), "abcdefg");
	/* Escaping is the printer's: a terminal's escape stays a byte here. */
	CHECK_STR(TITLE("evil\x1b]0;x\a\0"), "evil\x1b]0;x\a");
}

static void test_the_title_of_this_process_and_of_none(void)
{
	char buf[PROC_TITLE_LEN];

	CHECK(strstr(proc_title_read(getpid(), buf, sizeof(buf)), "test_proc_title"), "%s", buf);
	CHECK_STR(proc_title_read(0x3fffffff, buf, sizeof(buf)), "");
}

static void test_a_title_a_server_set_is_told_from_a_command_line(void)
{
	CHECK(proc_title_is_set("postgres: checkpointer"), "postgres");
	CHECK(proc_title_is_set("nginx: worker process"), "nginx");
	CHECK(proc_title_is_set("sshd: admin [priv]"), "sshd");
	CHECK(!proc_title_is_set("/usr/bin/dd if=/dev/zero of=x"), "dd");
	CHECK(!proc_title_is_set("sleep 10"), "sleep");
	CHECK(!proc_title_is_set(":"), "a colon alone");
	CHECK(!proc_title_is_set(""), "none");
	CHECK(!proc_title_is_set(NULL), "none");
}

int main(void)
{
	RUN(test_arguments_are_joined_by_blanks);
	RUN(test_a_title_written_over_argv_ends_at_its_text);
	RUN(test_a_long_title_is_cut_and_bytes_are_kept_raw);
	RUN(test_the_title_of_this_process_and_of_none);
	RUN(test_a_title_a_server_set_is_told_from_a_command_line);
	return unit_done();
}
