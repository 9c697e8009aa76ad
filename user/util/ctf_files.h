/* SPDX-License-Identifier: GPL-2.0-only */
/* What the files of a CTF trace say without decoding an event: metadata packets, packet index. */
#ifndef SCLAT_CTF_FILES_H
#define SCLAT_CTF_FILES_H

#include <stddef.h>
#include <linux/types.h>

/* One packet of a data stream, as LTTng's index (index/STREAM.idx) describes it. */
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
 * Whether DIR/metadata is whole: not empty and, when packetized, holding
 * every packet its headers announce. 0, or -1.
 */
int ctf_metadata_whole(const char *dir);

/*
 * The entries of an index file (CTF index 1.x), in *entries (free() them)
 * and *n. 0, or -errno (-EINVAL: not an index, or cut inside an entry).
 */
int ctf_index_read(const char *path, struct ctf_index_entry **entries, size_t *n);

#endif
