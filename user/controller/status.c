// SPDX-License-Identifier: GPL-2.0-only
#include <string.h>
#include "status.h"
#include "engine.h"

void status_row_fill(const struct engine_syscall *s, unsigned int nr, double secs,
		     struct syscall_status *ss)
{
	memset(ss, 0, sizeof(*ss));
	ss->nr = nr;
	ss->calls = s->calls;
	ss->rate = secs > 0 ? s->i_calls / secs : 0;
	ss->threshold_ns = s->threshold_ns;
	ss->learned_ns = s->learned_ns;
	ss->armed = s->armed;
	engine_basis(s, &ss->basis);
	ss->p50_ns = engine_quantile_interp(s->window, s->samples, 0.5);
	ss->p99_ns = engine_quantile_interp(s->window, s->samples, 0.99);
	ss->p999_ns = engine_quantile_interp(s->window, s->samples, 0.999);
	ss->outliers = s->outliers;
	ss->throttled = s->throttled;
	ss->drops = s->drops;
	ss->braked = s->braked;
	ss->interval_braked = s->i_braked;
}
