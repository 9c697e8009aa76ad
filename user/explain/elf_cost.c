// SPDX-License-Identifier: GPL-2.0-only
/* The bytes an ELF file would make libelf and libdw hold, from its section headers alone. */
#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "explain/elf_cost.h"

/* A section-name table is a few hundred bytes: one bigger is not read for its names. */
#define SHSTRTAB_MAX (1 << 20)

/* Loaded sections that the unwinder and the symbolizer read besides the file's non-loaded ones. */
static bool loaded_but_read(const char *name)
{
	static const char *const prefixes[] = { ".eh_frame", ".debug",	".gnu_debugdata", ".dynsym",
						".dynstr",   ".symtab", ".strtab" };
	size_t i;

	for (i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (!strncmp(name, prefixes[i], strlen(prefixes[i])))
			return true;
	return false;
}

/* The size a compressed section inflates to, from its header in the file; false if unread. */
static bool inflated_size(int fd, const GElf_Shdr *sh, const char *name, int elfclass, __u64 *size)
{
	unsigned char hdr[24];
	Elf64_Chdr c64;
	Elf32_Chdr c32;
	__u64 be;

	if (fd < 0)
		return false;
	if (sh->sh_flags & SHF_COMPRESSED) {
		if (elfclass == ELFCLASS64) {
			if (pread(fd, &c64, sizeof(c64), sh->sh_offset) != sizeof(c64))
				return false;
			*size = c64.ch_size;
		} else {
			if (pread(fd, &c32, sizeof(c32), sh->sh_offset) != sizeof(c32))
				return false;
			*size = c32.ch_size;
		}
		return true;
	}
	/* GNU's older form: ".zdebug_*", "ZLIB" and the size, big-endian. */
	if (strncmp(name, ".zdebug", 7) || pread(fd, hdr, 12, sh->sh_offset) != 12 ||
	    memcmp(hdr, "ZLIB", 4))
		return false;
	memcpy(&be, hdr + 4, 8);
	*size = be64toh(be);
	return true;
}

int elf_cost_of(Elf *elf, int fd, struct elf_cost *c)
{
	int elfclass = gelf_getclass(elf);
	const char *name;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr sh;
	__u64 size;
	bool inflated;

	memset(c, 0, sizeof(*c));
	if (elf_getshdrstrndx(elf, &shstrndx))
		return -EINVAL;
	scn = elf_getscn(elf, shstrndx);
	if (!scn || !gelf_getshdr(scn, &sh))
		return -EINVAL;
	if (sh.sh_size > SHSTRTAB_MAX) {
		c->bytes = c->largest = sh.sh_size;
		snprintf(c->largest_name, sizeof(c->largest_name), "%s", ".shstrtab");
		return 0;
	}
	scn = NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS || sh.sh_type == SHT_NULL)
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!name)
			name = "?";
		if ((sh.sh_flags & SHF_ALLOC) && !loaded_but_read(name))
			continue;
		size = sh.sh_size;
		inflated = inflated_size(fd, &sh, name, elfclass, &size);
		c->bytes = c->bytes + size < c->bytes ? ~0ULL : c->bytes + size;
		if (size > c->largest) {
			c->largest = size;
			c->largest_inflated = inflated;
			snprintf(c->largest_name, sizeof(c->largest_name), "%s", name);
		}
	}
	return 0;
}
