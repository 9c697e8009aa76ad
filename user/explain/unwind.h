/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Unwind a captured user stack (shm/sclat_ustack.h) with libdwfl: the
 * captured registers are the first frame, memory reads come from the stack
 * copy, each binary's .eh_frame (or .debug_frame) gives the next frame, and
 * libdwfl's frame-pointer step takes over where a binary has no CFI. Then
 * every frame is named: "function+0xoff (binary) file:line", or
 * "binary+0xoff" (the address in the binary, as addr2line -e takes it) where
 * the binary has no symbol for it.
 */
#ifndef SCLAT_UNWIND_H
#define SCLAT_UNWIND_H

#include <stdbool.h>
#include <sys/types.h>
#include <linux/types.h>
#include "sclat_ustack.h"
#include "explain/map_table.h"

struct symbols;

#define USTACK_FRAMES_MAX 64
#define USTACK_TEXT_MAX	  192

struct ustack_frame {
	__u64 addr; /* the frame's pc: the return address, for every frame but the first */
	__u64 rel;  /* the address in its binary (ELF address; file offset if unreadable) */
	__u8 build_id[MAP_BUILD_ID_MAX];
	__u8 build_id_len;
	bool mapped; /* rel, build_id and the binary's path are known */
	char path[128];
	char text[USTACK_TEXT_MAX];
};

/* Why unwinding stopped. */
enum ustack_end {
	USTACK_END_OUTERMOST, /* the CFI says there is no caller (_start, clone) */
	USTACK_END_COPY,      /* the next frame lies above the stack copy */
	USTACK_END_MAX,	      /* USTACK_FRAMES_MAX frames */
	USTACK_END_UNKNOWN,   /* no CFI nor frame pointer for a frame */
	USTACK_END_NO_REGS,   /* the capture has no user registers */
	USTACK_END_STOPPED,   /* not unwound: the run was stopping, and had waited enough */
};

struct ustack_result {
	int nr;
	enum ustack_end end;
	__u64 unwind_ns; /* finding the frames */
	__u64 name_ns;	 /* naming them */
	struct ustack_frame frames[USTACK_FRAMES_MAX];
};

/* The word that a ustack_end prints as ("outermost", "stack-copy", ...). */
const char *ustack_end_name(enum ustack_end end);

/*
 * Unwind and name the stack of thread tid of process pid, captured at ts,
 * against maps (that process's mappings at ts, sorted, map_table_snapshot's).
 * Returns 0 (out filled, at least the first frame when there were registers)
 * or a negative errno.
 */
int ustack_unwind(struct symbols *syms, const struct sclat_ustack *cap, pid_t pid, pid_t tid,
		  const struct map_entry *maps, int nr_maps, struct ustack_result *out);

#endif
