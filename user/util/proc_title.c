// SPDX-License-Identifier: GPL-2.0-only
/* A process's title from /proc/PID/cmdline (proc_title.h), bounded. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "proc_title.h"

char *proc_title_of(const char *cmdline, size_t n, char *buf, size_t len)
{
	size_t i, used = 0;

	if (!len)
		return buf;
	if (len > PROC_TITLE_LEN)
		len = PROC_TITLE_LEN;
	for (i = 0; i < n && used + 1 < len; i++)
		buf[used++] = cmdline[i] ? cmdline[i] : ' ';
	/* An argv area written over ends in NULs (now blanks), or the title's own blanks. */
	while (used && buf[used - 1] == ' ')
		used--;
	buf[used] = '\0';
	return buf;
}

bool proc_title_is_set(const char *title)
{
	size_t n = title ? strcspn(title, " ") : 0;

	return n > 1 && title[n - 1] == ':';
}

char *proc_title_read(pid_t pid, char *buf, size_t len)
{
	char path[32], raw[PROC_TITLE_LEN];
	ssize_t n = -1;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		/* One read of the first bytes: the kernel copies them from the task's memory. */
		n = read(fd, raw, sizeof(raw));
		close(fd);
	}
	return proc_title_of(raw, n > 0 ? (size_t)n : 0, buf, len);
}
