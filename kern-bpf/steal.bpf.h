/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Steal: the time the hypervisor held a virtual CPU while a syscall was on
 * it. A VM's host preempts its vCPU threads; the guest sees a call that never
 * left its CPU take 0.2-7 ms, as long as a real stall (on the reference
 * VM, 12 of a getppid loop's 40 calls of 100 us or more). KVM's
 * paravirtual steal clock (struct kvm_steal_time, one per CPU, the kernel's
 * steal_time) counts that time in ns, updated by the host each time it runs
 * the vCPU again: read before and after, its difference is what the host
 * took.
 *
 * A call's steal is counted while the call is on a CPU: from sys_enter (the
 * record's steal_base) to its first switch away, and from each switch back
 * (call_resume rebases steal_base on the CPU it comes back to: per-CPU
 * counters are never compared with each other). Off its CPU its time is a
 * wait of its own, or runqueue time, whatever the host did meanwhile. The
 * record keeps the clock's low 32 bits: a call's steal is counted modulo
 * 4.3 s.
 *
 * Only KVM guests have the clock (Firecracker, QEMU/KVM, most clouds); a
 * kernel without KVM guest support has no steal_time in its BTF, userspace
 * sets no distance (below) and a call's steal is 0; on a KVM guest whose
 * host offers no steal clock, the counter stays 0.
 *
 * Part of sclat.bpf.c, after cpu_page.bpf.h and target.bpf.h (kernel_cast).
 */
#ifndef SCLAT_STEAL_BPF_H
#define SCLAT_STEAL_BPF_H

/*
 * The kernel's struct kvm_steal_time, its counter only: a kernel without KVM
 * guest support has none in vmlinux.h.
 */
struct kvm_steal_time___sclat {
	__u64 steal;
} __attribute__((preserve_access_index));

/*
 * Where a CPU's steal clock is, from where its runqueue is: both are per-CPU
 * variables, the kernel's steal_time and runqueues, so their distance is the
 * same on every CPU: the distance of their offsets in the per-CPU section,
 * which the kernel's BTF gives (userspace sets it, probes_steal.c; 0: no
 * steal clock). Neither is a kernel symbol a program may name without
 * CONFIG_KALLSYMS_ALL, and a task reaches its runqueue (struct cfs_rq's rq).
 */
const volatile __s64 steal_from_rq = 0;

/*
 * The address of this CPU's steal clock, from the runqueue of current, a
 * task on it: noted once per CPU, in its record (cpu_entry.steal_at), by the
 * first switch seen there. 0 if none.
 */
static __always_inline __u64 steal_clock_at(struct task_struct *current)
{
	struct cfs_rq *cfs;
	struct rq *rq;

	if (!steal_from_rq || !bpf_core_field_exists(struct cfs_rq, rq))
		return 0;
	cfs = current->se.cfs_rq;
	rq = cfs ? cfs->rq : NULL;
	if (!rq || rq->cpu != bpf_get_smp_processor_id())
		return 0;
	return (__u64)rq + steal_from_rq;
}

/*
 * The steal clock at at (cpu_entry.steal_at), in ns: 0 without one (at 0
 * reads 0). A fault-safe load, no helper call.
 */
static __always_inline __u64 steal_read(__u64 at)
{
	if (!bpf_rdonly_cast || !bpf_core_type_exists(struct kvm_steal_time___sclat))
		return 0;
	return kernel_cast(at, struct kvm_steal_time___sclat)->steal;
}

/*
 * The steal of the call in a CPU's record, up to now, from the record's
 * steal_at and steal_base: since its entry, with what it had when parked.
 */
static __always_inline __u64 steal_of(__u64 at, __u32 base)
{
	return (__u32)(steal_read(at) - base);
}

#endif /* SCLAT_STEAL_BPF_H */
