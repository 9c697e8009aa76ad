// SPDX-License-Identifier: GPL-2.0-only
/*
 * `sclat status` as the tracer renders it: the rows of syscalls and of their
 * classes (one writer for both), in JSON and in the table, the marks and
 * notes under it, and the calls in flight.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "control/status_render.h"
#include "util/syscall_names.h"
#include "unit.h"

/* A status with a bit of everything: classes (own and on the syscall's), off, other, in flight. */
static struct controller_status *status_fill(struct policy **pp)
{
	static struct controller_status st;
	struct policy *p = policy_builtin();
	int rd = syscall_nr("read"), wr = syscall_nr("write");
	struct syscall_status *s;
	struct class_status *c;

	memset(&st, 0, sizeof(st));
	st.elapsed_ns = 12500000000ULL;
	st.interval_ns = 1000000000ULL;
	st.totals.syscalls = 123456789;
	st.totals.outliers = 42;
	st.attach_kind = "raw_tp";
	st.nr_syscalls = 3;
	s = &st.syscalls[0];
	s->nr = rd; /* adaptive, not learned yet, classes */
	s->calls = 15000000;
	s->rate = 12345.67;
	s->p50_ns = 1500;
	s->p99_ns = 250000;
	s->p999_ns = 3000000;
	s->threshold_ns = 5000000;
	s->outliers = 30;
	s->throttled = 2;
	s->drops = 1;
	s->classes_refused = 3;
	s->sampled_under_ns = 1000;
	s = &st.syscalls[1];
	s->nr = wr; /* off */
	s->calls = 99;
	s->rate = 0.5;
	s->threshold_ns = SCLAT_THRESHOLD_NEVER;
	s = &st.syscalls[2];
	s->nr = SCLAT_MAX_SYSCALLS; /* the others, together */
	s->calls = 7;
	s->threshold_ns = 1000;
	st.nr_classes = 3;
	c = &st.classes[0];
	c->s.nr = rd;
	c->s.calls = 5000;
	c->s.rate = 100;
	c->s.p50_ns = 2000;
	c->s.p99_ns = 90000;
	c->s.p999_ns = 800000;
	c->s.threshold_ns = 1200000;
	c->s.basis.estimate_ns = 1000000;
	c->s.basis.samples = 4000;
	c->s.outliers = 4;
	/* A false_alarm rule's: the threshold came from a fitted tail. */
	c->s.basis.w.rate = 1e-5;
	c->s.basis.w.fit = (struct basis_fit){ .ok = true,
					       .start_ns = 300000,
					       .share = 0.01,
					       .above = 2000,
					       .shape = 0.1,
					       .scale_ns = 50000,
					       .far_ns = 4800000 };
	/* Its reads seldom wait for storage: those that do are stalls from 57.3us. */
	c->s.basis.w.io_share = 2e-4;
	c->s.basis.w.io_ns = 57344;
	snprintf(c->s.basis.class_name, sizeof(c->s.basis.class_name), "process \"db\" 4242");
	c = &st.classes[1];
	c->s.nr = rd;
	c->s.calls = 12;
	c->s.threshold_ns = SCLAT_THRESHOLD_NEVER;
	c->fallback = true;
	snprintf(c->s.basis.class_name, sizeof(c->s.basis.class_name), "process sh 77");
	c = &st.classes[2];
	c->s.nr = wr; /* write has no classes in the policy: not shown */
	snprintf(c->s.basis.class_name, sizeof(c->s.basis.class_name), "process x 1");
	st.class_ids = 2;
	st.nr_inflight = 1;
	st.inflight[0] = (struct inflight_call){ .pid = 10,
						 .tid = 11,
						 .nr = rd,
						 .state = 0,
						 .comm = "cat",
						 .entry_ns = 5,
						 .inflight_ns = 2000000000ULL,
						 .threshold_ns = SCLAT_THRESHOLD_NEVER,
						 .reports = 1 };
	p->rules[rd].classes = POLICY_CLASS_PROCESS;
	p->rules[rd].mode = POLICY_ADAPTIVE;
	p->rules[wr].mode = POLICY_OFF;
	p->rules[wr].classes = 0; /* the built-in's auto: none, for write */
	p->sample = 4;
	*pp = p;
	return &st;
}

/* What fn wrote for the status and policy p (NULL: none). */
static char *rendered(void (*fn)(const struct controller_status *, const struct policy *,
				 const char *, FILE *),
		      bool with_policy)
{
	struct controller_status *st;
	struct policy *p;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	st = status_fill(&p);
	fn(st, with_policy ? p : NULL, "built-in", f);
	fclose(f);
	policy_free(p);
	return buf;
}

#define CHECK_HAS(text, part) CHECK(strstr(text, part), "no\n%s\nin\n%s", part, text)

static void test_json_rows_of_syscalls_and_their_classes(void)
{
	char *json = rendered(status_write_json, true), want[3072];
	int rd = syscall_nr("read"), wr = syscall_nr("write");

	snprintf(
		want, sizeof(want),
		"\"sample\":4,\"syscalls\":[{\"syscall\":\"read\",\"nr\":%d,\"mode\":\"adaptive\","
		"\"calls\":15000000,\"rate\":12345.7,\"p50_ns\":1500,\"p99_ns\":250000,"
		"\"p999_ns\":3000000,\"threshold_ns\":5000000,"
		"\"learned_ns\":0,\"target_rate\":0,\"io_share\":0,\"io_ns\":0,\"fit\":null,"
		"\"armed\":false,\"outliers\":30,"
		"\"throttled\":2,\"drops\":1,\"braked\":0,\"sampled_under_ns\":1000,\"classes\":["
		"{\"class\":\"process \\\"db\\\" 4242\",\"calls\":5000,\"rate\":100.0,"
		"\"p50_ns\":2000,\"p99_ns\":90000,\"p999_ns\":800000,\"threshold_ns\":1200000,"
		"\"learned_ns\":0,\"target_rate\":1e-05,\"io_share\":0.0002,\"io_ns\":57344,"
		"\"fit\":{\"start_ns\":300000,\"share\":0.01,"
		"\"above\":2000.0,\"shape\":0.1,\"scale_ns\":50000.0,\"apart_ns\":0,\"apart_share\":0,\"far_ns\":4800000,\"censored\":0.0},"
		"\"estimate_ns\":1000000,\"samples\":4000,\"outliers\":4,\"own\":true},"
		"{\"class\":\"process sh 77\",\"calls\":12,\"rate\":0.0,\"p50_ns\":0,\"p99_ns\":0,"
		"\"p999_ns\":0,\"threshold_ns\":null,"
		"\"learned_ns\":0,\"target_rate\":0,\"io_share\":0,\"io_ns\":0,\"fit\":null,"
		"\"estimate_ns\":0,\"samples\":0,"
		"\"outliers\":0,\"own\":false}],\"classes_refused\":3},"
		"{\"syscall\":\"write\",\"nr\":%d,\"mode\":\"off\",\"calls\":99,\"rate\":0.5,"
		"\"p50_ns\":0,\"p99_ns\":0,\"p999_ns\":0,\"threshold_ns\":null,"
		"\"learned_ns\":0,\"target_rate\":0,\"io_share\":0,\"io_ns\":0,\"fit\":null,\"armed\":false,"
		"\"outliers\":0,\"throttled\":0,\"drops\":0,\"braked\":0,\"sampled_under_ns\":0},"
		"{\"syscall\":\"other\",\"nr\":-1,\"calls\":7,\"rate\":0.0,\"p50_ns\":0,"
		"\"p99_ns\":0,\"p999_ns\":0,\"threshold_ns\":1000,"
		"\"learned_ns\":0,\"target_rate\":0,\"io_share\":0,\"io_ns\":0,\"fit\":null,"
		"\"armed\":false,\"outliers\":0,"
		"\"throttled\":0,\"drops\":0,\"braked\":0,\"sampled_under_ns\":0}],"
		"\"inflight\":[{\"syscall\":\"read\",\"nr\":%d,\"pid\":10,\"tid\":11,"
		"\"comm\":\"cat\",\"ts_ns\":5,\"inflight_ns\":2000000000,\"threshold_ns\":null,"
		"\"state\":\"unknown\",\"reports\":1}]}\n",
		rd, wr, rd);
	CHECK_HAS(json, want);
	free(json);
}

static void test_json_rows_without_a_policy_have_no_mode_and_no_classes(void)
{
	char *json = rendered(status_write_json, false), want[256];

	snprintf(want, sizeof(want),
		 "\"children_not_followed\":0,\"syscalls\":[{\"syscall\":\"read\",\"nr\":%d,"
		 "\"calls\":15000000,",
		 syscall_nr("read"));
	CHECK_HAS(json, want);
	snprintf(want, sizeof(want),
		 "\"sampled_under_ns\":1000},{\"syscall\":\"write\",\"nr\":%d,\"calls\":99,",
		 syscall_nr("write"));
	CHECK_HAS(json, want);
	CHECK(!strstr(json, "\"class\""), "a class row in\n%s", json);
	free(json);
}

static void test_table_rows_of_syscalls_and_their_classes(void)
{
	char *text = rendered(status_write_text, true);

	CHECK_HAS(
		text,
		"user stacks: off\n"
		"\n"
		"SYSCALL           CALLS    RATE    P50    P99  P99.9 THRESHOLD OUTLIERS THROTTLED  "
		"DROPS\n"
		"read              15.0M   12.3k  1.5us  250us    3ms      5ms*       30         2"
		"      1\n"
		"                   5000     100    2us   90us  800us     1.2ms        4  process "
		"\"db\" 4242\n"
		"                     12       0      -      -      -      off=        0  process "
		"sh 77\n"
		"  3 classes refused a threshold of their own (max_classes, class_cells): they "
		"share the syscall's\n"
		"write                99       0      -      -      -       off        0         0"
		"      0\n"
		"(other)               7       0      -      -      -         -        0         0"
		"      0\n"
		"\n"
		"* initial threshold (off: none): fewer samples than min_samples so far\n"
		"= a class with fewer samples than min_samples: its syscall's threshold\n"
		"classes: 2 processes, cgroups, thread names or titles with an id, 0 refused one (none "
		"left); 0 requests lost to a full queue, asked again\n"
		"classes: calls classed 1 in 4 under every class's threshold, for 4 (sample): "
		"calls and rates of classes are estimates\n"
		"\n"
		"fitted tails (false_alarm: the threshold is the latency a normal call exceeds at "
		"the rate it aims at)\n"
		"read            tail from 300us (1.00 % of calls, 2000 above), shape 0.100, scale "
		"50us, aims at 1e-05; stalls far from 4.8ms; waits for storage 0.02 % of calls, "
		"stalls from 57.3us  process \"db\" 4242\n"
		"\n"
		"in flight past their threshold, longest first:\n"
		"SYSCALL             PID     TID COMM             IN FLIGHT THRESHOLD STATE    "
		"REPORTS\n"
		"read                 10      11 cat                     2s       off unknown   "
		"     1\n");
	CHECK(!strncmp(text, "sclat pid ", 10), "begins with\n%s", text);
	free(text);
}

/* A name longer than the column widens it: the whole name, the columns still aligned. */
static void test_table_of_a_long_syscall_name_keeps_it_whole(void)
{
	struct controller_status *st;
	struct policy *p;
	char *text = NULL, *head, *row;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	st = status_fill(&p);
	st->syscalls[1].nr = syscall_nr("sched_getaffinity");
	st->inflight[0].nr = syscall_nr("sched_get_priority_max");
	status_write_text(st, p, "built-in", f);
	fclose(f);
	/* The header's CALLS ends where the row's count does. */
	head = strstr(text, "SYSCALL");
	row = strstr(text, "\nsched_getaffinity ");
	CHECK(head && row &&
		      strstr(head, "CALLS") + 5 - head == strstr(row, " 99 ") + 3 - (row + 1),
	      "CALLS and 99 not aligned in\n%s", text);
	CHECK_HAS(text, "\nSYSCALL             CALLS    RATE");
	CHECK_HAS(text, "\nsched_getaffinity      99       0");
	CHECK_HAS(text, "\nread                15.0M   12.3k");
	CHECK_HAS(text, "\n                     5000     100");
	CHECK_HAS(text, "\nSYSCALL                    PID     TID COMM");
	CHECK_HAS(text, "\nsched_get_priority_max      10      11 cat");
	free(text);
	policy_free(p);
}

int main(void)
{
	RUN(test_json_rows_of_syscalls_and_their_classes);
	RUN(test_json_rows_without_a_policy_have_no_mode_and_no_classes);
	RUN(test_table_rows_of_syscalls_and_their_classes);
	RUN(test_table_of_a_long_syscall_name_keeps_it_whole);
	return unit_done();
}
