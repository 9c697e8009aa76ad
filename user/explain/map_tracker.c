// SPDX-License-Identifier: GPL-2.0-only
/* A map_table kept current from /proc at start and perf side-band records after. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include "util/clock.h"
#include "util/log.h"
#include "explain/map_tracker.h"

struct map_tracker {
	struct map_table *table;
	int ncpus;
	int *fds;
	void **rings; /* per CPU: the metadata page, then data_size bytes */
	size_t data_size;
	char *scratch; /* a record that wraps around the end of its ring */
	struct map_tracker_stats st;
};

/* What sample_id_all appends to every record: PERF_SAMPLE_TID | PERF_SAMPLE_TIME. */
struct sample_id {
	__u32 pid, tid;
	__u64 time;
};

struct record_mmap2 {
	struct perf_event_header header;
	__u32 pid, tid;
	__u64 addr, len, pgoff;
	union {
		struct {
			__u32 maj, min;
			__u64 ino, ino_generation;
		};
		struct {
			__u8 build_id_size;
			__u8 __reserved_1;
			__u16 __reserved_2;
			__u8 build_id[20];
		};
	};
	__u32 prot, flags;
	char filename[];
};

struct record_task { /* PERF_RECORD_FORK, PERF_RECORD_EXIT */
	struct perf_event_header header;
	__u32 pid, ppid, tid, ptid;
	__u64 time;
};

struct record_comm {
	struct perf_event_header header;
	__u32 pid, tid;
	char comm[];
};

struct record_lost {
	struct perf_event_header header;
	__u64 id, lost;
};

static int perf_open(int cpu, unsigned int wakeup_bytes)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_DUMMY,
		.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME,
		.sample_id_all = 1,
		.mmap = 1, /* executable mappings only: data ones are not unwound */
		.mmap2 = 1,
		.build_id = 1,
		.comm = 1,
		.comm_exec = 1,
		.task = 1,
		.use_clockid = 1,
		.clockid = CLOCK_MONOTONIC, /* bpf_ktime_get_ns()'s clock */
		.watermark = 1,
		.wakeup_watermark = wakeup_bytes,
	};

	return syscall(SYS_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

/* One line of /proc/PID/maps, if executable, into the table as of ts. */
static void maps_line_add(struct map_table *t, pid_t pid, __u64 ts, const char *line)
{
	unsigned long long start, end, pgoff, ino;
	unsigned int maj, min;
	char perms[8];
	int path_at = 0;

	if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &start, &end, perms, &pgoff, &maj,
		   &min, &ino, &path_at) < 7 ||
	    !strchr(perms, 'x') || !path_at)
		return;
	/* Anonymous executable memory (a JIT) has no path: it is named like perf names it. */
	map_table_mmap_inode(t, pid, ts, start, end - start, pgoff,
			     line[path_at] && line[path_at] != '\n' ? line + path_at : "//anon",
			     ino ? makedev(maj, min) : 0, ino);
}

static int maps_scan(struct map_table *t, pid_t pid, __u64 ts)
{
	char path[64], line[4096 + 128];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		maps_line_add(t, pid, ts, line);
	}
	fclose(f);
	return 0;
}

static void procs_scan(struct map_tracker *mt)
{
	__u64 t0 = clock_ns(CLOCK_MONOTONIC);
	struct dirent *d;
	DIR *dir;

	dir = opendir("/proc");
	if (!dir)
		return;
	while ((d = readdir(dir))) {
		if (!isdigit((unsigned char)d->d_name[0]))
			continue;
		if (!maps_scan(mt->table, atoi(d->d_name), 0))
			mt->st.scanned_procs++;
	}
	closedir(dir);
	mt->st.scan_ns = clock_ns(CLOCK_MONOTONIC) - t0;
}

static void record_apply(struct map_tracker *mt, const struct perf_event_header *h)
{
	const struct sample_id *sid = (const void *)((const char *)h + h->size - sizeof(*sid));
	const struct record_mmap2 *m;
	const struct record_task *task;
	const struct record_lost *lost;

	mt->st.records++;
	switch (h->type) {
	case PERF_RECORD_MMAP2:
		m = (const void *)h;
		mt->st.mmaps++;
		if (h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID)
			map_table_mmap(mt->table, m->pid, sid->time, m->addr, m->len, m->pgoff,
				       m->filename, m->build_id, m->build_id_size);
		else
			map_table_mmap_inode(mt->table, m->pid, sid->time, m->addr, m->len,
					     m->pgoff, m->filename,
					     m->ino ? makedev(m->maj, m->min) : 0, m->ino);
		break;
	case PERF_RECORD_FORK:
		task = (const void *)h;
		/* A new thread shares its process's mappings: only new processes count. */
		if (task->pid != task->ppid) {
			mt->st.forks++;
			map_table_fork(mt->table, task->pid, task->ppid, task->time);
		}
		break;
	case PERF_RECORD_EXIT:
		task = (const void *)h;
		if (task->pid == task->tid) {
			mt->st.exits++;
			map_table_exit(mt->table, task->pid, task->time);
		}
		break;
	case PERF_RECORD_COMM:
		if (h->misc & PERF_RECORD_MISC_COMM_EXEC) {
			mt->st.execs++;
			map_table_exec(mt->table, ((const struct record_comm *)h)->pid, sid->time);
		}
		break;
	case PERF_RECORD_LOST:
		lost = (const void *)h;
		mt->st.lost += lost->lost;
		break;
	}
}

static int ring_drain(struct map_tracker *mt, int cpu)
{
	struct perf_event_mmap_page *meta = mt->rings[cpu];
	const char *data = (const char *)meta + meta->data_offset;
	__u64 head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
	__u64 tail = meta->data_tail;
	size_t mask = mt->data_size - 1, at, first;
	const struct perf_event_header *h;
	struct perf_event_header hdr;
	int n = 0;

	while (tail < head) {
		at = tail & mask;
		/* The header itself may be split by the end of the ring. */
		first = mt->data_size - at;
		if (first >= sizeof(hdr)) {
			memcpy(&hdr, data + at, sizeof(hdr));
		} else {
			memcpy(&hdr, data + at, first);
			memcpy((char *)&hdr + first, data, sizeof(hdr) - first);
		}
		if (hdr.size < sizeof(hdr) || hdr.size > mt->data_size)
			break; /* not a record: stop here rather than read garbage */
		if (first >= hdr.size) {
			h = (const void *)(data + at);
		} else {
			memcpy(mt->scratch, data + at, first);
			memcpy(mt->scratch + first, data, hdr.size - first);
			h = (const void *)mt->scratch;
		}
		if (hdr.size >= sizeof(hdr) + sizeof(struct sample_id))
			record_apply(mt, h);
		tail += hdr.size;
		n++;
	}
	__atomic_store_n(&meta->data_tail, tail, __ATOMIC_RELEASE);
	return n;
}

int map_tracker_drain(struct map_tracker *mt)
{
	int cpu, n = 0;

	for (cpu = 0; cpu < mt->ncpus; cpu++)
		if (mt->rings[cpu])
			n += ring_drain(mt, cpu);
	return n;
}

int map_tracker_open(struct map_tracker **mtp, struct map_table *table,
		     const struct map_tracker_opts *opts)
{
	unsigned int pages = opts && opts->pages_per_cpu ? opts->pages_per_cpu : 64;
	long page = sysconf(_SC_PAGESIZE);
	struct map_tracker *mt;
	int cpu, err;

	*mtp = NULL;
	if (pages & (pages - 1)) {
		log_err("map tracker: %u pages per CPU: not a power of two", pages);
		return -EINVAL;
	}
	mt = calloc(1, sizeof(*mt));
	if (!mt)
		return -ENOMEM;
	mt->table = table;
	mt->ncpus = sysconf(_SC_NPROCESSORS_CONF);
	mt->data_size = (size_t)pages * page;
	mt->fds = calloc(mt->ncpus, sizeof(*mt->fds));
	mt->rings = calloc(mt->ncpus, sizeof(*mt->rings));
	mt->scratch = malloc(mt->data_size);
	if (!mt->fds || !mt->rings || !mt->scratch) {
		err = -ENOMEM;
		goto fail;
	}
	for (cpu = 0; cpu < mt->ncpus; cpu++)
		mt->fds[cpu] = -1;
	for (cpu = 0; cpu < mt->ncpus; cpu++) {
		mt->fds[cpu] = perf_open(cpu, mt->data_size / 4);
		if (mt->fds[cpu] < 0) {
			err = -errno;
			/* An offline CPU has no events to give: skip it. */
			if (err == -ENODEV)
				continue;
			log_err("perf_event_open (mmap records, CPU %d): %s", cpu, strerror(-err));
			goto fail;
		}
		mt->rings[cpu] = mmap(NULL, page + mt->data_size, PROT_READ | PROT_WRITE,
				      MAP_SHARED, mt->fds[cpu], 0);
		if (mt->rings[cpu] == MAP_FAILED) {
			err = -errno;
			mt->rings[cpu] = NULL;
			log_err("mmap of the perf buffer (CPU %d): %s", cpu, strerror(-err));
			goto fail;
		}
	}
	if (!opts || !opts->no_scan)
		procs_scan(mt);
	*mtp = mt;
	return 0;
fail:
	map_tracker_close(mt);
	return err;
}

int map_tracker_fds(const struct map_tracker *mt, const int **fds)
{
	*fds = mt->fds;
	return mt->ncpus;
}

int map_tracker_scan_late(struct map_tracker *mt, pid_t pid, __u64 ts)
{
	int err = maps_scan(mt->table, pid, ts);

	if (!err)
		mt->st.late_scans++;
	return err;
}

void map_tracker_stats(const struct map_tracker *mt, struct map_tracker_stats *st)
{
	*st = mt->st;
}

void map_tracker_close(struct map_tracker *mt)
{
	long page = sysconf(_SC_PAGESIZE);
	int cpu;

	if (!mt)
		return;
	for (cpu = 0; cpu < mt->ncpus; cpu++) {
		if (mt->rings && mt->rings[cpu])
			munmap(mt->rings[cpu], page + mt->data_size);
		if (mt->fds && mt->fds[cpu] >= 0)
			close(mt->fds[cpu]);
	}
	free(mt->scratch);
	free(mt->rings);
	free(mt->fds);
	free(mt);
}
