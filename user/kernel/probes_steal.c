// SPDX-License-Identifier: GPL-2.0-only
/*
 * Where the BPF side finds a CPU's steal clock (kern-bpf/steal.bpf.h): the
 * distance from the CPU's runqueue to it, both per-CPU variables, as the
 * kernel's BTF places them in the per-CPU section.
 */
#include <bpf/btf.h>
#include <string.h>

#include "probes_steal.h"

/* The offset of variable name in the data section sec of btf; -1 if it is not there. */
static long long datasec_offset(const struct btf *btf, const struct btf_type *sec, const char *name)
{
	const struct btf_var_secinfo *vs = btf_var_secinfos(sec);
	unsigned int i;

	for (i = 0; i < btf_vlen(sec); i++, vs++) {
		const struct btf_type *var = btf__type_by_id(btf, vs->type);

		if (var && btf_is_var(var) &&
		    !strcmp(btf__name_by_offset(btf, var->name_off), name))
			return vs->offset;
	}
	return -1;
}

long long probes_steal_from_rq(const struct btf *btf)
{
	const struct btf_type *sec, *st;
	long long rq, steal;
	int id;

	if (!btf)
		return 0;
	id = btf__find_by_name_kind(btf, ".data..percpu", BTF_KIND_DATASEC);
	sec = id > 0 ? btf__type_by_id(btf, id) : NULL;
	id = btf__find_by_name_kind(btf, "kvm_steal_time", BTF_KIND_STRUCT);
	st = id > 0 ? btf__type_by_id(btf, id) : NULL;
	/* Its counter is its first member, 64 bits (arch/x86/include/uapi/asm/kvm_para.h). */
	if (!sec || !st || !btf_vlen(st) || btf_members(st)[0].offset != 0 ||
	    strcmp(btf__name_by_offset(btf, btf_members(st)[0].name_off), "steal"))
		return 0;
	rq = datasec_offset(btf, sec, "runqueues");
	steal = datasec_offset(btf, sec, "steal_time");
	return rq < 0 || steal < 0 ? 0 : steal - rq;
}
