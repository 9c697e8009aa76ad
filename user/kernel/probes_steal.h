/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef SCLAT_PROBES_STEAL_H
#define SCLAT_PROBES_STEAL_H

struct btf;

/*
 * The distance in bytes from a CPU's runqueue (the kernel's runqueues) to its
 * KVM steal clock (steal_time), both per-CPU variables, as the kernel's BTF
 * btf places them; 0 when it has either not (no KVM guest support, or no
 * per-CPU variables in its BTF): calls then have no steal.
 */
long long probes_steal_from_rq(const struct btf *btf);

#endif /* SCLAT_PROBES_STEAL_H */
