// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "ctf_metadata.h"
#include "trace_file.h"

#define CTF_METADATA_MAGIC  0x75d11d57U
#define CTF_METADATA_HEADER 37 /* bytes of a metadata packet header */

/*
 * babeltrace2 2.0 loops forever on packetized metadata cut inside a packet:
 * check that every packet the headers announce is there. A FIFO would block
 * it (and us) in fopen: only a regular file is opened.
 */
const char *ctf_metadata_problem(const char *dir)
{
	unsigned char h[CTF_METADATA_HEADER];
	char path[PATH_MAX];
	long long off = 0, size;
	uint32_t magic, content, packet;
	const char *why = NULL;
	struct stat st;
	bool swap;
	FILE *f;

	if ((size_t)snprintf(path, sizeof(path), "%s/metadata", dir) >= sizeof(path))
		return strerror(ENAMETOOLONG);
	f = trace_file_fopen(path, &st, &why);
	if (!f)
		return why;
	size = st.st_size;
	if (!size)
		why = "empty";
	while (!why && off < size) {
		if (fseek(f, off, SEEK_SET) || fread(h, sizeof(h), 1, f) != 1) {
			/* a short text metadata file is fine */
			why = off ? "ends inside a packet" : NULL;
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
		if (packet < CTF_METADATA_HEADER * 8 || content > packet)
			why = "has a packet of impossible sizes";
		else if (off + packet / 8 > size)
			why = "ends inside a packet";
		off += packet / 8;
	}
	fclose(f);
	return why;
}

int ctf_metadata_whole(const char *dir)
{
	return ctf_metadata_problem(dir) ? -1 : 0;
}
