// SPDX-License-Identifier: GPL-2.0-only
/* What sclat reads of a trace's files without decoding it: the index, the metadata packets. */
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include "unit.h"
#include "util/ctf_index.h"
#include "util/ctf_metadata.h"

#define FIXTURE	    "tests/fixtures/sclat-trace/ust/uid/0/64-bit"
#define STREAM_SIZE 12288 /* bytes of each stream of the fixture: one packet */

/* A copy of the first len bytes of a fixture file in dir (made with mkdtemp), as name. */
static void copy_cut(const char *from, const char *dir, const char *name, long len)
{
	char path[256], buf[65536];
	FILE *in = fopen(from, "rb"), *out;
	size_t n;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	out = fopen(path, "wb");
	n = in ? fread(buf, 1, sizeof(buf), in) : 0;
	fwrite(buf, 1, len < (long)n ? (size_t)len : n, out);
	fclose(out);
	if (in)
		fclose(in);
}

static void test_index_of_the_fixture(void)
{
	struct ctf_index_entry *e = NULL;
	size_t n = 0;

	CHECK_EQ_INT(ctf_index_read(FIXTURE "/index/sclat_0.idx", STREAM_SIZE, &e, &n, NULL), 0);
	CHECK_EQ_U64(n, 1);
	if (n == 1) {
		CHECK_EQ_U64(e[0].offset, 0);
		CHECK_EQ_U64(e[0].packet_size, 98304);
		CHECK_EQ_U64(e[0].content_size, 88800);
		CHECK_EQ_U64(e[0].timestamp_begin, 1169940424226ULL);
		CHECK_EQ_U64(e[0].timestamp_end, 1170457902978ULL);
		CHECK_EQ_U64(e[0].events_discarded, 0);
		CHECK_EQ_U64(e[0].packet_seq_num, 0);
	}
	free(e);
	CHECK_EQ_INT(ctf_index_read(FIXTURE "/index/sclat_1.idx", STREAM_SIZE, &e, &n, NULL), 0);
	CHECK(n == 1 && e[0].stream_instance_id == 1, "sclat_1: %zu entries", n);
	free(e);
}

static void test_damaged_index_is_refused(void)
{
	char dir[] = "/tmp/sclat-test-ctf.XXXXXX", path[256];
	struct ctf_index_entry *e = NULL;
	const char *why = NULL;
	size_t n = 0;

	if (!CHECK(mkdtemp(dir), "mkdtemp"))
		return;
	/* Cut inside its one entry: the writer stopped halfway. */
	copy_cut(FIXTURE "/index/sclat_0.idx", dir, "cut.idx", 50);
	snprintf(path, sizeof(path), "%s/cut.idx", dir);
	CHECK_EQ_INT(ctf_index_read(path, STREAM_SIZE, &e, &n, &why), -EINVAL);
	CHECK_STR(why, "ends inside an entry");
	/* Not an index at all. */
	copy_cut(FIXTURE "/metadata", dir, "meta.idx", 4096);
	snprintf(path, sizeof(path), "%s/meta.idx", dir);
	CHECK_EQ_INT(ctf_index_read(path, STREAM_SIZE, &e, &n, &why), -EINVAL);
	CHECK_STR(why, "not an index (bad magic number)");
	/* A header and no entry: an empty stream, which is fine. */
	copy_cut(FIXTURE "/index/sclat_0.idx", dir, "empty.idx", 16);
	snprintf(path, sizeof(path), "%s/empty.idx", dir);
	CHECK(ctf_index_read(path, STREAM_SIZE, &e, &n, NULL) == 0 && n == 0,
	      "header only: %zu entries", n);
	free(e);
	snprintf(path, sizeof(path), "%s/missing.idx", dir);
	CHECK_EQ_INT(ctf_index_read(path, STREAM_SIZE, &e, &n, NULL), -ENOENT);
	snprintf(path, sizeof(path), "rm -r %s", dir);
	CHECK(!system(path), "%s", path);
}

static void test_metadata_whole_or_not(void)
{
	char dir[] = "/tmp/sclat-test-ctf.XXXXXX", cmd[300];

	CHECK_EQ_INT(ctf_metadata_whole(FIXTURE), 0);
	if (!CHECK(mkdtemp(dir), "mkdtemp"))
		return;
	copy_cut(FIXTURE "/metadata", dir, "metadata", 300);
	CHECK_EQ_INT(ctf_metadata_whole(dir), -1);
	copy_cut(FIXTURE "/metadata", dir, "metadata", 0);
	CHECK_EQ_INT(ctf_metadata_whole(dir), -1);
	snprintf(cmd, sizeof(cmd), "rm -r %s", dir);
	CHECK(!system(cmd), "%s", cmd);
}

/* A file of a trace that is not a regular file is refused, and opening it does not block. */
static void test_fifos_are_refused(void)
{
	char dir[] = "/tmp/sclat-test-ctf.XXXXXX", path[256], why[256];
	struct ctf_index_entry *e = NULL;
	const char *what = NULL;
	size_t n = 0;

	if (!CHECK(mkdtemp(dir), "mkdtemp"))
		return;
	snprintf(path, sizeof(path), "%s/metadata", dir);
	CHECK(!mkfifo(path, 0600), "mkfifo %s", path);
	CHECK_STR(ctf_metadata_problem(dir), "not a regular file (a FIFO)");
	CHECK_EQ_INT(ctf_metadata_whole(dir), -1);
	unlink(path);
	CHECK(!mkdir(path, 0700), "mkdir %s", path);
	CHECK_STR(ctf_metadata_problem(dir), "not a regular file (a directory)");
	rmdir(path);

	snprintf(path, sizeof(path), "%s/sclat_0.idx", dir);
	CHECK(!mkfifo(path, 0600), "mkfifo %s", path);
	CHECK_EQ_INT(ctf_index_read(path, STREAM_SIZE, &e, &n, &what), -EINVAL);
	CHECK_STR(what, "not a regular file (a FIFO)");
	/* In a trace: the stream is there, its index is a FIFO. */
	copy_cut(FIXTURE "/sclat_0", dir, "sclat_0", STREAM_SIZE);
	snprintf(path, sizeof(path), "%s/index", dir);
	CHECK(!mkdir(path, 0700), "mkdir %s", path);
	snprintf(path, sizeof(path), "%s/index/sclat_0.idx", dir);
	CHECK(!mkfifo(path, 0600), "mkfifo %s", path);
	CHECK_EQ_INT(ctf_index_check(dir, why, sizeof(why)), -1);
	CHECK_STR(why, "index/sclat_0.idx: not a regular file (a FIFO)");
	snprintf(path, sizeof(path), "rm -r %s", dir);
	CHECK(!system(path), "%s", path);
}

/*
 * An index cannot list more packets than its stream has room for: a huge
 * one (here 18 GiB, sparse) is refused from its size, before its entries
 * are read or held.
 */
static void test_huge_index_is_refused_unread(void)
{
	char dir[] = "/tmp/sclat-test-ctf.XXXXXX", path[256], why[256];
	struct ctf_index_entry *e = NULL;
	const char *what = NULL;
	size_t n = 0;
	FILE *f;

	if (!CHECK(mkdtemp(dir), "mkdtemp"))
		return;
	copy_cut(FIXTURE "/sclat_0", dir, "sclat_0", STREAM_SIZE);
	snprintf(path, sizeof(path), "%s/index", dir);
	CHECK(!mkdir(path, 0700), "mkdir %s", path);
	copy_cut(FIXTURE "/index/sclat_0.idx", path, "sclat_0.idx", 16);
	snprintf(path, sizeof(path), "%s/index/sclat_0.idx", dir);
	f = fopen(path, "r+b");
	CHECK(f && !ftruncate(fileno(f), 16 + 72ULL * (1ULL << 28)), "ftruncate %s", path);
	if (f)
		fclose(f);
	CHECK_EQ_INT(ctf_index_read(path, STREAM_SIZE, &e, &n, &what), -EINVAL);
	CHECK_STR(what, "more entries than its stream has room for packets");
	CHECK(!e && !n, "%zu entries kept", n);
	CHECK_EQ_INT(ctf_index_check(dir, why, sizeof(why)), -1);
	CHECK_STR(why, "index/sclat_0.idx: more entries than its stream has room for packets");
	snprintf(path, sizeof(path), "rm -r %s", dir);
	CHECK(!system(path), "%s", path);
}

int main(void)
{
	RUN(test_index_of_the_fixture);
	RUN(test_damaged_index_is_refused);
	RUN(test_metadata_whole_or_not);
	RUN(test_fifos_are_refused);
	RUN(test_huge_index_is_refused_unread);
	return unit_done();
}
