/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The adaptive threshold engine: pure arithmetic, no BPF, no threads.
 *
 * Each interval the controller feeds it every syscall's raw kernel counts
 * (summed over CPUs); the engine takes the deltas modulo 2^32, folds them
 * into an exponentially decayed window, estimates the target quantile from
 * the log-linear buckets of sclat_abi.h and decides each threshold:
 *
 *	threshold = clamp(margin * q_hat, floor, ceiling)
 *
 * with hysteresis, arming after min_samples, and a global outlier budget that
 * raises the effective quantile of the heaviest emitters when it is exceeded.
 *
 * A syscall whose policy asks for classes also has cells: one per class (a
 * process, a cgroup, a thread name and/or a kind of file) with a histogram and
 * a threshold of its own. A cell's counts are also its syscall's: the
 * syscall's entry describes all of its calls. A cell with fewer samples than
 * min_samples takes the syscall's threshold.
 */
#ifndef SCLAT_ENGINE_H
#define SCLAT_ENGINE_H

#include <math.h>
#include <stdbool.h>
#include "basis.h"
#include "policy/policy.h"
#include "sclat_abi.h"
#include "tail_fit.h"

/* Index of the shared histogram (syscalls without a slot of their own). */
#define ENGINE_SHARED  SCLAT_MAX_SYSCALLS
#define ENGINE_ENTRIES (SCLAT_MAX_SYSCALLS + 1)

/*
 * Hysteresis: a threshold stays while the share of the window above it (over
 * the margin) is within this factor of the target 1 - q, either way (more
 * when few samples are behind it, see hold_ok()). A move lands where the
 * share is on target, so the next one takes a real change in the
 * distribution, not noise or a neighbouring bucket. Measured in shares
 * rather than in nanoseconds because a steep tail turns a one-bucket (6-12 %)
 * error in the threshold into 3x the target's emitted events.
 */
#define ENGINE_HOLD_BAND 1.25

/*
 * Shift detection: when one interval alone has ENGINE_SHIFT_FACTOR times more
 * (or ENGINE_SHIFT_DOWN_INTERVALS in a row as many times fewer) than the
 * target share above the threshold, on calls enough to expect
 * ENGINE_SHIFT_EVENTS outliers, the older statistics are dropped and that
 * interval starts the window again: a 10x shift is learnt in one interval
 * (three, down) instead of several half-lives. (Keeping even a fifth of the
 * old weight would hold the quantile in the old tail after a shift down.)
 */
#define ENGINE_SHIFT_FACTOR	    4.0
#define ENGINE_SHIFT_EVENTS	    16.0
#define ENGINE_SHIFT_DOWN_INTERVALS 3

/*
 * A learnt threshold comes down at most ENGINE_STEP_DOWN times an interval.
 * After a shift, the window keeps the last interval alone, and a quiet one
 * says little of how far down the tail goes: PostgreSQL's reads of their
 * latch pipe went from 10 ms (a stall's second) to 2 us, their window's
 * slowest call, and 6 were emitted in the next half second; its lseeks from
 * 86 us to 2.8 us, under the mode the host's pauses make of them, and 18
 * (scripts/pg-eval). A shift down 10x is learnt in two more intervals.
 */
#define ENGINE_STEP_DOWN 4.0

/*
 * The window's memory: the policy's half_life, but no longer than it takes
 * to hold ENGINE_TAIL_EVENTS calls above the target quantile. Measured
 * on a 2-vCPU VM shared with builds (scripts/adaptive-eval, mixed-procs and
 * mixed-fds): the 0.999 quantile of a ~1 us read is where the scheduler
 * preempts it, and it follows the machine's load from one second to the next:
 * a 10 s window over 100k-300k calls/s kept the threshold of a load that was
 * gone, and a class emitted 0.75x-1.36x of its target over a 30 s run. 300
 * calls above the quantile put the estimate within about 6 % (1 / sqrt(300)).
 * Never below one interval: the window keeps at least half of the last one.
 */
#define ENGINE_TAIL_EVENTS 300.0

/*
 * And no shorter than it takes to hold ENGINE_TAIL_EVENTS_MIN calls above
 * the quantile, up to ENGINE_HALF_LIFE_STRETCH times the policy's half_life:
 * a quiet syscall or class (scripts/adaptive-eval, mixed-procs' B: 3 ms reads
 * at 1.4k calls/s, 1.4 calls a second above its 0.999 quantile) held about
 * 20 of its tail in a 10 s window; its threshold then moved by a third from
 * one interval to the next, and it emitted 0.09x-2.8x its target over the
 * run (2.3x on average of 6 runs; 1.1x with a 60 s window).
 */
#define ENGINE_TAIL_EVENTS_MIN	 100.0
#define ENGINE_HALF_LIFE_STRETCH 6.0

/*
 * Unless its calls drift: the calls above its threshold over the policy's
 * half-life (not the window's) are off the quantile's share by more than
 * ENGINE_DRIFT_FACTOR, and by more than ENGINE_DRIFT_SIGMAS standard
 * deviations of the count (and 2 calls) beyond chance. Then the window
 * forgets faster, down to the half-life that holds ENGINE_TAIL_EVENTS_MIN
 * calls above the quantile (never longer than the policy's), and the
 * threshold moves without hysteresis. Measured (scripts/adaptive-eval):
 * mixed-fds' socket reads (a 1 ms wait that the VM's load stretched to
 * 2-20 ms over a run) went on at 4-5x their target for 8 s behind a 60 s
 * window; and latgen's body, 10x slower after its shift, was held at 0.3x
 * its target for 6 s by a window that remembered the shift's first seconds.
 */
#define ENGINE_DRIFT_FACTOR 2.0
#define ENGINE_DRIFT_SIGMAS 3.0

/*
 * A rule with a false-alarm rate (policy_rule.false_alarm) sets the threshold
 * from its window's tail, fitted above the ENGINE_TAIL_Q quantile (tail_fit.h):
 * the latency a normal call exceeds with that probability. Its window holds
 * ENGINE_TAIL_FIT_EVENTS calls above the tail's start (and at least
 * ENGINE_TAIL_EVENTS_MIN, as a quantile's), the shifts and drifts are judged
 * at the tail's start (about 1 % of the calls: seen within an interval where a
 * 1e-6 rate could not be), and the threshold stays while the fit puts the rate
 * at it within ENGINE_RISK_HOLD_BAND of the rule's either way.
 */
#define ENGINE_TAIL_Q		0.99
/*
 * A population apart from the tail with at most this many times the rate's
 * share of calls is stalls, not normal (tail_fit_apart): 5, so that stalls at
 * twice the rate (one call in 5000 under 1e-4) stay outliers, and the calls
 * interrupts slow (1 in 1000 of a fast call on a VM) are a mode of the
 * normal, learnt. Not 3: stalls at twice the rate count 2.2-3.4 times it
 * from one second to the next, and (i)'s latgen stalls were taken for a mode
 * at start-up in 2 runs of 4 (93 % caught), its disk reads once (98.5 %).
 *
 * The rate is ENGINE_STALL_RATE or more there, whatever the rule's, for a
 * population far from the body (engine_stall_ns): at 1e-5, stalls one call
 * in 5000 (scripts/adaptive-eval (a), (d), (e)) were a mode of the normal,
 * and 1 to 14 % of them caught. A population near the body holds at most
 * ENGINE_APART_NEAR_RATES times the rate: what a VM's host slows (a 75 ns
 * getppid at 2 us, 3 in 100,000; PostgreSQL's lseeks at 7-17 us) is then
 * learnt, and the near calls left out cost at most the rate when they are
 * not stalls.
 */
#define ENGINE_APART_RATES	5.0
#define ENGINE_APART_NEAR_RATES 1.0
#define ENGINE_STALL_RATE	1e-4
/* Far from the body: from this many times its 0.99 quantile, and at least ENGINE_STALL_MIN_NS. */
#define ENGINE_STALL_FAR	16.0
#define ENGINE_STALL_MIN_NS	50000ULL
/*
 * An entry's calls past its threshold are counted for its fit (censored) once
 * it learnt its threshold this many steps (a half-life at the defaults): at
 * start, its first thresholds come from a window that start-up blurs, and
 * calls past them are as likely stalls as its tail.
 */
#define ENGINE_CENSOR_STEPS	10
/* A count past a bound by this many Poisson deviations is past it by more than chance. */
#define ENGINE_CHANCE_SIGMAS	3.0

/* Whether seen calls are more than chance allows where expected were. */
static inline bool engine_chance_exceeded(double seen, double expected)
{
	return seen > expected + ENGINE_CHANCE_SIGMAS * sqrt(expected) + 2;
}

/* A rule that sets its threshold by a false-alarm rate, from the fitted tail. */
static inline bool engine_rule_rate(const struct policy_rule *r)
{
	return r && r->mode == POLICY_ADAPTIVE && r->false_alarm > 0;
}

/*
 * Under rate rule r, the share of the calls that a population far from the
 * body may hold and be stalls (ENGINE_APART_RATES, ENGINE_STALL_RATE).
 */
static inline double engine_stall_share(const struct policy_rule *r)
{
	return ENGINE_APART_RATES * fmax(r->false_alarm, ENGINE_STALL_RATE);
}
/*
 * A fit heavier than this (a tail with no variance) is taken for two tails,
 * a fast call's steep body and the interrupted calls far above it: the tail
 * is fitted again from ENGINE_TAIL_RATES, then a tenth of that, times the
 * rate from the top (rate_tail_fit). A real heavy tail keeps its shape there (a GPD's excesses
 * over a higher start have the same shape).
 */
#define ENGINE_SHAPE_TWO_TAILS 0.5
/* A window with this many calls past a rate's threshold sets it from its own calls. */
#define ENGINE_SEEN_CALLS      10.0
#define ENGINE_TAIL_RATES      100.0
#define ENGINE_TAIL_FIT_EVENTS 2000.0
#define ENGINE_RISK_HOLD_BAND  2.0

/* Threshold t over r's margin: the latency a call is compared with. */
static inline __u64 engine_over_margin(__u64 t, const struct policy_rule *r)
{
	return (__u64)((double)t / r->margin);
}

/* SCLAT_BRAKE_FAR times t, where a call is far past t (a stall, to the brake), saturated. */
static inline __u64 engine_far_ns(__u64 t)
{
	return t > ~0ULL / SCLAT_BRAKE_FAR ? ~0ULL : t * SCLAT_BRAKE_FAR;
}

/* Per-CPU burst guard window; the burst allowance is ENGINE_GUARD_HEADROOM x budget share. */
#define ENGINE_GUARD_WINDOW_NS 10000000ULL
#define ENGINE_GUARD_HEADROOM  4

/* The budget never narrows 1 - q below this fraction of the policy's. */
#define ENGINE_SCALE_MIN 1e-6

struct engine_syscall {
	struct sclat_hist prev;	 /* raw counts at the last reading */
	bool prev_read;		 /* prev is a reading (or baseline), not the zeros of the start */
	struct sclat_hist delta; /* fed this interval, not folded in yet */
	bool fed;
	double window[SCLAT_HIST_BUCKETS]; /* decayed counts */
	double samples;			   /* sum of window */

	__u64 calls, outliers, drops, throttled;	 /* since start */
	__u64 i_calls, i_outliers, i_drops, i_throttled; /* last interval */
	__u64 braked, i_braked; /* held back by the brake: since start, last interval */
	__u64 i_cells_emitted;	/* of those, outliers+drops+throttled+braked of its cells */

	__u64 threshold_ns;	 /* in force: the learnt one, raised to the policy's min_latency */
	__u64 learned_ns;	 /* as the rule gives it (engine_min_latency.c) */
	__u64 prev_in_force_ns;	 /* in force when the step began */
	__u64 old_threshold_ns;	 /* in force before the last step */
	bool changed;		 /* the last step moved the threshold */
	bool armed;		 /* adaptive and past min_samples (latched) */
	bool shifted;		 /* the last step saw a shift and forgot old samples */
	bool shift_up;		 /* the last step saw far more above than the target share */
	unsigned int shift_down; /* the last steps in a row that saw far fewer above it */
	bool drifting;		 /* its calls above the threshold lately are off target */
	double i_above;		 /* last interval's calls above threshold / margin, if judged */
	double recent_above;	 /* calls above threshold / margin, over the policy's half-life */
	double recent_expected;	 /* what the window's share above it gave them, the same */
	/*
	 * Under a rate: the calls that crossed the threshold in force (over its
	 * margin) by less than SCLAT_BRAKE_FAR times, learnt or not, and all
	 * calls, over the policy's half-life (engine_rate_estimate).
	 */
	double recent_crossed, recent_calls;
	double recent_far; /* and those that crossed it by SCLAT_BRAKE_FAR times or more */
	/* The three before this interval's calls: what judges whether those are a mode. */
	double prior_crossed, prior_calls, prior_far;
	__u64 stall_ns; /* under a rate: where its stalls are far from its body (engine_stall_ns) */
	/*
	 * Under a rate: its calls that waited for storage (struct sclat_hist's
	 * io), this interval and over the policy's half-life with all its calls
	 * (recent_io_calls); where such a call is a stall, or 0 (engine_io.c).
	 */
	__u64 i_io;
	double recent_io, recent_io_calls;
	__u64 io_ns;
	/*
	 * Under a rate: the calls the window did not learn that crossed the
	 * threshold by less than SCLAT_BRAKE_FAR times, decayed as the window,
	 * and the sum of their count times the log of the threshold each
	 * crossed: the fit takes them for calls past it (tail_fit_censored).
	 */
	double censored, censored_log_ns;
	bool censor_on;		  /* the last fit took them in (engine_rate_fit) */
	unsigned int armed_steps; /* steps that learnt its threshold (saturated) */
	__u64 estimate_ns;	  /* q_hat behind the threshold, 0 when not adaptive */
	double exceedance; /* share of the window above threshold / margin (fitted for a rate) */
	double quantile;   /* effective target quantile (1 - rate), 0 when not adaptive */
	double scale;	   /* budget: 1 - q_eff = (1 - q) * scale */
	bool fallback;	   /* a cell still on its syscall's threshold */
	struct policy_rule rule;   /* the rule of the last step */
	struct tail_fit fit;	   /* a false-alarm rule's last fit (fit.ok: one was made) */
	struct tail_fit fit_basis; /* the fit the threshold in force came from */
};

/*
 * Past t (s's threshold over its rule r's margin), what r, a rate, does not
 * learn of this interval's calls: t; past engine_far_ns(t), when the calls
 * just past t crossed it more often, over the half-life before this
 * interval, than a population apart may hold there (a mode of the normal);
 * 0 (all learnt), when those far past it did. Before this interval: a burst
 * of one interval (a process stalled on a lock, 200 calls at 3 ms among
 * 24,000) is not a mode, and learnt as one it raised the threshold of
 * everyone's calls 6000x.
 */
__u64 engine_rate_unlearnt(const struct engine_syscall *s, const struct policy_rule *r, __u64 t);

/* Where s's censored calls are past: the (geometric) mean of the thresholds they crossed; 0: none.
 */
__u64 engine_censor_ns(const struct engine_syscall *s);
/*
 * Under rule r, the calls s was fed this interval and did not learn (those
 * past unlearnt, 0: all learnt) that crossed its threshold by less than
 * SCLAT_BRAKE_FAR times (stalls far past it are not its tail), into its
 * censored count, which decays as its window.
 */
void engine_rate_censor(struct engine_syscall *s, const struct policy_rule *r, __u64 unlearnt,
			double decay);

/* engine.cell_nr of a cell that counts nobody's calls. */
#define ENGINE_CELL_FREE (~0U)

struct engine {
	struct engine_syscall sc[ENGINE_ENTRIES];
	unsigned int nr_cells;
	struct engine_syscall *cell; /* nr_cells */
	unsigned int *cell_nr;	     /* the syscall each cell counts, or ENGINE_CELL_FREE */
	double demand;	   /* outliers/s of the last interval (emitted+throttled+dropped) */
	__u64 interval_ns; /* length of the last interval */
};

/* Entry i of e: the syscalls, the shared histogram, then the cells. */
static inline struct engine_syscall *engine_entry_at(struct engine *e, unsigned int i)
{
	return i < ENGINE_ENTRIES ? &e->sc[i] : &e->cell[i - ENGINE_ENTRIES];
}

/*
 * A new engine with every threshold at its rule's starting value (initial or
 * never), and nr_cells cells, all free.
 */
struct engine *engine_new(const struct policy *p, unsigned int nr_cells);
void engine_free(struct engine *e);

/*
 * Cell now counts calls of syscall nr, from raw, the counts its histogram
 * holds now. It starts on nr's young threshold, with nothing learnt.
 */
void engine_cell_open(struct engine *e, unsigned int cell, unsigned int nr,
		      const struct sclat_hist *raw);

/*
 * The threshold of syscall nr's calls in a class nothing is known of yet
 * (not answered, or a cell none of whose calls was read): nr's own, raised
 * to its rule's initial one under an adaptive rule. Its syscall's threshold
 * may be below the class's normal (a new process whose every read waits
 * 3 ms); the initial one is the policy's word for a threshold not learnt.
 */
__u64 engine_young_ns(const struct engine *e, unsigned int nr);

/*
 * A young class's bound: r's threshold over the slowest call of s's window
 * (its margin times that bucket's upper edge, within floor and ceiling).
 */
__u64 engine_young_bound(const struct policy_rule *r, const struct engine_syscall *s);

/* Cell counts nobody's calls any more; what it learnt is forgotten. */
void engine_cell_close(struct engine *e, unsigned int cell);

/* This interval's raw kernel counts of a cell; they count for its syscall too. */
void engine_feed_cell(struct engine *e, unsigned int cell, const struct sclat_hist *raw);

/* Sum one slot's per-CPU histograms; counts wrap at 2^32 like the kernel's. */
void engine_hist_sum(struct sclat_hist *out, const struct sclat_hist *percpu, int ncpus);

/*
 * The raw kernel counts of nr's histogram before any of them were nr's (the
 * slot's counts when it was handed to nr): deltas start from there.
 */
void engine_baseline(struct engine *e, unsigned int nr, const struct sclat_hist *raw);

/*
 * This interval's raw kernel counts of nr (or ENGINE_SHARED): its calls are
 * raw->calls (every call, counted by the lanes), its histogram's counts may
 * be sampled (probes_sample_set).
 */
void engine_feed(struct engine *e, unsigned int nr, const struct sclat_hist *raw);

/*
 * Close an interval of elapsed_ns: decay and fold in what was fed, apply the
 * budget, and decide every threshold, the syscalls' then the cells'.
 * engine_syscall.changed says which moved.
 */
void engine_step(struct engine *e, const struct policy *p, __u64 elapsed_ns);

/*
 * The q-quantile of a bucketed window holding total samples: the midpoint of
 * the bucket the rank ceil(q * total) falls in (within 6.25 % of every value
 * in it). 0 when the window is empty.
 */
__u64 engine_quantile(const double *window, double total, double q);

/* The same rank's bucket, its upper edge: no call in it was slower. */
__u64 engine_quantile_upper(const double *window, double total, double q);

/*
 * The same rank, placed inside its bucket by linear interpolation: what
 * thresholds are set from. Always in the same bucket as engine_quantile().
 */
__u64 engine_quantile_interp(const double *window, double total, double q);

/*
 * The body of s's latencies, under which its calls need not be counted one
 * by one (probes_body_set): the quantile that leaves ENGINE_BODY_TAIL times
 * the share of its rule's quantile above (p99 for 0.999, at most p99 and at
 * least p50; p99 for a rule that does not adapt), so that the tail where its
 * threshold is learnt is counted in full.
 * 0 (every call counted) until its window holds ENGINE_BODY_SAMPLES calls.
 */
#define ENGINE_BODY_TAIL    10.0
#define ENGINE_BODY_SAMPLES 1000.0
__u64 engine_body_ns(const struct engine_syscall *s, const struct policy_rule *r);

/*
 * Where the calls of a window of samples are far from its body (a stall's
 * edge, engine_syscall's stall_ns): ENGINE_STALL_FAR times its 0.99
 * quantile, its population apart from held_ns (0: none) left out, and at
 * least ENGINE_STALL_MIN_NS. 0: fewer than ENGINE_BODY_SAMPLES, too few to say.
 */
__u64 engine_far_from_body_ns(const double *window, double samples, __u64 held_ns);

/*
 * An entry outside the engine (classes_auto.c: the calls of the cells a node
 * judges), kept as the engine keeps its own: d, this interval's counts of
 * calls calls, fed; then, once an interval of elapsed_ns, judged for shifts
 * and drifts under rule r and folded into its window (the policy's
 * half-life); then its threshold decided from the window.
 */
void engine_entry_feed(struct engine_syscall *s, const struct sclat_hist *d, __u64 calls);
void engine_entry_fold(struct engine_syscall *s, const struct policy *p,
		       const struct policy_rule *r, __u64 elapsed_ns);
void engine_entry_decide(struct engine_syscall *s, const struct policy_rule *r);

/*
 * Calls that waited for storage (engine_io.c), under a rate: where s's calls
 * seldom wait for I/O (at most the share a population apart may hold as
 * stalls, ENGINE_APART_RATES x max(rate, ENGINE_STALL_RATE)), one that did is
 * a stall from s->io_ns on, its stall_ns (far from the body of its calls),
 * when that is under its threshold: the two populations overlap in latency
 * where a VM's host pauses calls that never leave their CPU as long as a
 * disk read takes (scripts/adaptive-eval (e): page cache reads at 20-370 us,
 * 1 in 1000, around disk reads at 100-360 us, 1 in 5000, which were 4 %
 * caught). engine_io_update counts an interval's, as the window folds;
 * engine_io_decide sets io_ns, after the threshold.
 */
void engine_io_update(struct engine_syscall *s, const struct policy *p, const struct policy_rule *r,
		      __u64 elapsed_ns);
void engine_io_decide(struct engine_syscall *s, const struct policy_rule *r);
/* The share of s's calls that waited for storage lately; 0: none known. */
double engine_io_share(const struct engine_syscall *s);

/* The basis of the threshold the engine decided for s: its estimate, quantile and samples. */
void engine_basis(const struct engine_syscall *s, struct threshold_basis *b);

/*
 * What s's window looked like behind its threshold (basis.h): its median,
 * slowest call and tail above the threshold, and the fit the threshold came
 * from; w->calls 0 when the window is empty.
 */
void engine_window_basis(const struct engine_syscall *s, struct basis_window *w);

/* The share of a window above t ns (the bucket of t split linearly). */
double engine_exceedance(const double *window, double total, __u64 t);
/* engine_exceedance() of the counts s was fed this interval, of total calls. */
double engine_interval_exceedance(const struct engine_syscall *s, double total, __u64 t);

/*
 * A false_alarm rule (engine_rate.c): fit the tail of s's window into s->fit
 * (0, or -EAGAIN: no fit yet), then the threshold's estimate, the quantile
 * it stands for in q, and whether the old threshold may stay (hold).
 */
int engine_rate_fit(struct engine_syscall *s, const struct policy_rule *r);
__u64 engine_rate_estimate(struct engine_syscall *s, const struct policy_rule *r, __u64 old,
			   double *q, bool *hold);

/* The threshold a rule gives before (or without) any estimate. */
__u64 engine_initial(const struct policy_rule *r);

/*
 * The policy's min_latency over every threshold (engine_min_latency.c): before
 * a step, each entry's rule works on its learnt threshold; after it, the one
 * in force is that, raised to min_latency, and changed says whether it moved.
 */
void engine_min_latency_begin(struct engine *e);
void engine_min_latency_apply(struct engine *e, const struct policy *p);

/*
 * The budget over the interval's entries (engine_budget.c), before their
 * thresholds are decided: the scale of the quantile of each that emitted
 * more than its share, narrowed while the budget is passed, widened back.
 */
void engine_budget_apply(struct engine *e, const struct policy *p, double secs);

/* The per-CPU guard for a budget (outliers/s, 0: none): burst 0 turns it off. */
void engine_guard(__u64 budget, int ncpus, __u64 *window_ns, __u32 *burst);

#endif
