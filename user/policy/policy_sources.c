// SPDX-License-Identifier: GPL-2.0-only
/*
 * Where a policy comes from: the built-in settings, a file on top of the
 * built-in defaults, --threshold, and the choice of the file a run applies.
 * The built-in settings are applied by the same code as a file's
 * (policy_apply()); user/policy/policy.ini says the same, with the reasons,
 * and a unit test checks that they agree.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "policy.h"

/* Tables read best one setting a line. */
/* clang-format off */

/* [global] and [default]: what every policy file starts from. */
static const struct policy_setting builtin_base[] = {
	{ "global", "interval", "1s" },
	{ "global", "half_life", "10s" },
	{ "global", "budget", "1000" },
	{ "global", "classes", "auto" },
	{ "global", "max_classes", "64" },
	{ "global", "class_cells", "0" },
	{ "global", "class_idle", "30s" },
	{ "global", "sample", "16" },
	{ "global", "min_latency", "0ns" },
	{ "global", "judge", "service" },
	{ "default", "mode", "adaptive" },
	{ "default", "quantile", "0.999" },
	{ "default", "false_alarm", "1e-5" },
	{ "default", "margin", "1.0" },
	{ "default", "floor", "2us" },
	{ "default", "ceiling", "10s" },
	{ "default", "min_samples", "1000" },
	{ "default", "initial", "10ms" },
	{ "default", "inflight_after", "auto" },
};

/*
 * The built-in policy's exceptions: the waits for an event or a lock judged
 * only once their normal is learnt, the other blocking-by-design syscalls
 * (long by intent) off.
 */
static const struct policy_setting builtin_syscalls[] = {
	{ "syscall futex", "initial", "off" },
	{ "syscall futex_waitv", "initial", "off" },
	{ "syscall epoll_wait", "initial", "off" },
	{ "syscall epoll_pwait", "initial", "off" },
	{ "syscall epoll_pwait2", "initial", "off" },
	{ "syscall poll", "initial", "off" },
	{ "syscall ppoll", "initial", "off" },
	{ "syscall select", "initial", "off" },
	{ "syscall pselect6", "initial", "off" },
	{ "syscall io_getevents", "mode", "off" },
	{ "syscall io_pgetevents", "mode", "off" },
	{ "syscall io_uring_enter", "mode", "off" },
	{ "syscall nanosleep", "mode", "off" },
	{ "syscall clock_nanosleep", "mode", "off" },
	{ "syscall pause", "mode", "off" },
	{ "syscall rt_sigsuspend", "mode", "off" },
	{ "syscall rt_sigtimedwait", "mode", "off" },
	{ "syscall restart_syscall", "mode", "off" },
	{ "syscall wait4", "mode", "off" },
	{ "syscall waitid", "mode", "off" },
	{ "syscall vfork", "mode", "off" },
	{ "syscall accept", "mode", "off" },
	{ "syscall accept4", "mode", "off" },
	{ "syscall msgrcv", "mode", "off" },
	{ "syscall semop", "mode", "off" },
	{ "syscall semtimedop", "mode", "off" },
	{ "syscall mq_timedreceive", "mode", "off" },
};

/* clang-format on */

struct policy *policy_builtin(void)
{
	struct policy *p = policy_alloc("built-in");

	if (!p)
		return NULL;
	/* The same order as a file: [global] and [default], then the sections. */
	if (!policy_apply(p, builtin_base, sizeof(builtin_base) / sizeof(builtin_base[0]), NULL,
			  0) ||
	    !policy_apply(p, builtin_syscalls,
			  sizeof(builtin_syscalls) / sizeof(builtin_syscalls[0]), NULL, 0)) {
		policy_free(p);
		errno = EINVAL;
		return NULL;
	}
	return p;
}

/*
 * What a file starts from: the built-in [global] and [default] values; its
 * [syscall] sections are its own (the built-in ones would be surprising
 * overrides that the file cannot remove).
 */
static struct policy *policy_file_base(const char *name, char *err, size_t errlen)
{
	struct policy *p = policy_alloc(name);

	if (!p) {
		snprintf(err, errlen, "%s: out of memory", name);
		return NULL;
	}
	if (!policy_apply(p, builtin_base, sizeof(builtin_base) / sizeof(builtin_base[0]), err,
			  errlen)) {
		policy_free(p);
		return NULL;
	}
	return p;
}

struct policy *policy_load(const char *path, char *err, size_t errlen)
{
	struct policy *p = policy_file_base(path, err, errlen);

	if (p && !policy_parse_file(p, path, err, errlen)) {
		policy_free(p);
		p = NULL;
	}
	if (!p)
		errno = EINVAL;
	return p;
}

struct policy *policy_load_over(const struct policy *base, const char *path, char *err,
				size_t errlen)
{
	struct policy *p = malloc(sizeof(*p));
	char source[sizeof(p->source)];
	int n;

	if (!p) {
		snprintf(err, errlen, "%s: out of memory", path);
		return NULL;
	}
	memcpy(p, base, sizeof(*p));
	memset(&p->rcu, 0, sizeof(p->rcu));
	if (!policy_parse_file(p, path, err, errlen)) {
		free(p);
		errno = EINVAL;
		return NULL;
	}
	/* Cut where it must: the source is a comment of policy show. */
	n = snprintf(source, sizeof(source), "%s", base->source);
	if (n >= 0 && (size_t)n < sizeof(source))
		snprintf(source + n, sizeof(source) - n, " + %s", path);
	memcpy(p->source, source, sizeof(p->source));
	return p;
}

struct policy *policy_load_text(const char *name, const char *text, size_t len, char *err,
				size_t errlen)
{
	struct policy *p = policy_file_base(name, err, errlen);

	if (p && !policy_parse_text(p, name, text, len, err, errlen)) {
		policy_free(p);
		p = NULL;
	}
	if (!p)
		errno = EINVAL;
	return p;
}

struct policy *policy_static(__u64 threshold_ns)
{
	struct policy *p = policy_builtin();
	unsigned int nr;

	if (!p)
		return NULL;
	snprintf(p->source, sizeof(p->source), "--threshold");
	p->def.mode = POLICY_STATIC;
	p->def.initial_ns = threshold_ns;
	/* Every call past it, on its whole latency: no classes, nothing left out. */
	p->def.classes = 0;
	p->judge = SCLAT_JUDGE_WALL;
	if (p->def.floor_ns > threshold_ns)
		p->def.floor_ns = threshold_ns;
	if (p->def.ceiling_ns < threshold_ns)
		p->def.ceiling_ns = threshold_ns;
	for (nr = 0; nr < SCLAT_MAX_SYSCALLS; nr++) {
		p->rules[nr] = p->def;
		p->overrides[nr] = 0;
	}
	return p;
}

const char *policy_default_file(bool *required)
{
	const char *env = getenv(POLICY_ENV);

	*required = env && *env;
	return *required ? env : POLICY_INSTALLED;
}

struct policy *policy_default(const char **file, char *err, size_t errlen)
{
	bool required;
	const char *path = policy_default_file(&required);
	struct policy *p;
	struct stat st;

	*file = NULL;
	/* Only "no such file" means "not installed": any other failure is the file's. */
	if (!required && stat(path, &st) && errno == ENOENT) {
		p = policy_builtin();
		if (p)
			snprintf(p->source, sizeof(p->source), "built-in (no %s)", path);
		else
			snprintf(err, errlen, "building the built-in policy: %s", strerror(errno));
		return p;
	}
	p = policy_load(path, err, errlen);
	if (p) {
		*file = path;
	} else if (strlen(err) + 1 < errlen) {
		size_t n = strlen(err);

		snprintf(err + n, errlen - n, "%s",
			 required ? " (named by " POLICY_ENV ")"
				  : "; it is the default policy: fix it, or give --policy FILE");
	}
	return p;
}
