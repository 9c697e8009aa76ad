// SPDX-License-Identifier: GPL-2.0-only
/*
 * What the controller's passes publish: each threshold with its basis (the
 * syscalls', their young ones, the cells'), then the windows outliers are
 * judged by.
 */
#include <stdio.h>
#include <string.h>
#include "controller_state.h"
#include "classes.h"
#include "classes_auto.h"
#include "engine.h"
#include "kernel/probes_knobs.h"

/*
 * Publish the threshold of nr's calls in a class not answered yet
 * (engine_young_ns): 0, the syscall's own word and basis, when they agree;
 * else a word of its own, whose basis says nothing was learnt, when it moved
 * or (renew) each time the syscall's is published: the two share nr's basis
 * ring, and a word left behind BASIS_HISTORY generations would lose its basis.
 */
static void young_publish(struct controller *c, unsigned int nr, bool renew)
{
	__u64 ns = engine_young_ns(c->engine, nr);
	struct threshold_basis b;

	if (ns == c->engine->sc[nr].threshold_ns)
		ns = 0;
	if (ns == c->young_ns[nr] && (!renew || !ns))
		return;
	c->young_ns[nr] = ns;
	if (!ns) {
		probes_young_threshold_set(c->t, nr, 0);
		return;
	}
	memset(&b, 0, sizeof(b));
	snprintf(b.class_name, sizeof(b.class_name), "new class");
	probes_young_threshold_set(c->t, nr, basis_publish(&c->basis, nr, ns, &b));
}

void controller_threshold_publish(struct controller *c, unsigned int nr)
{
	const struct engine_syscall *s = &c->engine->sc[nr];
	struct threshold_basis b;

	engine_basis(s, &b);
	probes_threshold_set(c->t, nr, basis_publish(&c->basis, nr, s->threshold_ns, &b));
	young_publish(c, nr, true);
}

void controller_thresholds_changed_publish(struct controller *c)
{
	const struct controller_hooks *h = &c->hooks;
	const struct engine *e = c->engine;
	struct threshold_basis basis;
	unsigned int nr, i;

	for (nr = 0; nr < SCLAT_MAX_SYSCALLS; nr++) {
		const struct engine_syscall *s = &e->sc[nr];

		if (!s->changed) {
			/* The rule's initial one may have moved alone. */
			young_publish(c, nr, false);
			continue;
		}
		controller_threshold_publish(c, nr);
		c->threshold_changes++;
		if (h->threshold_update) {
			engine_basis(s, &basis);
			h->threshold_update(h->ctx, nr, s->old_threshold_ns, s->threshold_ns,
					    &basis);
		}
	}
	for (i = 1; i < c->classes->top; i++) {
		const struct engine_syscall *s = &e->cell[i];

		if (!c->classes->cell[i].used || !s->changed)
			continue;
		classes_cell_threshold_publish(c->classes, i);
		/* A class on its syscall's threshold follows it: that move is the syscall's. */
		if (s->fallback)
			continue;
		c->threshold_changes++;
		if (h->threshold_update) {
			engine_basis(classes_auto_entry(c->classes, i), &basis);
			classes_name(c->classes, i, basis.class_name, sizeof(basis.class_name));
			h->threshold_update(h->ctx, c->classes->cell[i].nr, s->old_threshold_ns,
					    s->threshold_ns, &basis);
		}
	}
}

void controller_windows_publish(struct controller *c)
{
	const struct engine *e = c->engine;
	struct basis_window w;
	unsigned int nr, i;

	for (nr = 0; nr < SCLAT_MAX_SYSCALLS; nr++) {
		if (e->sc[nr].samples <= 0)
			continue;
		engine_window_basis(&e->sc[nr], &w);
		basis_window_publish(&c->basis, nr, &w);
	}
	for (i = 1; i < c->classes->top; i++) {
		if (!c->classes->cell[i].used || e->cell[i].samples <= 0)
			continue;
		/* A cell merged under auto: its ancestor's window judges its outliers. */
		engine_window_basis(classes_auto_entry(c->classes, i), &w);
		basis_window_publish(&c->basis, SCLAT_MAX_SYSCALLS + i, &w);
	}
}
