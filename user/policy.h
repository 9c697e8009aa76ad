/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The threshold policy: what the controller aims for, per syscall. Parsed from
 * an INI file (libinih), changed at run time through the control socket, and
 * published with RCU (urcu-memb): readers never block, writers swap the whole
 * policy and free the old one after a grace period.
 *
 * A policy is immutable once published.
 */
#ifndef SCLAT_POLICY_H
#define SCLAT_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <urcu/urcu-memb.h>
#include "sclat_abi.h"

enum policy_mode {
	POLICY_ADAPTIVE,	/* threshold = clamp(margin * quantile estimate, floor, ceiling) */
	POLICY_STATIC,		/* threshold = initial, always */
	POLICY_OFF,		/* never emit */
};

/* The effective settings of one syscall. */
struct policy_rule {
	enum policy_mode mode;
	double quantile;	/* target quantile, 0 < q < 1 */
	double margin;		/* multiplier on the estimate, > 0 */
	__u64 floor_ns;
	__u64 ceiling_ns;
	__u64 initial_ns;	/* until min_samples, and the static threshold */
	__u64 min_samples;
};

struct policy {
	__u64 interval_ns;	/* controller period, 100ms .. 60s */
	__u64 half_life_ns;	/* decay of the statistics window */
	__u64 budget;		/* outliers per second for the whole system, 0: none */
	struct policy_rule def;	/* [default] */
	struct policy_rule rules[SCLAT_MAX_SYSCALLS];	/* effective, per syscall number */
	__u32 overrides[SCLAT_MAX_SYSCALLS];	/* keys a [syscall NAME] section set (bit mask) */
	char source[256];	/* file it came from, or "built-in" */
	struct rcu_head rcu;
};

/* Bits of policy.overrides[nr]: which keys a [syscall NAME] section set. */
enum policy_key {
	POLICY_KEY_MODE = 1 << 0,
	POLICY_KEY_QUANTILE = 1 << 1,
	POLICY_KEY_MARGIN = 1 << 2,
	POLICY_KEY_FLOOR = 1 << 3,
	POLICY_KEY_CEILING = 1 << 4,
	POLICY_KEY_INITIAL = 1 << 5,
	POLICY_KEY_MIN_SAMPLES = 1 << 6,
};

/* The built-in policy (the one shipped as policy.ini says the same). */
struct policy *policy_builtin(void);

/* Where `make install` puts the shipped policy.ini (SYSCONFDIR, see scripts/policy.mk). */
#ifndef SCLAT_SYSCONFDIR
#define SCLAT_SYSCONFDIR "/etc"
#endif
#define POLICY_INSTALLED SCLAT_SYSCONFDIR "/sclat/policy.ini"

/* Names a policy file to use in place of POLICY_INSTALLED (tests, trying a policy out). */
#define POLICY_ENV "SCLAT_POLICY"

/*
 * The default policy file: $SCLAT_POLICY when set and not empty, else
 * POLICY_INSTALLED. *required says whether it must exist: the installed one
 * may be absent, a file the environment names may not.
 */
const char *policy_default_file(bool *required);

/*
 * The policy sclat watch and record apply without --policy or --threshold:
 * policy_default_file() loaded, or the built-in policy when that is the
 * installed file and it does not exist. A file that exists is never skipped:
 * unreadable or invalid, it is an error (NULL, err names the file); *file
 * says which file was loaded (NULL: built-in).
 */
struct policy *policy_default(const char **file, char *err, size_t errlen);

/*
 * Parse an INI policy file. [global] and [default] keys it leaves out keep
 * their built-in values; its [syscall NAME] sections are its only exceptions
 * (the built-in ones are not inherited, so a file can drop them). On error returns
 * NULL and writes one line to err naming file, line and key, with the nearest
 * valid key or syscall name: "policy.ini:12: unknown key \"quantil\" (did you
 * mean \"quantile\"?)".
 */
struct policy *policy_load(const char *path, char *err, size_t errlen);

/*
 * A copy of base with KEY=VALUE applied to [default] (syscall NULL) or to one
 * syscall, or to [global] keys (interval, half_life, budget). NULL and err on
 * a bad key, value or syscall; base is never changed.
 */
struct policy *policy_with(const struct policy *base, const char *syscall, const char *key,
			   const char *value, char *err, size_t errlen);

/* Every syscall static at threshold_ns (what --threshold means). */
struct policy *policy_static(__u64 threshold_ns);

/* The effective policy as an INI text that policy_load() reads back the same. */
int policy_write_ini(const struct policy *p, FILE *f);

/*
 * The effective per-syscall table (`sclat policy check`): a header line with
 * the [global] values, a "(default)" row, then one row per syscall that a
 * [syscall NAME] section changes (every known syscall with all).
 */
void policy_write_table(const struct policy *p, FILE *f);
void policy_write_table_all(const struct policy *p, bool all, FILE *f);

void policy_free(struct policy *p);

/* "adaptive", "static" or "off". */
const char *policy_mode_name(enum policy_mode mode);

/*
 * RCU publication. policy_current() must be called inside
 * urcu_memb_read_lock()/urcu_memb_read_unlock(), from a thread registered with
 * urcu_memb_register_thread(). policy_publish() takes ownership of p (NULL
 * unpublishes) and frees the previous policy after a grace period; call_rcu's
 * rule applies: call it from a registered thread too.
 */
struct policy *policy_current(void);
void policy_publish(struct policy *p);

#endif
