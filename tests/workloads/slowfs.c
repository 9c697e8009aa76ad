// SPDX-License-Identifier: GPL-2.0-only
/*
 * slowfs MOUNTPOINT [--delay-ms D] [--size-mib N]
 *
 * A FUSE file system of one read-only file, MOUNTPOINT/data (N MiB of 'f',
 * default 64), whose every read from the "device" takes D ms (default 2): a
 * storage device whose reads are slow by design, the same on every machine.
 * Reads the page cache holds never reach it; a page evicted
 * (POSIX_FADV_DONTNEED) and read again does, and its reader waits for it as
 * for a disk, in an I/O wait on the page (io_schedule).
 *
 * Runs in the foreground until unmounted (umount MOUNTPOINT) or signalled;
 * single-threaded: one read at a time, each D ms.
 */
#define FUSE_USE_VERSION 31
#include <errno.h>
#include <fuse.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *name = "data";
static unsigned long long size = 64ULL << 20;
static long delay_ms = 2;

static int slow_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
	(void)fi;
	memset(st, 0, sizeof(*st));
	if (!strcmp(path, "/")) {
		st->st_mode = S_IFDIR | 0755;
		st->st_nlink = 2;
		return 0;
	}
	if (path[0] != '/' || strcmp(path + 1, name))
		return -ENOENT;
	st->st_mode = S_IFREG | 0444;
	st->st_nlink = 1;
	st->st_size = (off_t)size;
	return 0;
}

static int slow_readdir(const char *path, void *buf, fuse_fill_dir_t fill, off_t off,
			struct fuse_file_info *fi, enum fuse_readdir_flags flags)
{
	(void)off;
	(void)fi;
	(void)flags;
	if (strcmp(path, "/"))
		return -ENOENT;
	fill(buf, ".", NULL, 0, 0);
	fill(buf, "..", NULL, 0, 0);
	fill(buf, name, NULL, 0, 0);
	return 0;
}

static int slow_open(const char *path, struct fuse_file_info *fi)
{
	if (path[0] != '/' || strcmp(path + 1, name))
		return -ENOENT;
	if ((fi->flags & O_ACCMODE) != O_RDONLY)
		return -EACCES;
	/* The page cache is kept across opens: only evicted pages are read again. */
	fi->keep_cache = 1;
	return 0;
}

static int slow_read(const char *path, char *buf, size_t len, off_t off, struct fuse_file_info *fi)
{
	struct timespec d = { delay_ms / 1000, (delay_ms % 1000) * 1000000L };

	(void)fi;
	if (path[0] != '/' || strcmp(path + 1, name))
		return -ENOENT;
	if (off < 0 || (unsigned long long)off >= size)
		return 0;
	if (len > size - (unsigned long long)off)
		len = size - (unsigned long long)off;
	while (nanosleep(&d, &d) && errno == EINTR)
		;
	memset(buf, 'f', len);
	return (int)len;
}

static const struct fuse_operations ops = {
	.getattr = slow_getattr,
	.readdir = slow_readdir,
	.open = slow_open,
	.read = slow_read,
};

int main(int argc, char **argv)
{
	const char *mnt = NULL;
	char *fargs[8];
	int i, n = 0;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--delay-ms") && i + 1 < argc)
			delay_ms = atol(argv[++i]);
		else if (!strcmp(argv[i], "--size-mib") && i + 1 < argc)
			size = strtoull(argv[++i], NULL, 10) << 20;
		else if (argv[i][0] != '-' && !mnt)
			mnt = argv[i];
		else
			mnt = NULL, i = argc;
	}
	if (!mnt || delay_ms < 0 || !size) {
		fprintf(stderr, "usage: slowfs MOUNTPOINT [--delay-ms D] [--size-mib N]\n");
		return 2;
	}
	fargs[n++] = argv[0];
	fargs[n++] = "-f"; /* foreground: its caller ends it by pid */
	fargs[n++] = "-s"; /* one thread: one read at a time */
	fargs[n++] = "-o";
	fargs[n++] = "fsname=slowfs,default_permissions";
	fargs[n++] = (char *)mnt;
	fargs[n] = NULL;
	return fuse_main(n, fargs, &ops, NULL);
}
