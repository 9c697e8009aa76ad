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
#include "trace_file.h"

#define INDEX_MAGIC	 0xc1f1dcc1U
#define INDEX_HEADER	 16
#define INDEX_ENTRY_MIN	 56   /* version 1.0 */
#define INDEX_ENTRY_MAX	 4096 /* later versions may add fields, not pages */
#define INDEX_FIELDS	 9    /* the 64-bit fields of version 1.1 */
/* The smallest packet an index describes: LTTng's packet header (magic, uuid, stream ids). */
#define INDEX_PACKET_MIN 32

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

/* An open index file, read one entry at a time. */
struct index_reader {
	FILE *f;
	uint32_t entry_size;
	size_t fields; /* of INDEX_FIELDS, that its entries hold */
	size_t rank;   /* of the next entry */
	uint64_t n;    /* entries in the file */
};

/*
 * The header of the index file f of st.st_size bytes, for a stream of
 * stream_size bytes: NULL, or why it is refused. An index cannot describe
 * more packets than its stream holds, each at least a packet header long: a
 * larger one is refused before any entry is read.
 */
static const char *index_start(struct index_reader *r, FILE *f, const struct stat *st,
			       uint64_t stream_size)
{
	unsigned char h[INDEX_HEADER];
	uint64_t body;

	*r = (struct index_reader){ .f = f };
	if (fread(h, 1, sizeof(h), f) != sizeof(h))
		return "shorter than its header";
	if (be32_at(h) != INDEX_MAGIC)
		return "not an index (bad magic number)";
	if (be32_at(h + 4) != 1)
		return "an index version this reader does not know";
	r->entry_size = be32_at(h + 12);
	if (r->entry_size < INDEX_ENTRY_MIN || r->entry_size > INDEX_ENTRY_MAX)
		return "entries of an impossible size";
	body = (uint64_t)st->st_size - INDEX_HEADER;
	if (body % r->entry_size)
		return "ends inside an entry";
	r->n = body / r->entry_size;
	if (r->n > stream_size / INDEX_PACKET_MIN)
		return "more entries than its stream has room for packets";
	r->fields = r->entry_size / 8 < INDEX_FIELDS ? r->entry_size / 8 : INDEX_FIELDS;
	return NULL;
}

/* The next entry into *e: 1, 0 at the end, or -1 when the file ends early (it shrank). */
static int index_next(struct index_reader *r, struct ctf_index_entry *e)
{
	unsigned char buf[INDEX_ENTRY_MAX];
	uint64_t v[INDEX_FIELDS] = {};
	size_t k;

	if (r->rank == r->n)
		return 0;
	if (fread(buf, 1, r->entry_size, r->f) != r->entry_size)
		return -1;
	for (k = 0; k < r->fields; k++)
		v[k] = be64_at(buf + 8 * k);
	*e = (struct ctf_index_entry){
		.offset = v[0],
		.packet_size = v[1],
		.content_size = v[2],
		.timestamp_begin = v[3],
		.timestamp_end = v[4],
		.events_discarded = v[5],
		.stream_id = v[6],
		.stream_instance_id = v[7],
		.packet_seq_num = r->fields > 8 ? v[8] : r->rank,
	};
	r->rank++;
	return 1;
}

int ctf_index_read(const char *path, uint64_t stream_size, struct ctf_index_entry **entries,
		   size_t *n, const char **why)
{
	struct index_reader r;
	const char *reason = NULL;
	struct stat st;
	FILE *f = trace_file_fopen(path, &st, &reason);
	int err = 0, got = 0;

	*entries = NULL;
	*n = 0;
	if (!f) {
		err = -errno;
		reason = err == -EINVAL ? reason : NULL;
		goto out;
	}
	reason = index_start(&r, f, &st, stream_size);
	/* Bounded by the stream's size: index_start() refused more. */
	if (!reason && r.n) {
		*entries = calloc(r.n, sizeof(**entries));
		if (!*entries)
			err = -ENOMEM;
	}
	while (!reason && !err && (got = index_next(&r, &(*entries)[*n])) > 0)
		(*n)++;
	if (got < 0)
		reason = "ends inside an entry";
	if (reason && !err)
		err = -EINVAL;
	if (err) {
		free(*entries);
		*entries = NULL;
		*n = 0;
	}
	fclose(f);
out:
	if (why)
		*why = reason;
	return err;
}

/*
 * One index file against its stream of stream_size bytes, an entry at a time
 * (memory does not grow with the file); NULL, or what is wrong.
 */
static const char *index_check(FILE *f, const struct stat *st, uint64_t stream_size, char *buf,
			       size_t len)
{
	struct index_reader r;
	struct ctf_index_entry e;
	const char *what;
	uint64_t next = 0, prev_begin = 0;
	int got = 0;

	what = index_start(&r, f, st, stream_size);
	if (what)
		return what;
	while (!what && (got = index_next(&r, &e)) > 0) {
		if (e.packet_size < 8 * INDEX_PACKET_MIN || e.packet_size % 8 ||
		    e.content_size > e.packet_size)
			what = "has impossible sizes";
		else if (e.offset != next)
			what = "is not where the previous one ends";
		else if (e.packet_size / 8 > stream_size - next)
			what = "ends beyond the stream file";
		else if (e.timestamp_begin > e.timestamp_end || e.timestamp_begin < prev_begin)
			what = "has times out of order";
		if (what) {
			snprintf(buf, len, "packet %zu %s", r.rank - 1, what);
			return buf;
		}
		next += e.packet_size / 8;
		prev_begin = e.timestamp_begin;
	}
	if (got < 0)
		return "ends inside an entry";
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
	struct stat st, ist;
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
		f = trace_file_fopen(path, &ist, &bad);
		if (f) {
			bad = index_check(f, &ist, (uint64_t)st.st_size, buf, sizeof(buf));
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
