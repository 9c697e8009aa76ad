/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A minimal unit test harness: one function per behaviour, named checks that
 * print what differed, and a closing "N passed, N failed" line.
 *
 *	static void test_bucket_bounds(void)
 *	{
 *		CHECK_EQ_U64(sclat_hist_lower(16), 16);
 *	}
 *	int main(void) { RUN(test_bucket_bounds); return unit_done(); }
 */
#ifndef SCLAT_UNIT_H
#define SCLAT_UNIT_H

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static int unit_passed, unit_failed;
static bool unit_current_failed;
static const char *unit_current;

#define CHECK(cond, ...)                                                                    \
	({                                                                                  \
		bool __ok = (cond);                                                         \
		if (!__ok) {                                                                \
			unit_current_failed = true;                                         \
			fprintf(stderr, "  %s:%d: %s: ", __FILE__, __LINE__, unit_current); \
			fprintf(stderr, __VA_ARGS__);                                       \
			fputc('\n', stderr);                                                \
		}                                                                           \
		__ok;                                                                       \
	})

#define CHECK_EQ_U64(a, b)                                                              \
	({                                                                              \
		unsigned long long __a = (a), __b = (b);                                \
		CHECK(__a == __b, "%s == %llu, expected %s == %llu", #a, __a, #b, __b); \
	})

#define CHECK_EQ_INT(a, b)                                                    \
	({                                                                    \
		long long __a = (a), __b = (b);                               \
		CHECK(__a == __b, "%s == %lld, expected %lld", #a, __a, __b); \
	})

#define CHECK_STR(a, b)                                                                    \
	({                                                                                 \
		const char *__a = (a), *__b = (b);                                         \
		CHECK(__a &&__b && !strcmp(__a, __b), "%s == \"%s\", expected \"%s\"", #a, \
		      __a ? __a : "(null)", __b ? __b : "(null)");                         \
	})

#define CHECK_NEAR(a, b, rel)                                                                      \
	({                                                                                         \
		double __a = (a), __b = (b);                                                       \
		CHECK(fabs(__a - __b) <= (rel)*fabs(__b), "%s == %g, expected %g within %g%%", #a, \
		      __a, __b, (rel)*100);                                                        \
	})

#define RUN(fn)                                   \
	do {                                      \
		unit_current = #fn;               \
		unit_current_failed = false;      \
		fn();                             \
		if (unit_current_failed) {        \
			unit_failed++;            \
			printf("FAIL %s\n", #fn); \
		} else {                          \
			unit_passed++;            \
			printf("ok   %s\n", #fn); \
		}                                 \
	} while (0)

static inline int unit_done(void)
{
	printf("%d passed, %d failed\n", unit_passed, unit_failed);
	return unit_failed ? 1 : 0;
}

#endif
