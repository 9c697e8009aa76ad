// SPDX-License-Identifier: GPL-2.0-only
/*
 * What the programs cost: the kernel's BPF stats, on only while asked for,
 * and the maps' kernel memory from /proc/self/fdinfo.
 */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "probes_stats.h"
#include "probes_handle.h"

int probes_stats_sample(struct probes *t, bool on)
{
	int fd;

	if (on == (t->stats_fd >= 0))
		return 0;
	if (!on) {
		close(t->stats_fd);
		t->stats_fd = -1;
		return 0;
	}
	fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	if (fd < 0)
		return -errno;
	t->stats_fd = fd;
	return 0;
}

int probes_prog_stats(struct probes *t, struct probes_prog_stat *out, int max)
{
	struct bpf_program *prog;
	int n = 0;

	bpf_object__for_each_program(prog, t->skel->obj)
	{
		struct bpf_prog_info info = {};
		__u32 len = sizeof(info);
		int fd = bpf_program__fd(prog);

		if (fd < 0 || n >= max)
			continue;
		if (bpf_obj_get_info_by_fd(fd, &info, &len))
			continue;
		out[n].name = bpf_program__name(prog);
		out[n].run_cnt = info.run_cnt;
		out[n].run_time_ns = info.run_time_ns;
		n++;
	}
	return n;
}

static __u64 fd_memlock(int fd)
{
	char path[64], line[256];
	unsigned long long v = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "memlock: %llu", &v) == 1)
			break;
	fclose(f);
	return v;
}

/* Whether a map's memory is all allocated when it is created (else it follows its elements). */
static bool map_sized_at_creation(enum bpf_map_type type)
{
	return type == BPF_MAP_TYPE_ARRAY || type == BPF_MAP_TYPE_PERCPU_ARRAY ||
	       type == BPF_MAP_TYPE_RINGBUF || type == BPF_MAP_TYPE_QUEUE ||
	       type == BPF_MAP_TYPE_CGROUP_ARRAY;
}

int probes_mem(struct probes *t, struct probes_mem *mem)
{
	struct bpf_map *map;

	/* Read every interval: /proc/self/fdinfo only for the maps whose size can change. */
	*mem = t->mem_sized;
	bpf_object__for_each_map(map, t->skel->obj)
	{
		int fd = bpf_map__fd(map);
		bool sized = map_sized_at_creation(bpf_map__type(map));
		struct probes_mem *to = sized ? &t->mem_sized : mem;
		__u64 bytes;

		if (fd < 0 || (sized && t->mem_sized_read))
			continue;
		bytes = fd_memlock(fd);
		if (bpf_map__type(map) == BPF_MAP_TYPE_PERCPU_ARRAY ||
		    bpf_map__type(map) == BPF_MAP_TYPE_PERCPU_HASH) {
			to->per_cpu += bytes / t->ncpus;
		} else if (map == t->skel->maps.bss) {
			/* The CPUs' pages, one each; the rest of .bss is fixed. */
			to->per_cpu += SCLAT_CPU_PAGE_SIZE;
			to->fixed += bytes - (__u64)t->ncpus * SCLAT_CPU_PAGE_SIZE;
		} else if (map == t->skel->maps.wake_notes &&
			   sclat_wake_slots(t->ncpus) > SCLAT_WAKE_SLOTS_MIN) {
			/* Past their minimum, the wakers' notes are sized by the CPUs. */
			to->per_cpu += bytes / t->ncpus;
		} else {
			to->fixed += bytes;
		}
	}
	if (!t->mem_sized_read) {
		t->mem_sized_read = true;
		mem->per_cpu += t->mem_sized.per_cpu;
		mem->fixed += t->mem_sized.fixed;
	}
	return 0;
}
