// SPDX-License-Identifier: GPL-2.0-only
/*
 * A frame of `sclat top` read back (top_frame.h), apart from its writer: pure,
 * no tracer state, so that it is fuzzed alone (tests/fuzz/fuzz_top_frame.c).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "top_frame.h"

/* The most fields a line of this version has, and room for those a later one adds. */
#define TOP_FIELDS_MAX 24

/*
 * The client's copy of a text field: what the tracer escaped stays as it is
 * (its backslashes too); anything a terminal would act on, which a tracer of
 * ours never sends, is escaped here all the same.
 */
static void text_copy(char *dst, size_t dlen, const char *s)
{
	size_t n = strlen(s), used = 0, len, i;
	unsigned int cp;

	while (n) {
		int ok = text_next(s, n, &len, &cp);
		size_t need = ok ? len : 4 * len;

		if (used + need >= dlen)
			break;
		if (ok) {
			memcpy(dst + used, s, len);
			used += len;
		} else {
			for (i = 0; i < len; i++)
				used += snprintf(dst + used, dlen - used, "\\x%02x",
						 (unsigned char)s[i]);
		}
		s += len;
		n -= len;
	}
	dst[used] = '\0';
}

/* A decimal field; false when it is not one. */
static bool u64_of(const char *s, __u64 *v)
{
	char *end;

	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return !errno && !*end;
}

static bool s64_of(const char *s, __s64 *v)
{
	__u64 u;

	if (*s == '-') {
		if (!u64_of(s + 1, &u) || u > (1ULL << 63))
			return false;
		*v = (__s64)(0 - u);
		return true;
	}
	if (!u64_of(s, &u) || u > (__u64)INT64_MAX)
		return false;
	*v = (__s64)u;
	return true;
}

static bool int_of(const char *s, int *v)
{
	__s64 x;

	if (!s64_of(s, &x) || x < -1 || x > 0x3fffffff)
		return false;
	*v = (int)x;
	return true;
}

static bool double_of(const char *s, double *v)
{
	char *end;

	*v = strtod(s, &end);
	return end != s && !*end && *v >= 0 && *v < 1e15;
}

/* A threshold: "off", "-", or ns. */
static bool threshold_of(const char *s, __u64 *v)
{
	if (!strcmp(s, "off"))
		*v = SCLAT_THRESHOLD_NEVER;
	else if (!strcmp(s, "-"))
		*v = TOP_NONE;
	else
		return u64_of(s, v) && *v < TOP_NONE;
	return true;
}

static bool lost_of(const char *s, __u64 *v)
{
	if (!strcmp(s, "-")) {
		*v = TOP_NONE;
		return true;
	}
	return u64_of(s, v) && *v < TOP_NONE;
}

/* "syscall NAME NR ..." or "class NR NAME ...": the row's fields from f[3] on are alike. */
static bool row_parse(char **f, int n, struct top_frame *fr)
{
	struct top_row *r;
	int flag;

	if (n < 11 || fr->nr_rows == TOP_FRAME_ROWS)
		return false;
	r = &fr->rows[fr->nr_rows];
	memset(r, 0, sizeof(*r));
	if (!strcmp(f[0], "syscall")) {
		text_copy(r->syscall, sizeof(r->syscall), f[1]);
		if (!int_of(f[2], &r->nr))
			return false;
	} else {
		if (!int_of(f[1], &r->nr) || r->nr < 0)
			return false;
		text_copy(r->cls, sizeof(r->cls), f[2]);
		if (!r->cls[0])
			return false;
	}
	if (!u64_of(f[3], &r->calls) || !double_of(f[4], &r->rate) || !u64_of(f[5], &r->p50_ns) ||
	    !u64_of(f[6], &r->p99_ns) || !threshold_of(f[7], &r->threshold_ns) ||
	    !int_of(f[8], &flag) || !u64_of(f[9], &r->outliers) || !lost_of(f[10], &r->lost_ns))
		return false;
	r->initial = flag > 0;
	fr->nr_rows++;
	return true;
}

static bool inflight_parse(char **f, int n, struct top_frame *fr)
{
	struct top_inflight *c;
	__u64 reports;

	if (n < 9 || fr->nr_inflight == CONTROLLER_INFLIGHT_MAX)
		return false;
	c = &fr->inflight[fr->nr_inflight];
	text_copy(c->syscall, sizeof(c->syscall), f[1]);
	text_copy(c->comm, sizeof(c->comm), f[4]);
	text_copy(c->state, sizeof(c->state), f[7]);
	if (!int_of(f[2], &c->pid) || !int_of(f[3], &c->tid) || !u64_of(f[5], &c->inflight_ns) ||
	    !threshold_of(f[6], &c->threshold_ns) || !u64_of(f[8], &reports) || reports > ~0U)
		return false;
	c->reports = reports;
	fr->nr_inflight++;
	return true;
}

static bool outlier_parse(char **f, int n, struct top_frame *fr)
{
	struct top_outlier *o;

	if (n < 6 || fr->nr_outliers == RECENT_OUTLIERS_KEPT)
		return false;
	o = &fr->outliers[fr->nr_outliers];
	if (!s64_of(f[1], &o->epoch_ns) || !int_of(f[2], &o->nr) || !u64_of(f[3], &o->latency_ns) ||
	    !u64_of(f[4], &o->threshold_ns))
		return false;
	text_copy(o->line, sizeof(o->line), f[5]);
	fr->nr_outliers++;
	return true;
}

static bool tracer_parse(char **f, int n, struct top_frame *fr)
{
	__u64 pid;

	return n >= 9 && u64_of(f[1], &pid) && pid > 0 && pid <= 0x3fffffff &&
	       (fr->pid = (int)pid) && u64_of(f[2], &fr->elapsed_ns) &&
	       u64_of(f[3], &fr->interval_ns) && u64_of(f[4], &fr->syscalls) &&
	       u64_of(f[5], &fr->outliers_total) && u64_of(f[6], &fr->throttled) &&
	       u64_of(f[7], &fr->drops) && u64_of(f[8], &fr->ns_per_syscall);
}

/* One line of the frame; false when a kind this version knows is malformed. */
static bool line_parse(char *line, struct top_frame *fr)
{
	char *f[TOP_FIELDS_MAX], *tok;
	int n = 0;

	/* Empty fields are fields: strsep, not strtok. */
	for (tok = strsep(&line, "\t"); tok && n < TOP_FIELDS_MAX; tok = strsep(&line, "\t"))
		f[n++] = tok;
	if (!n)
		return true;
	if (!strcmp(f[0], "tracer"))
		return tracer_parse(f, n, fr);
	if (!strcmp(f[0], "syscall") || !strcmp(f[0], "class"))
		return row_parse(f, n, fr);
	if (!strcmp(f[0], "inflight"))
		return inflight_parse(f, n, fr);
	if (!strcmp(f[0], "outlier"))
		return outlier_parse(f, n, fr);
	/* A kind of a later version. */
	return true;
}

int top_frame_parse(char *body, size_t len, struct top_frame *fr, char *err, size_t errlen)
{
	char *line, *next, *end = body + len;
	unsigned int lineno = 1;
	__u64 version;

	memset(fr, 0, sizeof(*fr));
	if (len > TOP_FRAME_MAX || memchr(body, '\0', len)) {
		snprintf(err, errlen, "not a frame of sclat top (%s)",
			 len > TOP_FRAME_MAX ? "too big" : "a NUL byte");
		return -EINVAL;
	}
	next = memchr(body, '\n', len);
	if (!next || strncmp(body, "sclat-top ", 10) ||
	    (*next = '\0', !u64_of(body + 10, &version)) || !version || version > 0xffff) {
		snprintf(err, errlen, "not a frame of sclat top (no \"sclat-top VERSION\" line)");
		return -EINVAL;
	}
	fr->version = (int)version;
	for (line = next + 1; line < end; line = next + 1) {
		lineno++;
		next = memchr(line, '\n', end - line);
		if (!next) {
			snprintf(err, errlen, "line %u: not ended", lineno);
			return -EINVAL;
		}
		*next = '\0';
		if (!line_parse(line, fr)) {
			snprintf(err, errlen, "line %u: malformed, or one too many of its kind",
				 lineno);
			return -EINVAL;
		}
	}
	if (!fr->pid) {
		snprintf(err, errlen, "no tracer line");
		return -EINVAL;
	}
	return 0;
}
