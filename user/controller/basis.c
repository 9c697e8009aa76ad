// SPDX-License-Identifier: GPL-2.0-only
#include <string.h>
#include "basis.h"

_Static_assert((BASIS_HISTORY & (BASIS_HISTORY - 1)) == 0 &&
		       (SCLAT_GEN_MASK + 1) % BASIS_HISTORY == 0,
	       "a 16-bit generation must map to the same cell before and after it wraps");

__u64 basis_publish(struct basis_table *t, unsigned int nr, __u64 threshold_ns,
		    const struct threshold_basis *b)
{
	struct basis_ring *r;
	struct basis_cell *c;
	unsigned long seq;
	__u64 qbits;
	__u32 gen;

	if (nr >= BASIS_RINGS)
		return sclat_threshold_word(threshold_ns, 0);
	r = &t->ring[nr];
	gen = (r->gen + 1) & SCLAT_GEN_MASK;
	r->gen = gen;
	c = &r->cell[gen % BASIS_HISTORY];
	memcpy(&qbits, &b->quantile, sizeof(qbits));

	seq = __atomic_load_n(&c->seq, __ATOMIC_RELAXED);
	__atomic_store_n(&c->seq, seq + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	__atomic_store_n(&c->gen, gen, __ATOMIC_RELAXED);
	__atomic_store_n(&c->threshold_ns, threshold_ns, __ATOMIC_RELAXED);
	__atomic_store_n(&c->estimate_ns, b->estimate_ns, __ATOMIC_RELAXED);
	__atomic_store_n(&c->quantile_bits, qbits, __ATOMIC_RELAXED);
	__atomic_store_n(&c->samples, b->samples, __ATOMIC_RELAXED);
	memcpy(c->class_name, b->class_name, sizeof(c->class_name));
	memcpy(&c->w, &b->w, sizeof(c->w));
	__atomic_store_n(&c->seq, seq + 2, __ATOMIC_RELEASE);
	return sclat_threshold_word(threshold_ns, gen);
}

void basis_window_publish(struct basis_table *t, unsigned int nr, const struct basis_window *w)
{
	struct basis_latest *l;
	unsigned long seq;

	if (nr >= BASIS_RINGS)
		return;
	l = &t->latest[nr];
	seq = __atomic_load_n(&l->seq, __ATOMIC_RELAXED);
	__atomic_store_n(&l->seq, seq + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	__atomic_store_n(&l->gen, t->ring[nr].gen, __ATOMIC_RELAXED);
	memcpy(&l->w, w, sizeof(l->w));
	__atomic_store_n(&l->seq, seq + 2, __ATOMIC_RELEASE);
}

/*
 * Ring nr's window now into *w, if one was published since generation gen
 * was (w left as it is otherwise: a cell's new class has no window of its
 * predecessor's).
 */
static void latest_read(const struct basis_table *t, unsigned int nr, __u32 gen,
			struct basis_window *w)
{
	const struct basis_latest *l = &t->latest[nr];
	struct basis_window copy;
	unsigned long s1, s2;
	__u32 since;

	do {
		s1 = __atomic_load_n(&l->seq, __ATOMIC_ACQUIRE);
		since = (__atomic_load_n(&l->gen, __ATOMIC_RELAXED) - gen) & SCLAT_GEN_MASK;
		memcpy(&copy, &l->w, sizeof(copy));
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		s2 = __atomic_load_n(&l->seq, __ATOMIC_RELAXED);
	} while ((s1 & 1) || s1 != s2);
	if (s1 && copy.calls > 0 && since < BASIS_HISTORY)
		*w = copy;
}

bool basis_lookup(const struct basis_table *t, unsigned int nr, __u32 gen, __u64 threshold_ns,
		  struct threshold_basis *out)
{
	const struct basis_cell *c;
	unsigned long s1, s2;
	__u64 thr, qbits;
	__u32 g;

	memset(out, 0, sizeof(*out));
	if (nr >= BASIS_RINGS)
		return false;
	c = &t->ring[nr].cell[gen % BASIS_HISTORY];
	do {
		s1 = __atomic_load_n(&c->seq, __ATOMIC_ACQUIRE);
		g = __atomic_load_n(&c->gen, __ATOMIC_RELAXED);
		thr = __atomic_load_n(&c->threshold_ns, __ATOMIC_RELAXED);
		out->estimate_ns = __atomic_load_n(&c->estimate_ns, __ATOMIC_RELAXED);
		qbits = __atomic_load_n(&c->quantile_bits, __ATOMIC_RELAXED);
		out->samples = __atomic_load_n(&c->samples, __ATOMIC_RELAXED);
		memcpy(out->class_name, c->class_name, sizeof(out->class_name));
		out->class_name[BASIS_CLASS_MAX - 1] = '\0';
		memcpy(&out->w, &c->w, sizeof(out->w));
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		s2 = __atomic_load_n(&c->seq, __ATOMIC_RELAXED);
	} while ((s1 & 1) || s1 != s2);
	memcpy(&out->quantile, &qbits, sizeof(qbits));
	if (g == gen && threshold_ns <= thr) {
		latest_read(t, nr, gen, &out->w);
		out->storage_stall = threshold_ns < thr;
		return true;
	}
	memset(out, 0, sizeof(*out));
	return false;
}
