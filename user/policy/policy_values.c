// SPDX-License-Identifier: GPL-2.0-only
/* The values of a policy's keys: numbers, durations, modes and classes, with their ranges. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "policy_values.h"
#include "util/duration.h"
#include "util/suggest.h"

#define INTERVAL_MIN_NS	  100000000ULL	    /* 100ms */
#define INTERVAL_MAX_NS	  60000000000ULL    /* 60s */
#define HALF_LIFE_MIN_NS  100000000ULL	    /* 100ms */
#define HALF_LIFE_MAX_NS  86400000000000ULL /* 24h */
#define BUDGET_MAX	  10000000ULL
#define MARGIN_MAX	  1000.0
#define MIN_SAMPLES_MAX	  1000000000000ULL
/* Cell 0 is no class's: a tracer holds at most SCLAT_CLASS_CELLS_MAX - 1. */
#define CLASS_CELLS_MAX	  (SCLAT_CLASS_CELLS_MAX - 1)
#define MAX_CLASSES_MAX	  CLASS_CELLS_MAX
#define CLASS_IDLE_MIN_NS 1000000000ULL	    /* 1s */
#define CLASS_IDLE_MAX_NS 86400000000000ULL /* 24h */

static const char *const mode_names[] = {
	[POLICY_ADAPTIVE] = "adaptive",
	[POLICY_STATIC] = "static",
	[POLICY_OFF] = "off",
};

/* A plain decimal number: no sign, exponent, hex, inf or nan. */
static int decimal_parse(const char *s, double *v)
{
	const char *p = s;
	char *end;

	for (; *p >= '0' && *p <= '9'; p++)
		;
	if (*p == '.')
		for (p++; *p >= '0' && *p <= '9'; p++)
			;
	if (p == s || (p == s + 1 && *s == '.') || *p)
		return -EINVAL;
	errno = 0;
	*v = strtod(s, &end);
	return end == p && errno == 0 ? 0 : -EINVAL;
}

/* A probability as people write small ones: 0.000001 or 1e-6. */
static int rate_parse(const char *s, double *v)
{
	const char *p = s;
	char *end;

	if (!(*p >= '0' && *p <= '9') && *p != '.')
		return -EINVAL;
	for (; *p; p++)
		if (!((*p >= '0' && *p <= '9') || *p == '.' || *p == 'e' || *p == 'E' ||
		      *p == '-' || *p == '+'))
			return -EINVAL;
	errno = 0;
	*v = strtod(s, &end);
	return *end || errno ? -EINVAL : 0;
}

static int unsigned_parse(const char *s, __u64 *v)
{
	char *end;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	*v = strtoull(s, &end, 10);
	if (errno == ERANGE)
		return -ERANGE;
	return *end ? -EINVAL : 0;
}

static bool duration_value(struct policy_parse *ps, const char *key, const char *value, __u64 *ns)
{
	int err = duration_parse(value, ns);

	if (err == -ERANGE)
		return policy_parse_fail(ps, "%s = %s: too large", key, value);
	if (err)
		return policy_parse_fail(ps,
					 "%s = %s: not a duration (a number and ns, us, ms or s, "
					 "e.g. 250us)",
					 key, value);
	return true;
}

bool policy_global_apply(struct policy_parse *ps, const struct policy_keydesc *k, const char *value)
{
	struct policy *p = ps->p;
	char a[16], b[16];
	__u64 v;
	int err;

	switch (k->bit) {
	case GLOBAL_KEY_INTERVAL:
		if (!duration_value(ps, k->name, value, &v))
			return false;
		if (v < INTERVAL_MIN_NS || v > INTERVAL_MAX_NS)
			return policy_parse_fail(ps, "interval = %s: must be between %s and %s",
						 value,
						 duration_format(INTERVAL_MIN_NS, a, sizeof(a)),
						 duration_format(INTERVAL_MAX_NS, b, sizeof(b)));
		p->interval_ns = v;
		break;
	case GLOBAL_KEY_HALF_LIFE:
		if (!duration_value(ps, k->name, value, &v))
			return false;
		if (v < HALF_LIFE_MIN_NS || v > HALF_LIFE_MAX_NS)
			return policy_parse_fail(ps, "half_life = %s: must be between %s and %s",
						 value,
						 duration_format(HALF_LIFE_MIN_NS, a, sizeof(a)),
						 duration_format(HALF_LIFE_MAX_NS, b, sizeof(b)));
		p->half_life_ns = v;
		break;
	case GLOBAL_KEY_BUDGET: {
		/* Events per second: "1000" or "1000/s"; 0 means no budget. */
		char num[32];
		size_t len = strlen(value);

		if (len > 2 && !strcmp(value + len - 2, "/s"))
			len -= 2;
		if (len >= sizeof(num))
			len = 0; /* too long for a number: refused below, not cut to one */
		memcpy(num, value, len);
		num[len] = '\0';
		err = unsigned_parse(num, &v);
		if (err || v > BUDGET_MAX)
			return policy_parse_fail(ps,
						 "budget = %s: must be a number of outliers per "
						 "second from 0 (no budget) to %llu",
						 value, (unsigned long long)BUDGET_MAX);
		p->budget = v;
		break;
	}
	case GLOBAL_KEY_CLASS_CELLS:
		if (unsigned_parse(value, &v) || v > CLASS_CELLS_MAX)
			return policy_parse_fail(ps,
						 "class_cells = %s: must be a whole number from 0 "
						 "(sized by the number of CPUs) to %u",
						 value, CLASS_CELLS_MAX);
		p->class_cells = v;
		break;
	case GLOBAL_KEY_CLASS_IDLE:
		if (!duration_value(ps, k->name, value, &v))
			return false;
		if (v < CLASS_IDLE_MIN_NS || v > CLASS_IDLE_MAX_NS)
			return policy_parse_fail(ps, "class_idle = %s: must be between %s and %s",
						 value,
						 duration_format(CLASS_IDLE_MIN_NS, a, sizeof(a)),
						 duration_format(CLASS_IDLE_MAX_NS, b, sizeof(b)));
		p->class_idle_ns = v;
		break;
	case GLOBAL_KEY_SAMPLE:
		if (unsigned_parse(value, &v) || v < 1 || v > SCLAT_SAMPLE_MAX)
			return policy_parse_fail(ps,
						 "%s = %s: must be a whole number from 1 "
						 "(count every call) to %u",
						 k->name, value, SCLAT_SAMPLE_MAX);
		p->sample = v;
		break;
	case GLOBAL_KEY_MIN_LATENCY:
		/* Over every threshold, learnt or not: "only above X" at one stroke; 0 none. */
		if (!duration_value(ps, k->name, value, &v))
			return false;
		p->min_latency_ns = v;
		break;
	case GLOBAL_KEY_JUDGE:
		/* What thresholds judge: the call's own time, or the whole of it. */
		if (!strcmp(value, "service"))
			p->judge = SCLAT_JUDGE_SERVICE;
		else if (!strcmp(value, "wall"))
			p->judge = SCLAT_JUDGE_WALL;
		else
			return policy_parse_fail(
				ps,
				"judge = %s: must be service (the latency less the "
				"time waiting for a CPU and in interrupts) or wall "
				"(the whole latency)",
				value);
		break;
	}
	return true;
}

static const char *const class_names[] = {
	[POLICY_CLASS_PROCESS_BIT] = "process",
	[POLICY_CLASS_CGROUP_BIT] = "cgroup",
	[POLICY_CLASS_COMM_BIT] = "comm",
	[POLICY_CLASS_FD_BIT] = "fd",
	/* A process's title (util/proc_title.h), which the kernel keeps per process. */
	[POLICY_CLASS_TITLE_BIT] = "title",
};

#define NR_CLASS_NAMES (sizeof(class_names) / sizeof(class_names[0]))

const char *policy_classes_format(__u32 classes, char *buf, size_t len)
{
	size_t i, n = 0;

	buf[0] = '\0';
	if (classes & POLICY_CLASS_AUTO) {
		snprintf(buf, len, "auto");
		return buf;
	}
	for (i = 0; i < NR_CLASS_NAMES; i++)
		if (classes & (1U << i))
			n += snprintf(buf + n, n < len ? len - n : 0, "%s%s", n ? "," : "",
				      class_names[i]);
	if (!n)
		snprintf(buf, len, "none");
	return buf;
}

/* "none", or kinds joined by ',' or '+': at most one of process, cgroup, comm and title, and fd. */
static bool classes_value(struct policy_parse *ps, const char *value, __u32 *classes)
{
	char words[128], *save = NULL, *w;
	const char *near;
	__u32 c = 0;
	size_t i;

	if (!strcmp(value, "none")) {
		*classes = 0;
		return true;
	}
	if (!strcmp(value, "auto")) {
		*classes = POLICY_CLASS_AUTO;
		return true;
	}
	if (strlen(value) >= sizeof(words))
		return policy_parse_fail(ps, "classes = %s: too long", value);
	strcpy(words, value);
	for (w = strtok_r(words, ",+", &save); w; w = strtok_r(NULL, ",+", &save)) {
		for (i = 0; i < NR_CLASS_NAMES; i++)
			if (!strcmp(w, class_names[i]))
				break;
		if (i == NR_CLASS_NAMES) {
			near = suggest_nearest(w, class_names, NR_CLASS_NAMES);
			if (near)
				return policy_parse_fail(
					ps,
					"classes = %s: unknown kind \"%s\" (did you mean "
					"\"%s\"?)",
					value, w, near);
			return policy_parse_fail(
				ps,
				"classes = %s: unknown kind \"%s\" (none, auto, or "
				"process, cgroup, comm or title and/or fd, e.g. process,fd)",
				value, w);
		}
		if (c & (1U << i))
			return policy_parse_fail(ps, "classes = %s: \"%s\" twice", value, w);
		c |= 1U << i;
	}
	if (!c)
		return policy_parse_fail(
			ps, "classes = %s: no kind (none, process, cgroup, comm, title, fd)",
			value);
	/* A call belongs to one task: by its process, cgroup, name or title, not several. */
	if (__builtin_popcount(c & POLICY_CLASSES_TASK) > 1)
		return policy_parse_fail(
			ps,
			"classes = %s: one of process, cgroup, comm and title at a "
			"time (each may go with fd)",
			value);
	*classes = c;
	return true;
}

/* false_alarm: off, or a probability per call below POLICY_FALSE_ALARM_MAX. */
static bool false_alarm_value(struct policy_parse *ps, const char *value, struct policy_rule *r)
{
	double d;

	if (!strcmp(value, "off")) {
		r->false_alarm = 0;
		return true;
	}
	if (rate_parse(value, &d) || !(d >= 0.0 && d < POLICY_FALSE_ALARM_MAX))
		return policy_parse_fail(ps,
					 "false_alarm = %s: must be off, or a probability per call "
					 "below %g (e.g. 1e-6)",
					 value, POLICY_FALSE_ALARM_MAX);
	r->false_alarm = d;
	return true;
}

/*
 * initial: 0, every call is an outlier (what --threshold 0ns writes); off,
 * none is until the threshold is learnt (a wait's latency says nothing
 * before its normal is known).
 */
static bool initial_value(struct policy_parse *ps, const char *key, const char *value, __u64 *ns)
{
	if (!strcmp(value, "off")) {
		*ns = SCLAT_THRESHOLD_NEVER;
		return true;
	}
	return duration_value(ps, key, value, ns);
}

bool policy_rule_apply(struct policy_parse *ps, struct policy_rule *r,
		       const struct policy_keydesc *k, const char *value)
{
	const char *near;
	double d;
	__u64 v;
	int m, err;

	switch (k->bit) {
	case POLICY_KEY_MODE:
		for (m = 0; m <= POLICY_OFF; m++)
			if (!strcmp(value, mode_names[m]))
				break;
		if (m > POLICY_OFF) {
			near = suggest_nearest(value, mode_names, POLICY_OFF + 1);
			if (near)
				return policy_parse_fail(
					ps, "mode = %s: unknown mode (did you mean \"%s\"?)", value,
					near);
			return policy_parse_fail(
				ps, "mode = %s: unknown mode (adaptive, static or off)", value);
		}
		r->mode = m;
		break;
	case POLICY_KEY_QUANTILE:
		if (decimal_parse(value, &d) || !(d > 0.0 && d < 1.0))
			return policy_parse_fail(ps,
						 "quantile = %s: must be a number between 0 and 1, "
						 "both excluded (e.g. 0.999)",
						 value);
		r->quantile = d;
		break;
	case POLICY_KEY_FALSE_ALARM:
		return false_alarm_value(ps, value, r);
	case POLICY_KEY_MARGIN:
		if (decimal_parse(value, &d) || !(d > 0.0 && d <= MARGIN_MAX))
			return policy_parse_fail(
				ps,
				"margin = %s: must be a number above 0 and at most "
				"%g (e.g. 1.5)",
				value, MARGIN_MAX);
		r->margin = d;
		break;
	case POLICY_KEY_FLOOR:
		if (!duration_value(ps, k->name, value, &v))
			return false;
		r->floor_ns = v;
		break;
	case POLICY_KEY_CEILING:
		if (!duration_value(ps, k->name, value, &v))
			return false;
		if (!v)
			return policy_parse_fail(ps, "ceiling = %s: must be more than zero", value);
		r->ceiling_ns = v;
		break;
	case POLICY_KEY_INITIAL:
		return initial_value(ps, k->name, value, &r->initial_ns);
	case POLICY_KEY_CLASSES:
		if (!classes_value(ps, value, &r->classes))
			return false;
		break;
	case POLICY_KEY_MAX_CLASSES:
		if (unsigned_parse(value, &v) || v > MAX_CLASSES_MAX)
			return policy_parse_fail(
				ps, "max_classes = %s: must be a whole number from 0 to %u", value,
				MAX_CLASSES_MAX);
		r->max_classes = v;
		break;
	case POLICY_KEY_MIN_SAMPLES:
		if (unsigned_parse(value, &v) || v > MIN_SAMPLES_MAX)
			return policy_parse_fail(
				ps,
				"min_samples = %s: must be a whole number from 0 to "
				"%llu",
				value, (unsigned long long)MIN_SAMPLES_MAX);
		r->min_samples = v;
		break;
	case POLICY_KEY_INFLIGHT_AFTER:
		if (!strcmp(value, "auto")) {
			r->inflight_after_ns = POLICY_INFLIGHT_AUTO;
			break;
		}
		if (!strcmp(value, "off")) {
			r->inflight_after_ns = POLICY_INFLIGHT_OFF;
			break;
		}
		err = duration_parse(value, &v);
		if (err || !v || v == POLICY_INFLIGHT_OFF)
			return policy_parse_fail(
				ps, "inflight_after = %s: %s", value,
				err == -ERANGE ? "too large"
				: err	       ? "not auto, off or a duration (e.g. 30s)"
					       : "must be more than zero (off turns it off)");
		r->inflight_after_ns = v;
		break;
	}
	return true;
}

const char *policy_mode_name(enum policy_mode mode)
{
	return mode <= POLICY_OFF ? mode_names[mode] : "?";
}
