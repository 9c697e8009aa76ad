// SPDX-License-Identifier: GPL-2.0-only
/*
 * The one heap (util/heap.h): items come out in before()'s order, ties
 * included, over many pushes and pops; a bounded top-N keeps the largest and
 * grows no further than its bound; items larger than a swap's piece move whole.
 */
#include <stdint.h>
#include <stdlib.h>
#include "util/heap.h"
#include "unit.h"

struct item {
	uint64_t key;
	uint64_t seq; /* the order of arrival */
};

static bool item_smaller(const void *pa, const void *pb)
{
	const struct item *a = pa, *b = pb;

	return a->key < b->key;
}

/* Smaller first, then the first to arrive: what kernelize asks of its events. */
static bool item_earlier(const void *pa, const void *pb)
{
	const struct item *a = pa, *b = pb;

	return a->key != b->key ? a->key < b->key : a->seq < b->seq;
}

static uint64_t next_random(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void test_pops_in_order(void)
{
	struct heap h;
	struct item it, prev = { 0, 0 };
	uint64_t s = 88172645463325252ULL, i;
	bool sorted = true;

	heap_init(&h, sizeof(struct item), item_smaller);
	CHECK(!heap_top(&h), "an empty heap has no top");
	for (i = 0; i < 1000; i++)
		CHECK_EQ_INT(heap_push(&h, &(struct item){ next_random(&s) % 100000, i }), 0);
	CHECK_EQ_U64(h.nr, 1000);
	for (i = 0; i < 1000; i++) {
		heap_pop(&h, &it);
		sorted = sorted && it.key >= prev.key;
		prev = it;
	}
	CHECK(sorted, "popped out of order");
	CHECK_EQ_U64(h.nr, 0);
	CHECK(!heap_top(&h), "no top once all are popped");
	heap_free(&h);
}

/* Pushes and pops mixed, as kernelize releases events while reading more. */
static void test_pushes_and_pops_mixed(void)
{
	struct heap h;
	struct item it;
	uint64_t s = 2463534242ULL, floor = 0, i, popped = 0;
	bool ok = true;

	heap_init(&h, sizeof(struct item), item_smaller);
	for (i = 0; i < 5000; i++) {
		/* Never below what was released: a later input reaches no further back. */
		if (heap_push(&h, &(struct item){ floor + next_random(&s) % 1000, i }))
			ok = false;
		if (i % 3 == 2) {
			heap_pop(&h, &it);
			ok = ok && it.key >= floor;
			floor = it.key;
			popped++;
		}
	}
	while (heap_top(&h)) {
		heap_pop(&h, &it);
		ok = ok && it.key >= floor;
		floor = it.key;
		popped++;
	}
	CHECK(ok, "an item came out before a smaller one");
	CHECK_EQ_U64(popped, 5000);
	heap_free(&h);
}

/* Equal keys: all of them come out, together, in the order before() gives them. */
static void test_ties(void)
{
	struct heap h;
	struct item it, prev = { 0, 0 };
	uint64_t i, n[3] = { 0 };
	bool ordered = true;

	heap_init(&h, sizeof(struct item), item_earlier);
	for (i = 0; i < 300; i++)
		heap_push(&h, &(struct item){ (i * 7) % 3, i });
	for (i = 0; i < 300; i++) {
		heap_pop(&h, &it);
		n[it.key]++;
		if (i && (it.key < prev.key || (it.key == prev.key && it.seq < prev.seq)))
			ordered = false;
		prev = it;
	}
	CHECK(ordered, "ties came out of their order of arrival");
	CHECK_EQ_U64(n[0], 100);
	CHECK_EQ_U64(n[1], 100);
	CHECK_EQ_U64(n[2], 100);
	/* Without a tie-break, equal items still all come out. */
	heap_free(&h);
	heap_init(&h, sizeof(struct item), item_smaller);
	for (i = 0; i < 50; i++)
		heap_push(&h, &(struct item){ 5, i });
	for (i = 0; i < 50 && heap_top(&h); i++)
		heap_pop(&h, NULL);
	CHECK_EQ_U64(i, 50);
	CHECK_EQ_U64(h.nr, 0);
	heap_free(&h);
}

static int cmp_u64_desc(const void *pa, const void *pb)
{
	uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;

	return a < b ? 1 : a > b ? -1 : 0;
}

/* A full top-N: the N largest of many, the array no longer than N. */
static void test_bounded_keeps_the_largest(void)
{
	enum { N = 10, M = 10000 };
	uint64_t all[M], kept[N], s = 1234567ULL;
	const struct item *items;
	struct heap h;
	size_t i;

	heap_init(&h, sizeof(struct item), item_smaller);
	for (i = 0; i < M; i++) {
		all[i] = next_random(&s) % 1000000;
		CHECK_EQ_INT(heap_keep(&h, &(struct item){ all[i], i }, N), 0);
	}
	CHECK_EQ_U64(h.nr, N);
	CHECK(h.cap <= N, "the array grew to %zu items, past its bound %d", h.cap, N);
	items = h.items;
	for (i = 0; i < N; i++)
		kept[i] = items[i].key;
	qsort(all, M, sizeof(all[0]), cmp_u64_desc);
	qsort(kept, N, sizeof(kept[0]), cmp_u64_desc);
	for (i = 0; i < N; i++)
		CHECK_EQ_U64(kept[i], all[i]);
	/* On top, the least of them: the first to give way. */
	CHECK_EQ_U64(((const struct item *)heap_top(&h))->key, all[N - 1]);
	heap_free(&h);
}

/* Ties at the bound: the first kept stays, an equal item later is not taken. */
static void test_bounded_ties_keep_the_first(void)
{
	const struct item *items;
	struct heap h;
	uint64_t i;

	heap_init(&h, sizeof(struct item), item_smaller);
	for (i = 0; i < 3; i++)
		heap_keep(&h, &(struct item){ 7, i }, 3);
	heap_keep(&h, &(struct item){ 7, 99 }, 3);
	items = h.items;
	for (i = 0; i < h.nr; i++)
		CHECK(items[i].seq != 99, "an equal item replaced a kept one");
	heap_keep(&h, &(struct item){ 8, 100 }, 3);
	CHECK_EQ_U64(h.nr, 3);
	CHECK_EQ_U64(((const struct item *)heap_top(&h))->key, 7);
	/* A bound of 0 keeps nothing. */
	heap_free(&h);
	heap_keep(&h, &(struct item){ 1, 0 }, 0);
	CHECK_EQ_U64(h.nr, 0);
	heap_free(&h);
}

/* Items larger than the swap's 64-byte pieces, and of an odd size, move whole. */
struct big {
	uint64_t key;
	char fill[181];
};

static bool big_smaller(const void *a, const void *b)
{
	return ((const struct big *)a)->key < ((const struct big *)b)->key;
}

static void test_big_items_move_whole(void)
{
	struct big b, out;
	struct heap h;
	uint64_t s = 99991ULL, i, prev = 0;
	bool whole = true, sorted = true;

	heap_init(&h, sizeof(struct big), big_smaller);
	for (i = 0; i < 200; i++) {
		b.key = next_random(&s) % 5000;
		memset(b.fill, (int)(b.key % 251), sizeof(b.fill));
		heap_push(&h, &b);
	}
	for (i = 0; i < 200; i++) {
		heap_pop(&h, &out);
		whole = whole && out.fill[0] == (char)(out.key % 251) &&
			out.fill[sizeof(out.fill) - 1] == (char)(out.key % 251) &&
			out.fill[100] == (char)(out.key % 251);
		sorted = sorted && out.key >= prev;
		prev = out.key;
	}
	CHECK(whole, "an item came out mixed with another");
	CHECK(sorted, "big items popped out of order");
	heap_free(&h);
}

int main(void)
{
	RUN(test_pops_in_order);
	RUN(test_pushes_and_pops_mixed);
	RUN(test_ties);
	RUN(test_bounded_keeps_the_largest);
	RUN(test_bounded_ties_keep_the_first);
	RUN(test_big_items_move_whole);
	return unit_done();
}
