// SPDX-License-Identifier: GPL-2.0-only
/* The symbol cache on real ELF files: this test's own binary, libc, and files that are not. */
#include <gelf.h>
#include <stdio.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>
#include "unit.h"
#include "explain/symbols.h"

/* A function whose name and source line the test looks up in its own binary. */
__attribute__((noipa)) int symbols_probe_target(int x)
{
	return x * 3 + 1;
}

struct self_map {
	__u64 start, pgoff;
	char path[256];
};

/* The executable mapping of this binary that holds addr, from /proc/self/maps. */
static bool self_map_of(__u64 addr, struct self_map *m)
{
	unsigned long long start, end, pgoff;
	char line[512], perms[8], path[256];
	bool found = false;
	FILE *f = fopen("/proc/self/maps", "r");

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %255s", &start, &end, perms, &pgoff,
			   path) == 5 &&
		    addr >= start && addr < end) {
			m->start = start;
			m->pgoff = pgoff;
			snprintf(m->path, sizeof(m->path), "%s", path);
			found = true;
		}
	}
	fclose(f);
	return found;
}

/*
 * A mapping's file as the kernel names it: its real path (the kernel's maps
 * never name a symbolic link, and sclat does not follow one).
 */
static struct map_file file_of(const char *path)
{
	static char real[8][PATH_MAX];
	static unsigned int next;
	struct map_file f = { .path = (char *)path };
	char *r = real[next++ % 8];

	if (path[0] == '/' && realpath(path, r))
		f.path = r;
	return f;
}

static void test_own_function_named_with_line(void)
{
	__u64 addr = (__u64)(unsigned long)symbols_probe_target;
	struct symbols *s = symbols_new(NULL);
	struct symbol_info si;
	struct elf_image *im;
	struct self_map m;
	struct map_file f;
	__u64 bias;

	if (!CHECK(self_map_of(addr, &m), "mapping of %llx", (unsigned long long)addr))
		goto out;
	f = file_of(m.path);
	im = symbols_image(s, &f);
	if (!CHECK(im != NULL, "image of %s", m.path))
		goto out;
	if (!CHECK(elf_image_bias(im, m.start, m.pgoff, &bias), "bias"))
		goto out;
	if (!CHECK(elf_image_symbolize(im, addr + 4 - bias, &si), "symbolized"))
		goto out;
	CHECK(si.name && !strncmp(si.name, "symbols_probe_target", si.name_len) &&
		      si.name_len == (int)strlen("symbols_probe_target"),
	      "name %s", si.name ? si.name : "(null)");
	CHECK_EQ_U64(si.offset, 4);
	CHECK(si.src && strstr(si.src, "test_symbols.c") && si.line > 0, "src %s:%d",
	      si.src ? si.src : "(null)", si.line);
	/* The answer again, from the cache: the same. */
	CHECK(elf_image_symbolize(im, addr + 4 - bias, &si) && si.offset == 4, "cached");
out:
	symbols_free(s);
}

static void test_one_open_per_binary(void)
{
	struct symbols *s = symbols_new(NULL);
	struct symbols_stats st;
	struct map_file f = file_of("/proc/self/exe");
	struct elf_image *a, *b;
	char other[PATH_MAX + 1];
	const __u8 *id;
	int len;

	a = symbols_image(s, &f);
	b = symbols_image(s, &f);
	symbols_stats(s, &st);
	CHECK(a && a == b, "the same image twice");
	CHECK_EQ_U64(st.opened, 1);
	CHECK_EQ_U64(st.hits, 1);
	if (!a)
		goto out;
	/* Keyed by build-id when the mapping has one: another path to it is the same image. */
	id = elf_image_build_id(a, &len);
	if (!CHECK(len > 0, "this test has a build-id"))
		goto out;
	f.build_id_len = len;
	memcpy(f.build_id, id, len);
	b = symbols_image(s, &f);
	snprintf(other, sizeof(other), "/%s", f.path); /* "//usr/...": the same file */
	f.path = other;
	CHECK(symbols_image(s, &f) == b, "same build-id, other path: one image");
	symbols_stats(s, &st);
	CHECK_EQ_U64(st.opened, 2); /* by path once, by build-id once */
out:
	symbols_free(s);
}

static void test_wrong_build_id_refused(void)
{
	struct symbols *s = symbols_new(NULL);
	struct map_file f = file_of("/proc/self/exe");
	struct symbols_stats st;

	f.build_id_len = 20;
	memset(f.build_id, 0xab, 20);
	CHECK(symbols_image(s, &f) == NULL, "a binary replaced since it was mapped");
	symbols_stats(s, &st);
	CHECK_EQ_U64(st.failed, 1);
	symbols_free(s);
}

static void test_unreadable_remembered(void)
{
	struct symbols *s = symbols_new(NULL);
	struct map_file gone = file_of("/nonexistent/lib.so"), anon = file_of("//anon");
	struct symbols_stats st;
	int i;

	for (i = 0; i < 3; i++) {
		CHECK(!symbols_image(s, &gone), "no file");
		CHECK(!symbols_image(s, &anon), "no file");
	}
	symbols_stats(s, &st);
	CHECK_EQ_U64(st.opened, 2);
	CHECK_EQ_U64(st.failed, 2);
	CHECK_EQ_U64(st.hits, 4);
	symbols_free(s);
}

/*
 * What a traced process put at a mapped file's path since: a FIFO (an open
 * would wait for a writer, forever), a link to a device. Refused, at once.
 */
static void test_fifo_and_link_refused(void)
{
	char dir[] = "/tmp/sclat-test-symbols-XXXXXX", fifo[64], link[64];
	struct symbols *s = symbols_new(NULL);
	struct map_file f;

	if (!CHECK(mkdtemp(dir), "mkdtemp"))
		goto out;
	snprintf(fifo, sizeof(fifo), "%s/lib.so", dir);
	snprintf(link, sizeof(link), "%s/tty.so", dir);
	if (CHECK(!mkfifo(fifo, 0600), "mkfifo")) {
		f = (struct map_file){ .path = fifo };
		CHECK(!symbols_image(s, &f), "a FIFO taken for a binary");
	}
	if (CHECK(!symlink("/dev/null", link), "symlink")) {
		f = (struct map_file){ .path = link };
		CHECK(!symbols_image(s, &f), "a link to a device taken for a binary");
	}
	unlink(fifo);
	unlink(link);
	rmdir(dir);
out:
	symbols_free(s);
}

static void test_bounded_in_images(void)
{
	const char *paths[] = { "/proc/self/exe", "/bin/true", "/bin/sh" };
	struct symbols_limits lim = { .max_images = 2 };
	struct symbols *s = symbols_new(&lim);
	struct symbols_stats st;
	struct map_file f;
	int i;

	for (i = 0; i < 3; i++) {
		f = file_of(paths[i]);
		CHECK(symbols_image(s, &f) != NULL, "%s", paths[i]);
	}
	symbols_stats(s, &st);
	CHECK_EQ_U64(st.images, 2);
	CHECK_EQ_U64(st.evicted, 1);
	/* The least recently used (the first) went: asking again opens it again. */
	f = file_of(paths[0]);
	CHECK(symbols_image(s, &f) != NULL, "reopened");
	symbols_stats(s, &st);
	CHECK_EQ_U64(st.opened, 4);
	symbols_free(s);
}

/* What an image weighs in the cache: the file's, and its DWARF's once named (addr > 0). */
static __u64 image_weight(struct map_file *f, __u64 start, __u64 pgoff, __u64 addr)
{
	struct symbols *s = symbols_new(NULL);
	struct elf_image *im = symbols_image(s, f);
	struct symbols_stats st;
	struct symbol_info si;
	__u64 bias;

	if (im && addr && elf_image_bias(im, start, pgoff, &bias))
		elf_image_symbolize(im, addr - bias, &si);
	symbols_stats(s, &st);
	symbols_free(s);
	return st.bytes;
}

/* A byte budget counts the files and the DWARF they load; a hold defers closing. */
static void test_bounded_in_bytes(void)
{
	__u64 addr = (__u64)(unsigned long)symbols_probe_target;
	struct map_file self = file_of("/proc/self/exe"), sh = file_of("/bin/sh");
	struct symbols_limits lim = {};
	struct symbols_stats st, named;
	struct symbols *s = NULL;
	struct symbol_info si;
	struct elf_image *im;
	struct self_map m;
	__u64 bias, w_self, w_sh;

	if (!CHECK(self_map_of(addr, &m), "mapping"))
		goto out;
	self = file_of(m.path);
	/* Room for either alone, not for both. */
	w_self = image_weight(&self, m.start, m.pgoff, addr);
	w_sh = image_weight(&sh, 0, 0, 0);
	lim.max_bytes = (w_self > w_sh ? w_self : w_sh) + 1;
	s = symbols_new(&lim);
	im = symbols_image(s, &self);
	symbols_stats(s, &st);
	CHECK_EQ_U64(st.images, 1);
	CHECK(st.bytes > 0, "weighed");
	if (!CHECK(im && elf_image_bias(im, m.start, m.pgoff, &bias), "image"))
		goto out;
	elf_image_symbolize(im, addr - bias, &si);
	symbols_stats(s, &named);
	CHECK(named.bytes > st.bytes, "its DWARF counted: %llu > %llu",
	      (unsigned long long)named.bytes, (unsigned long long)st.bytes);

	symbols_hold(s);
	CHECK(symbols_image(s, &sh) != NULL, "/bin/sh");
	symbols_stats(s, &st);
	CHECK_EQ_U64(st.images, 2); /* held: nothing closed */
	symbols_release(s);
	symbols_stats(s, &st);
	CHECK_EQ_U64(st.images, 1); /* released: down to the budget, the older one closed */
	CHECK_EQ_U64(st.bytes, w_sh);
	CHECK_EQ_U64(st.evicted, 1);
	CHECK_EQ_U64(st.refused, 0);
out:
	symbols_free(s);
}

/*
 * An image heavier than the whole cache would be closed after every stack and
 * read again for the next: it is refused once, and not read again.
 */
static void test_heavier_than_cache_refused_once(void)
{
	struct map_file sh = file_of("/bin/sh");
	struct symbols_limits lim = { .max_bytes = image_weight(&sh, 0, 0, 0) - 1 };
	struct symbols *s = symbols_new(&lim);
	struct symbols_stats st;
	int i;

	CHECK(symbols_image(s, &sh) != NULL, "the caller gets it once");
	for (i = 0; i < 3; i++)
		CHECK(!symbols_image(s, &sh), "refused after");
	symbols_stats(s, &st);
	CHECK_EQ_U64(st.opened, 1);
	CHECK_EQ_U64(st.refused, 1);
	CHECK_EQ_U64(st.bytes, 0);
	symbols_free(s);
}

/* The ELF address of a vDSO symbol, read with libelf from this process's vDSO. */
static __u64 vdso_symbol_address(const char *name)
{
	const GElf_Ehdr *e = (const void *)getauxval(AT_SYSINFO_EHDR);
	Elf *elf = elf_memory((char *)e, e->e_shoff + (size_t)e->e_shnum * e->e_shentsize);
	Elf_Scn *scn = NULL;
	__u64 value = 0;
	GElf_Shdr sh;
	GElf_Sym sym;
	Elf_Data *d;
	size_t i;

	while (elf && !value && (scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM ||
		    !(d = elf_getdata(scn, 0)))
			continue;
		for (i = 0; i < sh.sh_size / sh.sh_entsize; i++)
			if (gelf_getsym(d, i, &sym) &&
			    !strcmp(elf_strptr(elf, sh.sh_link, sym.st_name), name))
				value = sym.st_value;
	}
	elf_end(elf);
	return value;
}

static void test_vdso_from_memory(void)
{
	struct symbols *s = symbols_new(NULL);
	struct map_file f = file_of("[vdso]");
	struct elf_image *im = symbols_image(s, &f);

	struct symbol_info si;
	const __u8 *id;
	int len;

	/* The vDSO's own functions, named from the copy of its image. */
	if (CHECK(im != NULL, "the vDSO image")) {
		id = elf_image_build_id(im, &len);
		CHECK(id && len > 0, "its build-id");
		CHECK(elf_image_symbolize(im, vdso_symbol_address("__vdso_clock_gettime") + 1,
					  &si) &&
			      si.name && strstr(si.name, "clock_gettime"),
		      "named %s", si.name ? si.name : "(null)");
	}
	symbols_free(s);
}

/* The frame of addr in a copy of this binary at copy: named, and whether with its file:line. */
static void copy_symbolized(const char *copy, __u64 addr, const struct self_map *m, bool lines)
{
	struct symbols *s = symbols_new(NULL);
	struct map_file f = file_of(copy);
	struct symbol_info si;
	struct elf_image *im = symbols_image(s, &f);
	__u64 bias;

	if (CHECK(im != NULL, "image of %s", copy) &&
	    CHECK(elf_image_bias(im, m->start, m->pgoff, &bias), "bias") &&
	    CHECK(elf_image_symbolize(im, addr + 4 - bias, &si), "symbolized")) {
		CHECK(si.name && !strncmp(si.name, "symbols_probe_target", si.name_len), "named %s",
		      si.name ? si.name : "(null)");
		CHECK(lines ? si.src != NULL : si.src == NULL, "%s: src %s, %s expected", copy,
		      si.src ? si.src : "(null)", lines ? "one" : "none");
	}
	symbols_free(s);
}

/*
 * libdw reads line tables unchecked: a binary anybody else could have written
 * keeps its names, without file:line; one installed as packages are, both.
 */
static void test_lines_only_from_trusted_binaries(void)
{
	__u64 addr = (__u64)(unsigned long)symbols_probe_target;
	char copy[] = "/tmp/sclat-test-symbols-XXXXXX", cmd[PATH_MAX + 64];
	struct self_map m;
	int fd;

	if (!CHECK(self_map_of(addr, &m), "mapping of %llx", (unsigned long long)addr))
		return;
	fd = mkstemp(copy);
	if (!CHECK(fd >= 0, "mkstemp"))
		return;
	close(fd);
	snprintf(cmd, sizeof(cmd), "cp %s %s", m.path, copy);
	if (!CHECK(system(cmd) == 0, "%s", cmd))
		goto out;
	chmod(copy, 0755);
	copy_symbolized(copy, addr, &m, true);
	chmod(copy, 0757); /* anybody may write it */
	copy_symbolized(copy, addr, &m, false);
	chmod(copy, 0755);
	/* Another user's (root can make it so; others skip this half). */
	if (geteuid() == 0 && !chown(copy, 65534, 65534))
		copy_symbolized(copy, addr, &m, false);
out:
	unlink(copy);
}

int main(void)
{
	RUN(test_own_function_named_with_line);
	RUN(test_one_open_per_binary);
	RUN(test_wrong_build_id_refused);
	RUN(test_unreadable_remembered);
	RUN(test_fifo_and_link_refused);
	RUN(test_bounded_in_images);
	RUN(test_bounded_in_bytes);
	RUN(test_heavier_than_cache_refused_once);
	RUN(test_vdso_from_memory);
	RUN(test_lines_only_from_trusted_binaries);
	return unit_done();
}
