// SPDX-License-Identifier: GPL-2.0-only
/*
 * Only regular files are opened: checked by stat before open (a device is
 * never opened), opened with O_NONBLOCK (a FIFO swapped in between does not
 * block), and checked again by fstat on what was opened.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include "trace_file.h"

static const char *not_regular(mode_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFIFO:
		return "not a regular file (a FIFO)";
	case S_IFDIR:
		return "not a regular file (a directory)";
	case S_IFSOCK:
		return "not a regular file (a socket)";
	case S_IFCHR:
		return "not a regular file (a character device)";
	case S_IFBLK:
		return "not a regular file (a block device)";
	default:
		return "not a regular file";
	}
}

int trace_file_open(const char *path, struct stat *st, const char **why)
{
	const char *reason = NULL;
	struct stat before;
	int fd = -1, err = 0;

	if (stat(path, &before))
		err = -errno;
	else if (!S_ISREG(before.st_mode))
		reason = not_regular(before.st_mode);
	else if ((fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)) < 0)
		err = -errno;
	else if (fstat(fd, st))
		err = -errno;
	else if (!S_ISREG(st->st_mode))
		reason = not_regular(st->st_mode);
	if (reason)
		err = -EINVAL;
	if (err && fd >= 0)
		close(fd);
	if (why)
		*why = reason ? reason : err ? strerror(-err) : NULL;
	return err ? err : fd;
}

FILE *trace_file_fopen(const char *path, struct stat *st, const char **why)
{
	int fd = trace_file_open(path, st, why), err;
	FILE *f;

	if (fd < 0) {
		errno = -fd;
		return NULL;
	}
	f = fdopen(fd, "rb");
	if (!f) {
		err = errno;
		if (why)
			*why = strerror(err);
		close(fd);
		errno = err;
	}
	return f;
}
