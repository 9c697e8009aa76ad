// SPDX-License-Identifier: GPL-2.0-only
/*
 * The calls still in flight: the run's table of them (controller/inflight.c),
 * scanned from the drain thread once per controller interval and at stop,
 * each call due for a report explained like an outlier and sent out. The
 * drain asks it whether an outlier's call was reported in flight; the
 * control socket lists it in `sclat status`.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "run_state.h"
#include "controller/inflight.h"
#include "util/log.h"

int inflight_reports_open(struct run *r)
{
	r->inflight = inflight_new();
	return r->inflight ? 0 : -ENOMEM;
}

void inflight_reports_close(struct run *r)
{
	inflight_free(r->inflight);
	r->inflight = NULL;
}

/* A call still in flight, due for a report: explained like an outlier, then to the sinks. */
static void on_inflight(void *ctx, const struct sclat_inflight *rec, __u32 reports, bool final)
{
	struct run *r = ctx;

	if (!fanout_takes_inflight(r) || r->out_err)
		return;
	explain_outlier(r->explain, &rec->e, rec->size - offsetof(struct sclat_inflight, e),
			&r->ix);
	/* No user stack for a call in flight: the iterator copies none. */
	r->ix.ustack_capture = NULL;
	fanout_inflight(r, rec, reports, final, &r->ix);
	if (final)
		r->inflight_at_stop++;
}

/* Scan the calls in flight; one line on stderr the first time a scan fails. */
void inflight_reports_scan(struct run *r, bool final)
{
	int err = inflight_scan(r->inflight, r->probes, final, on_inflight, r);

	if (err < 0 && err != -ENOTSUP && !r->inflight_err) {
		log_warn("scanning the syscalls in flight: %s", strerror(-err));
		r->inflight_err = err;
	}
}
