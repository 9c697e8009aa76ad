/* SPDX-License-Identifier: GPL-2.0-only */
/* The path of a cgroup v2 directory from its id, as the BPF side reads it. */
#ifndef SCLAT_CGROUP_PATH_H
#define SCLAT_CGROUP_PATH_H

#include <stddef.h>
#include <linux/types.h>

struct cgroup_paths;

/*
 * The cgroup v2 hierarchy: the mount /proc/self/mountinfo lists, or a
 * detached mount of its own when there is none. NULL (errno) when neither.
 */
struct cgroup_paths *cgroup_paths_open(void);
void cgroup_paths_close(struct cgroup_paths *cp);

/*
 * The path of cgroup id below the hierarchy's root ("/" for the root,
 * "/system.slice/foo.service"), in buf; the end of a longer one, after
 * "...". -errno when the cgroup is gone or cp is NULL.
 */
int cgroup_path_of(struct cgroup_paths *cp, __u64 id, char *buf, size_t len);

#endif
