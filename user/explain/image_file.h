/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The file behind a mapping, as the process that maps it sees it. A path
 * alone is not enough: a process in another mount namespace (a container)
 * has its own file at the same path, and a binary deleted or replaced since
 * it was mapped (a memfd, a package upgrade) is not at its path any more.
 * The mapping itself (/proc/PID/map_files/START-END, root only) is the file
 * mapped whatever its name; then the path in the process's root
 * (/proc/PID/root); then the path here, if the process has our root or is
 * gone.
 */
#ifndef SCLAT_IMAGE_FILE_H
#define SCLAT_IMAGE_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <linux/types.h>
#include "explain/map_table.h"

/* A mapping of the file in a process: where to read it through. */
struct map_view {
	pid_t pid; /* 0: no process (the path here) */
	__u64 start, end;
};

#define IMAGE_FILE_WAYS 3

/*
 * Open way nr (0 to IMAGE_FILE_WAYS - 1) to f's file, read-only, if it is a
 * regular file and, where f's inode is known, that inode: the fd (st filled),
 * or -1 when this way does not lead to it. v may be NULL.
 */
int image_file_open(const struct map_file *f, const struct map_view *v, int nr, struct stat *st);

/*
 * path without the " (deleted)" the kernel appends to the name of an
 * unlinked file (once, or more where names were joined): into buf; returns
 * whether it had one.
 */
bool image_path_undeleted(const char *path, char *buf, size_t len);

#endif
