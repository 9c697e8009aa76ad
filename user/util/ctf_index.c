// SPDX-License-Identifier: GPL-2.0-only
/*
 * An index file is a 16-byte header (magic, major and minor version, entry
 * size) then one entry per packet of the stream, all big-endian 64-bit:
 * offset, packet size and content size (bits), begin and end times, events
 * discarded, stream id, and from version 1.1 stream instance id and packet
 * sequence number. Everything in it is checked against the stream file.
 */
#include <dirent.h>
#include <endian.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "ctf_index.h"

#define INDEX_MAGIC	0xc1f1dcc1U
#define INDEX_HEADER	16
#define INDEX_ENTRY_MIN 56   /* version 1.0 */
#define INDEX_ENTRY_MAX 4096 /* later versions may add fields, not pages */
#define INDEX_FIELDS	9    /* the 64-bit fields of version 1.1 */

static uint64_t be64_at(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return be64toh(v);
}

static uint32_t be32_at(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return be32toh(v);
}

/* The entries of an open index file; 0, -ENOMEM, or -EINVAL with *why. */
static int index_entries(FILE *f, struct ctf_index_entry **entries, size_t *n, const char **why)
{
	unsigned char h[INDEX_HEADER], buf[INDEX_ENTRY_MAX];
	struct ctf_index_entry *e = NULL, *grown;
	uint64_t v[INDEX_FIELDS];
	uint32_t entry_size;
	size_t nr = 0, cap = 0, got, k, fields;

	if (fread(h, 1, sizeof(h), f) != sizeof(h))
		*why = "shorter than its header";
	else if (be32_at(h) != INDEX_MAGIC)
		*why = "not an index (bad magic number)";
	else if (be32_at(h + 4) != 1)
		*why = "an index version this reader does not know";
	else if ((entry_size = be32_at(h + 12)) < INDEX_ENTRY_MIN || entry_size > INDEX_ENTRY_MAX)
		*why = "entries of an impossible size";
	else
		*why = NULL;
	if (*why)
		return -EINVAL;
	fields = entry_size / 8 < INDEX_FIELDS ? entry_size / 8 : INDEX_FIELDS;
	while ((got = fread(buf, 1, entry_size, f)) == entry_size) {
		if (nr == cap) {
			cap = cap ? 2 * cap : 64;
			grown = realloc(e, cap * sizeof(*e));
			if (!grown) {
				free(e);
				return -ENOMEM;
			}
			e = grown;
		}
		memset(v, 0, sizeof(v));
		for (k = 0; k < fields; k++)
			v[k] = be64_at(buf + 8 * k);
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
	if (got) {
		*why = "ends inside an entry";
		free(e);
		return -EINVAL;
	}
	*entries = e;
	*n = nr;
	return 0;
}

int ctf_index_read(const char *path, struct ctf_index_entry **entries, size_t *n, const char **why)
{
	const char *reason = NULL;
	FILE *f = fopen(path, "rb");
	int err;

	*entries = NULL;
	*n = 0;
	if (!f)
		return -errno;
	err = index_entries(f, entries, n, &reason);
	fclose(f);
	if (why)
		*why = reason;
	return err;
}

/* One index file against its stream of stream_size bytes; NULL, or what is wrong. */
static const char *index_check(FILE *f, uint64_t stream_size, char *buf, size_t len)
{
	struct ctf_index_entry *e;
	const char *what = NULL;
	uint64_t next = 0, prev_begin = 0;
	size_t i, n;

	if (index_entries(f, &e, &n, &what))
		return what ? what : strerror(ENOMEM);
	for (i = 0; !what && i < n; i++) {
		if (!e[i].packet_size || e[i].packet_size % 8 ||
		    e[i].content_size > e[i].packet_size)
			what = "has impossible sizes";
		else if (e[i].offset != next)
			what = "is not where the previous one ends";
		else if (e[i].packet_size / 8 > stream_size - next)
			what = "ends beyond the stream file";
		else if (e[i].timestamp_begin > e[i].timestamp_end ||
			 e[i].timestamp_begin < prev_begin)
			what = "has times out of order";
		if (what) {
			snprintf(buf, len, "packet %zu %s", i, what);
			break;
		}
		next += e[i].packet_size / 8;
		prev_begin = e[i].timestamp_begin;
	}
	free(e);
	if (what)
		return buf;
	if (next != stream_size) {
		snprintf(buf, len, "covers %llu of the %llu bytes of its stream",
			 (unsigned long long)next, (unsigned long long)stream_size);
		return buf;
	}
	return NULL;
}

int ctf_index_check(const char *dir, char *why, size_t len)
{
	char index_dir[PATH_MAX], path[PATH_MAX], buf[128];
	const char *bad = NULL;
	struct dirent *de;
	struct stat st;
	size_t n;
	DIR *d;
	FILE *f;

	if ((size_t)snprintf(index_dir, sizeof(index_dir), "%s/index", dir) >= sizeof(index_dir))
		return 0;
	d = opendir(index_dir);
	if (!d)
		return 0;
	while (!bad && (de = readdir(d))) {
		n = strlen(de->d_name);
		if (n <= 4 || strcmp(de->d_name + n - 4, ".idx"))
			continue;
		/* An index without its stream is not read: nothing to check. */
		if ((size_t)snprintf(path, sizeof(path), "%s/%.*s", dir, (int)(n - 4),
				     de->d_name) >= sizeof(path) ||
		    stat(path, &st) || !S_ISREG(st.st_mode))
			continue;
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", index_dir, de->d_name) >=
		    sizeof(path))
			continue;
		f = fopen(path, "rb");
		if (!f) {
			bad = strerror(errno);
		} else {
			bad = index_check(f, (uint64_t)st.st_size, buf, sizeof(buf));
			fclose(f);
		}
		if (bad && (size_t)snprintf(why, len, "index/%s: %s", de->d_name, bad) >= len)
			why[len - 1] = '\0';
	}
	closedir(d);
	return bad ? -1 : 0;
}

void ctf_index_bypass_remove(const char *bypass)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *d = opendir(bypass);

	/* Only what ctf_index_bypass() made: links, in a directory of its own. */
	while (d && (de = readdir(d)))
		if (de->d_type == DT_LNK && (size_t)snprintf(path, sizeof(path), "%s/%s", bypass,
							     de->d_name) < sizeof(path))
			unlink(path);
	if (d)
		closedir(d);
	rmdir(bypass);
}

int ctf_index_bypass(const char *dir, char *out, size_t len)
{
	const char *tmp = getenv("TMPDIR");
	char target[PATH_MAX], link[PATH_MAX], abs_dir[PATH_MAX];
	struct dirent *de;
	struct stat st;
	int err = 0;
	DIR *d;

	if (!realpath(dir, abs_dir))
		return -errno;
	if ((size_t)snprintf(out, len, "%s/sclat-noindex.XXXXXX", tmp && *tmp ? tmp : "/tmp") >=
	    len)
		return -ENAMETOOLONG;
	if (!mkdtemp(out))
		return -errno;
	d = opendir(abs_dir);
	if (!d)
		err = -errno;
	/* The metadata and the streams: every regular file but the index directory. */
	while (!err && (de = readdir(d))) {
		if ((size_t)snprintf(target, sizeof(target), "%s/%s", abs_dir, de->d_name) >=
			    sizeof(target) ||
		    (size_t)snprintf(link, sizeof(link), "%s/%s", out, de->d_name) >= sizeof(link))
			err = -ENAMETOOLONG;
		else if (!stat(target, &st) && S_ISREG(st.st_mode) && symlink(target, link))
			err = -errno;
	}
	if (d)
		closedir(d);
	if (err)
		ctf_index_bypass_remove(out);
	return err;
}
