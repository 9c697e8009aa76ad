// SPDX-License-Identifier: GPL-2.0-only
/* The map table: mappings by time, forks, execs, exits, out-of-order records and bounds. */
#include <stdlib.h>
#include "unit.h"
#include "explain/map_table.h"

static const __u8 libc_id[] = { 0x93, 0xac, 0x61, 0xec };

static const char *path_at(const struct map_table *t, pid_t pid, __u64 ts, __u64 addr)
{
	const struct map_entry *m = map_table_find(t, pid, ts, addr);

	return m ? m->file->path : "(none)";
}

static void test_mapping_valid_from_its_time(void)
{
	struct map_table *t = map_table_new(NULL);

	map_table_mmap(t, 100, 10, 0x1000, 0x1000, 0, "/bin/a", NULL, 0);
	/* The same addresses mapped again later: the newer one holds from then on. */
	map_table_mmap(t, 100, 20, 0x1000, 0x1000, 0, "/bin/b", NULL, 0);
	CHECK_STR(path_at(t, 100, 5, 0x1800), "(none)");
	CHECK_STR(path_at(t, 100, 15, 0x1800), "/bin/a");
	CHECK_STR(path_at(t, 100, 25, 0x1800), "/bin/b");
	CHECK_STR(path_at(t, 100, 25, 0x2000), "(none)"); /* end is exclusive */
	CHECK_STR(path_at(t, 101, 25, 0x1800), "(none)");
	map_table_free(t);
}

static void test_build_id_kept_and_files_shared(void)
{
	struct map_table *t = map_table_new(NULL);
	const struct map_entry *a, *b;
	struct map_table_stats st;

	map_table_mmap(t, 1, 0, 0x10000, 0x1000, 0x2000, "/lib/libc.so.6", libc_id,
		       sizeof(libc_id));
	map_table_mmap(t, 2, 0, 0x50000, 0x1000, 0x2000, "/lib/libc.so.6", libc_id,
		       sizeof(libc_id));
	a = map_table_find(t, 1, 1, 0x10010);
	b = map_table_find(t, 2, 1, 0x50010);
	if (!CHECK(a && b, "both mappings found"))
		goto out;
	CHECK(a->file == b->file, "one map_file for one path and build-id");
	CHECK_EQ_INT(a->file->build_id_len, sizeof(libc_id));
	CHECK(!memcmp(a->file->build_id, libc_id, sizeof(libc_id)), "build-id kept");
	CHECK_EQ_U64(a->pgoff, 0x2000);
	map_table_stats(t, &st);
	CHECK_EQ_U64(st.files, 1);
	CHECK_EQ_U64(st.mappings, 2);
out:
	map_table_free(t);
}

static void test_child_sees_parent_until_exec(void)
{
	struct map_table *t = map_table_new(NULL);

	map_table_mmap(t, 10, 0, 0x1000, 0x1000, 0, "/bin/sh", NULL, 0);
	map_table_fork(t, 11, 10, 100);
	/* The parent maps more after the fork: not the child's. */
	map_table_mmap(t, 10, 120, 0x9000, 0x1000, 0, "/lib/late.so", NULL, 0);
	CHECK_STR(path_at(t, 11, 150, 0x1800), "/bin/sh");
	CHECK_STR(path_at(t, 11, 150, 0x9800), "(none)");
	CHECK_STR(path_at(t, 10, 150, 0x9800), "/lib/late.so");
	/* Before its fork the child did not exist. */
	CHECK_STR(path_at(t, 11, 50, 0x1800), "(none)");

	map_table_exec(t, 11, 200);
	map_table_mmap(t, 11, 201, 0x4000, 0x1000, 0, "/usr/bin/dd", NULL, 0);
	CHECK_STR(path_at(t, 11, 250, 0x4800), "/usr/bin/dd");
	CHECK_STR(path_at(t, 11, 250, 0x1800), "(none)");  /* the shell is gone */
	CHECK_STR(path_at(t, 11, 150, 0x1800), "/bin/sh"); /* but was there before */
	map_table_free(t);
}

/* Another CPU's buffer may be read first: the child's mmap before its fork record. */
static void test_records_in_any_order(void)
{
	struct map_table *t = map_table_new(NULL);
	struct map_table_stats st;

	map_table_mmap(t, 20, 0, 0x1000, 0x1000, 0, "/bin/bash", NULL, 0);
	map_table_mmap(t, 21, 300, 0x7000, 0x1000, 0, "/lib/own.so", NULL, 0);
	map_table_fork(t, 21, 20, 250);
	CHECK_STR(path_at(t, 21, 310, 0x7800), "/lib/own.so");
	CHECK_STR(path_at(t, 21, 310, 0x1800), "/bin/bash");
	map_table_stats(t, &st);
	CHECK_EQ_U64(st.procs, 2);

	/* An exec recorded after the mmaps that followed it. */
	map_table_mmap(t, 21, 410, 0x5000, 0x1000, 0, "/usr/bin/sync", NULL, 0);
	map_table_exec(t, 21, 400);
	CHECK_STR(path_at(t, 21, 420, 0x5800), "/usr/bin/sync");
	CHECK_STR(path_at(t, 21, 420, 0x7800), "(none)");
	map_table_free(t);
}

static void test_pid_reused(void)
{
	struct map_table *t = map_table_new(NULL);

	map_table_mmap(t, 1, 0, 0x1000, 0x1000, 0, "/bin/init", NULL, 0);
	map_table_fork(t, 30, 1, 100);
	map_table_exec(t, 30, 110);
	map_table_mmap(t, 30, 111, 0x4000, 0x1000, 0, "/bin/first", NULL, 0);
	map_table_exit(t, 30, 200);
	map_table_fork(t, 30, 1, 300);
	map_table_exec(t, 30, 310);
	map_table_mmap(t, 30, 311, 0x4000, 0x1000, 0, "/bin/second", NULL, 0);
	CHECK_STR(path_at(t, 30, 150, 0x4800), "/bin/first");
	CHECK_STR(path_at(t, 30, 350, 0x4800), "/bin/second");
	map_table_free(t);
}

static void test_forget_keeps_what_children_read(void)
{
	struct map_table *t = map_table_new(NULL);
	struct map_table_stats st;

	map_table_fork(t, 40, 1, 10);
	map_table_exec(t, 40, 11);
	map_table_mmap(t, 40, 12, 0x1000, 0x1000, 0, "/bin/parent", NULL, 0);
	map_table_fork(t, 41, 40, 20); /* a worker that never execs */
	map_table_exit(t, 40, 30);
	map_table_fork(t, 50, 1, 15);
	map_table_exit(t, 50, 16);
	map_table_exit(t, 1, 5000); /* the only way init goes: 1 is kept until then */

	map_table_forget(t, 100);
	CHECK(!map_table_knows(t, 40, 25), "the exited parent is forgotten");
	CHECK(!map_table_knows(t, 50, 15), "an exited process is forgotten");
	CHECK_STR(path_at(t, 41, 50, 0x1800), "/bin/parent");
	map_table_stats(t, &st);
	CHECK_EQ_U64(st.procs, 2); /* 1 and 41 */

	map_table_exit(t, 41, 60);
	map_table_forget(t, 100);
	map_table_stats(t, &st);
	CHECK_EQ_U64(st.procs, 1);
	CHECK_EQ_U64(st.mappings, 0); /* the parent's went with its last child */
	CHECK_EQ_U64(st.files, 0);
	map_table_free(t);
}

static void test_snapshot_sorted_and_hidden(void)
{
	struct map_table *t = map_table_new(NULL);
	struct map_entry out[8];
	int n;

	map_table_mmap(t, 60, 0, 0x5000, 0x1000, 0, "/lib/b.so", NULL, 0);
	map_table_mmap(t, 60, 0, 0x1000, 0x2000, 0, "/lib/a.so", NULL, 0);
	map_table_fork(t, 61, 60, 10);
	/* The child maps over part of a.so: what it covers hides the old one. */
	map_table_mmap(t, 61, 20, 0x2000, 0x1000, 0, "/lib/c.so", NULL, 0);
	n = map_table_snapshot(t, 61, 30, out, 8);
	if (!CHECK_EQ_INT(n, 2))
		goto out;
	CHECK_STR(out[0].file->path, "/lib/c.so");
	CHECK_EQ_U64(out[0].start, 0x2000);
	CHECK_STR(out[1].file->path, "/lib/b.so");
	CHECK_EQ_INT(map_table_snapshot(t, 61, 30, out, 1), 1);
out:
	map_table_free(t);
}

static void test_bounds(void)
{
	struct map_table_limits lim = { .max_procs = 4, .max_mappings = 3 };
	struct map_table *t = map_table_new(&lim);
	struct map_table_stats st;
	int i;

	for (i = 0; i < 5; i++)
		map_table_mmap(t, 70, i, 0x1000 * (i + 1), 0x1000, 0, "/lib/x.so", NULL, 0);
	map_table_stats(t, &st);
	CHECK_EQ_U64(st.mappings, 3);
	CHECK_EQ_U64(st.mappings_dropped, 2);
	CHECK_STR(path_at(t, 70, 10, 0x1800), "(none)"); /* the oldest went first */
	CHECK_STR(path_at(t, 70, 10, 0x5800), "/lib/x.so");

	map_table_exit(t, 70, 50);
	for (i = 0; i < 4; i++)
		map_table_fork(t, 80 + i, 1, 100 + i);
	map_table_stats(t, &st);
	CHECK(st.procs <= 4, "%llu incarnations held, bound 4", (unsigned long long)st.procs);
	CHECK(st.procs_evicted >= 1, "evictions counted");
	/* The exited one went first. */
	CHECK(!map_table_knows(t, 70, 60), "the exited process evicted first");
	map_table_free(t);
}

int main(void)
{
	RUN(test_mapping_valid_from_its_time);
	RUN(test_build_id_kept_and_files_shared);
	RUN(test_child_sees_parent_until_exec);
	RUN(test_records_in_any_order);
	RUN(test_pid_reused);
	RUN(test_forget_keeps_what_children_read);
	RUN(test_snapshot_sorted_and_hidden);
	RUN(test_bounds);
	return unit_done();
}
