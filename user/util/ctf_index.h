/* SPDX-License-Identifier: GPL-2.0-only */
/* LTTng's packet index files (DIR/index/STREAM.idx): read, and checked before a reader trusts them.
 */
#ifndef SCLAT_CTF_INDEX_H
#define SCLAT_CTF_INDEX_H

#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>

/* One packet of a data stream, as its index describes it. */
struct ctf_index_entry {
	__u64 offset;		/* in the stream file, bytes */
	__u64 packet_size;	/* bits */
	__u64 content_size;	/* bits */
	__u64 timestamp_begin;	/* clock cycles */
	__u64 timestamp_end;	/* clock cycles */
	__u64 events_discarded; /* by the stream since its start */
	__u64 stream_id;
	__u64 stream_instance_id; /* index 1.1 on, else 0 */
	__u64 packet_seq_num;	  /* index 1.1 on, else the entry's rank */
};

/*
 * The entries of an index file (CTF index 1.x) of a stream of stream_size
 * bytes, as they are, in *entries (free() them) and *n. 0, or -errno;
 * -EINVAL when it is no index, is not a regular file, is cut inside an
 * entry, or has more entries than its stream has room for packets (memory is
 * bounded by the stream's size), and then *why (when not NULL) says which.
 */
int ctf_index_read(const char *path, uint64_t stream_size, struct ctf_index_entry **entries,
		   size_t *n, const char **why);

/*
 * Whether every index file of the CTF trace directory dir describes its data
 * stream exactly: packets one after the other from offset 0 to the end of
 * the stream file, sizes and times that make sense. babeltrace2 2.0 trusts
 * an index it can parse, and aborts on one that points past its stream.
 * Returns 0 (no index is fine), or -1 with the first bad file and why in
 * why ("index/sclat_0.idx: packet 2 ends beyond sclat_0").
 */
int ctf_index_check(const char *dir, char *why, size_t len);

/*
 * The trace of dir, without its index: a new directory under $TMPDIR (or
 * /tmp) of symbolic links to dir's metadata and data streams, its path in
 * out. Returns 0 or a negative errno; ctf_index_bypass_remove() removes it.
 */
int ctf_index_bypass(const char *dir, char *out, size_t len);
void ctf_index_bypass_remove(const char *bypass);

#endif
