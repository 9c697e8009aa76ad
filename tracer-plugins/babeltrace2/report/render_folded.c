// SPDX-License-Identifier: GPL-2.0-only
/* The outliers' stacks in the folded format of flame graph tools (render.h). */
#include <inttypes.h>
#include "render.h"

void render_folded(FILE *f, const struct agg *a)
{
	size_t i;

	for (i = 0; i < a->nr_folded_lines; i++)
		fprintf(f, "%s %" PRIu64 "\n", a->folded_lines[i].line,
			a->folded_lines[i].weight_ns);
}
