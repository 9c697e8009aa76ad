// SPDX-License-Identifier: GPL-2.0-only
/* Policies written out: as an INI file that policy_load() reads back, and as a table. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "policy.h"
#include "util/duration.h"
#include "util/escape.h"
#include "util/syscall_names.h"

/* A duration that duration_parse() reads back exactly: the largest unit that divides it. */
static const char *duration_exact(__u64 ns, char *buf, size_t len)
{
	if (ns && ns % 1000000000ULL == 0)
		snprintf(buf, len, "%llus", (unsigned long long)(ns / 1000000000ULL));
	else if (ns && ns % 1000000ULL == 0)
		snprintf(buf, len, "%llums", (unsigned long long)(ns / 1000000ULL));
	else if (ns && ns % 1000ULL == 0)
		snprintf(buf, len, "%lluus", (unsigned long long)(ns / 1000ULL));
	else
		snprintf(buf, len, "%lluns", (unsigned long long)ns);
	return buf;
}

/*
 * Room for any double a policy line (200 characters at most) can give: its
 * shortest decimal has no more digits than the line had.
 */
#define DOUBLE_EXACT_MAX 256

/*
 * The shortest decimal, in fixed notation (the parser reads no exponent),
 * that strtod reads back as the same double: a quantile of 1e-95 is written
 * with its 95 zeros, not as 0.
 */
static const char *double_exact(double v, char *buf, size_t len)
{
	int prec;

	for (prec = 1; prec < DOUBLE_EXACT_MAX - 20; prec++) {
		snprintf(buf, len, "%.*f", prec, v);
		if (strtod(buf, NULL) == v)
			return buf;
	}
	return buf;
}

static void rule_write_ini(const struct policy_rule *r, __u32 keys, FILE *f)
{
	char buf[DOUBLE_EXACT_MAX];

	if (keys & POLICY_KEY_MODE)
		fprintf(f, "mode = %s\n", policy_mode_name(r->mode));
	if (keys & POLICY_KEY_QUANTILE)
		fprintf(f, "quantile = %s\n", double_exact(r->quantile, buf, sizeof(buf)));
	if (keys & POLICY_KEY_FALSE_ALARM)
		fprintf(f, "false_alarm = %s\n",
			r->false_alarm > 0 ? double_exact(r->false_alarm, buf, sizeof(buf))
					   : "off");
	if (keys & POLICY_KEY_MARGIN)
		fprintf(f, "margin = %s\n", double_exact(r->margin, buf, sizeof(buf)));
	if (keys & POLICY_KEY_FLOOR)
		fprintf(f, "floor = %s\n", duration_exact(r->floor_ns, buf, sizeof(buf)));
	if (keys & POLICY_KEY_CEILING)
		fprintf(f, "ceiling = %s\n", duration_exact(r->ceiling_ns, buf, sizeof(buf)));
	if (keys & POLICY_KEY_MIN_SAMPLES)
		fprintf(f, "min_samples = %llu\n", (unsigned long long)r->min_samples);
	if (keys & POLICY_KEY_INITIAL)
		fprintf(f, "initial = %s\n",
			r->initial_ns == SCLAT_THRESHOLD_NEVER
				? "off"
				: duration_exact(r->initial_ns, buf, sizeof(buf)));
	if (keys & POLICY_KEY_INFLIGHT_AFTER)
		fprintf(f, "inflight_after = %s\n",
			r->inflight_after_ns == POLICY_INFLIGHT_AUTO ? "auto"
			: r->inflight_after_ns == POLICY_INFLIGHT_OFF
				? "off"
				: duration_exact(r->inflight_after_ns, buf, sizeof(buf)));
	if (keys & POLICY_KEY_CLASSES)
		fprintf(f, "classes = %s\n", policy_classes_format(r->classes, buf, sizeof(buf)));
	if (keys & POLICY_KEY_MAX_CLASSES)
		fprintf(f, "max_classes = %u\n", r->max_classes);
}

/* The rule keys [global] holds for every syscall; [default] has the others. */
#define GLOBAL_RULE_KEYS (POLICY_KEY_CLASSES | POLICY_KEY_MAX_CLASSES)

/*
 * Text for a comment line, which policy_load() also holds to its line length:
 * at most max bytes of s, its end kept (where a path says the most).
 */
static const char *comment_text(const char *s, size_t max, char *buf, size_t len)
{
	size_t n = strlen(s);

	if (n <= max)
		snprintf(buf, len, "%s", s);
	else
		snprintf(buf, len, "...%s", s + n - (max - 3));
	return buf;
}

/* The policy as INI; notes[nr], when set, is a comment before nr's section. */
static int policy_write_ini_noted(const struct policy *p, char *const *notes, FILE *f)
{
	char buf[64], escaped[TEXT_ESCAPED_SIZE(sizeof(p->source))], source[POLICY_COMMENT_MAX + 1];
	unsigned int nr;

	/* A path may hold a newline: escaped, the comment stays one line. */
	text_escape(p->source, sizeof(p->source), escaped, sizeof(escaped));
	fprintf(f, "; sclat policy, from %s\n",
		comment_text(escaped, POLICY_COMMENT_MAX - 21, source, sizeof(source)));
	fprintf(f, "[global]\n");
	fprintf(f, "interval = %s\n", duration_exact(p->interval_ns, buf, sizeof(buf)));
	fprintf(f, "half_life = %s\n", duration_exact(p->half_life_ns, buf, sizeof(buf)));
	fprintf(f, "budget = %llu\n", (unsigned long long)p->budget);
	fprintf(f, "class_cells = %u\n", p->class_cells);
	fprintf(f, "class_idle = %s\n", duration_exact(p->class_idle_ns, buf, sizeof(buf)));
	fprintf(f, "sample = %u\n", p->sample);
	fprintf(f, "min_latency = %s\n", duration_exact(p->min_latency_ns, buf, sizeof(buf)));
	fprintf(f, "judge = %s\n", p->judge == SCLAT_JUDGE_WALL ? "wall" : "service");
	rule_write_ini(&p->def, GLOBAL_RULE_KEYS, f);
	fprintf(f, "\n[default]\n");
	rule_write_ini(&p->def, ~GLOBAL_RULE_KEYS, f);
	for (nr = 0; nr < SCLAT_MAX_SYSCALLS; nr++) {
		if (!p->overrides[nr] || !syscall_name(nr))
			continue;
		fprintf(f, "\n");
		if (notes && notes[nr])
			fprintf(f, "%s", notes[nr]);
		fprintf(f, "[syscall %s]\n", syscall_name(nr));
		rule_write_ini(&p->rules[nr], p->overrides[nr], f);
	}
	return ferror(f) ? -EIO : 0;
}

int policy_write_ini(const struct policy *p, FILE *f)
{
	return policy_write_ini_noted(p, NULL, f);
}

/* What a learned syscall's min_samples comment says of it. */
static const char *min_samples_why(const struct policy_rule *r, bool halved, char *buf, size_t len)
{
	char kinds[48];

	if (halved)
		return "half those samples";
	if (!r->classes)
		return "the policy's, more than half those samples";
	snprintf(buf, len, "the policy's: each class (%s) learns its own on as many calls",
		 policy_classes_format(r->classes, kinds, sizeof(kinds)));
	return buf;
}

int policy_write_learned(const struct policy *p, const struct policy_learned *l, size_t n,
			 const char *origin, FILE *f)
{
	struct policy *warm = malloc(sizeof(*warm));
	char **notes = calloc(SCLAT_MAX_SYSCALLS, sizeof(*notes));
	char t[32], e[32], q[DOUBLE_EXACT_MAX], from[POLICY_COMMENT_MAX + 1], why[128];
	/* The origin names a host and a trace: a trace is anyone's file. */
	char *escaped = malloc(TEXT_ESCAPED_SIZE(strlen(origin)));
	size_t i, len;
	int ret = -ENOMEM;
	bool halved;

	if (!warm || !notes)
		goto out;
	memcpy(warm, p, sizeof(*warm));
	snprintf(warm->source, sizeof(warm->source), "%.200s, learned", p->source);
	for (i = 0; i < n; i++) {
		const struct policy_learned *x = &l[i];

		if (x->nr >= SCLAT_MAX_SYSCALLS || notes[x->nr])
			continue;
		warm->rules[x->nr].initial_ns = x->threshold_ns;
		warm->overrides[x->nr] |= POLICY_KEY_INITIAL;
		/*
		 * An estimate from the new host's first interval rests on far fewer
		 * samples than the learned one, and its tail is not yet seen: keep
		 * the learned threshold until comparable evidence (half of it: the
		 * decayed window holds that after about one half-life at the same
		 * rate, and would never reach all of it). Not for a syscall with
		 * classes: each class arms on min_samples of its own calls, a share
		 * of the syscall's, and would keep its syscall's threshold for good.
		 */
		halved = !warm->rules[x->nr].classes &&
			 x->samples / 2 > warm->rules[x->nr].min_samples;
		if (halved) {
			warm->rules[x->nr].min_samples = x->samples / 2;
			warm->overrides[x->nr] |= POLICY_KEY_MIN_SAMPLES;
		}
		if (asprintf(&notes[x->nr],
			     "; initial: learned: quantile %s estimate %s over %llu samples, "
			     "threshold %s\n; min_samples: %s\n",
			     double_exact(x->quantile, q, sizeof(q)),
			     duration_exact(x->estimate_ns, e, sizeof(e)),
			     (unsigned long long)x->samples,
			     duration_exact(x->threshold_ns, t, sizeof(t)),
			     min_samples_why(&warm->rules[x->nr], halved, why, sizeof(why))) < 0) {
			notes[x->nr] = NULL;
			goto out;
		}
	}
	len = 0;
	for (i = 0; i < SCLAT_MAX_SYSCALLS; i++)
		len += !!notes[i];
	fprintf(f,
		"; Thresholds learned by\n;   %s\n"
		"; carried as initial values: a syscall whose section says \"initial: learned\"\n"
		"; starts at that threshold instead of learning from cold (%zu adaptive\n"
		"; syscall%s past min_samples); the others start from their initial value.\n",
		comment_text(escaped ? text_escape(origin, strlen(origin), escaped,
						   TEXT_ESCAPED_SIZE(strlen(origin)))
				     : "(out of memory)",
			     POLICY_COMMENT_MAX - 4, from, sizeof(from)),
		len, len == 1 ? "" : "s");
	ret = policy_write_ini_noted(warm, notes, f);
out:
	free(escaped);
	for (i = 0; notes && i < SCLAT_MAX_SYSCALLS; i++)
		free(notes[i]);
	free(notes);
	free(warm);
	return ret;
}

static void rule_write_row(const char *name, const struct policy_rule *r, FILE *f)
{
	char fl[16], ce[16], in[16], q[DOUBLE_EXACT_MAX], cl[48];
	size_t n;

	/* A rule of a false-alarm rate shows the rate: "p=1e-06". */
	if (r->false_alarm > 0)
		snprintf(q, sizeof(q), "p=%.2g", r->false_alarm);
	else
		double_exact(r->quantile, q, sizeof(q));
	/* "process,fd(64)": the kinds and how many classes of their own at most. */
	policy_classes_format(r->classes, cl, sizeof(cl));
	n = strlen(cl);
	if (r->classes)
		snprintf(cl + n, sizeof(cl) - n, "(%u)", r->max_classes);
	fprintf(f, "%-16.16s %-8s %8s %6.3g %7s %7s %7s %11llu %s\n", name,
		policy_mode_name(r->mode), q, r->margin,
		duration_format(r->floor_ns, fl, sizeof(fl)),
		duration_format(r->ceiling_ns, ce, sizeof(ce)),
		r->initial_ns == SCLAT_THRESHOLD_NEVER
			? "off"
			: duration_format(r->initial_ns, in, sizeof(in)),
		(unsigned long long)r->min_samples, cl);
}

void policy_write_table(const struct policy *p, bool all, FILE *f)
{
	char iv[16], hl[16], source[TEXT_ESCAPED_SIZE(sizeof(p->source))];
	unsigned int nr;

	fprintf(f, "policy %s: interval %s, half-life %s, budget ",
		text_escape(p->source, sizeof(p->source), source, sizeof(source)),
		duration_format(p->interval_ns, iv, sizeof(iv)),
		duration_format(p->half_life_ns, hl, sizeof(hl)));
	if (p->budget)
		fprintf(f, "%llu/s", (unsigned long long)p->budget);
	else
		fprintf(f, "none");
	if (p->min_latency_ns)
		fprintf(f, ", no threshold below %s",
			duration_format(p->min_latency_ns, iv, sizeof(iv)));
	if (p->judge == SCLAT_JUDGE_WALL)
		fprintf(f, ", judging whole latencies");
	fprintf(f, "\n");
	fprintf(f, "%-16s %-8s %8s %6s %7s %7s %7s %11s %s\n", "SYSCALL", "MODE", "QUANTILE",
		"MARGIN", "FLOOR", "CEILING", "INITIAL", "MIN_SAMPLES", "CLASSES");
	rule_write_row("(default)", &p->def, f);
	for (nr = 0; nr < SCLAT_MAX_SYSCALLS; nr++) {
		if (!syscall_name(nr) || (!all && !p->overrides[nr]))
			continue;
		rule_write_row(syscall_name(nr), &p->rules[nr], f);
	}
}
