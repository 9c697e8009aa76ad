// SPDX-License-Identifier: GPL-2.0-only
/*
 * A body of read(2) calls of a chosen latency, calibrated on this machine,
 * that may step to multiples of itself at chosen times, for
 * scripts/adaptive-eval ((f) a healthy busy program, (g) a shifting body):
 *
 *   bodysteps [--duration S] [--threads N] [--body-ns NS] [--fast]
 *             [--step S:FACTOR]... [--report FILE]
 *
 * Each of N threads (default: the online CPUs) reads /dev/zero in a loop, a
 * size whose median latency is NS (default 10000). The size is found at start
 * by timing reads of growing sizes: what a threshold judges is the latency,
 * and the latency of a size differs 2x between machines. --step S:FACTOR
 * switches, S seconds after the start, to the size whose median is FACTOR x NS
 * (up to 8 steps). With --fast, each read is followed by a getppid(2): a call
 * fast enough to take a busy program's rate past what the reads alone reach.
 *
 * FILE (or stdout) gets JSON lines, times on CLOCK_MONOTONIC like sclat's
 * ts_ns: {"start":...} once, with each level's factor, size and median
 * latency measured at calibration; {"bin":...} every second (and at each step)
 * with the calls of all threads in it; {"end":...} with the totals and the
 * median latency of each level measured during the run (1 call in 64 timed),
 * where the other threads and the tracer share the CPUs.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define MAX_LEVELS  9
#define MAX_THREADS 64
#define MAX_BYTES   (64L << 20)
#define CAL_READS   201
#define TIMED_EVERY 64
#define TIMED_MAX   65536

struct level {
	double factor, at_s;
	long bytes, median_ns, run_median_ns;
};

/* One worker's counts, on a cache line of its own: the main thread sums them. */
struct worker {
	volatile unsigned long long reads, fast;
	long *timed[MAX_LEVELS];
	unsigned int ntimed[MAX_LEVELS];
	char *buf;
	pthread_t t;
} __attribute__((aligned(64)));

static struct level levels[MAX_LEVELS] = { { .factor = 1 } };
static int nlevels = 1, fast, zero_fd;
static volatile int phase, stop;

static unsigned long long mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void sleep_until(unsigned long long ns)
{
	struct timespec ts = { ns / 1000000000ULL, ns % 1000000000ULL };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL))
		;
}

static int cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return (x > y) - (x < y);
}

static long median(long *v, unsigned int n)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_long);
	return v[n / 2];
}

/* The median latency of a read of size bytes into buf, CAL_READS timed. */
static long size_median_ns(char *buf, long size)
{
	long v[CAL_READS];
	unsigned long long t;
	int i;

	for (i = 0; i < CAL_READS; i++) {
		t = mono_ns();
		if (read(zero_fd, buf, size) != size) {
			perror("bodysteps: read /dev/zero");
			exit(1);
		}
		v[i] = (long)(mono_ns() - t);
	}
	return median(v, CAL_READS);
}

/*
 * The size whose median read takes target_ns: doubled until past it, then
 * refined on the part of the latency that grows with the size.
 */
static long size_for(char *buf, long target_ns, long *got_ns)
{
	long fixed = size_median_ns(buf, 1), lo = 1, lo_ns = fixed, hi = 1, hi_ns = fixed, s, m;
	int i;

	while (hi_ns < target_ns && hi < MAX_BYTES) {
		lo = hi;
		lo_ns = hi_ns;
		hi = hi * 2 > MAX_BYTES ? MAX_BYTES : hi * 2;
		hi_ns = size_median_ns(buf, hi);
	}
	if (hi_ns <= target_ns || hi_ns == lo_ns) {
		*got_ns = hi_ns;
		return hi;
	}
	s = lo + (long)((double)(hi - lo) * (target_ns - lo_ns) / (hi_ns - lo_ns));
	for (i = 0; i < 3 && s > 1; i++) {
		m = size_median_ns(buf, s);
		if (m <= fixed)
			break;
		s = (long)((double)s * (target_ns - fixed) / (m - fixed));
		if (s < 1)
			s = 1;
		if (s > MAX_BYTES)
			s = MAX_BYTES;
	}
	*got_ns = size_median_ns(buf, s);
	return s;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	unsigned long long t = 0, n = 0;
	int p;

	while (!stop) {
		p = phase;
		if (++n % TIMED_EVERY == 0)
			t = mono_ns();
		if (read(zero_fd, w->buf, levels[p].bytes) != levels[p].bytes)
			exit(1);
		if (n % TIMED_EVERY == 0 && w->ntimed[p] < TIMED_MAX)
			w->timed[p][w->ntimed[p]++] = (long)(mono_ns() - t);
		w->reads++;
		if (fast) {
			syscall(SYS_getppid);
			w->fast++;
		}
	}
	return NULL;
}

static void counts_sum(struct worker *w, int n, unsigned long long *reads,
		       unsigned long long *fasts)
{
	int i;

	*reads = *fasts = 0;
	for (i = 0; i < n; i++) {
		*reads += w[i].reads;
		*fasts += w[i].fast;
	}
}

int main(int argc, char **argv)
{
	static struct worker w[MAX_THREADS];
	double duration = 10, body_ns = 10000;
	int threads = (int)sysconf(_SC_NPROCESSORS_ONLN), i, j;
	unsigned long long start, end, next, bin_start, r, f, r0 = 0, f0 = 0;
	const char *report = NULL;
	long maxb = 0, *all;
	char *cal;
	FILE *out;

	for (i = 1; i < argc; i++) {
		const char *k = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(k, "--fast")) {
			fast = 1;
			continue;
		}
		if (!v)
			break;
		i++;
		if (!strcmp(k, "--duration"))
			duration = atof(v);
		else if (!strcmp(k, "--threads"))
			threads = atoi(v);
		else if (!strcmp(k, "--body-ns"))
			body_ns = atof(v);
		else if (!strcmp(k, "--report"))
			report = v;
		else if (!strcmp(k, "--step") && nlevels < MAX_LEVELS &&
			 sscanf(v, "%lf:%lf", &levels[nlevels].at_s, &levels[nlevels].factor) == 2)
			nlevels++;
		else
			break;
	}
	if (i != argc || duration <= 0 || threads < 1 || threads > MAX_THREADS || body_ns <= 0) {
		fprintf(stderr, "usage: bodysteps [--duration S] [--threads N] [--body-ns NS] "
				"[--fast] [--step S:FACTOR]... [--report FILE]\n");
		return 2;
	}
	zero_fd = open("/dev/zero", O_RDONLY | O_CLOEXEC);
	cal = malloc(MAX_BYTES);
	if (zero_fd < 0 || !cal) {
		perror("bodysteps: /dev/zero");
		return 1;
	}
	/* Fault the buffers in first: page faults would be latency of their own. */
	memset(cal, 1, MAX_BYTES);
	for (j = 0; j < nlevels; j++) {
		levels[j].bytes =
			size_for(cal, (long)(levels[j].factor * body_ns), &levels[j].median_ns);
		if (levels[j].bytes > maxb)
			maxb = levels[j].bytes;
	}
	free(cal);
	for (i = 0; i < threads; i++) {
		w[i].buf = malloc(maxb);
		if (!w[i].buf)
			return 1;
		memset(w[i].buf, 1, maxb);
		for (j = 0; j < nlevels; j++) {
			w[i].timed[j] = malloc(TIMED_MAX * sizeof(long));
			if (!w[i].timed[j])
				return 1;
		}
	}
	out = report ? fopen(report, "w") : stdout;
	if (!out) {
		perror(report);
		return 1;
	}
	setvbuf(out, NULL, _IOLBF, 0);

	start = bin_start = mono_ns();
	end = start + (unsigned long long)(duration * 1e9);
	fprintf(out, "{\"start\":%llu,\"pid\":%d,\"threads\":%d,\"fast\":%s,\"levels\":[", start,
		(int)getpid(), threads, fast ? "true" : "false");
	for (j = 0; j < nlevels; j++)
		fprintf(out, "%s{\"at\":%llu,\"factor\":%g,\"bytes\":%ld,\"median_ns\":%ld}",
			j ? "," : "",
			j ? start + (unsigned long long)(levels[j].at_s * 1e9) : start,
			levels[j].factor, levels[j].bytes, levels[j].median_ns);
	fprintf(out, "]}\n");
	for (i = 0; i < threads; i++)
		if (pthread_create(&w[i].t, NULL, worker_main, &w[i]))
			return 1;
	while (bin_start < end) {
		next = bin_start + 1000000000ULL;
		if (phase + 1 < nlevels &&
		    start + (unsigned long long)(levels[phase + 1].at_s * 1e9) < next)
			next = start + (unsigned long long)(levels[phase + 1].at_s * 1e9);
		if (next > end)
			next = end;
		sleep_until(next);
		counts_sum(w, threads, &r, &f);
		fprintf(out, "{\"bin\":%llu,\"phase\":%d,\"read\":%llu,\"getppid\":%llu}\n",
			bin_start, phase, r - r0, f - f0);
		r0 = r;
		f0 = f;
		bin_start = mono_ns();
		if (phase + 1 < nlevels &&
		    bin_start >= start + (unsigned long long)(levels[phase + 1].at_s * 1e9))
			phase++;
	}
	stop = 1;
	for (i = 0; i < threads; i++)
		pthread_join(w[i].t, NULL);
	counts_sum(w, threads, &r, &f);
	all = malloc((size_t)threads * TIMED_MAX * sizeof(long));
	if (!all)
		return 1;
	fprintf(out, "{\"end\":%llu,\"read\":%llu,\"getppid\":%llu,\"run_median_ns\":[", mono_ns(),
		r, f);
	for (j = 0; j < nlevels; j++) {
		unsigned int n = 0, k;

		for (i = 0; i < threads; i++)
			for (k = 0; k < w[i].ntimed[j]; k++)
				all[n++] = w[i].timed[j][k];
		fprintf(out, "%s%ld", j ? "," : "", median(all, n));
	}
	fprintf(out, "]}\n");
	fclose(out);
	return 0;
}
