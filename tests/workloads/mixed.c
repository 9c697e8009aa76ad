// SPDX-License-Identifier: GPL-2.0-only
/*
 * Two workloads that one syscall-wide threshold cannot both fit, for
 * scripts/adaptive-eval and the class tests:
 *
 *   mixed procs [--duration S] [--warmup S] [--stall-every K] [--report FILE]
 *	Two processes. A reads 1 byte from /dev/zero as fast as it can, and one
 *	read in K (default 5000) reads 2 bytes from a pipe that a helper thread
 *	fills 2 ms after A sleeps in that read: a stall. The helper waits for
 *	the request on a semaphore and looks at A's state with pread, not read:
 *	A's reads are its body and its stalls only. B
 *	has 8 threads, each reading 3 bytes from a pipe whose writer answers
 *	every 3 ms: B's normal read takes 3 ms. With --b-after S, B starts S
 *	seconds after A (a new process with a slow normal) and runs to the end.
 *
 *   mixed fds [--duration S] [--warmup S] [--slow-every K] [--file PATH | --existing PATH]
 *	[--report FILE]
 *	One process. One thread reads 4096 bytes of a 64 MiB file at random
 *	offsets, from the page cache, and one read in K (default 5000) reads
 *	4095 bytes of a page evicted just before (POSIX_FADV_DONTNEED): a slow
 *	read from the disk. A read whose page mincore finds out of the cache
 *	though this program did not evict it (a page the kernel is reading,
 *	by readahead, or dropped) reads 4094 bytes: it waits for the disk too,
 *	and is neither. The file is written first, and removed at the end;
 *	with --existing, PATH (64 MiB or more, on a file system of its own, such
 *	as tests/workloads/slowfs.c's) is read as it is, once whole before the
 *	run so that the page cache holds it. Another reads 1 byte from a TCP connection over
 *	loopback whose peer, a third thread, reads each 1-byte request and
 *	answers it after 1 ms. The socket counts are the reads of both ends:
 *	both are calls of the socket's kind of file.
 *
 * The read sizes tell the calls apart in sclat's records (args[2]). FILE (or
 * stdout) gets one JSON line per process with its pid, name, start time
 * (CLOCK_MONOTONIC ns, sclat's clock; fds: once its file is ready), and its counts: in all, and
 *those made after --warmup S (default a quarter of the duration), "_warm".
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "stall.h"

#define FILE_BYTES (64UL << 20)
#define B_THREADS  8

static double duration_s = 10, warmup_s = -1, b_after_s;
static unsigned long long start_ns, warm_ns;
static long every = 0;
static const char *report, *file_path = "/var/tmp/sclat-mixed.dat";
static int existing;
static volatile int stop;

static void die(const char *what)
{
	fprintf(stderr, "mixed: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void report_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void report_line(const char *fmt, ...)
{
	FILE *out = report ? fopen(report, "a") : stdout;
	va_list ap;

	if (!out)
		die(report);
	va_start(ap, fmt);
	vfprintf(out, fmt, ap);
	va_end(ap);
	fclose(out);
}

/* Whether a call made now counts after the warm-up too. */
static int warm(void)
{
	return mono_ns() >= warm_ns;
}

static void process_a(void)
{
	unsigned long long body = 0, stalls = 0, body_at_warm = 0, stalls_warm = 0, end;
	struct stall h;
	char buf[4];
	int zero;
	long i;

	prctl(PR_SET_NAME, "mixed-a");
	zero = open("/dev/zero", O_RDONLY);
	if (zero < 0)
		die("process A");
	/* A never sleeps but in the stall's read. */
	if (stall_start(&h))
		die("A's helper");
	end = mono_ns() + (unsigned long long)(duration_s * 1e9);
	for (i = 1; mono_ns() < end; i++) {
		if (i % every == 0) {
			if (stall_make(&h))
				die("A's stall");
			stalls++;
			stalls_warm += warm();
		} else if (read(zero, buf, 1) == 1) {
			body++;
			/* A clock read costs as much as the call: look now and then. */
			if (!body_at_warm && !(body & 63) && warm())
				body_at_warm = body;
		}
	}
	report_line("{\"process\":\"A\",\"pid\":%d,\"comm\":\"mixed-a\",\"start_ns\":%llu,"
		    "\"body\":%llu,\"stalls\":%llu,\"body_warm\":%llu,\"stalls_warm\":%llu}\n",
		    getpid(), start_ns, body, stalls, body_at_warm ? body - body_at_warm : 0,
		    stalls_warm);
	_exit(0);
}

struct b_pipe {
	int r, w;
	unsigned long long reads, reads_warm;
};

static void *b_writer(void *arg)
{
	struct b_pipe *bp = arg;

	while (!stop) {
		sleep_ns(3000000);
		if (write(bp->w, "bbb", 3) != 3)
			break;
	}
	return NULL;
}

static void *b_reader(void *arg)
{
	struct b_pipe *bp = arg;
	char buf[4];

	while (!stop && read(bp->r, buf, 3) == 3) {
		bp->reads++;
		bp->reads_warm += warm();
	}
	return NULL;
}

static void process_b(void)
{
	struct b_pipe bp[B_THREADS];
	pthread_t w[B_THREADS], r[B_THREADS];
	unsigned long long reads = 0, reads_warm = 0;
	int i, p[2];

	prctl(PR_SET_NAME, "mixed-b");
	for (i = 0; i < B_THREADS; i++) {
		if (pipe(p))
			die("process B");
		bp[i] = (struct b_pipe){ .r = p[0], .w = p[1] };
		if (pthread_create(&w[i], NULL, b_writer, &bp[i]) ||
		    pthread_create(&r[i], NULL, b_reader, &bp[i]))
			die("B's threads");
	}
	sleep_ns((long)((duration_s - b_after_s) * 1e9));
	stop = 1;
	for (i = 0; i < B_THREADS; i++) {
		pthread_join(w[i], NULL);
		close(bp[i].w);
		pthread_join(r[i], NULL);
		reads += bp[i].reads;
		reads_warm += bp[i].reads_warm;
	}
	report_line("{\"process\":\"B\",\"pid\":%d,\"comm\":\"mixed-b\",\"start_ns\":%llu,"
		    "\"normal\":%llu,\"normal_warm\":%llu}\n",
		    getpid(), start_ns, reads, reads_warm);
	_exit(0);
}

static int procs(void)
{
	pid_t a, b;
	int st, ret = 0;

	if (!every)
		every = 5000;
	a = fork();
	if (a == 0)
		process_a();
	sleep_ns((long)(b_after_s * 1e9));
	b = fork();
	if (b == 0)
		process_b();
	if (a < 0 || b < 0)
		die("fork");
	if (waitpid(a, &st, 0) != a || !WIFEXITED(st) || WEXITSTATUS(st))
		ret = 1;
	if (waitpid(b, &st, 0) != b || !WIFEXITED(st) || WEXITSTATUS(st))
		ret = 1;
	return ret;
}

static unsigned long long sock_reads, sock_reads_warm, peer_reads, peer_reads_warm;

/* The peer of the socket reads: answers each 1-byte request after 1 ms. */
static void *sock_peer(void *arg)
{
	int fd = *(int *)arg;
	char c;

	while (read(fd, &c, 1) == 1) {
		peer_reads++;
		peer_reads_warm += warm();
		sleep_ns(1000000);
		if (write(fd, &c, 1) != 1)
			break;
	}
	return NULL;
}

static void *sock_client(void *arg)
{
	int fd = *(int *)arg;
	char c = 'x';

	while (!stop) {
		if (write(fd, &c, 1) != 1 || read(fd, &c, 1) != 1)
			break;
		sock_reads++;
		sock_reads_warm += warm();
	}
	return NULL;
}

/* A connected TCP pair over 127.0.0.1: fds[0] the client, fds[1] the server's side. */
static void tcp_pair(int fds[2])
{
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sa);
	int l = socket(AF_INET, SOCK_STREAM, 0), one = 1;

	if (l < 0 || bind(l, (struct sockaddr *)&sa, sizeof(sa)) || listen(l, 1) ||
	    getsockname(l, (struct sockaddr *)&sa, &len))
		die("listen on 127.0.0.1");
	fds[0] = socket(AF_INET, SOCK_STREAM, 0);
	if (fds[0] < 0 || connect(fds[0], (struct sockaddr *)&sa, sizeof(sa)))
		die("connect to 127.0.0.1");
	fds[1] = accept(l, NULL, NULL);
	if (fds[1] < 0)
		die("accept");
	setsockopt(fds[0], IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	setsockopt(fds[1], IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	close(l);
}

static int fds(void)
{
	unsigned long long body = 0, slow = 0, body_warm = 0, slow_warm = 0, end;
	unsigned long long waits = 0, waits_warm = 0;
	unsigned char *map, resident;
	unsigned long long rng = 0x9e3779b97f4a7c15ULL;
	pthread_t peer, client;
	static char buf[4096];
	int f, sock[2];
	off_t off;
	long i;

	if (!every)
		every = 5000;
	prctl(PR_SET_NAME, "mixed-fds");
	f = existing ? open(file_path, O_RDONLY)
		     : open(file_path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (f < 0)
		die(file_path);
	memset(buf, 'f', sizeof(buf));
	for (off = 0; off < (off_t)FILE_BYTES; off += sizeof(buf))
		if ((existing ? read(f, buf, sizeof(buf)) : write(f, buf, sizeof(buf))) !=
		    sizeof(buf))
			die(file_path);
	if (!existing && fsync(f))
		die(file_path);
	/* Only looked at, with mincore: never touched, so never faulted in. */
	map = mmap(NULL, FILE_BYTES, PROT_READ, MAP_SHARED, f, 0);
	if (map == MAP_FAILED)
		die("mmap");
	/* The run starts once the file is ready: writing or reading it whole takes a while. */
	start_ns = mono_ns();
	warm_ns = start_ns + (unsigned long long)(warmup_s * 1e9);
	tcp_pair(sock);
	if (pthread_create(&peer, NULL, sock_peer, &sock[1]) ||
	    pthread_create(&client, NULL, sock_client, &sock[0]))
		die("socket threads");
	end = start_ns + (unsigned long long)(duration_s * 1e9);
	for (i = 1; mono_ns() < end; i++) {
		rng ^= rng << 13;
		rng ^= rng >> 7;
		rng ^= rng << 17;
		off = (off_t)(rng % (FILE_BYTES / 4096)) * 4096;
		if (i % every == 0) {
			/* Out of the page cache first: this read goes to the disk. */
			posix_fadvise(f, off, 4096, POSIX_FADV_DONTNEED);
			if (lseek(f, off, SEEK_SET) != off || read(f, buf, 4095) != 4095)
				die("slow read");
			slow++;
			slow_warm += warm();
		} else if (mincore(map + off, 4096, &resident) == 0 && !(resident & 1)) {
			/*
			 * Not evicted by this program, yet not (or not yet) in the
			 * page cache: a page the kernel is reading, or dropped.
			 * This read waits for the disk too.
			 */
			if (lseek(f, off, SEEK_SET) != off || read(f, buf, 4094) != 4094)
				die("read of a page not in the cache");
			waits++;
			waits_warm += warm();
		} else if (lseek(f, off, SEEK_SET) == off && read(f, buf, 4096) == 4096) {
			body++;
			body_warm += warm();
		}
	}
	stop = 1;
	pthread_join(client, NULL);
	shutdown(sock[0], SHUT_RDWR);
	pthread_join(peer, NULL);
	munmap(map, FILE_BYTES);
	close(f);
	if (!existing)
		unlink(file_path);
	report_line("{\"process\":\"fds\",\"pid\":%d,\"comm\":\"mixed-fds\",\"start_ns\":%llu,"
		    "\"file_body\":%llu,\"file_slow\":%llu,\"file_wait\":%llu,\"socket\":%llu,"
		    "\"file_body_warm\":%llu,\"file_slow_warm\":%llu,\"file_wait_warm\":%llu,"
		    "\"socket_warm\":%llu}\n",
		    getpid(), start_ns, body, slow, waits, sock_reads + peer_reads, body_warm,
		    slow_warm, waits_warm, sock_reads_warm + peer_reads_warm);
	return 0;
}

int main(int argc, char **argv)
{
	int i;

	if (argc < 2 || (strcmp(argv[1], "procs") && strcmp(argv[1], "fds"))) {
		fprintf(stderr,
			"usage: mixed procs|fds [--duration S] [--warmup S] [--stall-every K] "
			"[--slow-every K] [--b-after S] [--file PATH | --existing PATH] "
			"[--report FILE]\n");
		return 2;
	}
	for (i = 2; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--duration"))
			duration_s = atof(argv[i + 1]);
		else if (!strcmp(argv[i], "--warmup"))
			warmup_s = atof(argv[i + 1]);
		else if (!strcmp(argv[i], "--stall-every") || !strcmp(argv[i], "--slow-every"))
			every = atol(argv[i + 1]);
		else if (!strcmp(argv[i], "--b-after"))
			b_after_s = atof(argv[i + 1]);
		else if (!strcmp(argv[i], "--file") || !strcmp(argv[i], "--existing"))
			file_path = argv[i + 1], existing = !strcmp(argv[i], "--existing");
		else if (!strcmp(argv[i], "--report"))
			report = argv[i + 1];
		else
			break;
	}
	if (i != argc || duration_s <= 0 || every < 0 || b_after_s < 0 || b_after_s >= duration_s) {
		fprintf(stderr,
			"mixed: bad arguments (see the usage in tests/workloads/mixed.c)\n");
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	if (warmup_s < 0)
		warmup_s = duration_s / 4;
	start_ns = mono_ns();
	warm_ns = start_ns + (unsigned long long)(warmup_s * 1e9);
	return !strcmp(argv[1], "procs") ? procs() : fds();
}
