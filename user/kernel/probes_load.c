// SPDX-License-Identifier: GPL-2.0-only
/*
 * The BPF object loaded and attached, in libbpf's order: open, configure
 * (scope, the CPUs' pages, map sizes), load (tp_btf, else tp_btf with
 * bounded CPU indexes, else raw_tp), attach; detach and close on one path.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "util/compiler.h"
#include "util/log.h"
#include "probes_load.h"
#include "probes_handle.h"
#include "probes_ring.h"
#include "probes_stats.h"
#include "probes_steal.h"

#define VMLINUX_BTF_PATH "/sys/kernel/btf/vmlinux"
#define SCOPE_PIDS_MAX	 PROBES_SCOPE_PIDS_MAX
/*
 * With classes, the most task classes the kernel remembers (ids, refusals and
 * requests), and cell routes per cell (routes, refusals and requests): both
 * maps allocate an entry as it is filled, so these bound them, no more.
 */
#define CLASS_KEYS_MAX	 4096
#define ROUTES_PER_CELL	 4

/* libbpf's messages, the verifier's log among them, are debug messages: -v or SCLAT_DEBUG. */
static int libbpf_print(enum libbpf_print_level level __always_unused, const char *fmt, va_list ap)
{
	log_vmsg(LOG_DEBUG, fmt, ap);
	return 0;
}

int probes_check_privilege(void)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2] = {};
	__u64 eff;

	if (syscall(SYS_capget, &hdr, data))
		eff = 0;
	else
		eff = data[0].effective | ((__u64)data[1].effective << 32);
	/* CAP_BPF and CAP_PERFMON are 39 and 38; older headers lack the names. */
	if ((eff & (1ULL << CAP_SYS_ADMIN)) || ((eff & (1ULL << 39)) && (eff & (1ULL << 38))))
		return 0;
	log_err("loading BPF programs needs root (or CAP_BPF and "
		"CAP_PERFMON): run sclat with sudo");
	return -EPERM;
}

/* tp_btf needs BPF_PROG_TYPE_TRACING and BTF for the raw tracepoints. */
static bool tp_btf_supported(void)
{
	const char *force = getenv("SCLAT_ATTACH");
	struct btf *btf;
	bool ok;

	if (force && !strcmp(force, "raw_tp"))
		return false;
	if (force && (!strcmp(force, "tp_btf") || !strcmp(force, "tp_btf_bounded")))
		return true;
	/*
	 * tp_btf on sys_enter/sys_exit needs the tracepoints' BTF typedefs. (libbpf
	 * 1.1's libbpf_probe_bpf_prog_type() says no for BPF_PROG_TYPE_TRACING on
	 * every kernel: it cannot tell.) A load that fails anyway falls back to
	 * raw_tp in probes_load().
	 */
	btf = btf__load_vmlinux_btf();
	if (!btf)
		return false;
	ok = btf__find_by_name_kind(btf, "btf_trace_sys_enter", BTF_KIND_TYPEDEF) > 0 &&
	     btf__find_by_name_kind(btf, "btf_trace_sys_exit", BTF_KIND_TYPEDEF) > 0;
	btf__free(btf);
	return ok;
}

/*
 * The interrupt handlers' tracepoints (kern-bpf/irq_time.bpf.h), each a pair
 * of programs, loaded where the kernel has the tracepoint: some are x86's
 * alone. Without vmlinux BTF to ask, none: calls are then judged without
 * their interrupt time taken out. And under tp_btf, block_bio_queue's, where
 * the kernel has block devices: without it, a call that waits for storage is
 * still told by its wait (kern-bpf/syscall.bpf.h, CPU_NR_IO).
 */
static void optional_progs_select(struct sclat_bpf *s, bool tp_btf, const struct btf *btf)
{
	struct {
		const char *entry;
		struct bpf_program *progs[2];
	} tp[] = {
		{ "btf_trace_irq_handler_entry",
		  { s->progs.sclat_irq_entry, s->progs.sclat_irq_exit } },
		{ "btf_trace_softirq_entry",
		  { s->progs.sclat_softirq_entry, s->progs.sclat_softirq_exit } },
		{ "btf_trace_local_timer_entry",
		  { s->progs.sclat_timer_entry, s->progs.sclat_timer_exit } },
		{ "btf_trace_reschedule_entry",
		  { s->progs.sclat_resched_entry, s->progs.sclat_resched_exit } },
		{ "btf_trace_call_function_entry",
		  { s->progs.sclat_callfn_entry, s->progs.sclat_callfn_exit } },
		{ "btf_trace_call_function_single_entry",
		  { s->progs.sclat_callfn1_entry, s->progs.sclat_callfn1_exit } },
	};
	char name[64];
	bool have;
	size_t i;

	for (i = 0; i < sizeof(tp) / sizeof(tp[0]); i++) {
		/* The exit's typedef is the entry's name with "exit". */
		snprintf(name, sizeof(name), "%.*sexit", (int)strlen(tp[i].entry) - 5, tp[i].entry);
		have = btf && btf__find_by_name_kind(btf, tp[i].entry, BTF_KIND_TYPEDEF) > 0 &&
		       btf__find_by_name_kind(btf, name, BTF_KIND_TYPEDEF) > 0;
		bpf_program__set_autoload(tp[i].progs[0], have);
		bpf_program__set_autoload(tp[i].progs[1], have);
	}
	bpf_program__set_autoload(s->progs.sclat_bio_btf,
				  tp_btf && btf &&
					  btf__find_by_name_kind(btf, "btf_trace_block_bio_queue",
								 BTF_KIND_TYPEDEF) > 0);
}

/* vmlinux: the kernel's BTF, NULL without it. */
static void progs_select(struct probes *t, bool scope_tgid, const struct btf *vmlinux)
{
	struct sclat_bpf *s = t->skel;
	bool btf = !t->raw_tp;

	bpf_program__set_autoload(s->progs.sclat_enter_btf, btf && !t->bounded);
	bpf_program__set_autoload(s->progs.sclat_exit_btf, btf && !t->bounded);
	bpf_program__set_autoload(s->progs.sclat_enter_bounded, btf && t->bounded);
	bpf_program__set_autoload(s->progs.sclat_exit_bounded, btf && t->bounded);
	bpf_program__set_autoload(s->progs.sclat_fork_btf, btf && scope_tgid);
	bpf_program__set_autoload(s->progs.sclat_pexit_btf, btf && scope_tgid);
	bpf_program__set_autoload(s->progs.sclat_enter_raw, !btf);
	bpf_program__set_autoload(s->progs.sclat_exit_raw, !btf);
	bpf_program__set_autoload(s->progs.sclat_fork_raw, !btf && scope_tgid);
	bpf_program__set_autoload(s->progs.sclat_pexit_raw, !btf && scope_tgid);
	bpf_program__set_autoload(s->progs.sclat_switch_btf, btf);
	bpf_program__set_autoload(s->progs.sclat_switch_raw, !btf);
	/* No raw_tp twin: see kern-bpf/sclat.bpf.c. */
	bpf_program__set_autoload(s->progs.sclat_waking_btf, btf);
	optional_progs_select(s, btf, vmlinux);
}

/*
 * The programs in the order they attach; they detach in the reverse order.
 * sys_enter writes a CPU's in-flight record that sys_exit and sched_switch
 * clear: it comes last and goes first, so no record is ever left to go stale,
 * and every call it records has its switches and wake-ups seen. The scope
 * follows fork before any syscall is measured.
 */
static int attach_order(struct sclat_bpf *s, struct bpf_program **progs, struct bpf_link ***links)
{
	struct bpf_program *p[] = {
		s->progs.sclat_irq_entry,     s->progs.sclat_irq_exit,
		s->progs.sclat_softirq_entry, s->progs.sclat_softirq_exit,
		s->progs.sclat_timer_entry,   s->progs.sclat_timer_exit,
		s->progs.sclat_resched_entry, s->progs.sclat_resched_exit,
		s->progs.sclat_callfn_entry,  s->progs.sclat_callfn_exit,
		s->progs.sclat_callfn1_entry, s->progs.sclat_callfn1_exit,
		s->progs.sclat_fork_btf,      s->progs.sclat_fork_raw,
		s->progs.sclat_pexit_btf,     s->progs.sclat_pexit_raw,
		s->progs.sclat_switch_btf,    s->progs.sclat_switch_raw,
		s->progs.sclat_waking_btf,    s->progs.sclat_bio_btf,
		s->progs.sclat_exit_btf,      s->progs.sclat_exit_bounded,
		s->progs.sclat_exit_raw,      s->progs.sclat_enter_btf,
		s->progs.sclat_enter_bounded, s->progs.sclat_enter_raw,
	};
	struct bpf_link **l[] = {
		&s->links.sclat_irq_entry,     &s->links.sclat_irq_exit,
		&s->links.sclat_softirq_entry, &s->links.sclat_softirq_exit,
		&s->links.sclat_timer_entry,   &s->links.sclat_timer_exit,
		&s->links.sclat_resched_entry, &s->links.sclat_resched_exit,
		&s->links.sclat_callfn_entry,  &s->links.sclat_callfn_exit,
		&s->links.sclat_callfn1_entry, &s->links.sclat_callfn1_exit,
		&s->links.sclat_fork_btf,      &s->links.sclat_fork_raw,
		&s->links.sclat_pexit_btf,     &s->links.sclat_pexit_raw,
		&s->links.sclat_switch_btf,    &s->links.sclat_switch_raw,
		&s->links.sclat_waking_btf,    &s->links.sclat_bio_btf,
		&s->links.sclat_exit_btf,      &s->links.sclat_exit_bounded,
		&s->links.sclat_exit_raw,      &s->links.sclat_enter_btf,
		&s->links.sclat_enter_bounded, &s->links.sclat_enter_raw,
	};
	int i, n = 0;

	for (i = 0; i < (int)(sizeof(p) / sizeof(p[0])); i++) {
		if (!bpf_program__autoload(p[i]))
			continue;
		progs[n] = p[i];
		links[n++] = l[i];
	}
	return n;
}

static int scope_configure(struct probes *t, const struct probes_opts *opts)
{
	struct sclat_bpf *s = t->skel;
	size_t len;

	if (opts->scope_tgid || opts->nr_pids) {
		s->rodata->scope_tgid = true;
		bpf_map__set_max_entries(s->maps.scope_pids, SCOPE_PIDS_MAX);
	}
	if (opts->comm) {
		len = strlen(opts->comm);
		if (!len || len >= SCLAT_COMM_LEN) {
			log_err("--comm \"%s\": a thread name has 1 to %d characters", opts->comm,
				SCLAT_COMM_LEN - 1);
			return -EINVAL;
		}
		s->rodata->scope_comm = true;
		memcpy((char *)s->rodata->comm_filter, opts->comm, len);
	}
	if (opts->cgroup) {
		t->cgroup_fd = open(opts->cgroup, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (t->cgroup_fd < 0) {
			int err = -errno;

			log_err("--cgroup %s: %s", opts->cgroup, strerror(errno));
			return err;
		}
		s->rodata->scope_cgroup = true;
	}
	s->rodata->self_tgid = getpid();
	return 0;
}

static void target_rules_configure(struct probes *t, const struct probes_opts *opts)
{
	if (opts->target_rules)
		memcpy((void *)t->skel->rodata->target_rules, opts->target_rules,
		       sizeof(t->skel->rodata->target_rules));
}

/*
 * .bss ends with the CPUs' pages (cpu_pages in kern-bpf/sclat.bpf.c), declared
 * for SCLAT_CPUS_MAX CPUs: cut it, before load, to the possible CPUs' pages.
 * The kernel checks that the map's value and its BTF agree: the array gets
 * its new length in a type of its own, and the section its new size.
 */
#if LIBBPF_MAJOR_VERSION > 1 || LIBBPF_MINOR_VERSION >= 3
/* libbpf 1.3 on does it all, and maps the section anew: the skeleton's pointer moves. */
static int bss_resize(struct probes *t, int sec_id __always_unused, size_t size)
{
	struct bpf_map *bss = t->skel->maps.bss;
	size_t got = 0;
	int err = bpf_map__set_value_size(bss, (__u32)size);

	if (err)
		return err;
	t->skel->bss = bpf_map__initial_value(bss, &got);
	return t->skel->bss && got == size ? 0 : -EINVAL;
}
#else
/*
 * Before 1.3, libbpf sets the size alone. What it mapped at open for the
 * declared size is cut the same here, so that load's mapping of the map and
 * close's unmapping cover the same bytes. sec_id: .bss's BTF type.
 */
static int bss_resize(struct probes *t, int sec_id, size_t size)
{
	struct btf *btf = bpf_object__btf(t->skel->obj);
	struct bpf_map *bss = t->skel->maps.bss;
	size_t old_size = bpf_map__value_size(bss), mapped, old_mapped;
	const struct btf_type *sec = btf__type_by_id(btf, sec_id), *var;
	int var_id, array_id;
	struct btf_var_secinfo *last;
	const struct btf_array *a;

	last = (struct btf_var_secinfo *)btf_var_secinfos(sec) + btf_vlen(sec) - 1;
	var_id = (int)last->type;
	var = btf__type_by_id(btf, var_id);
	a = btf_array(btf__type_by_id(btf, var->type));
	array_id = btf__add_array(btf, a->index_type, a->type, t->ncpus);
	if (array_id < 0)
		return array_id;
	/* Adding a type may have moved the others. */
	((struct btf_type *)btf__type_by_id(btf, var_id))->type = array_id;
	sec = btf__type_by_id(btf, sec_id);
	last = (struct btf_var_secinfo *)btf_var_secinfos(sec) + btf_vlen(sec) - 1;
	last->size = (__u32)(size - last->offset);
	((struct btf_type *)sec)->size = (__u32)size;
	bpf_map__set_value_size(bss, (__u32)size);

	mapped = (size + t->page_size - 1) / t->page_size * t->page_size;
	old_mapped = (old_size + t->page_size - 1) / t->page_size * t->page_size;
	if (old_mapped > mapped)
		munmap((char *)t->skel->bss + mapped, old_mapped - mapped);
	return 0;
}
#endif

static int pages_size(struct probes *t)
{
	struct btf *btf = bpf_object__btf(t->skel->obj);
	const struct btf_type *sec, *var, *type;
	const struct btf_var_secinfo *last;
	int sec_id, err;
	size_t size;

	if (t->ncpus > SCLAT_CPUS_MAX) {
		log_err("%d possible CPUs: sclat is built for at most %d", t->ncpus,
			SCLAT_CPUS_MAX);
		return -E2BIG;
	}
	sec_id = btf__find_by_name_kind(btf, ".bss", BTF_KIND_DATASEC);
	sec = sec_id > 0 ? btf__type_by_id(btf, sec_id) : NULL;
	last = sec && btf_vlen(sec) ? btf_var_secinfos(sec) + btf_vlen(sec) - 1 : NULL;
	var = last ? btf__type_by_id(btf, last->type) : NULL;
	type = var ? btf__type_by_id(btf, var->type) : NULL;
	if (!type || !btf_is_array(type) ||
	    strcmp(btf__name_by_offset(btf, var->name_off), "cpu_pages") ||
	    last->offset + last->size != sec->size ||
	    sec->size != bpf_map__value_size(t->skel->maps.bss)) {
		log_err("the BPF object's .bss does not end with cpu_pages");
		return -EINVAL;
	}
	size = last->offset + (size_t)t->ncpus * SCLAT_CPU_PAGE_SIZE;
	err = bss_resize(t, sec_id, size);
	if (err) {
		log_err("sizing the CPUs' pages: %s", strerror(-err));
		return err;
	}
	t->skel->rodata->nr_cpu_pages = (__u32)t->ncpus;
	return 0;
}

/*
 * Open, configure and load the skeleton with the program set t->raw_tp and
 * t->bounded choose. -EAGAIN: the kernel refused the programs at load (the
 * caller may try the next set); any other error was already reported.
 */
static int skel_open_load(struct probes *t, const struct probes_opts *opts, size_t rb)
{
	unsigned int nr, v, wake_slots;
	struct btf *vmlinux;
	int err;

	t->skel = sclat_bpf__open();
	if (!t->skel) {
		err = -errno;
		log_err("opening the BPF object: %s", strerror(-err));
		return err;
	}
	/* Read once for what the kernel has: tracepoints, and where its steal clock is. */
	vmlinux = btf__load_vmlinux_btf();
	progs_select(t, opts->scope_tgid || opts->nr_pids, vmlinux);
	t->skel->rodata->steal_from_rq = probes_steal_from_rq(vmlinux);
	btf__free(vmlinux);
	err = pages_size(t);
	if (err)
		return err;
	err = scope_configure(t, opts);
	if (err)
		return err;
	target_rules_configure(t, opts);
	for (v = 0; v < SCLAT_HIST_SMALL_NS; v++)
		t->skel->rodata->hist_bucket_small[v] = sclat_hist_bucket(v);
	t->skel->rodata->user_stacks = opts->user_stacks;
	t->skel->rodata->ustacks_per_cpu_per_sec =
		opts->user_stacks_per_cpu ? opts->user_stacks_per_cpu : PROBES_USER_STACKS_PER_CPU;
	bpf_map__set_max_entries(t->skel->maps.events, rb);
	bpf_map__set_max_entries(t->skel->maps.hists, SCLAT_HIST_SLOTS + t->class_cells);
	wake_slots = sclat_wake_slots(t->ncpus);
	bpf_map__set_max_entries(t->skel->maps.wake_notes, wake_slots);
	t->skel->rodata->wake_slots_mask = wake_slots - 1;
	/* Without cells no syscall has classes: one entry each, the least a map has. */
	bpf_map__set_max_entries(t->skel->maps.class_ids, t->class_cells ? CLASS_KEYS_MAX : 1);
	bpf_map__set_max_entries(t->skel->maps.cell_routes,
				 t->class_cells ? t->class_cells * ROUTES_PER_CELL : 1);
	for (nr = 0; nr < SCLAT_MAX_SYSCALLS; nr++)
		t->skel->bss->sclat_shared.ctl[nr].threshold =
			sclat_threshold_word(SCLAT_THRESHOLD_NEVER, 0);

	err = sclat_bpf__load(t->skel);
	/* Another set to try: tp_btf's bounded ones, or raw_tp's (SCLAT_ATTACH keeps the kind). */
	if (err && !t->raw_tp && !(t->bounded && t->forced))
		return -EAGAIN;
	if (err) {
		log_err("loading the %s BPF programs failed: %s "
			"(SCLAT_DEBUG=1 shows the verifier's log)",
			t->raw_tp ? "raw_tp" : "tp_btf_bounded", strerror(-err));
		return err;
	}
	return 0;
}

/* The $SCLAT_TEST_COUNTER_BASE test hook (see probes.h); 0 or a negative errno. */
static int counters_seed(struct probes *t)
{
	const char *env = getenv("SCLAT_TEST_COUNTER_BASE");
	int fd = bpf_map__fd(t->skel->maps.hists);
	struct sclat_hist *h;
	unsigned long long base;
	__u32 slot;
	unsigned int b;
	char *end;
	int cpu, err = 0;

	if (!env || !*env)
		return 0;
	errno = 0;
	base = strtoull(env, &end, 10);
	if (errno || *end || base > 0xffffffffULL) {
		log_err("SCLAT_TEST_COUNTER_BASE=%s: not a 32-bit count", env);
		return -EINVAL;
	}
	h = calloc(t->ncpus, sizeof(*h));
	if (!h)
		return -ENOMEM;
	for (cpu = 0; cpu < t->ncpus; cpu++)
		for (b = 0; b < SCLAT_HIST_BUCKETS; b++)
			h[cpu].bucket[b] = base;
	for (slot = 0; slot < SCLAT_HIST_SLOTS && !err; slot++)
		if (bpf_map_update_elem(fd, &slot, h, BPF_ANY))
			err = -errno;
	for (cpu = 0; cpu < t->ncpus; cpu++)
		for (slot = 0; slot <= SCLAT_LANE_SLOT; slot++)
			lane_of(t, cpu)->slot[slot].calls = base;
	free(h);
	if (err)
		log_err("SCLAT_TEST_COUNTER_BASE: %s", strerror(-err));
	return err;
}

/* What loading cannot go without, checked before anything is opened. */
static int load_preflight(size_t rb)
{
	int err = probes_check_privilege();

	if (err)
		return err;
	if (access(VMLINUX_BTF_PATH, R_OK)) {
		log_err("%s: %s: sclat needs a kernel built with "
			"CONFIG_DEBUG_INFO_BTF (5.15 or later)",
			VMLINUX_BTF_PATH, strerror(errno));
		return -ENOENT;
	}
	if (rb < 4096 || rb > PROBES_RINGBUF_MAX || (rb & (rb - 1))) {
		log_err("ring buffer size %zu: must be a power of two from 4096 "
			"bytes to 2 GiB",
			rb);
		return -EINVAL;
	}
	return 0;
}

/* A handle with nothing open yet, on the possible CPUs; 0 or a negative errno. */
static int handle_new(struct probes **tp, const struct probes_opts *opts, size_t rb)
{
	struct probes *t = calloc(1, sizeof(*t));
	int i, err;

	*tp = t;
	if (!t)
		return -ENOMEM;
	t->stats_fd = -1;
	t->cgroup_fd = -1;
	t->page_size = sysconf(_SC_PAGESIZE);
	for (i = 0; i < SCLAT_HIST_SLOTS; i++)
		t->body[i] = SCLAT_LANE_UNIT_MAX;
	t->ringbuf_bytes = rb;
	t->on_event = opts->on_event;
	t->ctx = opts->ctx;
	t->class_cells = opts->class_cells > SCLAT_CLASS_CELLS_MAX ? SCLAT_CLASS_CELLS_MAX
								   : opts->class_cells;
	t->ncpus = libbpf_num_possible_cpus();
	if (t->ncpus <= 0) {
		err = t->ncpus ? t->ncpus : -EINVAL;
		log_err("cannot count possible CPUs: %s", strerror(-err));
		return err;
	}
	return 0;
}

/*
 * tp_btf programs; if the kernel refuses them, the same with the CPU's
 * page checked in sys_enter and sys_exit too (a verifier before Linux
 * 6.10, see cpu_page_get in kern-bpf/sclat.bpf.c); if it refuses those,
 * raw_tp programs, which do the same. SCLAT_ATTACH=tp_btf stops before
 * raw_tp; tp_btf_bounded and raw_tp try nothing else.
 */
static int skel_load_with_fallback(struct probes *t, const struct probes_opts *opts, size_t rb)
{
	const char *force;
	int err;

	t->raw_tp = !tp_btf_supported();
	force = getenv("SCLAT_ATTACH");
	t->forced = force != NULL;
	t->bounded = force && !strcmp(force, "tp_btf_bounded");
	for (;;) {
		err = skel_open_load(t, opts, rb);
		if (err != -EAGAIN)
			return err;
		log_debug("tp_btf programs refused, using %s",
			  t->bounded ? "raw_tp" : "tp_btf with bounded CPU indexes");
		sclat_bpf__destroy(t->skel);
		t->skel = NULL;
		if (t->cgroup_fd >= 0)
			close(t->cgroup_fd);
		t->cgroup_fd = -1;
		if (t->bounded)
			t->raw_tp = true;
		t->bounded = true;
	}
}

/* The scope's maps filled: the processes of opts->pids, the cgroup. */
static int scope_fill(struct probes *t, const struct probes_opts *opts)
{
	__u32 key = 0;
	int i, err;

	for (i = 0; i < opts->nr_pids; i++) {
		err = probes_scope_add(t, opts->pids[i]);
		if (err)
			return err;
	}
	if (t->cgroup_fd >= 0 && bpf_map_update_elem(bpf_map__fd(t->skel->maps.scope_cgroups), &key,
						     &t->cgroup_fd, BPF_ANY)) {
		err = -errno;
		log_err("--cgroup %s: not a cgroup v2 directory (%s)", opts->cgroup,
			strerror(errno));
		return err;
	}
	return 0;
}

int probes_load(struct probes **tp, const struct probes_opts *opts)
{
	struct probes *t;
	size_t rb = opts->ringbuf_bytes ? opts->ringbuf_bytes : PROBES_RINGBUF_DEFAULT;
	int err;

	*tp = NULL;
	if (opts->verbose)
		log_set_level(LOG_DEBUG);
	libbpf_set_print(libbpf_print);

	err = load_preflight(rb);
	if (err)
		return err;
	err = handle_new(&t, opts, rb);
	if (!err)
		err = skel_load_with_fallback(t, opts, rb);
	if (err)
		goto fail;
	t->shared = &t->skel->bss->sclat_shared;
	t->cpu_pages = (char *)t->skel->bss->cpu_pages;

	err = scope_fill(t, opts);
	if (err)
		goto fail;
	err = probes_ring_open(t);
	if (err) {
		log_err("setting up the ring buffer: %s", strerror(-err));
		goto fail;
	}
	t->keys = calloc(SCLAT_HIST_SLOTS, sizeof(*t->keys));
	t->cell_keys = calloc(t->class_cells + 1, sizeof(*t->cell_keys));
	t->route_of_cell = calloc(t->class_cells + 1, sizeof(*t->route_of_cell));
	if (!t->keys || !t->cell_keys || !t->route_of_cell) {
		err = -ENOMEM;
		goto fail;
	}
	err = counters_seed(t);
	if (err)
		goto fail;
	*tp = t;
	return 0;
fail:
	probes_close(t);
	return err;
}

int probes_attach(struct probes *t)
{
	struct bpf_program *progs[PROBES_MAX_PROGS];
	struct bpf_link **links[PROBES_MAX_PROGS];
	int i, err, n = attach_order(t->skel, progs, links);

	for (i = 0; i < n; i++) {
		*links[i] = bpf_program__attach(progs[i]);
		if (!*links[i]) {
			err = -errno;
			log_err("attaching the %s program %s failed: %s", probes_attach_kind(t),
				bpf_program__name(progs[i]), strerror(-err));
			probes_detach(t);
			return err;
		}
	}
	/* Not measuring anything, it may fail alone: tracing goes on without in-flight reports. */
	t->skel->links.sclat_inflight =
		bpf_program__attach_iter(t->skel->progs.sclat_inflight, NULL);
	if (!t->skel->links.sclat_inflight)
		log_warn("attaching the task iterator failed (%s): no syscall is reported "
			 "while in flight",
			 strerror(errno));
	return 0;
}

void probes_detach(struct probes *t)
{
	struct bpf_program *progs[PROBES_MAX_PROGS];
	struct bpf_link **links[PROBES_MAX_PROGS];
	int n = attach_order(t->skel, progs, links);

	while (n--) {
		bpf_link__destroy(*links[n]);
		*links[n] = NULL;
	}
}

int probes_scope_add(struct probes *t, pid_t tgid)
{
	__u32 key = tgid;
	__u8 one = 1;

	if (bpf_map_update_elem(bpf_map__fd(t->skel->maps.scope_pids), &key, &one, BPF_ANY)) {
		int err = -errno;

		log_err("adding pid %d to the scope: %s", tgid, strerror(errno));
		return err;
	}
	return 0;
}

const char *probes_attach_kind(const struct probes *t)
{
	return t->raw_tp ? "raw_tp" : "tp_btf";
}

int probes_ncpus(const struct probes *t)
{
	return t->ncpus;
}

unsigned int probes_class_cells(const struct probes *t)
{
	return t->class_cells;
}

void probes_close(struct probes *t)
{
	if (!t)
		return;
	probes_ring_close(t);
	if (t->skel)
		probes_detach(t);
	sclat_bpf__destroy(t->skel);
	probes_stats_sample(t, false);
	if (t->cgroup_fd >= 0)
		close(t->cgroup_fd);
	free(t->keys);
	free(t->iter_buf);
	free(t->cell_keys);
	free(t->route_of_cell);
	free(t);
}
