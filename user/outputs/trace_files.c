// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "trace_files.h"
#include "util/ctf_index.h"
#include "util/ctf_metadata.h"
#include "util/log.h"

/* Say what is missing from the trace, in one line. */
static int missing(const char *dir, const char *what, const char *name)
{
	log_warn("%s: the trace is missing %s%s%s", dir, what, name ? " of " : "",
		 name ? name : "");
	return -1;
}

/*
 * The packets a write error or a full disk took away leave their marks in
 * the index: the consumer indexes a packet only once it is written.
 */
static int stream_check(const char *dir, const char *streams, const char *name, __u64 end_ns)
{
	char path[PATH_MAX + 160];
	struct ctf_index_entry *e;
	__u64 at = 0;
	struct stat st;
	size_t n, k;
	int ret = 0;

	snprintf(path, sizeof(path), "%s/%s", streams, name);
	if (stat(path, &st))
		return missing(dir, "every packet", name);
	snprintf(path, sizeof(path), "%s/index/%s.idx", streams, name);
	if (ctf_index_read(path, (__u64)st.st_size, &e, &n, NULL))
		return missing(dir, "the packet index", name);
	if (!n) {
		ret = missing(dir, "every packet", name);
		goto out;
	}
	for (k = 0; k < n && !ret; k++) {
		if (e[k].offset != at || e[k].packet_seq_num != e[0].packet_seq_num + k)
			ret = missing(dir, "packets", name);
		at += e[k].packet_size / 8;
	}
	if (!ret && (__u64)st.st_size != at)
		ret = missing(dir, "the end of a packet", name);
	/* The stop switches every stream to a new packet, events or not. */
	if (!ret && e[n - 1].timestamp_end < end_ns)
		ret = missing(dir, "the last packets", name);
out:
	free(e);
	return ret;
}

int trace_files_check(const char *dir, const char *channel, __u64 end_ns)
{
	char streams[PATH_MAX + 64], name[64];
	int cpu, ncpus = libbpf_num_possible_cpus();

	snprintf(streams, sizeof(streams), "%s/ust/uid/%u/64-bit", dir, geteuid());
	if (ctf_metadata_whole(streams))
		return missing(dir, "its metadata (empty, or cut inside a packet)", NULL);
	for (cpu = 0; cpu < ncpus; cpu++) {
		snprintf(name, sizeof(name), "%s_%d", channel, cpu);
		if (stream_check(dir, streams, name, end_ns))
			return -1;
	}
	return 0;
}
