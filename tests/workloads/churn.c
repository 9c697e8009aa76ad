// SPDX-License-Identifier: GPL-2.0-only
/*
 * Threads that block, migrate, get signalled, exec, exit and come and go, for
 * tests/integration/test_hotpath.py. Every syscall a mode makes on purpose is
 * counted by number, so the test can hold sclat's counts to what was made:
 *
 *   churn mix [--iters K] --report FILE
 *   churn signals --report FILE
 *   churn spawn [--threads T] --report FILE
 *   churn busy [--threads N] [--duration-ms D] --counters FILE
 *
 * mix: 8 threads, K iterations each: a cheap syscall of the thread's own, then
 * its role's calls: futex2 wait/wake ping-pong (2 threads), a pipe read by one
 * thread and written by another (readv/writev), sleeps (nanosleep 0 and 25us,
 * clock_nanosleep 15us, ppoll timing out after 20us), sched_setaffinity that
 * moves its caller every iteration before it waits 5us in rt_sigtimedwait, and
 * 64 KiB preadv from /dev/zero. The sleeping and the moving thread also make
 * syscall(-1) after their waits: no syscall to the kernel, nor to sclat. Six
 * threads are pinned half and half to two CPUs and swap CPUs halfway. Each call
 * carries a unique tag in its sixth argument register, which the kernel
 * ignores and sclat records as args[5].
 *
 * signals: a thread blocked in readv on an idle pipe gets 3 SIGUSR1
 * (SA_RESTART: the kernel restarts the read, one more readv entry each) and 3
 * SIGUSR2 (no SA_RESTART: readv fails with EINTR and is called again); one
 * blocked in a 10 s nanosleep is interrupted 4 times, and stopped and
 * continued once by a child (the kernel goes on with the sleep in
 * restart_syscall); an execve of a missing file fails. Then, while three
 * threads sit blocked in readv, nanosleep and futex_wait and the main thread
 * in ppoll, another thread execs "churn exitgroup" (those four calls end when
 * the exec kills their threads), which blocks threads the same way and calls
 * exit_group from one of them. exit_group never returns: not counted.
 *
 * spawn: T threads, 8 at a time (every other batch detached), each making 3
 * getppid and 1 sched_yield before it exits; clone3 is counted once per
 * thread, for glibc's pthread_create.
 *
 * busy: N threads calling getppid, sched_yield, nanosleep(10us) and
 * sched_setaffinity until D ms have passed (default: until killed). FILE is a
 * shared map of two arrays of 512 u64, indexed by syscall number: calls
 * started, then calls finished. "ready" on stdout once the threads run.
 *
 * mix, signals and spawn append JSON lines to FILE: {"counts":{"NR":N,...},
 * "pid":P,"start_ns":S,"end_ns":E} per process image, and for mix one
 * {"call":[tid,nr,tag,t0_ns,t1_ns,ret,sleep_ns]} per tagged call, t0 and t1
 * read on CLOCK_MONOTONIC just before and just after the call; a sleep or wait
 * that returns 0 or EAGAIN (timed out) waited at least sleep_ns.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* futex2 (Linux 6.7): the same numbers on every architecture; glibc does not use them. */
#ifndef SYS_futex_wake
#define SYS_futex_wake 454
#endif
#ifndef SYS_futex_wait
#define SYS_futex_wait 455
#endif
#define FUTEX2_SIZE_U32 0x02
#define FUTEX2_PRIVATE	128
#define FUTEX_MATCH_ANY 0xffffffffUL

#define NR_MAX	    512
#define MIX_THREADS 8
#define TAG_BASE    0x40000000UL

static unsigned long long made[NR_MAX];
static const char *report_path;
static const char *self_path;

static unsigned long long mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void made_one(long nr)
{
	__atomic_fetch_add(&made[nr], 1, __ATOMIC_RELAXED);
}

static pid_t gettid_raw(void)
{
	return syscall(SYS_gettid);
}

static void die(const char *what)
{
	fprintf(stderr, "churn: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* One {"counts":...} line for this process image. */
static void report_counts(unsigned long long start_ns)
{
	FILE *f = fopen(report_path, "a");
	const char *sep = "";
	int nr;

	if (!f)
		die(report_path);
	fprintf(f, "{\"counts\":{");
	for (nr = 0; nr < NR_MAX; nr++) {
		unsigned long long n = __atomic_load_n(&made[nr], __ATOMIC_RELAXED);

		if (!n)
			continue;
		fprintf(f, "%s\"%d\":%llu", sep, nr, n);
		sep = ",";
	}
	fprintf(f, "},\"pid\":%d,\"start_ns\":%llu,\"end_ns\":%llu}\n", getpid(), start_ns,
		mono_ns());
	if (fclose(f))
		die(report_path);
}

/* --- mix ----------------------------------------------------------------- */

struct call_rec {
	long nr;
	unsigned long tag;
	unsigned long long t0, t1, sleep_ns;
	long ret;
};

struct mix_thread {
	struct mix *m;
	pthread_t thread;
	int role;
	pid_t tid;
	unsigned long seq;
	struct call_rec *calls;
	size_t ncalls, cap;
};

struct mix {
	long iters;
	int cpus[2]; /* the two CPUs pinned threads use (may be one) */
	cpu_set_t allowed;
	uint32_t word; /* futex ping-pong: 2j+1 from the waker, 2j+2 back */
	int pipe[2];
	int zero_fd;
	struct mix_thread t[MIX_THREADS];
};

/* The calls that stand for "fast" in mix, one per thread, none used by libc. */
static const long fast_nrs[MIX_THREADS] = {
	SYS_getppid,
	SYS_getpgid,
	SYS_getsid,
	SYS_getpriority,
	SYS_sched_getscheduler,
	SYS_sched_get_priority_max,
	SYS_sched_get_priority_min,
	SYS_times,
};

/* Make syscall nr with its tag in the sixth argument register, timed and logged. */
static long tagged(struct mix_thread *mt, long nr, long a0, long a1, long a2, long a3, long a4,
		   unsigned long long sleep_ns)
{
	unsigned long tag = TAG_BASE | (unsigned long)mt->role << 24 | ++mt->seq;
	unsigned long long t0, t1;
	struct call_rec *r;
	long ret;

	made_one(nr);
	t0 = mono_ns();
	ret = syscall(nr, a0, a1, a2, a3, a4, tag);
	t1 = mono_ns();
	if (ret == -1)
		ret = -errno;
	if (mt->ncalls == mt->cap) {
		mt->cap = mt->cap ? 2 * mt->cap : 1024;
		mt->calls = realloc(mt->calls, mt->cap * sizeof(*mt->calls));
		if (!mt->calls)
			die("realloc");
	}
	r = &mt->calls[mt->ncalls++];
	*r = (struct call_rec){
		.nr = nr, .tag = tag, .t0 = t0, .t1 = t1, .sleep_ns = sleep_ns, .ret = ret
	};
	return ret;
}

/* cpu < 0: every allowed CPU. */
static void mix_pin(struct mix_thread *mt, int cpu)
{
	cpu_set_t set;

	if (cpu < 0) {
		set = mt->m->allowed;
	} else {
		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
	}
	if (tagged(mt, SYS_sched_setaffinity, 0, sizeof(set), (long)&set, 0, 0, 0) < 0)
		die("sched_setaffinity");
}

static void mix_futex_wait_for(struct mix_thread *mt, uint32_t want)
{
	uint32_t v;

	while ((v = __atomic_load_n(&mt->m->word, __ATOMIC_ACQUIRE)) != want)
		tagged(mt, SYS_futex_wait, (long)&mt->m->word, v, FUTEX_MATCH_ANY,
		       FUTEX2_SIZE_U32 | FUTEX2_PRIVATE, 0, 0);
}

static void mix_futex_set(struct mix_thread *mt, uint32_t v)
{
	__atomic_store_n(&mt->m->word, v, __ATOMIC_RELEASE);
	tagged(mt, SYS_futex_wake, (long)&mt->m->word, FUTEX_MATCH_ANY, 1,
	       FUTEX2_SIZE_U32 | FUTEX2_PRIVATE, 0, 0);
}

static void mix_sleep(struct mix_thread *mt, long nr, unsigned long long ns)
{
	struct timespec ts = { .tv_sec = ns / 1000000000, .tv_nsec = ns % 1000000000 };

	if (nr == SYS_nanosleep)
		tagged(mt, nr, (long)&ts, 0, 0, 0, 0, ns);
	else
		tagged(mt, nr, CLOCK_MONOTONIC, 0, (long)&ts, 0, 0, ns);
}

static void *mix_thread(void *arg)
{
	struct mix_thread *mt = arg;
	struct mix *m = mt->m;
	static char zeros[64 << 10];
	struct timespec poll_ts, wait_ts;
	sigset_t never; /* SIGUSR1: nobody sends it in mix */
	struct iovec iov;
	long j, half = m->iters / 2;
	char byte = 'x';
	/* Pinned threads: partners on different CPUs, swapped halfway. */
	int pinned = mt->role <= 5, cpu = m->cpus[mt->role % 2];

	sigemptyset(&never);
	sigaddset(&never, SIGUSR1);
	mt->tid = gettid_raw();
	if (pinned)
		mix_pin(mt, cpu);
	for (j = 0; j < m->iters; j++) {
		if (pinned && j == half)
			mix_pin(mt, m->cpus[(mt->role + 1) % 2]);
		tagged(mt, fast_nrs[mt->role], 0, 0, 0, 0, 0, 0);
		switch (mt->role) {
		case 0:
			mix_futex_wait_for(mt, 2 * j + 1);
			mix_futex_set(mt, 2 * j + 2);
			break;
		case 1:
			mix_futex_set(mt, 2 * j + 1);
			mix_futex_wait_for(mt, 2 * j + 2);
			break;
		case 2:
			iov = (struct iovec){ &byte, 1 };
			if (tagged(mt, SYS_readv, m->pipe[0], (long)&iov, 1, 0, 0, 0) != 1)
				die("readv");
			break;
		case 3:
			iov = (struct iovec){ &byte, 1 };
			if (tagged(mt, SYS_writev, m->pipe[1], (long)&iov, 1, 0, 0, 0) != 1)
				die("writev");
			if (j % 64 == 0)
				tagged(mt, SYS_sched_yield, 0, 0, 0, 0, 0, 0);
			break;
		case 4:
			mix_sleep(mt, SYS_nanosleep, j % 2 ? 0 : 25000);
			/* No call: the kernel fails it with ENOSYS, sclat must not see it. */
			syscall(-1L);
			break;
		case 5:
			if (j % 2)
				mix_sleep(mt, SYS_clock_nanosleep, 15000);
			else {
				/* ppoll writes back what is left of it. */
				poll_ts = (struct timespec){ .tv_nsec = 20000 };
				tagged(mt, SYS_ppoll, 0, 0, (long)&poll_ts, 0, 0, 20000);
			}
			break;
		case 6:
			/*
			 * CPU 0, CPU 1, anywhere, ...: the call itself migrates its
			 * caller, which then blocks in another call on its new CPU.
			 */
			mix_pin(mt, j % 3 == 2 ? -1 : m->cpus[j % 3]);
			wait_ts = (struct timespec){ .tv_nsec = 5000 };
			tagged(mt, SYS_rt_sigtimedwait, (long)&never, 0, (long)&wait_ts, 8, 0,
			       5000);
			syscall(-1L);
			tagged(mt, SYS_sched_yield, 0, 0, 0, 0, 0, 0);
			break;
		case 7:
			iov = (struct iovec){ zeros, sizeof(zeros) };
			tagged(mt, SYS_preadv, m->zero_fd, (long)&iov, 1, 0, 0, 0);
			tagged(mt, SYS_sched_yield, 0, 0, 0, 0, 0, 0);
			break;
		}
	}
	return NULL;
}

static int mix_run(long iters)
{
	struct mix *m = calloc(1, sizeof(*m));
	unsigned long long start;
	int i, cpu, n = 0;
	FILE *f;

	if (!m)
		die("calloc");
	m->iters = iters;
	if (sched_getaffinity(0, sizeof(m->allowed), &m->allowed))
		die("sched_getaffinity");
	for (cpu = 0; cpu < CPU_SETSIZE && n < 2; cpu++)
		if (CPU_ISSET(cpu, &m->allowed))
			m->cpus[n++] = cpu;
	if (n == 1)
		m->cpus[1] = m->cpus[0];
	if (pipe2(m->pipe, O_CLOEXEC))
		die("pipe2");
	m->zero_fd = open("/dev/zero", O_RDONLY | O_CLOEXEC);
	if (m->zero_fd < 0)
		die("/dev/zero");

	start = mono_ns();
	for (i = 0; i < MIX_THREADS; i++) {
		m->t[i].m = m;
		m->t[i].role = i;
		if (pthread_create(&m->t[i].thread, NULL, mix_thread, &m->t[i]))
			die("pthread_create");
	}
	for (i = 0; i < MIX_THREADS; i++)
		pthread_join(m->t[i].thread, NULL);

	f = fopen(report_path, "a");
	if (!f)
		die(report_path);
	for (i = 0; i < MIX_THREADS; i++) {
		struct mix_thread *mt = &m->t[i];
		size_t k;

		for (k = 0; k < mt->ncalls; k++) {
			struct call_rec *r = &mt->calls[k];

			fprintf(f, "{\"call\":[%d,%ld,%lu,%llu,%llu,%ld,%llu]}\n", mt->tid, r->nr,
				r->tag, r->t0, r->t1, r->ret, r->sleep_ns);
		}
	}
	if (fclose(f))
		die(report_path);
	report_counts(start);
	return 0;
}

/* --- signals and exitgroup ---------------------------------------------- */

static volatile int handled; /* handler runs, each ends in rt_sigreturn */
static volatile int sleeper_stop;

static void on_signal(int sig)
{
	(void)sig;
	made_one(SYS_rt_sigreturn);
	__atomic_fetch_add(&handled, 1, __ATOMIC_SEQ_CST);
}

/* A pause that is none of the calls counted in signals mode. */
static void nap(void)
{
	struct timespec ts = { .tv_nsec = 200000 };

	syscall(SYS_clock_nanosleep, CLOCK_MONOTONIC, 0, &ts, NULL);
}

/* The start of a /proc file, NUL-terminated, into buf; false if it reads empty. */
static bool proc_read(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		die(path);
	n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	return true;
}

/* Whether thread tid sits inside syscall nr, not running (/proc/self/task/TID/syscall). */
static bool blocked_in(pid_t tid, long nr)
{
	char path[64], buf[64], *end;

	snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", tid);
	if (!proc_read(path, buf, sizeof(buf)))
		return false;
	return strtol(buf, &end, 10) == nr && *end == ' ';
}

static void wait_blocked(pid_t tid, long nr)
{
	while (!blocked_in(tid, nr))
		nap();
}

static void signal_and_wait(pid_t tid, int sig)
{
	int before = __atomic_load_n(&handled, __ATOMIC_SEQ_CST);

	made_one(SYS_tgkill);
	if (syscall(SYS_tgkill, getpid(), tid, sig))
		die("tgkill");
	while (__atomic_load_n(&handled, __ATOMIC_SEQ_CST) == before)
		nap();
}

struct blocker {
	pthread_t thread;
	pid_t tid;
	long nr;
	int fd;
	uint32_t word;
};

/* Blocks in b->nr until the process ends (readv, nanosleep or futex_wait). */
static void *blocker_thread(void *arg)
{
	struct blocker *b = arg;
	struct timespec ts = { .tv_sec = 60 };
	struct iovec iov;
	char byte;

	__atomic_store_n(&b->tid, gettid_raw(), __ATOMIC_RELEASE);
	iov = (struct iovec){ &byte, 1 };
	for (;;) {
		made_one(b->nr);
		if (b->nr == SYS_readv)
			syscall(SYS_readv, b->fd, &iov, 1);
		else if (b->nr == SYS_nanosleep)
			syscall(SYS_nanosleep, &ts, NULL);
		else
			syscall(SYS_futex_wait, &b->word, 0, FUTEX_MATCH_ANY,
				FUTEX2_SIZE_U32 | FUTEX2_PRIVATE, NULL, 0);
	}
	return NULL;
}

static const long blocker_nrs[3] = { SYS_readv, SYS_nanosleep, SYS_futex_wait };

static void blockers_start(struct blocker *b, int pipe_rd)
{
	int i;

	for (i = 0; i < 3; i++) {
		b[i].nr = blocker_nrs[i];
		b[i].fd = pipe_rd;
		if (pthread_create(&b[i].thread, NULL, blocker_thread, &b[i]))
			die("pthread_create");
	}
}

/* Until every blocker and the main thread sit blocked, each in its one call. */
static void blockers_wait(struct blocker *b, pid_t main_tid)
{
	int i;

	for (i = 0; i < 3; i++) {
		while (!__atomic_load_n(&b[i].tid, __ATOMIC_ACQUIRE))
			nap();
		wait_blocked(b[i].tid, b[i].nr);
	}
	wait_blocked(main_tid, SYS_ppoll);
}

/* The main thread's last call: ppoll with nothing to wait for, forever. */
static void main_park(void)
{
	made_one(SYS_ppoll);
	syscall(SYS_ppoll, NULL, 0, NULL, NULL, 0);
	die("ppoll returned");
}

struct ender {
	struct blocker *b;
	pid_t main_tid;
	unsigned long long start;
};

static void *exec_thread(void *arg)
{
	struct ender *e = arg;
	char *argv[] = { (char *)self_path, "exitgroup", "--report", (char *)report_path, NULL };

	blockers_wait(e->b, e->main_tid);
	made_one(SYS_execve);
	report_counts(e->start);
	syscall(SYS_execve, self_path, argv, environ);
	die("execve");
	return NULL;
}

static void *exit_group_thread(void *arg)
{
	struct ender *e = arg;

	blockers_wait(e->b, e->main_tid);
	report_counts(e->start);
	syscall(SYS_exit_group, 0);
	return NULL;
}

struct reader {
	int fd;
	pid_t tid;
};

static void *reader_thread(void *arg)
{
	struct reader *r = arg;
	struct iovec iov;
	char byte;
	long n;

	__atomic_store_n(&r->tid, gettid_raw(), __ATOMIC_RELEASE);
	iov = (struct iovec){ &byte, 1 };
	do {
		made_one(SYS_readv);
		n = syscall(SYS_readv, r->fd, &iov, 1);
	} while (n < 0 && errno == EINTR);
	return n == 1 ? NULL : (void *)1;
}

/* Whether thread tid of process pid is stopped (state T in its stat). */
static bool task_stopped(pid_t pid, pid_t tid)
{
	char path[64], buf[512], *state;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", pid, tid);
	if (!proc_read(path, buf, sizeof(buf)))
		return false;
	state = strrchr(buf, ')');
	return state && state[1] == ' ' && state[2] == 'T';
}

/*
 * A child stops this process (SIGSTOP) once sleeper and the main thread are
 * both stopped, continues it (SIGCONT) and reports its two kill calls. The main
 * thread waits in userspace meanwhile: no call of its own to interrupt.
 */
static void stop_and_continue(pid_t sleeper, unsigned long long start)
{
	int *done = mmap(NULL, sizeof(*done), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
			 -1, 0);
	pid_t parent = getpid(), main_tid = gettid_raw(), child;

	if (done == MAP_FAILED)
		die("mmap");
	child = fork();
	if (child < 0)
		die("fork");
	if (child == 0) {
		memset(made, 0, sizeof(made));
		made_one(SYS_kill);
		kill(parent, SIGSTOP);
		while (!task_stopped(parent, main_tid) || !task_stopped(parent, sleeper))
			nap();
		made_one(SYS_kill);
		kill(parent, SIGCONT);
		__atomic_store_n(done, 1, __ATOMIC_RELEASE);
		report_counts(start);
		_exit(0);
	}
	while (!__atomic_load_n(done, __ATOMIC_ACQUIRE))
		;
	waitpid(child, NULL, 0);
	munmap(done, sizeof(*done));
}

static void *sleeper_thread(void *arg)
{
	struct timespec ts = { .tv_sec = 10 };
	pid_t *tid = arg;

	__atomic_store_n(tid, gettid_raw(), __ATOMIC_RELEASE);
	while (!sleeper_stop) {
		made_one(SYS_nanosleep);
		syscall(SYS_nanosleep, &ts, NULL);
	}
	return NULL;
}

static void handlers_install(void)
{
	struct sigaction restart = { .sa_handler = on_signal, .sa_flags = SA_RESTART };
	struct sigaction interrupt = { .sa_handler = on_signal };

	if (sigaction(SIGUSR1, &restart, NULL) || sigaction(SIGUSR2, &interrupt, NULL))
		die("sigaction");
}

static int signals_run(void)
{
	unsigned long long start = mono_ns();
	struct reader r = {};
	struct blocker b[3] = {};
	struct ender e = { .b = b, .main_tid = gettid_raw(), .start = start };
	char *argv[] = { "churn-missing", NULL };
	pthread_t reader, sleeper, exec;
	pid_t sleeper_tid = 0;
	int p[2], idle[2], i;
	struct iovec iov;
	void *res;

	handlers_install();
	if (pipe2(p, O_CLOEXEC) || pipe2(idle, O_CLOEXEC))
		die("pipe2");

	/* A read interrupted 3 times with SA_RESTART, then 3 times without. */
	r.fd = p[0];
	if (pthread_create(&reader, NULL, reader_thread, &r))
		die("pthread_create");
	while (!__atomic_load_n(&r.tid, __ATOMIC_ACQUIRE))
		nap();
	for (i = 0; i < 6; i++) {
		wait_blocked(r.tid, SYS_readv);
		signal_and_wait(r.tid, i < 3 ? SIGUSR1 : SIGUSR2);
		/* SA_RESTART: the kernel enters readv again on its own. */
		if (i < 3)
			made_one(SYS_readv);
	}
	wait_blocked(r.tid, SYS_readv);
	iov = (struct iovec){ "x", 1 };
	made_one(SYS_writev);
	if (syscall(SYS_writev, p[1], &iov, 1) != 1)
		die("writev");
	pthread_join(reader, &res);
	if (res)
		die("reader");

	/* A sleep interrupted 4 times (EINTR with or without SA_RESTART), and stopped once. */
	if (pthread_create(&sleeper, NULL, sleeper_thread, &sleeper_tid))
		die("pthread_create");
	while (!__atomic_load_n(&sleeper_tid, __ATOMIC_ACQUIRE))
		nap();
	for (i = 0; i < 4; i++) {
		wait_blocked(sleeper_tid, SYS_nanosleep);
		if (i == 3) {
			stop_and_continue(sleeper_tid, start);
			/* Continued with no handler to run, it sleeps on in restart_syscall. */
			made_one(SYS_restart_syscall);
			wait_blocked(sleeper_tid, SYS_restart_syscall);
			sleeper_stop = 1;
		}
		signal_and_wait(sleeper_tid, i % 2 ? SIGUSR2 : SIGUSR1);
	}
	pthread_join(sleeper, NULL);

	made_one(SYS_execve);
	if (syscall(SYS_execve, "/nonexistent/churn-missing", argv, environ) != -1 ||
	    errno != ENOENT)
		die("execve of a missing file");

	/* exec from a thread while the others sit blocked: they are killed in their calls. */
	blockers_start(b, idle[0]);
	if (pthread_create(&exec, NULL, exec_thread, &e))
		die("pthread_create");
	main_park();
	return 1;
}

static int exitgroup_run(void)
{
	unsigned long long start = mono_ns();
	struct blocker b[3] = {};
	struct ender e = { .b = b, .main_tid = gettid_raw(), .start = start };
	pthread_t ender;
	int idle[2];

	if (pipe2(idle, O_CLOEXEC))
		die("pipe2");
	blockers_start(b, idle[0]);
	if (pthread_create(&ender, NULL, exit_group_thread, &e))
		die("pthread_create");
	main_park();
	return 1;
}

/* --- spawn --------------------------------------------------------------- */

static long spawn_finished;

static void *spawn_thread(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < 3; i++) {
		made_one(SYS_getppid);
		syscall(SYS_getppid);
	}
	made_one(SYS_sched_yield);
	syscall(SYS_sched_yield);
	__atomic_fetch_add(&spawn_finished, 1, __ATOMIC_RELEASE);
	return NULL;
}

static int spawn_run(long threads)
{
	unsigned long long start = mono_ns();
	pthread_attr_t detached;
	pthread_t batch[8];
	long done = 0;
	int i, n;

	pthread_attr_init(&detached);
	pthread_attr_setdetachstate(&detached, PTHREAD_CREATE_DETACHED);
	while (done < threads) {
		bool detach = (done / 8) % 2;

		n = threads - done < 8 ? threads - done : 8;
		for (i = 0; i < n; i++)
			if (pthread_create(&batch[i], detach ? &detached : NULL, spawn_thread,
					   NULL))
				die("pthread_create");
		if (!detach)
			for (i = 0; i < n; i++)
				pthread_join(batch[i], NULL);
		done += n;
	}
	/* Detached threads: wait for their calls, not for their exit. */
	while (__atomic_load_n(&spawn_finished, __ATOMIC_ACQUIRE) < threads)
		nap();
	/* glibc's pthread_create: one clone3 each, counted where it returns in the parent. */
	made[SYS_clone3] = threads;
	report_counts(start);
	return 0;
}

/* --- busy ---------------------------------------------------------------- */

struct busy {
	unsigned long long *started, *finished; /* [NR_MAX] each, in the shared map */
	unsigned long long deadline;
	cpu_set_t allowed;
	int cpus[2];
};

static long busy_call(struct busy *b, long nr, long a0, long a1, long a2)
{
	long ret;

	__atomic_fetch_add(&b->started[nr], 1, __ATOMIC_SEQ_CST);
	ret = syscall(nr, a0, a1, a2);
	__atomic_fetch_add(&b->finished[nr], 1, __ATOMIC_SEQ_CST);
	return ret;
}

static void *busy_thread(void *arg)
{
	struct timespec ts = { .tv_nsec = 10000 };
	struct busy *b = arg;
	cpu_set_t set;
	long j;

	for (j = 0; !b->deadline || (j % 64 || mono_ns() < b->deadline); j++) {
		busy_call(b, SYS_getppid, 0, 0, 0);
		busy_call(b, SYS_sched_yield, 0, 0, 0);
		if (j % 8 == 0)
			busy_call(b, SYS_nanosleep, (long)&ts, 0, 0);
		if (j % 32 == 0) {
			if (j % 96 == 64) {
				set = b->allowed;
			} else {
				CPU_ZERO(&set);
				CPU_SET(b->cpus[j % 96 / 32], &set);
			}
			busy_call(b, SYS_sched_setaffinity, 0, sizeof(set), (long)&set);
		}
	}
	return NULL;
}

static int busy_run(long threads, long duration_ms, const char *counters)
{
	pthread_t *t = calloc(threads, sizeof(*t));
	struct busy b = {};
	int fd, cpu, n = 0;
	void *map;
	long i;

	fd = open(counters, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || ftruncate(fd, 2 * NR_MAX * sizeof(unsigned long long)))
		die(counters);
	map = mmap(NULL, 2 * NR_MAX * sizeof(unsigned long long), PROT_READ | PROT_WRITE,
		   MAP_SHARED, fd, 0);
	if (map == MAP_FAILED || !t)
		die("mmap");
	b.started = map;
	b.finished = b.started + NR_MAX;
	if (sched_getaffinity(0, sizeof(b.allowed), &b.allowed))
		die("sched_getaffinity");
	for (cpu = 0; cpu < CPU_SETSIZE && n < 2; cpu++)
		if (CPU_ISSET(cpu, &b.allowed))
			b.cpus[n++] = cpu;
	if (n == 1)
		b.cpus[1] = b.cpus[0];
	if (duration_ms)
		b.deadline = mono_ns() + duration_ms * 1000000ULL;
	for (i = 0; i < threads; i++)
		if (pthread_create(&t[i], NULL, busy_thread, &b))
			die("pthread_create");
	printf("ready\n");
	fflush(stdout);
	for (i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
	return 0;
}

/* --- main ---------------------------------------------------------------- */

static int usage(void)
{
	fprintf(stderr, "usage: churn mix [--iters K] --report FILE\n"
			"       churn signals --report FILE\n"
			"       churn spawn [--threads T] --report FILE\n"
			"       churn busy [--threads N] [--duration-ms D] --counters FILE\n");
	return 2;
}

int main(int argc, char **argv)
{
	long iters = 2000, threads = 0, duration_ms = 0;
	const char *mode, *counters = NULL;
	int i;

	if (argc < 2)
		return usage();
	mode = argv[1];
	self_path = argv[0];
	for (i = 2; i + 1 < argc; i += 2) {
		const char *k = argv[i], *v = argv[i + 1];

		if (!strcmp(k, "--iters"))
			iters = atol(v);
		else if (!strcmp(k, "--threads"))
			threads = atol(v);
		else if (!strcmp(k, "--duration-ms"))
			duration_ms = atol(v);
		else if (!strcmp(k, "--report"))
			report_path = v;
		else if (!strcmp(k, "--counters"))
			counters = v;
		else
			break;
	}
	if (i != argc || iters < 2 || threads < 0 || duration_ms < 0)
		return usage();
	if (!strcmp(mode, "busy"))
		return counters ? busy_run(threads ? threads : 4, duration_ms, counters) : usage();
	if (!report_path)
		return usage();
	if (!strcmp(mode, "mix"))
		return mix_run(iters);
	if (!strcmp(mode, "signals"))
		return signals_run();
	if (!strcmp(mode, "exitgroup"))
		return exitgroup_run();
	if (!strcmp(mode, "spawn"))
		return spawn_run(threads ? threads : 3000);
	return usage();
}
