// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "file_out.h"

int file_out_check(const char *path)
{
	char dir[PATH_MAX];
	const char *where = path;

	if (access(path, F_OK)) {
		if (snprintf(dir, sizeof(dir), "%s", path) >= (int)sizeof(dir))
			return ENAMETOOLONG;
		where = dirname(dir);
	}
	return access(where, W_OK) ? errno : 0;
}

int file_out_replace(const char *path, int (*fill)(FILE *f, void *ctx), void *ctx)
{
	char tmp[PATH_MAX];
	int fd, err = 0;
	FILE *f;

	if (snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path) >= (int)sizeof(tmp))
		return ENAMETOOLONG;
	fd = mkstemp(tmp);
	if (fd < 0)
		return errno;
	f = fdopen(fd, "w");
	if (!f) {
		err = errno;
		close(fd);
		unlink(tmp);
		return err;
	}
	if (fill(f, ctx) || fflush(f) || ferror(f) || fsync(fileno(f)))
		err = errno ? errno : EIO;
	if (fclose(f) && !err)
		err = errno;
	/* mkstemp's 0600, as a new file of the user's would be (umask). */
	if (!err) {
		mode_t mask = umask(0);

		umask(mask);
		if (chmod(tmp, 0666 & ~mask) || rename(tmp, path))
			err = errno;
	}
	if (err)
		unlink(tmp);
	return err;
}
