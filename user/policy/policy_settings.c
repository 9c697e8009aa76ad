// SPDX-License-Identifier: GPL-2.0-only
/*
 * Settings applied to a policy, and the checks on them: from policy files
 * (policy_parse.c), from the built-in table and from run-time changes. One
 * path applies them all: policy_section_enter() and policy_key_apply(), then
 * policy_finish().
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "policy_settings.h"
#include "policy_values.h"
#include "util/duration.h"
#include "util/suggest.h"
#include "util/syscall_names.h"

static const char *const section_names[] = { "global", "default", "syscall" };

static const char *rule_section(int nr, char *buf, size_t len)
{
	if (nr < 0)
		return "[default]";
	snprintf(buf, len, "[syscall %s]", syscall_name(nr) ? syscall_name(nr) : "?");
	return buf;
}

bool policy_key_apply(struct policy_parse *ps, const char *name, const char *value)
{
	const struct policy_keydesc *k = policy_key_find(name);
	unsigned int here = 1U << ps->sect;
	struct policy_rule *r;
	const char *near;
	__u32 *seen;
	int *seen_line, nr;

	if (!k || !(k->sections & here)) {
		if (k)
			return policy_parse_fail(ps, "key \"%s\" belongs in %s", name,
						 policy_key_sections(k));
		/* Suggest among the keys this section takes first, then any key. */
		near = policy_key_nearest(name, here);
		if (near)
			return policy_parse_fail(ps, "unknown key \"%s\" (did you mean \"%s\"?)",
						 name, near);
		near = policy_key_nearest(name, IN_ANY);
		if (near)
			return policy_parse_fail(ps,
						 "unknown key \"%s\" (did you mean \"%s\", which "
						 "belongs in %s?)",
						 name, near,
						 policy_key_sections(policy_key_find(near)));
		return policy_parse_fail(ps, "unknown key \"%s\"", name);
	}
	if (!*value)
		return policy_parse_fail(ps, "%s: empty value", name);

	switch (ps->sect) {
	case SECT_GLOBAL:
		seen = &ps->global_seen;
		break;
	case SECT_DEFAULT:
		seen = &ps->default_seen;
		break;
	default:
		/* This parse's: a file merged into a policy may set its sections' keys again. */
		seen = &ps->syscall_seen[ps->nr];
		break;
	}
	/* Only files have duplicates: at run time, setting a key again is the point. */
	if (ps->file && (*seen & k->bit))
		return policy_parse_fail(ps, "duplicate key \"%s\"", name);

	if (!k->rule) {
		if (!policy_global_apply(ps, k, value))
			return false;
	} else {
		/* A rule key of [global] is [default]'s: every syscall inherits it. */
		r = ps->sect == SECT_SYSCALL ? &ps->p->rules[ps->nr] : &ps->p->def;
		if (!policy_rule_apply(ps, r, k, value))
			return false;
	}
	*seen |= k->bit;
	if (ps->sect == SECT_SYSCALL)
		ps->p->overrides[ps->nr] |= k->bit;
	nr = ps->sect == SECT_SYSCALL ? ps->nr : SCLAT_MAX_SYSCALLS;
	seen_line = k->bit == POLICY_KEY_FLOOR	   ? ps->floor_line
		    : k->bit == POLICY_KEY_CEILING ? ps->ceiling_line
						   : NULL;
	if (seen_line)
		seen_line[nr] = ps->line;
	return true;
}

bool policy_section_enter(struct policy_parse *ps, const char *text)
{
	char word[64], extra[64], name[64];
	const char *near;
	int n, nr, *first;

	n = sscanf(text, "%63s %63s %63s", word, name, extra);
	if (n <= 0)
		return policy_parse_fail(ps, "empty section name");
	if (!strcmp(word, "syscall")) {
		if (n < 2)
			return policy_parse_fail(ps, "[syscall] needs a name: [syscall NAME]");
		if (n > 2)
			return policy_parse_fail(ps, "[%s]: one syscall per section", text);
		nr = syscall_nr(name);
		if (nr < 0) {
			near = syscall_nearest(name);
			if (near)
				return policy_parse_fail(
					ps, "unknown syscall \"%s\" (did you mean \"%s\"?)", name,
					near);
			return policy_parse_fail(ps, "unknown syscall \"%s\"", name);
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
			return policy_parse_fail(ps, "unknown section [%s] (did you mean [%s%s]?)",
						 text, near,
						 !strcmp(near, "syscall") ? " NAME" : "");
		return policy_parse_fail(ps,
					 "unknown section [%s] (sections are [global], [default] "
					 "and [syscall NAME])",
					 text);
	}
	/* Only files have duplicates: settings may come back to a section. */
	if (*first && ps->file)
		return policy_parse_fail(ps, "duplicate section [%s] (first at line %d)", text,
					 *first);
	*first = ps->line;
	return true;
}

/* Where syscall nr's classes were set: its own section, or [global] for every syscall. */
static const char *classes_section(const struct policy *p, int nr, char *buf, size_t len)
{
	if (!(p->overrides[nr] & POLICY_KEY_CLASSES))
		return "[global]";
	return rule_section(nr, buf, len);
}

/*
 * Title classes are kept per process in the kernel (controller/classes.h):
 * no syscall may be split by process while another is split by title. false,
 * naming both, when one is.
 */
static bool title_classes_alone(struct policy_parse *ps)
{
	const struct policy *p = ps->p;
	int nr, with[2] = { -1, -1 }; /* a syscall split by process, one by title */
	char a[64], b[64], kinds[64];

	for (nr = 0; nr < SCLAT_MAX_SYSCALLS; nr++) {
		const struct policy_rule *r = &p->rules[nr];

		if (r->mode != POLICY_ADAPTIVE)
			continue;
		/* auto is keyed by process too. */
		if (r->classes & (POLICY_CLASS_PROCESS | POLICY_CLASS_AUTO) && with[0] < 0)
			with[0] = nr;
		if (r->classes & POLICY_CLASS_TITLE && with[1] < 0)
			with[1] = nr;
	}
	if (with[0] < 0 || with[1] < 0)
		return true;
	return policy_parse_fail(
		ps,
		"%s has classes = title and %s classes = %s: both are kept "
		"per process in the kernel, one policy has one of them; choose "
		"title or process for all",
		classes_section(p, with[1], a, sizeof(a)),
		classes_section(p, with[0], b, sizeof(b)),
		policy_classes_format(p->rules[with[0]].classes, kinds, sizeof(kinds)));
}

/* Keys seen in a section: a quantile without a rate. */
static bool quantile_alone(__u32 seen)
{
	return (seen & POLICY_KEY_QUANTILE) && !(seen & POLICY_KEY_FALSE_ALARM);
}

bool policy_finish(struct policy_parse *ps)
{
	struct policy *p = ps->p;
	const struct policy_rule *d = &p->def;
	char a[16], b[16], sect[64];
	unsigned int nr, i;

	/*
	 * quantile and false_alarm are alternatives: a section that names a
	 * quantile and no rate means the quantile, over the rate it inherits
	 * (the built-in one, or [default]'s).
	 */
	if (quantile_alone(ps->default_seen))
		p->def.false_alarm = 0;
	for (nr = 0; nr < SCLAT_MAX_SYSCALLS; nr++) {
		struct policy_rule *r = &p->rules[nr];
		__u32 o = p->overrides[nr];

		if (!(o & POLICY_KEY_MODE))
			r->mode = d->mode;
		if (!(o & POLICY_KEY_QUANTILE))
			r->quantile = d->quantile;
		if (!(o & POLICY_KEY_FALSE_ALARM))
			r->false_alarm = d->false_alarm;
		if (quantile_alone(o))
			r->false_alarm = 0;
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
		return policy_parse_fail(
			ps, "%s floor %s is above ceiling %s",
			rule_section(nr < SCLAT_MAX_SYSCALLS ? (int)nr : -1, sect, sizeof(sect)),
			duration_format(r->floor_ns, a, sizeof(a)),
			duration_format(r->ceiling_ns, b, sizeof(b)));
	}
	return title_classes_alone(ps);
}

struct policy *policy_alloc(const char *source)
{
	struct policy *p = calloc(1, sizeof(*p));

	if (p)
		snprintf(p->source, sizeof(p->source), "%s", source);
	return p;
}

/* Apply settings through the file's checks; false (reason in ps) on the first bad one. */
static bool settings_apply(struct policy_parse *ps, const struct policy_setting *set, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!policy_section_enter(ps, set[i].section) ||
		    !policy_key_apply(ps, set[i].key, set[i].value))
			return false;
	return policy_finish(ps);
}

bool policy_apply(struct policy *p, const struct policy_setting *set, size_t n, char *err,
		  size_t errlen)
{
	struct policy_parse *ps = policy_parse_new(p, NULL, err, errlen);
	bool ok;

	if (!ps)
		return false;
	ok = settings_apply(ps, set, n);
	free(ps);
	return ok;
}

#define MODIFIED " (modified)"

struct policy *policy_with(const struct policy *base, const char *syscall, const char *key,
			   const char *value, char *err, size_t errlen)
{
	const struct policy_keydesc *k = policy_key_find(key);
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
