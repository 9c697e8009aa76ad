// SPDX-License-Identifier: GPL-2.0-only
/*
 * classes = auto (classes_auto.h): the tree of each syscall's cells, which
 * of its processes and cells split, and the thresholds of the others, learnt
 * from their nearest split ancestor's calls.
 */
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include "classes_auto.h"
#include "classes.h"
#include "engine.h"

/* class_id of a syscall's own node (the root of its tree). */
#define AUTO_ROOT (~0U)
#define AUTO_NONE (~0U)

/* A syscall's, or one process's calls of it: the sum of its cells. */
struct auto_node {
	unsigned int nr, class_id;
	unsigned int root; /* its syscall's node (a process's) */
	bool split;	   /* a process with a threshold of its own */
	bool far_mode;	   /* a process whose calls far from its syscall's body are its own */
	__u64 far_ns;	   /* a syscall's: where its calls are far from its body; 0 unknown */
	bool seen;	   /* a cell of it in use at this step */
	unsigned int cells;
	double rate;			/* its cells' calls per interval */
	double all[SCLAT_HIST_BUCKETS]; /* its cells' windows, mixed by their rates */
	double all_samples;
	unsigned int rest_cells, rest_cell; /* the cells it judges */
	double rest_samples, rest_mass;
	/*
	 * The calls of the cells it judges, learnt as the engine learns a
	 * syscall's: fed each interval, with a window of its own (started from
	 * their windows' mixture), and the threshold learnt from it.
	 */
	bool primed;
	struct sclat_hist fed; /* their counts this interval */
	__u64 fed_calls;
	struct engine_syscall es;
};

struct auto_cell {
	bool on; /* in use, its syscall under auto */
	unsigned int nr, class_id, fd_kind;
	bool split;
	double rate;
	unsigned int proc, root, judge; /* node indexes; judge AUTO_NONE: its own */
	bool by_node;			/* its threshold in force is judge's */
	bool young;			/* merged, fewer than min_samples, a share of its judge's */
};

struct classes_auto {
	unsigned int nr_cells, nr_nodes;
	struct auto_cell *cell;
	struct auto_node **node;
};

/* The median of a window, 0 when empty. */
static double window_median(const double *w, double samples)
{
	return samples > 0 ? (double)engine_quantile_interp(w, samples, 0.5) : 0;
}

bool classes_auto_splits(const double *child, double child_samples, const double *parent,
			 double parent_samples, double share, __u64 min_samples, bool was_split)
{
	double mc, mp, ratio;

	if (child_samples <= 0 || parent_samples <= 0)
		return false;
	if (child_samples < (was_split ? 0.5 : 1.0) * (double)min_samples)
		return false;
	if (share < (was_split ? 0.5 : 1.0) * CLASSES_AUTO_SHARE)
		return false;
	mc = window_median(child, child_samples);
	mp = window_median(parent, parent_samples);
	if (mc <= 0 || mp <= 0)
		return mc != mp;
	ratio = mc > mp ? mc / mp : mp / mc;
	return ratio > (was_split ? CLASSES_AUTO_MERGE_FACTOR : CLASSES_AUTO_FACTOR);
}

bool classes_auto_on(const struct policy *p, unsigned int nr)
{
	return nr < SCLAT_MAX_SYSCALLS && (p->rules[nr].classes & POLICY_CLASS_AUTO) &&
	       p->rules[nr].mode == POLICY_ADAPTIVE;
}

static struct classes_auto *autos_new(unsigned int nr_cells)
{
	struct classes_auto *a = calloc(1, sizeof(*a));

	if (!a)
		return NULL;
	a->nr_cells = nr_cells;
	a->nr_nodes = 2 * nr_cells;
	a->cell = calloc(nr_cells ? nr_cells : 1, sizeof(*a->cell));
	a->node = calloc(a->nr_nodes ? a->nr_nodes : 1, sizeof(*a->node));
	if (!a->cell || !a->node) {
		free(a->cell);
		free(a->node);
		free(a);
		return NULL;
	}
	return a;
}

void classes_auto_free(struct classes *cs)
{
	struct classes_auto *a = cs->autos;
	unsigned int i;

	if (!a)
		return;
	for (i = 0; i < a->nr_nodes; i++)
		free(a->node[i]);
	free(a->node);
	free(a->cell);
	free(a);
	cs->autos = NULL;
}

/* The node of (nr, class_id), made when new; AUTO_NONE when none is left. */
static unsigned int node_get(struct classes_auto *a, unsigned int nr, unsigned int class_id)
{
	unsigned int i, free_i = AUTO_NONE;
	struct auto_node *n;

	for (i = 0; i < a->nr_nodes; i++) {
		n = a->node[i];
		if (n && n->nr == nr && n->class_id == class_id)
			return i;
		if (!n && free_i == AUTO_NONE)
			free_i = i;
	}
	if (free_i == AUTO_NONE)
		return AUTO_NONE;
	n = calloc(1, sizeof(*n));
	if (!n)
		return AUTO_NONE;
	n->nr = nr;
	n->class_id = class_id;
	a->node[free_i] = n;
	return free_i;
}

/* Whether node i is (nr, class_id)'s. */
static bool node_is(const struct classes_auto *a, unsigned int i, unsigned int nr,
		    unsigned int class_id)
{
	return i < a->nr_nodes && a->node[i] && a->node[i]->nr == nr &&
	       a->node[i]->class_id == class_id;
}

/* Add window w of samples, carrying rate calls per interval, to a mixture. */
static void mix_add(double *mix, double *mass, const double *w, double samples, double rate)
{
	double k;
	unsigned int b;

	if (samples <= 0 || rate <= 0)
		return;
	k = rate / samples;
	for (b = 0; b < SCLAT_HIST_BUCKETS; b++)
		mix[b] += w[b] * k;
	*mass += rate;
}

/* A mixture of mass rate scaled back to samples calls. */
static void mix_scale(double *mix, double mass, double samples)
{
	double k = mass > 0 ? samples / mass : 0;
	unsigned int b;

	for (b = 0; b < SCLAT_HIST_BUCKETS; b++)
		mix[b] *= k;
}

/* Cell's place in the tree at this step; false when it has none (no node left). */
static bool cell_place(struct classes_auto *a, const struct classes *cs, unsigned int cell)
{
	const struct class_cell *k = &cs->cell[cell];
	const struct engine_syscall *s = &cs->engine->cell[cell];
	struct auto_cell *ac = &a->cell[cell];

	/* A new cell, or another in its place since the last step. */
	if (!ac->on || ac->nr != k->nr || ac->class_id != k->class_id ||
	    ac->fd_kind != k->fd_kind) {
		*ac = (struct auto_cell){ .nr = k->nr,
					  .class_id = k->class_id,
					  .fd_kind = k->fd_kind,
					  .rate = (double)s->i_calls };
	} else {
		ac->rate += CLASSES_AUTO_RATE_WEIGHT * ((double)s->i_calls - ac->rate);
	}
	ac->judge = AUTO_NONE;
	ac->by_node = false;
	/* Its nodes of the last step, else found (a search of the table). */
	if (!node_is(a, ac->proc, k->nr, k->class_id))
		ac->proc = node_get(a, k->nr, k->class_id);
	if (!node_is(a, ac->root, k->nr, AUTO_ROOT))
		ac->root = node_get(a, k->nr, AUTO_ROOT);
	ac->on = ac->proc != AUTO_NONE && ac->root != AUTO_NONE;
	if (ac->on)
		a->node[ac->proc]->root = ac->root;
	return ac->on;
}

/* Each cell of the syscalls under auto placed, and its nodes' sums of all their cells. */
static void tree_sum(struct classes_auto *a, const struct classes *cs, const struct policy *p)
{
	unsigned int cell, i, j;

	for (i = 0; i < a->nr_nodes; i++)
		if (a->node[i]) {
			struct auto_node *n = a->node[i];

			n->seen = false;
			n->cells = n->rest_cells = 0;
			n->rate = n->all_samples = n->rest_samples = n->rest_mass = 0;
			memset(n->all, 0, sizeof(n->all));
		}
	for (cell = 1; cell < a->nr_cells; cell++) {
		const struct engine_syscall *s = &cs->engine->cell[cell];
		const struct auto_cell *ac = &a->cell[cell];
		unsigned int at[2];

		if (cell >= cs->top || !cs->cell[cell].used ||
		    !classes_auto_on(p, cs->cell[cell].nr)) {
			a->cell[cell].on = false;
			continue;
		}
		if (!cell_place(a, cs, cell))
			continue;
		at[0] = ac->proc;
		at[1] = ac->root;
		a->node[ac->proc]->cells++;
		for (j = 0; j < 2; j++) {
			struct auto_node *n = a->node[at[j]];

			n->seen = true;
			n->all_samples += s->samples;
			mix_add(n->all, &n->rate, s->window, s->samples, ac->rate);
		}
	}
	for (i = 0; i < a->nr_nodes; i++) {
		struct auto_node *n = a->node[i];

		if (!n || !n->seen)
			continue;
		mix_scale(n->all, n->rate, n->all_samples);
		if (n->class_id == AUTO_ROOT)
			n->far_ns = engine_far_from_body_ns(n->all, n->all_samples, 0);
	}
}

/*
 * Whether the calls of process n far from its syscall's body (from root's
 * far_ns, engine_far_from_body_ns()) are
 * more of n's calls than stalls may be under rate rule r (beyond chance):
 * a mode of its own, not stalls. A shell's pipe reads mostly return at once
 * (a median like every process's), and one in ten waits seconds for input: a
 * tail of its own, which its syscall's threshold would emit whole. (d)'s A
 * stalls one pipe read in 5000 of its reads: stalls. A cell alone cannot
 * tell them apart: both are mostly far calls. Such a process's cells are
 * young while they are (tree_split()); it does not split for it: splitting
 * busy processes by their tails (a socket's 1 ms reads, 0.5 % of a process's
 * reads) brought more outliers of their other cells in adaptive-eval (i).
 */
static bool far_mode(const struct auto_node *n, const struct auto_node *root,
		     const struct policy_rule *r)
{
	double seen = 0;
	__u32 b;

	if (!engine_rule_rate(r) || !root->far_ns || n->all_samples <= 0)
		return false;
	for (b = sclat_hist_bucket(root->far_ns) + 1; b < SCLAT_HIST_BUCKETS; b++)
		seen += n->all[b];
	return engine_chance_exceeded(seen, engine_stall_share(r) * n->all_samples);
}

/* Which processes and cells split from their parents. */
static void tree_split(struct classes_auto *a, const struct classes *cs, const struct policy *p)
{
	unsigned int cell, i;

	for (i = 0; i < a->nr_nodes; i++) {
		struct auto_node *n = a->node[i], *root;

		if (!n || !n->seen || n->class_id == AUTO_ROOT)
			continue;
		root = a->node[n->root];
		n->far_mode = far_mode(n, root, &p->rules[n->nr]);
		n->split = classes_auto_splits(n->all, n->all_samples, root->all, root->all_samples,
					       root->rate > 0 ? n->rate / root->rate : 0,
					       p->rules[n->nr].min_samples, n->split);
	}
	for (cell = 1; cell < a->nr_cells; cell++) {
		const struct engine_syscall *s = &cs->engine->cell[cell];
		struct auto_cell *ac = &a->cell[cell];
		struct auto_node *proc;

		if (!ac->on)
			continue;
		proc = a->node[ac->proc];
		/* A process's only cell is the process. */
		ac->split = proc->cells > 1 &&
			    classes_auto_splits(s->window, s->samples, proc->all, proc->all_samples,
						proc->rate > 0 ? ac->rate / proc->rate : 0,
						p->rules[ac->nr].min_samples, ac->split);
		if (ac->split)
			continue;
		ac->judge = proc->split ? ac->proc : ac->root;
		/*
		 * A young cell that is a share of its judge's calls may be a new
		 * normal (a new process, a new kind of file) rather than a rare kind
		 * of call, as may one of a process with a far mode of its own: until
		 * it can split, it stays out of its judge's window.
		 */
		ac->young =
			s->fallback && (ac->rate >= CLASSES_AUTO_SHARE * a->node[ac->judge]->rate ||
					proc->far_mode);
	}
}

/* The cells each node judges: what they hold and fed this interval. */
static void tree_rest(struct classes_auto *a, const struct classes *cs)
{
	unsigned int cell, i, b;

	for (i = 0; i < a->nr_nodes; i++)
		if (a->node[i]) {
			struct auto_node *n = a->node[i];

			n->rest_cells = 0;
			n->rest_samples = n->rest_mass = 0;
			/* Its mixture is needed only to start its window. */
			if (!n->primed) {
				memset(n->es.window, 0, sizeof(n->es.window));
				n->es.censored = n->es.censored_log_ns = 0;
			}
			n->es.scale = 1.0;
			memset(&n->fed, 0, sizeof(n->fed));
			n->fed_calls = 0;
		}
	for (cell = 1; cell < a->nr_cells; cell++) {
		const struct engine_syscall *s = &cs->engine->cell[cell];
		const struct auto_cell *ac = &a->cell[cell];
		struct auto_node *j;

		if (!ac->on || ac->judge == AUTO_NONE || ac->young)
			continue;
		j = a->node[ac->judge];
		j->rest_cells++;
		j->rest_cell = cell;
		j->rest_samples += s->samples;
		j->es.scale = fmin(j->es.scale, s->scale);
		if (!j->primed) {
			mix_add(j->es.window, &j->rest_mass, s->window, s->samples, ac->rate);
			/* Its censored calls, weighed as its window. */
			if (s->samples > 0 && ac->rate > 0) {
				j->es.censored += s->censored * ac->rate / s->samples;
				j->es.censored_log_ns += s->censored_log_ns * ac->rate / s->samples;
			}
		}
		/* Not fed this interval (closed, or its reading missed): nothing of it. */
		if (!s->i_calls)
			continue;
		for (b = 0; b < SCLAT_HIST_BUCKETS; b++)
			j->fed.bucket[b] += s->delta.bucket[b];
		j->fed.outliers += (__u32)s->i_outliers;
		j->fed.drops += (__u32)s->i_drops;
		j->fed.throttled += (__u32)s->i_throttled;
		j->fed.braked += (__u32)s->i_braked;
		j->fed.io += (__u32)s->i_io;
		j->fed_calls += s->i_calls;
	}
}

/*
 * Each judging node's threshold, learnt from the calls of the cells it
 * judges. A node's window is its own, as a syscall's is: its cells' windows
 * each forget on their own (a shift, a half-life stretched to their fewer
 * calls), and a mixture of them rebuilt each interval moved with every cell
 * that forgot, split or merged (PostgreSQL's lseek under auto: 20 us to
 * 147 us from one second to the next, and 5x the false alarms of the same
 * calls under classes = none).
 */
static void tree_decide(struct classes_auto *a, const struct classes *cs, const struct policy *p)
{
	const struct policy_rule *r;
	struct auto_node *n;
	unsigned int i;

	tree_rest(a, cs);
	for (i = 0; i < a->nr_nodes; i++) {
		n = a->node[i];
		if (!n || (!n->primed && (n->rest_cells < 2 || n->rest_mass <= 0)))
			continue;
		r = &p->rules[n->nr];
		if (!n->primed) {
			mix_scale(n->es.window, n->rest_mass, n->rest_samples);
			n->es.censored *= n->rest_samples / n->rest_mass;
			n->es.censored_log_ns *= n->rest_samples / n->rest_mass;
			n->es.samples = n->rest_samples;
			n->primed = true;
		} else {
			if (n->fed_calls)
				engine_entry_feed(&n->es, &n->fed, n->fed_calls);
			engine_entry_fold(&n->es, p, r, cs->engine->interval_ns);
		}
		if (n->rest_cells >= 2)
			engine_entry_decide(&n->es, r);
	}
}

/*
 * A merged cell's threshold in force: its judge's, raised to min_latency. A
 * young cell that is a share of its judge's calls (a new process, a new kind
 * of file, not a rare kind of call) is not judged below the slowest call it
 * made, nor braked by its judge's calls: it may be a normal of its own.
 */
static void cell_judged(struct classes_auto *a, struct classes *cs, const struct policy *p,
			unsigned int cell)
{
	struct engine_syscall *c = &cs->engine->cell[cell];
	struct auto_cell *ac = &a->cell[cell];
	const struct policy_rule *r = &p->rules[ac->nr];
	const struct auto_node *j = a->node[ac->judge];
	const struct engine_syscall *rest = &cs->engine->cell[j->rest_cell];
	__u64 t;

	/* None of its calls read yet: the young threshold the engine gave it. */
	if (c->samples <= 0)
		return;
	if (j->rest_cells == 1 && ac->young && rest->armed) {
		t = rest->learned_ns; /* its judge's only other cell's */
	} else if (j->rest_cells >= 2 && j->es.armed) {
		t = j->es.threshold_ns;
	} else {
		return; /* its own, or the engine's until the judge has learnt */
	}
	if (ac->young) {
		if (engine_young_bound(r, c) > t)
			t = engine_young_bound(r, c);
	} else {
		ac->by_node = true;
	}
	if (t != SCLAT_THRESHOLD_NEVER && t < p->min_latency_ns)
		t = p->min_latency_ns;
	c->threshold_ns = t;
	c->changed = t != c->old_threshold_ns;
}

void classes_auto_step(struct classes *cs, const struct policy *p)
{
	struct classes_auto *a = cs->autos;
	unsigned int nr, cell, i;
	bool any = false;

	for (nr = 0; nr < SCLAT_MAX_SYSCALLS && !any; nr++)
		any = classes_auto_on(p, nr);
	if (!any || !cs->engine || cs->nr_cells <= 1) {
		classes_auto_free(cs);
		return;
	}
	if (!a) {
		a = cs->autos = autos_new(cs->nr_cells);
		if (!a)
			return; /* each cell on its own threshold meanwhile */
	}
	tree_sum(a, cs, p);
	tree_split(a, cs, p);
	tree_decide(a, cs, p);
	for (cell = 1; cell < a->nr_cells; cell++)
		if (a->cell[cell].on && a->cell[cell].judge != AUTO_NONE)
			cell_judged(a, cs, p, cell);
	for (i = 0; i < a->nr_nodes; i++)
		if (a->node[i] && !a->node[i]->seen) {
			free(a->node[i]);
			a->node[i] = NULL;
		}
}

/*
 * Cell's place at the last step, NULL when it has none: a cell closed since,
 * or another opened in its place (before the next step places it), has none.
 */
static const struct auto_cell *cell_placed(const struct classes *cs, unsigned int cell)
{
	const struct classes_auto *a = cs->autos;
	const struct auto_cell *ac;
	const struct class_cell *k;

	if (!a || cell >= a->nr_cells || cell >= cs->top || !a->cell[cell].on)
		return NULL;
	ac = &a->cell[cell];
	k = &cs->cell[cell];
	if (!k->used || k->nr != ac->nr || k->class_id != ac->class_id || k->fd_kind != ac->fd_kind)
		return NULL;
	if (ac->judge != AUTO_NONE && !a->node[ac->judge])
		return NULL;
	return ac;
}

const struct engine_syscall *classes_auto_entry(const struct classes *cs, unsigned int cell)
{
	const struct auto_cell *ac = cell_placed(cs, cell);

	if (ac && ac->by_node)
		return &cs->autos->node[ac->judge]->es;
	return &cs->engine->cell[cell];
}

enum classes_auto_state classes_auto_judge(const struct classes *cs, unsigned int cell, char *by,
					   size_t len)
{
	const struct classes_auto *a = cs->autos;
	const struct auto_cell *ac;
	const struct auto_node *j;

	snprintf(by, len, "%s", "");
	ac = cell_placed(cs, cell);
	if (!ac)
		return CLASSES_AUTO_NONE;
	if (ac->judge == AUTO_NONE)
		return CLASSES_AUTO_SPLIT;
	j = a->node[ac->judge];
	if (j->class_id != AUTO_ROOT && j->class_id < SCLAT_CLASS_IDS)
		snprintf(by, len, "%s", cs->id[j->class_id].name);
	return CLASSES_AUTO_MERGED;
}
