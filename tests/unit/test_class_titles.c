// SPDX-License-Identifier: GPL-2.0-only
/*
 * Title classes' bookkeeping (controller/class_titles.h): one id per title,
 * shared by its processes, a process moved when its title changes, and the
 * id kept while one of them is there.
 */
#include "unit.h"
#include "controller/classes.h"

#define SEC	1000000000ULL
#define NR_READ 0

static const char walwriter[] = "postgres: 15/main: walwriter";
static const char backend[] = "postgres: 15/main: app db [local] idle";

/* Two processes of one title: one id, one cell; another title its own. */
static void test_one_title_one_class(void)
{
	static const char comm[SCLAT_COMM_LEN] = "postgres";
	struct classes *cs = classes_new(16);
	unsigned int a, b, c, cell_a, cell_b;
	char buf[BASIS_CLASS_MAX];
	bool opened;

	a = class_titles_id(cs, 100, backend, 0);
	b = class_titles_id(cs, 101, backend, 0);
	c = class_titles_id(cs, 102, walwriter, 0);
	CHECK(a != 0 && c != 0, "no id: %u %u", a, c);
	CHECK_EQ_U64(b, a);
	CHECK(c != a, "two titles share an id");
	CHECK_EQ_U64(cs->id[a].procs, 2);
	CHECK_EQ_U64(cs->id[c].procs, 1);
	CHECK_EQ_U64(classes_ids_used(cs), 2);
	/* Asked again (a key asked twice): the same id, counted once. */
	CHECK_EQ_U64(class_titles_id(cs, 100, backend, 0), a);
	CHECK_EQ_U64(cs->id[a].procs, 2);
	/* The syscall's calls of both processes go to one cell. */
	cell_a = classes_cell(cs, NR_READ, 1, a, SCLAT_FD_NONE, 64, 0, &opened);
	cell_b = classes_cell(cs, NR_READ, 1, b, SCLAT_FD_NONE, 64, 0, &opened);
	CHECK_EQ_U64(cell_b, cell_a);
	CHECK(!opened, "a second cell for the same title");
	CHECK_STR(classes_name(cs, cell_a, buf, sizeof(buf)),
		  "title postgres: 15/main: app db [local] idle");
	/* A process class of the same pid is another class (a comm as the kernel gives it). */
	CHECK(classes_task_id(cs, SCLAT_CLASS_PROCESS, 100, 100, comm, NULL, 0) != a,
	      "a title's id given to a process");
	classes_free(cs);
}

/* A process that sets another title moves; the class it left keeps its other processes. */
static void test_a_new_title_moves_the_process(void)
{
	struct classes *cs = classes_new(16);
	unsigned int postmaster, wal;

	postmaster = class_titles_id(cs, 200, "/usr/lib/postgresql/15/bin/postgres -D x", 0);
	CHECK_EQ_U64(class_titles_id(cs, 201, "/usr/lib/postgresql/15/bin/postgres -D x", 0),
		     postmaster);
	wal = class_titles_id(cs, 201, walwriter, SEC);
	CHECK(wal && wal != postmaster, "moved to %u", wal);
	CHECK_EQ_U64(cs->id[postmaster].procs, 1);
	CHECK_EQ_U64(cs->id[wal].procs, 1);
	CHECK_EQ_U64(cs->titles.nr, 2);
	/* And back: into the class that is still there. */
	CHECK_EQ_U64(class_titles_id(cs, 201, "/usr/lib/postgresql/15/bin/postgres -D x", SEC),
		     postmaster);
	CHECK_EQ_U64(cs->id[postmaster].procs, 2);
	CHECK_EQ_U64(cs->id[wal].procs, 0);
	classes_free(cs);
}

/*
 * A class retires when idle with no cell left, not while one of its
 * processes made calls: the id stays for the others when one leaves.
 */
static void test_the_class_outlives_a_process_that_leaves(void)
{
	struct classes *cs = classes_new(16);
	unsigned int id, cell;
	bool opened;

	id = class_titles_id(cs, 300, backend, 0);
	class_titles_id(cs, 301, backend, 0);
	cell = classes_cell(cs, NR_READ, 1, id, SCLAT_FD_NONE, 64, 0, &opened);
	CHECK_EQ_U64(class_titles_leave(cs, 300), id);
	CHECK_EQ_U64(class_titles_leave(cs, 300), 0);
	CHECK_EQ_U64(cs->id[id].procs, 1);
	/* The other one's calls keep the cell, and so the id. */
	classes_cell_used(cs, cell, 40 * SEC);
	CHECK_EQ_U64(classes_retire_cell(cs, 50 * SEC, 30 * SEC), 0);
	CHECK_EQ_U64(classes_retire_id(cs, 50 * SEC, 30 * SEC), 0);
	CHECK(classes_id_used(cs, id), "retired with a process in it");
	/* A process joining an idle class keeps it from retiring at once. */
	CHECK_EQ_U64(classes_retire_cell(cs, 71 * SEC, 30 * SEC), cell);
	CHECK_EQ_U64(class_titles_id(cs, 302, backend, 71 * SEC), id);
	CHECK_EQ_U64(classes_retire_id(cs, 71 * SEC, 30 * SEC), 0);
	CHECK_EQ_U64(classes_retire_id(cs, 102 * SEC, 30 * SEC), id);
	classes_free(cs);
}

/* Bounded: a title is cut to a class name's room, and past the ids or the processes, refused. */
static void test_bounds(void)
{
	char title[200], want[BASIS_CLASS_MAX];
	struct classes *cs = classes_new(8);
	unsigned int i, id, other;

	memset(title, 'x', sizeof(title) - 1);
	title[sizeof(title) - 1] = '\0';
	id = class_titles_id(cs, 1, title, 0);
	snprintf(want, sizeof(want), "title %.57s", title);
	CHECK_STR(cs->id[id].name, want);
	/* Two titles alike up to the cut share the class. */
	title[150] = 'y';
	CHECK_EQ_U64(class_titles_id(cs, 2, title, 0), id);

	for (i = 2; i < SCLAT_CLASS_IDS; i++) {
		snprintf(title, sizeof(title), "worker %u", i);
		CHECK(class_titles_id(cs, 1000 + i, title, 0) == i, "id %u", i);
	}
	/* No id left: refused, counted, and the process in no class. */
	CHECK_EQ_U64(class_titles_id(cs, 5000, "one more", 0), 0);
	CHECK_EQ_U64(cs->ids_refused, 1);
	CHECK_EQ_U64(class_titles_leave(cs, 5000), 0);
	/* A process moving to a title without an id leaves its class too. */
	other = class_titles_id(cs, 2, "one more", 0);
	CHECK_EQ_U64(other, 0);
	CHECK_EQ_U64(cs->id[id].procs, 1);
	CHECK_EQ_U64(cs->ids_refused, 2);
	/* Its processes fill the table: one more is refused, one already in is not. */
	for (i = cs->titles.nr; i < CLASS_TITLE_PROCS; i++)
		class_titles_id(cs, 10000 + i, "worker 2", 0);
	CHECK_EQ_U64(cs->titles.nr, CLASS_TITLE_PROCS);
	CHECK_EQ_U64(class_titles_id(cs, 99999, "worker 2", 0), 0);
	CHECK_EQ_U64(cs->ids_refused, 3);
	CHECK_EQ_U64(class_titles_id(cs, 1, "worker 3", 0), 3);
	classes_free(cs);
}

int main(void)
{
	RUN(test_one_title_one_class);
	RUN(test_a_new_title_moves_the_process);
	RUN(test_the_class_outlives_a_process_that_leaves);
	RUN(test_bounds);
	return unit_done();
}
