// SPDX-License-Identifier: GPL-2.0-only
/*
 * The metrics page: one family after another, each with its HELP and TYPE,
 * named as Prometheus and ebpf_exporter name theirs (_seconds, _bytes,
 * _total for counters). A syscall's series have no class label (its whole,
 * classes included); its classes' have class="NAME", from the class table,
 * as bounded as it is.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "metrics_render.h"
#include "util/escape.h"
#include "util/syscall_names.h"

/* Room for a label value of n bytes escaped: each byte may become the 5 bytes \\xHH. */
#define LABEL_ESCAPED_SIZE(n) (5 * (n) + 1)

/*
 * v (up to its NUL, at most max bytes) escaped into out, of len bytes:
 * what metrics_label_value() writes between its quotes. What does not fit is
 * left out whole. Returns out.
 */
static const char *label_escape(const char *v, size_t max, char *out, size_t len)
{
	size_t n = strnlen(v, max), o = 0, l, need, k;
	const char *piece;
	unsigned int cp;
	char esc[24];

	while (n) {
		if (*v == '\n') {
			piece = "\\n";
			need = 2;
			l = 1;
		} else if (!text_next(v, n, &l, &cp)) {
			/* The text \xHH: an escaped backslash, then the byte's value (l <= 4). */
			for (k = need = 0; k < l; k++)
				need += snprintf(esc + need, sizeof(esc) - need, "\\\\x%02x",
						 (unsigned char)v[k]);
			piece = esc;
		} else if (*v == '\\' || *v == '"') {
			esc[0] = '\\';
			esc[1] = *v;
			piece = esc;
			need = 2;
		} else {
			piece = v;
			need = l;
		}
		if (o + need >= len)
			break;
		memcpy(out + o, piece, need);
		o += need;
		v += l;
		n -= l;
	}
	out[o] = '\0';
	return out;
}

void metrics_label_value(FILE *f, const char *v, size_t max)
{
	char buf[LABEL_ESCAPED_SIZE(256)];

	fprintf(f, "\"%s\"", label_escape(v, max < 256 ? max : 256, buf, sizeof(buf)));
}

/* ns as seconds, exactly: 1.000000256. */
static void seconds(FILE *f, __u64 ns)
{
	fprintf(f, "%llu.%09llu", (unsigned long long)(ns / 1000000000ULL),
		(unsigned long long)(ns % 1000000000ULL));
}

static void family(FILE *f, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* A series' labels, escaped once for all its lines. */
#define LABELS_MAX (64 + LABEL_ESCAPED_SIZE(BASIS_CLASS_MAX))

/* syscall="read",class="..." (when class_name is not empty), into buf of LABELS_MAX. */
static const char *labels(char *buf, unsigned int nr, const char *class_name)
{
	char name[32], cls[LABEL_ESCAPED_SIZE(BASIS_CLASS_MAX)];

	syscall_label(nr, "other", name, sizeof(name));
	if (class_name && *class_name)
		snprintf(buf, LABELS_MAX, "syscall=\"%s\",class=\"%s\"", name,
			 label_escape(class_name, BASIS_CLASS_MAX, cls, sizeof(cls)));
	else
		snprintf(buf, LABELS_MAX, "syscall=\"%s\"", name);
	return buf;
}

static int series_cmp(const void *a, const void *b)
{
	const struct latency_series *x = a, *y = b;

	if (x->nr != y->nr)
		return x->nr < y->nr ? -1 : 1;
	return strncmp(x->class_name, y->class_name, BASIS_CLASS_MAX);
}

static int row_cmp(const void *a, const void *b)
{
	const struct syscall_status *x = a, *y = b;

	if (x->nr != y->nr)
		return x->nr < y->nr ? -1 : 1;
	return strncmp(x->basis.class_name, y->basis.class_name, BASIS_CLASS_MAX);
}

/*
 * The series sorted, those of one label set merged: two classes may have one
 * name (a cgroup made again at its path, while the old one's class has not
 * retired yet), and a page must not hold a series twice. *n: how many left.
 */
static struct latency_series *series_merged(const struct metrics_snapshot *s, size_t *n)
{
	struct latency_series *m = malloc((s->nr_series + 1) * sizeof(*m));
	size_t k, out = 0;
	unsigned int i;

	if (!m)
		return NULL;
	if (s->nr_series)
		memcpy(m, s->series, s->nr_series * sizeof(*m));
	qsort(m, s->nr_series, sizeof(*m), series_cmp);
	for (k = 0; k < s->nr_series; k++) {
		struct latency_series *last = out ? &m[out - 1] : NULL;

		if (last && !series_cmp(last, &m[k])) {
			for (i = 0; i < LATENCY_LE_BUCKETS; i++)
				last->h.in[i] += m[k].h.in[i];
			last->h.count += m[k].h.count;
			last->h.sum_ns += m[k].h.sum_ns;
			continue;
		}
		m[out++] = m[k];
	}
	*n = out;
	return m;
}

/*
 * The classes' rows sorted, those of one name and syscall merged (as the
 * series are): counts added, the threshold and normal of the busiest.
 */
static struct syscall_status *class_rows_merged(const struct controller_status *st, size_t *n)
{
	size_t k, out = 0,
		  nr = st->nr_classes < CONTROLLER_STATUS_CLASSES ? st->nr_classes
								  : CONTROLLER_STATUS_CLASSES;
	struct syscall_status *m = malloc((nr + 1) * sizeof(*m));

	if (!m)
		return NULL;
	for (k = 0; k < nr; k++)
		m[k] = st->classes[k].s;
	qsort(m, nr, sizeof(*m), row_cmp);
	for (k = 0; k < nr; k++) {
		struct syscall_status *last = out ? &m[out - 1] : NULL, add = m[k];

		if (!last || row_cmp(last, &add)) {
			m[out++] = add;
			continue;
		}
		/* The busier one's threshold and normal stay; the counts add up. */
		if (add.calls > last->calls) {
			struct syscall_status was = *last;

			*last = add;
			add = was;
		}
		last->calls += add.calls;
		last->outliers += add.outliers;
		last->throttled += add.throttled;
		last->drops += add.drops;
	}
	*n = out;
	return m;
}

static void histograms(FILE *f, const struct latency_series *series, size_t nr_series)
{
	const char *name = "sclat_syscall_latency_seconds";
	char le[LATENCY_LE_BUCKETS][24], l[LABELS_MAX];
	size_t k;
	unsigned int i;

	family(f, name, "histogram",
	       "Latency of each syscall (with class: of its calls of that class) since sclat "
	       "started; buckets 2^k ns, k 8..33, of sclat's own");
	for (i = 0; i < LATENCY_LE_BUCKETS; i++)
		snprintf(le[i], sizeof(le[i]), "%llu.%09llu",
			 (unsigned long long)(latency_le_ns(i) / 1000000000ULL),
			 (unsigned long long)(latency_le_ns(i) % 1000000000ULL));
	for (k = 0; k < nr_series; k++) {
		const struct latency_series *x = &series[k];
		__u64 cum = 0;

		labels(l, x->nr, x->class_name);
		for (i = 0; i < LATENCY_LE_BUCKETS; i++) {
			cum += x->h.in[i];
			fprintf(f, "%s_bucket{%s,le=\"%s\"} %llu\n", name, l, le[i],
				(unsigned long long)cum);
		}
		fprintf(f, "%s_bucket{%s,le=\"+Inf\"} %llu\n%s_sum{%s} ", name, l,
			(unsigned long long)x->h.count, name, l);
		seconds(f, x->h.sum_ns);
		fprintf(f, "\n%s_count{%s} %llu\n", name, l, (unsigned long long)x->h.count);
	}
}

/* What a status row gives: a count, or a latency in ns (0 / never: no sample). */
enum row_value { ROW_CALLS, ROW_OUTLIERS, ROW_THROTTLED, ROW_DROPS, ROW_THRESHOLD, ROW_NORMAL };

struct row_family {
	const char *name, *type, *help;
	enum row_value what;
	bool classes; /* its classes' rows too */
};

static const struct row_family row_families[] = {
	{ "sclat_syscall_calls_total", "counter",
	  "Calls since sclat started (a class's: estimated where calls are sampled)", ROW_CALLS,
	  true },
	{ "sclat_syscall_outliers_total", "counter",
	  "Calls over their threshold the kernel reported since sclat started", ROW_OUTLIERS,
	  true },
	{ "sclat_syscall_throttled_total", "counter",
	  "Outliers the burst guard held back since sclat started", ROW_THROTTLED, true },
	{ "sclat_syscall_dropped_total", "counter",
	  "Outliers lost to a full ring buffer since sclat started", ROW_DROPS, true },
	{ "sclat_syscall_threshold_seconds", "gauge",
	  "The threshold in force (none: the syscall is off)", ROW_THRESHOLD, true },
	{ "sclat_syscall_normal_seconds", "gauge",
	  "The quantile estimate the threshold was set from (none: a static threshold)", ROW_NORMAL,
	  true },
};

/* Whether row s has a sample for what, and its value in *v (a count, or ns). */
static bool row_value(const struct syscall_status *s, enum row_value what, __u64 *v)
{
	switch (what) {
	case ROW_CALLS:
		*v = s->calls;
		return true;
	case ROW_OUTLIERS:
		*v = s->outliers;
		return true;
	case ROW_THROTTLED:
		*v = s->throttled;
		return true;
	case ROW_DROPS:
		*v = s->drops;
		return true;
	case ROW_THRESHOLD:
		*v = s->threshold_ns;
		return s->threshold_ns != SCLAT_THRESHOLD_NEVER;
	case ROW_NORMAL:
		*v = s->basis.estimate_ns;
		return s->basis.estimate_ns != 0;
	}
	return false;
}

static void row_sample(FILE *f, const char *name, const struct syscall_status *s,
		       const char *class_name, enum row_value what)
{
	char l[LABELS_MAX];
	__u64 v;

	if (!row_value(s, what, &v))
		return;
	fprintf(f, "%s{%s} ", name, labels(l, s->nr, class_name));
	if (what == ROW_THRESHOLD || what == ROW_NORMAL)
		seconds(f, v);
	else
		fprintf(f, "%llu", (unsigned long long)v);
	fputc('\n', f);
}

static void rows(FILE *f, const struct controller_status *st, const struct syscall_status *classes,
		 size_t nr_classes)
{
	unsigned int k, i;

	for (k = 0; k < sizeof(row_families) / sizeof(row_families[0]); k++) {
		const struct row_family *r = &row_families[k];

		family(f, r->name, r->type, r->help);
		for (i = 0; i < st->nr_syscalls && i <= SCLAT_MAX_SYSCALLS; i++)
			row_sample(f, r->name, &st->syscalls[i], NULL, r->what);
		for (i = 0; r->classes && i < nr_classes; i++)
			row_sample(f, r->name, &classes[i], classes[i].basis.class_name, r->what);
	}
}

/* The calls in flight past their threshold at the last scan, per syscall. */
static void inflight(FILE *f, const struct controller_status *st)
{
	char l[LABELS_MAX];
	unsigned int i, j, n;

	family(f, "sclat_calls_in_flight", "gauge",
	       "Calls in flight past their threshold at the last scan (one interval)");
	for (i = 0; i < st->nr_inflight && i < CONTROLLER_INFLIGHT_MAX; i++) {
		/* Each syscall once, at its first call in the list. */
		for (j = 0; j < i && st->inflight[j].nr != st->inflight[i].nr; j++)
			;
		if (j < i)
			continue;
		for (n = 0, j = i; j < st->nr_inflight && j < CONTROLLER_INFLIGHT_MAX; j++)
			n += st->inflight[j].nr == st->inflight[i].nr;
		fprintf(f, "sclat_calls_in_flight{%s} %u\n", labels(l, st->inflight[i].nr, NULL),
			n);
	}
}

static void counter_ns(FILE *f, const char *name, const char *help, __u64 ns)
{
	family(f, name, "counter", help);
	fprintf(f, "%s ", name);
	seconds(f, ns);
	fputc('\n', f);
}

static void plain(FILE *f, const char *name, const char *type, const char *help,
		  unsigned long long v)
{
	family(f, name, type, help);
	fprintf(f, "%s %llu\n", name, v);
}

/* What sclat costs: its BPF programs, its threads, explaining the outliers. */
static void costs(FILE *f, const struct metrics_snapshot *s)
{
	const struct controller_status *st = s->st;
	int k;

	family(f, "sclat_bpf_run_seconds_total", "counter",
	       "Time in each of sclat's BPF programs, over the intervals measured with the "
	       "kernel's BPF statistics (1 in 10)");
	for (k = 0; k < st->nr_progs; k++) {
		if (!st->progs[k].name)
			continue;
		fputs("sclat_bpf_run_seconds_total{program=", f);
		metrics_label_value(f, st->progs[k].name, 64);
		fputs("} ", f);
		seconds(f, st->progs[k].run_time_ns);
		fputc('\n', f);
	}
	family(f, "sclat_bpf_runs_total", "counter",
	       "Runs of each of sclat's BPF programs, over the same intervals");
	for (k = 0; k < st->nr_progs; k++) {
		if (!st->progs[k].name)
			continue;
		fputs("sclat_bpf_runs_total{program=", f);
		metrics_label_value(f, st->progs[k].name, 64);
		fprintf(f, "} %llu\n", (unsigned long long)st->progs[k].run_cnt);
	}
	family(f, "sclat_bpf_seconds_per_syscall", "gauge",
	       "What sclat's programs add to each syscall, all of them together");
	fputs("sclat_bpf_seconds_per_syscall ", f);
	seconds(f, st->ns_per_syscall);
	fputc('\n', f);
	counter_ns(f, "sclat_controller_cpu_seconds_total",
		   "CPU time of the threshold controller's thread", s->controller_cpu_ns);
	counter_ns(f, "sclat_process_cpu_seconds_total",
		   "CPU time of sclat's process, every thread", s->process_cpu_ns);
	counter_ns(
		f, "sclat_explain_bpf_seconds_total",
		"Time explaining the outliers delivered in the kernel (stacks, targets, records)",
		st->explain_bpf_ns);
	counter_ns(f, "sclat_explain_user_seconds_total",
		   "Time decoding the outliers delivered in userspace", st->explain_user_ns);
	counter_ns(f, "sclat_unwind_seconds_total",
		   "Time unwinding the outliers' user stacks and naming their frames",
		   st->user_stacks.unwind_ns + st->user_stacks.name_ns);
	plain(f, "sclat_user_stacks_unwound_total", "counter", "User stacks unwound",
	      st->user_stacks.unwound);
	plain(f, "sclat_user_stacks_dropped_total", "counter",
	      "User stacks not unwound: the queue was full, or the ring buffer filling",
	      st->user_stacks.dropped);
}

int metrics_render(const struct metrics_snapshot *s, FILE *f)
{
	const struct controller_status *st = s->st;
	struct latency_series *series;
	struct syscall_status *classes;
	size_t nr_series, nr_classes;

	series = series_merged(s, &nr_series);
	classes = class_rows_merged(st, &nr_classes);
	if (!series || !classes) {
		free(series);
		free(classes);
		return -ENOMEM;
	}

	family(f, "sclat_build_info", "gauge", "sclat's version and ABI version");
	fputs("sclat_build_info{version=", f);
	metrics_label_value(f, s->version, 64);
	fprintf(f, ",abi=\"%u\"} 1\n", s->abi);
	histograms(f, series, nr_series);
	rows(f, st, classes, nr_classes);
	free(series);
	free(classes);
	inflight(f, st);
	family(f, "sclat_budget_outliers_per_second", "gauge",
	       "Outliers a second the policy allows the whole system (0: no budget)");
	fprintf(f, "sclat_budget_outliers_per_second %llu\n", (unsigned long long)s->budget.budget);
	family(f, "sclat_outlier_demand_per_second", "gauge",
	       "Outliers a second the syscalls emitted, throttled or dropped over the last "
	       "interval (over the budget: the heaviest get higher quantiles)");
	fprintf(f, "sclat_outlier_demand_per_second %.3f\n", s->budget.demand);
	plain(f, "sclat_outliers_delivered_total", "counter",
	      "Outliers delivered to sclat's outputs", st->totals.outliers);
	plain(f, "sclat_threshold_changes_total", "counter", "Thresholds moved",
	      st->totals.threshold_changes);
	plain(f, "sclat_ringbuf_used_bytes", "gauge", "Bytes waiting in the ring buffer",
	      st->ringbuf_used);
	plain(f, "sclat_ringbuf_size_bytes", "gauge", "Size of the ring buffer", st->ringbuf_size);
	costs(f, s);
	plain(f, "sclat_class_ids", "gauge",
	      "Processes, cgroups, thread names or titles with a class id", st->class_ids);
	plain(f, "sclat_class_ids_refused_total", "counter", "Classes refused an id: none was left",
	      st->class_ids_refused);
	return ferror(f) ? -EIO : 0;
}
