// SPDX-License-Identifier: GPL-2.0-only
/*
 * sclat top's frame (control/top_frame.c): written by the tracer, read back
 * whole; what the reader refuses, what it skips (a later version's), and
 * that it escapes what a tracer should have; then the rows top shows of two
 * frames (top/top_view.c): rated between them, sorted, classes under their
 * syscall.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "control/control_protocol.h"
#include "control/top_frame.h"
#include "top/top_view.h"
#include "unit.h"

#define NR_READ	 0
#define NR_SLEEP 230

static void syscall_row(struct syscall_status *s, unsigned int nr, __u64 calls, __u64 p99,
			__u64 threshold, __u64 outliers)
{
	*s = (struct syscall_status){
		.nr = nr,
		.calls = calls,
		.rate = calls / 10.0,
		.p50_ns = p99 / 2,
		.p99_ns = p99,
		.threshold_ns = threshold,
		.outliers = outliers,
		.armed = true,
	};
}

/* A status of read (busy, fast), clock_nanosleep (slow, with a hostile class), other. */
static struct controller_status *status_of(__u64 elapsed_ns, __u64 scale)
{
	struct controller_status *st = calloc(1, sizeof(*st));

	st->elapsed_ns = elapsed_ns;
	st->interval_ns = 1000000000ULL;
	st->totals.syscalls = 1000 * scale;
	st->totals.outliers = 10 * scale;
	st->nr_syscalls = 3;
	syscall_row(&st->syscalls[0], NR_READ, 900 * scale, 2000, 10000000, 0);
	syscall_row(&st->syscalls[1], NR_SLEEP, 30 * scale, 31000000, 10000000, 10 * scale);
	syscall_row(&st->syscalls[2], SCLAT_MAX_SYSCALLS, 5 * scale, 0, 0, 0);
	st->syscalls[2].threshold_ns = SCLAT_THRESHOLD_NEVER;
	st->nr_classes = 1;
	syscall_row(&st->classes[0].s, NR_SLEEP, 20 * scale, 32000000, 12000000, 5 * scale);
	snprintf(st->classes[0].s.basis.class_name, BASIS_CLASS_MAX, "comm \x1b]0;x\x07\tz");
	st->classes[0].fallback = true;
	st->nr_inflight = 1;
	st->inflight[0] = (struct inflight_call){ .pid = 7,
						  .tid = 8,
						  .nr = NR_READ,
						  .inflight_ns = 3000000000ULL,
						  .threshold_ns = 10000000 };
	memcpy(st->inflight[0].comm, "ev\nil\x1b[2J", 10);
	return st;
}

/* The frame written for st and two outliers, in a buffer of its own (free it). */
static char *frame_text(const struct controller_status *st, __u64 lost_sleep, size_t *len)
{
	struct recent_outlier o[2] = {
		{ .entry_epoch_ns = 1700000000000000000LL,
		  .nr = NR_SLEEP,
		  .latency_ns = 31000000,
		  .threshold_ns = 10000000,
		  .line = "12:00:00.000 a 1 1 clock_nanosleep why" },
		{ .entry_epoch_ns = -5,
		  .nr = NR_READ,
		  .latency_ns = 11000000,
		  .threshold_ns = 10000000,
		  .line = "tab\there, newline\nthere" },
	};
	struct recent_lost *lost = calloc(1, sizeof(*lost));
	char *text = NULL;
	FILE *f = open_memstream(&text, len);

	lost->by_nr[NR_SLEEP] = lost_sleep;
	lost->nr_classes = 1;
	lost->classes[0] = (struct recent_class_lost){ .nr = NR_SLEEP, .lost_ns = lost_sleep / 2 };
	memcpy(lost->classes[0].name, st->classes[0].s.basis.class_name, BASIS_CLASS_MAX);
	top_frame_write(f, st, NULL, o, 2, lost);
	fclose(f);
	free(lost);
	return text;
}

static void test_round_trip(void)
{
	struct controller_status *st = status_of(5000000000ULL, 1);
	struct top_frame *fr = calloc(1, sizeof(*fr));
	char err[256], *text;
	size_t len;

	text = frame_text(st, 210000000, &len);
	if (!CHECK_EQ_INT(top_frame_parse(text, len, fr, err, sizeof(err)), 0))
		printf("  %s\n", err);
	CHECK_EQ_INT(fr->version, TOP_FRAME_VERSION);
	CHECK_EQ_INT(fr->pid, getpid());
	CHECK_EQ_U64(fr->elapsed_ns, 5000000000ULL);
	CHECK_EQ_U64(fr->outliers_total, 10);
	if (!CHECK_EQ_INT(fr->nr_rows, 4))
		goto out;
	CHECK_STR(fr->rows[0].syscall, "read");
	CHECK_EQ_U64(fr->rows[0].calls, 900);
	CHECK_NEAR(fr->rows[0].rate, 90.0, 1e-9);
	CHECK_EQ_U64(fr->rows[0].threshold_ns, 10000000);
	CHECK_EQ_U64(fr->rows[0].lost_ns, 0);
	CHECK_STR(fr->rows[1].syscall, "clock_nanosleep");
	CHECK_EQ_INT(fr->rows[1].nr, NR_SLEEP);
	CHECK_EQ_U64(fr->rows[1].p99_ns, 31000000);
	CHECK_EQ_U64(fr->rows[1].outliers, 10);
	CHECK_EQ_U64(fr->rows[1].lost_ns, 210000000);
	/* The syscalls without a histogram: no threshold of their own, no time lost. */
	CHECK_STR(fr->rows[2].syscall, "other");
	CHECK_EQ_INT(fr->rows[2].nr, -1);
	CHECK_EQ_U64(fr->rows[2].threshold_ns, TOP_NONE);
	CHECK_EQ_U64(fr->rows[2].lost_ns, TOP_NONE);
	/* A class: its name escaped by the tracer (no tab to split on), still its syscall's. */
	CHECK_EQ_INT(fr->rows[3].nr, NR_SLEEP);
	CHECK_STR(fr->rows[3].cls, "comm \\x1b]0;x\\x07\\x09z");
	CHECK(fr->rows[3].initial, "a class on its syscall's threshold");
	CHECK_EQ_U64(fr->rows[3].lost_ns, 105000000);
	if (CHECK_EQ_INT(fr->nr_inflight, 1)) {
		CHECK_STR(fr->inflight[0].comm, "ev\\x0ail\\x1b[2J");
		CHECK_EQ_U64(fr->inflight[0].inflight_ns, 3000000000ULL);
		CHECK_EQ_INT(fr->inflight[0].tid, 8);
	}
	if (CHECK_EQ_INT(fr->nr_outliers, 2)) {
		CHECK_STR(fr->outliers[0].line, "12:00:00.000 a 1 1 clock_nanosleep why");
		CHECK_EQ_U64(fr->outliers[0].latency_ns, 31000000);
		/* A control byte in a line, which the tracer never writes, cannot split it. */
		CHECK_STR(fr->outliers[1].line, "tab?here, newline?there");
		CHECK(fr->outliers[1].epoch_ns == -5, "epoch %lld",
		      (long long)fr->outliers[1].epoch_ns);
	}
out:
	free(text);
	free(fr);
	free(st);
}

static int parse_text(const char *text, struct top_frame *fr, char *err, size_t errlen)
{
	static char buf[4096];
	size_t len = strlen(text);

	memcpy(buf, text, len);
	err[0] = '\0';
	return top_frame_parse(buf, len, fr, err, errlen);
}

#define TRACER "tracer\t42\t1\t1\t1\t1\t0\t0\t9\n"

static void test_refused_and_skipped(void)
{
	struct top_frame *fr = calloc(1, sizeof(*fr));
	char err[256];

	CHECK_EQ_INT(parse_text("ok 3\n", fr, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "not a frame of sclat top (no \"sclat-top VERSION\" line)");
	CHECK_EQ_INT(parse_text("sclat-top 1\n", fr, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "no tracer line");
	CHECK_EQ_INT(parse_text("sclat-top 1\n" TRACER
				"syscall\tread\t0\t12x\t1.0\t1\t1\t1\t0\t0\t0\n",
				fr, err, sizeof(err)),
		     -EINVAL);
	CHECK_STR(err, "line 3: malformed, or one too many of its kind");
	CHECK_EQ_INT(
		parse_text("sclat-top 1\n" TRACER "syscall\tread\t0\t1\n", fr, err, sizeof(err)),
		-EINVAL);
	CHECK_EQ_INT(
		parse_text("sclat-top 1\n" TRACER "outlier\t1\t0\t1\t1\tcut", fr, err, sizeof(err)),
		-EINVAL);
	CHECK_STR(err, "line 3: not ended");
	/* A later version: a kind this reader does not know, fields past those it reads. */
	CHECK_EQ_INT(parse_text("sclat-top 7\n" TRACER "histogram\tread\t1\t2\n"
				"syscall\tread\t0\t5\t1.5\t100\t200\toff\t0\t0\t-\tnew\n",
				fr, err, sizeof(err)),
		     0);
	CHECK_EQ_INT(fr->version, 7);
	CHECK_EQ_INT(fr->nr_rows, 1);
	CHECK_EQ_U64(fr->rows[0].threshold_ns, SCLAT_THRESHOLD_NEVER);
	CHECK_EQ_U64(fr->rows[0].lost_ns, TOP_NONE);
	/* What a tracer of ours never sends, the reader escapes all the same. */
	CHECK_EQ_INT(parse_text("sclat-top 1\n" TRACER "inflight\tread\t1\t2\t\x1b[2J\xff\t5\t6"
				"\tD\t1\n",
				fr, err, sizeof(err)),
		     0);
	CHECK_STR(fr->inflight[0].comm, "\\x1b[2J\\xff");
	free(fr);
}

/* Two frames 1 s of the tracer apart: rates between them, order by key, classes under. */
static void test_view(void)
{
	struct controller_status *a = status_of(5000000000ULL, 1), *b = status_of(6000000000ULL, 2);
	struct top_view *v = top_view_new();
	struct top_frame *f;
	char err[256], *text;
	size_t len;

	f = top_view_next(v);
	text = frame_text(a, 100000000, &len);
	CHECK_EQ_INT(top_frame_parse(text, len, f, err, sizeof(err)), 0);
	f->fetched_ns = 10000000000ULL;
	free(text);
	top_view_take(v, f);
	CHECK(v->since_start, "the first frame: averages since the start");
	f = top_view_next(v);
	CHECK(f != v->cur, "the next frame goes elsewhere");
	text = frame_text(b, 400000000, &len);
	CHECK_EQ_INT(top_frame_parse(text, len, f, err, sizeof(err)), 0);
	f->fetched_ns = 12000000000ULL;
	free(text);
	top_view_take(v, f);
	CHECK(!v->since_start, "rated between two frames");
	/* By time lost: the sleep (and its class under it), read, other. */
	if (!CHECK_EQ_INT(v->nr_rows, 4))
		goto out;
	CHECK_STR(v->rows[0].row->syscall, "clock_nanosleep");
	CHECK_NEAR(v->rows[0].calls_s, 30.0, 1e-9);    /* 60 - 30 calls in 1 s */
	CHECK_NEAR(v->rows[0].outliers_s, 10.0, 1e-9); /* 20 - 10 */
	CHECK_NEAR(v->rows[0].lost_s, 150e6, 1e-9);    /* 300 ms more in 2 s of the client */
	CHECK(v->rows[1].row->cls[0], "the class under its syscall");
	CHECK_STR(v->rows[2].row->syscall, "read");
	CHECK_NEAR(v->rows[2].calls_s, 900.0, 1e-9);
	CHECK(top_view_key(v, 'C'), "C sorts by calls/s");
	top_view_update(v);
	CHECK_STR(v->rows[0].row->syscall, "read");
	CHECK_STR(v->rows[1].row->syscall, "clock_nanosleep");
	CHECK(v->rows[2].row->cls[0], "the class under its syscall");
	CHECK(top_view_key(v, 'R'), "R reverses");
	top_view_update(v);
	CHECK_STR(v->rows[0].row->syscall, "other");
	CHECK(top_view_key(v, '<') && v->sort == TOP_COL_NAME, "< moves left");
	CHECK(top_view_key(v, '<') && v->sort == TOP_COL_NAME, "and stops at the first");
	CHECK(!top_view_key(v, 'x'), "x is no key");
out:
	top_view_free(v);
	free(a);
	free(b);
}

/* The request that asks for a frame, alone on its line. */
static void test_request(void)
{
	struct control_req req;
	char line[32], err[256];

	snprintf(line, sizeof(line), "top");
	CHECK_EQ_INT(control_request_parse(line, &req, err, sizeof(err)), 0);
	CHECK_EQ_INT(req.verb, CONTROL_TOP);
	snprintf(line, sizeof(line), "top 5");
	CHECK_EQ_INT(control_request_parse(line, &req, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "unknown request \"top 5\"");
}

int main(void)
{
	RUN(test_request);
	RUN(test_round_trip);
	RUN(test_refused_and_skipped);
	RUN(test_view);
	return unit_done();
}
