// SPDX-License-Identifier: GPL-2.0-only
/* A file of each thread of a process (proc_tasks.h). */
#include <dirent.h>
#include "proc_tasks.h"

int proc_task_files(pid_t pid, const char *name, unsigned int max, int (*fn)(FILE *f, void *ctx),
		    void *ctx)
{
	char path[96];
	unsigned int looked = 0;
	struct dirent *d;
	int ret = 0;
	DIR *tasks;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	tasks = opendir(path);
	if (!tasks)
		return 0;
	while (!ret && (d = readdir(tasks))) {
		if (d->d_name[0] < '0' || d->d_name[0] > '9')
			continue;
		if (max && ++looked > max) {
			ret = PROC_TASKS_MORE;
			break;
		}
		snprintf(path, sizeof(path), "/proc/%d/task/%.16s/%.32s", (int)pid, d->d_name,
			 name);
		f = fopen(path, "re");
		if (!f)
			continue;
		ret = fn(f, ctx);
		fclose(f);
	}
	closedir(tasks);
	return ret;
}
