// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "util/compiler.h"
#include "sclat_abi.h"

/*
 * A CPU's page as kern-bpf/sclat.bpf.c lays it out (struct cpu_page): the
 * lane first; the rest, the CPU's record, is the BPF side's own.
 */
struct cpu_page {
	struct sclat_cpu_lane lane;
	__u8 rest[SCLAT_CPU_PAGE_SIZE - sizeof(struct sclat_cpu_lane)];
};

#include "sclat.skel.h"
#include "probes.h"

#define VMLINUX_BTF_PATH "/sys/kernel/btf/vmlinux"
#define SCOPE_PIDS_MAX	 PROBES_SCOPE_PIDS_MAX
/*
 * With classes, the most task classes the kernel remembers (ids, refusals and
 * requests), and cell routes per cell (routes, refusals and requests): both
 * maps allocate an entry as it is filled, so these bound them, no more.
 */
#define CLASS_KEYS_MAX	 4096
#define ROUTES_PER_CELL	 4

struct probes {
	struct sclat_bpf *skel;
	struct sclat_shared *shared; /* the mmap'ed .bss */
	char *cpu_pages;	     /* in the mmap'ed .bss: a page per CPU, lane first */
	struct ring_buffer *rb;
	int ncpus;
	bool raw_tp;
	bool bounded; /* tp_btf's sys_enter and sys_exit: the *_bounded ones (see probes_load) */
	bool forced;  /* SCLAT_ATTACH: no fallback to another kind */
	int stats_fd; /* keeps kernel BPF stats on while >= 0 */
	int cgroup_fd;
	size_t ringbuf_bytes;
	const volatile unsigned long *rb_cons, *rb_prod;
	long page_size;
	__u32 *keys;	       /* batch lookup keys */
	__u32 lanes_next_slot; /* next_slot as probes_lanes_refresh() last synced the lanes */
	unsigned int class_cells;
	__u32 *cell_keys;
	__u32 *route_of_cell; /* the route key of each cell (0: none), as probes_cell_route set */
	probes_event_fn on_event;
	void *ctx;
	char *iter_buf; /* what the task iterator wrote in its last run */
	size_t iter_cap;
	struct probes_mem mem_sized; /* the maps whose size is set at creation, once read */
	bool mem_sized_read;
	__u32 sample;	   /* the lanes' sample_n: 1 (or 0) counts every call */
	bool floors_stale; /* a threshold, a route or a body moved since probes_floors_refresh() */
	/* Each slot's body (probes_body_set), in floor units; SCLAT_LANE_UNIT_MAX: not known. */
	__u16 body[SCLAT_HIST_SLOTS];
	__u64 slot_word[SCLAT_HIST_SLOTS]; /* each slot's threshold word, as lanes_sync() set it */
};

static bool verbose;

static struct sclat_cpu_lane *lane_of(const struct probes *t, int cpu)
{
	return (struct sclat_cpu_lane *)(t->cpu_pages + (size_t)cpu * SCLAT_CPU_PAGE_SIZE);
}

/*
 * v into a lane's field at ptr, for its CPU's programs to read (release),
 * unless it is there already: the CPU's line is not taken from it for nothing.
 */
#define LANE_PUT(ptr, v)                                             \
	do {                                                         \
		__typeof__(*(ptr)) v_ = (v);                         \
		if (__atomic_load_n(ptr, __ATOMIC_RELAXED) != v_)    \
			__atomic_store_n(ptr, v_, __ATOMIC_RELEASE); \
	} while (0)

static int libbpf_print(enum libbpf_print_level level __always_unused, const char *fmt, va_list ap)
{
	if (!verbose)
		return 0;
	return vfprintf(stderr, fmt, ap);
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
	fprintf(stderr, "sclat: loading BPF programs needs root (or CAP_BPF and "
			"CAP_PERFMON): run sclat with sudo\n");
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

static void progs_select(struct probes *t, bool scope_tgid)
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
		s->progs.sclat_fork_btf,   s->progs.sclat_fork_raw,   s->progs.sclat_pexit_btf,
		s->progs.sclat_pexit_raw,  s->progs.sclat_switch_btf, s->progs.sclat_switch_raw,
		s->progs.sclat_waking_btf, s->progs.sclat_exit_btf,   s->progs.sclat_exit_bounded,
		s->progs.sclat_exit_raw,   s->progs.sclat_enter_btf,  s->progs.sclat_enter_bounded,
		s->progs.sclat_enter_raw,
	};
	struct bpf_link **l[] = {
		&s->links.sclat_fork_btf,     &s->links.sclat_fork_raw,
		&s->links.sclat_pexit_btf,    &s->links.sclat_pexit_raw,
		&s->links.sclat_switch_btf,   &s->links.sclat_switch_raw,
		&s->links.sclat_waking_btf,   &s->links.sclat_exit_btf,
		&s->links.sclat_exit_bounded, &s->links.sclat_exit_raw,
		&s->links.sclat_enter_btf,    &s->links.sclat_enter_bounded,
		&s->links.sclat_enter_raw,
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

static int on_ringbuf_sample(void *ctx, void *data, size_t size)
{
	struct probes *t = ctx;

	if (size < sizeof(struct sclat_event))
		return 0;
	return t->on_event ? t->on_event(t->ctx, data, size) : 0;
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
			fprintf(stderr,
				"sclat: --comm \"%s\": a thread name has 1 to %d characters\n",
				opts->comm, SCLAT_COMM_LEN - 1);
			return -EINVAL;
		}
		s->rodata->scope_comm = true;
		memcpy((char *)s->rodata->comm_filter, opts->comm, len);
	}
	if (opts->cgroup) {
		t->cgroup_fd = open(opts->cgroup, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (t->cgroup_fd < 0) {
			int err = -errno;

			fprintf(stderr, "sclat: --cgroup %s: %s\n", opts->cgroup, strerror(errno));
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

static int ringbuf_open(struct probes *t)
{
	int fd = bpf_map__fd(t->skel->maps.events);

	t->rb = ring_buffer__new(fd, on_ringbuf_sample, t, NULL);
	if (!t->rb)
		return -errno;
	/* Our own read-only view of the positions, for the occupancy. */
	t->rb_cons = mmap(NULL, t->page_size, PROT_READ, MAP_SHARED, fd, 0);
	t->rb_prod = mmap(NULL, t->page_size, PROT_READ, MAP_SHARED, fd, t->page_size);
	if (t->rb_cons == MAP_FAILED || t->rb_prod == MAP_FAILED) {
		t->rb_cons = t->rb_prod = NULL;
		return -errno;
	}
	return 0;
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
		fprintf(stderr, "sclat: %d possible CPUs: sclat is built for at most %d\n",
			t->ncpus, SCLAT_CPUS_MAX);
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
		fprintf(stderr, "sclat: the BPF object's .bss does not end with cpu_pages\n");
		return -EINVAL;
	}
	size = last->offset + (size_t)t->ncpus * SCLAT_CPU_PAGE_SIZE;
	err = bss_resize(t, sec_id, size);
	if (err) {
		fprintf(stderr, "sclat: sizing the CPUs' pages: %s\n", strerror(-err));
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
	int err;

	t->skel = sclat_bpf__open();
	if (!t->skel) {
		err = -errno;
		fprintf(stderr, "sclat: opening the BPF object: %s\n", strerror(-err));
		return err;
	}
	progs_select(t, opts->scope_tgid || opts->nr_pids);
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
		fprintf(stderr,
			"sclat: loading the %s BPF programs failed: %s "
			"(SCLAT_DEBUG=1 shows the verifier's log)\n",
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
		fprintf(stderr, "sclat: SCLAT_TEST_COUNTER_BASE=%s: not a 32-bit count\n", env);
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
		fprintf(stderr, "sclat: SCLAT_TEST_COUNTER_BASE: %s\n", strerror(-err));
	return err;
}

int probes_load(struct probes **tp, const struct probes_opts *opts)
{
	struct probes *t;
	size_t rb = opts->ringbuf_bytes ? opts->ringbuf_bytes : PROBES_RINGBUF_DEFAULT;
	const char *force;
	int err, i;

	*tp = NULL;
	verbose = opts->verbose || getenv("SCLAT_DEBUG");
	libbpf_set_print(libbpf_print);

	err = probes_check_privilege();
	if (err)
		return err;
	if (access(VMLINUX_BTF_PATH, R_OK)) {
		fprintf(stderr,
			"sclat: %s: %s: sclat needs a kernel built with "
			"CONFIG_DEBUG_INFO_BTF (5.15 or later)\n",
			VMLINUX_BTF_PATH, strerror(errno));
		return -ENOENT;
	}
	if (rb < 4096 || rb > PROBES_RINGBUF_MAX || (rb & (rb - 1))) {
		fprintf(stderr,
			"sclat: ring buffer size %zu: must be a power of two from 4096 "
			"bytes to 2 GiB\n",
			rb);
		return -EINVAL;
	}

	t = calloc(1, sizeof(*t));
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
		fprintf(stderr, "sclat: cannot count possible CPUs: %s\n", strerror(-err));
		goto fail;
	}

	/*
	 * tp_btf programs; if the kernel refuses them, the same with the CPU's
	 * page checked in sys_enter and sys_exit too (a verifier before Linux
	 * 6.10, see cpu_page_get in kern-bpf/sclat.bpf.c); if it refuses those,
	 * raw_tp programs, which do the same. SCLAT_ATTACH=tp_btf stops before
	 * raw_tp; tp_btf_bounded and raw_tp try nothing else.
	 */
	t->raw_tp = !tp_btf_supported();
	force = getenv("SCLAT_ATTACH");
	t->forced = force != NULL;
	t->bounded = force && !strcmp(force, "tp_btf_bounded");
	for (;;) {
		err = skel_open_load(t, opts, rb);
		if (!err)
			break;
		if (err != -EAGAIN)
			goto fail;
		if (verbose)
			fprintf(stderr, "sclat: tp_btf programs refused, using %s\n",
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
	t->shared = &t->skel->bss->sclat_shared;
	t->cpu_pages = (char *)t->skel->bss->cpu_pages;

	for (i = 0; i < opts->nr_pids; i++) {
		err = probes_scope_add(t, opts->pids[i]);
		if (err)
			goto fail;
	}
	if (t->cgroup_fd >= 0) {
		__u32 key = 0;

		if (bpf_map_update_elem(bpf_map__fd(t->skel->maps.scope_cgroups), &key,
					&t->cgroup_fd, BPF_ANY)) {
			err = -errno;
			fprintf(stderr, "sclat: --cgroup %s: not a cgroup v2 directory (%s)\n",
				opts->cgroup, strerror(errno));
			goto fail;
		}
	}

	err = ringbuf_open(t);
	if (err) {
		fprintf(stderr, "sclat: setting up the ring buffer: %s\n", strerror(-err));
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
			fprintf(stderr, "sclat: attaching the %s program %s failed: %s\n",
				probes_attach_kind(t), bpf_program__name(progs[i]), strerror(-err));
			probes_detach(t);
			return err;
		}
	}
	/* Not measuring anything, it may fail alone: tracing goes on without in-flight reports. */
	t->skel->links.sclat_inflight =
		bpf_program__attach_iter(t->skel->progs.sclat_inflight, NULL);
	if (!t->skel->links.sclat_inflight)
		fprintf(stderr,
			"sclat: attaching the task iterator failed (%s): no syscall is reported "
			"while in flight\n",
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

		fprintf(stderr, "sclat: adding pid %d to the scope: %s\n", tgid, strerror(errno));
		return err;
	}
	return 0;
}

int probes_poll(struct probes *t, int timeout_ms)
{
	int n = ring_buffer__poll(t->rb, timeout_ms), m;

	/*
	 * The kernel wakes this reader only past an eighth of the buffer
	 * (outlier_emit): what came in since the last wake-up is read here, at
	 * the end of each wait.
	 */
	m = ring_buffer__consume(t->rb);
	if (n < 0)
		return n;
	return m < 0 ? m : n + m;
}

int probes_drain(struct probes *t)
{
	return ring_buffer__consume(t->rb);
}

/* What the lanes' slot_classes say of syscall nr's classes: its fd argument too. */
static __u8 lane_classes_of(const struct probes *t, unsigned int nr, __u32 classes)
{
	const struct sclat_target_rule *rule = &t->skel->rodata->target_rules[nr];

	if (!(classes & SCLAT_CLASSES_FD))
		return classes;
	/* No fd argument: every call is of kind none, as fd_kind_of() says. */
	if (rule->kind != SCLAT_RULE_FD || rule->arg >= SCLAT_NR_ARGS)
		return classes & ~SCLAT_CLASSES_FD;
	return classes | rule->arg << SCLAT_LANE_FD_ARG_SHIFT;
}

/* Takes the lane's cells that match off its short path (key 0 first: never read half). */
static void lane_cells_drop(struct sclat_cpu_lane *lane, bool (*match)(__u32 key, __u32 arg),
			    __u32 arg)
{
	unsigned int i;
	__u32 key;

	for (i = 0; i < SCLAT_LANE_CELLS; i++) {
		key = __atomic_load_n(&lane->cell[i].key, __ATOMIC_RELAXED);
		if (key && match(key, arg))
			__atomic_store_n(&lane->cell[i].key, 0, __ATOMIC_RELEASE);
	}
}

static bool key_is(__u32 key, __u32 arg)
{
	return key == arg;
}

static bool key_in_slot(__u32 key, __u32 slot)
{
	return sclat_cell_key_slot(key) == slot;
}

static bool key_of_id(__u32 key, __u32 id)
{
	return sclat_cell_key_class_id(key) == id;
}

/* Each lane's cells of histogram hist get threshold word. */
static void lane_cells_threshold_set(struct probes *t, unsigned int hist, __u64 word)
{
	struct sclat_cpu_lane *lane;
	unsigned int i;
	int cpu;

	for (cpu = 0; cpu < t->ncpus; cpu++) {
		lane = lane_of(t, cpu);
		for (i = 0; i < SCLAT_LANE_CELLS; i++)
			if (__atomic_load_n(&lane->cell[i].key, __ATOMIC_RELAXED) &&
			    lane->cell[i].hist == hist)
				LANE_PUT(&lane->cell[i].threshold, word);
	}
}

/*
 * Before slot's syscall or one of its cells compares with threshold word:
 * every lane's floor of slot at or under it, so that a call under the floor
 * is under every threshold of the slot at any time. Raising a floor waits
 * for probes_floors_refresh(), after the thresholds.
 */
static void lanes_floor_lower(struct probes *t, unsigned int slot, __u64 word)
{
	__u16 floor = sclat_lane_units(word, SCLAT_LANE_UNIT_SHIFT);
	struct sclat_cpu_lane *lane;
	int cpu;

	t->floors_stale = true;
	if (!slot || slot >= SCLAT_HIST_SLOTS)
		return;
	for (cpu = 0; cpu < t->ncpus; cpu++) {
		lane = lane_of(t, cpu);
		if (__atomic_load_n(&lane->slot[slot].floor, __ATOMIC_RELAXED) > floor)
			__atomic_store_n(&lane->slot[slot].floor, floor, __ATOMIC_RELEASE);
	}
}

/*
 * The floor of slot, of a syscall without classes whose threshold word is
 * floor f: under its threshold and its body; 0 while its body is not known
 * (every call goes into its histogram: the window that learns its body, and
 * the first estimate of its threshold, are exact), and when sampling is off.
 */
static __u16 own_floor(const struct probes *t, unsigned int slot, __u16 f)
{
	if (t->sample <= 1 || t->body[slot] == SCLAT_LANE_UNIT_MAX)
		return 0;
	return t->body[slot] < f ? t->body[slot] : f;
}

void probes_floors_refresh(struct probes *t)
{
	__u16 floor[SCLAT_HIST_SLOTS] = { 0 };
	bool used[SCLAT_HIST_SLOTS] = { false };
	unsigned int nr, slot, cell;
	__u16 f;
	int cpu;

	if (!t->floors_stale)
		return;
	t->floors_stale = false;
	for (slot = 0; slot < SCLAT_HIST_SLOTS; slot++)
		floor[slot] = SCLAT_LANE_UNIT_MAX;
	for (nr = 0; nr < SCLAT_MAX_SYSCALLS; nr++) {
		slot = __atomic_load_n(&t->shared->ctl[nr].slot, __ATOMIC_ACQUIRE);
		if (!slot || slot >= SCLAT_HIST_SLOTS)
			continue;
		used[slot] = true;
		f = sclat_lane_units(
			__atomic_load_n(&t->shared->ctl[nr].threshold, __ATOMIC_RELAXED),
			SCLAT_LANE_UNIT_SHIFT);
		if (!__atomic_load_n(&t->shared->ctl[nr].classes, __ATOMIC_RELAXED))
			f = own_floor(t, slot, f);
		if (f < floor[slot])
			floor[slot] = f;
	}
	for (cell = 1; cell < t->class_cells; cell++) {
		if (!t->route_of_cell[cell])
			continue;
		slot = sclat_cell_key_slot(t->route_of_cell[cell]);
		f = sclat_lane_units(
			__atomic_load_n(&t->shared->cell_threshold[cell], __ATOMIC_RELAXED),
			SCLAT_LANE_UNIT_SHIFT);
		if (slot < SCLAT_HIST_SLOTS && f < floor[slot])
			floor[slot] = f;
	}
	/* Not sampled: every call of a slot nobody has, or sampling off. */
	for (slot = 0; slot < SCLAT_HIST_SLOTS; slot++)
		if (!used[slot] || t->sample <= 1)
			floor[slot] = 0;
	for (cpu = 0; cpu < t->ncpus; cpu++)
		for (slot = 1; slot < SCLAT_HIST_SLOTS; slot++)
			LANE_PUT(&lane_of(t, cpu)->slot[slot].floor, floor[slot]);
}

void probes_sample_set(struct probes *t, __u32 n)
{
	int cpu;

	if (n < 1)
		n = 1;
	if (n > SCLAT_SAMPLE_MAX)
		n = SCLAT_SAMPLE_MAX;
	if (n == t->sample)
		return;
	t->sample = n;
	t->floors_stale = true;
	/* Down to 1: the floors go first, so that no call is passed over from then on. */
	if (n == 1)
		probes_floors_refresh(t);
	for (cpu = 0; cpu < t->ncpus; cpu++)
		__atomic_store_n(&lane_of(t, cpu)->sample_n, n, __ATOMIC_RELEASE);
}

void probes_body_set(struct probes *t, unsigned int nr, __u64 ns)
{
	unsigned int slot = probes_slot(t, nr);
	/* Rounded up: the calls under it are the body's (its threshold's floor rounds down). */
	__u64 units = (ns + (1U << SCLAT_LANE_UNIT_SHIFT) - 1) >> SCLAT_LANE_UNIT_SHIFT;
	__u16 body = units && units < SCLAT_LANE_UNIT_MAX ? units : SCLAT_LANE_UNIT_MAX;

	if (slot == SCLAT_SLOT_NONE || slot >= SCLAT_HIST_SLOTS || t->body[slot] == body)
		return;
	t->body[slot] = body;
	t->floors_stale = true;
}

__u64 probes_floor_ns(const struct probes *t, unsigned int nr)
{
	unsigned int slot = probes_slot(t, nr);

	if (slot == SCLAT_SLOT_NONE || slot >= SCLAT_HIST_SLOTS)
		return 0;
	return (__u64)__atomic_load_n(&lane_of(t, 0)->slot[slot].floor, __ATOMIC_RELAXED)
	       << SCLAT_LANE_UNIT_SHIFT;
}

/*
 * Puts syscall nr on every CPU's short path (struct sclat_cpu_lane), with its
 * threshold and classes, when it has a slot of its own; else takes it off.
 * The threshold goes first: a CPU that finds the slot finds its threshold. A
 * change of classes takes the slot's cells off the lanes.
 */
static void lanes_sync(struct probes *t, unsigned int nr)
{
	unsigned int slot = __atomic_load_n(&t->shared->ctl[nr].slot, __ATOMIC_ACQUIRE);
	__u64 word = __atomic_load_n(&t->shared->ctl[nr].threshold, __ATOMIC_RELAXED);
	bool on = slot != SCLAT_SLOT_NONE && slot < SCLAT_HIST_SLOTS;
	__u32 classes = __atomic_load_n(&t->shared->ctl[nr].classes, __ATOMIC_RELAXED);
	struct sclat_cpu_lane *lane;
	__u8 lane_classes, slot_of;
	__u16 below, block_below;
	int cpu;

	if (!on) {
		for (cpu = 0; cpu < t->ncpus; cpu++)
			LANE_PUT(&lane_of(t, cpu)->slot_of[nr], 0);
		return;
	}
	t->slot_word[slot] = word;
	below = sclat_lane_units(word, SCLAT_LANE_UNIT_SHIFT);
	block_below = sclat_lane_units(word, SCLAT_LANE_BLOCK_SHIFT);
	lane_classes = lane_classes_of(t, nr, classes);
	slot_of = slot | (classes ? SCLAT_LANE_CLASSED : 0);
	for (cpu = 0; cpu < t->ncpus; cpu++) {
		lane = lane_of(t, cpu);
		LANE_PUT(&lane->slot[slot].below, below);
		LANE_PUT(&lane->block_below[slot], block_below);
		if (lane->slot_classes[slot] != lane_classes) {
			lane_cells_drop(lane, key_in_slot, slot);
			__atomic_store_n(&lane->slot_classes[slot], lane_classes, __ATOMIC_RELEASE);
		}
		LANE_PUT(&lane->slot_of[nr], slot_of);
	}
	/* A refused class's calls count with the syscall's, at its threshold. */
	if (classes)
		lane_cells_threshold_set(t, slot, word);
}

void probes_threshold_set(struct probes *t, unsigned int nr, __u64 word)
{
	if (nr >= SCLAT_MAX_SYSCALLS)
		return;
	lanes_floor_lower(t, __atomic_load_n(&t->shared->ctl[nr].slot, __ATOMIC_ACQUIRE), word);
	/* Release: whatever was published for this generation is visible before it. */
	__atomic_store_n(&t->shared->ctl[nr].threshold, word, __ATOMIC_RELEASE);
	lanes_sync(t, nr);
}

__u64 probes_threshold_word(const struct probes *t, unsigned int nr)
{
	return nr < SCLAT_MAX_SYSCALLS
		       ? __atomic_load_n(&t->shared->ctl[nr].threshold, __ATOMIC_RELAXED)
		       : SCLAT_THRESHOLD_NEVER;
}

unsigned int probes_slot(const struct probes *t, unsigned int nr)
{
	if (nr >= SCLAT_MAX_SYSCALLS)
		return SCLAT_SLOT_NONE;
	return __atomic_load_n(&t->shared->ctl[nr].slot, __ATOMIC_RELAXED);
}

void probes_guard_set(struct probes *t, __u64 window_ns, __u32 burst)
{
	/* The BPF side reads the window when burst is non-zero: window first. */
	__atomic_store_n(&t->shared->knobs.guard_window_ns, window_ns, __ATOMIC_RELAXED);
	__atomic_store_n(&t->shared->knobs.guard_burst, burst, __ATOMIC_RELEASE);
}

void probes_inflight_after_set(struct probes *t, unsigned int nr, __u64 ns)
{
	if (nr < SCLAT_MAX_SYSCALLS)
		__atomic_store_n(&t->skel->bss->inflight_after_ns[nr], ns, __ATOMIC_RELAXED);
}

/* All the iterator writes in one run: a few records, each under 2 KiB. */
static ssize_t iter_read_all(int fd, char **buf, size_t *cap)
{
	size_t len = 0;
	ssize_t n;
	char *p;

	for (;;) {
		if (*cap - len < 4096) {
			p = realloc(*buf, *cap ? *cap * 2 : 16384);
			if (!p)
				return -ENOMEM;
			*buf = p;
			*cap = *cap ? *cap * 2 : 16384;
		}
		n = read(fd, *buf + len, *cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (!n)
			return len;
		len += n;
	}
}

int probes_inflight_scan(struct probes *t, probes_inflight_fn fn, void *ctx)
{
	const struct sclat_inflight *r;
	ssize_t len, off;
	int fd, n = 0;

	if (!t->skel->links.sclat_inflight)
		return -ENOTSUP;
	fd = bpf_iter_create(bpf_link__fd(t->skel->links.sclat_inflight));
	if (fd < 0)
		return -errno;
	len = iter_read_all(fd, &t->iter_buf, &t->iter_cap);
	close(fd);
	if (len < 0)
		return len;
	for (off = 0; len - off >= (ssize_t)sizeof(*r); off += r->size) {
		r = (const void *)(t->iter_buf + off);
		if (r->size < sizeof(*r) || r->size > len - off || r->size % SCLAT_PART_ALIGN)
			return -EBADMSG;
		fn(ctx, r);
		n++;
	}
	return n;
}

void probes_classes_set(struct probes *t, unsigned int nr, __u32 classes)
{
	if (nr >= SCLAT_MAX_SYSCALLS || t->shared->ctl[nr].classes == classes)
		return;
	t->floors_stale = true;
	__atomic_store_n(&t->shared->ctl[nr].classes, classes, __ATOMIC_RELEASE);
	lanes_sync(t, nr);
}

void probes_cell_threshold_set(struct probes *t, unsigned int cell, __u64 word)
{
	if (cell >= SCLAT_CLASS_CELLS_MAX)
		return;
	/* A cell not routed yet lowers its slot's floor when it is (probes_cell_route). */
	lanes_floor_lower(t,
			  cell < t->class_cells && t->route_of_cell[cell]
				  ? sclat_cell_key_slot(t->route_of_cell[cell])
				  : 0,
			  word);
	__atomic_store_n(&t->shared->cell_threshold[cell], word, __ATOMIC_RELEASE);
	/* Its very next call on the short path compares with it. */
	lane_cells_threshold_set(t, SCLAT_HIST_SLOTS + cell, word);
}

/* Routes that match, off every lane and out of route_of_cell. */
static void routes_forget(struct probes *t, bool (*match)(__u32 key, __u32 arg), __u32 arg)
{
	unsigned int cell;
	int cpu;

	t->floors_stale = true;
	for (cell = 1; cell < t->class_cells; cell++)
		if (t->route_of_cell[cell] && match(t->route_of_cell[cell], arg))
			t->route_of_cell[cell] = 0;
	for (cpu = 0; cpu < t->ncpus; cpu++)
		lane_cells_drop(lane_of(t, cpu), match, arg);
}

void probes_cell_route(struct probes *t, unsigned int slot, unsigned int id, unsigned int fd_kind,
		       unsigned int cell)
{
	int fd = bpf_map__fd(t->skel->maps.cell_routes);
	__u32 key, value = cell;

	if (!slot || slot >= SCLAT_HIST_SLOTS || id >= SCLAT_CLASS_IDS || fd_kind >= SCLAT_FD_KINDS)
		return;
	key = sclat_cell_key(slot, id, fd_kind);
	/* A call that finds the cell finds its slot's floor under the cell's threshold. */
	if (cell && cell < t->class_cells)
		lanes_floor_lower(
			t, slot,
			__atomic_load_n(&t->shared->cell_threshold[cell], __ATOMIC_RELAXED));
	t->floors_stale = true;
	if (cell == SCLAT_CELL_NONE)
		bpf_map_delete_elem(fd, &key);
	else
		bpf_map_update_elem(fd, &key, &value, BPF_ANY);
	routes_forget(t, key_is, key);
	if (cell && cell < t->class_cells)
		t->route_of_cell[cell] = key;
}

/*
 * Deletes the entries of hash map fd (at most max) that match says to; returns
 * how many. Keys first, deletions after: deleting while walking a hash may
 * restart the walk.
 */
static unsigned int
map_delete_matching(int fd, unsigned int max, size_t key_size, size_t value_size,
		    bool (*match)(const void *key, const void *value, void *ctx), void *ctx)
{
	char *keys = calloc(max, key_size), *cur = malloc(key_size), *next = malloc(key_size);
	void *value = malloc(value_size);
	unsigned int n = 0, i, done = 0;
	bool first = true;

	if (!keys || !cur || !next || !value)
		goto out;
	while (n < max && !bpf_map_get_next_key(fd, first ? NULL : cur, next)) {
		first = false;
		memcpy(cur, next, key_size);
		if (!bpf_map_lookup_elem(fd, cur, value) && match(cur, value, ctx))
			memcpy(keys + (size_t)n++ * key_size, cur, key_size);
	}
	for (i = 0; i < n; i++)
		done += !bpf_map_delete_elem(fd, keys + (size_t)i * key_size);
out:
	free(keys);
	free(cur);
	free(next);
	free(value);
	return done;
}

static bool route_of_id(const void *key, const void *value __always_unused, void *ctx)
{
	return key_of_id(*(const __u32 *)key, *(const unsigned int *)ctx);
}

void probes_class_routes_clear(struct probes *t, unsigned int id)
{
	const struct bpf_map *m = t->skel->maps.cell_routes;

	if (!id || id >= SCLAT_CLASS_IDS)
		return;
	map_delete_matching(bpf_map__fd(m), bpf_map__max_entries(m), sizeof(__u32), sizeof(__u32),
			    route_of_id, &id);
	routes_forget(t, key_of_id, id);
}

/* After a class id changed in the hash: the CPUs look up the ids they noted again. */
static void class_epoch_move(struct probes *t)
{
	int cpu;

	for (cpu = 0; cpu < t->ncpus; cpu++)
		__atomic_fetch_add(&lane_of(t, cpu)->class_epoch, 1, __ATOMIC_RELEASE);
}

int probes_class_id_set(struct probes *t, __u32 kind, __u64 key, __u32 id)
{
	struct sclat_class_key k = { .key = key, .kind = kind };

	if (bpf_map_update_elem(bpf_map__fd(t->skel->maps.class_ids), &k, &id, BPF_ANY))
		return -errno;
	/* A CPU may have noted the class as asked for, without an id. */
	class_epoch_move(t);
	return 0;
}

int probes_class_id_forget(struct probes *t, __u32 kind, __u64 key)
{
	struct sclat_class_key k = { .key = key, .kind = kind };

	if (bpf_map_delete_elem(bpf_map__fd(t->skel->maps.class_ids), &k))
		return -errno;
	/* After the deletion: a CPU that noted the id since looks it up again, and misses. */
	class_epoch_move(t);
	return 0;
}

int probes_class_requests(struct probes *t, struct sclat_class_request *out, int max)
{
	int fd = bpf_map__fd(t->skel->maps.class_requests), n = 0;

	while (n < max && !bpf_map_lookup_and_delete_elem(fd, NULL, &out[n]))
		n++;
	return n;
}

void probes_kstacks(const struct probes *t, __u64 *taken, __u64 *skipped, __u64 *wakers_lost)
{
	*taken = __atomic_load_n(&t->skel->bss->kstacks_taken, __ATOMIC_RELAXED);
	*skipped = __atomic_load_n(&t->skel->bss->kstacks_skipped, __ATOMIC_RELAXED);
	*wakers_lost = __atomic_load_n(&t->skel->bss->wakers_lost, __ATOMIC_RELAXED);
}

__u64 probes_children_not_followed(const struct probes *t)
{
	return __atomic_load_n(&t->skel->bss->children_not_followed, __ATOMIC_RELAXED);
}

__u32 probes_class_requests_lost(const struct probes *t)
{
	return __atomic_load_n(&t->shared->class_requests_lost, __ATOMIC_ACQUIRE);
}

static bool value_is(const void *key __always_unused, const void *value, void *ctx)
{
	return *(const __u32 *)value == *(const __u32 *)ctx;
}

/* Class ids whose value is still what (0: asked; refused) deleted: the next call asks again. */
static unsigned int class_ids_rearm(struct probes *t, __u32 what)
{
	const struct bpf_map *m = t->skel->maps.class_ids;

	return map_delete_matching(bpf_map__fd(m), bpf_map__max_entries(m),
				   sizeof(struct sclat_class_key), sizeof(__u32), value_is, &what);
}

/* Routes still what (asked; shared: refused) deleted: the next call asks again. */
static unsigned int routes_rearm(struct probes *t, __u32 what)
{
	const struct bpf_map *m = t->skel->maps.cell_routes;

	return map_delete_matching(bpf_map__fd(m), bpf_map__max_entries(m), sizeof(__u32),
				   sizeof(__u32), value_is, &what);
}

static void lane_cells_check(struct probes *t);

/*
 * After routes (n_routes) and class ids (n_ids) were deleted for the BPF side
 * to ask again: what the CPUs noted of them goes, off the lanes, looked up again.
 */
static unsigned int rearmed(struct probes *t, unsigned int n_routes, unsigned int n_ids)
{
	if (n_routes)
		lane_cells_check(t);
	if (n_ids)
		class_epoch_move(t);
	return n_routes + n_ids;
}

unsigned int probes_class_requests_rearm(struct probes *t)
{
	return rearmed(t, routes_rearm(t, SCLAT_CELL_ASKED), class_ids_rearm(t, 0));
}

unsigned int probes_class_refusals_rearm(struct probes *t, bool ids, bool cells)
{
	return rearmed(t, cells ? routes_rearm(t, SCLAT_CELL_SHARED) : 0,
		       ids ? class_ids_rearm(t, SCLAT_CLASS_ID_REFUSED) : 0);
}

/* Each CPU's flush sequence now, before its histograms are read; NULL on no memory. */
static __u32 *flush_seqs(const struct probes *t)
{
	__u32 *seq = calloc(t->ncpus, sizeof(*seq));
	int cpu;

	for (cpu = 0; seq && cpu < t->ncpus; cpu++)
		seq[cpu] = __atomic_load_n(&lane_of(t, cpu)->flush_seq, __ATOMIC_ACQUIRE);
	return seq;
}

/*
 * Adds each CPU's pending calls (struct sclat_cpu_lane) of histograms first
 * .. first + n - 1 to those in buf (buf[(index - first) * ncpus + cpu]), read
 * since seq[cpu] was taken. A CPU that moved its pending calls into its
 * histograms in between is skipped: its calls so moved are then in neither,
 * never in both, so the counts read never run ahead; the reader's deltas
 * skip a count that runs behind (engine.c).
 */
static void pending_add(struct probes *t, struct sclat_hist *buf, __u32 first, __u32 n,
			const __u32 *seq)
{
	__u64 pend[SCLAT_PENDING_MAX];
	__u32 i, count, index, hist;
	const struct sclat_cpu_lane *lane;
	int cpu;

	for (cpu = 0; cpu < t->ncpus; cpu++) {
		lane = lane_of(t, cpu);
		if (seq[cpu] & 1)
			continue;
		count = __atomic_load_n(&lane->pend_n, __ATOMIC_ACQUIRE);
		if (count > SCLAT_PENDING_MAX)
			continue;
		memcpy(pend, lane->pend, count * sizeof(pend[0]));
		/* A flush in between: the copy may hold calls the histograms have too. */
		if (__atomic_load_n(&lane->flush_seq, __ATOMIC_ACQUIRE) != seq[cpu])
			continue;
		for (i = 0; i < count; i++) {
			hist = sclat_pend_hist(pend[i]);
			index = hist - first;
			if (hist >= first && index < n)
				buf[index * t->ncpus + cpu]
					.bucket[sclat_hist_bucket(sclat_pend_ns(pend[i]))] +=
					sclat_pend_weight(pend[i]);
		}
	}
}

/*
 * Every lane's cells checked against what userspace routed, and their
 * thresholds against the words: a call that filled its lane as a route or a
 * threshold changed is put right within an interval.
 */
static void lane_cells_check(struct probes *t)
{
	int fd = bpf_map__fd(t->skel->maps.cell_routes);
	struct sclat_lane_cell *e;
	unsigned int i, cell;
	__u32 key, route;
	__u64 word;
	bool ok;
	int cpu;

	for (cpu = 0; cpu < t->ncpus; cpu++) {
		for (i = 0; i < SCLAT_LANE_CELLS; i++) {
			e = &lane_of(t, cpu)->cell[i];
			key = __atomic_load_n(&e->key, __ATOMIC_ACQUIRE);
			if (!key)
				continue;
			if (e->hist >= SCLAT_HIST_SLOTS) {
				cell = e->hist - SCLAT_HIST_SLOTS;
				ok = cell < t->class_cells && t->route_of_cell[cell] == key;
				word = ok ? __atomic_load_n(&t->shared->cell_threshold[cell],
							    __ATOMIC_RELAXED)
					  : 0;
			} else {
				ok = e->hist == sclat_cell_key_slot(key) &&
				     !bpf_map_lookup_elem(fd, &key, &route) &&
				     (route == SCLAT_CELL_SHARED || route == SCLAT_CELL_ASKED);
				word = ok ? t->slot_word[e->hist] : 0;
			}
			if (!ok)
				__atomic_store_n(&e->key, 0, __ATOMIC_RELEASE);
			else
				LANE_PUT(&e->threshold, word);
		}
	}
}

/* Cells first .. first + n - 1 (n > 0) into buf, their pending calls added; how many. */
static int cells_read(struct probes *t, struct sclat_hist *buf, unsigned int first, unsigned int n)
{
	LIBBPF_OPTS(bpf_map_batch_opts, opts);
	int fd = bpf_map__fd(t->skel->maps.hists);
	__u32 in = SCLAT_HIST_SLOTS + first - 1, out, count = n, *seq;
	int err = 0;

	seq = flush_seqs(t);
	if (!seq)
		return -ENOMEM;
	/* An array's batch starts after in: cell first is SCLAT_HIST_SLOTS + first. */
	if (bpf_map_lookup_batch(fd, &in, &out, t->cell_keys, buf, &count, &opts) &&
	    errno != ENOENT)
		err = -errno;
	else if (count != n)
		err = -EIO;
	else
		pending_add(t, buf, SCLAT_HIST_SLOTS + first, count, seq);
	free(seq);
	return err ? err : (int)count;
}

int probes_cells_read(struct probes *t, struct sclat_hist *buf, unsigned int n)
{
	if (n > t->class_cells)
		n = t->class_cells;
	if (n <= 1)
		return 0;
	return cells_read(t, buf, 1, n - 1);
}

int probes_cell_read(struct probes *t, unsigned int cell, struct sclat_hist *buf)
{
	int n;

	if (!cell || cell >= t->class_cells)
		return -EINVAL;
	n = cells_read(t, buf, cell, 1);
	return n < 0 ? n : 0;
}

unsigned int probes_class_cells(const struct probes *t)
{
	return t->class_cells;
}

int probes_ncpus(const struct probes *t)
{
	return t->ncpus;
}

/* Every syscall on the lanes as its slot, threshold and classes say. */
static void lanes_sync_all(struct probes *t)
{
	unsigned int nr;

	t->lanes_next_slot = __atomic_load_n(&t->shared->next_slot, __ATOMIC_ACQUIRE);
	for (nr = 0; nr < SCLAT_MAX_SYSCALLS; nr++)
		lanes_sync(t, nr);
}

bool probes_lanes_refresh(struct probes *t)
{
	if (__atomic_load_n(&t->shared->next_slot, __ATOMIC_ACQUIRE) == t->lanes_next_slot)
		return false;
	lanes_sync_all(t);
	return true;
}

int probes_hists_read(struct probes *t, struct sclat_hist *buf, bool all)
{
	LIBBPF_OPTS(bpf_map_batch_opts, opts);
	int fd = bpf_map__fd(t->skel->maps.hists);
	__u32 out_batch, n, count, *seq, slot;
	int err, cpu;

	/* A syscall whose slot came after probes_lanes_refresh() looked joins it now. */
	lanes_sync_all(t);
	if (t->class_cells)
		lane_cells_check(t);
	seq = flush_seqs(t);
	if (!seq)
		return -ENOMEM;
	/* Slots 1..next_slot are handed out (in that order); the rest are untouched. */
	n = __atomic_load_n(&t->shared->next_slot, __ATOMIC_ACQUIRE);
	n = n < SCLAT_HIST_SLOTS - 1 && !all ? n + 1 : SCLAT_HIST_SLOTS;
	count = n;
	err = bpf_map_lookup_batch(fd, NULL, &out_batch, t->keys, buf, &count, &opts);
	if (err && errno != ENOENT) {
		err = -errno;
		free(seq);
		return err;
	}
	if (count != n) {
		free(seq);
		return -EIO;
	}
	pending_add(t, buf, 0, n, seq);
	free(seq);
	for (slot = 0; slot < n; slot++)
		for (cpu = 0; cpu < t->ncpus; cpu++)
			buf[slot * t->ncpus + cpu].calls = __atomic_load_n(
				&lane_of(t, cpu)->slot[slot].calls, __ATOMIC_RELAXED);
	return n;
}

int probes_stats_sample(struct probes *t, bool on)
{
	int fd;

	if (on == (t->stats_fd >= 0))
		return 0;
	if (!on) {
		close(t->stats_fd);
		t->stats_fd = -1;
		return 0;
	}
	fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	if (fd < 0)
		return -errno;
	t->stats_fd = fd;
	return 0;
}

int probes_prog_stats(struct probes *t, struct probes_prog_stat *out, int max)
{
	struct bpf_program *prog;
	int n = 0;

	bpf_object__for_each_program(prog, t->skel->obj)
	{
		struct bpf_prog_info info = {};
		__u32 len = sizeof(info);
		int fd = bpf_program__fd(prog);

		if (fd < 0 || n >= max)
			continue;
		if (bpf_obj_get_info_by_fd(fd, &info, &len))
			continue;
		out[n].name = bpf_program__name(prog);
		out[n].run_cnt = info.run_cnt;
		out[n].run_time_ns = info.run_time_ns;
		n++;
	}
	return n;
}

static __u64 fd_memlock(int fd)
{
	char path[64], line[256];
	unsigned long long v = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "memlock: %llu", &v) == 1)
			break;
	fclose(f);
	return v;
}

/* Whether a map's memory is all allocated when it is created (else it follows its elements). */
static bool map_sized_at_creation(enum bpf_map_type type)
{
	return type == BPF_MAP_TYPE_ARRAY || type == BPF_MAP_TYPE_PERCPU_ARRAY ||
	       type == BPF_MAP_TYPE_RINGBUF || type == BPF_MAP_TYPE_QUEUE ||
	       type == BPF_MAP_TYPE_CGROUP_ARRAY;
}

int probes_mem(struct probes *t, struct probes_mem *mem)
{
	struct bpf_map *map;

	/* Read every interval: /proc/self/fdinfo only for the maps whose size can change. */
	*mem = t->mem_sized;
	bpf_object__for_each_map(map, t->skel->obj)
	{
		int fd = bpf_map__fd(map);
		bool sized = map_sized_at_creation(bpf_map__type(map));
		struct probes_mem *to = sized ? &t->mem_sized : mem;
		__u64 bytes;

		if (fd < 0 || (sized && t->mem_sized_read))
			continue;
		bytes = fd_memlock(fd);
		if (bpf_map__type(map) == BPF_MAP_TYPE_PERCPU_ARRAY ||
		    bpf_map__type(map) == BPF_MAP_TYPE_PERCPU_HASH) {
			to->per_cpu += bytes / t->ncpus;
		} else if (map == t->skel->maps.bss) {
			/* The CPUs' pages, one each; the rest of .bss is fixed. */
			to->per_cpu += SCLAT_CPU_PAGE_SIZE;
			to->fixed += bytes - (__u64)t->ncpus * SCLAT_CPU_PAGE_SIZE;
		} else if (map == t->skel->maps.wake_notes &&
			   sclat_wake_slots(t->ncpus) > SCLAT_WAKE_SLOTS_MIN) {
			/* Past their minimum, the wakers' notes are sized by the CPUs. */
			to->per_cpu += bytes / t->ncpus;
		} else {
			to->fixed += bytes;
		}
	}
	if (!t->mem_sized_read) {
		t->mem_sized_read = true;
		mem->per_cpu += t->mem_sized.per_cpu;
		mem->fixed += t->mem_sized.fixed;
	}
	return 0;
}

__u64 probes_ringbuf_used(const struct probes *t)
{
	if (!t->rb_cons)
		return 0;
	return __atomic_load_n(t->rb_prod, __ATOMIC_ACQUIRE) -
	       __atomic_load_n(t->rb_cons, __ATOMIC_ACQUIRE);
}

__u64 probes_ringbuf_size(const struct probes *t)
{
	return t->ringbuf_bytes;
}

const char *probes_attach_kind(const struct probes *t)
{
	return t->raw_tp ? "raw_tp" : "tp_btf";
}

void probes_close(struct probes *t)
{
	if (!t)
		return;
	ring_buffer__free(t->rb);
	if (t->rb_cons)
		munmap((void *)t->rb_cons, t->page_size);
	if (t->rb_prod)
		munmap((void *)t->rb_prod, t->page_size);
	if (t->skel)
		probes_detach(t);
	sclat_bpf__destroy(t->skel);
	if (t->stats_fd >= 0)
		close(t->stats_fd);
	if (t->cgroup_fd >= 0)
		close(t->cgroup_fd);
	free(t->keys);
	free(t->iter_buf);
	free(t->cell_keys);
	free(t->route_of_cell);
	free(t);
}
