// SPDX-License-Identifier: GPL-2.0-only
/* Output files the user names: checked without being touched, replaced whole or not at all. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "util/file_out.h"
#include "unit.h"

static char dir[] = "/tmp/sclat-test-file-out-XXXXXX";

static char *path_in(const char *name)
{
	static char buf[256];

	snprintf(buf, sizeof(buf), "%s/%s", dir, name);
	return buf;
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	fputs(text, f);
	fclose(f);
}

static const char *got(const char *path)
{
	static char buf[256];
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return "(none)";
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = 0;
	fclose(f);
	return buf;
}

/* The files in dir: none is left behind by a replacement, done or not. */
static int files(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

static int write_new(FILE *f, void *ctx)
{
	fputs(ctx, f);
	return 0;
}

static int write_then_fail(FILE *f, void *ctx)
{
	fputs(ctx, f);
	errno = EIO;
	return -1;
}

static void test_check_touches_nothing(void)
{
	char *old = strdup(path_in("old"));

	put(old, "earlier run\n");
	CHECK_EQ_INT(file_out_check(old), 0);
	CHECK_STR(got(old), "earlier run\n");
	CHECK_EQ_INT(file_out_check(path_in("new")), 0);
	CHECK_EQ_INT(access(path_in("new"), F_OK), -1);
	CHECK_EQ_INT(file_out_check(path_in("nodir/x")), ENOENT);
	unlink(old);
	free(old);
}

static void test_replace_whole_or_not_at_all(void)
{
	char *old = strdup(path_in("old"));

	put(old, "earlier run\n");
	CHECK_EQ_INT(file_out_replace(old, write_then_fail, "half of this run"), EIO);
	CHECK_STR(got(old), "earlier run\n");
	CHECK_EQ_INT(files(), 1);
	CHECK_EQ_INT(file_out_replace(old, write_new, "this run\n"), 0);
	CHECK_STR(got(old), "this run\n");
	CHECK_EQ_INT(files(), 1);
	CHECK_EQ_INT(file_out_replace(path_in("nodir/x"), write_new, "x"), ENOENT);
	unlink(old);
	free(old);
}

int main(void)
{
	if (!mkdtemp(dir))
		return 1;
	RUN(test_check_touches_nothing);
	RUN(test_replace_whole_or_not_at_all);
	rmdir(dir);
	return unit_done();
}
