/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What reading an ELF file would cost, known from its section headers
 * before any section is read: the sections that libelf, libdwfl and libdw
 * load and keep (symbol and string tables, .eh_frame, DWARF), at the size
 * they take once inflated. A binary is the traced process's to choose: a
 * 1 MB file can hold a .debug_str that inflates to 900 MiB, or a sparse hole
 * of 2 GiB where a section should be; the caller refuses such a file before
 * libdw reads it.
 */
#ifndef SCLAT_ELF_COST_H
#define SCLAT_ELF_COST_H

#include <stdbool.h>
#include <gelf.h>
#include <linux/types.h>

struct elf_cost {
	__u64 bytes;	       /* all such sections, as held (saturates) */
	__u64 largest;	       /* the largest of them */
	char largest_name[32]; /* its name, cut */
	bool largest_inflated; /* it is compressed in the file */
};

/*
 * Weigh elf, read from fd (-1: an image in memory, whose compressed
 * sections are taken at their size in memory). 0, or -EINVAL when the
 * headers cannot be read.
 */
int elf_cost_of(Elf *elf, int fd, struct elf_cost *c);

#endif
