/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Hostile ELF files for the tests of user/explain/: a small shared object
 * written section by section (one load segment of code, then whatever
 * sections a test lists, section headers last), so that a test can cut a
 * string table, claim a section inflates to 900 MiB, or leave a sparse hole
 * of gigabytes where a section should be, without a compiler or a big file.
 */
#ifndef SCLAT_ELF_FIXTURE_H
#define SCLAT_ELF_FIXTURE_H

#include <elf.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FX_SECTIONS_MAX 16
#define FX_TEXT_ADDR	0x1000
#define FX_TEXT_SIZE	64

struct fx_section {
	const char *name;
	Elf64_Word type;
	Elf64_Xword flags;
	const void *data; /* bytes written at the section's offset */
	size_t data_len;  /* how many */
	Elf64_Xword size; /* sh_size; 0: data_len (more: the rest is a hole in the file) */
	Elf64_Word link;  /* a section index: 1 is .text, the listed ones follow from 2 */
	Elf64_Word info;
	Elf64_Xword entsize;
};

/*
 * Write an ELF shared object to path: .text (section 1: FX_TEXT_SIZE bytes of
 * ret at FX_TEXT_ADDR, the only load segment), then the n sections given,
 * then .shstrtab. Returns 0 or -1.
 */
static inline int fx_write(const char *path, const struct fx_section *secs, int n)
{
	Elf64_Shdr sh[FX_SECTIONS_MAX + 3] = {};
	char shstr[1024] = "", text[FX_TEXT_SIZE];
	Elf64_Ehdr eh = {};
	Elf64_Phdr ph = {};
	size_t shstr_len = 1, off = FX_TEXT_ADDR + FX_TEXT_SIZE;
	int fd, i, ok = 1;

	if (n > FX_SECTIONS_MAX)
		return -1;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	if (fd < 0)
		return -1;
	memset(text, 0xc3, sizeof(text));
	sh[1] = (Elf64_Shdr){ .sh_type = SHT_PROGBITS,
			      .sh_flags = SHF_ALLOC | SHF_EXECINSTR,
			      .sh_addr = FX_TEXT_ADDR,
			      .sh_offset = FX_TEXT_ADDR,
			      .sh_size = FX_TEXT_SIZE,
			      .sh_addralign = 16 };
	sh[1].sh_name = shstr_len;
	shstr_len += sprintf(shstr + shstr_len, ".text") + 1;
	ok &= pwrite(fd, text, sizeof(text), FX_TEXT_ADDR) == sizeof(text);
	for (i = 0; i < n; i++) {
		Elf64_Shdr *s = &sh[2 + i];

		off = (off + 7) & ~(size_t)7;
		*s = (Elf64_Shdr){ .sh_type = secs[i].type,
				   .sh_flags = secs[i].flags,
				   .sh_offset = off,
				   .sh_size = secs[i].size ?: secs[i].data_len,
				   .sh_link = secs[i].link,
				   .sh_info = secs[i].info,
				   .sh_addralign = 8,
				   .sh_entsize = secs[i].entsize };
		s->sh_name = shstr_len;
		shstr_len += sprintf(shstr + shstr_len, "%s", secs[i].name) + 1;
		if (secs[i].data_len)
			ok &= pwrite(fd, secs[i].data, secs[i].data_len, off) ==
			      (ssize_t)secs[i].data_len;
		off += s->sh_size;
	}
	sh[2 + n] = (Elf64_Shdr){ .sh_type = SHT_STRTAB, .sh_offset = off, .sh_addralign = 1 };
	sh[2 + n].sh_name = shstr_len;
	shstr_len += sprintf(shstr + shstr_len, ".shstrtab") + 1;
	sh[2 + n].sh_size = shstr_len;
	ok &= pwrite(fd, shstr, shstr_len, off) == (ssize_t)shstr_len;
	off = (off + shstr_len + 7) & ~(size_t)7;

	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_type = ET_DYN;
	eh.e_machine = EM_X86_64;
	eh.e_version = EV_CURRENT;
	eh.e_phoff = sizeof(eh);
	eh.e_shoff = off;
	eh.e_ehsize = sizeof(eh);
	eh.e_phentsize = sizeof(ph);
	eh.e_phnum = 1;
	eh.e_shentsize = sizeof(Elf64_Shdr);
	eh.e_shnum = 3 + n;
	eh.e_shstrndx = 2 + n;
	ph = (Elf64_Phdr){ .p_type = PT_LOAD,
			   .p_flags = PF_R | PF_X,
			   .p_offset = 0,
			   .p_vaddr = 0,
			   .p_filesz = FX_TEXT_ADDR + FX_TEXT_SIZE,
			   .p_memsz = FX_TEXT_ADDR + FX_TEXT_SIZE,
			   .p_align = 0x1000 };
	ok &= pwrite(fd, &eh, sizeof(eh), 0) == sizeof(eh);
	ok &= pwrite(fd, &ph, sizeof(ph), sizeof(eh)) == sizeof(ph);
	ok &= pwrite(fd, sh, (3 + n) * sizeof(Elf64_Shdr), off) ==
	      (ssize_t)((3 + n) * sizeof(Elf64_Shdr));
	return close(fd) || !ok ? -1 : 0;
}

#endif
