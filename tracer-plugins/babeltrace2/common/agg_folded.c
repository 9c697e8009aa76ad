// SPDX-License-Identifier: GPL-2.0-only
/* Folded stacks for flame graphs (agg_folded.h): lines made, weighed and put in order. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "util/escape.h"
#include "aggregate.h"

void agg_fold(struct agg *a)
{
	a->fold = true;
}

/*
 * Append s (n bytes) to buf at *used as one frame: a ';' or a blank would
 * split it, and a trace is anyone's file: those and every character that
 * cannot be printed (escape.h) become '_'. 0, or -ENOSPC.
 */
static int folded_append(char *buf, size_t len, size_t *used, const char *s, size_t n)
{
	unsigned int cp;
	size_t i, c;

	if (*used + n + 2 > len)
		return -ENOSPC;
	if (*used)
		buf[(*used)++] = ';';
	for (i = 0; i < n && s[i]; i += c) {
		if (text_next(s + i, n - i, &c, &cp) && cp != ';' && cp != ' ') {
			memcpy(buf + *used, s + i, c);
			*used += c;
		} else {
			buf[(*used)++] = '_';
			c = 1;
		}
	}
	buf[*used] = '\0';
	return 0;
}

/* The functions of a stack's frames (innermost first, ';'-joined), outermost first. */
static int folded_frames(char *buf, size_t len, size_t *used, const char *stack)
{
	const char *end = stack + strlen(stack), *start;
	size_t n;

	while (end > stack) {
		start = end;
		while (start > stack && start[-1] != ';')
			start--;
		/* The function, without its offset, module, binary or source line. */
		n = strcspn(start, "+ ;");
		if (n && folded_append(buf, len, used, start, n))
			return -ENOSPC;
		end = start > stack ? start - 1 : stack;
	}
	return 0;
}

int agg_folded_line(const struct outlier *o, char *buf, size_t len)
{
	size_t used = 0;

	if (!len)
		return -ENOSPC;
	buf[0] = '\0';
	/* comm, the user frames from main down, the syscall, the kernel frames down. */
	if (folded_append(buf, len, &used, o->comm, strnlen(o->comm, sizeof(o->comm))) ||
	    folded_frames(buf, len, &used, o->why.user_stack ? o->why.user_stack : "") ||
	    folded_append(buf, len, &used, o->syscall, strnlen(o->syscall, sizeof(o->syscall))) ||
	    folded_frames(buf, len, &used, o->why.kernel_stack ? o->why.kernel_stack : ""))
		return -ENOSPC;
	return 0;
}

/*
 * The folded line of o, its weight its latency; 0, -ENOMEM, or -ENOSPC (the
 * line did not fit: a bug, not a lack of memory). The line holds the
 * functions of both stacks, each frame no longer than it is in its stack.
 */
int agg_folded_add(struct agg *a, const struct outlier *o)
{
	const char *k = o->why.kernel_stack ? o->why.kernel_stack : "";
	const char *u = o->why.user_stack ? o->why.user_stack : "";
	size_t len = sizeof(o->comm) + sizeof(o->syscall) + strlen(k) + strlen(u) + 4;
	const char *kept;
	char *line = malloc(len);
	int err;

	if (!line)
		return -ENOMEM;
	err = agg_folded_line(o, line, len);
	if (!err)
		err = agg_strings_add(&a->folded, line, o->latency_ns, &kept);
	free(line);
	return err;
}

static int cmp_folded(const void *x, const void *y)
{
	return strcmp(((const struct agg_folded *)x)->line, ((const struct agg_folded *)y)->line);
}

/* The folded lines in order: the same trace folds the same way every time. */
void agg_folded_finish(struct agg *a)
{
	size_t i;

	if (!a->folded.nr)
		return;
	a->folded_lines = calloc(a->folded.nr, sizeof(*a->folded_lines));
	if (!a->folded_lines)
		return;
	for (i = 0; i < a->folded.size; i++)
		if (a->folded.slots[i].s)
			a->folded_lines[a->nr_folded_lines++] =
				(struct agg_folded){ a->folded.slots[i].s,
						     a->folded.slots[i].value };
	qsort(a->folded_lines, a->nr_folded_lines, sizeof(*a->folded_lines), cmp_folded);
}
