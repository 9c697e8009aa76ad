/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef HIST_CHECK_H
#define HIST_CHECK_H

/* In: value, b. Out: bucket of value; lower bound and midpoint of bucket b. */
struct hist_check_args {
	__u64 value;
	__u64 lower;
	__u64 mid;
	__u32 bucket;
	__u32 b;
};

#endif
