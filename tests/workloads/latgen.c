// SPDX-License-Identifier: GPL-2.0-only
/*
 * A latency generator with a known distribution, for the adaptive threshold
 * tests and scripts/adaptive-eval:
 *
 *   latgen [--duration S] [--body BYTES] [--inject-every K] [--inject BYTES]
 *          [--shift-at S] [--shift-body BYTES] [--shift-inject BYTES]
 *          [--second BYTES] [--second-every M] [--report FILE]
 *
 * The body is read(2) of BYTES from /dev/zero (its latency grows with the
 * size); 1 call in K (at random, fixed seed) reads --inject bytes instead,
 * sized to be 10x slower or more. At --shift-at seconds the body and injected
 * sizes switch to the --shift-* ones (a 10x slower body by default). Every
 * M-th iteration also calls pread64(2) of --second bytes: a second syscall
 * with another normal latency. The sizes tell the calls apart in sclat's
 * records (args[2]).
 *
 * FILE (or stdout) gets JSON lines, times on CLOCK_MONOTONIC like sclat's
 * ts_ns: {"start":...} once, {"bin":...} every second with the calls made in
 * it, {"phase":...} when a phase starts, and {"end":...} with the totals.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct phase {
	const char *name;
	long body, inject;
};

struct counts {
	unsigned long long body, injected, second;
};

static unsigned long long mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static unsigned long long rng = 0x2545f4914f6cdd1dULL;

static unsigned long long rand64(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void bin_print(FILE *out, unsigned long long t, int phase, const struct counts *c)
{
	fprintf(out,
		"{\"bin\":%llu,\"phase\":%d,\"body\":%llu,\"injected\":%llu,\"second\":%llu}\n", t,
		phase, c->body, c->injected, c->second);
}

int main(int argc, char **argv)
{
	struct phase phases[2] = {
		{ "stationary", 65536, 16 << 20 },
		{ "shifted", 768 << 10, 64 << 20 },
	};
	double duration = 10, shift_at = 0;
	long every = 5000, second = 1 << 20, second_every = 16, max = 0, i;
	const char *report = NULL;
	unsigned long long start, now, bin_start, shift_ns = 0, end_ns, iter = 0;
	struct counts bin = {}, total = {};
	int fd, phase = 0;
	char *buf;
	FILE *out;

	for (i = 1; i + 1 < argc; i += 2) {
		const char *k = argv[i], *v = argv[i + 1];

		if (!strcmp(k, "--duration"))
			duration = atof(v);
		else if (!strcmp(k, "--body"))
			phases[0].body = atol(v);
		else if (!strcmp(k, "--inject-every"))
			every = atol(v);
		else if (!strcmp(k, "--inject"))
			phases[0].inject = atol(v);
		else if (!strcmp(k, "--shift-at"))
			shift_at = atof(v);
		else if (!strcmp(k, "--shift-body"))
			phases[1].body = atol(v);
		else if (!strcmp(k, "--shift-inject"))
			phases[1].inject = atol(v);
		else if (!strcmp(k, "--second"))
			second = atol(v);
		else if (!strcmp(k, "--second-every"))
			second_every = atol(v);
		else if (!strcmp(k, "--report"))
			report = v;
		else
			break;
	}
	if (i != argc || duration <= 0 || every < 0 || second_every < 0) {
		fprintf(stderr, "usage: latgen [--duration S] [--body BYTES] [--inject-every K] "
				"[--inject BYTES] [--shift-at S] [--shift-body BYTES] "
				"[--shift-inject BYTES] [--second BYTES] [--second-every M] "
				"[--report FILE]\n");
		return 2;
	}
	for (i = 0; i < 2; i++) {
		if (phases[i].body > max)
			max = phases[i].body;
		if (phases[i].inject > max)
			max = phases[i].inject;
	}
	if (second > max)
		max = second;
	fd = open("/dev/zero", O_RDONLY | O_CLOEXEC);
	buf = malloc(max);
	if (fd < 0 || !buf) {
		perror("latgen: /dev/zero");
		return 1;
	}
	/* Fault the buffer in now: page faults would be latency of their own. */
	memset(buf, 1, max);
	out = report ? fopen(report, "w") : stdout;
	if (!out) {
		perror(report);
		return 1;
	}
	/* A line at a time (one a second at most): a test follows the run while it goes. */
	setvbuf(out, NULL, _IOLBF, 0);

	start = bin_start = mono_ns();
	end_ns = start + (unsigned long long)(duration * 1e9);
	if (shift_at > 0)
		shift_ns = start + (unsigned long long)(shift_at * 1e9);
	fprintf(out,
		"{\"start\":%llu,\"body\":%ld,\"inject\":%ld,\"inject_every\":%ld,"
		"\"shift_body\":%ld,\"shift_inject\":%ld,\"shift_at\":%llu,"
		"\"second\":%ld,\"second_every\":%ld}\n",
		start, phases[0].body, phases[0].inject, every, phases[1].body, phases[1].inject,
		shift_ns, second, second_every);
	fprintf(out, "{\"phase\":\"%s\",\"t\":%llu}\n", phases[0].name, start);

	for (;;) {
		if ((iter & 63) == 0) {
			now = mono_ns();
			if (now - bin_start >= 1000000000ULL || now >= end_ns ||
			    (shift_ns && !phase && now >= shift_ns)) {
				bin_print(out, bin_start, phase, &bin);
				memset(&bin, 0, sizeof(bin));
				bin_start = now;
			}
			if (now >= end_ns)
				break;
			if (shift_ns && !phase && now >= shift_ns) {
				phase = 1;
				fprintf(out, "{\"phase\":\"%s\",\"t\":%llu}\n", phases[1].name,
					now);
			}
		}
		iter++;
		if (every && rand64() % every == 0) {
			if (read(fd, buf, phases[phase].inject) < 0)
				return 1;
			bin.injected++;
			total.injected++;
		} else {
			if (read(fd, buf, phases[phase].body) < 0)
				return 1;
			bin.body++;
			total.body++;
		}
		if (second_every && iter % second_every == 0) {
			if (pread(fd, buf, second, 0) < 0)
				return 1;
			bin.second++;
			total.second++;
		}
	}
	fprintf(out, "{\"end\":%llu,\"body\":%llu,\"injected\":%llu,\"second\":%llu}\n", mono_ns(),
		total.body, total.injected, total.second);
	fclose(out);
	return 0;
}
