// SPDX-License-Identifier: GPL-2.0-only
/* The command of `sclat ... -- COMMAND`, held before its exec (commands/traced_command.c). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>
#include "commands/traced_command.h"
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
	CHECK(traced_command_finish(&c, SIGTERM) == 0, "the command did not inherit fd %d", kept);
	close(again);
	close(kept);
	unlink(path);
}

int main(void)
{
	RUN(test_held_child_holds_no_lock_of_sclat);
	return unit_done();
}
