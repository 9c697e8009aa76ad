// SPDX-License-Identifier: GPL-2.0-only
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "engine.h"

__u64 engine_initial(const struct policy_rule *r)
{
	return r->mode == POLICY_OFF ? SCLAT_THRESHOLD_NEVER : r->initial_ns;
}

/* An entry at its rule's starting point: nothing learnt. */
static void entry_reset(struct engine_syscall *s, const struct policy_rule *r)
{
	memset(s, 0, sizeof(*s));
	s->scale = 1.0;
	s->threshold_ns = r ? engine_initial(r) : SCLAT_THRESHOLD_NEVER;
	s->old_threshold_ns = s->learned_ns = s->prev_in_force_ns = s->threshold_ns;
	if (r)
		s->rule = *r;
}

struct engine *engine_new(const struct policy *p, unsigned int nr_cells)
{
	struct engine *e = calloc(1, sizeof(*e));
	unsigned int i;

	if (!e)
		return NULL;
	for (i = 0; i < ENGINE_ENTRIES; i++)
		entry_reset(&e->sc[i], i < SCLAT_MAX_SYSCALLS ? &p->rules[i] : NULL);
	e->nr_cells = nr_cells;
	if (nr_cells) {
		e->cell = calloc(nr_cells, sizeof(*e->cell));
		e->cell_nr = malloc(nr_cells * sizeof(*e->cell_nr));
		if (!e->cell || !e->cell_nr) {
			engine_free(e);
			return NULL;
		}
		for (i = 0; i < nr_cells; i++)
			engine_cell_close(e, i);
	}
	engine_min_latency_apply(e, p);
	return e;
}

void engine_free(struct engine *e)
{
	if (!e)
		return;
	free(e->cell);
	free(e->cell_nr);
	free(e);
}

void engine_cell_open(struct engine *e, unsigned int cell, unsigned int nr,
		      const struct sclat_hist *raw)
{
	struct engine_syscall *c;

	if (cell >= e->nr_cells || nr >= SCLAT_MAX_SYSCALLS)
		return;
	c = &e->cell[cell];
	entry_reset(c, &e->sc[nr].rule);
	/* A base like any reading: a count behind it (pending calls moved since) adds nothing. */
	c->prev = *raw;
	c->prev_read = true;
	c->threshold_ns = c->old_threshold_ns = engine_young_ns(e, nr);
	c->learned_ns = e->sc[nr].learned_ns;
	c->prev_in_force_ns = c->threshold_ns;
	c->fallback = true;
	e->cell_nr[cell] = nr;
}

__u64 engine_young_ns(const struct engine *e, unsigned int nr)
{
	const struct engine_syscall *s = &e->sc[nr % SCLAT_MAX_SYSCALLS];
	bool raise = s->rule.mode == POLICY_ADAPTIVE && s->rule.initial_ns > s->threshold_ns;

	return raise ? s->rule.initial_ns : s->threshold_ns;
}

void engine_cell_close(struct engine *e, unsigned int cell)
{
	if (cell >= e->nr_cells)
		return;
	entry_reset(&e->cell[cell], NULL);
	e->cell_nr[cell] = ENGINE_CELL_FREE;
}

void engine_hist_sum(struct sclat_hist *out, const struct sclat_hist *percpu, int ncpus)
{
	unsigned int b;
	int cpu;

	memset(out, 0, sizeof(*out));
	for (cpu = 0; cpu < ncpus; cpu++) {
		const struct sclat_hist *h = &percpu[cpu];

		/* Sums modulo 2^32 keep deltas exact: (sum of deltas) mod 2^32. */
		for (b = 0; b < SCLAT_HIST_BUCKETS; b++)
			out->bucket[b] += h->bucket[b];
		out->outliers += h->outliers;
		out->drops += h->drops;
		out->throttled += h->throttled;
		out->calls += h->calls;
		out->braked += h->braked;
		out->io += h->io;
	}
}

void engine_baseline(struct engine *e, unsigned int nr, const struct sclat_hist *raw)
{
	if (nr < ENGINE_ENTRIES) {
		e->sc[nr].prev = *raw;
		e->sc[nr].prev_read = true;
	}
}

/* raw - prev bucket by bucket: kernel counts are u32 and wrap, so this is the delta mod 2^32. */
static void delta_take(struct engine_syscall *s, const struct sclat_hist *raw, struct sclat_hist *d)
{
	unsigned int b;

	for (b = 0; b < SCLAT_HIST_BUCKETS; b++) {
		d->bucket[b] = raw->bucket[b] - s->prev.bucket[b];
		/*
		 * A count read behind an earlier one (calls still pending on a
		 * CPU when it moved them, see probes_hists_read) adds nothing,
		 * and the earlier one stays the base: they are counted once the
		 * count catches up. Real deltas stay far below 2^31 per interval.
		 */
		if (s->prev_read && d->bucket[b] >= 1U << 31)
			d->bucket[b] = 0;
		else
			s->prev.bucket[b] = raw->bucket[b];
	}
	/*
	 * The lanes' calls only grow, and are read whole: never behind. One
	 * count for all of a slot's calls may pass 2^31 in an interval.
	 */
	d->calls = raw->calls - s->prev.calls;
	s->prev.calls = raw->calls;
	d->outliers = raw->outliers - s->prev.outliers;
	d->drops = raw->drops - s->prev.drops;
	d->throttled = raw->throttled - s->prev.throttled;
	d->braked = raw->braked - s->prev.braked;
	s->prev.braked = raw->braked;
	d->io = raw->io - s->prev.io;
	s->prev.io = raw->io;
	s->prev.outliers = raw->outliers;
	s->prev.drops = raw->drops;
	s->prev.throttled = raw->throttled;
	s->prev_read = true;
}

/*
 * Count a delta in s, as calls calls: its interval (from its first feed of
 * the interval on) and its totals.
 */
static void delta_add(struct engine_syscall *s, const struct sclat_hist *d, __u64 calls)
{
	unsigned int b;

	if (!s->fed) {
		memset(&s->delta, 0, sizeof(s->delta));
		s->i_calls = s->i_outliers = s->i_drops = s->i_throttled = 0;
		s->i_cells_emitted = s->i_braked = s->i_io = 0;
		s->fed = true;
	}
	for (b = 0; b < SCLAT_HIST_BUCKETS; b++)
		s->delta.bucket[b] += d->bucket[b];
	s->delta.outliers += d->outliers;
	s->delta.drops += d->drops;
	s->delta.throttled += d->throttled;
	s->delta.io += d->io;
	s->i_io += d->io;
	s->i_calls += calls;
	s->i_outliers += d->outliers;
	s->i_drops += d->drops;
	s->i_throttled += d->throttled;
	s->i_braked += d->braked;
	s->braked += d->braked;
	s->calls += calls;
	s->outliers += d->outliers;
	s->drops += d->drops;
	s->throttled += d->throttled;
}

void engine_feed(struct engine *e, unsigned int nr, const struct sclat_hist *raw)
{
	struct sclat_hist d;

	if (nr >= ENGINE_ENTRIES)
		return;
	delta_take(&e->sc[nr], raw, &d);
	delta_add(&e->sc[nr], &d, d.calls);
}

void engine_feed_cell(struct engine *e, unsigned int cell, const struct sclat_hist *raw)
{
	struct engine_syscall *owner;
	struct sclat_hist d;
	__u64 calls = 0;
	unsigned int b;

	if (cell >= e->nr_cells || e->cell_nr[cell] == ENGINE_CELL_FREE)
		return;
	owner = &e->sc[e->cell_nr[cell]];
	delta_take(&e->cell[cell], raw, &d);
	/* A cell's calls are its buckets' sum: an estimate where calls are sampled. */
	for (b = 0; b < SCLAT_HIST_BUCKETS; b++)
		calls += d.bucket[b];
	delta_add(&e->cell[cell], &d, calls);
	/*
	 * The syscall's entry describes all of its calls, its cells' too; its
	 * calls are counted already (its lanes' calls count its cells').
	 */
	delta_add(owner, &d, 0);
	owner->i_cells_emitted += (__u64)d.outliers + d.drops + d.throttled + d.braked;
}

/* The quantile where the rule's threshold is learnt: a rate's, where its tail starts. */
static double rule_quantile(const struct policy_rule *r)
{
	return engine_rule_rate(r) ? ENGINE_TAIL_Q : r->quantile;
}

__u64 engine_body_ns(const struct engine_syscall *s, const struct policy_rule *r)
{
	double q = 0.99;

	if (r && r->mode == POLICY_ADAPTIVE)
		q = fmin(0.99, fmax(0.5, 1 - ENGINE_BODY_TAIL * (1 - rule_quantile(r))));
	if (s->samples < ENGINE_BODY_SAMPLES)
		return 0;
	return engine_quantile_interp(s->window, s->samples, q);
}

void engine_basis(const struct engine_syscall *s, struct threshold_basis *b)
{
	memset(b, 0, sizeof(*b));
	b->estimate_ns = s->estimate_ns;
	b->quantile = s->quantile;
	b->samples = (__u64)(s->samples + 0.5);
	engine_window_basis(s, &b->w);
}

/*
 * Where s's calls are judged for shifts and drifts: at its threshold (over its
 * margin); for a rate, at its tail's start, where the window's share is about
 * 1 % and an interval shows a change (0: no fit yet, not judged).
 */
static __u64 judge_ns(const struct engine_syscall *s, const struct policy_rule *r)
{
	if (engine_rule_rate(r))
		return s->fit.ok ? s->fit.start_ns : 0;
	return engine_over_margin(s->threshold_ns, r);
}

/* Whether s is judged against its threshold this step: adaptive, armed, fed. */
static bool judged(const struct engine_syscall *s, const struct policy_rule *r)
{
	return r && s->fed && s->armed && r->mode == POLICY_ADAPTIVE && r->margin > 0 &&
	       judge_ns(s, r);
}

/*
 * s->i_above: the calls fed this interval above where they are judged (the
 * threshold in force over its margin, or the tail's start), once a step for
 * what judges them (drift, shift); 0 when not judged.
 */
static void interval_above(struct engine_syscall *s, const struct policy_rule *r)
{
	s->i_above = 0;
	if (!judged(s, r) || !s->i_calls)
		return;
	s->i_above = engine_interval_exceedance(s, 1, judge_ns(s, r));
}

/*
 * A shift: the last interval alone puts far more than the target share above
 * the current threshold, on enough calls that chance can't; or far less, in
 * ENGINE_SHIFT_DOWN_INTERVALS intervals in a row (s->shift_down counts
 * those before): a dip of an interval or two is what a stall leaves
 * (PostgreSQL's reads of its clients' queries, fewer of them slow while the
 * server waited on its disk; its lseeks, fewer of them slowed by the host),
 * and forgetting the window for it put recvfrom's threshold from 350 us at
 * 45 us, lseek's from 139 us at 4.6 us, under their normals.
 */
static int shift_seen(const struct engine_syscall *s, const struct policy_rule *r)
{
	double target, share;

	if (!judged(s, r))
		return 0;
	target = engine_rule_rate(r) ? s->fit.share : (1 - r->quantile) * s->scale;
	/* A braked interval had far more than its share: evidence enough, however few expected. */
	if ((double)s->i_calls < (double)r->min_samples ||
	    (!s->i_braked && (double)s->i_calls * target < ENGINE_SHIFT_EVENTS))
		return 0;
	share = s->i_above / (double)s->i_calls;
	return share > target * ENGINE_SHIFT_FACTOR   ? 1
	       : share * ENGINE_SHIFT_FACTOR < target ? -1
						      : 0;
}

/* Whether what shift_seen() saw this interval (seen) is a shift, given the dips before. */
static bool shift_of(const struct engine_syscall *s, int seen)
{
	return seen > 0 || (seen < 0 && s->shift_down + 1 >= ENGINE_SHIFT_DOWN_INTERVALS);
}

static bool shift_detected(const struct engine_syscall *s, const struct policy_rule *r)
{
	return shift_of(s, shift_seen(s, r));
}

static bool rule_same(const struct policy_rule *a, const struct policy_rule *b);

/*
 * Whether s drifts (ENGINE_DRIFT_FACTOR): the calls above its threshold
 * (over its margin) lately, against what the share of its window above that
 * threshold, interval by interval, gave them: the threshold was estimated
 * from the window (not from the target: a histogram's buckets put the two
 * apart for calls that crowd one bucket). Judged only between the floor and
 * the ceiling, where the threshold is the estimate's.
 */
static void drift_update(struct engine_syscall *s, const struct policy *p,
			 const struct policy_rule *r, __u64 elapsed_ns)
{
	double keep, expected, above, off;

	s->drifting = false;
	if (!r || r->mode != POLICY_ADAPTIVE || !s->armed || r->margin <= 0 || !p->half_life_ns) {
		s->recent_above = s->recent_expected = 0;
		return;
	}
	/* After a shift, or a rule changed, the evidence is of what is gone. */
	keep = s->shifted || !rule_same(&s->rule, r)
		       ? 0
		       : exp2(-(double)elapsed_ns / (double)p->half_life_ns);
	s->recent_above *= keep;
	s->recent_expected *= keep;
	if (s->threshold_ns <= r->floor_ns || (r->ceiling_ns && s->threshold_ns >= r->ceiling_ns))
		return;
	if (s->fed && s->i_calls && s->samples > 0 && judge_ns(s, r)) {
		s->recent_above += s->i_above;
		s->recent_expected += (double)s->i_calls *
				      engine_exceedance(s->window, s->samples, judge_ns(s, r));
	}
	expected = s->recent_expected;
	above = s->recent_above;
	off = ENGINE_DRIFT_SIGMAS * sqrt(expected) + 2;
	s->drifting = (above > expected * ENGINE_DRIFT_FACTOR && above - expected > off) ||
		      (above * ENGINE_DRIFT_FACTOR < expected && expected - above > off);
}

/*
 * Under a rate: the calls that crossed the threshold in force lately by less
 * than SCLAT_BRAKE_FAR times (the normal tail, to the brake; not stalls), and
 * all calls, counted before the window folds in this interval's, learnt or not.
 */
static void crossed_update(struct engine_syscall *s, const struct policy *p,
			   const struct policy_rule *r, __u64 elapsed_ns)
{
	double keep, far;
	__u64 t;

	if (!r || !engine_rule_rate(r) || r->mode != POLICY_ADAPTIVE || !s->armed ||
	    r->margin <= 0 || !p->half_life_ns || shift_detected(s, r) || !rule_same(&s->rule, r)) {
		s->recent_crossed = s->recent_calls = s->recent_far = 0;
		s->prior_crossed = s->prior_calls = s->prior_far = 0;
		return;
	}
	keep = exp2(-(double)elapsed_ns / (double)p->half_life_ns);
	s->prior_crossed = s->recent_crossed *= keep;
	s->prior_far = s->recent_far *= keep;
	s->prior_calls = s->recent_calls *= keep;
	if (!s->fed || !s->i_calls)
		return;
	t = engine_over_margin(s->threshold_ns, r);
	far = engine_interval_exceedance(s, 1, engine_far_ns(t));
	s->recent_crossed += engine_interval_exceedance(s, 1, t) - far;
	s->recent_far += far;
	s->recent_calls += (double)s->i_calls;
}

/*
 * How much of the window an interval of elapsed_ns keeps: 2^(-elapsed / h),
 * h the policy's half-life; shorter when the entry's calls of this interval
 * would fill the window with more than ENGINE_TAIL_EVENTS calls above its
 * quantile, longer (up to ENGINE_HALF_LIFE_STRETCH times) when they would
 * not give it ENGINE_TAIL_EVENTS_MIN (a window of n calls an interval holds
 * about n * h / (elapsed * ln 2)).
 */
static double window_decay(const struct engine_syscall *s, const struct policy *p,
			   const struct policy_rule *r, __u64 elapsed_ns)
{
	double half_life = (double)p->half_life_ns, tail, per_event, events;

	if (!p->half_life_ns)
		return 0;
	if (r && r->mode == POLICY_ADAPTIVE && s->fed && elapsed_ns) {
		/* A rate's threshold is learnt from its tail, the budget aside. */
		tail = (double)s->i_calls *
		       (engine_rule_rate(r) ? 1 - ENGINE_TAIL_Q : (1 - r->quantile) * s->scale);
		events = engine_rule_rate(r) ? ENGINE_TAIL_FIT_EVENTS : ENGINE_TAIL_EVENTS;
		/* The half-life that holds one call above the quantile. */
		per_event = tail > 0 ? M_LN2 * (double)elapsed_ns / tail : INFINITY;
		if (s->drifting)
			half_life = fmin(half_life, fmax(ENGINE_TAIL_EVENTS_MIN * per_event,
							 (double)elapsed_ns));
		else if (events * per_event < half_life)
			half_life = fmax(events * per_event, (double)elapsed_ns);
		else if (ENGINE_TAIL_EVENTS_MIN * per_event > half_life)
			half_life = fmin(ENGINE_TAIL_EVENTS_MIN * per_event,
					 ENGINE_HALF_LIFE_STRETCH * half_life);
	}
	return exp2(-(double)elapsed_ns / half_life);
}

/*
 * The latency above which this interval's calls are not learnt, or 0: all are.
 * A rate's alarms are not learnt (SPOT): calls above the threshold in force
 * (the initial one too) are what it is there to find, and a stall that comes
 * back every few seconds would otherwise become the normal it is judged
 * against. Alarms are rare: when more than the tail's share (1 %) of the
 * interval's calls are above, they are the body, and all are learnt (a
 * syscall whose calls all take longer than its initial threshold, a shift).
 * Nor are the calls just past it (by less than SCLAT_BRAKE_FAR times) alarms
 * when, over the half-life, they crossed it more often than a population
 * apart may hold there (engine_rate_unlearnt, by three Poisson deviations):
 * they are a mode of the normal (tail_fit.h), and are learnt. A
 * quiet socket's reads that wait 3 to 5 ms otherwise held their threshold at
 * the slowest one learnt, 2.9 ms, and crossed it at 7x the rate. Nor, by the
 * same count, are the calls far past it: PostgreSQL's lseeks (300 ns) that
 * the VM slows to 4-30 us, 7 in 10,000, were never learnt under a threshold
 * at the 2 us floor and crossed it at 7x the rate (scripts/pg-eval).
 */
static __u64 unlearnt_above(const struct engine_syscall *s, const struct policy_rule *r)
{
	__u64 t;

	/* Braked: far more than the rate crossed it, the normal has moved (the brake held them). */
	if (!engine_rule_rate(r) || s->shifted || !s->fed || !s->i_calls || s->i_braked)
		return 0;
	t = engine_over_margin(s->threshold_ns, r);
	if (engine_interval_exceedance(s, (double)s->i_calls, t) > 1 - ENGINE_TAIL_Q)
		return 0;
	return engine_rate_unlearnt(s, r, t);
}

/* The share of bucket b's calls that are at most t (all when t is 0). */
static double learnt_share(__u64 t, unsigned int b)
{
	__u64 lo = sclat_hist_lower(b), width = sclat_hist_width(b);

	if (!t || t >= lo + width)
		return 1;
	if (t <= lo)
		return 0;
	return (double)(t - lo) / (double)width;
}

static void window_fold(struct engine_syscall *s, const struct policy_rule *r, double decay)
{
	unsigned int b;
	int seen;
	__u64 unlearnt;
	double w;

	/* After a shift the old statistics describe a distribution that is gone. */
	seen = shift_seen(s, r);
	s->shifted = shift_of(s, seen);
	s->shift_up = seen > 0;
	s->shift_down = seen < 0 && !s->shifted ? s->shift_down + 1 : 0;
	if (s->shifted)
		decay = 0;
	/*
	 * An empty window with nothing fed stays empty: most of the 513 entries
	 * (a syscall the machine never makes), whose folds were most of the
	 * controller's user time.
	 */
	if (!s->fed && s->samples == 0)
		goto interval_end;
	unlearnt = unlearnt_above(s, r);
	engine_rate_censor(s, r, unlearnt, decay);
	s->samples = 0;
	for (b = 0; b < (int)SCLAT_HIST_BUCKETS; b++) {
		w = s->window[b] * decay;
		if (s->fed)
			w += s->delta.bucket[b] * learnt_share(unlearnt, b);
		/* A millionth of a call is no information; keep denormals out. */
		if (w < 1e-6)
			w = 0;
		s->window[b] = w;
		s->samples += w;
	}
interval_end:
	if (!s->fed) {
		s->i_calls = s->i_outliers = s->i_drops = s->i_throttled = 0;
		s->i_cells_emitted = s->i_braked = s->i_io = 0;
	}
	s->fed = false;
}

static __u64 rule_clamp(const struct policy_rule *r, double v)
{
	__u64 t;

	if (v >= 1.8e19)
		t = SCLAT_THRESHOLD_NEVER - 1;
	else
		t = (__u64)llround(v);
	if (r->ceiling_ns && t > r->ceiling_ns)
		t = r->ceiling_ns;
	if (t < r->floor_ns)
		t = r->floor_ns;
	return t;
}

/*
 * Close enough to stay: the share above the old threshold is near the target,
 * within ENGINE_HOLD_BAND widened by three standard deviations of the count
 * behind it (a thin window can't tell 1.3x from chance).
 */
static bool hold_ok(const struct engine_syscall *s, double q)
{
	double target = 1 - q, band;

	if (target <= 0)
		return false;
	band = ENGINE_HOLD_BAND + 3 / sqrt(fmax(s->samples * target, 1));
	return s->exceedance <= target * band && s->exceedance * band >= target;
}

/* The same threshold rule (classes aside: they choose cells, not thresholds). */
static bool rule_same(const struct policy_rule *a, const struct policy_rule *b)
{
	return a->mode == b->mode && a->quantile == b->quantile &&
	       a->false_alarm == b->false_alarm && a->margin == b->margin &&
	       a->floor_ns == b->floor_ns && a->ceiling_ns == b->ceiling_ns &&
	       a->initial_ns == b->initial_ns && a->min_samples == b->min_samples;
}

/* The upper edge of the slowest bucket with calls: no call of the window was slower. */
static __u64 window_max_ns(const struct engine_syscall *s)
{
	int b;

	for (b = SCLAT_HIST_BUCKETS - 1; b >= 0; b--)
		if (s->window[b] > 0)
			return sclat_hist_upper(b);
	return 0;
}

/*
 * A quantile rule's estimate: the quantile of the window (narrowed by the
 * budget), and whether the old threshold may stay.
 */
static __u64 quantile_estimate(struct engine_syscall *s, const struct policy_rule *r, __u64 old,
			       double *q, bool *hold)
{
	*q = 1 - (1 - r->quantile) * s->scale;
	s->exceedance = engine_exceedance(s->window, s->samples, engine_over_margin(old, r));
	*hold = hold_ok(s, *q);
	return engine_quantile_interp(s->window, s->samples, *q);
}

/*
 * s's threshold under r, from its window once it has min_samples (a rate's
 * fit or a quantile's estimate, the old one held within its band).
 */
static void threshold_decide(struct engine_syscall *s, const struct policy_rule *r)
{
	__u64 old = s->threshold_ns, want, est, cand;
	/* A rule changed at run time applies at once, hysteresis or not. */
	bool rule_changed = !rule_same(&s->rule, r), hold;
	double q;

	s->old_threshold_ns = old;
	s->rule = *r;
	if (r->mode != POLICY_ADAPTIVE) {
		want = engine_initial(r);
		s->armed = false;
		s->armed_steps = 0;
		s->estimate_ns = 0;
		s->quantile = 0;
		s->scale = 1.0;
	} else if (s->samples > 0 && s->samples >= (double)r->min_samples) {
		if (engine_rule_rate(r)) {
			/* A rate's tail is fitted when it can be; when not (s->fit.ok false),
			 * the estimate is the window's slowest call. */
			engine_rate_fit(s, r);
			est = engine_rate_estimate(s, r, old, &q, &hold);
		} else {
			est = quantile_estimate(s, r, old, &q, &hold);
		}
		cand = rule_clamp(r, r->margin * (double)est);
		/*
		 * Slower calls made the window forget: what the one interval left
		 * shows (a stall's second, a few calls) is no reason to judge lower.
		 */
		if (s->armed && !rule_changed && old == rule_clamp(r, (double)old) &&
		    ((!s->drifting && hold) || (s->shift_up && cand < old))) {
			want = old;
		} else {
			want = cand;
			s->estimate_ns = est;
			s->quantile = q;
			s->fit_basis = s->fit;
		}
		/* Down by steps: a window that forgot says little of how far. */
		if (s->armed && !rule_changed && (double)want * ENGINE_STEP_DOWN < (double)old)
			want = rule_clamp(r, (double)old / ENGINE_STEP_DOWN);
		s->armed = true;
		if (s->armed_steps < ~0U)
			s->armed_steps++;
	} else if (s->armed) {
		/* Too few recent samples to say more: hold what was learnt. */
		want = rule_clamp(r, (double)old);
	} else {
		want = r->initial_ns;
		s->estimate_ns = 0;
		s->quantile = 0;
	}
	s->threshold_ns = want;
	s->changed = want != old;
	engine_io_decide(s, r);
}

void engine_entry_feed(struct engine_syscall *s, const struct sclat_hist *d, __u64 calls)
{
	delta_add(s, d, calls);
}

void engine_entry_fold(struct engine_syscall *s, const struct policy *p,
		       const struct policy_rule *r, __u64 elapsed_ns)
{
	interval_above(s, r);
	drift_update(s, p, r, elapsed_ns);
	crossed_update(s, p, r, elapsed_ns);
	engine_io_update(s, p, r, elapsed_ns);
	window_fold(s, r, window_decay(s, p, r, elapsed_ns));
}

void engine_entry_decide(struct engine_syscall *s, const struct policy_rule *r)
{
	threshold_decide(s, r);
}

__u64 engine_young_bound(const struct policy_rule *r, const struct engine_syscall *s)
{
	return rule_clamp(r, r->margin * (double)window_max_ns(s));
}

/*
 * A cell's threshold: its own once it has min_samples (or had them, and holds
 * what it learnt), its syscall's until then.
 */
static void cell_decide(struct engine *e, unsigned int cell, const struct policy_rule *r)
{
	struct engine_syscall *c = &e->cell[cell];
	const struct engine_syscall *owner = &e->sc[e->cell_nr[cell]];

	if (r->mode == POLICY_ADAPTIVE &&
	    (c->armed || (c->samples > 0 && c->samples >= (double)r->min_samples))) {
		threshold_decide(c, r);
		c->fallback = false;
		return;
	}
	c->old_threshold_ns = c->threshold_ns;
	c->rule = *r;
	c->armed = false;
	c->armed_steps = 0;
	c->fallback = true;
	c->threshold_ns =
		c->samples > 0 ? owner->threshold_ns : engine_young_ns(e, e->cell_nr[cell]);
	c->estimate_ns = owner->estimate_ns;
	c->quantile = owner->quantile;
	/*
	 * A young class is not judged below its own calls, under a rate or a
	 * quantile: a process whose normal read waits 3 ms would otherwise
	 * flood at a syscall-wide threshold of 100 us until it had min_samples.
	 * No call it made yet was slower than its slowest: a bound that only a
	 * record crosses. Before its first reading, the kernel's brake holds it.
	 * Only past a threshold learnt from others' calls: the rule's initial
	 * one is the policy's word.
	 */
	if (r->mode == POLICY_ADAPTIVE && owner->armed && c->samples > 0 &&
	    engine_young_bound(r, c) > c->threshold_ns) {
		c->threshold_ns = engine_young_bound(r, c);
		c->estimate_ns = window_max_ns(c);
	}
	c->changed = c->threshold_ns != c->old_threshold_ns;
}

void engine_step(struct engine *e, const struct policy *p, __u64 elapsed_ns)
{
	double secs = elapsed_ns ? elapsed_ns / 1e9 : 1e-9;
	unsigned int i;

	e->interval_ns = elapsed_ns;
	engine_min_latency_begin(e);
	for (i = 0; i < ENGINE_ENTRIES; i++)
		engine_entry_fold(&e->sc[i], p, i < SCLAT_MAX_SYSCALLS ? &p->rules[i] : NULL,
				  elapsed_ns);
	for (i = 0; i < e->nr_cells; i++)
		if (e->cell_nr[i] != ENGINE_CELL_FREE)
			engine_entry_fold(&e->cell[i], p, &p->rules[e->cell_nr[i]], elapsed_ns);
	engine_budget_apply(e, p, secs);
	for (i = 0; i < SCLAT_MAX_SYSCALLS; i++)
		threshold_decide(&e->sc[i], &p->rules[i]);
	/* After their syscalls: a young cell takes its syscall's new threshold. */
	for (i = 0; i < e->nr_cells; i++) {
		e->cell[i].changed = false;
		if (e->cell_nr[i] != ENGINE_CELL_FREE)
			cell_decide(e, i, &p->rules[e->cell_nr[i]]);
	}
	engine_min_latency_apply(e, p);
}
