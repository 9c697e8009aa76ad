// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ksyms.h"
#include "util/clock.h"

/* A symbol further than this from the next one does not cover what lies in between. */
#define KSYM_SPAN_MAX  (1ULL << 20)
/* Reloads on a miss no more often than this (ns): a bad address must not reread 10 MB each time. */
#define KSYM_RELOAD_NS (5ULL * 1000000000ULL)

struct ksym {
	__u64 addr;
	unsigned int name; /* offsets in ksyms.names */
	unsigned int module;
};

struct ksyms {
	char *path;
	struct ksym *syms;
	size_t n, cap;
	char *names;
	size_t names_len, names_cap;
	__u64 loaded_ns;
};

static int name_add(struct ksyms *k, const char *s, unsigned int *off)
{
	size_t len = strlen(s) + 1;
	char *p;

	if (k->names_len + len > k->names_cap) {
		size_t cap = k->names_cap ? 2 * k->names_cap : 1 << 20;

		while (cap < k->names_len + len)
			cap *= 2;
		p = realloc(k->names, cap);
		if (!p)
			return -ENOMEM;
		k->names = p;
		k->names_cap = cap;
	}
	memcpy(k->names + k->names_len, s, len);
	*off = k->names_len;
	k->names_len += len;
	return 0;
}

static int sym_cmp(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Reads the text symbols of path into t (zeroed); 0 or a negative errno. */
static int ksyms_read(const char *path, struct ksyms *t)
{
	char line[512], name[256], module[128], type;
	unsigned long long addr;
	bool any_addr = false;
	FILE *f = fopen(path, "re");
	unsigned int empty;
	int fields, err;

	if (!f)
		return -errno;
	/* Offset 0 is the empty module name. */
	err = name_add(t, "", &empty);
	while (!err && fgets(line, sizeof(line), f)) {
		struct ksym *s;
		char *p;

		/* "address type name [module]": the type first, most lines are no function. */
		addr = strtoull(line, &p, 16);
		if (p == line || p[0] != ' ' || !p[1])
			continue;
		type = p[1];
		if (addr)
			any_addr = true;
		/* Functions only: t/T, and w/W (weak ones). */
		if (type != 't' && type != 'T' && type != 'w' && type != 'W')
			continue;
		module[0] = '\0';
		fields = sscanf(p + 2, "%255s [%127[^]]]", name, module);
		if (fields < 1)
			continue;
		if (t->n == t->cap) {
			size_t cap = t->cap ? 2 * t->cap : 65536;

			s = realloc(t->syms, cap * sizeof(*s));
			if (!s) {
				err = -ENOMEM;
				break;
			}
			t->syms = s;
			t->cap = cap;
		}
		s = &t->syms[t->n];
		s->addr = addr;
		s->module = 0;
		err = name_add(t, name, &s->name);
		if (!err && module[0])
			err = name_add(t, module, &s->module);
		if (!err)
			t->n++;
	}
	fclose(f);
	if (!err && !any_addr)
		err = -ENOENT;
	if (err)
		return err;
	qsort(t->syms, t->n, sizeof(*t->syms), sym_cmp);
	t->loaded_ns = clock_ns(CLOCK_MONOTONIC);
	return 0;
}

/* Read k->path again; k is left as it was when that fails. */
static int ksyms_reload(struct ksyms *k)
{
	struct ksyms t = {};
	int err = ksyms_read(k->path, &t);

	k->loaded_ns = clock_ns(CLOCK_MONOTONIC);
	if (err) {
		free(t.syms);
		free(t.names);
		return err;
	}
	free(k->syms);
	free(k->names);
	t.path = k->path;
	*k = t;
	return 0;
}

struct ksyms *ksyms_load(const char *path)
{
	struct ksyms *k = calloc(1, sizeof(*k));
	int err;

	if (!k)
		return NULL;
	k->path = strdup(path);
	err = k->path ? ksyms_read(path, k) : -ENOMEM;
	if (err) {
		ksyms_free(k);
		errno = -err;
		return NULL;
	}
	return k;
}

/* The symbol that covers addr, or NULL. */
static const struct ksym *ksym_find(const struct ksyms *k, __u64 addr)
{
	size_t lo = 0, hi = k->n, mid;
	__u64 end;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (k->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	end = lo < k->n ? k->syms[lo].addr : k->syms[lo - 1].addr + KSYM_SPAN_MAX;
	if (addr >= end || addr - k->syms[lo - 1].addr >= KSYM_SPAN_MAX)
		return NULL;
	return &k->syms[lo - 1];
}

bool ksyms_format(struct ksyms *k, __u64 addr, char *buf, size_t len)
{
	const struct ksym *s = k ? ksym_find(k, addr) : NULL;

	if (!s && k && clock_ns(CLOCK_MONOTONIC) - k->loaded_ns >= KSYM_RELOAD_NS &&
	    !ksyms_reload(k))
		s = ksym_find(k, addr);
	if (!s) {
		snprintf(buf, len, "0x%llx", (unsigned long long)addr);
		return false;
	}
	if (s->module)
		snprintf(buf, len, "%s+0x%llx [%s]", k->names + s->name,
			 (unsigned long long)(addr - s->addr), k->names + s->module);
	else
		snprintf(buf, len, "%s+0x%llx", k->names + s->name,
			 (unsigned long long)(addr - s->addr));
	return true;
}

void ksyms_free(struct ksyms *k)
{
	if (!k)
		return;
	free(k->syms);
	free(k->names);
	free(k->path);
	free(k);
}
