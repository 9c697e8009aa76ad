// SPDX-License-Identifier: GPL-2.0-only
/*
 * The policy parser (user/policy/policy_parse.c) on any bytes, as the
 * content of a policy file (policy_load_text: what policy_load does once the
 * file is read). A policy it accepts is written out as INI
 * (policy_write_ini) and must read back to the same settings.
 */
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "policy/policy.h"

static int rule_eq(const struct policy_rule *a, const struct policy_rule *b)
{
	return a->mode == b->mode && a->quantile == b->quantile && a->margin == b->margin &&
	       a->floor_ns == b->floor_ns && a->ceiling_ns == b->ceiling_ns &&
	       a->initial_ns == b->initial_ns && a->min_samples == b->min_samples;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[512] = "", *ini = NULL;
	struct policy *p = policy_load_text("fuzz.ini", (const char *)data, size, err, sizeof(err));
	struct policy *back;
	size_t len = 0;
	unsigned int nr;
	FILE *f;

	if (!p) {
		if (!err[0] || strchr(err, '\n'))
			abort(); /* an error is one line that says something */
		return 0;
	}
	f = open_memstream(&ini, &len);
	if (!f || policy_write_ini(p, f) < 0 || fclose(f))
		abort();
	back = policy_load_text("written.ini", ini, len, err, sizeof(err));
	if (!back) {
		fprintf(stderr, "fuzz_policy: written policy refused: %s\n%s", err, ini);
		abort();
	}
	if (p->interval_ns != back->interval_ns || p->half_life_ns != back->half_life_ns ||
	    p->budget != back->budget || !rule_eq(&p->def, &back->def))
		abort();
	for (nr = 0; nr < SCLAT_MAX_SYSCALLS; nr++)
		if (!rule_eq(&p->rules[nr], &back->rules[nr]))
			abort();
	free(ini);
	policy_free(back);
	policy_free(p);
	return 0;
}
