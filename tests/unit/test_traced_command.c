// SPDX-License-Identifier: GPL-2.0-only
/* The command of `sclat ... -- COMMAND`, held before its exec (commands/traced_command.c). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>
#include "run/traced_command.h"
#include "unit.h"

/*
 * A lock sclat holds on a descriptor its exec would close (its session's
 * owner record) is not held by the command's child while it waits for the
 * go: once sclat lets go of it (killed, say), another process takes it at
 * once. A descriptor the command is to inherit, it keeps.
 */
static void test_held_child_holds_no_lock_of_sclat(void)
{
	char path[] = "/tmp/sclat-test-lock-XXXXXX", script[64];
	char *argv[] = { "/bin/sh", "-c", script, NULL };
	struct traced_command c;
	int fd, again, kept, i;

	fd = mkostemp(path, O_CLOEXEC);
	if (!CHECK(fd >= 0, "mkostemp: %s", strerror(errno)))
		return;
	CHECK(!flock(fd, LOCK_EX | LOCK_NB), "flock: %s", strerror(errno));
	/* The command exits 0 if it has the inheritable descriptor. */
	kept = open("/dev/null", O_RDONLY);
	snprintf(script, sizeof(script), "test -e /proc/self/fd/%d", kept);
	if (!CHECK(!traced_command_prepare(&c, argv), "prepare failed")) {
		close(fd);
		unlink(path);
		return;
	}
	/* The child has had time to close what it will not keep; sclat lets go. */
	usleep(200000);
	close(fd);
	again = open(path, O_RDWR | O_CLOEXEC);
	CHECK(again >= 0 && !flock(again, LOCK_EX | LOCK_NB),
	      "the held child still holds sclat's lock: %s", strerror(errno));
	CHECK(!traced_command_start(&c), "start failed");
	for (i = 0; i < 500 && !traced_command_exited(&c); i++)
		usleep(10000);
	CHECK(traced_command_finish(&c, SIGTERM, false, NULL) == 0,
	      "the command did not inherit fd %d", kept);
	close(again);
	close(kept);
	unlink(path);
}

/* Run argv as sclat's command, to its end; its exit status. */
static int command_run(char **argv)
{
	struct traced_command c;
	int i;

	if (!CHECK(!traced_command_prepare(&c, argv), "prepare failed") ||
	    !CHECK(!traced_command_start(&c), "start failed"))
		return -1;
	for (i = 0; i < 500 && !traced_command_exited(&c); i++)
		usleep(10000);
	return traced_command_finish(&c, SIGTERM, false, NULL);
}

/*
 * The command gets the signals sclat was started with, not those sclat
 * changed: SIGPIPE ignored by sclat (a write to a gone reader is an error to
 * it) is the default again, a SIGHUP its caller ignored (nohup) stays
 * ignored, and nothing sclat blocks stays blocked. But SIGINT, which sclat
 * passes on to stop it, is its default even when sclat's caller ignored it
 * (a shell's job in the background).
 */
static void test_command_gets_the_signals_sclat_was_started_with(void)
{
	char *argv[] = {
		"/bin/sh", "-c",
		"i=$(sed -n 's/^SigIgn:[[:space:]]*//p' /proc/self/status); "
		"b=$(sed -n 's/^SigBlk:[[:space:]]*//p' /proc/self/status); "
		"[ $((0x$i & 1)) -ne 0 ] || exit 3; [ $((0x$i & 0x1000)) -eq 0 ] || exit 4; "
		"[ $((0x$i & 2)) -eq 0 ] || exit 5; [ $((0x$b)) -eq 0 ] || exit 6; exit 0",
		NULL
	};
	struct sigaction old_int;
	sigset_t block, old;

	signal(SIGHUP, SIG_IGN);
	signal(SIGPIPE, SIG_DFL);
	sigaction(SIGINT, &(struct sigaction){ .sa_handler = SIG_IGN }, &old_int);
	traced_command_signals_save();
	/* What sclat does after: */
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&block);
	sigaddset(&block, SIGUSR1);
	sigprocmask(SIG_BLOCK, &block, &old);
	CHECK_EQ_INT(command_run(argv), 0);
	sigprocmask(SIG_SETMASK, &old, NULL);
	sigaction(SIGINT, &old_int, NULL);
	signal(SIGHUP, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
}

/* A command stopped before its go never runs: 128 + the signal that stopped sclat. */
static void test_command_stopped_before_its_start_never_runs(void)
{
	char marker[] = "/tmp/sclat-test-ran-XXXXXX", script[128];
	char *argv[] = { "/bin/sh", "-c", script, NULL };
	struct traced_command c;
	int fd = mkstemp(marker);

	if (!CHECK(fd >= 0, "mkstemp: %s", strerror(errno)))
		return;
	close(fd);
	unlink(marker);
	snprintf(script, sizeof(script), "touch %s", marker);
	if (!CHECK(!traced_command_prepare(&c, argv), "prepare failed"))
		return;
	CHECK_EQ_INT(traced_command_finish(&c, SIGINT, true, NULL), 128 + SIGINT);
	CHECK(access(marker, F_OK) != 0, "the command ran");
	unlink(marker);
}

/*
 * A command that ignores its signal is waited for, until another stop
 * signal (*stops moves): then killed.
 */
static volatile sig_atomic_t stops;

static void on_alarm(int sig __attribute__((unused)))
{
	stops++;
}

/* Whether process pid ignores SIGTERM, within 5 s. */
static bool ignores_sigterm(pid_t pid)
{
	char path[64], line[128];
	unsigned long long mask;
	bool yes = false;
	FILE *f;
	int i;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	for (i = 0; i < 500 && !yes; i++) {
		f = fopen(path, "re");
		while (f && fgets(line, sizeof(line), f))
			if (sscanf(line, "SigIgn: %llx", &mask) == 1)
				yes = mask & (1ULL << (SIGTERM - 1));
		if (f)
			fclose(f);
		if (!yes)
			usleep(10000);
	}
	return yes;
}

static void test_command_that_ignores_its_signal_is_killed_on_a_second(void)
{
	char *argv[] = { "/bin/sh", "-c", "trap '' TERM; exec sleep 30", NULL };
	struct sigaction sa = { .sa_handler = on_alarm }, old;
	struct traced_command c;

	if (!CHECK(!traced_command_prepare(&c, argv), "prepare failed") ||
	    !CHECK(!traced_command_start(&c), "start failed"))
		return;
	/* Its trap in place before its signal: SIGTERM's bit in its SigIgn. */
	if (!CHECK(ignores_sigterm(c.pid), "the command never ignored SIGTERM"))
		return;
	sigaction(SIGALRM, &sa, &old);
	alarm(2);
	CHECK_EQ_INT(traced_command_finish(&c, SIGTERM, false, &stops), 128 + SIGKILL);
	CHECK_EQ_INT(stops, 1);
	alarm(0);
	sigaction(SIGALRM, &old, NULL);
}

int main(void)
{
	RUN(test_held_child_holds_no_lock_of_sclat);
	RUN(test_command_gets_the_signals_sclat_was_started_with);
	RUN(test_command_stopped_before_its_start_never_runs);
	RUN(test_command_that_ignores_its_signal_is_killed_on_a_second);
	return unit_done();
}
