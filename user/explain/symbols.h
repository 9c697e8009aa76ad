/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The binaries behind user stacks, each opened once: one elf_image per
 * build-id (per path when the kernel gave none), holding the file, its load
 * segments and a libdwfl module that names addresses (symbols, and file:line
 * where DWARF is found, in the file or in /usr/lib/debug). Bounded in images
 * and in bytes (the files, and the DWARF libdw holds decompressed: libc's
 * separate debug file is 16 MB of it): the least recently used image goes
 * first, never one that an unwind in progress holds. One image is bounded
 * too, in bytes and in time: one above its bounds, or heavier than the whole
 * cache, is refused, and remembered (as one that cannot be read is) so that
 * it is not read again. One thread.
 */
#ifndef SCLAT_SYMBOLS_H
#define SCLAT_SYMBOLS_H

#include <stdbool.h>
#include <elfutils/libdwfl.h>
#include <linux/types.h>
#include "explain/map_table.h"

struct elf_image;
struct symbols;

struct symbols_limits {
	unsigned int max_images; /* 0: 256 */
	__u64 max_bytes;	 /* 0: 256 MiB */
	/* What one image may make libdw hold, its sections inflated (elf_cost.h); 0: 128 MiB */
	__u64 max_image_bytes;
	__u64 max_image_ns; /* reading one image (headers, then its DWARF); 0: 2 s */
	/* When set (atomic, another thread): a CLOCK_MONOTONIC time past which no image is read */
	const __u64 *deadline_ns;
	bool no_name_cache; /* every frame looked up in libdwfl again (to measure the cache) */
};

struct symbols_stats {
	__u64 images;  /* held now (those that could not be opened included) */
	__u64 bytes;   /* what they weigh: files, and DWARF as libdw holds it */
	__u64 opened;  /* files opened, ever: each image's once */
	__u64 hits;    /* lookups that found the image open */
	__u64 evicted; /* images closed to stay under the bounds */
	__u64 failed;  /* images that could not be opened or did not match the build-id */
	__u64 refused; /* images refused for what they cost: sections, time, or the whole cache */
	__u64 skipped; /* images not read because the run was stopping */
};

/* What an address of an image is: symbol + offset, source where known. */
struct symbol_info {
	const char *name; /* NULL: no symbol covers it */
	int name_len;	  /* of name without its version ("@@GLIBC_2.34") */
	__u64 offset;	  /* from the symbol's start */
	const char *src;  /* NULL: no line information */
	int line;
};

/* limits may be NULL: the defaults. */
struct symbols *symbols_new(const struct symbols_limits *limits);
void symbols_free(struct symbols *s);

/*
 * While held, no image is closed (the bounds may be passed): what a libdwfl
 * session was given stays valid until it ends. Release closes what is over.
 */
void symbols_hold(struct symbols *s);
void symbols_release(struct symbols *s);

/*
 * The image of a mapped file, opened on first use, or NULL when it cannot be
 * read (gone, not ELF, another build-id than the one mapped, "//anon").
 * Valid until the next call.
 */
struct elf_image *symbols_image(struct symbols *s, const struct map_file *f);

/*
 * The same, the file read as the process that maps it sees it (v: the
 * mapping, image_file.h; NULL: the path here): the mapping itself, a
 * container's root, a binary deleted since it was mapped.
 */
struct map_view;
struct elf_image *symbols_image_in(struct symbols *s, const struct map_file *f,
				   const struct map_view *v);

void symbols_stats(const struct symbols *s, struct symbols_stats *st);

/* The load bias of an image mapped at start from file offset pgoff; false if no segment holds it.
 */
bool elf_image_bias(const struct elf_image *im, __u64 start, __u64 pgoff, __u64 *bias);

/*
 * Report the image to a libdwfl session (between dwfl_report_begin and _end)
 * as a module loaded at bias, without opening the file again: the session's
 * callbacks must use elf_image_find_elf. NULL if libdwfl refused it.
 */
Dwfl_Module *elf_image_report(struct elf_image *im, Dwfl *dwfl, __u64 bias);

/* Dwfl_Callbacks.find_elf for modules that elf_image_report() made. */
int elf_image_find_elf(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
		       char **file_name, Elf **elfp);

const char *elf_image_path(const struct elf_image *im);
const __u8 *elf_image_build_id(const struct elf_image *im, int *len);

/* Name ELF address vaddr of the image; false when nothing is known of it. */
bool elf_image_symbolize(struct elf_image *im, __u64 vaddr, struct symbol_info *out);

#endif
