// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>
#include "cgroup_path.h"

/* The handle cgroupfs (kernfs) gives a directory: its 64-bit id, the BPF cgroup id. */
#define FILEID_KERNFS 0xfe

struct cgroup_paths {
	int mount_fd;
	size_t prefix; /* the mount point's length in the paths the kernel gives: stripped */
};

/* The mount point of the first cgroup2 mount in mountinfo, in buf; -ENOENT if none. */
static int cgroup2_mount_point(char *buf, size_t len)
{
	char line[4096], point[4096], fstype[64];
	FILE *f = fopen("/proc/self/mountinfo", "re");
	int err = -ENOENT;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		const char *sep = strstr(line, " - ");

		/* id parent major:minor root point options ... - fstype source ... */
		if (!sep || sscanf(line, "%*s %*s %*s %*s %4095s", point) != 1 ||
		    sscanf(sep + 3, "%63s", fstype) != 1 || strcmp(fstype, "cgroup2"))
			continue;
		/* Octal escapes (\040) in a mount point: not worth decoding, use the next way. */
		if (strchr(point, '\\'))
			continue;
		snprintf(buf, len, "%s", point);
		err = 0;
		break;
	}
	fclose(f);
	return err;
}

/* A detached cgroup2 mount (no mount table entry): paths read from its root. */
static int cgroup2_mount_detached(void)
{
	int fs = fsopen("cgroup2", FSOPEN_CLOEXEC), mnt, err;

	if (fs < 0)
		return -errno;
	if (fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0) {
		err = -errno;
		close(fs);
		return err;
	}
	mnt = fsmount(fs, FSMOUNT_CLOEXEC, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOEXEC);
	err = mnt < 0 ? -errno : 0;
	close(fs);
	if (err)
		return err;
	/* fsmount() gives an O_PATH descriptor, which open_by_handle_at() refuses. */
	fs = openat(mnt, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	err = fs < 0 ? -errno : fs;
	close(mnt);
	return err;
}

struct cgroup_paths *cgroup_paths_open(void)
{
	struct cgroup_paths *cp = calloc(1, sizeof(*cp));
	char point[4096];
	int err;

	if (!cp)
		return NULL;
	if (!cgroup2_mount_point(point, sizeof(point))) {
		cp->mount_fd = open(point, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		cp->prefix = strcmp(point, "/") ? strlen(point) : 0;
		if (cp->mount_fd >= 0)
			return cp;
	}
	cp->prefix = 0;
	cp->mount_fd = cgroup2_mount_detached();
	if (cp->mount_fd >= 0)
		return cp;
	err = -cp->mount_fd;
	free(cp);
	errno = err;
	return NULL;
}

void cgroup_paths_close(struct cgroup_paths *cp)
{
	if (!cp)
		return;
	close(cp->mount_fd);
	free(cp);
}

int cgroup_path_of(struct cgroup_paths *cp, __u64 id, char *buf, size_t len)
{
	union {
		struct file_handle fh;
		char bytes[sizeof(struct file_handle) + sizeof(__u64)];
	} h;
	char link[64], path[4096];
	const char *rel;
	size_t n;
	ssize_t got;
	int fd;

	if (!cp || !len)
		return -EINVAL;
	h.fh.handle_bytes = sizeof(id);
	h.fh.handle_type = FILEID_KERNFS;
	memcpy(h.fh.f_handle, &id, sizeof(id));
	fd = open_by_handle_at(cp->mount_fd, &h.fh, O_PATH | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	got = readlink(link, path, sizeof(path) - 1);
	close(fd);
	if (got < 0)
		return -errno;
	path[got] = '\0';
	rel = (size_t)got >= cp->prefix ? path + cp->prefix : path;
	if (!*rel)
		rel = "/";
	n = strlen(rel);
	if (n < len)
		snprintf(buf, len, "%s", rel);
	else if (len > 4)
		snprintf(buf, len, "...%s", rel + n - (len - 4));
	else
		buf[0] = '\0';
	return 0;
}
