// SPDX-License-Identifier: GPL-2.0-only
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "status_render.h"
#include "status_fits.h"
#include "controller/classes_auto.h"
#include "util/duration.h"
#include "util/escape.h"
#include "util/json.h"
#include "util/syscall_names.h"

static int ncpus(void)
{
	int n = libbpf_num_possible_cpus();

	return n > 0 ? n : 1;
}

/* A total over the outliers delivered, per outlier. */
static __u64 per_outlier(const struct controller_status *st, __u64 total)
{
	return st->totals.outliers ? total / st->totals.outliers : 0;
}

/* A total over the user stacks unwound, per stack. */
static __u64 per_stack(const struct user_stack_costs *u, __u64 total)
{
	return u->unwound ? total / u->unwound : 0;
}

static void user_stacks_json(const struct user_stack_costs *u, FILE *f)
{
	fprintf(f,
		",\"user_stacks\":{\"on\":%s,\"queued\":%llu,\"dropped\":%llu,\"unwound\":%llu,"
		"\"frames\":%llu,\"unwind_ns\":%llu,\"name_ns\":%llu,\"unwind_ns_per_stack\":%llu,"
		"\"name_ns_per_stack\":%llu,\"unwind_ns_max\":%llu,\"name_ns_max\":%llu,"
		"\"wait_ns_max\":%llu,\"queue_slots\":%u,\"queue_max_depth\":%u}",
		u->on ? "true" : "false", (unsigned long long)u->queued,
		(unsigned long long)u->dropped, (unsigned long long)u->unwound,
		(unsigned long long)u->frames, (unsigned long long)u->unwind_ns,
		(unsigned long long)u->name_ns, (unsigned long long)per_stack(u, u->unwind_ns),
		(unsigned long long)per_stack(u, u->name_ns), (unsigned long long)u->unwind_ns_max,
		(unsigned long long)u->name_ns_max, (unsigned long long)u->wait_ns_max,
		u->queue_slots, u->queue_max_depth);
}

/* One line: what unwinding cost per stack, and how full the queue got. */
static void user_stacks_text(const struct user_stack_costs *u, FILE *f)
{
	char a[16], b[16], c[16];

	if (!u->on) {
		fprintf(f, "user stacks: off\n");
		return;
	}
	fprintf(f,
		"user stacks: %llu unwound, %s + %s naming per stack (longest wait %s); "
		"%llu dropped, queue %u of %u at most\n",
		(unsigned long long)u->unwound,
		duration_format(per_stack(u, u->unwind_ns), a, sizeof(a)),
		duration_format(per_stack(u, u->name_ns), b, sizeof(b)),
		duration_format(u->wait_ns_max, c, sizeof(c)), (unsigned long long)u->dropped,
		u->queue_max_depth, u->queue_slots);
}

/* A threshold in JSON: null for one that is never reported (its syscall is off). */
static void threshold_json(__u64 threshold_ns, FILE *f)
{
	if (threshold_ns == SCLAT_THRESHOLD_NEVER)
		fprintf(f, "null");
	else
		fprintf(f, "%llu", (unsigned long long)threshold_ns);
}

/*
 * One JSON row, left open for the caller to close: syscall s's, or (c not
 * NULL, s is &c->s) one of its classes'. Both give the calls, their
 * latencies and the threshold; a syscall its mode and its losses, a class
 * what its threshold stands on and whether it is its own.
 */
static void row_write_json(const struct policy *p, const struct syscall_status *s,
			   const struct class_status *c, FILE *f)
{
	char name[32];

	if (c) {
		fprintf(f, "{\"class\":");
		json_string(f, s->basis.class_name);
	} else {
		/* The syscalls without a histogram of their own: as in the summary. */
		fprintf(f, "{\"syscall\":\"%s\",\"nr\":%d",
			syscall_label(s->nr, "other", name, sizeof(name)),
			s->nr < SCLAT_MAX_SYSCALLS ? (int)s->nr : -1);
		if (p && s->nr < SCLAT_MAX_SYSCALLS)
			fprintf(f, ",\"mode\":\"%s\"", policy_mode_name(p->rules[s->nr].mode));
	}
	fprintf(f,
		",\"calls\":%llu,\"rate\":%.1f,\"p50_ns\":%llu,\"p99_ns\":%llu,"
		"\"p999_ns\":%llu,\"threshold_ns\":",
		(unsigned long long)s->calls, s->rate, (unsigned long long)s->p50_ns,
		(unsigned long long)s->p99_ns, (unsigned long long)s->p999_ns);
	threshold_json(s->threshold_ns, f);
	status_basis_json(s, f);
	if (c) {
		fprintf(f, ",\"estimate_ns\":%llu,\"samples\":%llu,\"outliers\":%llu,\"own\":%s",
			(unsigned long long)s->basis.estimate_ns,
			(unsigned long long)s->basis.samples, (unsigned long long)s->outliers,
			c->fallback ? "false" : "true");
		if (c->auto_state != CLASSES_AUTO_NONE) {
			fprintf(f, ",\"auto\":\"%s\",\"judged_by\":",
				c->auto_state == CLASSES_AUTO_SPLIT ? "split" : "merged");
			json_string(f, c->judged_by);
		}
		return;
	}
	fprintf(f, ",\"armed\":%s,\"outliers\":%llu,\"throttled\":%llu,\"drops\":%llu",
		s->armed ? "true" : "false", (unsigned long long)s->outliers,
		(unsigned long long)s->throttled, (unsigned long long)s->drops);
	fprintf(f, ",\"braked\":%llu", (unsigned long long)s->braked);
	fprintf(f, ",\"sampled_under_ns\":%llu", (unsigned long long)s->sampled_under_ns);
}

/* Syscall s's classes, as members of its JSON object. */
static void classes_write_json(const struct controller_status *st, const struct policy *p,
			       const struct syscall_status *s, FILE *f)
{
	unsigned int i, n = 0;

	fprintf(f, ",\"classes\":[");
	for (i = 0; i < st->nr_classes && i < CONTROLLER_STATUS_CLASSES; i++) {
		const struct class_status *c = &st->classes[i];

		if (c->s.nr != s->nr)
			continue;
		fprintf(f, "%s", n++ ? "," : "");
		row_write_json(p, &c->s, c, f);
		fprintf(f, "}");
	}
	fprintf(f, "],\"classes_refused\":%llu", (unsigned long long)s->classes_refused);
}

static void syscalls_write_json(const struct controller_status *st, const struct policy *p, FILE *f)
{
	unsigned int i;

	fprintf(f, ",\"syscalls\":[");
	for (i = 0; i < st->nr_syscalls && i <= SCLAT_MAX_SYSCALLS; i++) {
		const struct syscall_status *s = &st->syscalls[i];

		fprintf(f, "%s", i ? "," : "");
		row_write_json(p, s, NULL, f);
		if (p && s->nr < SCLAT_MAX_SYSCALLS && p->rules[s->nr].classes)
			classes_write_json(st, p, s, f);
		fprintf(f, "}");
	}
	fprintf(f, "]");
}

static void inflight_write_json(const struct controller_status *st, FILE *f)
{
	unsigned int i;

	fprintf(f, ",\"inflight\":[");
	for (i = 0; i < st->nr_inflight && i < CONTROLLER_INFLIGHT_MAX; i++) {
		const struct inflight_call *c = &st->inflight[i];
		char name[32];

		fprintf(f, "%s{\"syscall\":\"%s\",\"nr\":%u,\"pid\":%u,\"tid\":%u,\"comm\":",
			i ? "," : "", syscall_name_or_nr(c->nr, name, sizeof(name)), c->nr, c->pid,
			c->tid);
		json_string_n(f, c->comm, sizeof(c->comm));
		fprintf(f, ",\"ts_ns\":%llu,\"inflight_ns\":%llu,\"threshold_ns\":",
			(unsigned long long)c->entry_ns, (unsigned long long)c->inflight_ns);
		/* A syscall that is off has no threshold. */
		threshold_json(c->threshold_ns, f);
		fprintf(f, ",\"state\":\"%s\",\"reports\":%u}", inflight_state_name(c->state),
			c->reports);
	}
	fprintf(f, "]");
}

void status_write_json(const struct controller_status *st, const struct policy *p,
		       const char *source, FILE *f)
{
	int cpus = ncpus(), k;

	fprintf(f, "{\"pid\":%d,\"elapsed_ns\":%llu,\"interval_ns\":%llu,\"policy\":", getpid(),
		(unsigned long long)st->elapsed_ns, (unsigned long long)st->interval_ns);
	json_string(f, source);
	fprintf(f, ",\"attach\":");
	json_string(f, st->attach_kind ? st->attach_kind : "");
	fprintf(f,
		",\"totals\":{\"syscalls\":%llu,\"outliers\":%llu,\"drops\":%llu,"
		"\"throttled\":%llu,\"braked\":%llu,\"threshold_changes\":%llu}",
		(unsigned long long)st->totals.syscalls, (unsigned long long)st->totals.outliers,
		(unsigned long long)st->totals.drops, (unsigned long long)st->totals.throttled,
		(unsigned long long)st->totals.braked,
		(unsigned long long)st->totals.threshold_changes);
	fprintf(f, ",\"ns_per_syscall\":%llu,\"progs\":[", (unsigned long long)st->ns_per_syscall);
	for (k = 0; k < st->nr_progs; k++) {
		fprintf(f, "%s{\"name\":", k ? "," : "");
		json_string(f, st->progs[k].name);
		fprintf(f, ",\"run_cnt\":%llu,\"run_time_ns\":%llu}",
			(unsigned long long)st->progs[k].run_cnt,
			(unsigned long long)st->progs[k].run_time_ns);
	}
	fprintf(f,
		"],\"memory\":{\"per_cpu_bytes\":%llu,\"ncpus\":%d,\"fixed_bytes\":%llu,"
		"\"total_bytes\":%llu}",
		(unsigned long long)st->mem.per_cpu, cpus, (unsigned long long)st->mem.fixed,
		(unsigned long long)(st->mem.per_cpu * cpus + st->mem.fixed));
	fprintf(f,
		",\"ringbuf\":{\"used_bytes\":%llu,\"size_bytes\":%llu}"
		",\"consumer_lag_ns\":%llu",
		(unsigned long long)st->ringbuf_used, (unsigned long long)st->ringbuf_size,
		(unsigned long long)st->consumer_lag_ns);
	fprintf(f,
		",\"explain\":{\"bpf_ns\":%llu,\"user_ns\":%llu,\"bpf_ns_per_outlier\":%llu,"
		"\"user_ns_per_outlier\":%llu,\"kernel_stacks\":%llu,\"kernel_stacks_skipped\":%llu,"
		"\"wakers_lost\":%llu,\"backs_unseen\":%llu}",
		(unsigned long long)st->explain_bpf_ns, (unsigned long long)st->explain_user_ns,
		(unsigned long long)per_outlier(st, st->explain_bpf_ns),
		(unsigned long long)per_outlier(st, st->explain_user_ns),
		(unsigned long long)st->kernel_stacks,
		(unsigned long long)st->kernel_stacks_skipped, (unsigned long long)st->wakers_lost,
		(unsigned long long)st->backs_unseen);
	user_stacks_json(&st->user_stacks, f);
	fprintf(f, ",\"class_ids\":%u,\"class_ids_refused\":%llu,\"class_requests_lost\":%llu",
		st->class_ids, (unsigned long long)st->class_ids_refused,
		(unsigned long long)st->class_requests_lost);
	fprintf(f, ",\"children_not_followed\":%llu",
		(unsigned long long)st->children_not_followed);
	if (p)
		fprintf(f, ",\"sample\":%u", p->sample);
	syscalls_write_json(st, p, f);
	inflight_write_json(st, f);
	fprintf(f, "}\n");
}

/*
 * The syscall column: 15 wide, wider for a longer name (sched_getaffinity,
 * sched_get_priority_max), that is never cut.
 */
#define NAME_COLUMN 15

static int name_width(int w, const char *name)
{
	int n = (int)strlen(name);

	return n > w ? n : w;
}

/* The calls in flight past their threshold at the last scan, longest first. */
static void inflight_write_text(const struct controller_status *st, FILE *f)
{
	char name[32], age[16], thr[16], comm[TEXT_ESCAPED_SIZE(SCLAT_COMM_LEN)];
	unsigned int i;

	int w = NAME_COLUMN;

	if (!st->nr_inflight)
		return;
	for (i = 0; i < st->nr_inflight && i < CONTROLLER_INFLIGHT_MAX; i++)
		w = name_width(w, syscall_name_or_nr(st->inflight[i].nr, name, sizeof(name)));
	fprintf(f, "\nin flight past their threshold, longest first:\n");
	fprintf(f, "%-*s %7s %7s %-16s %9s %9s %-8s %7s\n", w, "SYSCALL", "PID", "TID", "COMM",
		"IN FLIGHT", "THRESHOLD", "STATE", "REPORTS");
	for (i = 0; i < st->nr_inflight && i < CONTROLLER_INFLIGHT_MAX; i++) {
		const struct inflight_call *c = &st->inflight[i];

		fprintf(f, "%-*s %7u %7u %-16s %9s %9s %-8s %7u\n", w,
			syscall_name_or_nr(c->nr, name, sizeof(name)), c->pid, c->tid,
			text_escape(c->comm, sizeof(c->comm), comm, sizeof(comm)),
			duration_format(c->inflight_ns, age, sizeof(age)),
			c->threshold_ns == SCLAT_THRESHOLD_NEVER
				? "off"
				: duration_format(c->threshold_ns, thr, sizeof(thr)),
			inflight_state_name(c->state), c->reports);
	}
}

/* 1234, 12.3k, 4.56M: counts that fit a narrow column. */
static const char *count_format(double v, char *buf, size_t len)
{
	if (v < 10000)
		snprintf(buf, len, "%.0f", v);
	else if (v < 1e6)
		snprintf(buf, len, "%.1fk", v / 1e3);
	else if (v < 1e9)
		snprintf(buf, len, "%.1fM", v / 1e6);
	else
		snprintf(buf, len, "%.1fG", v / 1e9);
	return buf;
}

static const char *bytes_format(__u64 v, char *buf, size_t len)
{
	if (v < 1024)
		snprintf(buf, len, "%lluB", (unsigned long long)v);
	else if (v < 1024 * 1024)
		snprintf(buf, len, "%.1fK", v / 1024.0);
	else
		snprintf(buf, len, "%.1fM", v / (1024.0 * 1024));
	return buf;
}

static const char *lat_format(__u64 ns, char *buf, size_t len)
{
	return ns ? duration_format(ns, buf, len) : "-";
}

/* The columns a syscall's row and its classes' share, calls to outliers; thr: the threshold's. */
static void columns_write_text(const struct syscall_status *s, const char *thr, FILE *f)
{
	char calls[16], rate[16], p50[16], p99[16], p999[16];

	fprintf(f, " %7s %7s %6s %6s %6s %9s %8llu", count_format(s->calls, calls, sizeof(calls)),
		count_format(s->rate, rate, sizeof(rate)), lat_format(s->p50_ns, p50, sizeof(p50)),
		lat_format(s->p99_ns, p99, sizeof(p99)), lat_format(s->p999_ns, p999, sizeof(p999)),
		thr, (unsigned long long)s->outliers);
}

/* Under classes = auto, after a class's name: split, or whose threshold judges it. */
static void auto_write_text(const struct class_status *c, FILE *f)
{
	char by[TEXT_ESCAPED_SIZE(BASIS_CLASS_MAX)];

	if (c->auto_state == CLASSES_AUTO_SPLIT)
		fprintf(f, "  (auto: split)");
	else if (c->auto_state == CLASSES_AUTO_MERGED && c->judged_by[0])
		fprintf(f, "  (auto: by %s)",
			text_escape(c->judged_by, sizeof(c->judged_by), by, sizeof(by)));
	else if (c->auto_state == CLASSES_AUTO_MERGED)
		fprintf(f, "  (auto: by the syscall's)");
	fprintf(f, "\n");
}

/*
 * Syscall nr's classes, under its row, in its columns, the class's name last:
 * each threshold its own or still the syscall's (=).
 */
static void classes_write_text(const struct controller_status *st, const struct syscall_status *s,
			       int w, FILE *f)
{
	char name[TEXT_ESCAPED_SIZE(BASIS_CLASS_MAX)], thr[20];
	unsigned int i;

	for (i = 0; i < st->nr_classes && i < CONTROLLER_STATUS_CLASSES; i++) {
		const struct syscall_status *c = &st->classes[i].s;

		if (c->nr != s->nr)
			continue;
		if (c->threshold_ns == SCLAT_THRESHOLD_NEVER)
			snprintf(thr, sizeof(thr), "off");
		else
			duration_format(c->threshold_ns, thr, sizeof(thr) - 1);
		if (st->classes[i].fallback)
			strcat(thr, "=");
		fprintf(f, "%-*s", w, "");
		columns_write_text(c, thr, f);
		fprintf(f, "  %s",
			text_escape(c->basis.class_name, sizeof(c->basis.class_name), name,
				    sizeof(name)));
		auto_write_text(&st->classes[i], f);
	}
	if (s->classes_refused)
		fprintf(f,
			"  %llu classes refused a threshold of their own (max_classes, "
			"class_cells): they share the syscall's\n",
			(unsigned long long)s->classes_refused);
}

static int by_calls(const void *a, const void *b)
{
	const struct syscall_status *x = a, *y = b;

	if (x->calls != y->calls)
		return x->calls < y->calls ? 1 : -1;
	return x->nr < y->nr ? -1 : x->nr > y->nr;
}

/* The lines above the table: the tracer, its totals, what it costs. */
static void summary_write_text(const struct controller_status *st, const char *source, FILE *f)
{
	char a[16], b[16], c[16], d[16], e[16];
	char policy[TEXT_ESCAPED_SIZE(sizeof(((struct policy *)0)->source))];
	int cpus = ncpus();

	fprintf(f, "sclat pid %d: up %s, interval %s, attach %s, policy %s\n", getpid(),
		duration_format(st->elapsed_ns, a, sizeof(a)),
		duration_format(st->interval_ns, b, sizeof(b)),
		st->attach_kind ? st->attach_kind : "?",
		text_escape(source, sizeof(policy), policy, sizeof(policy)));
	fprintf(f,
		"totals: %llu syscalls, %llu outliers, %llu throttled, %llu braked, %llu drops, "
		"%llu threshold changes\n",
		(unsigned long long)st->totals.syscalls, (unsigned long long)st->totals.outliers,
		(unsigned long long)st->totals.throttled, (unsigned long long)st->totals.braked,
		(unsigned long long)st->totals.drops,
		(unsigned long long)st->totals.threshold_changes);
	fprintf(f,
		"cost: %llu ns per syscall; kernel memory %s per CPU x %d + %s; "
		"ring buffer %s of %s, consumer lag %s\n",
		(unsigned long long)st->ns_per_syscall, bytes_format(st->mem.per_cpu, a, sizeof(a)),
		cpus, bytes_format(st->mem.fixed, b, sizeof(b)),
		bytes_format(st->ringbuf_used, c, sizeof(c)),
		bytes_format(st->ringbuf_size, d, sizeof(d)),
		duration_format(st->consumer_lag_ns, e, sizeof(e)));
	fprintf(f,
		"explain: %s in BPF + %s in userspace per outlier; kernel stacks %llu taken, "
		"%llu left out by the burst guard; %llu wakers lost; %llu blocks whose end "
		"was not traced\n",
		duration_format(per_outlier(st, st->explain_bpf_ns), a, sizeof(a)),
		duration_format(per_outlier(st, st->explain_user_ns), b, sizeof(b)),
		(unsigned long long)st->kernel_stacks,
		(unsigned long long)st->kernel_stacks_skipped, (unsigned long long)st->wakers_lost,
		(unsigned long long)st->backs_unseen);
	user_stacks_text(&st->user_stacks, f);
	fprintf(f, "\n");
	if (st->children_not_followed)
		fprintf(f,
			"scope: %llu new processes not followed (its table was full): not "
			"measured\n",
			(unsigned long long)st->children_not_followed);
}

/* The notes under the table, for what its marks (*, =) and the classes' counts mean. */
static void legend_write_text(const struct controller_status *st, const struct policy *p,
			      bool initial, bool classes, FILE *f)
{
	if (initial)
		fprintf(f,
			"\n* initial threshold (off: none): fewer samples than min_samples so far\n");
	if (classes)
		fprintf(f,
			"%s= a class with fewer samples than min_samples: its syscall's "
			"threshold\n",
			initial ? "" : "\n");
	if (classes || st->class_ids)
		fprintf(f,
			"classes: %u processes, cgroups, thread names or titles with an id, %llu refused "
			"one (none left); %llu requests lost to a full queue, asked again\n",
			st->class_ids, (unsigned long long)st->class_ids_refused,
			(unsigned long long)st->class_requests_lost);
	if (classes && p && p->sample > 1)
		fprintf(f,
			"classes: calls classed 1 in %u under every class's threshold, for %u "
			"(sample): calls and rates of classes are estimates\n",
			p->sample, p->sample);
}

/*
 * The table, busiest syscall first, each with its classes under it; then its
 * legend. -ENOMEM, and nothing written, when out of memory.
 */
static int syscalls_write_text(const struct controller_status *st, const struct policy *p, FILE *f)
{
	unsigned int i, n = st->nr_syscalls <= SCLAT_MAX_SYSCALLS ? st->nr_syscalls
								  : SCLAT_MAX_SYSCALLS + 1;
	bool initial = false, classes = false;
	struct syscall_status *rows;
	char name[32], thr[20];
	int w = NAME_COLUMN;

	rows = malloc(n * sizeof(*rows) + 1);
	if (!rows)
		return -ENOMEM;
	memcpy(rows, st->syscalls, n * sizeof(*rows));
	qsort(rows, n, sizeof(*rows), by_calls);
	for (i = 0; i < n; i++)
		w = name_width(w, syscall_label(rows[i].nr, "(other)", name, sizeof(name)));
	fprintf(f, "%-*s %7s %7s %6s %6s %6s %9s %8s %9s %6s\n", w, "SYSCALL", "CALLS", "RATE",
		"P50", "P99", "P99.9", "THRESHOLD", "OUTLIERS", "THROTTLED", "DROPS");
	for (i = 0; i < n; i++) {
		const struct syscall_status *s = &rows[i];
		bool off = s->threshold_ns == SCLAT_THRESHOLD_NEVER;

		if (s->nr >= SCLAT_MAX_SYSCALLS) {
			/* Each syscall in it has its own: see its row. */
			snprintf(thr, sizeof(thr), "-");
		} else {
			if (off)
				snprintf(thr, sizeof(thr), "off");
			else
				duration_format(s->threshold_ns, thr, sizeof(thr) - 1);
			/* Not learned yet: still the policy's initial value (off*: none). */
			if (!s->armed && p && p->rules[s->nr].mode == POLICY_ADAPTIVE) {
				strcat(thr, "*");
				initial = true;
			}
		}
		fprintf(f, "%-*s", w, syscall_label(s->nr, "(other)", name, sizeof(name)));
		columns_write_text(s, thr, f);
		fprintf(f, " %9llu %6llu\n", (unsigned long long)s->throttled,
			(unsigned long long)s->drops);
		if (p && s->nr < SCLAT_MAX_SYSCALLS && p->rules[s->nr].classes) {
			classes_write_text(st, s, w, f);
			classes = true;
		}
	}
	legend_write_text(st, p, initial, classes, f);
	status_fits_text(st, f);
	free(rows);
	return 0;
}

void status_write_text(const struct controller_status *st, const struct policy *p,
		       const char *source, FILE *f)
{
	summary_write_text(st, source, f);
	if (!syscalls_write_text(st, p, f))
		inflight_write_text(st, f);
}
