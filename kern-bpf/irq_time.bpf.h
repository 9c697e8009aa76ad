/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The time a CPU spends in interrupts while a syscall is current on it.
 * A timer tick with its softirqs takes 10-60 us on a virtual machine, and
 * hits a fast call one time in a few thousand: a getppid of 1 us then takes
 * 40, as often as a real stall would. Under the service judge
 * (SCLAT_JUDGE_SERVICE) that time is not the call's: sys_exit subtracts it
 * from the latency it judges.
 *
 * The handlers' tracepoints open and close a span (nested ones count once:
 * a hard interrupt inside a softirq). When a span closes while a call is in
 * the CPU's record, it is added to that call's sum, which is tagged with the
 * call's entry time: no store on the path of every syscall, and a sum left
 * from another call is never read. A call that left its CPU keeps what was
 * seen on the CPU it comes back to, if it is the same: an undercount, never
 * more than the call's own time. An exit never seen (attached inside a
 * handler) is healed by the next entry 10 ms later.
 */
#ifndef SCLAT_IRQ_TIME_BPF_H
#define SCLAT_IRQ_TIME_BPF_H

#define IRQ_STALE_NS 10000000ULL

static __always_inline void irq_span_open(void)
{
	struct cpu_page *p = cpu_page_get(true);
	struct cpu_entry *c;
	__u64 now;

	if (!p)
		return;
	c = &p->rec;
	now = bpf_ktime_get_ns();
	if (c->irq_depth && now - c->irq_start > IRQ_STALE_NS)
		c->irq_depth = 0;
	if (c->irq_depth++ == 0)
		c->irq_start = now;
}

static __always_inline void irq_span_close(void)
{
	struct cpu_page *p = cpu_page_get(true);
	struct cpu_entry *c;
	__u64 entry_ns, start;

	if (!p)
		return;
	c = &p->rec;
	if (!c->irq_depth || --c->irq_depth)
		return;
	entry_ns = c->entry_ns;
	if (!entry_ns)
		return;
	start = c->irq_start > entry_ns ? c->irq_start : entry_ns;
	if (c->irq_of != entry_ns) {
		c->irq_of = entry_ns;
		c->irq_ns = 0;
	}
	c->irq_ns += bpf_ktime_get_ns() - start;
}

/* The interrupt time of the call in c that entered at entry_ns, at most its latency. */
static __always_inline __u64 irq_time_of(const struct cpu_entry *c, __u64 entry_ns,
					 __u64 latency_ns)
{
	__u64 irq = c->irq_of == entry_ns ? c->irq_ns : 0;

	return irq < latency_ns ? irq : latency_ns;
}

#endif /* SCLAT_IRQ_TIME_BPF_H */
