// SPDX-License-Identifier: GPL-2.0-only
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>
#include "util/compiler.h"
#include "util/log.h"
#include "trace_dir.h"

/* A trace tells what every traced process did: not for every user to read. */
#define TRACE_DIR_MODE 0750

/*
 * An existing directory: opened without following a symbolic link, so that
 * what is checked is what LTTng will write into. Ours, closed to others,
 * writable, and empty: a trace is never overwritten.
 */
static int existing_check(const char *path)
{
	struct statvfs vfs;
	struct dirent *d;
	struct stat st;
	bool found = false;
	DIR *dir;
	int fd, err;

	fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		err = errno;
		/* Linux says ENOTDIR for a link under O_DIRECTORY | O_NOFOLLOW. */
		if ((err == ELOOP || err == ENOTDIR) && !lstat(path, &st) && S_ISLNK(st.st_mode))
			err = ELOOP;
		if (err == ELOOP)
			log_err("%s: a symbolic link; sclat does not follow one (name "
				"a directory of yours)",
				path);
		else if (err == ENOTDIR)
			log_err("%s: exists and is not a directory", path);
		else
			log_err("%s: %s", path, strerror(err));
		return -err;
	}
	if (fstat(fd, &st) || fstatvfs(fd, &vfs)) {
		log_err("%s: %s", path, strerror(errno));
		close(fd);
		return -EIO;
	}
	if (st.st_uid != geteuid()) {
		log_err("%s: owned by uid %u, not by this user (uid %u): choose a "
			"directory of yours",
			path, st.st_uid, geteuid());
		close(fd);
		return -EPERM;
	}
	/* Whoever can write there can swap what LTTng writes for a link. */
	if ((st.st_mode & S_IWOTH) || ((st.st_mode & S_IWGRP) && st.st_gid != getegid())) {
		log_err("%s: other users can write to it (mode %04o): choose a "
			"directory only you can write to",
			path, st.st_mode & 07777);
		close(fd);
		return -EPERM;
	}
	if (vfs.f_flag & ST_RDONLY) {
		log_err("%s: %s", path, strerror(EROFS));
		close(fd);
		return -EROFS;
	}
	dir = fdopendir(fd);
	if (!dir) {
		log_err("%s: %s", path, strerror(errno));
		close(fd);
		return -EIO;
	}
	while (!found && (d = readdir(dir)))
		found = strcmp(d->d_name, ".") && strcmp(d->d_name, "..");
	closedir(dir);
	if (found) {
		log_err("%s: directory is not empty; refusing to overwrite it "
			"(choose another with -o)",
			path);
		return -EEXIST;
	}
	return 0;
}

static int make_failed(const char *path, int err)
{
	log_err("%s: cannot create the trace directory: %s", path, strerror(err));
	return -err;
}

int trace_dir_prepare(const char *requested, const char *date, char *path, size_t len,
		      bool *created)
{
	char cwd[PATH_MAX];
	size_t n;
	int ret;

	*created = false;
	if (requested && requested[0] == '/') {
		ret = snprintf(path, len, "%s", requested);
	} else {
		if (!getcwd(cwd, sizeof(cwd))) {
			log_err("current directory: %s", strerror(errno));
			return -errno;
		}
		ret = requested ? snprintf(path, len, "%s/%s", cwd, requested)
				: snprintf(path, len, "%s/sclat-trace-%s", cwd, date);
	}
	if (ret < 0 || (size_t)ret >= len) {
		log_err("%s: path too long", requested ? requested : cwd);
		return -ENAMETOOLONG;
	}
	/* "DIR/" would name what a link DIR points to. */
	for (n = strlen(path); n > 1 && path[n - 1] == '/'; n--)
		path[n - 1] = '\0';

	if (!mkdir(path, TRACE_DIR_MODE)) {
		*created = true;
		return 0;
	}
	if (errno != EEXIST)
		return make_failed(path, errno);
	if (requested)
		return existing_check(path);
	/* A predictable name may be taken, by a run in the same second or by someone else. */
	n = strlen(path);
	if ((size_t)snprintf(path + n, len - n, "-%d", getpid()) >= len - n) {
		log_err("%s: path too long", cwd);
		return -ENAMETOOLONG;
	}
	if (!mkdir(path, TRACE_DIR_MODE)) {
		*created = true;
		return 0;
	}
	if (errno != EEXIST)
		return make_failed(path, errno);
	log_err("%s: exists already; name a new directory with -o", path);
	return -EEXIST;
}

static int remove_entry(const char *path, const struct stat *st __always_unused,
			int type __always_unused, struct FTW *ftw __always_unused)
{
	return remove(path) ? -1 : 0;
}

void trace_dir_remove(const char *path)
{
	nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}
