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
#include "tmpdir.h"
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

/* A .debug_str whose header says it inflates to 900 MiB (the file is a few KiB). */
static int write_bomb(const char *path)
{
	unsigned char data[64] = {};
	Elf64_Chdr c = { .ch_type = ELFCOMPRESS_ZLIB, .ch_size = 900ULL << 20, .ch_addralign = 1 };
	struct fx_section secs[] = {
		{ .name = ".debug_str",
		  .type = SHT_PROGBITS,
		  .flags = SHF_COMPRESSED,
		  .data = data,
		  .data_len = sizeof(data) },
	};

	memcpy(data, &c, sizeof(c));
	return fx_write(path, secs, 1);
}

/* A .debug_str of 2 GiB that is a hole in the file. */
static int write_sparse(const char *path)
{
	struct fx_section secs[] = {
		{ .name = ".debug_str",
		  .type = SHT_PROGBITS,
		  .data = "x",
		  .data_len = 1,
		  .size = 2ULL << 30 },
	};

	return fx_write(path, secs, 1);
}

/* Refused from its headers, at its first use, and never read again. */
static void check_refused_once(const char *name, int (*write)(const char *))
{
	struct map_file f = fixture_file(name);
	struct symbols *s = symbols_new(NULL);
	struct symbols_stats st;
	int i;

	if (!CHECK(!write(f.path), "write %s", f.path))
		goto out;
	for (i = 0; i < 3; i++)
		CHECK(!symbols_image(s, &f), "%s: refused", name);
	symbols_stats(s, &st);
	CHECK_EQ_U64(st.opened, 1);
	CHECK_EQ_U64(st.refused, 1);
	CHECK_EQ_U64(st.failed, 0);
	CHECK(st.bytes < 1 << 20, "%s: %llu bytes held", name, (unsigned long long)st.bytes);
out:
	symbols_free(s);
}

static void test_inflation_bomb_refused(void)
{
	check_refused_once("bomb.so", write_bomb);
}

static void test_sparse_section_refused(void)
{
	check_refused_once("sparse.so", write_sparse);
}

/* An image slower to read than its bound is read once, then refused. */
static void test_slow_image_refused(void)
{
	struct symbols_limits lim = { .max_image_ns = 1 };
	struct map_file f = fixture_file("slow.so");
	struct symbols *s = symbols_new(&lim);
	struct symbols_stats st;

	if (!CHECK(!write_cut_strtab(f.path), "write %s", f.path))
		goto out;
	CHECK(symbols_image(s, &f) != NULL, "read once");
	CHECK(!symbols_image(s, &f), "then refused");
	CHECK(!symbols_image(s, &f), "and remembered");
	symbols_stats(s, &st);
	CHECK_EQ_U64(st.opened, 1);
	CHECK_EQ_U64(st.refused, 1);
out:
	symbols_free(s);
}

/* Past a stopping run's deadline, no image is read: what is open still names frames. */
static void test_stopping_reads_nothing(void)
{
	__u64 deadline = 0;
	struct symbols_limits lim = { .deadline_ns = &deadline };
	struct map_file f = fixture_file("stop.so"), g = fixture_file("stop2.so");
	struct symbols *s = symbols_new(&lim);
	struct symbols_stats st;

	if (!CHECK(!write_cut_strtab(f.path) && !write_cut_strtab(g.path), "write"))
		goto out;
	CHECK(symbols_image(s, &f) != NULL, "read before the stop");
	deadline = 1; /* long past */
	CHECK(symbols_image(s, &f) != NULL, "open: still there");
	CHECK(!symbols_image(s, &g), "not read once stopping");
	symbols_stats(s, &st);
	CHECK_EQ_U64(st.opened, 1);
	CHECK_EQ_U64(st.skipped, 1);
out:
	symbols_free(s);
}

int main(void)
{
	if (tmpdir_make(dir))
		return 1;
	RUN(test_unterminated_symbol_name_refused);
	RUN(test_inflation_bomb_refused);
	RUN(test_sparse_section_refused);
	RUN(test_slow_image_refused);
	RUN(test_stopping_reads_nothing);
	return tmpdir_remove(dir, unit_done());
}
