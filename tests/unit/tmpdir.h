/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A unit test program's scratch directory: made before its tests run and
 * removed after them with whatever they left in it, so that no test has to
 * clean up after a check that failed half-way.
 *
 *	static char dir[] = "/tmp/sclat-test-NAME-XXXXXX";
 *	int main(void)
 *	{
 *		if (tmpdir_make(dir))
 *			return 1;
 *		RUN(test_something_in_dir);
 *		return tmpdir_remove(dir, unit_done());
 *	}
 */
#ifndef SCLAT_TMPDIR_H
#define SCLAT_TMPDIR_H

#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Make the directory named by tmpl, a mkdtemp() template (rewritten in place): 0 or -1. */
static inline int tmpdir_make(char *tmpl)
{
	if (mkdtemp(tmpl))
		return 0;
	fprintf(stderr, "mkdtemp %s: %s\n", tmpl, strerror(errno));
	return -1;
}

static inline int tmpdir_remove_one(const char *path, const struct stat *st, int flag,
				    struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	if (!remove(path))
		return 0;
	fprintf(stderr, "remove %s: %s\n", path, strerror(errno));
	return -1;
}

/* Remove dir and all it holds: rc (the program's exit status), or 1 if that failed. */
static inline int tmpdir_remove(const char *dir, int rc)
{
	if (nftw(dir, tmpdir_remove_one, 16, FTW_DEPTH | FTW_PHYS))
		return 1;
	return rc;
}

#endif
