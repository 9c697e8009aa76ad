// SPDX-License-Identifier: GPL-2.0-only
/*
 * Settings applied to a policy, and the checks on them: from policy files
 * (read whole, bounded, then parsed with libinih through our own line
 * reader, which counts lines and refuses what libinih would take silently or
 * read differently: NUL bytes, lines longer than it reads whole, indented
 * lines, "key: value", text after a section header; it checks section
 * headers as they come, so that an empty or duplicate section is an error
 * too), from the built-in table and from run-time changes. One path applies
 * them all: section_enter() and key_apply(), then policy_finish().
 */
#include <errno.h>
#include <fcntl.h>
#include <ini.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "util/compiler.h"
#include "policy.h"
#include "util/duration.h"
#include "util/suggest.h"
#include "util/syscall_names.h"

/* Keys of [global] alone; their bits are apart from the rule keys' (enum policy_key). */
#define GLOBAL_KEY_INTERVAL    (1U << 16)
#define GLOBAL_KEY_HALF_LIFE   (1U << 17)
#define GLOBAL_KEY_BUDGET      (1U << 18)
#define GLOBAL_KEY_CLASS_CELLS (1U << 19)
#define GLOBAL_KEY_CLASS_IDLE  (1U << 20)
#define GLOBAL_KEY_SAMPLE      (1U << 21)

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
#define LINE_MAX_CHARS	  200		    /* INI_MAX_LINE of libinih, newline and NUL included */
#define UTF8_BOM	  "\xef\xbb\xbf"

enum section {
	SECT_NONE,
	SECT_GLOBAL,
	SECT_DEFAULT,
	SECT_SYSCALL,
};

/* The sections a key may stand in. */
#define IN_GLOBAL  (1U << SECT_GLOBAL)
#define IN_DEFAULT (1U << SECT_DEFAULT)
#define IN_SYSCALL (1U << SECT_SYSCALL)

static const struct policy_keydesc {
	const char *name;
	unsigned int bit;
	unsigned int sections; /* IN_* */
	bool rule;	       /* a key of struct policy_rule ([global]'s go to [default]'s rule) */
} keydescs[] = {
	{ "interval", GLOBAL_KEY_INTERVAL, IN_GLOBAL, false },
	{ "half_life", GLOBAL_KEY_HALF_LIFE, IN_GLOBAL, false },
	{ "budget", GLOBAL_KEY_BUDGET, IN_GLOBAL, false },
	{ "class_cells", GLOBAL_KEY_CLASS_CELLS, IN_GLOBAL, false },
	{ "class_idle", GLOBAL_KEY_CLASS_IDLE, IN_GLOBAL, false },
	{ "sample", GLOBAL_KEY_SAMPLE, IN_GLOBAL, false },
	{ "class_sample", GLOBAL_KEY_SAMPLE, IN_GLOBAL, false }, /* sample's older name */
	{ "classes", POLICY_KEY_CLASSES, IN_GLOBAL | IN_SYSCALL, true },
	{ "max_classes", POLICY_KEY_MAX_CLASSES, IN_GLOBAL | IN_SYSCALL, true },
	{ "mode", POLICY_KEY_MODE, IN_DEFAULT | IN_SYSCALL, true },
	{ "quantile", POLICY_KEY_QUANTILE, IN_DEFAULT | IN_SYSCALL, true },
	{ "false_alarm", POLICY_KEY_FALSE_ALARM, IN_DEFAULT | IN_SYSCALL, true },
	{ "margin", POLICY_KEY_MARGIN, IN_DEFAULT | IN_SYSCALL, true },
	{ "floor", POLICY_KEY_FLOOR, IN_DEFAULT | IN_SYSCALL, true },
	{ "ceiling", POLICY_KEY_CEILING, IN_DEFAULT | IN_SYSCALL, true },
	{ "min_samples", POLICY_KEY_MIN_SAMPLES, IN_DEFAULT | IN_SYSCALL, true },
	{ "initial", POLICY_KEY_INITIAL, IN_DEFAULT | IN_SYSCALL, true },
	{ "inflight_after", POLICY_KEY_INFLIGHT_AFTER, IN_DEFAULT | IN_SYSCALL, true },
};

/* The sections a key belongs in, as an error says it. */
static const char *key_sections(const struct policy_keydesc *k)
{
	switch (k->sections) {
	case IN_GLOBAL:
		return "[global]";
	case IN_GLOBAL | IN_SYSCALL:
		return "[global] or [syscall NAME]";
	default:
		return "[default] or [syscall NAME]";
	}
}

#define NR_KEYS (sizeof(keydescs) / sizeof(keydescs[0]))

static const char *const mode_names[] = {
	[POLICY_ADAPTIVE] = "adaptive",
	[POLICY_STATIC] = "static",
	[POLICY_OFF] = "off",
};

static const char *const section_names[] = { "global", "default", "syscall" };

struct parse {
	struct policy *p;
	const char *file; /* NULL: run-time KEY=VALUE, no file:line in errors */
	const char *text; /* the file's bytes */
	size_t len, pos;
	int line;
	char *err;
	size_t errlen;
	int err_line; /* 0: no error yet */
	enum section sect;
	int nr; /* of SECT_SYSCALL */
	__u32 global_seen, default_seen;
	int global_line, default_line;
	int syscall_line[SCLAT_MAX_SYSCALLS];
	/* Where floor and ceiling were set, for the cross-key check: [nr], [MAX] = default. */
	int floor_line[SCLAT_MAX_SYSCALLS + 1], ceiling_line[SCLAT_MAX_SYSCALLS + 1];
};

static bool parse_fail(struct parse *ps, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Record the first error, prefixed with file:line when parsing a file. */
static bool parse_fail(struct parse *ps, const char *fmt, ...)
{
	size_t n = 0;
	va_list ap;

	if (ps->err_line)
		return false;
	ps->err_line = ps->line > 0 ? ps->line : -1;
	if (!ps->err || !ps->errlen)
		return false;
	if (ps->file)
		n = snprintf(ps->err, ps->errlen, "%s:%d: ", ps->file, ps->line);
	if (n < ps->errlen) {
		va_start(ap, fmt);
		vsnprintf(ps->err + n, ps->errlen - n, fmt, ap);
		va_end(ap);
	}
	return false;
}

static const char *rule_section(int nr, char *buf, size_t len)
{
	if (nr < 0)
		return "[default]";
	snprintf(buf, len, "[syscall %s]", syscall_name(nr) ? syscall_name(nr) : "?");
	return buf;
}

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

static bool duration_value(struct parse *ps, const char *key, const char *value, __u64 *ns)
{
	int err = duration_parse(value, ns);

	if (err == -ERANGE)
		return parse_fail(ps, "%s = %s: too large", key, value);
	if (err)
		return parse_fail(ps,
				  "%s = %s: not a duration (a number and ns, us, ms or s, "
				  "e.g. 250us)",
				  key, value);
	return true;
}

static bool global_apply(struct parse *ps, const struct policy_keydesc *k, const char *value)
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
			return parse_fail(ps, "interval = %s: must be between %s and %s", value,
					  duration_format(INTERVAL_MIN_NS, a, sizeof(a)),
					  duration_format(INTERVAL_MAX_NS, b, sizeof(b)));
		p->interval_ns = v;
		break;
	case GLOBAL_KEY_HALF_LIFE:
		if (!duration_value(ps, k->name, value, &v))
			return false;
		if (v < HALF_LIFE_MIN_NS || v > HALF_LIFE_MAX_NS)
			return parse_fail(ps, "half_life = %s: must be between %s and %s", value,
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
			return parse_fail(ps,
					  "budget = %s: must be a number of outliers per "
					  "second from 0 (no budget) to %llu",
					  value, (unsigned long long)BUDGET_MAX);
		p->budget = v;
		break;
	}
	case GLOBAL_KEY_CLASS_CELLS:
		if (unsigned_parse(value, &v) || v > CLASS_CELLS_MAX)
			return parse_fail(ps,
					  "class_cells = %s: must be a whole number from 0 "
					  "(sized by the number of CPUs) to %u",
					  value, CLASS_CELLS_MAX);
		p->class_cells = v;
		break;
	case GLOBAL_KEY_CLASS_IDLE:
		if (!duration_value(ps, k->name, value, &v))
			return false;
		if (v < CLASS_IDLE_MIN_NS || v > CLASS_IDLE_MAX_NS)
			return parse_fail(ps, "class_idle = %s: must be between %s and %s", value,
					  duration_format(CLASS_IDLE_MIN_NS, a, sizeof(a)),
					  duration_format(CLASS_IDLE_MAX_NS, b, sizeof(b)));
		p->class_idle_ns = v;
		break;
	case GLOBAL_KEY_SAMPLE:
		if (unsigned_parse(value, &v) || v < 1 || v > SCLAT_SAMPLE_MAX)
			return parse_fail(ps,
					  "%s = %s: must be a whole number from 1 "
					  "(count every call) to %u",
					  k->name, value, SCLAT_SAMPLE_MAX);
		p->sample = v;
		break;
	}
	return true;
}

static const char *const class_names[] = {
	[POLICY_CLASS_PROCESS_BIT] = "process",
	[POLICY_CLASS_CGROUP_BIT] = "cgroup",
	[POLICY_CLASS_COMM_BIT] = "comm",
	[POLICY_CLASS_FD_BIT] = "fd",
};

#define NR_CLASS_NAMES (sizeof(class_names) / sizeof(class_names[0]))

const char *policy_classes_format(__u32 classes, char *buf, size_t len)
{
	size_t i, n = 0;

	buf[0] = '\0';
	for (i = 0; i < NR_CLASS_NAMES; i++)
		if (classes & (1U << i))
			n += snprintf(buf + n, n < len ? len - n : 0, "%s%s", n ? "," : "",
				      class_names[i]);
	if (!n)
		snprintf(buf, len, "none");
	return buf;
}

/* "none", or kinds joined by ',' or '+': at most one of process, cgroup and comm, and fd. */
static bool classes_value(struct parse *ps, const char *value, __u32 *classes)
{
	char words[128], *save = NULL, *w;
	const char *near;
	__u32 c = 0;
	size_t i;

	if (!strcmp(value, "none")) {
		*classes = 0;
		return true;
	}
	if (strlen(value) >= sizeof(words))
		return parse_fail(ps, "classes = %s: too long", value);
	strcpy(words, value);
	for (w = strtok_r(words, ",+", &save); w; w = strtok_r(NULL, ",+", &save)) {
		for (i = 0; i < NR_CLASS_NAMES; i++)
			if (!strcmp(w, class_names[i]))
				break;
		if (i == NR_CLASS_NAMES) {
			near = suggest_nearest(w, class_names, NR_CLASS_NAMES);
			if (near)
				return parse_fail(ps,
						  "classes = %s: unknown kind \"%s\" (did you mean "
						  "\"%s\"?)",
						  value, w, near);
			return parse_fail(ps,
					  "classes = %s: unknown kind \"%s\" (none, or process, "
					  "cgroup or comm and/or fd, e.g. process,fd)",
					  value, w);
		}
		if (c & (1U << i))
			return parse_fail(ps, "classes = %s: \"%s\" twice", value, w);
		c |= 1U << i;
	}
	if (!c)
		return parse_fail(ps, "classes = %s: no kind (none, process, cgroup, comm, fd)",
				  value);
	/* A call belongs to one task: by its process, its cgroup or its name, not several. */
	if (__builtin_popcount(c & POLICY_CLASSES_TASK) > 1)
		return parse_fail(ps,
				  "classes = %s: one of process, cgroup and comm at a time "
				  "(each may go with fd)",
				  value);
	*classes = c;
	return true;
}

static bool rule_apply(struct parse *ps, struct policy_rule *r, const struct policy_keydesc *k,
		       const char *value)
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
				return parse_fail(ps,
						  "mode = %s: unknown mode (did you mean \"%s\"?)",
						  value, near);
			return parse_fail(ps, "mode = %s: unknown mode (adaptive, static or off)",
					  value);
		}
		r->mode = m;
		break;
	case POLICY_KEY_QUANTILE:
		if (decimal_parse(value, &d) || !(d > 0.0 && d < 1.0))
			return parse_fail(ps,
					  "quantile = %s: must be a number between 0 and 1, "
					  "both excluded (e.g. 0.999)",
					  value);
		r->quantile = d;
		break;
	case POLICY_KEY_FALSE_ALARM:
		if (!strcmp(value, "off")) {
			r->false_alarm = 0;
			break;
		}
		if (rate_parse(value, &d) || !(d >= 0.0 && d < POLICY_FALSE_ALARM_MAX))
			return parse_fail(ps,
					  "false_alarm = %s: must be off, or a probability per "
					  "call below %g (e.g. 1e-6)",
					  value, POLICY_FALSE_ALARM_MAX);
		r->false_alarm = d;
		break;
	case POLICY_KEY_MARGIN:
		if (decimal_parse(value, &d) || !(d > 0.0 && d <= MARGIN_MAX))
			return parse_fail(ps,
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
			return parse_fail(ps, "ceiling = %s: must be more than zero", value);
		r->ceiling_ns = v;
		break;
	case POLICY_KEY_INITIAL:
		/* 0: every call is an outlier (what --threshold 0ns writes). */
		if (!duration_value(ps, k->name, value, &v))
			return false;
		r->initial_ns = v;
		break;
	case POLICY_KEY_CLASSES:
		if (!classes_value(ps, value, &r->classes))
			return false;
		break;
	case POLICY_KEY_MAX_CLASSES:
		if (unsigned_parse(value, &v) || v > MAX_CLASSES_MAX)
			return parse_fail(ps,
					  "max_classes = %s: must be a whole number from 0 to %u",
					  value, MAX_CLASSES_MAX);
		r->max_classes = v;
		break;
	case POLICY_KEY_MIN_SAMPLES:
		if (unsigned_parse(value, &v) || v > MIN_SAMPLES_MAX)
			return parse_fail(ps,
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
			return parse_fail(ps, "inflight_after = %s: %s", value,
					  err == -ERANGE ? "too large"
					  : err		 ? "not auto, off or a duration (e.g. 30s)"
						: "must be more than zero (off turns it off)");
		r->inflight_after_ns = v;
		break;
	}
	return true;
}

static const struct policy_keydesc *key_find(const char *name)
{
	size_t i;

	for (i = 0; i < NR_KEYS; i++)
		if (!strcmp(keydescs[i].name, name))
			return &keydescs[i];
	return NULL;
}

/* Apply one key in the current section (ps->sect, ps->nr). */
static bool key_apply(struct parse *ps, const char *name, const char *value)
{
	const struct policy_keydesc *k = key_find(name);
	const char *cands[NR_KEYS], *near;
	unsigned int here = 1U << ps->sect;
	struct policy_rule *r;
	__u32 *seen;
	int *seen_line, nr;
	size_t i;

	if (!k || !(k->sections & here)) {
		/* Suggest among the keys this section takes first, then any key. */
		for (i = 0; i < NR_KEYS; i++)
			cands[i] = keydescs[i].sections & here ? keydescs[i].name : NULL;
		if (k)
			return parse_fail(ps, "key \"%s\" belongs in %s", name, key_sections(k));
		near = suggest_nearest(name, cands, NR_KEYS);
		if (near)
			return parse_fail(ps, "unknown key \"%s\" (did you mean \"%s\"?)", name,
					  near);
		for (i = 0; i < NR_KEYS; i++)
			cands[i] = keydescs[i].name;
		near = suggest_nearest(name, cands, NR_KEYS);
		if (near)
			return parse_fail(ps,
					  "unknown key \"%s\" (did you mean \"%s\", which "
					  "belongs in %s?)",
					  name, near, key_sections(key_find(near)));
		return parse_fail(ps, "unknown key \"%s\"", name);
	}
	if (!*value)
		return parse_fail(ps, "%s: empty value", name);

	switch (ps->sect) {
	case SECT_GLOBAL:
		seen = &ps->global_seen;
		break;
	case SECT_DEFAULT:
		seen = &ps->default_seen;
		break;
	default:
		seen = &ps->p->overrides[ps->nr];
		break;
	}
	/* Only files have duplicates: at run time, setting a key again is the point. */
	if (ps->file && (*seen & k->bit))
		return parse_fail(ps, "duplicate key \"%s\"", name);

	if (!k->rule) {
		if (!global_apply(ps, k, value))
			return false;
	} else {
		/* A rule key of [global] is [default]'s: every syscall inherits it. */
		r = ps->sect == SECT_SYSCALL ? &ps->p->rules[ps->nr] : &ps->p->def;
		if (!rule_apply(ps, r, k, value))
			return false;
	}
	*seen |= k->bit;
	nr = ps->sect == SECT_SYSCALL ? ps->nr : SCLAT_MAX_SYSCALLS;
	seen_line = k->bit == POLICY_KEY_FLOOR	   ? ps->floor_line
		    : k->bit == POLICY_KEY_CEILING ? ps->ceiling_line
						   : NULL;
	if (seen_line)
		seen_line[nr] = ps->line;
	return true;
}

/* A section header's text between the brackets: "global", "default", "syscall NAME". */
static bool section_enter(struct parse *ps, const char *text)
{
	char word[64], extra[64], name[64];
	const char *near;
	int n, nr, *first;

	n = sscanf(text, "%63s %63s %63s", word, name, extra);
	if (n <= 0)
		return parse_fail(ps, "empty section name");
	if (!strcmp(word, "syscall")) {
		if (n < 2)
			return parse_fail(ps, "[syscall] needs a name: [syscall NAME]");
		if (n > 2)
			return parse_fail(ps, "[%s]: one syscall per section", text);
		nr = syscall_nr(name);
		if (nr < 0) {
			near = syscall_nearest(name);
			if (near)
				return parse_fail(ps,
						  "unknown syscall \"%s\" (did you mean \"%s\"?)",
						  name, near);
			return parse_fail(ps, "unknown syscall \"%s\"", name);
		}
		ps->sect = SECT_SYSCALL;
		ps->nr = nr;
		first = &ps->syscall_line[nr];
	} else if (n == 1 && !strcmp(word, "global")) {
		ps->sect = SECT_GLOBAL;
		first = &ps->global_line;
	} else if (n == 1 && !strcmp(word, "default")) {
		ps->sect = SECT_DEFAULT;
		first = &ps->default_line;
	} else {
		near = suggest_nearest(word, section_names, 3);
		if (near && strcmp(near, word))
			return parse_fail(ps, "unknown section [%s] (did you mean [%s%s]?)", text,
					  near, !strcmp(near, "syscall") ? " NAME" : "");
		return parse_fail(ps,
				  "unknown section [%s] (sections are [global], [default] "
				  "and [syscall NAME])",
				  text);
	}
	/* Only files have duplicates: settings may come back to a section. */
	if (*first && ps->file)
		return parse_fail(ps, "duplicate section [%s] (first at line %d)", text, *first);
	*first = ps->line;
	return true;
}

/* After a section header's "]": nothing, or a comment. */
static bool section_tail_ok(const char *s)
{
	s += strspn(s, " \t\r\n");
	return !*s || *s == ';' || *s == '#';
}

/* libinih's line source: one line per call, counted and checked. */
static char *policy_reader(char *str, int num, void *stream)
{
	struct parse *ps = stream;
	const char *line = ps->text + ps->pos, *nl;
	size_t len;
	char *s, *end;

	if (ps->err_line || ps->pos >= ps->len)
		return NULL;
	nl = memchr(line, '\n', ps->len - ps->pos);
	len = nl ? (size_t)(nl - line) + 1 : ps->len - ps->pos;
	ps->pos += len;
	ps->line++;
	/* A UTF-8 byte order mark is allowed, once, before the first line. */
	if (ps->line == 1 && len >= 3 && !memcmp(line, UTF8_BOM, 3)) {
		line += 3;
		len -= 3;
	}
	/* Text never holds a NUL: libinih would end the line there and take the rest. */
	if (memchr(line, '\0', len)) {
		parse_fail(ps, "a NUL byte (not a text file?)");
		return NULL;
	}
	if (len >= (size_t)num || len > LINE_MAX_CHARS - 1 - !nl) {
		parse_fail(ps, "line longer than %d characters", LINE_MAX_CHARS - 2);
		return NULL;
	}
	memcpy(str, line, len);
	str[len] = '\0';
	/* An indented line continues the previous value in libinih: refuse it plainly. */
	s = str;
	if (*s == ' ' || *s == '\t') {
		while (*s == ' ' || *s == '\t')
			s++;
		if (*s && *s != '\n' && *s != '\r' && *s != ';' && *s != '#') {
			parse_fail(ps, "indented line (values are one line; "
				       "remove the indentation)");
			return NULL;
		}
	}
	if (*s == '[') {
		end = strchr(s, ']');
		if (!end) {
			parse_fail(ps, "section header without \"]\"");
			return NULL;
		}
		if (!section_tail_ok(end + 1)) {
			parse_fail(ps, "text after the section header [%.*s]", (int)(end - s - 1),
				   s + 1);
			return NULL;
		}
		*end = '\0';
		if (!section_enter(ps, s + 1))
			return NULL;
		*end = ']';
	} else if (*s != ';' && *s != '#' && s[strcspn(s, "=:")] == ':') {
		/* libinih takes "key: value" too: one way to write a setting. */
		parse_fail(ps, "\"%.*s\": write key = value", (int)strcspn(s, "\r\n"), s);
		return NULL;
	}
	return str;
}

/* libinih calls back with its section name: ps->sect, checked by our reader, is ours. */
static int policy_handler(void *user, const char *section __always_unused, const char *name,
			  const char *value)
{
	struct parse *ps = user;

	if (ps->err_line)
		return 0;
	if (ps->sect == SECT_NONE)
		return parse_fail(ps,
				  "key \"%s\" before any section ([global], [default] or "
				  "[syscall NAME])",
				  name);
	return key_apply(ps, name, value);
}

/* Syscalls take [default] for every key they don't override; then check across keys. */
static bool policy_finish(struct parse *ps)
{
	struct policy *p = ps->p;
	const struct policy_rule *d = &p->def;
	char a[16], b[16], sect[64];
	unsigned int nr, i;

	for (nr = 0; nr < SCLAT_MAX_SYSCALLS; nr++) {
		struct policy_rule *r = &p->rules[nr];
		__u32 o = p->overrides[nr];

		if (!(o & POLICY_KEY_MODE))
			r->mode = d->mode;
		if (!(o & POLICY_KEY_QUANTILE))
			r->quantile = d->quantile;
		if (!(o & POLICY_KEY_FALSE_ALARM))
			r->false_alarm = d->false_alarm;
		if (!(o & POLICY_KEY_MARGIN))
			r->margin = d->margin;
		if (!(o & POLICY_KEY_FLOOR))
			r->floor_ns = d->floor_ns;
		if (!(o & POLICY_KEY_CEILING))
			r->ceiling_ns = d->ceiling_ns;
		if (!(o & POLICY_KEY_INITIAL))
			r->initial_ns = d->initial_ns;
		if (!(o & POLICY_KEY_MIN_SAMPLES))
			r->min_samples = d->min_samples;
		if (!(o & POLICY_KEY_INFLIGHT_AFTER))
			r->inflight_after_ns = d->inflight_after_ns;
		if (!(o & POLICY_KEY_CLASSES))
			r->classes = d->classes;
		if (!(o & POLICY_KEY_MAX_CLASSES))
			r->max_classes = d->max_classes;
	}
	/* [default] first: its own mistake is reported there, not where it is inherited. */
	for (i = 0; i <= SCLAT_MAX_SYSCALLS; i++) {
		const struct policy_rule *r;
		int line;

		nr = i ? i - 1 : SCLAT_MAX_SYSCALLS;
		r = nr < SCLAT_MAX_SYSCALLS ? &p->rules[nr] : d;

		if (r->floor_ns <= r->ceiling_ns)
			continue;
		line = ps->floor_line[nr] > ps->ceiling_line[nr] ? ps->floor_line[nr]
								 : ps->ceiling_line[nr];
		if (!line) { /* inherited both: report at [default]'s */
			line = ps->floor_line[SCLAT_MAX_SYSCALLS];
			if (ps->ceiling_line[SCLAT_MAX_SYSCALLS] > line)
				line = ps->ceiling_line[SCLAT_MAX_SYSCALLS];
		}
		ps->line = line;
		return parse_fail(
			ps, "%s floor %s is above ceiling %s",
			rule_section(nr < SCLAT_MAX_SYSCALLS ? (int)nr : -1, sect, sizeof(sect)),
			duration_format(r->floor_ns, a, sizeof(a)),
			duration_format(r->ceiling_ns, b, sizeof(b)));
	}
	return true;
}

static struct parse *parse_new(struct policy *p, const char *file, char *err, size_t errlen)
{
	struct parse *ps = calloc(1, sizeof(*ps));

	if (!ps) {
		if (err && errlen)
			snprintf(err, errlen, "out of memory");
		return NULL;
	}
	ps->p = p;
	ps->file = file;
	ps->err = err;
	ps->errlen = errlen;
	return ps;
}

struct policy *policy_alloc(const char *source)
{
	struct policy *p = calloc(1, sizeof(*p));

	if (p)
		snprintf(p->source, sizeof(p->source), "%s", source);
	return p;
}

/* Apply settings through the file's checks; false (reason in ps) on the first bad one. */
static bool settings_apply(struct parse *ps, const struct policy_setting *set, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!section_enter(ps, set[i].section) || !key_apply(ps, set[i].key, set[i].value))
			return false;
	return policy_finish(ps);
}

bool policy_apply(struct policy *p, const struct policy_setting *set, size_t n, char *err,
		  size_t errlen)
{
	struct parse *ps = parse_new(p, NULL, err, errlen);
	bool ok;

	if (!ps)
		return false;
	ok = settings_apply(ps, set, n);
	free(ps);
	return ok;
}

bool policy_parse_text(struct policy *p, const char *name, const char *text, size_t len, char *err,
		       size_t errlen)
{
	struct parse *ps = parse_new(p, name, err, errlen);
	bool ok = false;
	int ret;

	if (!ps)
		return false;
	ps->text = text;
	ps->len = len;
	ret = ini_parse_stream(policy_reader, ps, policy_handler, ps);
	if (ret > 0 && (!ps->err_line || ret < ps->err_line)) {
		ps->err_line = 0;
		ps->line = ret;
		parse_fail(ps, "expected \"[section]\" or \"key = value\"");
	} else if (ret < 0 && !ps->err_line) {
		snprintf(err, errlen, "%s: out of memory", name);
		goto out;
	}
	ok = !ps->err_line && policy_finish(ps);
out:
	free(ps);
	return ok;
}

static const char *file_kind(mode_t mode)
{
	return S_ISDIR(mode)	? "a directory"
	       : S_ISCHR(mode)	? "a character device"
	       : S_ISBLK(mode)	? "a block device"
	       : S_ISFIFO(mode) ? "a FIFO"
	       : S_ISSOCK(mode) ? "a socket"
				: "not a file";
}

/*
 * The bytes of a policy file: a regular file, at most POLICY_FILE_MAX bytes.
 * /dev/zero or a FIFO would never end, a directory reads as nothing; opened
 * without blocking so that a FIFO is refused rather than waited on.
 */
static char *file_read(const char *path, size_t *len, char *err, size_t errlen)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	char *buf = NULL;
	struct stat st;
	ssize_t n;

	if (fd < 0 || fstat(fd, &st)) {
		snprintf(err, errlen, "%s: cannot read: %s", path, strerror(errno));
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s: not a regular file (%s)", path, file_kind(st.st_mode));
		goto fail;
	}
	buf = malloc(POLICY_FILE_MAX + 1);
	if (!buf) {
		snprintf(err, errlen, "%s: out of memory", path);
		goto fail;
	}
	/* Read one byte more than allowed: a file that grew is caught too. */
	for (*len = 0; *len <= POLICY_FILE_MAX; *len += n) {
		n = read(fd, buf + *len, POLICY_FILE_MAX + 1 - *len);
		if (n < 0 && errno == EINTR) {
			n = 0;
			continue;
		}
		if (n < 0) {
			snprintf(err, errlen, "%s: cannot read: %s", path, strerror(errno));
			goto fail;
		}
		if (!n)
			break;
	}
	if (*len > POLICY_FILE_MAX) {
		snprintf(err, errlen, "%s: too large (a policy file is at most %d KiB)", path,
			 POLICY_FILE_MAX / 1024);
		goto fail;
	}
	close(fd);
	return buf;
fail:
	free(buf);
	if (fd >= 0)
		close(fd);
	return NULL;
}

bool policy_parse_file(struct policy *p, const char *path, char *err, size_t errlen)
{
	size_t len;
	char *text = file_read(path, &len, err, errlen);
	bool ok;

	if (!text)
		return false;
	ok = policy_parse_text(p, path, text, len, err, errlen);
	free(text);
	return ok;
}

#define MODIFIED " (modified)"

struct policy *policy_with(const struct policy *base, const char *syscall, const char *key,
			   const char *value, char *err, size_t errlen)
{
	const struct policy_keydesc *k = key_find(key);
	struct policy *p = malloc(sizeof(*p));
	struct policy_setting set = { .key = key, .value = value };
	char section[64];
	size_t len;

	if (!p) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	memcpy(p, base, sizeof(*p));
	memset(&p->rcu, 0, sizeof(p->rcu));
	/* Without a syscall, a key goes to the section that takes it. */
	if (syscall)
		snprintf(section, sizeof(section), "syscall %s", syscall);
	else
		snprintf(section, sizeof(section), "%s",
			 k && (k->sections & IN_GLOBAL) ? "global" : "default");
	set.section = section;
	if (!policy_apply(p, &set, 1, err, errlen)) {
		free(p);
		errno = EINVAL;
		return NULL;
	}
	/* Say once that it was changed since it was loaded. */
	len = strlen(p->source);
	if ((len < sizeof(MODIFIED) - 1 ||
	     strcmp(p->source + len - (sizeof(MODIFIED) - 1), MODIFIED)) &&
	    len + sizeof(MODIFIED) <= sizeof(p->source))
		strcat(p->source, MODIFIED);
	return p;
}

void policy_free(struct policy *p)
{
	free(p);
}

__u64 policy_inflight_after(const struct policy_rule *r, __u64 threshold_ns)
{
	if (r->inflight_after_ns == POLICY_INFLIGHT_OFF)
		return 0;
	if (r->inflight_after_ns != POLICY_INFLIGHT_AUTO)
		return r->inflight_after_ns;
	if (r->mode == POLICY_OFF || threshold_ns >= SCLAT_THRESHOLD_MASK)
		return POLICY_INFLIGHT_OFF_NS;
	if (threshold_ns > POLICY_INFLIGHT_MIN_NS / POLICY_INFLIGHT_FACTOR)
		return threshold_ns * POLICY_INFLIGHT_FACTOR;
	return POLICY_INFLIGHT_MIN_NS;
}

const char *policy_mode_name(enum policy_mode mode)
{
	return mode <= POLICY_OFF ? mode_names[mode] : "?";
}
