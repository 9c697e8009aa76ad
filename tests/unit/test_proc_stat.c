// SPDX-License-Identifier: GPL-2.0-only
/* /proc/PID/stat: command names with spaces and parentheses, real processes, a zombie. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include "unit.h"
#include "util/proc_stat.h"

/* The fields after the name, up to the start time (22) and a few more. */
#define TAIL " 20 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 4242 19 20 21\n"

static void test_name_with_spaces_and_parentheses(void)
{
	struct proc_stat st;

	CHECK_EQ_INT(proc_stat_parse("123 (a) b (c)) S" TAIL, &st), 0);
	CHECK_EQ_INT(st.pid, 123);
	CHECK_STR(st.comm, "a) b (c)");
	CHECK_EQ_INT(st.state, 'S');
	CHECK_EQ_INT(st.ppid, 20);
	CHECK_EQ_U64(st.start_time, 4242);

	CHECK_EQ_INT(proc_stat_parse("7 () Z" TAIL, &st), 0);
	CHECK_STR(st.comm, "");
	CHECK_EQ_INT(st.state, 'Z');
}

static void test_long_name_is_cut(void)
{
	char line[512];
	struct proc_stat st;

	snprintf(line, sizeof(line), "9 (%0*d) R" TAIL, 100, 0);
	CHECK_EQ_INT(proc_stat_parse(line, &st), 0);
	CHECK_EQ_U64(strlen(st.comm), PROC_STAT_COMM_MAX - 1);
	CHECK_EQ_INT(st.state, 'R');
	CHECK_EQ_U64(st.start_time, 4242);
}

static void test_refused(void)
{
	const char *bad[] = { "",
			      "123",
			      "123 (name S" TAIL,
			      "123 name) S" TAIL,
			      "x (a) S" TAIL,
			      "123 (a) S 20 1 2",
			      "123 )a( S" TAIL };
	struct proc_stat st;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK(proc_stat_parse(bad[i], &st) == -EINVAL, "\"%s\" accepted", bad[i]);
}

static void test_this_process(void)
{
	char comm[PROC_STAT_COMM_MAX] = "";
	struct proc_stat st;
	FILE *f;

	/* The name as /proc/self/comm gives it, a second source. */
	f = fopen("/proc/self/comm", "re");
	if (f) {
		if (fgets(comm, sizeof(comm), f))
			comm[strcspn(comm, "\n")] = '\0';
		fclose(f);
	}
	CHECK_EQ_INT(proc_stat_read(getpid(), &st), 0);
	CHECK_EQ_INT(st.pid, getpid());
	CHECK_STR(st.comm, comm);
	CHECK_EQ_INT(st.state, 'R');
	CHECK_EQ_INT(st.ppid, getppid());
	CHECK(st.start_time > 0, "start time 0");
	CHECK_EQ_U64(process_start_time(getpid()), st.start_time);
}

static void *thread_waits(void *arg)
{
	pthread_barrier_t *b = arg;

	pthread_setname_np(pthread_self(), "unit-named");
	pthread_barrier_wait(b);
	pthread_barrier_wait(b);
	return NULL;
}

/* A thread's name, as /proc/PID/task gives it: a process renamed or exec'd has none of the old. */
static void test_thread_named(void)
{
	struct proc_stat st;
	pthread_barrier_t b;
	pthread_t t;

	CHECK_EQ_INT(proc_stat_read(getpid(), &st), 0);
	CHECK(proc_thread_named(getpid(), st.comm), "main thread %s not found", st.comm);
	CHECK(!proc_thread_named(getpid(), "unit-named"), "a thread named before it was");
	pthread_barrier_init(&b, NULL, 2);
	CHECK_EQ_INT(pthread_create(&t, NULL, thread_waits, &b), 0);
	pthread_barrier_wait(&b);
	CHECK(proc_thread_named(getpid(), "unit-named"), "the named thread not found");
	pthread_barrier_wait(&b);
	pthread_join(t, NULL);
	pthread_barrier_destroy(&b);
	CHECK(!proc_thread_named(getpid(), "unit-named"), "a thread gone still named");
	CHECK(!proc_thread_named(-1, st.comm), "no process, yet named");
}

static void test_no_such_process(void)
{
	struct proc_stat st;
	pid_t pid = fork();

	if (pid == 0)
		_exit(0);
	waitpid(pid, NULL, 0);
	/* Reaped: gone (pids are not reused this soon). */
	CHECK_EQ_INT(proc_stat_read(pid, &st), -ENOENT);
	CHECK_EQ_U64(process_start_time(pid), 0);
	CHECK_EQ_INT(proc_stat_read(-1, &st), -ENOENT);
}

static void test_zombie(void)
{
	struct proc_stat st = { 0 };
	int i, err = 0;
	pid_t pid = fork();

	if (pid == 0)
		_exit(0);
	/* Not reaped: a zombie, once it has exited. */
	for (i = 0; i < 1000 && !(err = proc_stat_read(pid, &st)) && st.state != 'Z'; i++)
		usleep(1000);
	CHECK_EQ_INT(err, 0);
	CHECK_EQ_INT(st.state, 'Z');
	CHECK_EQ_INT(st.ppid, getpid());
	CHECK(process_start_time(pid) >= process_start_time(getpid()), "child started first");
	waitpid(pid, NULL, 0);
}

int main(void)
{
	RUN(test_name_with_spaces_and_parentheses);
	RUN(test_long_name_is_cut);
	RUN(test_refused);
	RUN(test_this_process);
	RUN(test_thread_named);
	RUN(test_no_such_process);
	RUN(test_zombie);
	return unit_done();
}
