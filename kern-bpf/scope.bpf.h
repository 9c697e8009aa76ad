/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Whose syscalls are measured: never sclat's own; with a scope, only those
 * of the processes in it (and of their new processes, followed in at fork
 * and forgotten when their last thread exits), of a cgroup, or of a thread
 * name. sys_enter asks (task_traced); what sched_switch noted of the task
 * coming in spares most calls the question.
 *
 * Part of sclat.bpf.c, after cpu_page.bpf.h and maps.bpf.h.
 */
#ifndef SCLAT_SCOPE_BPF_H
#define SCLAT_SCOPE_BPF_H

enum task_scope {
	SCOPE_UNKNOWN, /* zeroed storage: not decided yet */
	SCOPE_IN,
	SCOPE_OUT,
};

static __always_inline bool comm_matches(void)
{
	char comm[SCLAT_COMM_LEN];
	int i;

	bpf_get_current_comm(comm, sizeof(comm));
	for (i = 0; i < SCLAT_COMM_LEN; i++) {
		if (comm[i] != comm_filter[i])
			return false;
		if (!comm[i])
			break;
	}
	return true;
}

static __always_inline __u32 task_scope_of(__u32 tgid)
{
	if (tgid == self_tgid)
		return SCOPE_OUT;
	if (scope_tgid && !bpf_map_lookup_elem(&scope_pids, &tgid))
		return SCOPE_OUT;
	return SCOPE_IN;
}

/* Whether the current task, whose user registers are at regs, is sclat itself. */
static __always_inline bool task_is_self(const struct cpu_entry *c, __u64 regs)
{
	/* What sched_switch noted of it saves a helper call on every syscall. */
	if (c->in_regs == regs && c->task_self != CPU_TASK_UNKNOWN)
		return c->task_self == CPU_TASK_SELF;
	return bpf_get_current_pid_tgid() >> 32 == self_tgid;
}

/* Whether the current task's syscalls are measured; c is its CPU's record. */
static __always_inline bool task_traced(const struct cpu_entry *c, __u64 regs)
{
	struct task_struct *task;
	struct task_entry *t;

	/*
	 * What sched_switch noted of it decides without reading the load-time
	 * knobs: their page stays off the path of every syscall.
	 */
	if (c->in_regs == regs && c->task_self == CPU_TASK_TRACED)
		return true;
	if (scope_tgid) {
		/* A hash lookup per syscall would cost more than the storage: decide once. */
		task = bpf_get_current_task_btf();
		t = bpf_task_storage_get(&task_entries, task, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
		if (!t)
			return false;
		if (t->scope == SCOPE_UNKNOWN)
			t->scope = task_scope_of(task->tgid);
		if (t->scope != SCOPE_IN)
			return false;
	} else if (task_is_self(c, regs)) {
		return false;
	}
	/* cgroup and comm can change under a thread: checked on every call. */
	if (scope_cgroup && bpf_current_task_under_cgroup(&scope_cgroups, 0) != 1)
		return false;
	if (scope_comm && !comm_matches())
		return false;
	return true;
}

/* -p / -- COMMAND: a new process whose parent is in scope is in scope too. */
static __always_inline void scope_follow_fork(__u32 parent_tgid, __u32 child_tgid)
{
	__u8 one = 1;

	if (parent_tgid == child_tgid || !bpf_map_lookup_elem(&scope_pids, &parent_tgid))
		return;
	if (bpf_map_update_elem(&scope_pids, &child_tgid, &one, BPF_ANY))
		__sync_fetch_and_add(&children_not_followed, 1);
}

/* The last thread of a process in scope is gone: its tgid may be reused. */
static __always_inline void scope_forget(__u32 tgid, int live)
{
	if (!live)
		bpf_map_delete_elem(&scope_pids, &tgid);
}

#endif /* SCLAT_SCOPE_BPF_H */
