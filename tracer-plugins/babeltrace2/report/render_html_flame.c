// SPDX-License-Identifier: GPL-2.0-only
/*
 * The HTML page's flame graph (an icicle: the outermost frame on top): the
 * outliers' stacks as a tree, user frames from main down, then the syscall,
 * then the kernel frames down to where the call waited, each frame as wide
 * as the time beyond normal of the outliers through it. Static SVG that reads
 * without scripts; the page's script zooms into a frame and searches.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "agg_grow.h"
#include "fnv1a.h"
#include "render_html.h"

#define FLAME_WIDTH   1200.0
#define FLAME_ROW     17
#define FLAME_MIN_PX  0.5 /* narrower frames are not drawn */
#define FLAME_CHAR_PX 7.0
#define FLAME_PENDING (HTML_MAX_FRAMES + 1) /* frames drawn at most, and the root */

static size_t node_slot(const struct html_data *d, uint32_t parent, const char *name)
{
	uint64_t h = fnv1a(FNV1A_BASIS, &parent, sizeof(parent));

	h = fnv1a(h, &name, sizeof(name));
	return (size_t)h & (d->index_size - 1);
}

/* Double the hash of (parent, name) once it is half full; 0 or -ENOMEM. */
static int index_grow(struct html_data *d)
{
	size_t size = d->index_size ? 2 * d->index_size : 1024, i, k;
	uint32_t *old = d->node_index;

	if (2 * (d->nr_nodes + 1) <= d->index_size)
		return 0;
	d->node_index = calloc(size, sizeof(*d->node_index));
	if (!d->node_index) {
		d->node_index = old;
		return -ENOMEM;
	}
	d->index_size = size;
	for (i = 1; i < d->nr_nodes; i++) {
		k = node_slot(d, d->nodes[i].parent, d->nodes[i].name);
		while (d->node_index[k])
			k = (k + 1) & (size - 1);
		d->node_index[k] = (uint32_t)i + 1;
	}
	free(old);
	return 0;
}

/* The child of parent named name (interned), added on first sight; 0 when the tree is full. */
static uint32_t child_of(struct html_data *d, uint32_t parent, const char *name, uint32_t kind)
{
	struct html_node *n;
	size_t k;

	if (index_grow(d))
		return 0;
	k = node_slot(d, parent, name);
	for (; d->node_index[k]; k = (k + 1) & (d->index_size - 1)) {
		n = &d->nodes[d->node_index[k] - 1];
		if (n->parent == parent && n->name == name)
			return d->node_index[k] - 1;
	}
	if (d->nr_nodes >= HTML_MAX_NODES ||
	    agg_grow((void **)&d->nodes, &d->cap_nodes, d->nr_nodes, sizeof(*d->nodes)))
		return 0;
	n = &d->nodes[d->nr_nodes];
	*n = (struct html_node){ .name = name,
				 .parent = parent,
				 .kind = kind,
				 .next_sibling = d->nodes[parent].first_child };
	d->nodes[parent].first_child = (uint32_t)d->nr_nodes;
	d->node_index[k] = (uint32_t)d->nr_nodes + 1;
	return (uint32_t)d->nr_nodes++;
}

/* Down from *at to the frame named by s (n bytes); 0, -ENOMEM, or 1 when the tree is full. */
static int step(struct html_data *d, uint32_t *at, const char *s, size_t n, uint32_t kind,
		uint64_t w)
{
	char name[256];
	const char *kept;
	uint32_t c;

	snprintf(name, sizeof(name), "%.*s", (int)n, s);
	if (agg_strings_add(&d->names, name, 0, &kept))
		return -ENOMEM;
	c = child_of(d, *at, kept, kind);
	if (!c)
		return d->nr_nodes >= HTML_MAX_NODES ? 1 : -ENOMEM;
	d->nodes[c].weight_ns += w;
	*at = c;
	return 0;
}

/* A stack's frames (innermost first, ';'-joined) outermost first, as their functions. */
static int frames(struct html_data *d, uint32_t *at, const char *stack, uint32_t kind, uint64_t w)
{
	const char *end = stack + strlen(stack), *start;
	size_t n;
	int err;

	while (end > stack) {
		start = end;
		while (start > stack && start[-1] != ';')
			start--;
		/* The function, without its offset, binary or source line: a graph merges calls. */
		n = strcspn(start, "+ ;");
		err = n ? step(d, at, start, n, kind, w) : 0;
		if (err)
			return err;
		end = start > stack ? start - 1 : stack;
	}
	return 0;
}

int html_flame_add(struct html_data *d, const struct outlier *o, uint64_t w)
{
	const struct outlier_explanation *x = &o->why;
	uint32_t at = 0;
	int err;

	if (!d->nr_nodes) {
		if (agg_grow((void **)&d->nodes, &d->cap_nodes, 0, sizeof(*d->nodes)))
			return -ENOMEM;
		d->nodes[0] = (struct html_node){ .name = "all", .kind = HTML_FRAME_ROOT };
		d->nr_nodes = 1;
	}
	d->nodes[0].weight_ns += w;
	err = frames(d, &at, x->user_stack ? x->user_stack : "", HTML_FRAME_USER, w);
	if (!err)
		err = step(d, &at, o->syscall, strnlen(o->syscall, sizeof(o->syscall)),
			   HTML_FRAME_SYSCALL, w);
	if (!err)
		err = frames(d, &at, x->kernel_stack ? x->kernel_stack : "", HTML_FRAME_KERNEL, w);
	if (err == 1) {
		d->stacks_cut++;
		err = 0;
	}
	return err;
}

static int cmp_desc(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? 1 : a > b ? -1 : 0;
}

/*
 * The least weight drawn: a frame at least FLAME_MIN_PX wide, and no more
 * than HTML_MAX_FRAMES of them (a child weighs no more than its parent: what
 * is drawn hangs together).
 */
static uint64_t weight_cut(const struct html_data *d)
{
	uint64_t total = d->nodes[0].weight_ns, cut, *w;
	size_t i;

	cut = (uint64_t)((double)total * FLAME_MIN_PX / FLAME_WIDTH) + 1;
	if (d->nr_nodes <= HTML_MAX_FRAMES)
		return cut;
	w = malloc(d->nr_nodes * sizeof(*w));
	if (!w)
		return total;
	for (i = 0; i < d->nr_nodes; i++)
		w[i] = d->nodes[i].weight_ns;
	qsort(w, d->nr_nodes, sizeof(*w), cmp_desc);
	/* Strictly heavier than the first frame left out. */
	if (w[HTML_MAX_FRAMES] + 1 > cut)
		cut = w[HTML_MAX_FRAMES] + 1;
	free(w);
	return cut;
}

static const char *const kind_class[] = { "root", "usr", "sys", "krn" };

static void frame_svg(FILE *f, const struct html_data *d, uint32_t i, double x, unsigned int depth)
{
	const struct html_node *n = &d->nodes[i];
	double total = (double)d->nodes[0].weight_ns, w = (double)n->weight_ns / total;
	double px = w * FLAME_WIDTH;
	char dur[16];

	fprintf(f, "<g class=\"fr %s\" data-x=\"%.7f\" data-w=\"%.7f\" data-d=\"%u\"><title>",
		kind_class[n->kind], x, w, depth);
	html_text(f, n->name, 255);
	fprintf(f, "\n%s beyond normal, %.2f%%</title>", html_dur(n->weight_ns, dur, sizeof(dur)),
		100.0 * w);
	fprintf(f, "<rect x=\"%.1f\" y=\"%u\" width=\"%.1f\" height=\"%u\"/>", x * FLAME_WIDTH,
		depth * FLAME_ROW, px, FLAME_ROW - 1);
	fprintf(f, "<text x=\"%.1f\" y=\"%u\">", x * FLAME_WIDTH + 3, depth * FLAME_ROW + 12);
	if (px >= 3 * FLAME_CHAR_PX)
		html_text_cut(f, n->name, 255, (size_t)((px - 6) / FLAME_CHAR_PX));
	fprintf(f, "</text></g>\n");
}

/* The frames drawn, depth first; returns how many; *depth_max the deepest row. */
static size_t frames_svg(FILE *f, const struct html_data *d, uint64_t cut, unsigned int *depth_max)
{
	uint32_t stack[FLAME_PENDING], child;
	double xs[FLAME_PENDING], x;
	unsigned int sp = 0;
	size_t drawn = 0;

	stack[0] = 0;
	xs[0] = 0;
	sp = 1;
	while (sp) {
		uint32_t i = stack[--sp];
		unsigned int depth = 0;
		uint32_t p;

		for (p = i; p; p = d->nodes[p].parent)
			depth++;
		frame_svg(f, d, i, xs[sp], depth);
		drawn++;
		if (depth > *depth_max)
			*depth_max = depth;
		x = xs[sp];
		for (child = d->nodes[i].first_child; child; child = d->nodes[child].next_sibling) {
			if (d->nodes[child].weight_ns < cut || sp >= FLAME_PENDING)
				continue;
			stack[sp] = child;
			xs[sp++] = x;
			x += (double)d->nodes[child].weight_ns / (double)d->nodes[0].weight_ns;
		}
	}
	return drawn;
}

void html_flame(FILE *f, const struct html_data *d)
{
	unsigned int depth_max = 0;
	char *svg = NULL;
	size_t len, drawn;
	FILE *body;
	uint64_t cut;

	fprintf(f, "<section id=\"flame\"><h2>Where the time beyond normal went</h2>\n");
	if (!d->nr_nodes || !d->nodes[0].weight_ns) {
		fprintf(f, "<p>No outlier took longer than its normal.</p></section>\n");
		return;
	}
	fprintf(f, "<p>Each outlier's stack, user frames from the outermost down, then the "
		   "syscall (red), then kernel frames: a frame is as wide as the time the outliers "
		   "through it spent beyond their normal (the quantile estimate behind the "
		   "threshold, or the threshold when none). Click a frame to zoom, search "
		   "below.</p>\n<p class=\"tools\"><input id=\"fsearch\" type=\"search\" "
		   "placeholder=\"search frames\"> <button id=\"freset\" type=\"button\">reset "
		   "zoom</button> <span id=\"fmatch\"></span></p>\n");
	cut = weight_cut(d);
	/* The rows are known once drawn: the frames go to a buffer, the svg's height first. */
	body = open_memstream(&svg, &len);
	if (!body)
		return;
	drawn = frames_svg(body, d, cut, &depth_max);
	if (fclose(body)) {
		free(svg);
		return;
	}
	if (drawn < d->nr_nodes || d->stacks_cut)
		fprintf(f,
			"<p class=\"sampled\">Drawn: %zu of %zu frames, each at least %.2f%% of "
			"the total%s; %" PRIu64 " outliers' stacks cut short (the tree holds %d "
			"frames at most).</p>\n",
			drawn, d->nr_nodes, 100.0 * (double)cut / (double)d->nodes[0].weight_ns,
			drawn < d->nr_nodes ? " (narrower ones left out)" : "", d->stacks_cut,
			HTML_MAX_NODES);
	fprintf(f,
		"<svg id=\"flamesvg\" class=\"flame\" width=\"%.0f\" height=\"%u\" "
		"viewBox=\"0 0 %.0f %u\" xmlns=\"http://www.w3.org/2000/svg\">\n%s</svg>\n",
		FLAME_WIDTH, (depth_max + 1) * FLAME_ROW, FLAME_WIDTH, (depth_max + 1) * FLAME_ROW,
		svg);
	free(svg);
	fprintf(f, "</section>\n");
}
