// SPDX-License-Identifier: GPL-2.0-only
/* Open a mapped binary as its process sees it: the mapping, its root, then ours. */
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "explain/image_file.h"

#define DELETED " (deleted)"

bool image_path_undeleted(const char *path, char *buf, size_t len)
{
	size_t n = strlen(path), d = strlen(DELETED);
	bool deleted = false;

	while (n > d && !memcmp(path + n - d, DELETED, d)) {
		n -= d;
		deleted = true;
	}
	snprintf(buf, len, "%.*s", (int)n, path);
	return deleted;
}

/* Whether process pid has the root directory we have; true when it is gone (or none). */
static bool same_root(pid_t pid)
{
	struct stat ours, theirs;
	char root[32];

	if (!pid)
		return true;
	snprintf(root, sizeof(root), "/proc/%d/root", pid);
	if (stat(root, &theirs))
		return errno == ENOENT || errno == ESRCH;
	return !stat("/", &ours) && ours.st_dev == theirs.st_dev && ours.st_ino == theirs.st_ino;
}

/* path in the root of process pid, its links resolved within that root, not ours. */
static int open_in_root(pid_t pid, const char *path)
{
	struct open_how how = {
		.flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW | O_NOCTTY,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	char root[32];
	int dir, fd;

	snprintf(root, sizeof(root), "/proc/%d/root", pid);
	dir = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0)
		return -1;
	fd = syscall(SYS_openat2, dir, path, &how, sizeof(how));
	close(dir);
	return fd;
}

int image_file_open(const struct map_file *f, const struct map_view *v, int nr, struct stat *st)
{
	/*
	 * The path is the traced process's to choose: what is there now may
	 * be a FIFO (an open would wait for a writer), a device or a link to
	 * one. Only a regular file is read.
	 */
	int flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW | O_NOCTTY;
	pid_t pid = v ? v->pid : 0;
	char path[4096], proc[96];
	int fd = -1;

	if (f->path[0] != '/')
		return -1; /* "//anon", "[heap]": no file */
	image_path_undeleted(f->path, path, sizeof(path));
	switch (nr) {
	case 0: /* the mapping: its file whatever became of its name (the kernel's link) */
		if (!pid)
			return -1;
		snprintf(proc, sizeof(proc), "/proc/%d/map_files/%llx-%llx", pid,
			 (unsigned long long)v->start, (unsigned long long)v->end);
		fd = open(proc, flags & ~O_NOFOLLOW);
		break;
	case 1: /* the path in another root (a container's) */
		if (!pid || same_root(pid))
			return -1;
		fd = open_in_root(pid, path);
		break;
	case 2: /* the path here: the process's own file only if it sees ours */
		if (!same_root(pid))
			return -1;
		fd = open(path, flags);
		break;
	}
	if (fd < 0)
		return -1;
	if (fstat(fd, st) || !S_ISREG(st->st_mode) || (f->ino && st->st_ino != f->ino)) {
		close(fd);
		return -1;
	}
	return fd;
}
