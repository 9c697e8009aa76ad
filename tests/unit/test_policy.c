// SPDX-License-Identifier: GPL-2.0-only
/* The policy: parsing good and bad files, run-time changes, round trips, RCU. */
#include <pthread.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include <urcu/urcu-memb.h>
#include "util/compiler.h"
#include "policy/policy.h"
#include "util/syscall_names.h"
#include "unit.h"

#define SHIPPED "user/policy/policy.ini"

static char tmpdir[] = "/tmp/sclat-test-policy.XXXXXX";

/* Write text to a file named name in the test directory; returns its path. */
static const char *file_with(const char *name, const char *text)
{
	static char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	f = fopen(path, "w");
	if (!f)
		return NULL;
	fputs(text, f);
	fclose(f);
	return path;
}

static bool rule_eq(const struct policy_rule *a, const struct policy_rule *b)
{
	return a->mode == b->mode && a->quantile == b->quantile &&
	       a->false_alarm == b->false_alarm && a->margin == b->margin &&
	       a->floor_ns == b->floor_ns && a->ceiling_ns == b->ceiling_ns &&
	       a->initial_ns == b->initial_ns && a->min_samples == b->min_samples &&
	       a->inflight_after_ns == b->inflight_after_ns && a->classes == b->classes &&
	       a->max_classes == b->max_classes;
}

/* Same settings (the source and the rcu head aside); names the first difference. */
static bool policy_eq(const struct policy *a, const struct policy *b)
{
	unsigned int nr;

	if (!CHECK(a->interval_ns == b->interval_ns && a->half_life_ns == b->half_life_ns &&
			   a->budget == b->budget && a->class_cells == b->class_cells &&
			   a->class_idle_ns == b->class_idle_ns && a->sample == b->sample,
		   "[global] differs") ||
	    !CHECK(rule_eq(&a->def, &b->def), "[default] differs"))
		return false;
	for (nr = 0; nr < SCLAT_MAX_SYSCALLS; nr++)
		if (!CHECK(rule_eq(&a->rules[nr], &b->rules[nr]) &&
				   a->overrides[nr] == b->overrides[nr],
			   "syscall %u (%s) differs", nr, syscall_name(nr)))
			return false;
	return true;
}

static void test_builtin_is_shipped_file(void)
{
	char err[256] = "";
	struct policy *b = policy_builtin(), *f = policy_load(SHIPPED, err, sizeof(err));

	if (CHECK(b && f, "builtin %p, %s: %s", (void *)b, SHIPPED, err))
		policy_eq(b, f);
	CHECK_STR(b->source, "built-in");
	CHECK_STR(f->source, SHIPPED);
	policy_free(b);
	policy_free(f);
}

static void test_builtin_values(void)
{
	struct policy *p = policy_builtin();
	int futex = syscall_nr("futex"), rd = syscall_nr("read"), sleep = syscall_nr("nanosleep");

	CHECK_EQ_U64(p->interval_ns, 1000000000ULL);
	CHECK_EQ_U64(p->half_life_ns, 10000000000ULL);
	CHECK_EQ_U64(p->budget, 1000);
	CHECK_EQ_INT(p->def.mode, POLICY_ADAPTIVE);
	CHECK_NEAR(p->def.quantile, 0.999, 1e-12);
	CHECK_EQ_U64(p->def.initial_ns, 10000000ULL);
	/* A wait is judged, once its normal is learnt. */
	CHECK_EQ_INT(p->rules[futex].mode, POLICY_ADAPTIVE);
	CHECK_EQ_U64(p->rules[futex].initial_ns, SCLAT_THRESHOLD_NEVER);
	CHECK_EQ_U64(p->overrides[futex], POLICY_KEY_INITIAL);
	/* A sleep is as long as asked. */
	CHECK_EQ_INT(p->rules[sleep].mode, POLICY_OFF);
	CHECK_EQ_U64(p->overrides[sleep], POLICY_KEY_MODE);
	/* read blocks on pipes too, but is learned, not switched off. */
	CHECK_EQ_INT(p->rules[rd].mode, POLICY_ADAPTIVE);
	CHECK_EQ_U64(p->overrides[rd], 0);
	policy_free(p);
}

/*
 * A hang is reported even in a syscall whose outliers are off: futex's
 * default is 30s, read's 10 times its threshold, and never under 1s.
 */
static void test_inflight_after(void)
{
	char err[256] = "";
	struct policy *p = policy_builtin(), *q;
	int futex = syscall_nr("futex"), rd = syscall_nr("read");

	CHECK_EQ_U64(policy_inflight_after(&p->rules[futex], SCLAT_THRESHOLD_MASK), 30000000000ULL);
	CHECK_EQ_U64(policy_inflight_after(&p->rules[rd], 10000000ULL), 1000000000ULL);
	CHECK_EQ_U64(policy_inflight_after(&p->rules[rd], 500000000ULL), 5000000000ULL);
	q = policy_with(p, "read", "inflight_after", "500ms", err, sizeof(err));
	if (CHECK(q, "%s", err)) {
		CHECK_EQ_U64(policy_inflight_after(&q->rules[rd], 10000000ULL), 500000000ULL);
		/* Another syscall keeps [default]'s. */
		CHECK_EQ_U64(policy_inflight_after(&q->rules[futex], SCLAT_THRESHOLD_MASK),
			     30000000000ULL);
	}
	policy_free(q);
	q = policy_with(p, NULL, "inflight_after", "off", err, sizeof(err));
	if (CHECK(q, "%s", err))
		CHECK_EQ_U64(policy_inflight_after(&q->rules[futex], SCLAT_THRESHOLD_MASK), 0);
	policy_free(q);
	policy_free(p);
}

static void test_good_file(void)
{
	/* [default] after a [syscall] section still applies to the keys it leaves. */
	const char *path = file_with("good.ini", "; comment\n"
						 "[syscall read]\n"
						 "quantile = 0.9999   ; inline comment\n"
						 "floor = 1.5us\n"
						 "\n"
						 "[global]\n"
						 "interval = 250ms\n"
						 "budget = 500/s\n"
						 "[default]\n"
						 "mode = static\n"
						 "initial = 3ms\n"
						 "margin = 2\n"
						 "[syscall 39]\n"
						 "mode = adaptive\n"
						 "min_samples = 10\n");
	char err[256] = "";
	struct policy *p = policy_load(path, err, sizeof(err));
	int rd = syscall_nr("read"), gp = syscall_nr("getpid"), wr = syscall_nr("write");

	if (!CHECK(p, "%s", err))
		return;
	CHECK_EQ_U64(p->interval_ns, 250000000ULL);
	CHECK_EQ_U64(p->half_life_ns, 10000000000ULL); /* left out: built-in value */
	CHECK_EQ_U64(p->budget, 500);
	CHECK_EQ_INT(p->rules[rd].mode, POLICY_STATIC);
	CHECK_NEAR(p->rules[rd].quantile, 0.9999, 1e-12);
	CHECK_EQ_U64(p->rules[rd].floor_ns, 1500);
	CHECK_EQ_U64(p->rules[rd].initial_ns, 3000000ULL);
	CHECK_NEAR(p->rules[rd].margin, 2.0, 1e-12);
	CHECK_EQ_U64(p->overrides[rd], POLICY_KEY_QUANTILE | POLICY_KEY_FLOOR);
	CHECK_EQ_INT(gp, 39);
	CHECK_EQ_INT(p->rules[gp].mode, POLICY_ADAPTIVE);
	CHECK_EQ_U64(p->rules[gp].min_samples, 10);
	CHECK_EQ_INT(p->rules[wr].mode, POLICY_STATIC);
	CHECK_EQ_U64(p->overrides[wr], 0);
	/* A file's [syscall] sections are its only exceptions: futex follows [default]. */
	CHECK_EQ_INT(p->rules[syscall_nr("futex")].mode, POLICY_STATIC);
	policy_free(p);
}

static const struct {
	const char *text;
	const char *error; /* after "DIR/bad.ini:" */
} bad_files[] = {
	{ "[default]\nquantil = 0.9\n", "2: unknown key \"quantil\" (did you mean \"quantile\"?)" },
	{ "[default]\nbanana = 1\n", "2: unknown key \"banana\"" },
	{ "[global]\nhalflife = 5s\n",
	  "2: unknown key \"halflife\" (did you mean \"half_life\"?)" },
	{ "[default]\nintervall = 1s\n",
	  "2: unknown key \"intervall\" (did you mean \"interval\", which belongs in [global]?)" },
	{ "[global]\nquantile = 0.9\n",
	  "2: key \"quantile\" belongs in [default] or [syscall NAME]" },
	{ "[syscall read]\ninterval = 1s\n", "2: key \"interval\" belongs in [global]" },
	{ "mode = off\n[default]\n",
	  "1: key \"mode\" before any section ([global], [default] or [syscall NAME])" },
	{ "[syscall reed]\nmode = off\n", "1: unknown syscall \"reed\" (did you mean \"read\"?)" },
	{ "[default]\ninflight_after = 0s\n",
	  "2: inflight_after = 0s: must be more than zero (off turns it off)" },
	{ "[syscall read]\ninflight_after = soon\n",
	  "2: inflight_after = soon: not auto, off or a duration (e.g. 30s)" },
	{ "[global]\ninflight_after = 1s\n",
	  "2: key \"inflight_after\" belongs in [default] or [syscall NAME]" },
	{ "[syscall no_such_thing_at_all]\n", "1: unknown syscall \"no_such_thing_at_all\"" },
	{ "[syscall]\nmode = off\n", "1: [syscall] needs a name: [syscall NAME]" },
	{ "[syscall read write]\n", "1: [syscall read write]: one syscall per section" },
	{ "\n[defualt]\n", "2: unknown section [defualt] (did you mean [default]?)" },
	{ "[sycall read]\n", "1: unknown section [sycall read] (did you mean [syscall NAME]?)" },
	{ "[zzzzzz]\n", "1: unknown section [zzzzzz] (sections are [global], [default] and "
			"[syscall NAME])" },
	{ "[global]\n[default]\n[global]\n", "3: duplicate section [global] (first at line 1)" },
	{ "[syscall read]\n[syscall 0]\n", "2: duplicate section [syscall 0] (first at line 1)" },
	{ "[default]\nmargin = 1\nmargin = 2\n", "3: duplicate key \"margin\"" },
	{ "[default]\nmode = adaptiv\n",
	  "2: mode = adaptiv: unknown mode (did you mean \"adaptive\"?)" },
	{ "[default]\nmode = sometimes\n",
	  "2: mode = sometimes: unknown mode (adaptive, static or off)" },
	{ "[default]\nquantile = 1.5\n",
	  "2: quantile = 1.5: must be a number between 0 and 1, both excluded (e.g. 0.999)" },
	{ "[default]\nquantile = 0\n",
	  "2: quantile = 0: must be a number between 0 and 1, both excluded (e.g. 0.999)" },
	{ "[default]\nquantile = nan\n",
	  "2: quantile = nan: must be a number between 0 and 1, both excluded (e.g. 0.999)" },
	{ "[default]\nmargin = 0\n",
	  "2: margin = 0: must be a number above 0 and at most 1000 (e.g. 1.5)" },
	{ "[default]\nfloor = 5\n",
	  "2: floor = 5: not a duration (a number and ns, us, ms or s, e.g. 250us)" },
	{ "[default]\nmin_samples = -1\n",
	  "2: min_samples = -1: must be a whole number from 0 to 1000000000000" },
	{ "[default]\nmargin =\n", "2: margin: empty value" },
	{ "[global]\ninterval = 10ms\n", "2: interval = 10ms: must be between 100ms and 60s" },
	{ "[global]\ninterval = 2min\n",
	  "2: interval = 2min: not a duration (a number and ns, us, ms or s, e.g. 250us)" },
	{ "[global]\nbudget = lots\n",
	  "2: budget = lots: must be a number of outliers per second from 0 (no budget) to "
	  "10000000" },
	/* Too long for a number: refused whole, not cut to its first 31 characters (1). */
	{ "[global]\nbudget = 0000000000000000000000000000001junk\n",
	  "2: budget = 0000000000000000000000000000001junk: must be a number of outliers per "
	  "second from 0 (no budget) to 10000000" },
	{ "[default]\nfloor = 20ms\nceiling = 10ms\n",
	  "3: [default] floor 20ms is above ceiling 10ms" },
	{ "[default]\nfloor = 1ms\n[syscall read]\nceiling = 500us\n",
	  "4: [syscall read] floor 1ms is above ceiling 500us" },
	{ "[default]\nquantile 0.9\n", "2: expected \"[section]\" or \"key = value\"" },
	{ "[default\n", "1: section header without \"]\"" },
	{ "[default]\nmode = off\n  quantile = 0.9\n",
	  "3: indented line (values are one line; remove the indentation)" },
	{ "[default]\nclasses = process\n",
	  "2: key \"classes\" belongs in [global] or [syscall NAME]" },
	{ "[global]\nclasses = proces\n",
	  "2: classes = proces: unknown kind \"proces\" (did you mean \"process\"?)" },
	{ "[global]\nclasses = process,cgroup\n",
	  "2: classes = process,cgroup: one of process, cgroup, comm and title at a time (each "
	  "may go with fd)" },
	{ "[global]\nclasses = comm,title\n",
	  "2: classes = comm,title: one of process, cgroup, comm and title at a time (each may "
	  "go with fd)" },
	{ "[global]\nclasses = titel\n",
	  "2: classes = titel: unknown kind \"titel\" (did you mean \"title\"?)" },
	/* Both are kept per process in the kernel: one policy has one of them. */
	{ "[global]\nclasses = process\n[syscall read]\nclasses = title,fd\n",
	  "4: [syscall read] has classes = title and [global] classes = process: both are kept "
	  "per process in the kernel, one policy has one of them; choose title or process for "
	  "all" },
	{ "[syscall read]\nclasses = fd,fd\n", "2: classes = fd,fd: \"fd\" twice" },
	{ "[global]\nclasses = ,\n",
	  "2: classes = ,: no kind (none, process, cgroup, comm, title, fd)" },
	{ "[global]\nmax_classes = 5000\n",
	  "2: max_classes = 5000: must be a whole number from 0 to 4095" },
	{ "[global]\nclass_cells = 4096\n",
	  "2: class_cells = 4096: must be a whole number from 0 (sized by the number of CPUs) to "
	  "4095" },
	{ "[global]\nclass_idle = 10ms\n", "2: class_idle = 10ms: must be between 1s and 86400s" },
	{ "[global]\nsample = 0\n",
	  "2: sample = 0: must be a whole number from 1 (count every call) to 4096" },
	{ "[global]\nclass_sample = 4097\n",
	  "2: class_sample = 4097: must be a whole number from 1 (count every call) to 4096" },
	{ "[syscall read]\nsample = 8\n", "2: key \"sample\" belongs in [global]" },
	{ "[syscall read]\nclass_cells = 8\n", "2: key \"class_cells\" belongs in [global]" },
};

static void test_bad_files(void)
{
	char err[256], want[512];
	const char *path;
	struct policy *p;
	size_t i;

	for (i = 0; i < sizeof(bad_files) / sizeof(bad_files[0]); i++) {
		path = file_with("bad.ini", bad_files[i].text);
		err[0] = '\0';
		p = policy_load(path, err, sizeof(err));
		snprintf(want, sizeof(want), "%s:%s", path, bad_files[i].error);
		CHECK(!p, "accepted: %s", bad_files[i].text);
		CHECK_STR(err, want);
		policy_free(p);
	}
}

static void test_long_line_and_missing_file(void)
{
	char text[400], err[256] = "", want[300];
	const char *path;
	struct policy *p;

	memset(text, ' ', sizeof(text));
	memcpy(text, "[default]\n; ", 12);
	strcpy(text + sizeof(text) - 2, "\n");
	path = file_with("long.ini", text);
	p = policy_load(path, err, sizeof(err));
	snprintf(want, sizeof(want), "%s:2: line longer than 198 characters", path);
	CHECK(!p, "long line accepted");
	CHECK_STR(err, want);

	p = policy_load("/nonexistent/policy.ini", err, sizeof(err));
	CHECK(!p, "missing file accepted");
	CHECK_STR(err, "/nonexistent/policy.ini: cannot read: No such file or directory");
}

/* A source with a newline (a --policy path may hold one) stays in its comment. */
static void test_round_trip_of_a_strange_source(void)
{
	char err[256] = "", *text = NULL;
	struct policy *a = policy_builtin(), *b;
	size_t len;
	FILE *f;

	snprintf(a->source, sizeof(a->source), "/tmp/p\n[global]\ninterval = 100ms\n");
	f = open_memstream(&text, &len);
	CHECK_EQ_INT(policy_write_ini(a, f), 0);
	fclose(f);
	b = policy_load_text("show.ini", text, len, err, sizeof(err));
	if (CHECK(b, "%s\n%s", err, text))
		policy_eq(b, a);
	CHECK(!strncmp(text, "; sclat policy, from /tmp/p\\x0a[global]\\x0ainterval", 50), "%s",
	      text);
	free(text);
	policy_free(a);
	policy_free(b);
}

/* Text libinih would read silently, or read otherwise than it looks. */
static const struct {
	const char *text;
	size_t len; /* NUL bytes included */
	const char *error;
} bad_bytes[] = {
#define TEXT(s) s, sizeof(s) - 1
	{ TEXT("\0[global]\n"), "t.ini:1: a NUL byte (not a text file?)" },
	{ TEXT("[global]\ninterval = 1s\0\0garbage\n"), "t.ini:2: a NUL byte (not a text file?)" },
	{ TEXT("[default]\nmode: off\n"), "t.ini:2: \"mode: off\": write key = value" },
	{ TEXT("[default]\nmode:off = x\n"), "t.ini:2: \"mode:off = x\": write key = value" },
	{ TEXT("[global] junk\n"), "t.ini:1: text after the section header [global]" },
	{ TEXT("[default]]\n"), "t.ini:1: text after the section header [default]" },
	{ TEXT("\n\xef\xbb\xbf[global]\n"), "t.ini:2: expected \"[section]\" or \"key = value\"" },
#undef TEXT
};

static void test_bad_bytes(void)
{
	static char zeros[POLICY_FILE_MAX];
	struct policy *p = policy_builtin();
	char err[256];
	size_t i;

	for (i = 0; i < sizeof(bad_bytes) / sizeof(bad_bytes[0]); i++) {
		err[0] = '\0';
		CHECK(!policy_parse_text(p, "t.ini", bad_bytes[i].text, bad_bytes[i].len, err,
					 sizeof(err)),
		      "accepted: %s", bad_bytes[i].text);
		CHECK_STR(err, bad_bytes[i].error);
	}
	/* What /dev/zero gave: lines of NUL bytes that never counted as too long. */
	CHECK(!policy_parse_text(p, "zeros", zeros, sizeof(zeros), err, sizeof(err)), "accepted");
	CHECK_STR(err, "zeros:1: a NUL byte (not a text file?)");
	policy_free(p);
}

/* A byte order mark before the first line, and comments after a section header: fine. */
static void test_bom_and_header_comments(void)
{
	static const char text[] = "\xef\xbb\xbf[global] ; the controller\ninterval = 2s\n"
				   "[default]\t# all syscalls\nmode = static\n";
	struct policy *p = policy_builtin();
	char err[256] = "";

	CHECK(policy_parse_text(p, "bom.ini", text, sizeof(text) - 1, err, sizeof(err)), "%s", err);
	CHECK_EQ_U64(p->interval_ns, 2000000000ULL);
	CHECK_EQ_INT(p->def.mode, POLICY_STATIC);
	policy_free(p);
}

/* Only a regular file is a policy: /dev/zero never ends, a directory reads as nothing. */
static void test_not_regular_files(void)
{
	char err[256], want[512], fifo[300], link[300], big[300];
	const char *const kinds[][2] = {
		{ "/dev/zero", "a character device" },
		{ "/dev/null", "a character device" },
		{ tmpdir, "a directory" },
		{ fifo, "a FIFO" },
		{ link, "a character device" },
	};
	struct policy *p;
	FILE *f;
	size_t i;

	snprintf(fifo, sizeof(fifo), "%s/fifo.ini", tmpdir);
	snprintf(link, sizeof(link), "%s/link.ini", tmpdir);
	CHECK(!mkfifo(fifo, 0600) && !symlink("/dev/zero", link), "mkfifo, symlink");
	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		err[0] = '\0';
		p = policy_load(kinds[i][0], err, sizeof(err));
		snprintf(want, sizeof(want), "%s: not a regular file (%s)", kinds[i][0],
			 kinds[i][1]);
		CHECK(!p, "accepted %s", kinds[i][0]);
		CHECK_STR(err, want);
		policy_free(p);
	}
	/* One byte more than the largest policy: comments, valid but too many. */
	snprintf(big, sizeof(big), "%s/big.ini", tmpdir);
	f = fopen(big, "w");
	for (i = 0; f && i < POLICY_FILE_MAX / 16; i++)
		fputs(";23456789abcdef\n", f);
	if (f) {
		fputs("\n", f);
		fclose(f);
	}
	p = policy_load(big, err, sizeof(err));
	snprintf(want, sizeof(want), "%s: too large (a policy file is at most 1024 KiB)", big);
	CHECK(!p, "accepted a file of %d bytes", POLICY_FILE_MAX + 1);
	CHECK_STR(err, want);
	policy_free(p);
	CHECK(!truncate(big, POLICY_FILE_MAX), "truncate %s", big);
	p = policy_load(big, err, sizeof(err));
	CHECK(p, "refused a file of %d bytes: %s", POLICY_FILE_MAX, err);
	policy_free(p);
}

/*
 * What watch and record apply by default: the file $SCLAT_POLICY names (it
 * must exist), else the installed file, else the built-in policy; a broken
 * file is an error naming it, never a silent fallback.
 */
static void test_default(void)
{
	char err[256] = "", want[300];
	const char *file = "unset", *path;
	struct stat st;
	struct policy *p;
	bool required;

	unsetenv(POLICY_ENV);
	CHECK_STR(policy_default_file(&required), POLICY_INSTALLED);
	CHECK(!required, "the installed file is required");
	p = policy_default(&file, err, sizeof(err));
	if (stat(POLICY_INSTALLED, &st)) {
		/* Not installed here: the built-in policy, and it says why. */
		if (CHECK(p, "%s", err))
			CHECK_STR(p->source, "built-in (no " POLICY_INSTALLED ")");
		CHECK(file == NULL, "file %s", file);
	} else {
		CHECK(p || err[0], "no policy and no error");
		if (p)
			CHECK_STR(file, POLICY_INSTALLED);
	}
	policy_free(p);

	path = file_with("env.ini", "[global]\nbudget = 77\n");
	setenv(POLICY_ENV, path, 1);
	CHECK_STR(policy_default_file(&required), path);
	CHECK(required, "a file the environment names is optional");
	p = policy_default(&file, err, sizeof(err));
	if (CHECK(p, "%s", err)) {
		CHECK_EQ_U64(p->budget, 77);
		CHECK_STR(p->source, path);
		CHECK_STR(file, path);
	}
	policy_free(p);

	path = file_with("env-bad.ini", "[default]\nquantil = 0.9\n");
	setenv(POLICY_ENV, path, 1);
	p = policy_default(&file, err, sizeof(err));
	snprintf(want, sizeof(want),
		 "%s:2: unknown key \"quantil\" (did you mean \"quantile\"?) (named by "
		 "SCLAT_POLICY)",
		 path);
	CHECK(!p, "a bad file was skipped");
	CHECK_STR(err, want);
	policy_free(p);

	setenv(POLICY_ENV, "/nonexistent/env.ini", 1);
	p = policy_default(&file, err, sizeof(err));
	CHECK(!p, "a missing file was skipped");
	CHECK_STR(err, "/nonexistent/env.ini: cannot read: No such file or directory (named by "
		       "SCLAT_POLICY)");
	policy_free(p);

	/* Empty is unset. */
	setenv(POLICY_ENV, "", 1);
	CHECK_STR(policy_default_file(&required), POLICY_INSTALLED);
	unsetenv(POLICY_ENV);
}

/* A false-alarm rate: off by default, a small probability, written as people write them. */
/*
 * quantile and false_alarm are alternatives: a section naming a quantile and
 * no rate means the quantile over the built-in rate it inherits, then and at
 * the next change of something else; one naming a rate keeps it.
 */
static void test_a_quantile_alone_is_a_quantile(void)
{
	char err[256] = "";
	struct policy *p = policy_load(file_with("q.ini", "[default]\nquantile = 0.99\n"
							  "[syscall read]\nquantile = 0.9\n"
							  "[syscall write]\nfalse_alarm = 1e-6\n"),
				       err, sizeof(err)),
		      *q;
	int rd = syscall_nr("read"), wr = syscall_nr("write"), fs = syscall_nr("fsync");

	if (!CHECK(p, "%s", err))
		return;
	CHECK(p->def.false_alarm == 0 && p->rules[fs].false_alarm == 0, "[default]: %g",
	      p->def.false_alarm);
	CHECK(p->rules[rd].false_alarm == 0 && p->rules[rd].quantile == 0.9, "read: %g",
	      p->rules[rd].false_alarm);
	CHECK(p->rules[wr].false_alarm == 1e-6, "write: %g", p->rules[wr].false_alarm);
	policy_free(p);
	/* Over the built-in rate, at run time, and still after another change. */
	p = policy_builtin();
	q = policy_with(p, "read", "quantile", "0.99", err, sizeof(err));
	policy_free(p);
	if (!CHECK(q, "%s", err))
		return;
	CHECK(q->rules[rd].false_alarm == 0 && q->def.false_alarm == 1e-5, "read %g, default %g",
	      q->rules[rd].false_alarm, q->def.false_alarm);
	p = policy_with(q, "read", "floor", "1us", err, sizeof(err));
	policy_free(q);
	if (CHECK(p, "%s", err))
		CHECK(p->rules[rd].false_alarm == 0, "read back to a rate: %g",
		      p->rules[rd].false_alarm);
	policy_free(p);
}

static void test_false_alarm(void)
{
	static const char *const bad[] = { "0.01", "0.5", "1", "-1e-6", "1e-6x", "e-6", "often" };
	char err[256] = "";
	struct policy *p = policy_builtin(), *q;
	int rd = syscall_nr("read"), fs = syscall_nr("fsync");
	size_t i;

	CHECK(p->def.false_alarm == 1e-5 && p->rules[rd].false_alarm == 1e-5,
	      "the built-in rate, 1e-5: %g", p->def.false_alarm);
	q = policy_with(p, NULL, "false_alarm", "1e-6", err, sizeof(err));
	if (CHECK(q, "%s", err))
		CHECK(q->rules[rd].false_alarm == 1e-6 && q->def.false_alarm == 1e-6,
		      "[default]'s rate not inherited: %g", q->rules[rd].false_alarm);
	policy_free(q);
	q = policy_with(p, "fsync", "false_alarm", "0.0001", err, sizeof(err));
	if (CHECK(q, "%s", err))
		CHECK(q->rules[fs].false_alarm == 1e-4 && q->rules[rd].false_alarm == 1e-5,
		      "fsync %g, read %g", q->rules[fs].false_alarm, q->rules[rd].false_alarm);
	policy_free(q);
	q = policy_with(p, "fsync", "false_alarm", "off", err, sizeof(err));
	if (CHECK(q, "%s", err))
		CHECK(q->rules[fs].false_alarm == 0, "off is %g", q->rules[fs].false_alarm);
	policy_free(q);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		q = policy_with(p, NULL, "false_alarm", bad[i], err, sizeof(err));
		CHECK(!q, "false_alarm = %s accepted", bad[i]);
		CHECK(strstr(err, "false_alarm = ") &&
			      strstr(err, "probability per call below 0.01"),
		      "false_alarm = %s: %s", bad[i], err);
		policy_free(q);
	}
	policy_free(p);
}

static void test_round_trip(void)
{
	char err[256] = "", *text = NULL;
	struct policy *a = policy_load(SHIPPED, err, sizeof(err)), *b, *c;
	const char *path;
	size_t len;
	FILE *f;

	if (!CHECK(a, "%s", err))
		return;
	/* Values that only survive an exact writer: 1.5us, 0.99995, a 7 ns floor. */
	b = policy_with(a, "read", "quantile", "0.99995", err, sizeof(err));
	CHECK(b, "%s", err);
	c = policy_with(b, "getppid", "floor", "7ns", err, sizeof(err));
	policy_free(b);
	b = policy_with(c, NULL, "initial", "1.5us", err, sizeof(err));
	policy_free(c);
	c = policy_with(b, NULL, "half_life", "2500ms", err, sizeof(err));
	policy_free(b);
	b = policy_with(c, "futex", "inflight_after", "1500ms", err, sizeof(err));
	policy_free(c);
	c = policy_with(b, "poll", "inflight_after", "off", err, sizeof(err));
	policy_free(b);
	/* A rate as exact as a quantile: 3e-7 is no short decimal. */
	b = policy_with(c, "fdatasync", "false_alarm", "3e-7", err, sizeof(err));
	policy_free(c);
	c = b;
	if (!CHECK(c, "%s", err))
		goto out;
	f = open_memstream(&text, &len);
	CHECK_EQ_INT(policy_write_ini(c, f), 0);
	fclose(f);
	path = file_with("round.ini", text);
	b = policy_load(path, err, sizeof(err));
	if (CHECK(b, "%s\n%s", err, text))
		policy_eq(b, c);
	policy_free(b);
	policy_free(c);
out:
	free(text);
	policy_free(a);
}

static void test_with_leaves_base(void)
{
	char err[256] = "";
	struct policy *base = policy_builtin(), *copy = malloc(sizeof(*copy)), *p, *q;
	int rd = syscall_nr("read"), wr = syscall_nr("write");

	memcpy(copy, base, sizeof(*copy));
	p = policy_with(base, "read", "quantile", "0.9999", err, sizeof(err));
	if (!CHECK(p, "%s", err))
		return;
	CHECK(!memcmp(base, copy, sizeof(*base)), "base changed");
	CHECK_NEAR(p->rules[rd].quantile, 0.9999, 1e-12);
	CHECK_NEAR(p->rules[wr].quantile, 0.999, 1e-12);
	CHECK_EQ_U64(p->overrides[rd], POLICY_KEY_QUANTILE);
	CHECK_STR(p->source, "built-in (modified)");

	/* A [default] change reaches every syscall that does not override the key. */
	q = policy_with(p, NULL, "quantile", "0.99", err, sizeof(err));
	if (CHECK(q, "%s", err)) {
		CHECK_NEAR(q->rules[rd].quantile, 0.9999, 1e-12);
		CHECK_NEAR(q->rules[wr].quantile, 0.99, 1e-12);
		CHECK_NEAR(q->def.quantile, 0.99, 1e-12);
		CHECK_STR(q->source, "built-in (modified)");
	}
	policy_free(q);
	q = policy_with(p, NULL, "interval", "500ms", err, sizeof(err));
	if (CHECK(q, "%s", err))
		CHECK_EQ_U64(q->interval_ns, 500000000ULL);
	policy_free(q);
	policy_free(p);
	policy_free(copy);
	policy_free(base);
}

static void test_with_errors(void)
{
	static const struct {
		const char *syscall, *key, *value, *error;
	} cases[] = {
		{ "read", "quantil", "0.9",
		  "unknown key \"quantil\" (did you mean \"quantile\"?)" },
		{ "reed", "mode", "off", "unknown syscall \"reed\" (did you mean \"read\"?)" },
		{ "read", "interval", "1s", "key \"interval\" belongs in [global]" },
		{ NULL, "interval", "50ms", "interval = 50ms: must be between 100ms and 60s" },
		{ NULL, "mode", "of", "mode = of: unknown mode (did you mean \"off\"?)" },
		{ "read", "floor", "20s", "[syscall read] floor 20s is above ceiling 10s" },
	};
	struct policy *base = policy_builtin(), *p;
	char err[256];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		err[0] = '\0';
		p = policy_with(base, cases[i].syscall, cases[i].key, cases[i].value, err,
				sizeof(err));
		CHECK(!p, "accepted %s=%s", cases[i].key, cases[i].value);
		CHECK_STR(err, cases[i].error);
		policy_free(p);
	}
	policy_free(base);
}

/* What `sclat policy show` prints of --threshold 0ns (every call) reads back the same. */
static void test_round_trip_of_threshold_zero(void)
{
	char err[256] = "", *text = NULL;
	struct policy *a = policy_static(0), *b;
	size_t len;
	FILE *f;

	f = open_memstream(&text, &len);
	CHECK_EQ_INT(policy_write_ini(a, f), 0);
	fclose(f);
	b = policy_load_text("show.ini", text, len, err, sizeof(err));
	if (CHECK(b, "%s\n%s", err, text)) {
		policy_eq(b, a);
		CHECK_EQ_U64(b->rules[0].initial_ns, 0);
		policy_free(b);
	}
	free(text);
	policy_free(a);
}

/* initial = off: no threshold until learnt; written back as off, shown as off. */
static void test_initial_off(void)
{
	char err[256] = "", *text = NULL;
	const char *path = file_with("initial-off.ini", "[syscall read]\ninitial = off\n");
	struct policy *a = policy_load(path, err, sizeof(err)), *b;
	int rd = syscall_nr("read");
	size_t len;
	FILE *f;

	if (!CHECK(a, "%s", err))
		return;
	CHECK_EQ_U64(a->rules[rd].initial_ns, SCLAT_THRESHOLD_NEVER);
	CHECK_EQ_U64(a->def.initial_ns, 10000000ULL);
	f = open_memstream(&text, &len);
	CHECK_EQ_INT(policy_write_ini(a, f), 0);
	fclose(f);
	CHECK(strstr(text, "[syscall read]\ninitial = off\n"), "%s", text);
	b = policy_load_text("show.ini", text, len, err, sizeof(err));
	if (CHECK(b, "%s\n%s", err, text)) {
		policy_eq(b, a);
		policy_free(b);
	}
	free(text);
	text = NULL;
	f = open_memstream(&text, &len);
	policy_write_table(a, false, f);
	fclose(f);
	CHECK(strstr(text, "\nread             adaptive  p=1e-05      1     2us     10s     off"),
	      "%s", text);
	free(text);
	policy_free(a);
	/* Not a duration, nor off: named. */
	CHECK(!policy_load(file_with("initial-bad.ini", "[syscall read]\ninitial = never\n"), err,
			   sizeof(err)),
	      "initial = never accepted");
	CHECK(strstr(err, "initial = never: not a duration"), "%s", err);
}

static void test_static(void)
{
	struct policy *p = policy_static(500000);
	unsigned int nr;
	bool all = true;

	for (nr = 0; nr < SCLAT_MAX_SYSCALLS; nr++)
		all &= p->rules[nr].mode == POLICY_STATIC && p->rules[nr].initial_ns == 500000 &&
		       !p->overrides[nr];
	CHECK(all, "not every syscall static at 500us");
	policy_free(p);
}

/* classes: [global] for every syscall, [syscall NAME] for one, both written back the same. */
static void test_classes(void)
{
	const char *path = file_with("classes.ini", "[global]\n"
						    "classes = process\n"
						    "max_classes = 16\n"
						    "class_cells = 512\n"
						    "class_idle = 2s\n"
						    "class_sample = 64\n"
						    "[syscall read]\n"
						    "classes = comm+fd\n"
						    "[syscall write]\n"
						    "classes = none\n"
						    "max_classes = 4\n");
	char err[256] = "", *text = NULL;
	struct policy *p = policy_load(path, err, sizeof(err)), *back;
	int rd = syscall_nr("read"), wr = syscall_nr("write"), gp = syscall_nr("getppid");
	size_t len;
	FILE *f;

	if (!CHECK(p, "%s", err))
		return;
	CHECK_EQ_U64(p->def.classes, POLICY_CLASS_PROCESS);
	CHECK_EQ_U64(p->rules[gp].classes, POLICY_CLASS_PROCESS);
	CHECK_EQ_U64(p->rules[gp].max_classes, 16);
	CHECK_EQ_U64(p->rules[rd].classes, POLICY_CLASS_COMM | POLICY_CLASS_FD);
	CHECK_EQ_U64(p->rules[rd].max_classes, 16);
	CHECK_EQ_U64(p->rules[wr].classes, 0);
	CHECK_EQ_U64(p->rules[wr].max_classes, 4);
	CHECK_EQ_U64(p->class_cells, 512);
	CHECK_EQ_U64(p->class_idle_ns, 2000000000ULL);
	/* sample, by its older name. */
	CHECK_EQ_U64(p->sample, 64);

	f = open_memstream(&text, &len);
	policy_write_ini(p, f);
	fclose(f);
	CHECK(strstr(text, "[global]\n") && strstr(text, "classes = process\nmax_classes = 16\n"),
	      "%s", text);
	CHECK(strstr(text, "[syscall read]\nclasses = comm,fd\n"), "%s", text);
	CHECK(strstr(text, "\nsample = 64\n") && !strstr(text, "class_sample"), "%s", text);
	path = file_with("back.ini", text);
	back = policy_load(path, err, sizeof(err));
	if (CHECK(back, "%s", err)) {
		CHECK(policy_eq(p, back), "read back differently:\n%s", text);
		policy_free(back);
	}
	free(text);
	policy_free(p);

	/* At run time too, and without a syscall a key goes where it belongs: [global]. */
	p = policy_builtin();
	back = policy_with(p, NULL, "classes", "fd", err, sizeof(err));
	if (CHECK(back, "%s", err)) {
		CHECK_EQ_U64(back->rules[rd].classes, POLICY_CLASS_FD);
		policy_free(back);
	}
	CHECK_EQ_U64(p->rules[rd].classes, POLICY_CLASS_AUTO);
	policy_free(p);
}

/*
 * classes = title, with fd or not, for some syscalls; beside process only
 * where one of the two is off (not adaptive): it has no classes then.
 */
static void test_title_classes(void)
{
	const char *path = file_with("titles.ini", "[global]\n"
						   "classes = title\n"
						   "[syscall read]\n"
						   "classes = title+fd\n"
						   "[syscall write]\n"
						   "mode = off\n"
						   "classes = process\n");
	int rd = syscall_nr("read"), wr = syscall_nr("write"), gp = syscall_nr("getppid");
	char err[256] = "", *text = NULL;
	struct policy *p = policy_load(path, err, sizeof(err)), *back;
	size_t len;
	FILE *f;

	if (!CHECK(p, "%s", err))
		return;
	CHECK_EQ_U64(p->rules[gp].classes, POLICY_CLASS_TITLE);
	CHECK_EQ_U64(p->rules[rd].classes, POLICY_CLASS_TITLE | POLICY_CLASS_FD);
	CHECK_EQ_U64(p->rules[wr].classes, POLICY_CLASS_PROCESS);
	f = open_memstream(&text, &len);
	policy_write_ini(p, f);
	fclose(f);
	CHECK(strstr(text, "[syscall read]\nclasses = fd,title\n"), "%s", text);
	free(text);
	/* At run time, write made adaptive: refused, naming both. */
	back = policy_with(p, "write", "mode", "adaptive", err, sizeof(err));
	CHECK(!back, "process and title classes side by side");
	CHECK(strstr(err, "classes = title and [syscall write] classes = process"), "%s", err);
	policy_free(back);
	policy_free(p);
}

/* classes = auto: alone, read and written back as such; with another kind, refused. */
static void test_classes_auto(void)
{
	const char *path = file_with("auto.ini", "[global]\nclasses = auto\n"
						 "[syscall write]\nclasses = process\n");
	char err[256] = "", *text = NULL;
	struct policy *p = policy_load(path, err, sizeof(err)), *back;
	int rd = syscall_nr("read"), wr = syscall_nr("write");
	size_t len;
	FILE *f;

	if (!CHECK(p, "%s", err))
		return;
	CHECK_EQ_U64(p->rules[rd].classes, POLICY_CLASS_AUTO);
	CHECK_EQ_U64(p->rules[wr].classes, POLICY_CLASS_PROCESS);
	f = open_memstream(&text, &len);
	policy_write_ini(p, f);
	fclose(f);
	CHECK(strstr(text, "\nclasses = auto\n"), "%s", text);
	back = policy_load(file_with("auto-back.ini", text), err, sizeof(err));
	if (CHECK(back, "%s", err)) {
		CHECK(policy_eq(p, back), "read back differently:\n%s", text);
		policy_free(back);
	}
	free(text);
	policy_free(p);
	p = policy_load(file_with("auto-fd.ini", "[global]\nclasses = auto,fd\n"), err,
			sizeof(err));
	CHECK(!p, "auto,fd accepted");
	CHECK(strstr(err, "classes = auto,fd: unknown kind \"auto\""), "%s", err);
	policy_free(p);
	/* Keyed by process in the kernel, as title is: not both. */
	p = policy_load(file_with("auto-title.ini",
				  "[global]\nclasses = auto\n[syscall write]\nclasses = title\n"),
			err, sizeof(err));
	CHECK(!p, "auto beside title accepted");
	CHECK(strstr(err, "classes = title and [global] classes = auto"), "%s", err);
	policy_free(p);
}

/* What policy_write_learned() writes for p and l[0 .. n - 1], in *len bytes (free it). */
static char *learned_text(const struct policy *p, const struct policy_learned *l, size_t n,
			  const char *origin, size_t *len)
{
	char *text = NULL;
	FILE *f = open_memstream(&text, len);

	CHECK_EQ_INT(policy_write_learned(p, l, n, origin, f), 0);
	fclose(f);
	return text;
}

/* The learned thresholds become initial values that a new tracer reads back; the rest stays. */
static void test_write_learned(void)
{
	char err[256] = "", long_origin[300];
	struct policy *p = policy_load(
		file_with("learned-base.ini", "[global]\nclasses = none\n[default]\ninitial = 7ms\n"
					      "false_alarm = off\n"
					      "[syscall futex]\nmode = off\n"),
		err, sizeof(err));
	struct policy_learned l[] = {
		{ .nr = 0,
		  .threshold_ns = 123456,
		  .estimate_ns = 123000,
		  .quantile = 0.999,
		  .samples = 4242 },
		{ .nr = 74,
		  .threshold_ns = 3000000,
		  .estimate_ns = 2900000,
		  .quantile = 0.99,
		  .samples = 1000 },
	};
	char *text = NULL;
	size_t len = 0;
	struct policy *back;

	if (!CHECK(p, "%s", err))
		return;
	text = learned_text(p, l, 2, "the tracer 1 on db1", &len);
	CHECK(strstr(text, "; initial: learned: quantile 0.999 estimate 123us over 4242 samples, "
			   "threshold 123456ns\n; min_samples: half those samples\n"
			   "[syscall read]\n"),
	      "%s", text);
	CHECK(!strncmp(text, "; Thresholds learned by\n;   the tracer 1 on db1\n", 47), "%s", text);
	CHECK(strstr(text, "(2 adaptive\n; syscalls past min_samples)"), "%s", text);
	back = policy_load_text("learned.ini", text, len, err, sizeof(err));
	if (CHECK(back, "%s", err)) {
		CHECK_EQ_U64(back->rules[0].initial_ns, 123456);
		CHECK_EQ_U64(back->rules[74].initial_ns, 3000000);
		/* Half the samples behind the estimate, unless the policy asks for more. */
		CHECK_EQ_U64(back->rules[0].min_samples, 2121);
		CHECK_EQ_U64(back->rules[74].min_samples, 1000);
		CHECK_EQ_INT(back->rules[0].mode, POLICY_ADAPTIVE);
		/* Not learned: the policy's own values. */
		CHECK_EQ_U64(back->rules[1].initial_ns, 7000000);
		CHECK_EQ_INT(back->rules[202].mode, POLICY_OFF);
		CHECK_EQ_U64(back->def.initial_ns, 7000000);
	}
	/* An error in the text names what it came from. */
	CHECK(!policy_load_text("TRACE (sclat:session_begin)", "[default]\nquantil = 1\n", 21, err,
				sizeof(err)),
	      "loaded");
	CHECK(!strncmp(err, "TRACE (sclat:session_begin):2: unknown key \"quantil\"", 51), "%s",
	      err);
	policy_free(back);
	free(text);
	/* A long origin or source is cut in its comment: no line beyond what a file may hold. */
	memset(long_origin, 'x', sizeof(long_origin) - 1);
	long_origin[sizeof(long_origin) - 1] = '\0';
	snprintf(p->source, sizeof(p->source), "/%.250s", long_origin);
	text = learned_text(p, l, 2, long_origin, &len);
	back = policy_load_text("long.ini", text, len, err, sizeof(err));
	CHECK(back, "%s", err);
	CHECK(strstr(text, ";   ...xxx"), "%s", text);
	policy_free(back);
	policy_free(p);
	free(text);
}

/*
 * A learned syscall with classes keeps the policy's min_samples: its classes
 * arm on that many calls of their own, and the file keeps its classes.
 */
static void test_write_learned_classes(void)
{
	char err[256];
	struct policy *p = policy_load(file_with("learned-classes.ini",
						 "[global]\nclasses = process\n[syscall write]\n"
						 "classes = fd\n"),
				       err, sizeof(err));
	struct policy_learned l[] = {
		{ .nr = 0,
		  .threshold_ns = 3000000,
		  .estimate_ns = 2900000,
		  .quantile = 0.999,
		  .samples = 400000 },
		{ .nr = 1,
		  .threshold_ns = 20000,
		  .estimate_ns = 19000,
		  .quantile = 0.999,
		  .samples = 90000 },
	};
	char *text = NULL;
	size_t len = 0;
	struct policy *back;

	if (!CHECK(p, "%s", err))
		return;
	text = learned_text(p, l, 2, "the tracer 1 on db1", &len);
	CHECK(strstr(text, "; min_samples: the policy's: each class (fd) learns its own on as many "
			   "calls\n[syscall write]\n"),
	      "%s", text);
	back = policy_load_text("learned.ini", text, len, err, sizeof(err));
	if (CHECK(back, "%s", err)) {
		CHECK_EQ_U64(back->rules[0].initial_ns, 3000000);
		CHECK_EQ_U64(back->rules[0].min_samples, 1000);
		CHECK_EQ_U64(back->rules[0].classes, POLICY_CLASS_PROCESS);
		CHECK_EQ_U64(back->rules[1].initial_ns, 20000);
		CHECK_EQ_U64(back->rules[1].min_samples, 1000);
		CHECK_EQ_U64(back->rules[1].classes, POLICY_CLASS_FD);
	}
	policy_free(back);
	policy_free(p);
	free(text);
}

static void test_table(void)
{
	struct policy *p = policy_builtin();
	char *text = NULL, *line;
	size_t len;
	FILE *f = open_memstream(&text, &len);

	policy_write_table(p, false, f);
	fclose(f);
	line = strstr(text, "\nSYSCALL ");
	CHECK(line && !strncmp(line + 1,
			       "SYSCALL          MODE     QUANTILE MARGIN   FLOOR "
			       "CEILING INITIAL MIN_SAMPLES CLASSES\n",
			       86),
	      "%s", text);
	CHECK(strstr(text, "\n(default)        adaptive  p=1e-05      1     2us     10s    10ms"
			   "        1000 auto(64)\n"),
	      "%s", text);
	CHECK(strstr(text, "\nnanosleep        off "), "%s", text);
	CHECK(strstr(text, "\nfutex            adaptive  p=1e-05      1     2us     10s     off"),
	      "%s", text);
	CHECK(!strstr(text, "\nread "), "read listed without an override");
	free(text);
	policy_free(p);
}

/* A reader holding the old policy across a publish still reads it whole. */
static struct policy *seen_by_reader;
static pthread_barrier_t held, published;

static void *reader(void *arg __always_unused)
{
	struct policy *p;

	urcu_memb_register_thread();
	urcu_memb_read_lock();
	p = policy_current();
	pthread_barrier_wait(&held);
	pthread_barrier_wait(&published);
	seen_by_reader = p;
	CHECK_EQ_U64(p->budget, 1000); /* not freed under us */
	urcu_memb_read_unlock();
	urcu_memb_unregister_thread();
	return NULL;
}

static void test_rcu_publish(void)
{
	char err[256];
	struct policy *a = policy_builtin(),
		      *b = policy_with(a, NULL, "budget", "7", err, sizeof(err));
	pthread_t t;

	urcu_memb_register_thread();
	policy_publish(a);
	urcu_memb_read_lock();
	CHECK(policy_current() == a, "current is not the published one");
	urcu_memb_read_unlock();

	pthread_barrier_init(&held, NULL, 2);
	pthread_barrier_init(&published, NULL, 2);
	pthread_create(&t, NULL, reader, NULL);
	pthread_barrier_wait(&held);
	policy_publish(b); /* does not wait for the reader */
	urcu_memb_read_lock();
	CHECK(policy_current() == b, "current is not the new one");
	urcu_memb_read_unlock();
	pthread_barrier_wait(&published);
	pthread_join(t, NULL);
	CHECK(seen_by_reader == a, "reader did not hold the old policy");

	policy_publish(NULL);
	urcu_memb_barrier(); /* both freed by now */
	urcu_memb_read_lock();
	CHECK(policy_current() == NULL, "unpublish left a policy");
	urcu_memb_read_unlock();
	urcu_memb_unregister_thread();
}

int main(void)
{
	char cmd[300];

	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	RUN(test_builtin_is_shipped_file);
	RUN(test_builtin_values);
	RUN(test_inflight_after);
	RUN(test_good_file);
	RUN(test_bad_files);
	RUN(test_long_line_and_missing_file);
	RUN(test_bad_bytes);
	RUN(test_bom_and_header_comments);
	RUN(test_not_regular_files);
	RUN(test_default);
	RUN(test_false_alarm);
	RUN(test_a_quantile_alone_is_a_quantile);
	RUN(test_round_trip);
	RUN(test_round_trip_of_a_strange_source);
	RUN(test_with_leaves_base);
	RUN(test_with_errors);
	RUN(test_static);
	RUN(test_round_trip_of_threshold_zero);
	RUN(test_initial_off);
	RUN(test_classes);
	RUN(test_classes_auto);
	RUN(test_title_classes);
	RUN(test_write_learned);
	RUN(test_write_learned_classes);
	RUN(test_table);
	RUN(test_rcu_publish);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	if (system(cmd))
		fprintf(stderr, "could not remove %s\n", tmpdir);
	return unit_done();
}
