// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "proc_stat.h"
#include "proc_tasks.h"

/* Room for the whole line: a 64-byte name and 52 numbers of at most 20 digits. */
#define PROC_STAT_LINE_MAX 1536

int proc_stat_parse(const char *line, struct proc_stat *st)
{
	const char *open = strchr(line, '('), *close = strrchr(line, ')');
	size_t len;
	char *end;
	long pid;

	if (!open || !close || close < open)
		return -EINVAL;
	errno = 0;
	pid = strtol(line, &end, 10);
	if (end == line || errno || pid < 0)
		return -EINVAL;
	st->pid = pid;
	len = close - open - 1;
	if (len >= sizeof(st->comm))
		len = sizeof(st->comm) - 1;
	memcpy(st->comm, open + 1, len);
	st->comm[len] = '\0';
	/* Field 3 (state) follows the last ')'; the start time is field 22. */
	if (sscanf(close + 1,
		   " %c %d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d "
		   "%*d %*d %llu",
		   &st->state, &st->ppid, &st->start_time) != 3)
		return -EINVAL;
	return 0;
}

int proc_stat_read(pid_t pid, struct proc_stat *st)
{
	char path[32], line[PROC_STAT_LINE_MAX];
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	n = fread(line, 1, sizeof(line) - 1, f);
	fclose(f);
	line[n] = '\0';
	return proc_stat_parse(line, st);
}

unsigned long long process_start_time(pid_t pid)
{
	struct proc_stat st;

	return proc_stat_read(pid, &st) ? 0 : st.start_time;
}

bool pid_vacant(pid_t pid)
{
	return pid > 0 && kill(pid, 0) && errno == ESRCH;
}

int proc_exe_id(pid_t pid, unsigned long long *dev, unsigned long long *ino)
{
	char path[32];
	struct stat sb;

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	if (stat(path, &sb))
		return -errno;
	*dev = (unsigned long long)sb.st_dev;
	*ino = (unsigned long long)sb.st_ino;
	return 0;
}

/* Whether file f (a thread's comm) says comm. */
static int comm_says(FILE *f, void *comm)
{
	char name[PROC_STAT_COMM_MAX];

	if (!fgets(name, sizeof(name), f))
		return 0;
	name[strcspn(name, "\n")] = '\0';
	return !strcmp(name, comm);
}

bool proc_thread_named(pid_t pid, const char *comm)
{
	return proc_task_files(pid, "comm", PROC_THREADS_LOOKED, comm_says, (void *)comm) != 0;
}
