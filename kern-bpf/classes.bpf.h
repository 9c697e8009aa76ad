/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Classes of a syscall's calls, for the syscalls whose policy has them: the
 * class id of the calling task (its process, cgroup or thread name), the kind
 * of file behind its fd argument, and the cell (a histogram and threshold of
 * its own) that they route to. Ids and cells are asked of userspace through
 * class_requests, noted in the CPU's record (and kept in the task's
 * storage), and put on the CPU's lane, where the short path finds a classed
 * call's cell without a map lookup. A syscall without classes pays nothing
 * here.
 *
 * Part of sclat.bpf.c, after cpu_page.bpf.h, maps.bpf.h, target.bpf.h
 * (fd_file) and syscall_regs.bpf.h (syscall_arg).
 */
#ifndef SCLAT_CLASSES_BPF_H
#define SCLAT_CLASSES_BPF_H

/* Ask userspace for a class id or cell; a full queue's refusal is counted, and retried. */
static __always_inline void class_request_push(struct sclat_class_request *req)
{
	if (bpf_map_push_elem(&class_requests, req, 0))
		__sync_fetch_and_add(&sclat_shared.class_requests_lost, 1);
}

/*
 * What names the current task's class of kind (a task kind): its process,
 * its cgroup, or its thread name's bytes (zero-padded by the kernel), read
 * in place: a rename or a move shows at the task's next call.
 */
static __always_inline __u64 task_class_key(__u32 kind)
{
	struct task_struct *task;

	if (kind == SCLAT_CLASS_PROCESS)
		return bpf_get_current_pid_tgid() >> 32;
	if (kind == SCLAT_CLASS_CGROUP)
		return bpf_get_current_cgroup_id();
	task = bpf_get_current_task_btf();
	return *(__u64 *)&task->comm[0] ^ *(__u64 *)&task->comm[8];
}

/*
 * Whether the CPU's record noted the class id of kind (a task kind) for the
 * current task (user registers at regs), whichever task it was noted for;
 * none holds once userspace forgot an id since.
 */
static __always_inline bool class_noted(struct cpu_page *p, __u64 regs, __u32 kind)
{
	struct cpu_entry *c = &p->rec;
	__u64 cset;

	if (c->cls.kind != kind || c->cls.epoch != *(volatile __u32 *)&p->lane.class_epoch)
		return false;
	/* A thread's process is the same until its next switch: no helper call until then. */
	if (kind == SCLAT_CLASS_PROCESS) {
		if (c->cls.regs == regs)
			return true;
		if (c->cls.key != task_class_key(kind))
			return false;
		c->cls.regs = regs;
		return true;
	}
	if (kind != SCLAT_CLASS_CGROUP)
		return c->cls.key == task_class_key(kind);
	cset = (__u64)bpf_get_current_task_btf()->cgroups;
	if (c->cls.regs == regs && c->cls.cset == cset)
		return true;
	if (c->cls.key != task_class_key(kind))
		return false;
	c->cls.regs = regs;
	c->cls.cset = cset;
	return true;
}

/*
 * The current task keeps the class id its CPU's record noted (struct
 * task_entry): looked up once per thread and class, not each time its CPU
 * turns to it from another process.
 */
static __noinline void task_class_keep(struct cpu_entry *c)
{
	struct task_entry *t;

	t = bpf_task_storage_get(&task_entries, bpf_get_current_task_btf(), 0,
				 BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!t)
		return;
	t->cls = c->cls;
}

/* task_class_of(): asked for, not answered yet (its class's normal is not known). */
#define CLASS_ID_PENDING SCLAT_CLASS_IDS

/*
 * The class id of the current task (user registers at regs) for a task
 * kind; 0: none (refused); CLASS_ID_PENDING: not answered yet.
 */
static __always_inline __u32 task_class_of(struct cpu_page *p, __u64 regs, __u32 kind)
{
	__u32 *v, value, zero = 0, epoch = *(volatile __u32 *)&p->lane.class_epoch;
	struct sclat_class_key key = { .kind = kind };
	struct sclat_class_request req = {};
	struct cpu_entry *c = &p->rec;
	__u64 comm[SCLAT_COMM_LEN / 8];
	long err;

	if (class_noted(p, regs, kind))
		return c->cls.id || !c->cls.pending ? c->cls.id : CLASS_ID_PENDING;
	/* Its css_set before its cgroup: a move in between is seen at the next call. */
	c->cls.cset = (__u64)bpf_get_current_task_btf()->cgroups;
	key.key = task_class_key(kind);
	v = bpf_map_lookup_elem(&class_ids, &key);
	if (!v) {
		/* Ask once: the placeholder stays 0 until userspace gives an id. */
		err = bpf_map_update_elem(&class_ids, &key, &zero, BPF_NOEXIST);
		if (err == -EEXIST) {
			/* Another CPU asked in between: its placeholder is found next call. */
			return CLASS_ID_PENDING;
		} else if (err) {
			/*
			 * The table full (userspace frees it as ids retire): a request
			 * lost, noted without an id like one asked for (pending: its
			 * class is not known, and it is asked again), so that the task's
			 * calls do not try again each time; asked again when the note
			 * goes (another task, or ids given or forgotten).
			 */
			__sync_fetch_and_add(&sclat_shared.class_requests_lost, 1);
		} else {
			/* The thread name names the class for users. */
			bpf_get_current_comm(comm, sizeof(comm));
			req.key = key.key;
			req.kind = kind;
			req.pid = bpf_get_current_pid_tgid() >> 32;
			__builtin_memcpy(req.comm, comm, sizeof(comm));
			class_request_push(&req);
		}
	}
	/* No id yet is noted too: the epoch moves on when userspace gives one. */
	c->cls.key = key.key;
	c->cls.regs = regs;
	c->cls.kind = kind;
	/* As read before the lookup: an id forgotten in between is looked up again. */
	c->cls.epoch = epoch;
	/* Read once: an answer landing in between is seen whole at the next lookup. */
	value = v ? *(volatile __u32 *)v : 0;
	c->cls.id = value & (SCLAT_CLASS_IDS - 1);
	c->cls.pending = !value;
	if (c->cls.id)
		task_class_keep(c);
	return c->cls.id || !c->cls.pending ? c->cls.id : CLASS_ID_PENDING;
}

/* The kind of file f is (fd_file's: NULL, no file). */
static __always_inline __u32 file_kind(struct file *f)
{
	return f ? fd_kind_of_file(f) & (SCLAT_FD_KINDS - 1) : SCLAT_FD_NONE;
}

/* The kind of file behind the current task's fd. */
static __always_inline __u32 fd_kind_of_fd(long fd)
{
	return file_kind(fd_file(bpf_get_current_task_btf(), (int)fd));
}

/* The file behind the fd argument of task's syscall nr (user registers at regs), or NULL. */
static __always_inline struct file *call_fd_file(struct task_struct *task, __u32 nr, __u64 regs)
{
	struct sclat_target_rule rule = target_rules[nr & (SCLAT_MAX_SYSCALLS - 1)];

	if (rule.kind != SCLAT_RULE_FD)
		return NULL;
	return fd_file(task, (int)syscall_arg(regs, rule.arg));
}

/* The kind of file behind the fd argument of syscall nr (user registers at regs), if it has one. */
static __always_inline __u32 fd_kind_of(__u32 nr, __u64 regs)
{
	return file_kind(call_fd_file(bpf_get_current_task_btf(), nr, regs));
}

/*
 * The ports of the TCP or UDP socket that task's syscall nr (user registers
 * at regs) is on: its own in the high half, its peer's in the low half; 0
 * when the call is on no such socket, or on one without a peer. Not inlined:
 * asked on paths that are rarely taken, it keeps the programs' common paths
 * as short as they were.
 */
static __noinline __u32 call_inet_ports(struct task_struct *task, __u32 nr, __u64 regs)
{
	struct file *f = call_fd_file(task, nr, regs);
	__u32 kind = file_kind(f), local, peer;
	struct socket *sock;
	struct sock *sk;

	if (kind != SCLAT_FD_INET && kind != SCLAT_FD_INET6)
		return 0;
	sock = BPF_CORE_READ(f, private_data);
	sk = BPF_CORE_READ(sock, sk);
	local = BPF_CORE_READ(sk, __sk_common.skc_num);
	peer = bpf_ntohs(BPF_CORE_READ(sk, __sk_common.skc_dport));
	return local && peer ? local << 16 | peer : 0;
}

/*
 * The class cell of a call of syscall nr (which has classes): 0 for the
 * syscall's own (no class, or refused one), SCLAT_CELL_ASKED while
 * userspace has not answered for the class (its calls count with the
 * syscall's, judged by its young_threshold). In *lane_key, the route's key
 * when the lane may hold it (a cell, or refused: the syscall's own), else 0.
 * Not inlined: syscalls without classes do not pay for its registers.
 */
static __noinline __u32 cell_select(struct cpu_page *p, __u64 regs, __u32 nr, __u32 *lane_key)
{
	struct sclat_syscall_ctl *ctl = &sclat_shared.ctl[nr & (SCLAT_MAX_SYSCALLS - 1)];
	__u32 slot = ctl->slot, classes = ctl->classes, id = 0, fd_kind = 0, cell, key;
	__u32 asked = SCLAT_CELL_ASKED, *cellp;
	long err;
	struct sclat_class_request req = {};

	*lane_key = 0;
	if (slot == SCLAT_SLOT_NONE || slot >= SCLAT_HIST_SLOTS)
		return 0;
	if (classes & SCLAT_CLASSES_TASK) {
		id = task_class_of(p, regs, classes & SCLAT_CLASSES_TASK);
		if (id == CLASS_ID_PENDING)
			return SCLAT_CELL_ASKED;
		if (!id)
			return 0;
	}
	if (classes & SCLAT_CLASSES_FD) {
		fd_kind = fd_kind_of(nr, regs) & (SCLAT_FD_KINDS - 1);
		if (fd_kind == SCLAT_FD_NONE && !id)
			return 0;
	}
	key = sclat_cell_key(slot, id, fd_kind);
	cellp = bpf_map_lookup_elem(&cell_routes, &key);
	if (!cellp) {
		/*
		 * Ask once; a full map (cells refused anyway) is not asked. Another
		 * CPU that asked in between: asked for, and not answered yet.
		 */
		err = bpf_map_update_elem(&cell_routes, &key, &asked, BPF_NOEXIST);
		if (err)
			return err == -EEXIST ? SCLAT_CELL_ASKED : 0;
		req.kind = SCLAT_CLASS_CELL;
		req.pid = bpf_get_current_pid_tgid() >> 32;
		req.slot = slot;
		req.class_id = id;
		req.fd_kind = fd_kind;
		class_request_push(&req);
		return SCLAT_CELL_ASKED;
	}
	cell = *cellp;
	if (cell == SCLAT_CELL_ASKED)
		return cell;
	*lane_key = key;
	return cell < SCLAT_CLASS_CELLS_MAX ? cell : 0;
}

/*
 * Puts the cell of key (a route, 0: none) on the lane's short path:
 * its histogram's index and threshold word. Userspace keeps the threshold
 * from then on, and takes the entry off when the route changes.
 */
static __always_inline void lane_cell_fill(struct sclat_cpu_lane *lane, __u32 key, __u32 hist,
					   __u64 threshold)
{
	struct sclat_lane_cell *e;

	if (!key)
		return;
	e = &lane->cell[sclat_lane_cell_index(key)];
	e->key = 0;
	barrier();
	e->hist = hist;
	e->threshold = threshold;
	barrier();
	e->key = key;
}

/*
 * A classed call's histogram index and threshold on the short path: the
 * class id the CPU's record noted for its task's key (task_class_key), the
 * kind of file behind its fd, and the cell the lane holds for them, with its
 * threshold word; or, with neither, the slot's own, from its below (rounded
 * down and capped: see SCLAT_LANE_UNIT_SHIFT). 0: the long way (no id noted, or the
 * lane does not hold the cell).
 */
static __always_inline __u32 lane_cell_of(struct cpu_page *p, __u32 slot, __u64 regs,
					  __u64 *threshold)
{
	struct sclat_cpu_lane *lane = &p->lane;
	__u32 classes = lane->slot_classes[slot], id = 0, fd_kind = SCLAT_FD_NONE, key, arg;
	struct cpu_entry *c = &p->rec;
	struct sclat_lane_cell *e;

	if (classes & SCLAT_CLASSES_TASK) {
		if (!class_noted(p, regs, classes & SCLAT_CLASSES_TASK))
			return 0;
		id = c->cls.id;
		/* Noted without an id: refused, the syscall's own; not given yet, the long way. */
		if (!id && c->cls.pending)
			return 0;
		if (!id)
			goto own;
	}
	if (classes & SCLAT_CLASSES_FD) {
		arg = classes >> SCLAT_LANE_FD_ARG_SHIFT & 7;
		if (arg >= SCLAT_NR_ARGS)
			return 0;
		fd_kind = fd_kind_of_fd(syscall_arg(regs, arg));
	}
	if (!id && fd_kind == SCLAT_FD_NONE)
		goto own;
	key = sclat_cell_key(slot, id, fd_kind);
	e = &lane->cell[sclat_lane_cell_index(key)];
	if (e->key != key)
		return 0;
	*threshold = *(volatile __u64 *)&e->threshold;
	return e->hist;
own:
	*threshold = (__u64) * (volatile __u16 *)&lane->slot[slot].below << SCLAT_LANE_UNIT_SHIFT;
	return slot;
}

/*
 * The class next kept (struct task_entry) into the CPU's record, as noted
 * for it (its user registers at next_regs), unless userspace forgot an id
 * since (the CPU's epoch moved on).
 */
static __always_inline void class_restore(struct cpu_entry *c, const struct task_entry *t,
					  __u64 next_regs, __u32 epoch)
{
	if (t->cls.epoch != epoch)
		return;
	c->cls = t->cls;
	c->cls.regs = next_regs;
}

#endif /* SCLAT_CLASSES_BPF_H */
