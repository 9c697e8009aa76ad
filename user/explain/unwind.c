// SPDX-License-Identifier: GPL-2.0-only
/* A captured user stack, unwound with libdwfl over the stack copy, and named. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "util/clock.h"
#include "util/compiler.h"
#include "explain/image_file.h"
#include "explain/symbols.h"
#include "explain/unwind.h"

/* Where a mapping's file is read: through the process that maps it. */
#define VIEW_OF(p, m) ((struct map_view){ .pid = (p), .start = (m)->start, .end = (m)->end })

/* Modules of one unwind: a process maps a few dozen binaries. */
#define MODULES_MAX 256

struct unwind_state {
	const struct sclat_ustack *cap;
	pid_t tid;
	bool past_copy; /* a read fell above the stack copy */
	struct ustack_result *out;
};

static const char *const end_names[] = {
	[USTACK_END_OUTERMOST] = "outermost",  [USTACK_END_COPY] = "stack-copy",
	[USTACK_END_MAX] = "max-frames",       [USTACK_END_UNKNOWN] = "no-unwind-info",
	[USTACK_END_NO_REGS] = "no-registers", [USTACK_END_STOPPED] = "stopped",
};

const char *ustack_end_name(enum ustack_end end)
{
	return end_names[end];
}

static pid_t next_thread(Dwfl *dwfl __always_unused, void *arg, void **thread_argp)
{
	struct unwind_state *st = arg;

	if (*thread_argp)
		return 0;
	*thread_argp = st;
	return st->tid;
}

static bool get_thread(Dwfl *dwfl __always_unused, pid_t tid, void *arg, void **thread_argp)
{
	struct unwind_state *st = arg;

	*thread_argp = st;
	return tid == st->tid;
}

/* The stack as it was: the copy; nothing else of the process's memory is known. */
static bool memory_read(Dwfl *dwfl __always_unused, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	struct unwind_state *st = arg;
	__u64 sp = st->cap->regs[SCLAT_USTACK_REG_SP];

	if (addr < sp || addr - sp + sizeof(*result) > st->cap->size) {
		if (addr >= sp)
			st->past_copy = true;
		return false;
	}
	memcpy(result, st->cap->stack + (addr - sp), sizeof(*result));
	return true;
}

static bool set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	struct unwind_state *st = arg;

	return dwfl_thread_state_registers(thread, 0, SCLAT_USTACK_NR_REGS,
					   (const Dwarf_Word *)st->cap->regs);
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
	.next_thread = next_thread,
	.get_thread = get_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

static int frame_collect(Dwfl_Frame *frame, void *arg)
{
	struct unwind_state *st = arg;
	struct ustack_result *out = st->out;
	Dwarf_Addr pc;

	if (!dwfl_frame_pc(frame, &pc, NULL) || !pc)
		return DWARF_CB_ABORT;
	if (out->nr == USTACK_FRAMES_MAX) {
		out->end = USTACK_END_MAX;
		return DWARF_CB_ABORT;
	}
	out->frames[out->nr++].addr = pc;
	return DWARF_CB_OK;
}

/* Unwinding reads .eh_frame, in the binary itself: no search for debug files here. */
static int find_no_debuginfo(Dwfl_Module *mod __always_unused, void **userdata __always_unused,
			     const char *modname __always_unused, Dwarf_Addr base __always_unused,
			     const char *file_name __always_unused,
			     const char *debuglink_file __always_unused,
			     GElf_Word debuglink_crc __always_unused,
			     char **debuginfo_file_name __always_unused)
{
	return -1;
}

static const Dwfl_Callbacks unwind_callbacks = {
	.find_elf = elf_image_find_elf,
	.find_debuginfo = find_no_debuginfo,
};

/* Report each mapped binary once, at its load bias; returns how many. */
static int modules_report(Dwfl *dwfl, struct symbols *syms, pid_t pid, const struct map_entry *maps,
			  int nr_maps)
{
	struct elf_image *done[MODULES_MAX];
	struct elf_image *im;
	__u64 bias;
	int i, j, n = 0;

	dwfl_report_begin(dwfl);
	for (i = 0; i < nr_maps && n < MODULES_MAX; i++) {
		im = symbols_image_in(syms, maps[i].file, &VIEW_OF(pid, &maps[i]));
		if (!im || !elf_image_bias(im, maps[i].start, maps[i].pgoff, &bias))
			continue;
		for (j = 0; j < n && done[j] != im; j++)
			;
		if (j < n)
			continue; /* a binary mapped executable twice: once is enough */
		if (elf_image_report(im, dwfl, bias))
			done[n++] = im;
	}
	dwfl_report_end(dwfl, NULL, NULL);
	return n;
}

static const struct map_entry *map_of(const struct map_entry *maps, int nr, __u64 addr)
{
	int lo = 0, hi = nr - 1, mid;

	while (lo <= hi) {
		mid = (lo + hi) / 2;
		if (addr < maps[mid].start)
			hi = mid - 1;
		else if (addr >= maps[mid].end)
			lo = mid + 1;
		else
			return &maps[mid];
	}
	return NULL;
}

static const char *basename_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/*
 * The path of a mapped file as a frame gives it, and its binary's name: a
 * deleted file's (a memfd's, one a package upgrade replaced) once marked so.
 */
static const char *frame_binary(struct ustack_frame *f, const char *mapped, char *bin, size_t len)
{
	char path[sizeof(f->path) - sizeof(" (deleted)") + 1];
	bool deleted = image_path_undeleted(mapped, path, sizeof(path));

	snprintf(f->path, sizeof(f->path), "%s%s", path, deleted ? " (deleted)" : "");
	snprintf(bin, len, "%s%s", basename_of(path), deleted ? " (deleted)" : "");
	return bin;
}

/* Name frame f of process pid; caller says whether its pc is a return address (all but the first).
 */
static void frame_name(struct symbols *syms, struct ustack_frame *f, bool return_address, pid_t pid,
		       const struct map_entry *maps, int nr_maps)
{
	/* A return address may be the first byte after a call at a function's end. */
	__u64 lookup = return_address ? f->addr - 1 : f->addr;
	const struct map_entry *m = map_of(maps, nr_maps, lookup);
	struct symbol_info si;
	struct elf_image *im;
	char bin_name[sizeof(f->path)];
	const char *bin;
	__u64 bias;
	int len, n;
	const __u8 *id;

	if (!m) {
		snprintf(f->text, sizeof(f->text), "0x%llx", (unsigned long long)f->addr);
		return;
	}
	f->mapped = true;
	bin = frame_binary(f, m->file->path, bin_name, sizeof(bin_name));
	im = symbols_image_in(syms, m->file, &VIEW_OF(pid, m));
	if (!im || !elf_image_bias(im, m->start, m->pgoff, &bias)) {
		f->rel = f->addr - m->start + m->pgoff;
		f->build_id_len = m->file->build_id_len;
		memcpy(f->build_id, m->file->build_id, f->build_id_len);
		snprintf(f->text, sizeof(f->text), "%s+0x%llx", bin, (unsigned long long)f->rel);
		return;
	}
	f->rel = f->addr - bias;
	id = elf_image_build_id(im, &len);
	f->build_id_len = len;
	memcpy(f->build_id, id, len);
	if (!elf_image_symbolize(im, lookup - bias, &si) || !si.name) {
		n = snprintf(f->text, sizeof(f->text), "%s+0x%llx", bin,
			     (unsigned long long)f->rel);
	} else {
		/* The offset of the address itself, not of the byte before it. */
		n = snprintf(f->text, sizeof(f->text), "%.*s+0x%llx (%s)", si.name_len, si.name,
			     (unsigned long long)(si.offset + (f->addr - lookup)), bin);
	}
	if (si.src && n > 0 && (size_t)n < sizeof(f->text))
		snprintf(f->text + n, sizeof(f->text) - n, " %s:%d", si.src, si.line);
}

int ustack_unwind(struct symbols *syms, const struct sclat_ustack *cap, pid_t pid, pid_t tid,
		  const struct map_entry *maps, int nr_maps, struct ustack_result *out)
{
	struct unwind_state st = { .cap = cap, .tid = tid, .out = out };
	__u64 t0 = clock_ns(CLOCK_MONOTONIC), t1;
	Dwfl *dwfl;
	int i, rc;

	out->nr = 0;
	out->unwind_ns = out->name_ns = 0;
	out->end = USTACK_END_UNKNOWN;
	if (cap->flags & SCLAT_USTACK_NO_REGS) {
		out->end = USTACK_END_NO_REGS;
		return 0;
	}
	dwfl = dwfl_begin(&unwind_callbacks);
	if (!dwfl)
		return -ENOMEM;
	/* The modules given to libdwfl point to their images: none closes before the end. */
	symbols_hold(syms);
	if (modules_report(dwfl, syms, pid, maps, nr_maps) > 0 &&
	    dwfl_attach_state(dwfl, NULL, pid, &thread_callbacks, &st)) {
		rc = dwfl_getthread_frames(dwfl, tid, frame_collect, &st);
		/*
		 * A caller's frame past the copy: libdwfl ends there as if the
		 * CFI had said there is no caller (0), so the read tells first.
		 */
		if (out->end != USTACK_END_MAX) {
			if (st.past_copy)
				out->end = USTACK_END_COPY;
			else if (rc == 0)
				out->end = USTACK_END_OUTERMOST;
		}
	}
	dwfl_end(dwfl);
	/* Nothing known of the binaries: the first frame is still the registers' ip. */
	if (!out->nr) {
		out->frames[0].addr = cap->regs[SCLAT_USTACK_REG_IP];
		out->nr = 1;
	}
	t1 = clock_ns(CLOCK_MONOTONIC);
	out->unwind_ns = t1 - t0;
	for (i = 0; i < out->nr; i++) {
		struct ustack_frame *f = &out->frames[i];
		__u64 addr = f->addr;

		memset(f, 0, sizeof(*f));
		f->addr = addr;
		frame_name(syms, f, i > 0, pid, maps, nr_maps);
	}
	out->name_ns = clock_ns(CLOCK_MONOTONIC) - t1;
	symbols_release(syms);
	return 0;
}
