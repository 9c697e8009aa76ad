// SPDX-License-Identifier: GPL-2.0-only
#include <endian.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ctf_files.h"

#define CTF_METADATA_MAGIC  0x75d11d57U
#define CTF_METADATA_HEADER 37 /* bytes of a metadata packet header */

/*
 * babeltrace2 2.0 loops forever on packetized metadata cut inside a packet:
 * check that every packet the headers announce is there.
 */
int ctf_metadata_whole(const char *dir)
{
	unsigned char h[CTF_METADATA_HEADER];
	char path[PATH_MAX];
	long long off = 0, size;
	uint32_t magic, content, packet;
	bool swap;
	FILE *f;
	int ret = -1;

	snprintf(path, sizeof(path), "%s/metadata", dir);
	f = fopen(path, "rb");
	if (!f || fseek(f, 0, SEEK_END) || (size = ftell(f)) < 0)
		goto out;
	ret = size ? 0 : -1;
	while (off < size) {
		if (fseek(f, off, SEEK_SET) || fread(h, sizeof(h), 1, f) != 1) {
			ret = off ? -1 : 0; /* a short text metadata file is fine */
			break;
		}
		memcpy(&magic, h, 4);
		swap = magic == __builtin_bswap32(CTF_METADATA_MAGIC);
		if (magic != CTF_METADATA_MAGIC && !swap)
			break; /* text metadata: babeltrace2 parses it */
		memcpy(&content, h + 24, 4);
		memcpy(&packet, h + 28, 4);
		if (swap) {
			content = __builtin_bswap32(content);
			packet = __builtin_bswap32(packet);
		}
		if (packet < CTF_METADATA_HEADER * 8 || content > packet ||
		    off + packet / 8 > size) {
			ret = -1;
			break;
		}
		off += packet / 8;
	}
out:
	if (f)
		fclose(f);
	return ret;
}

#define CTF_INDEX_MAGIC	  0xC1F1DCC1U
#define CTF_INDEX_HEADER  16 /* magic, major, minor, entry length: 32 bits each */
#define CTF_INDEX_1_0_LEN 56 /* offset to stream_id */
#define CTF_INDEX_FIELDS  9

int ctf_index_read(const char *path, struct ctf_index_entry **entries, size_t *n)
{
	unsigned char h[CTF_INDEX_HEADER], *buf = NULL;
	struct ctf_index_entry *e = NULL;
	uint32_t w[4], len;
	__u64 v[CTF_INDEX_FIELDS];
	size_t nr = 0, cap = 0, got, k, fields;
	FILE *f;
	int err = 0;

	*entries = NULL;
	*n = 0;
	f = fopen(path, "rb");
	if (!f)
		return -errno;
	if (fread(h, sizeof(h), 1, f) != 1) {
		err = -EINVAL;
		goto out;
	}
	memcpy(w, h, sizeof(w));
	len = be32toh(w[3]);
	/* Big-endian on every machine; later minors only add fields at the end. */
	if (be32toh(w[0]) != CTF_INDEX_MAGIC || be32toh(w[1]) != 1 || len < CTF_INDEX_1_0_LEN ||
	    len > 4096) {
		err = -EINVAL;
		goto out;
	}
	buf = malloc(len);
	if (!buf) {
		err = -ENOMEM;
		goto out;
	}
	fields = len / 8 < CTF_INDEX_FIELDS ? len / 8 : CTF_INDEX_FIELDS;
	while ((got = fread(buf, 1, len, f)) == len) {
		if (nr == cap) {
			struct ctf_index_entry *grown;

			cap = cap ? 2 * cap : 64;
			grown = realloc(e, cap * sizeof(*e));
			if (!grown) {
				err = -ENOMEM;
				goto out;
			}
			e = grown;
		}
		memset(v, 0, sizeof(v));
		for (k = 0; k < fields; k++) {
			memcpy(&v[k], buf + 8 * k, 8);
			v[k] = be64toh(v[k]);
		}
		e[nr] = (struct ctf_index_entry){
			.offset = v[0],
			.packet_size = v[1],
			.content_size = v[2],
			.timestamp_begin = v[3],
			.timestamp_end = v[4],
			.events_discarded = v[5],
			.stream_id = v[6],
			.stream_instance_id = v[7],
			.packet_seq_num = fields > 8 ? v[8] : nr,
		};
		nr++;
	}
	if (got || ferror(f))
		err = -EINVAL;
out:
	fclose(f);
	free(buf);
	if (err) {
		free(e);
		return err;
	}
	*entries = e;
	*n = nr;
	return 0;
}
