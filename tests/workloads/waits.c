// SPDX-License-Identifier: GPL-2.0-only
/*
 * Syscalls that are slow for a known reason, for tests/integration/test_explain.py:
 *
 *   waits pipe [--wait-ms MS] --report FILE
 *   waits fsync --file PATH --report FILE
 *   waits preempt [--min-switches N] [--max-switches M] --report FILE
 *   waits tcp [--ipv6] --report FILE
 *   waits refill --report FILE
 *   waits lost [--slots N] --report FILE
 *
 * pipe: main() -> handle_request() -> slow_read() reads a pipe that a thread
 * named "writer" fills 20 ms (--wait-ms) after the read went to sleep: the read
 * sleeps, the writer wakes it. Both run on one CPU, and the writer spins those
 * 20 ms rather than sleep:
 * no sleep of its own is an outlier whose record would wake the tracer just
 * then, and no idle CPU has to be woken. The reader runs SCHED_FIFO (when
 * allowed): woken, it runs at once, before the tasks of a machine others
 * share. Its read is a sleep and nothing else.
 * Built with -O2 -fomit-frame-pointer, the functions noinline: what a user
 * stack unwinder meets in Debian's binaries.
 * fsync: writes 4 MiB to PATH and fsyncs it: the fsync waits on the disk.
 * preempt: a thread named "hog" spins on the CPU this one is pinned to while
 * getrandom() fills a buffer: the calls wait on the runqueue. How often a call
 * of a given size is preempted depends on the machine's speed (the scheduler
 * cuts by time, not by work), so the calls grow, from 256 KiB, doubling, until
 * one was preempted (involuntary switches, the thread's own getrusage) N times
 * or more (default 1) and M times or fewer (--max-switches; then a call past M
 * is followed by one between the last two sizes). Kernels before 5.18 fill at
 * most 32 MiB - 1 a call: then the calls stay at what one returned. It gives up
 * (exit 1) after 64 calls or 20 s, or at 512 MiB.
 * tcp: a thread named "server" accepts a connection on the loopback, reads a
 * request and answers 20 ms after the client went to sleep in its read of the
 * answer.
 * refill: one write() of 192 KiB into a pipe that holds 64 KiB blocks twice
 * or more: a thread named "first" waits until the pipe is full (the writer
 * blocks right after filling it), frees it 30 ms later (the longest block),
 * then one named "second" 5 ms after that, and reads the rest (the
 * later, shorter blocks: their wake-ups come after the longest's).
 * lost: a read of a pipe whose waker's note is taken before the reader reads it.
 * sclat notes a waker in a slot of N (--slots; by default sclat's count for
 * this machine's possible CPUs) that the woken thread's tid hashes to. First a
 * thread is found whose tid hashes to the reader's slot (threads are made
 * until one does, 8 N at most); it waits on a semaphore. The reader, a thread
 * named "writer" and one named "hog" are pinned to one CPU, the last two
 * SCHED_FIFO (root only), the hog above the writer. Once the read sleeps, the
 * writer fills the pipe (the reader is queued, not run: the writer is FIFO)
 * and wakes the hog, which spins 40 ms: the reader waits on the runqueue,
 * and 5 ms into the spin the hog wakes the colliding thread, whose note takes
 * the reader's slot.
 *
 * Each writes one JSON line of what it knows to FILE: the tids, the pipe's
 * inode, the file, the CPU (pipe, preempt: where both threads ran), the ports,
 * the slots (lost: the slot count and the colliding thread's tid); preempt:
 * each call it made (bytes asked, ret, CLOCK_MONOTONIC before and after, and
 * its thread's involuntary and voluntary context switches in between).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "sclat_abi.h" /* sclat's wakers' notes: their count, a thread's slot */

#define WAIT_MS 20

/* How long pipe's writer and tcp's server make the reader wait (--wait-ms). */
static long wait_ms = WAIT_MS;

static FILE *report;

static void die(const char *what)
{
	fprintf(stderr, "waits: %s: %s\n", what, strerror(errno));
	exit(1);
}

static pid_t gettid_(void)
{
	return syscall(SYS_gettid);
}

static void sleep_us(long us)
{
	struct timespec ts = { .tv_sec = us / 1000000, .tv_nsec = (us % 1000000) * 1000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static void sleep_ms(int ms)
{
	sleep_us(ms * 1000L);
}

/* Waits for s to be posted, through signals. */
static void sem_take(sem_t *s)
{
	while (sem_wait(s) && errno == EINTR)
		;
}

static unsigned long long monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* Up to len - 1 bytes of the file at path, read with pread: no read(2) of the caller's. */
static void proc_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		die(path);
	n = pread(fd, buf, len - 1, 0);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
}

/* Whether thread tid of this process sleeps in read(). */
static bool reading(pid_t tid)
{
	char path[64], buf[512], *p;
	bool asleep;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
	proc_file(path, buf, sizeof(buf));
	p = strrchr(buf, ')');
	asleep = p && p[1] == ' ' && p[2] == 'S';
	snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", tid);
	proc_file(path, buf, sizeof(buf));
	return asleep && strtol(buf, &p, 10) == SYS_read && p != buf && *p == ' ';
}

/*
 * Until thread tid of this process sleeps in read(), looked at every millisecond
 * (30 s at most): what a thread makes it wait counts from then, however late
 * the reader got to its read on a loaded machine.
 */
static void wait_reading(pid_t tid, const char *who)
{
	unsigned long long deadline = monotonic_ns() + 30 * 1000000000ULL;

	while (!reading(tid)) {
		if (monotonic_ns() > deadline) {
			fprintf(stderr, "waits: %s never slept in read()\n", who);
			exit(1);
		}
		sleep_ms(1);
	}
}

/* --- pipe ---------------------------------------------------------------------------- */

static int pipe_fds[2];
static int pipe_cpu;
static pid_t reader_tid;
static volatile pid_t writer_tid;

static void pin_to(int cpu);

static void spin_ms(int ms)
{
	struct timespec start, now;

	clock_gettime(CLOCK_MONOTONIC, &start);
	do
		clock_gettime(CLOCK_MONOTONIC, &now);
	while ((now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000 < ms);
}

static void *writer(void *arg)
{
	pin_to(*(int *)arg);
	writer_tid = gettid_();
	/* Not from this thread's start: without SCHED_FIFO the reader may get to its read late. */
	wait_reading(reader_tid, "the pipe's reader");
	spin_ms(wait_ms);
	if (write(pipe_fds[1], "request", 7) != 7)
		die("write");
	return NULL;
}

static __attribute__((noinline)) ssize_t slow_read(int fd, char *buf, size_t len)
{
	ssize_t n = read(fd, buf, len);

	/* Keeps the call from being a tail call: this frame stays on the stack. */
	__asm__ volatile("" ::: "memory");
	return n;
}

static __attribute__((noinline)) int handle_request(int fd)
{
	char buf[64];
	ssize_t n = slow_read(fd, buf, sizeof(buf));

	__asm__ volatile("" ::: "memory");
	return n == 7 ? 0 : 1;
}

static void pipe_report(void)
{
	struct stat st;

	if (fstat(pipe_fds[0], &st))
		die("fstat");
	fprintf(report, "{\"reader_tid\":%d,\"writer_tid\":%d,\"pipe_ino\":%llu,\"cpu\":%d}\n",
		gettid_(), writer_tid, (unsigned long long)st.st_ino, pipe_cpu);
}

/* --- fsync ----------------------------------------------------------------------------- */

static int fsync_file(const char *path)
{
	static char block[1 << 16];
	int fd, i;

	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		die(path);
	memset(block, 'x', sizeof(block));
	for (i = 0; i < 64; i++)
		if (write(fd, block, sizeof(block)) != sizeof(block))
			die("write");
	if (fsync(fd))
		die("fsync");
	close(fd);
	fprintf(report, "{\"tid\":%d,\"file\":\"%s\"}\n", gettid_(), path);
	return 0;
}

/* --- preempt --------------------------------------------------------------------------- */

static volatile bool hog_stop, hog_running;

static void pin_to(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		die("sched_setaffinity");
}

static void *hog(void *arg)
{
	pin_to(*(int *)arg);
	hog_running = true;
	while (!hog_stop)
		__asm__ volatile("" ::: "memory");
	return NULL;
}

#define PREEMPT_FIRST_BYTES (256 << 10)
#define PREEMPT_MAX_BYTES   (512UL << 20)
#define PREEMPT_CALLS_MAX   64
#define PREEMPT_SECONDS	    20

struct preempt_call {
	size_t bytes;
	ssize_t ret;
	unsigned long long t0_ns, t1_ns;
	long nivcsw, nvcsw;
};

/* One getrandom() of c->bytes into buf, timed and with the thread's switches counted. */
static void preempt_call(char *buf, struct preempt_call *c)
{
	struct rusage before, after;

	if (getrusage(RUSAGE_THREAD, &before))
		die("getrusage");
	c->t0_ns = monotonic_ns();
	c->ret = getrandom(buf, c->bytes, 0);
	c->t1_ns = monotonic_ns();
	if (getrusage(RUSAGE_THREAD, &after))
		die("getrusage");
	if (c->ret < 0)
		die("getrandom");
	c->nivcsw = after.ru_nivcsw - before.ru_nivcsw;
	c->nvcsw = after.ru_nvcsw - before.ru_nvcsw;
}

/* The size of the call after c: double the largest too short, or halfway to the smallest too
 * long; never past what a call returned (a kernel's cap). */
static size_t preempt_next(const struct preempt_call *c, size_t *lo, size_t *hi, size_t cap,
			   long max_switches)
{
	size_t next;

	if (max_switches && c->nivcsw > max_switches)
		*hi = c->bytes;
	else
		*lo = c->bytes;
	next = *hi ? (*lo + *hi) / 2 : 2 * *lo;
	next = (next + 4095) & ~4095UL;
	return next < cap ? next : cap;
}

static void preempt_report(int cpu, long min_switches, long max_switches, bool reached,
			   const struct preempt_call *calls, int n)
{
	int i;

	fprintf(report,
		"{\"tid\":%d,\"cpu\":%d,\"min_switches\":%ld,\"max_switches\":%ld,"
		"\"reached\":%s,\"calls\":[",
		gettid_(), cpu, min_switches, max_switches, reached ? "true" : "false");
	for (i = 0; i < n; i++)
		fprintf(report,
			"%s{\"bytes\":%zu,\"ret\":%zd,\"t0_ns\":%llu,\"t1_ns\":%llu,"
			"\"nivcsw\":%ld,\"nvcsw\":%ld}",
			i ? "," : "", calls[i].bytes, calls[i].ret, calls[i].t0_ns, calls[i].t1_ns,
			calls[i].nivcsw, calls[i].nvcsw);
	fprintf(report, "]}\n");
}

static int preempted_calls(long min_switches, long max_switches)
{
	static struct preempt_call calls[PREEMPT_CALLS_MAX];
	unsigned long long deadline = monotonic_ns() + PREEMPT_SECONDS * 1000000000ULL;
	size_t bytes = PREEMPT_FIRST_BYTES, faulted = 0, lo = 0, hi = 0, cap = PREEMPT_MAX_BYTES;
	int cpu = sched_getcpu(), n = 0;
	bool reached = false;
	pthread_t t;
	char *buf;

	/* Reserved whole, faulted in as the calls grow: a call then takes no fault. */
	buf = mmap(NULL, PREEMPT_MAX_BYTES, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (buf == MAP_FAILED)
		die("mmap");
	pin_to(cpu);
	if (pthread_create(&t, NULL, hog, &cpu))
		die("pthread_create");
	pthread_setname_np(t, "hog");
	while (!hog_running)
		sched_yield();
	while (n < PREEMPT_CALLS_MAX && monotonic_ns() < deadline) {
		struct preempt_call *c = &calls[n++];

		if (bytes > faulted) {
			memset(buf + faulted, 1, bytes - faulted);
			faulted = bytes;
		}
		c->bytes = bytes;
		preempt_call(buf, c);
		if ((size_t)c->ret < c->bytes)
			cap = c->ret;
		if (c->nivcsw >= min_switches && (!max_switches || c->nivcsw <= max_switches)) {
			reached = true;
			break;
		}
		bytes = preempt_next(c, &lo, &hi, cap, max_switches);
		if (bytes == c->bytes && bytes == PREEMPT_MAX_BYTES)
			break;
	}
	hog_stop = true;
	pthread_join(t, NULL);
	preempt_report(cpu, min_switches, max_switches, reached, calls, n);
	if (!reached && max_switches)
		fprintf(stderr,
			"waits: preempt: no call was preempted %ld to %ld times in %d calls (the "
			"last, of %zu bytes, %ld times)\n",
			min_switches, max_switches, n, calls[n - 1].bytes, calls[n - 1].nivcsw);
	else if (!reached)
		fprintf(stderr,
			"waits: preempt: no call was preempted %ld times or more in %d calls (the "
			"last, of %zu bytes, %ld times)\n",
			min_switches, n, calls[n - 1].bytes, calls[n - 1].nivcsw);
	return reached ? 0 : 1;
}

/* --- tcp ------------------------------------------------------------------------------- */

static int listen_fd;
static pid_t client_tid;
static volatile pid_t server_tid;

static void *server(void *arg)
{
	char buf[64];
	int fd;

	(void)arg;
	server_tid = gettid_();
	fd = accept(listen_fd, NULL, NULL);
	if (fd < 0)
		die("accept");
	if (read(fd, buf, sizeof(buf)) <= 0)
		die("server read");
	/* From the client's wait for the answer, not from its request. */
	wait_reading(client_tid, "the client");
	sleep_ms(wait_ms);
	if (write(fd, "answer", 6) != 6)
		die("server write");
	close(fd);
	return NULL;
}

static int tcp_round_trip(bool ipv6)
{
	struct sockaddr_storage ss = {}, cs = {};
	socklen_t len = sizeof(ss);
	int family = ipv6 ? AF_INET6 : AF_INET, fd;
	char buf[64];
	pthread_t t;

	if (ipv6) {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;

		a->sin6_family = AF_INET6;
		a->sin6_addr = in6addr_loopback;
	} else {
		struct sockaddr_in *a = (struct sockaddr_in *)&ss;

		a->sin_family = AF_INET;
		a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	}
	client_tid = gettid_();
	listen_fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (listen_fd < 0 || bind(listen_fd, (struct sockaddr *)&ss, len) || listen(listen_fd, 1) ||
	    getsockname(listen_fd, (struct sockaddr *)&ss, &len))
		die("listen");
	if (pthread_create(&t, NULL, server, NULL))
		die("pthread_create");
	pthread_setname_np(t, "server");
	fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&ss, len))
		die("connect");
	len = sizeof(cs);
	if (getsockname(fd, (struct sockaddr *)&cs, &len))
		die("getsockname");
	if (write(fd, "request", 7) != 7)
		die("write");
	if (read(fd, buf, sizeof(buf)) != 6)
		die("read");
	pthread_join(t, NULL);
	fprintf(report, "{\"tid\":%d,\"server_tid\":%d,\"client_port\":%u,\"server_port\":%u}\n",
		gettid_(), server_tid,
		ntohs(ipv6 ? ((struct sockaddr_in6 *)&cs)->sin6_port
			   : ((struct sockaddr_in *)&cs)->sin_port),
		ntohs(ipv6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
			   : ((struct sockaddr_in *)&ss)->sin_port));
	close(fd);
	return 0;
}

/* --- refill ---------------------------------------------------------------------------- */

#define REFILL_PIPE  (64 << 10) /* a pipe's default capacity */
#define REFILL_BYTES (3 * REFILL_PIPE)

static int refill_fds[2];
static sem_t refill_second;
static volatile pid_t first_tid, second_tid;

/* Reads len bytes from the refill pipe. */
static void refill_read(size_t len)
{
	static char buf[REFILL_PIPE];
	ssize_t n;

	while (len) {
		n = read(refill_fds[0], buf, len < sizeof(buf) ? len : sizeof(buf));
		if (n <= 0)
			die("read");
		len -= n;
	}
}

static void *refill_first(void *arg)
{
	(void)arg;
	int queued = 0;

	first_tid = gettid_();
	/* The 30 ms count from the writer's block, not from this thread's start: the
	 * writer may reach its write() late on a loaded machine. */
	while (queued < REFILL_PIPE) {
		if (ioctl(refill_fds[0], FIONREAD, &queued))
			die("FIONREAD");
		if (queued < REFILL_PIPE)
			sleep_us(200);
	}
	sleep_ms(30);
	refill_read(REFILL_PIPE);
	sem_post(&refill_second);
	return NULL;
}

static void *refill_second_reader(void *arg)
{
	(void)arg;
	second_tid = gettid_();
	sem_take(&refill_second);
	sleep_ms(5);
	refill_read(REFILL_BYTES - REFILL_PIPE);
	return NULL;
}

static int refill(void)
{
	static char data[REFILL_BYTES];
	pthread_t first, second;
	ssize_t n;

	if (pipe2(refill_fds, O_CLOEXEC) || sem_init(&refill_second, 0, 0))
		die("pipe");
	if (pthread_create(&first, NULL, refill_first, NULL) ||
	    pthread_create(&second, NULL, refill_second_reader, NULL))
		die("pthread_create");
	pthread_setname_np(first, "first");
	pthread_setname_np(second, "second");
	memset(data, 'x', sizeof(data));
	n = write(refill_fds[1], data, sizeof(data));
	pthread_join(first, NULL);
	pthread_join(second, NULL);
	fprintf(report, "{\"writer_tid\":%d,\"first_tid\":%d,\"second_tid\":%d}\n", gettid_(),
		first_tid, second_tid);
	return n == (ssize_t)sizeof(data) ? 0 : 1;
}

/* --- lost ----------------------------------------------------------------------------- */

#define LOST_HOG_MS	40
#define LOST_COLLIDE_MS 5

static int lost_fds[2], lost_cpu;
static uint32_t lost_slots;
static pid_t lost_reader_tid;
static volatile pid_t lost_writer_tid, lost_hog_tid, collider_tid;
static sem_t hog_go, collider_born, collider_go;

/* The CPUs of /sys/devices/system/cpu/possible ("0-7", "0,2-5"), as libbpf counts them. */
static int possible_cpus(void)
{
	FILE *f = fopen("/sys/devices/system/cpu/possible", "r");
	int a, b, n = 0, c;

	if (!f)
		die("/sys/devices/system/cpu/possible");
	while (fscanf(f, "%d", &a) == 1) {
		b = a;
		c = fgetc(f);
		if (c == '-') {
			if (fscanf(f, "%d", &b) != 1)
				break;
			c = fgetc(f);
		}
		n += b - a + 1;
		if (c != ',')
			break;
	}
	fclose(f);
	if (n < 1) {
		fprintf(stderr, "waits: /sys/devices/system/cpu/possible: no CPU read\n");
		exit(1);
	}
	return n;
}

/* The slot of tid's waker's note, as sclat's sched_waking program finds it. */
static uint32_t wake_slot(uint32_t tid)
{
	return sclat_wake_slot(tid, lost_slots - 1);
}

/* A thread made to see its tid: it stays, waiting, only if it hashes to the reader's slot. */
static void *candidate(void *arg)
{
	pid_t tid = gettid_();

	(void)arg;
	if (wake_slot(tid) != wake_slot(lost_reader_tid)) {
		sem_post(&collider_born);
		return NULL;
	}
	collider_tid = tid;
	sem_post(&collider_born);
	sem_take(&collider_go);
	return NULL;
}

static pthread_t collider_find(void)
{
	unsigned long i, attempts = 8UL * lost_slots;
	pthread_t t;

	for (i = 0; i < attempts; i++) {
		if (pthread_create(&t, NULL, candidate, NULL))
			die("pthread_create");
		sem_take(&collider_born);
		if (collider_tid)
			return t;
		pthread_join(t, NULL);
	}
	fprintf(stderr, "waits: no thread's tid hashed to slot %u of %u in %lu attempts\n",
		wake_slot(lost_reader_tid), lost_slots, attempts);
	exit(1);
}

static void *lost_writer(void *arg)
{
	(void)arg;
	lost_writer_tid = gettid_();
	/* FIFO on the reader's CPU: it sleeps, so that the reader gets to its read. */
	wait_reading(lost_reader_tid, "the reader");
	/* The reader is queued, and stays so: the writer is FIFO, then the hog. */
	if (write(lost_fds[1], "request", 7) != 7)
		die("write");
	sem_post(&hog_go);
	return NULL;
}

static void *lost_hog(void *arg)
{
	(void)arg;
	lost_hog_tid = gettid_();
	sem_take(&hog_go);
	spin_ms(LOST_COLLIDE_MS);
	/* Its note takes the slot of the reader's, still unread. */
	sem_post(&collider_go);
	spin_ms(LOST_HOG_MS - LOST_COLLIDE_MS);
	return NULL;
}

/* A thread pinned to cpu, SCHED_FIFO at priority prio, named name. */
static pthread_t fifo_thread(void *(*fn)(void *), int prio, const char *name)
{
	struct sched_param param = { .sched_priority = prio };
	pthread_attr_t attr;
	cpu_set_t set;
	pthread_t t;
	int err;

	CPU_ZERO(&set);
	CPU_SET(lost_cpu, &set);
	if (pthread_attr_init(&attr) || pthread_attr_setaffinity_np(&attr, sizeof(set), &set) ||
	    pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED) ||
	    pthread_attr_setschedpolicy(&attr, SCHED_FIFO) ||
	    pthread_attr_setschedparam(&attr, &param))
		die("pthread_attr");
	err = pthread_create(&t, &attr, fn, NULL);
	if (err == EPERM) {
		fprintf(stderr, "waits: lost: SCHED_FIFO not allowed for thread %s (run as root)\n",
			name);
		exit(1);
	}
	if (err) {
		errno = err;
		die("pthread_create");
	}
	pthread_setname_np(t, name);
	pthread_attr_destroy(&attr);
	return t;
}

static __attribute__((noinline)) ssize_t lost_read(int fd, char *buf, size_t len)
{
	ssize_t n = read(fd, buf, len);

	__asm__ volatile("" ::: "memory");
	return n;
}

static int lost_waker(uint32_t slots)
{
	pthread_t collider, writer_t, hog_t;
	char buf[64];
	ssize_t n;

	lost_slots = slots ? slots : sclat_wake_slots(possible_cpus());
	if (lost_slots & (lost_slots - 1)) {
		fprintf(stderr, "waits: lost: --slots %u is no power of two\n", lost_slots);
		exit(2);
	}
	lost_reader_tid = gettid_();
	if (pipe2(lost_fds, O_CLOEXEC) || sem_init(&hog_go, 0, 0) ||
	    sem_init(&collider_born, 0, 0) || sem_init(&collider_go, 0, 0))
		die("pipe");
	/* Before the reader is pinned: the candidates are not. */
	collider = collider_find();
	pthread_setname_np(collider, "collider");
	lost_cpu = sched_getcpu();
	pin_to(lost_cpu);
	/* The hog first: it waits for the writer's word, above it. */
	hog_t = fifo_thread(lost_hog, 2, "hog");
	writer_t = fifo_thread(lost_writer, 1, "writer");
	n = lost_read(lost_fds[0], buf, sizeof(buf));
	pthread_join(writer_t, NULL);
	pthread_join(hog_t, NULL);
	pthread_join(collider, NULL);
	fprintf(report,
		"{\"reader_tid\":%d,\"writer_tid\":%d,\"hog_tid\":%d,\"colliding_tid\":%d,"
		"\"cpu\":%d,\"slots\":%u,\"slot\":%u}\n",
		lost_reader_tid, lost_writer_tid, lost_hog_tid, collider_tid, lost_cpu, lost_slots,
		wake_slot(lost_reader_tid));
	return n == 7 ? 0 : 1;
}

static void usage(void)
{
	fprintf(stderr, "usage: waits pipe [--wait-ms MS]|fsync --file PATH"
			"|preempt [--min-switches N] [--max-switches M]|tcp [--ipv6]|refill"
			"|lost [--slots N] --report FILE\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *report_path = NULL, *file = NULL;
	bool ipv6 = false;
	pthread_t t;
	int i, ret, cpu;
	long slots = 0, min_switches = 1, max_switches = 0;

	if (argc < 2)
		usage();
	for (i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--report") && i + 1 < argc)
			report_path = argv[++i];
		else if (!strcmp(argv[i], "--file") && i + 1 < argc)
			file = argv[++i];
		else if (!strcmp(argv[i], "--ipv6"))
			ipv6 = true;
		else if (!strcmp(argv[i], "--min-switches") && i + 1 < argc)
			min_switches = atol(argv[++i]);
		else if (!strcmp(argv[i], "--max-switches") && i + 1 < argc)
			max_switches = atol(argv[++i]);
		else if (!strcmp(argv[i], "--slots") && i + 1 < argc)
			slots = atol(argv[++i]);
		else if (!strcmp(argv[i], "--wait-ms") && i + 1 < argc)
			wait_ms = atol(argv[++i]);
		else
			usage();
	}
	if (!report_path || min_switches < 1 || max_switches < 0 ||
	    (max_switches && max_switches < min_switches) || slots < 0 || slots > (1L << 20) ||
	    wait_ms < 1 || wait_ms > 60000)
		usage();
	report = fopen(report_path, "a");
	if (!report)
		die(report_path);

	if (!strcmp(argv[1], "pipe")) {
		cpu = sched_getcpu();
		pin_to(cpu);
		pipe_cpu = cpu;
		reader_tid = gettid_();
		/* Not allowed (not root): the read may then wait for a CPU too. */
		sched_setscheduler(0, SCHED_FIFO, &(struct sched_param){ .sched_priority = 1 });
		if (pipe2(pipe_fds, O_CLOEXEC) || pthread_create(&t, NULL, writer, &cpu))
			die("pipe");
		pthread_setname_np(t, "writer");
		ret = handle_request(pipe_fds[0]);
		pthread_join(t, NULL);
		pipe_report();
	} else if (!strcmp(argv[1], "fsync") && file) {
		ret = fsync_file(file);
	} else if (!strcmp(argv[1], "preempt")) {
		ret = preempted_calls(min_switches, max_switches);
	} else if (!strcmp(argv[1], "tcp")) {
		ret = tcp_round_trip(ipv6);
	} else if (!strcmp(argv[1], "refill")) {
		ret = refill();
	} else if (!strcmp(argv[1], "lost")) {
		ret = lost_waker((uint32_t)slots);
	} else {
		usage();
	}
	if (fclose(report))
		die(report_path);
	return ret;
}
