// SPDX-License-Identifier: GPL-2.0-only
/* One frame of `sclat top` written by the tracer (top_frame.h; read: top_frame_parse.c). */
#include <unistd.h>
#include "top_frame.h"
#include "util/syscall_names.h"

static void threshold_write(FILE *f, __u64 ns)
{
	if (ns == SCLAT_THRESHOLD_NEVER)
		fprintf(f, "\toff");
	else
		fprintf(f, "\t%llu", (unsigned long long)ns);
}

static void lost_write(FILE *f, long long ns)
{
	if (ns < 0)
		fprintf(f, "\t-");
	else
		fprintf(f, "\t%lld", ns);
}

static void rows_write(FILE *f, const struct controller_status *st, const struct policy *p,
		       const struct recent_lost *lost)
{
	char name[32], cls[TOP_NAME_LEN];
	unsigned int i;

	for (i = 0; i < st->nr_syscalls && i <= SCLAT_MAX_SYSCALLS; i++) {
		const struct syscall_status *s = &st->syscalls[i];
		bool own = s->nr < SCLAT_MAX_SYSCALLS;

		fprintf(f, "syscall\t%s\t%d\t%llu\t%.1f\t%llu\t%llu",
			syscall_label(s->nr, "other", name, sizeof(name)), own ? (int)s->nr : -1,
			(unsigned long long)s->calls, s->rate, (unsigned long long)s->p50_ns,
			(unsigned long long)s->p99_ns);
		if (own)
			threshold_write(f, s->threshold_ns);
		else
			fprintf(f, "\t-");
		fprintf(f, "\t%d\t%llu",
			own && !s->armed && p && p->rules[s->nr].mode == POLICY_ADAPTIVE,
			(unsigned long long)s->outliers);
		lost_write(f, own && lost ? (long long)lost->by_nr[s->nr] : -1);
		fprintf(f, "\n");
	}
	for (i = 0; i < st->nr_classes && i < CONTROLLER_STATUS_CLASSES; i++) {
		const struct class_status *c = &st->classes[i];
		const struct syscall_status *s = &c->s;

		fprintf(f, "class\t%u\t%s\t%llu\t%.1f\t%llu\t%llu", s->nr,
			text_escape(s->basis.class_name, sizeof(s->basis.class_name), cls,
				    sizeof(cls)),
			(unsigned long long)s->calls, s->rate, (unsigned long long)s->p50_ns,
			(unsigned long long)s->p99_ns);
		threshold_write(f, s->threshold_ns);
		fprintf(f, "\t%d\t%llu", c->fallback, (unsigned long long)s->outliers);
		lost_write(f, lost ? recent_lost_class(lost, s->nr, s->basis.class_name) : -1);
		fprintf(f, "\n");
	}
}

/* A line as watch printed it: escaped already; a stray control byte would end the field. */
static void line_write(FILE *f, const char *line)
{
	for (; *line; line++)
		fputc((unsigned char)*line < 0x20 || *line == 0x7f ? '?' : *line, f);
}

void top_frame_write(FILE *f, const struct controller_status *st, const struct policy *p,
		     const struct recent_outlier *outliers, unsigned int nr_outliers,
		     const struct recent_lost *lost)
{
	char name[32], comm[TOP_NAME_LEN];
	unsigned int i;

	fprintf(f, "sclat-top %d\n", TOP_FRAME_VERSION);
	fprintf(f, "tracer\t%d\t%llu\t%llu\t%llu\t%llu\t%llu\t%llu\t%llu\n", getpid(),
		(unsigned long long)st->elapsed_ns, (unsigned long long)st->interval_ns,
		(unsigned long long)st->totals.syscalls, (unsigned long long)st->totals.outliers,
		(unsigned long long)st->totals.throttled, (unsigned long long)st->totals.drops,
		(unsigned long long)st->ns_per_syscall);
	rows_write(f, st, p, lost);
	for (i = 0; i < st->nr_inflight && i < CONTROLLER_INFLIGHT_MAX; i++) {
		const struct inflight_call *c = &st->inflight[i];

		fprintf(f, "inflight\t%s\t%u\t%u\t%s\t%llu",
			syscall_name_or_nr(c->nr, name, sizeof(name)), c->pid, c->tid,
			text_escape(c->comm, sizeof(c->comm), comm, sizeof(comm)),
			(unsigned long long)c->inflight_ns);
		threshold_write(f, c->threshold_ns);
		fprintf(f, "\t%s\t%u\n", inflight_state_name(c->state), c->reports);
	}
	for (i = 0; i < nr_outliers && i < RECENT_OUTLIERS_KEPT; i++) {
		const struct recent_outlier *o = &outliers[i];

		fprintf(f, "outlier\t%lld\t%u\t%llu\t%llu\t", (long long)o->entry_epoch_ns, o->nr,
			(unsigned long long)o->latency_ns, (unsigned long long)o->threshold_ns);
		line_write(f, o->line);
		fprintf(f, "\n");
	}
}
