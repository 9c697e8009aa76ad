/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * How surprising and how costly an outlier is, judged by the basis of the
 * threshold it crossed (basis.h): the probability that a normal call of its
 * syscall (or class) is at least that slow, from the fitted tail when the
 * threshold came from one (tail_fit.h), from the window's calls otherwise;
 * and its impact, the time it took beyond a normal call (the window's
 * median). Pure arithmetic, on the consumer's thread.
 */
#ifndef SCLAT_SURPRISE_H
#define SCLAT_SURPRISE_H

#include <stdbool.h>
#include "basis.h"

/* The most a score says: a probability below 1e-30 is "at least 30". */
#define SURPRISE_MAX 30.0

struct surprise {
	bool known;	 /* the threshold had a window behind it; when not, only impact_ns */
	double p;	 /* the probability of a normal call being at least that slow */
	double score;	 /* -log10(p): 6 is one call in a million */
	bool at_least;	 /* p is a bound: slower than every call the window held (1 / its
			  * calls), or past what the fit can say (SURPRISE_MAX) */
	bool fitted;	 /* p from the fitted tail, not the window's calls */
	__u64 normal_ns; /* the window's median; 0 when not known */
	__u64 impact_ns; /* latency - normal_ns (the whole latency when no normal is known) */
};

/* Judge an outlier of latency_ns ns by the basis b of the threshold it crossed. */
void surprise_judge(const struct threshold_basis *b, __u64 latency_ns, struct surprise *out);

/*
 * The same for a call whose threshold judged judged_ns of its latency_ns
 * (the judge policy key): how surprising from what was judged, the impact
 * from the whole latency, which is what the caller waited.
 */
void surprise_judge_call(const struct threshold_basis *b, __u64 judged_ns, __u64 latency_ns,
			 struct surprise *out);

#endif
