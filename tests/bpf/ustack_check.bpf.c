// SPDX-License-Identifier: GPL-2.0-only
/*
 * kern-bpf/ustack.bpf.h at work: at sys_exit of one syscall (nr) in one
 * process (tgid), when it took min_latency_ns or more, capture the user
 * stack into a ring buffer record, as sclat's outlier path would.
 * tests/tools/ustack_trace.c loads it; the tp_btf and raw_tp programs are the
 * two flavours sclat attaches, one set autoloaded.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "ustack.bpf.h"
#include "ustack_check.h"

char LICENSE[] SEC("license") = "GPL";

/* Run-time knobs, written through the mmap'ed .bss before the workload starts. */
__u32 target_tgid;
__u32 target_nr;
__u32 copy_limit = SCLAT_USTACK_BYTES;
__u64 min_latency_ns;
/* Out: records the ring buffer had no room for; time spent in ustack_capture(). */
__u64 lost, capture_ns, nr_captures;

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 20); /* resized by the loader */
} captures SEC(".maps");

/* Entry time of the target syscall in flight, by thread. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, __u64);
} entries SEC(".maps");

static __always_inline void capture_enter(long id)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid(), now;
	__u32 tid = (__u32)pid_tgid;

	if (pid_tgid >> 32 != target_tgid || id != target_nr)
		return;
	now = bpf_ktime_get_ns();
	bpf_map_update_elem(&entries, &tid, &now, BPF_ANY);
}

static __always_inline void capture_exit(long ret)
{
	__u64 id = bpf_get_current_pid_tgid(), now, *entry_ns, latency_ns;
	struct ustack_check_record *rec;
	__u32 tid = (__u32)id;

	if (id >> 32 != target_tgid)
		return;
	entry_ns = bpf_map_lookup_elem(&entries, &tid);
	if (!entry_ns)
		return;
	now = bpf_ktime_get_ns();
	latency_ns = now - *entry_ns;
	bpf_map_delete_elem(&entries, &tid);
	if (latency_ns < min_latency_ns)
		return;
	rec = bpf_ringbuf_reserve(&captures, sizeof(*rec), 0);
	if (!rec) {
		__sync_fetch_and_add(&lost, 1);
		return;
	}
	rec->exit_ns = now;
	rec->latency_ns = latency_ns;
	rec->ret = ret;
	rec->pid = id >> 32;
	rec->tid = tid;
	rec->nr = target_nr;
	rec->__pad = 0;
	now = bpf_ktime_get_ns();
	ustack_capture(&rec->ustack, copy_limit);
	__sync_fetch_and_add(&capture_ns, bpf_ktime_get_ns() - now);
	__sync_fetch_and_add(&nr_captures, 1);
	bpf_ringbuf_submit(rec, 0);
}

SEC("tp_btf/sys_enter")
int BPF_PROG(ustack_enter_btf, struct pt_regs *regs, long id)
{
	capture_enter(id);
	return 0;
}

SEC("raw_tp/sys_enter")
int BPF_PROG(ustack_enter_raw, struct pt_regs *regs, long id)
{
	capture_enter(id);
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(ustack_exit_btf, struct pt_regs *regs, long ret)
{
	capture_exit(ret);
	return 0;
}

SEC("raw_tp/sys_exit")
int BPF_PROG(ustack_exit_raw, struct pt_regs *regs, long ret)
{
	capture_exit(ret);
	return 0;
}
