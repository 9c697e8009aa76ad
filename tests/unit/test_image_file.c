// SPDX-License-Identifier: GPL-2.0-only
/*
 * Binaries read as their process sees them (user/explain/image_file.c): a
 * file deleted after it was mapped, read through the mapping; another file
 * at the same path since, told apart by its inode; " (deleted)" named once.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "unit.h"
#include "elf_fixture.h"
#include "tmpdir.h"
#include "explain/image_file.h"
#include "explain/symbols.h"

static char dir[] = "/tmp/sclat-test-image-file-XXXXXX";

/* An ELF with one function, "good", at FX_TEXT_ADDR (16 bytes). */
static int write_good(const char *path)
{
	static const char strtab[] = "\0good";
	Elf64_Sym syms[2] = {
		{},
		{ .st_name = 1,
		  .st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC),
		  .st_shndx = 1,
		  .st_value = FX_TEXT_ADDR,
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
		  .data_len = sizeof(strtab) },
	};

	return fx_write(path, secs, 2);
}

static void test_deleted_suffix_named_once(void)
{
	char buf[64];

	CHECK(image_path_undeleted("/memfd:sealed-x (deleted) (deleted)", buf, sizeof(buf)),
	      "deleted");
	CHECK_STR(buf, "/memfd:sealed-x");
	CHECK(!image_path_undeleted("/usr/bin/dd", buf, sizeof(buf)), "not deleted");
	CHECK_STR(buf, "/usr/bin/dd");
	CHECK(!image_path_undeleted(" (deleted)", buf, sizeof(buf)), "only the suffix: a name");
}

/*
 * This process maps a binary, which is then deleted and another written at
 * its path: its frames are named from the mapping, not from the new file.
 */
static void test_deleted_binary_read_through_its_mapping(void)
{
	char path[128], deleted[160];
	struct symbols *s = symbols_new(NULL);
	struct symbol_info si;
	struct elf_image *im;
	struct map_view v;
	struct map_file f;
	struct stat st;
	void *map = MAP_FAILED;
	size_t len = FX_TEXT_ADDR + FX_TEXT_SIZE;
	__u64 bias;
	int fd;

	snprintf(path, sizeof(path), "%s/app", dir);
	if (!CHECK(!write_good(path), "write"))
		goto out;
	fd = open(path, O_RDONLY);
	if (!CHECK(fd >= 0 && !fstat(fd, &st), "open"))
		goto out;
	map = mmap(NULL, len, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	close(fd);
	if (!CHECK(map != MAP_FAILED, "mmap"))
		goto out;
	/* Deleted, and something else at its path now (a package upgrade's new file). */
	unlink(path);
	if (!CHECK(!fx_write(path, NULL, 0), "replace"))
		goto out;
	snprintf(deleted, sizeof(deleted), "%s (deleted)", path);
	f = (struct map_file){ .path = deleted, .dev = st.st_dev, .ino = st.st_ino };
	CHECK(!symbols_image(s, &f), "not at its path any more");

	v = (struct map_view){ .pid = getpid(),
			       .start = (unsigned long)map,
			       .end = (unsigned long)map + 0x2000 };
	symbols_free(s);
	s = symbols_new(NULL);
	im = symbols_image_in(s, &f, &v);
	if (!CHECK(im && elf_image_bias(im, v.start, 0, &bias), "read through the mapping"))
		goto out;
	elf_image_symbolize(im, FX_TEXT_ADDR + 4, &si);
	CHECK(si.name && !strncmp(si.name, "good", si.name_len), "named: %s",
	      si.name ? si.name : "(null)");

	/* The file now at the path is not the one mapped: its inode tells. */
	f.path = path;
	CHECK(!symbols_image(s, &f), "another file at the same path");
out:
	if (map != MAP_FAILED)
		munmap(map, len);
	symbols_free(s);
}

int main(void)
{
	if (tmpdir_make(dir))
		return 1;
	RUN(test_deleted_suffix_named_once);
	RUN(test_deleted_binary_read_through_its_mapping);
	return tmpdir_remove(dir, unit_done());
}
