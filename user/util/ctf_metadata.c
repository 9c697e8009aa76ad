// SPDX-License-Identifier: GPL-2.0-only
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "ctf_metadata.h"

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
