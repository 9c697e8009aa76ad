// SPDX-License-Identifier: GPL-2.0-only
/* One open ELF image per binary, and what its addresses are called. */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>
#include <elfutils/libdwelf.h>
#include "util/compiler.h"
#include "explain/symbols.h"

#define IMAGE_BUCKETS	 512 /* power of two */
#define LOADS_MAX	 16
/*
 * Names looked up per image, direct-mapped by address: a hot stack's frames
 * repeat, and a file:line lookup in a large DWARF (libc's debug file) costs
 * tens of microseconds each time.
 */
#define NAME_CACHE_SLOTS 1024 /* power of two */

struct name_cached {
	__u64 vaddr; /* +1: 0 is an empty slot */
	struct symbol_info info;
};

struct load_seg {
	__u64 offset, vaddr, filesz, memsz;
};

struct elf_image {
	char *key; /* "b:" hex build-id, or "p:" path when the mapping had none */
	char *path;
	__u8 build_id[MAP_BUILD_ID_MAX];
	int build_id_len;
	int fd;
	void *mem; /* the vDSO's copy, instead of a file */
	__u64 file_bytes;
	Elf *elf; /* NULL: could not be opened (remembered, not retried) */
	struct load_seg loads[LOADS_MAX];
	int nr_loads;
	__u64 low, high; /* ELF addresses spanned by the loads, page-aligned low */
	Dwfl *dwfl;	 /* names addresses; made on the first lookup */
	Dwfl_Module *mod;
	struct name_cached *names; /* its strings belong to dwfl */
	__u64 bytes;		   /* its weight in symbols_stats.bytes */
	bool dwarf_weighed;	   /* its DWARF, once loaded, is in bytes */
	struct symbols *owner;
	struct elf_image *next;		       /* hash chain */
	struct elf_image *lru_prev, *lru_next; /* most recently used last */
};

struct symbols {
	struct symbols_limits lim;
	int held;
	struct elf_image *buckets[IMAGE_BUCKETS];
	struct elf_image *lru_first, *lru_last;
	struct symbols_stats st;
};

static unsigned int key_hash(const char *key)
{
	unsigned int h = 2166136261U;

	for (; *key; key++)
		h = (h ^ (unsigned char)*key) * 16777619U;
	return h & (IMAGE_BUCKETS - 1);
}

static void lru_unlink(struct symbols *s, struct elf_image *im)
{
	if (im->lru_prev)
		im->lru_prev->lru_next = im->lru_next;
	else
		s->lru_first = im->lru_next;
	if (im->lru_next)
		im->lru_next->lru_prev = im->lru_prev;
	else
		s->lru_last = im->lru_prev;
	im->lru_prev = im->lru_next = NULL;
}

static void lru_append(struct symbols *s, struct elf_image *im)
{
	im->lru_prev = s->lru_last;
	if (s->lru_last)
		s->lru_last->lru_next = im;
	else
		s->lru_first = im;
	s->lru_last = im;
}

static void image_free(struct elf_image *im)
{
	free(im->names);
	if (im->dwfl)
		dwfl_end(im->dwfl);
	if (im->elf)
		elf_end(im->elf);
	if (im->fd >= 0)
		close(im->fd);
	free(im->mem);
	free(im->path);
	free(im->key);
	free(im);
}

static void image_evict(struct symbols *s, struct elf_image *im)
{
	struct elf_image **p = &s->buckets[key_hash(im->key)];

	while (*p != im)
		p = &(*p)->next;
	*p = im->next;
	lru_unlink(s, im);
	s->st.bytes -= im->bytes;
	image_free(im);
	s->st.images--;
}

/* Close the least recently used images while over a bound, keep excepted. */
static void symbols_trim(struct symbols *s, const struct elf_image *keep)
{
	if (s->held)
		return;
	while ((s->st.images > s->lim.max_images || s->st.bytes > s->lim.max_bytes) &&
	       s->lru_first && s->lru_first != keep) {
		image_evict(s, s->lru_first);
		s->st.evicted++;
	}
}

static void image_weigh(struct elf_image *im, __u64 bytes)
{
	im->bytes += bytes;
	im->owner->st.bytes += bytes;
}

void symbols_hold(struct symbols *s)
{
	s->held++;
}

void symbols_release(struct symbols *s)
{
	if (s->held > 0)
		s->held--;
	symbols_trim(s, NULL);
}

struct symbols *symbols_new(const struct symbols_limits *limits)
{
	struct symbols *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	if (limits)
		s->lim = *limits;
	if (!s->lim.max_images)
		s->lim.max_images = 256;
	if (!s->lim.max_bytes)
		s->lim.max_bytes = 256ULL << 20;
	elf_version(EV_CURRENT);
	return s;
}

void symbols_free(struct symbols *s)
{
	if (!s)
		return;
	while (s->lru_first)
		image_evict(s, s->lru_first);
	free(s);
}

static char *image_key(const struct map_file *f)
{
	char *key = malloc(3 + (f->build_id_len ? 2 * f->build_id_len : strlen(f->path)));
	int i;

	if (!key)
		return NULL;
	if (!f->build_id_len) {
		sprintf(key, "p:%s", f->path);
		return key;
	}
	strcpy(key, "b:");
	for (i = 0; i < f->build_id_len; i++)
		sprintf(key + 2 + 2 * i, "%02x", f->build_id[i]);
	return key;
}

/* The kernel's vDSO is the same image in every process: ours, copied out of memory. */
static Elf *vdso_open(struct elf_image *im)
{
	const char *base = (const char *)getauxval(AT_SYSINFO_EHDR);
	const GElf_Ehdr *e = (const void *)base;
	size_t size;

	if (!base || memcmp(e->e_ident, ELFMAG, SELFMAG))
		return NULL;
	/* The section headers come last in the vDSO image. */
	size = e->e_shoff + (size_t)e->e_shnum * e->e_shentsize;
	im->mem = malloc(size);
	if (!im->mem)
		return NULL;
	memcpy(im->mem, base, size);
	im->file_bytes = size;
	return elf_memory(im->mem, size);
}

static bool image_loads(struct elf_image *im)
{
	size_t i, phnum;
	GElf_Phdr ph;

	if (elf_kind(im->elf) != ELF_K_ELF || elf_getphdrnum(im->elf, &phnum))
		return false;
	im->low = ~0ULL;
	for (i = 0; i < phnum && im->nr_loads < LOADS_MAX; i++) {
		if (!gelf_getphdr(im->elf, i, &ph) || ph.p_type != PT_LOAD)
			continue;
		im->loads[im->nr_loads++] =
			(struct load_seg){ ph.p_offset, ph.p_vaddr, ph.p_filesz, ph.p_memsz };
		/* libdwfl aligns the first load down the same way (its module's vaddr). */
		if (im->low == ~0ULL)
			im->low = ph.p_vaddr & -(ph.p_align ? ph.p_align : 1);
		if (ph.p_vaddr + ph.p_memsz > im->high)
			im->high = ph.p_vaddr + ph.p_memsz;
	}
	return im->nr_loads > 0;
}

/* Open the file of f, checking that it is the build-id the kernel mapped. */
static bool image_open(struct elf_image *im, const struct map_file *f)
{
	const void *id;
	struct stat st;
	ssize_t n;

	if (!strcmp(f->path, "[vdso]")) {
		im->elf = vdso_open(im);
	} else {
		if (f->path[0] != '/')
			return false; /* "//anon", "[heap]": no file */
		/*
		 * The path is the traced process's to choose: what is there now
		 * may be a FIFO (an open would wait for a writer), a device or a
		 * link to one. Only a regular file is read, and read, not mapped:
		 * a file its owner truncates under a mapping would kill sclat
		 * (SIGBUS) at the next read of it.
		 */
		im->fd = open(f->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW | O_NOCTTY);
		if (im->fd < 0 || fstat(im->fd, &st) || !S_ISREG(st.st_mode))
			return false;
		im->file_bytes = st.st_size;
		im->elf = elf_begin(im->fd, ELF_C_READ, NULL);
	}
	if (!im->elf || !image_loads(im))
		return false;
	n = dwelf_elf_gnu_build_id(im->elf, &id);
	if (n > 0) {
		if (f->build_id_len && (n != f->build_id_len || memcmp(id, f->build_id, n)))
			return false; /* replaced on disk since it was mapped */
		im->build_id_len = n > MAP_BUILD_ID_MAX ? MAP_BUILD_ID_MAX : n;
		memcpy(im->build_id, id, im->build_id_len);
	}
	return true;
}

struct elf_image *symbols_image(struct symbols *s, const struct map_file *f)
{
	char *key = image_key(f);
	struct elf_image *im;
	unsigned int h;

	if (!key)
		return NULL;
	h = key_hash(key);
	for (im = s->buckets[h]; im; im = im->next) {
		if (!strcmp(im->key, key)) {
			free(key);
			s->st.hits++;
			lru_unlink(s, im);
			lru_append(s, im);
			return im->elf ? im : NULL;
		}
	}
	im = calloc(1, sizeof(*im));
	if (!im) {
		free(key);
		return NULL;
	}
	im->key = key;
	im->fd = -1;
	im->owner = s;
	im->path = strdup(f->path);
	s->st.opened++;
	if (!im->path || !image_open(im, f)) {
		/* Kept, so that the next frame in it does not try the file again. */
		if (im->elf)
			elf_end(im->elf);
		im->elf = NULL;
		s->st.failed++;
	}
	im->next = s->buckets[h];
	s->buckets[h] = im;
	lru_append(s, im);
	s->st.images++;
	image_weigh(im, sizeof(*im) + im->file_bytes);
	symbols_trim(s, im);
	return im->elf ? im : NULL;
}

void symbols_stats(const struct symbols *s, struct symbols_stats *st)
{
	*st = s->st;
}

bool elf_image_bias(const struct elf_image *im, __u64 start, __u64 pgoff, __u64 *bias)
{
	long page = sysconf(_SC_PAGESIZE);
	const struct load_seg *l;
	int i;

	for (i = 0; i < im->nr_loads; i++) {
		l = &im->loads[i];
		if (pgoff >= (l->offset & -page) && pgoff < l->offset + l->filesz) {
			/* start holds file offset pgoff, which the segment puts at this ELF
			 * address. */
			*bias = start - (l->vaddr + pgoff - l->offset);
			return true;
		}
	}
	return false;
}

const char *elf_image_path(const struct elf_image *im)
{
	return im->path;
}

const __u8 *elf_image_build_id(const struct elf_image *im, int *len)
{
	*len = im->build_id_len;
	return im->build_id;
}

Dwfl_Module *elf_image_report(struct elf_image *im, Dwfl *dwfl, __u64 bias)
{
	Dwfl_Module *mod = dwfl_report_module(dwfl, im->path, im->low + bias, im->high + bias);
	void **userdata;

	if (mod) {
		dwfl_module_info(mod, &userdata, NULL, NULL, NULL, NULL, NULL, NULL);
		*userdata = im;
	}
	return mod;
}

int elf_image_find_elf(Dwfl_Module *mod __always_unused, void **userdata,
		       const char *modname __always_unused, Dwarf_Addr base __always_unused,
		       char **file_name, Elf **elfp)
{
	const struct elf_image *im = *userdata;

	*file_name = strdup(im->path);
	/* libelf counts the reference: the session's elf_end leaves ours open. */
	*elfp = elf_begin(im->fd, ELF_C_READ, im->elf);
	return -1;
}

static char *debuginfo_path;

static const Dwfl_Callbacks names_callbacks = {
	.find_elf = elf_image_find_elf,
	/*
	 * Separate debug files by build-id only (/usr/lib/debug/.build-id/, where
	 * Debian's -dbgsym packages put them): a .gnu_debuglink names a path that
	 * the traced binary chooses, which libdwfl would open as it is.
	 */
	.find_debuginfo = dwfl_build_id_find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};

static bool image_names(struct elf_image *im)
{
	if (im->mod)
		return true;
	if (!im->names)
		im->names = calloc(NAME_CACHE_SLOTS, sizeof(*im->names));
	if (!im->names)
		return false;
	if (!im->dwfl) {
		im->dwfl = dwfl_begin(&names_callbacks);
		if (!im->dwfl)
			return false;
		dwfl_report_begin(im->dwfl);
		/* At its own addresses (bias 0): lookups take ELF addresses. */
		im->mod = elf_image_report(im, im->dwfl, 0);
		dwfl_report_end(im->dwfl, NULL, NULL);
	}
	return im->mod != NULL;
}

/* What libdw holds of the image's DWARF: its .debug sections, decompressed once read. */
static __u64 dwarf_bytes(struct elf_image *im)
{
	Dwarf_Addr bias;
	Dwarf *dw = dwfl_module_getdwarf(im->mod, &bias);
	Elf *elf = dw ? dwarf_getelf(dw) : NULL;
	Elf_Scn *scn = NULL;
	const char *name;
	__u64 bytes = 0;
	GElf_Shdr sh;
	size_t shstrndx;

	if (!elf || elf_getshdrstrndx(elf, &shstrndx))
		return 0;
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (name && !strncmp(name, ".debug", 6))
			bytes += sh.sh_size;
	}
	return bytes;
}

/*
 * Whether name lies in the string table of a symbol table of elf and ends
 * within it. libdwfl checks only that a symbol's name starts inside its
 * table: the last name of a cut or forged .strtab runs into whatever follows
 * the table in memory.
 */
static bool name_in_strtab(Elf *elf, const char *name)
{
	Elf_Scn *scn = NULL;
	Elf_Data *d;
	GElf_Shdr sh;
	const char *buf;

	while (elf && (scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh) ||
		    (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM))
			continue;
		/* The one libdwfl read the names from: the same data, read once. */
		d = elf_getdata(elf_getscn(elf, sh.sh_link), NULL);
		if (!d || !d->d_buf)
			continue;
		buf = d->d_buf;
		if (name >= buf && name < buf + d->d_size)
			return memchr(name, '\0', buf + d->d_size - name) != NULL;
	}
	return false;
}

/* A symbol's name, NULL unless it ends within the file's (or its debug file's) string table. */
static const char *name_checked(Dwfl_Module *mod, const char *name)
{
	Dwarf_Addr bias;
	Dwarf *dw;

	if (!name || name_in_strtab(dwfl_module_getelf(mod, &bias), name))
		return name;
	dw = dwfl_module_getdwarf(mod, &bias);
	return dw && name_in_strtab(dwarf_getelf(dw), name) ? name : NULL;
}

bool elf_image_symbolize(struct elf_image *im, __u64 vaddr, struct symbol_info *out)
{
	struct name_cached *c;
	GElf_Off offset;
	GElf_Sym sym;
	Dwfl_Line *line;
	const char *src;
	int lineno = 0;

	memset(out, 0, sizeof(*out));
	if (!image_names(im))
		return false;
	c = &im->names[(vaddr ^ (vaddr >> 12)) & (NAME_CACHE_SLOTS - 1)];
	if (c->vaddr == vaddr + 1) {
		*out = c->info;
		return out->name || out->src;
	}
	out->name = name_checked(
		im->mod, dwfl_module_addrinfo(im->mod, vaddr, &offset, &sym, NULL, NULL, NULL));
	if (out->name)
		out->offset = offset;
	out->name_len = out->name ? strcspn(out->name, "@") : 0;
	line = dwfl_module_getsrc(im->mod, vaddr);
	if (line) {
		src = dwfl_lineinfo(line, NULL, &lineno, NULL, NULL, NULL);
		if (src && lineno > 0) {
			out->src = src;
			out->line = lineno;
		}
	}
	c->vaddr = vaddr + 1;
	c->info = *out;
	if (!im->dwarf_weighed) {
		im->dwarf_weighed = true;
		image_weigh(im, NAME_CACHE_SLOTS * sizeof(*im->names) + dwarf_bytes(im));
		symbols_trim(im->owner, im);
	}
	return out->name || out->src;
}
