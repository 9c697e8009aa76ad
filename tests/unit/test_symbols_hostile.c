// SPDX-License-Identifier: GPL-2.0-only
/*
 * The symbol cache against binaries made to hurt it (tests/unit/elf_fixture.h):
 * a traced process chooses what it maps, and sclat reads it as root.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include "unit.h"
#include "elf_fixture.h"
#include "explain/symbols.h"

static char dir[] = "/tmp/sclat-test-hostile-XXXXXX";

static struct map_file fixture_file(const char *name)
{
	static char paths[4][256];
	static unsigned int next;
	char *p = paths[next++ % 4];

	snprintf(p, sizeof(paths[0]), "%s/%s", dir, name);
	return (struct map_file){ .path = p };
}

/*
 * Two functions, "good" and "evil", whose .strtab ends in "evil" with no NUL:
 * the second name is not terminated within its section.
 */
static int write_cut_strtab(const char *path)
{
	static const char strtab[] = "\0good\0evil"; /* sizeof - 1: without the final NUL */
	Elf64_Sym syms[3] = {
		{},
		{ .st_name = 1,
		  .st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC),
		  .st_shndx = 1,
		  .st_value = FX_TEXT_ADDR,
		  .st_size = 16 },
		{ .st_name = 6,
		  .st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC),
		  .st_shndx = 1,
		  .st_value = FX_TEXT_ADDR + 16,
		  .st_size = 16 },
	};
	struct fx_section secs[] = {
		{ .name = ".symtab",
		  .type = SHT_SYMTAB,
		  .data = syms,
		  .data_len = sizeof(syms),
		  .link = 3,
		  .info = 1,
		  .entsize = sizeof(Elf64_Sym) },
		{ .name = ".strtab",
		  .type = SHT_STRTAB,
		  .data = strtab,
		  .data_len = sizeof(strtab) - 1 },
	};

	return fx_write(path, secs, 2);
}

static void test_unterminated_symbol_name_refused(void)
{
	struct map_file f = fixture_file("cut-strtab.so");
	struct symbols *s = symbols_new(NULL);
	struct symbol_info si;
	struct elf_image *im;

	if (!CHECK(!write_cut_strtab(f.path), "write %s", f.path))
		goto out;
	im = symbols_image(s, &f);
	if (!CHECK(im != NULL, "the image opens"))
		goto out;
	/* The terminated name is still read: the check is not a refusal of the file. */
	elf_image_symbolize(im, FX_TEXT_ADDR + 4, &si);
	CHECK(si.name && si.name_len == 4 && !strncmp(si.name, "good", 4), "good: %.*s",
	      si.name ? si.name_len : 6, si.name ? si.name : "(null)");
	/* Its neighbour's name would run past .strtab into the heap. */
	elf_image_symbolize(im, FX_TEXT_ADDR + 20, &si);
	CHECK(!si.name, "a name that ends outside its table: %.*s", si.name ? 8 : 6,
	      si.name ? si.name : "(null)");
out:
	symbols_free(s);
}

int main(void)
{
	char rm[128];
	int rc;

	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	RUN(test_unterminated_symbol_name_refused);
	rc = unit_done();
	snprintf(rm, sizeof(rm), "rm -rf %s", dir);
	if (system(rm))
		rc = 1;
	return rc;
}
