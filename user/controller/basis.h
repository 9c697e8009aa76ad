/* SPDX-License-Identifier: GPL-2.0-only */
/* What each threshold stands on, handed from the controller to the consumer by generation. */
#ifndef SCLAT_BASIS_H
#define SCLAT_BASIS_H

#include <stdbool.h>
#include "sclat_abi.h"

/* The longest class name a basis carries ("pid 123 (nginx) fd:socket/inet"), its NUL included. */
#define BASIS_CLASS_MAX 64

/* Points of the window's tail a basis keeps: its share above tail_ns * 2^(k / 2). */
#define BASIS_TAIL_POINTS 24

/* The fitted tail (controller/tail_fit.h) a false_alarm threshold came from. */
struct basis_fit {
	bool ok;	    /* a fit: when false, the fields below say nothing */
	__u64 start_ns;	    /* where the tail starts (u) */
	double share;	    /* the window's share of calls at or above it */
	double above;	    /* the window's (decayed) calls at or above it */
	double shape;	    /* xi */
	double scale_ns;    /* sigma */
	__u64 apart_ns;	    /* where a population left out of it starts (stalls); 0: none */
	double apart_share; /* that population's share of calls */
	__u64 far_ns;	    /* from where one may hold more: far from the body; 0: nowhere */
	double censored;    /* of above: calls known only to be past the threshold */
};

/*
 * What the window looked like when the threshold was set: how an outlier
 * that crossed it is judged (controller/surprise.h). window 0: nothing learnt.
 */
struct basis_window {
	double calls;		       /* the window's (decayed) calls */
	__u64 normal_ns;	       /* its median: a normal call of the syscall or class */
	__u64 max_ns;		       /* no call of the window was slower */
	__u64 tail_ns;		       /* where tail[] starts: the threshold */
	float tail[BASIS_TAIL_POINTS]; /* share above tail_ns * 2^(k / 2) */
	double rate;		       /* the rate the threshold aims at (1 - quantile); 0 static */
	struct basis_fit fit;
	double io_share; /* the share of its calls that waited for storage lately (a rate's) */
	__u64 io_ns;	 /* from where such a call is a stall (engine_io.c); 0: judged as any */
};

/* What a threshold crossed by an outlier stood on. */
struct threshold_basis {
	__u64 estimate_ns;		  /* quantile estimate, 0 when static */
	double quantile;		  /* its quantile, 0 when static */
	__u64 samples;			  /* samples behind it */
	char class_name[BASIS_CLASS_MAX]; /* a class cell's threshold: its class; "": the syscall's
					   */
	struct basis_window w;
	/*
	 * basis_lookup: the outlier crossed a threshold under this one of its
	 * generation, its storage threshold (struct sclat_brake's io_ns): it
	 * waited for storage where its calls seldom do.
	 */
	bool storage_stall;
};

/*
 * Every threshold the controller publishes gets the next generation of its
 * syscall (16 bits, in the same 64-bit word as the threshold, see
 * sclat_threshold_word()). The BPF side copies the word into each outlier, so
 * the consumer looks the basis up by (syscall, generation) directly.
 *
 * Concurrency: one writer (the controller thread) and any number of readers
 * (the ring-buffer consumer), no locks, readers never wait for the writer.
 *  - The writer fills the cell of generation g under a sequence count (odd
 *    while writing) and only then returns the word that carries g; the caller
 *    stores that word into shared memory with release semantics. An outlier
 *    can carry g only after the BPF side loaded that word, so the cell of g
 *    was complete before any outlier named g.
 *  - The cell of g is reused by generation g + BASIS_HISTORY. A reader copies
 *    the cell under the sequence count (retrying while a write is in
 *    progress) and accepts it only if it still holds g and the threshold the
 *    outlier crossed; an outlier that waited in the ring buffer through
 *    BASIS_HISTORY more changes of its threshold gets "unknown", never
 *    another threshold's basis. (16-bit generations repeat after 65536
 *    changes, at least 1.8 hours at the shortest controller interval: far
 *    beyond any ring-buffer delay.)
 */
#define BASIS_HISTORY 16

/* A ring per syscall, then one per class cell (index SCLAT_MAX_SYSCALLS + cell). */
#define BASIS_RINGS (SCLAT_MAX_SYSCALLS + SCLAT_CLASS_CELLS_MAX)

struct basis_cell {
	unsigned long seq; /* odd while being written */
	__u32 gen;	   /* the 16-bit generation it holds */
	__u64 threshold_ns;
	__u64 estimate_ns;
	__u64 quantile_bits; /* a double */
	__u64 samples;
	char class_name[BASIS_CLASS_MAX];
	struct basis_window w;
};

struct basis_ring {
	__u32 gen; /* the last generation published (writer only) */
	struct basis_cell cell[BASIS_HISTORY];
};

/*
 * The window of each ring as the controller last saw it (every interval), under
 * a sequence count of its own: a threshold may hold for minutes while its
 * window goes on learning, and an outlier is judged against its syscall's (or
 * class's) normal of now, not of when its threshold was set.
 */
struct basis_latest {
	unsigned long seq; /* odd while being written */
	__u32 gen;	   /* the ring's generation then: older outliers only (a cell's next
			    * class starts at a later one) */
	struct basis_window w;
};

struct basis_table {
	struct basis_ring ring[BASIS_RINGS];
	struct basis_latest latest[BASIS_RINGS];
};

/*
 * Publish the next generation of ring nr's threshold (a syscall, or
 * SCLAT_MAX_SYSCALLS + a class cell) with its basis. Returns the
 * threshold word (sclat_threshold_word()) for the caller to store. Writer only.
 */
__u64 basis_publish(struct basis_table *t, unsigned int nr, __u64 threshold_ns,
		    const struct threshold_basis *b);

/* Ring nr's window now (w->calls 0: nothing learnt). Writer only. */
void basis_window_publish(struct basis_table *t, unsigned int nr, const struct basis_window *w);

/*
 * The basis of generation gen of nr's threshold, which was threshold_ns, with
 * nr's window now (its last basis_window_publish(), when there was one).
 * False (and *out zeroed) when that generation is no longer kept. An
 * outlier's threshold_ns under the generation's threshold is its storage
 * threshold, which moves without a generation of its own (out->storage_stall).
 * Lock-free.
 */
bool basis_lookup(const struct basis_table *t, unsigned int nr, __u32 gen, __u64 threshold_ns,
		  struct threshold_basis *out);

#endif
