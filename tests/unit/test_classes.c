// SPDX-License-Identifier: GPL-2.0-only
/* The class ids and cells the controller hands out: assignment, caps, retirement, names. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "unit.h"
#include "controller/classes.h"

#define SEC	 1000000000ULL
#define NR_READ	 0
#define NR_WRITE 1

static const char nginx[SCLAT_COMM_LEN] = "nginx";

/* The same class asks twice (two CPUs missed at once): one id, one cell. */
static void test_same_class_same_id_and_cell(void)
{
	struct classes *cs = classes_new(16);
	unsigned int a, b, cell, again;
	bool opened;

	a = classes_task_id(cs, SCLAT_CLASS_PROCESS, 123, 123, nginx, NULL, 0);
	b = classes_task_id(cs, SCLAT_CLASS_PROCESS, 123, 123, nginx, NULL, 0);
	CHECK(a != 0, "no id given");
	CHECK_EQ_U64(a, b);
	CHECK(classes_task_id(cs, SCLAT_CLASS_PROCESS, 124, 124, nginx, NULL, 0) != a,
	      "two processes share an id");
	cell = classes_cell(cs, NR_READ, 1, a, SCLAT_FD_NONE, 64, 0, &opened);
	CHECK(opened && cell >= 1 && cell < 16, "cell %u opened %d", cell, opened);
	again = classes_cell(cs, NR_READ, 1, a, SCLAT_FD_NONE, 64, 0, &opened);
	CHECK_EQ_U64(again, cell);
	CHECK(!opened, "the same cell opened twice");
	CHECK_EQ_U64(cs->per_syscall[NR_READ], 1);
	classes_free(cs);
}

/* max_classes per syscall, then the machine's cells: past either, refused and counted. */
static void test_caps_refuse_and_count(void)
{
	struct classes *cs = classes_new(4); /* cells 1..3 */
	unsigned int cell;
	bool opened;

	CHECK(classes_cell(cs, NR_READ, 1, 1, 0, 2, 0, &opened) < SCLAT_CELL_ASKED, "first");
	CHECK(classes_cell(cs, NR_READ, 1, 2, 0, 2, 0, &opened) < SCLAT_CELL_ASKED, "second");
	cell = classes_cell(cs, NR_READ, 1, 3, 0, 2, 0, &opened);
	CHECK_EQ_U64(cell, SCLAT_CELL_SHARED);
	CHECK_EQ_U64(cs->refused[NR_READ], 1);
	/* Another syscall takes the last cell; the machine has none after it. */
	CHECK(classes_cell(cs, NR_WRITE, 2, 1, 0, 64, 0, &opened) == 3, "last cell");
	CHECK_EQ_U64(classes_cell(cs, NR_WRITE, 2, 2, 0, 64, 0, &opened), SCLAT_CELL_SHARED);
	CHECK_EQ_U64(cs->refused[NR_WRITE], 1);
	CHECK_EQ_U64(cs->refused[NR_READ], 1);
	classes_free(cs);
}

/* Idle for class_idle: the cell closes and is handed out again; the id is forgotten after. */
static void test_idle_cells_and_ids_retire(void)
{
	struct classes *cs = classes_new(8);
	unsigned int id, busy, idle, cell;
	bool opened;

	id = classes_task_id(cs, SCLAT_CLASS_PROCESS, 7, 7, nginx, NULL, 0);
	busy = classes_cell(cs, NR_READ, 1, id, SCLAT_FD_PIPE, 64, 0, &opened);
	idle = classes_cell(cs, NR_READ, 1, id, SCLAT_FD_REGULAR, 64, 0, &opened);
	classes_cell_used(cs, busy, 20 * SEC);
	CHECK_EQ_U64(classes_retire_cell(cs, 29 * SEC, 30 * SEC), 0);
	CHECK_EQ_U64(classes_retire_cell(cs, 31 * SEC, 30 * SEC), idle);
	CHECK_EQ_U64(classes_retire_cell(cs, 31 * SEC, 30 * SEC), 0);
	CHECK_EQ_U64(cs->per_syscall[NR_READ], 1);
	/* The id has a cell still in use: kept. */
	CHECK_EQ_U64(classes_retire_id(cs, 31 * SEC, 30 * SEC), 0);
	CHECK_EQ_U64(classes_retire_cell(cs, 51 * SEC, 30 * SEC), busy);
	CHECK_EQ_U64(classes_retire_id(cs, 51 * SEC, 30 * SEC), id);
	CHECK_EQ_U64(cs->per_syscall[NR_READ], 0);
	/* Both cells free again: the lowest is handed out first. */
	cell = classes_cell(cs, NR_WRITE, 2, 0, SCLAT_FD_INET, 64, 60 * SEC, &opened);
	CHECK(opened && cell == 1, "cell %u", cell);
	classes_free(cs);
}

/* Every id taken: the next task class gets none, and that is counted. */
static void test_ids_run_out(void)
{
	struct classes *cs = classes_new(8);
	unsigned int i;

	for (i = 1; i < SCLAT_CLASS_IDS; i++)
		CHECK(classes_task_id(cs, SCLAT_CLASS_PROCESS, i, i, nginx, NULL, 0) == i, "id %u",
		      i);
	CHECK_EQ_U64(classes_task_id(cs, SCLAT_CLASS_PROCESS, 9999, 9999, nginx, NULL, 0), 0);
	CHECK_EQ_U64(cs->ids_refused, 1);
	classes_free(cs);
}

/* What users read: the process and its name, the kind of file, or both. */
static void test_names(void)
{
	struct classes *cs = classes_new(8);
	char buf[BASIS_CLASS_MAX], full[SCLAT_COMM_LEN];
	unsigned int id, a, b, c;
	bool opened;

	id = classes_task_id(cs, SCLAT_CLASS_PROCESS, 123, 123, nginx, NULL, 0);
	a = classes_cell(cs, NR_READ, 1, id, SCLAT_FD_NONE, 64, 0, &opened);
	b = classes_cell(cs, NR_READ, 1, 0, SCLAT_FD_INET, 64, 0, &opened);
	c = classes_cell(cs, NR_READ, 1, id, SCLAT_FD_PIPE, 64, 0, &opened);
	CHECK(!strcmp(classes_name(cs, a, buf, sizeof(buf)), "pid 123 (nginx)"), "%s", buf);
	CHECK(!strcmp(classes_name(cs, b, buf, sizeof(buf)), "fd:socket/inet"), "%s", buf);
	CHECK(!strcmp(classes_name(cs, c, buf, sizeof(buf)), "pid 123 (nginx) fd:pipe"), "%s", buf);
	CHECK(!strcmp(classes_name(cs, 0, buf, sizeof(buf)), ""), "cell 0: %s", buf);
	/* A comm of all 16 bytes (no NUL from the kernel) stays within its bytes. */
	memset(full, 'x', sizeof(full));
	id = classes_task_id(cs, SCLAT_CLASS_COMM, 5, 5, full, NULL, 0);
	a = classes_cell(cs, NR_WRITE, 2, id, 0, 64, 0, &opened);
	CHECK(!strcmp(classes_name(cs, a, buf, sizeof(buf)), "comm xxxxxxxxxxxxxxxx"), "%s", buf);
	/* A cgroup by its path; by its id when the path could not be read. */
	id = classes_task_id(cs, SCLAT_CLASS_CGROUP, 4242, 5, nginx, "/system.slice/nginx.service",
			     0);
	a = classes_cell(cs, NR_WRITE, 2, id, SCLAT_FD_PIPE, 64, 0, &opened);
	CHECK(!strcmp(classes_name(cs, a, buf, sizeof(buf)), "/system.slice/nginx.service fd:pipe"),
	      "%s", buf);
	id = classes_task_id(cs, SCLAT_CLASS_CGROUP, 4243, 5, nginx, NULL, 0);
	a = classes_cell(cs, NR_WRITE, 2, id, SCLAT_FD_NONE, 64, 0, &opened);
	CHECK(!strcmp(classes_name(cs, a, buf, sizeof(buf)), "cgroup id 4243"), "%s", buf);
	classes_free(cs);
}

/*
 * class_cells = 0: no cell when no syscall has classes, else sized by CPUs; a
 * number is taken as it is, cell 0 added.
 */
static void test_cells_sizing(void)
{
	static struct policy p;

	CHECK_EQ_U64(classes_cells_for(&p, 2), 0);
	p.rules[0].classes = POLICY_CLASS_PROCESS;
	CHECK_EQ_U64(classes_cells_for(&p, 2),
		     CLASSES_PER_CPU_BYTES / (2 * sizeof(struct sclat_hist)));
	CHECK_EQ_U64(classes_cells_for(&p, 512), CLASSES_CELLS_MIN);
	p.class_cells = 100;
	CHECK_EQ_U64(classes_cells_for(&p, 2), 101);
	p.class_cells = SCLAT_CLASS_CELLS_MAX;
	CHECK_EQ_U64(classes_cells_for(&p, 2), SCLAT_CLASS_CELLS_MAX);
	p.class_cells = 0;
	p.rules[0].classes = 0;
	p.def.classes = POLICY_CLASS_FD;
	CHECK(classes_cells_for(&p, 2) > 0, "[global] classes only");
}

/* A policy loaded at run time into maps sized at start: refused, or applied with a warning. */
static void test_policy_fits_the_cells_loaded(void)
{
	static struct policy p;
	char msg[512];

	p.rules[NR_READ].mode = POLICY_ADAPTIVE;
	p.rules[NR_READ].max_classes = 64;
	CHECK_EQ_U64(classes_policy_fits(&p, 0, msg, sizeof(msg)), 0);
	p.rules[NR_READ].classes = POLICY_CLASS_PROCESS;
	/* Classes, and no cell: refused, naming the key and the bound. */
	CHECK_EQ_U64(classes_policy_fits(&p, 0, msg, sizeof(msg)), -EINVAL);
	/* [default]'s (or [global]'s) key: named as it was given, not by a syscall. */
	CHECK(!strncmp(msg, "classes = process: this tracer has no room for class cells", 58) &&
		      strstr(msg, "restart it with classes in its policy"),
	      "%s", msg);
	p.overrides[NR_READ] = POLICY_KEY_CLASSES;
	CHECK_EQ_U64(classes_policy_fits(&p, 0, msg, sizeof(msg)), -EINVAL);
	CHECK(!strncmp(msg, "classes = process for read: ", 28), "%s", msg);
	CHECK_EQ_U64(classes_policy_fits(&p, 65, msg, sizeof(msg)), 0);
	/* max_classes beyond the cells: applied, with a warning. */
	p.rules[NR_READ].max_classes = 100;
	CHECK_EQ_U64(classes_policy_fits(&p, 65, msg, sizeof(msg)), 1);
	CHECK(strstr(msg, "max_classes = 100: ") && strstr(msg, "room for 64"), "%s", msg);
	/* A syscall not adaptive has no classes to fit. */
	p.rules[NR_READ].mode = POLICY_STATIC;
	CHECK_EQ_U64(classes_policy_fits(&p, 0, msg, sizeof(msg)), 0);
	/* More cells than were loaded: refused. */
	p.class_cells = 100;
	CHECK_EQ_U64(classes_policy_fits(&p, 65, msg, sizeof(msg)), -EINVAL);
	CHECK(strstr(msg, "class_cells = 100") && strstr(msg, "room for 64"), "%s", msg);
	CHECK_EQ_U64(classes_policy_fits(&p, 101, msg, sizeof(msg)), 0);
}

int main(void)
{
	RUN(test_same_class_same_id_and_cell);
	RUN(test_caps_refuse_and_count);
	RUN(test_idle_cells_and_ids_retire);
	RUN(test_ids_run_out);
	RUN(test_names);
	RUN(test_cells_sizing);
	RUN(test_policy_fits_the_cells_loaded);
	return unit_done();
}
