// SPDX-License-Identifier: GPL-2.0-only
/*
 * A false_alarm rule's threshold (engine.h): the tail fitted from where it is
 * one tail, stalls apart from it left out, and the window's own calls where
 * they say more than the fit.
 */
#include <math.h>

#include "engine.h"
#include "tail_fit.h"

__u64 engine_censor_ns(const struct engine_syscall *s)
{
	return s->censored > 0 ? (__u64)exp(s->censored_log_ns / s->censored) : 0;
}

void engine_rate_censor(struct engine_syscall *s, const struct policy_rule *r, __u64 unlearnt,
			double decay)
{
	__u64 far;
	double n;

	s->censored *= decay;
	s->censored_log_ns *= decay;
	if (s->censored < 1e-6)
		s->censored = s->censored_log_ns = 0;
	if (!r || !s->fed || !unlearnt || s->armed_steps < ENGINE_CENSOR_STEPS)
		return;
	far = engine_far_ns(engine_over_margin(s->threshold_ns, r));
	if (unlearnt >= far)
		return;
	n = engine_interval_exceedance(s, 1, unlearnt) - engine_interval_exceedance(s, 1, far);
	if (n > 0) {
		s->censored += n;
		s->censored_log_ns += n * log((double)unlearnt);
	}
}

/*
 * The shares of s's calls a population apart may hold and be stalls under r
 * (ENGINE_APART_RATES), near its body and from s->stall_ns up: per call,
 * not per window. No population held (held_ns 0).
 */
static struct tail_apart apart_rule(const struct engine_syscall *s, const struct policy_rule *r)
{
	return (struct tail_apart){
		.most = ENGINE_APART_NEAR_RATES * r->false_alarm,
		.far_most = engine_stall_share(r),
		.far_ns = s->stall_ns,
	};
}

__u64 engine_far_from_body_ns(const double *window, double samples, __u64 held_ns)
{
	__u32 b = sclat_hist_bucket(held_ns);
	__u64 q;

	if (samples < ENGINE_BODY_SAMPLES)
		return 0;
	q = engine_quantile_upper(window, samples, ENGINE_TAIL_Q);
	/* Not past the population held apart: at most its first bucket. */
	if (held_ns && q > sclat_hist_upper(b))
		q = sclat_hist_upper(b);
	q = (__u64)(ENGINE_STALL_FAR * (double)q);
	return q > ENGINE_STALL_MIN_NS ? q : ENGINE_STALL_MIN_NS;
}

__u64 engine_rate_unlearnt(const struct engine_syscall *s, const struct policy_rule *r, __u64 t)
{
	struct tail_apart a = apart_rule(s, r);
	double calls = s->scale * s->prior_calls;

	if (engine_chance_exceeded(s->prior_far, tail_apart_most(&a, engine_far_ns(t)) * calls))
		return 0;
	if (engine_chance_exceeded(s->prior_crossed, tail_apart_most(&a, t) * calls))
		return engine_far_ns(t);
	return t;
}

/* The censored calls s's last fit took in (s->censor_on), else 0. */
static double fit_censored(const struct engine_syscall *s)
{
	return s->censor_on ? s->censored : 0;
}

/*
 * The rate's tail, fitted above ENGINE_TAIL_Q. A fit heavier than
 * ENGINE_SHAPE_TWO_TAILS describes no one tail: a fast call's steep body,
 * then interrupts 20x slower. Then the tail is fitted again from 100, then
 * 10 times the rate from the top, among the latencies the threshold lies
 * in, while the window holds 2 x TAIL_FIT_MIN_ABOVE calls there; the first
 * fit no heavier is kept, else the last made. 0, or -EAGAIN: no fit.
 */
int engine_rate_fit(struct engine_syscall *s, const struct policy_rule *r)
{
	static const double rates[] = { ENGINE_TAIL_RATES, ENGINE_TAIL_RATES / 10 };
	__u64 held_ns = s->fit.apart_ns;
	struct tail_apart apart;
	double share, censored, apart_share;
	__u64 censor_ns = engine_censor_ns(s);
	struct tail_fit high;
	unsigned int i;
	int err;

	s->stall_ns = engine_far_from_body_ns(s->window, s->samples, held_ns);
	apart = apart_rule(s, r);
	apart.held_ns = held_ns;
	/*
	 * A quiet entry's calls past the threshold are in its fit (censored):
	 * its window holds too few calls past the rate to say where it is, and
	 * a fit of the calls under the threshold alone takes a tail that runs
	 * on past it for lighter than it is. A busy entry's window says, and
	 * stalls just past its threshold stay out of it.
	 */
	s->censor_on =
		s->censored > 0 && r->false_alarm * s->scale * s->samples < ENGINE_SEEN_CALLS;
	censored = fit_censored(s);

	/* What was left out the interval before stays out while it is nearly apart. */
	err = tail_fit_censored(s->window, s->samples, ENGINE_TAIL_Q, &apart, censored, censor_ns,
				&s->fit);
	apart_share = s->fit.apart_share;
	for (i = 0; i < sizeof(rates) / sizeof(rates[0]); i++) {
		share = rates[i] * r->false_alarm;
		if (!err && s->fit.shape <= ENGINE_SHAPE_TWO_TAILS)
			break;
		/*
		 * Not from inside the population apart: a tail started among
		 * stalls is theirs (at 1e-5, 10 times the rate from the top is
		 * within stalls one call in 5000).
		 */
		if (share >= 1 - ENGINE_TAIL_Q ||
		    (share - apart_share) * s->samples < 2 * TAIL_FIT_MIN_ABOVE)
			continue;
		if (!tail_fit_censored(s->window, s->samples, 1 - share, &apart, censored,
				       censor_ns, &high)) {
			s->fit = high;
			err = 0;
		}
	}
	return err;
}

/*
 * The latency that at most a share p of the window's calls exceed, its
 * population apart (s->fit.apart_ns) left out, its censored calls past the
 * thresholds they crossed: the upper edge of a bucket. The slowest call not
 * apart when p of the window is not one call. *past: the censored calls
 * alone are more than p, and where past the threshold they lie, the window
 * cannot say: the latency is a least.
 */
static __u64 window_rate_ns(const struct engine_syscall *s, double p, bool *past)
{
	double censored = fit_censored(s), above = 0, most = p * (s->samples + censored);
	int b, censor = censored > 0 ? (int)sclat_hist_bucket(engine_censor_ns(s)) : -1;

	*past = false;
	for (b = SCLAT_HIST_BUCKETS - 1; b >= 0; b--) {
		if (s->fit.apart_ns && sclat_hist_lower(b) >= s->fit.apart_ns)
			continue;
		if (b == censor) {
			above += censored;
			*past = above > most;
		}
		above += s->window[b];
		if (above > most && (s->window[b] > 0 || b == censor))
			return sclat_hist_upper(b);
	}
	return 0;
}

/*
 * The window's share of calls above x, its censored calls counted past the
 * threshold, its population apart (stalls: s->fit.apart_ns) not: a threshold
 * among a disk's reads, 1e-5 of the calls past it, is not where the rate is.
 */
static double window_exceedance(const struct engine_syscall *s, __u64 x)
{
	double censored = fit_censored(s), total = s->samples + censored, above;
	__u64 apart = s->fit.apart_ns;

	if (!(total > 0))
		return 0;
	above = engine_exceedance(s->window, s->samples, x) * s->samples;
	if (apart)
		above -= engine_exceedance(s->window, s->samples, apart > x ? apart : x) *
			 s->samples;
	if (censored > 0 && engine_censor_ns(s) >= x)
		above += censored;
	return above / total;
}

__u64 engine_rate_estimate(struct engine_syscall *s, const struct policy_rule *r, __u64 old,
			   double *q, bool *hold)
{
	double p = r->false_alarm * s->scale;
	bool seen_enough = p * s->samples >= ENGINE_SEEN_CALLS, past = false, contradicted = false;
	__u64 est, seen = 0;

	*q = 1 - p;
	/*
	 * Too few calls for a fit (a quiet syscall): the slowest call of its
	 * window; past the threshold, the slowest a censored call may be.
	 */
	if (!s->fit.ok) {
		s->exceedance = 1;
		*hold = false;
		seen = window_rate_ns(s, p, &past);
		if (past)
			return engine_far_ns(engine_censor_ns(s));
		return seen ? seen : tail_fit_latency(&s->fit, p);
	}
	est = tail_fit_latency(&s->fit, p);
	/*
	 * Where the window holds ENGINE_SEEN_CALLS calls past the rate, its own
	 * calls say where the rate is (its population apart left out): a fit of
	 * a steep body misses the calls interrupts slow 50x, 1 in 2000, by
	 * orders of magnitude. The fit reaches past the window for the others;
	 * one still heavier than ENGINE_SHAPE_TWO_TAILS from every start
	 * describes no tail, and the window bounds it. Nor where the window
	 * holds more calls past the fit's point than it lets through, by three
	 * Poisson deviations: a 75 ns getppid's calls that the host slows to
	 * 20 us, 3.6 in 100,000, weigh nothing in a fit of its 10,000 slowest
	 * calls from 112 ns, which put the 1e-5 point under 2 us.
	 */
	if (!seen_enough && s->fit.shape <= ENGINE_SHAPE_TWO_TAILS)
		contradicted = engine_chance_exceeded(window_exceedance(s, est) * s->samples,
						      p * s->samples);
	if (seen_enough || contradicted || s->fit.shape > ENGINE_SHAPE_TWO_TAILS)
		seen = window_rate_ns(s, p, &past);
	/* Past the threshold, the window says at least; the fit, where. */
	if (seen && past)
		est = seen > est ? seen : est;
	else if (seen && (seen_enough || contradicted || seen < est))
		est = seen;
	/* At the threshold in force, the same: the window, where it says more than the fit. */
	s->exceedance = window_exceedance(s, old);
	if (!seen_enough && !engine_chance_exceeded(s->exceedance * s->samples, p * s->samples))
		s->exceedance = tail_fit_exceedance(&s->fit, engine_over_margin(old, r));
	*hold = s->exceedance <= p * ENGINE_RISK_HOLD_BAND &&
		s->exceedance * ENGINE_RISK_HOLD_BAND >= p;
	/*
	 * Not lowered by less than SCLAT_BRAKE_FAR times while calls still
	 * cross it, by less than that, at half the rate or more: the window
	 * does not learn the calls above the threshold, and lost them from the
	 * top, one bucket lower each interval, through a tail spread thinner
	 * than the rate per bucket (1e-3 of the calls from 10 us to 1 ms: down
	 * to the body, 10x the rate). Stalls far past it are not counted, and a
	 * threshold above stalls new under it comes down far (a disk's reads in
	 * (i): 147 us to 49 us; held, 17 % of them were missed).
	 */
	if ((double)est * r->margin < (double)old &&
	    (double)est * r->margin * SCLAT_BRAKE_FAR >= (double)old &&
	    s->recent_calls * p >= ENGINE_SEEN_CALLS &&
	    s->recent_crossed * ENGINE_RISK_HOLD_BAND >= s->recent_calls * p)
		*hold = true;
	return est;
}
