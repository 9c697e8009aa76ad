/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The syscalls still in flight: a task iterator (iter/task) that the
 * controller runs once per interval. For each task whose measured syscall
 * has been running longer than its syscall's inflight_after_ns, it writes a
 * struct sclat_inflight (shm/sclat_abi.h) with the call's target and the
 * kernel stack where the task is now. It reads what sys_enter and
 * sched_switch already keep (the CPU's record, the task's parked record):
 * nothing is added to the syscall path; the scan pays per task, per scan.
 *
 * Included at the end of sclat.bpf.c: it reads the records that cpu_page.bpf.h
 * and maps.bpf.h lay out, and shares target_part_fill (outlier.bpf.h).
 */
#ifndef SCLAT_INFLIGHT_BPF_H
#define SCLAT_INFLIGHT_BPF_H

/* Per syscall: how old a call in flight is reported (ns); 0: never. Written by userspace. */
__u64 inflight_after_ns[SCLAT_MAX_SYSCALLS];

#define INFLIGHT_TARGET_MAX SCLAT_PART_SIZE(sizeof(struct sclat_target) + SCLAT_TARGET_STR_MAX)
#define INFLIGHT_KSTACK_MAX SCLAT_PART_SIZE(sizeof(struct sclat_kstack))

struct inflight_record {
	struct sclat_inflight h;
	__u8 parts[INFLIGHT_TARGET_MAX + INFLIGHT_KSTACK_MAX];
};

/* Built here, then written at its size; apart from outlier_records, which sys_exit uses. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct inflight_record);
} inflight_records SEC(".maps");

#define INFLIGHT_TASK_INTERRUPTIBLE   0x0001
#define INFLIGHT_TASK_UNINTERRUPTIBLE 0x0002
#define INFLIGHT_TASK_STOPPED	      0x0004
#define INFLIGHT_TASK_TRACED	      0x0008
#define INFLIGHT_TASK_NOLOAD	      0x0400
#define INFLIGHT_PF_EXITING	      0x00000004

static __always_inline __u32 inflight_state(struct task_struct *task)
{
	unsigned int state = BPF_CORE_READ(task, __state);

	if (state & (INFLIGHT_TASK_STOPPED | INFLIGHT_TASK_TRACED))
		return SCLAT_STATE_STOPPED;
	/* TASK_IDLE is uninterruptible only so as not to be woken: it waits, as S does. */
	if ((state & INFLIGHT_TASK_UNINTERRUPTIBLE) && !(state & INFLIGHT_TASK_NOLOAD))
		return SCLAT_STATE_DISK;
	if (state)
		return SCLAT_STATE_SLEEPING;
	return BPF_CORE_READ(task, on_cpu) ? SCLAT_STATE_RUNNING : SCLAT_STATE_RUNNABLE;
}

/*
 * The syscall task is in, into e: parked in its storage once it left its
 * CPU, else in the record of the CPU it runs on now; its arguments where
 * its entry saved them. False: none measured.
 */
static __always_inline bool inflight_call(struct task_struct *task, struct sclat_event *e)
{
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(task);
	struct task_entry *t;
	struct cpu_page *p;
	struct cpu_entry *c;
	__u64 entry_ns;

	t = bpf_task_storage_get(&task_entries, task, 0, 0);
	entry_ns = t ? *(volatile __u64 *)&t->entry_ns : 0;
	if (entry_ns) {
		e->nr = t->nr;
		SYSCALL_ARGS_COPY(e->args, regs);
		barrier();
		/* The same as below: its sys_exit may run meanwhile, on its CPU. */
		if (*(volatile __u64 *)&t->entry_ns != entry_ns)
			return false;
		e->entry_ns = entry_ns;
		return true;
	}
	p = cpu_page_of(e->cpu);
	if (!p)
		return false;
	c = &p->rec;
	/*
	 * Another CPU's record, read while its sys_exit may clear it: entry_ns
	 * is read once, and again after the rest, so that a call that returned
	 * meanwhile is not taken with an entry of 0 (an age of the uptime).
	 */
	entry_ns = *(volatile __u64 *)&c->entry_ns;
	if (!entry_ns || c->regs != (__u64)regs)
		return false;
	e->nr = c->nr & ~CPU_NR_FLAGS;
	SYSCALL_ARGS_COPY(e->args, regs);
	barrier();
	if (*(volatile __u64 *)&c->entry_ns != entry_ns)
		return false;
	e->entry_ns = entry_ns;
	return true;
}

/* The target part of the call in r, at parts[0], if its rule names one; returns its size. */
static __always_inline __u32 inflight_target_add(struct inflight_record *r,
						 struct task_struct *task)
{
	struct sclat_event *e = &r->h.e;

	return target_part_fill((void *)r->parts, task, e->nr, e->args);
}

/* The kernel stack of task now, at parts[off]; returns its size. */
static __always_inline __u32 inflight_kstack_add(struct inflight_record *r, __u32 off,
						 struct task_struct *task)
{
	struct sclat_part *part;
	struct sclat_kstack *ks;
	long n;

	if (off > INFLIGHT_TARGET_MAX)
		return 0;
	part = (void *)r->parts + off;
	ks = (void *)(part + 1);
	n = bpf_get_task_stack(task, ks->ip, sizeof(ks->ip), 0);
	if (n <= 0)
		return 0;
	ks->depth = n / sizeof(ks->ip[0]);
	ks->__pad = 0;
	part->kind = SCLAT_PART_KSTACK;
	part->len = offsetof(struct sclat_kstack, ip) + ks->depth * sizeof(ks->ip[0]);
	return SCLAT_PART_SIZE(part->len);
}

SEC("iter/task")
int sclat_inflight(struct bpf_iter__task *ctx)
{
	struct task_struct *task = ctx->task;
	struct inflight_record *r;
	struct sclat_event *e;
	__u64 now, after, start;
	__u32 zero = 0, off, size;

	/* A task on its way out is in exit_group, which never returns: not a hang. */
	if (!task || (task->flags & INFLIGHT_PF_EXITING) || task->exit_state)
		return 0;
	r = bpf_map_lookup_elem(&inflight_records, &zero);
	if (!r)
		return 0;
	e = &r->h.e;
	e->cpu = BPF_CORE_READ(task, thread_info.cpu);
	if (!inflight_call(task, e))
		return 0;
	start = bpf_ktime_get_ns();
	after = inflight_after_ns[e->nr & (SCLAT_MAX_SYSCALLS - 1)];
	if (!after || start - e->entry_ns < after || start < e->entry_ns)
		return 0;

	e->latency_ns = start - e->entry_ns;
	e->threshold_ns = sclat_threshold_ns(threshold_word(e->nr & (SCLAT_MAX_SYSCALLS - 1)));
	/* A syscall that is off (futex, ...) has no threshold: what a trace calls never. */
	if (e->threshold_ns == SCLAT_THRESHOLD_MASK)
		e->threshold_ns = SCLAT_THRESHOLD_NEVER;
	e->threshold_gen = sclat_threshold_gen(threshold_word(e->nr & (SCLAT_MAX_SYSCALLS - 1)));
	e->ret = 0;
	e->pid = task->tgid;
	e->tid = task->pid;
	e->cell = 0; /* its syscall's threshold: a class is learned at exit */
	__builtin_memcpy(e->comm, task->comm, sizeof(e->comm));
	r->h.state = inflight_state(task);

	off = inflight_target_add(r, task);
	off += inflight_kstack_add(r, off, task);
	now = bpf_ktime_get_ns();
	e->irq_ns = 0;
	e->judged_ns = e->latency_ns;
	e->waker_runqueue_ns = 0;
	e->steal_ns = 0;
	e->explain_ns = now - start;
	size = sizeof(r->h) + off;
	if (size > sizeof(*r))
		return 0;
	r->h.size = size;
	bpf_seq_write(ctx->meta->seq, r, size);
	return 0;
}

#endif
