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
#include "util/clock.h"
#include "util/compiler.h"
#include "util/escape.h"
#include "util/log.h"
#include "explain/elf_cost.h"
#include "explain/image_file.h"
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
	Elf *elf; /* NULL: could not be opened, or refused (remembered, not retried) */
	struct load_seg loads[LOADS_MAX];
	int nr_loads;
	__u64 low, high; /* ELF addresses spanned by the loads, page-aligned low */
	Dwfl *dwfl;	 /* names addresses; made on the first lookup */
	Dwfl_Module *mod;
	struct name_cached *names; /* its strings belong to dwfl */
	__u64 bytes;		   /* its weight in symbols_stats.bytes */
	__u64 load_ns;		   /* reading it took, headers and DWARF */
	bool dwarf_weighed;	   /* its DWARF, once loaded, is in bytes */
	bool lines_trusted;	   /* its file:line read (see image_lines_trusted) */
	char *doomed;		   /* why it is to be refused, once no unwind holds it */
	struct symbols *owner;
	struct elf_image *next;		       /* hash chain */
	struct elf_image *lru_prev, *lru_next; /* in lru (most recently used last) or dead */
};

/* Images in use order, or those refused or unreadable in the order they were. */
struct image_list {
	struct elf_image *first, *last;
	unsigned int n;
};

/* Refused and unreadable images remembered: a few words each. */
#define DEAD_MAX      4096
/* Refusals said on stderr; the rest are counted. */
#define REFUSALS_SAID 8

struct symbols {
	struct symbols_limits lim;
	int held;
	struct elf_image *buckets[IMAGE_BUCKETS];
	struct image_list lru, dead;
	struct symbols_stats st;
};

static unsigned int key_hash(const char *key)
{
	unsigned int h = 2166136261U;

	for (; *key; key++)
		h = (h ^ (unsigned char)*key) * 16777619U;
	return h & (IMAGE_BUCKETS - 1);
}

static void list_unlink(struct image_list *l, struct elf_image *im)
{
	if (im->lru_prev)
		im->lru_prev->lru_next = im->lru_next;
	else
		l->first = im->lru_next;
	if (im->lru_next)
		im->lru_next->lru_prev = im->lru_prev;
	else
		l->last = im->lru_prev;
	im->lru_prev = im->lru_next = NULL;
	l->n--;
}

static void list_append(struct image_list *l, struct elf_image *im)
{
	im->lru_prev = l->last;
	if (l->last)
		l->last->lru_next = im;
	else
		l->first = im;
	l->last = im;
	l->n++;
}

/* What it holds of the file; its key and path stay. */
static void image_close(struct elf_image *im)
{
	free(im->names);
	im->names = NULL;
	if (im->dwfl)
		dwfl_end(im->dwfl);
	im->dwfl = NULL;
	im->mod = NULL;
	if (im->elf)
		elf_end(im->elf);
	im->elf = NULL;
	if (im->fd >= 0)
		close(im->fd);
	im->fd = -1;
	free(im->mem);
	im->mem = NULL;
}

static void image_free(struct elf_image *im)
{
	image_close(im);
	free(im->doomed);
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
	list_unlink(im->elf ? &s->lru : &s->dead, im);
	s->st.bytes -= im->bytes;
	image_free(im);
	s->st.images--;
}

/*
 * Keep im, closed, among those not to read again (it could not be read, or
 * why says what it would cost). The oldest such are forgotten past DEAD_MAX.
 */
static void image_bury(struct symbols *s, struct elf_image *im, const char *why)
{
	char path[TEXT_ESCAPED_SIZE(96)];

	if (im->elf)
		list_unlink(&s->lru, im);
	image_close(im);
	s->st.bytes -= im->bytes;
	im->bytes = 0;
	list_append(&s->dead, im);
	if (why) {
		s->st.refused++;
		if (s->st.refused <= REFUSALS_SAID)
			log_warn("user stacks: %s: %s: its frames go unnamed%s",
				 text_escape(im->path, 96, path, sizeof(path)), why,
				 s->st.refused == REFUSALS_SAID ? " (further refusals are counted)"
								: "");
	}
	if (s->dead.n > DEAD_MAX)
		image_evict(s, s->dead.first);
}

/* Close the least recently used images while over a bound, keep excepted; refuse the doomed. */
static void symbols_trim(struct symbols *s, const struct elf_image *keep)
{
	struct elf_image *im, *next;

	if (s->held)
		return;
	for (im = s->lru.first; im; im = next) {
		next = im->lru_next;
		if (im->doomed && im != keep)
			image_bury(s, im, im->doomed);
	}
	while ((s->lru.n > s->lim.max_images || s->st.bytes > s->lim.max_bytes) && s->lru.first &&
	       s->lru.first != keep) {
		image_evict(s, s->lru.first);
		s->st.evicted++;
	}
}

/* Count bytes more of im; an image heavier than the whole cache would be read again each stack. */
static void image_weigh(struct elf_image *im, __u64 bytes)
{
	struct symbols *s = im->owner;
	char why[96];

	im->bytes += bytes;
	s->st.bytes += bytes;
	if (im->bytes > s->lim.max_bytes && !im->doomed) {
		snprintf(why, sizeof(why), "%.1f MiB read, more than the %.1f MiB of all binaries",
			 im->bytes / 1048576.0, s->lim.max_bytes / 1048576.0);
		im->doomed = strdup(why);
	}
}

/* Reading im took ns more: one that takes longer than its bound is not read again. */
static void image_timed(struct elf_image *im, __u64 ns)
{
	char why[96];

	im->load_ns += ns;
	if (im->load_ns > im->owner->lim.max_image_ns && !im->doomed) {
		snprintf(why, sizeof(why), "reading it took %llu ms, more than the %llu ms allowed",
			 (unsigned long long)(im->load_ns / 1000000),
			 (unsigned long long)(im->owner->lim.max_image_ns / 1000000));
		im->doomed = strdup(why);
	}
}

/* Past the deadline of a stopping run: no image is read any more. */
static bool stopping(const struct symbols *s)
{
	__u64 deadline =
		s->lim.deadline_ns ? __atomic_load_n(s->lim.deadline_ns, __ATOMIC_RELAXED) : 0;

	return deadline && clock_ns(CLOCK_MONOTONIC) > deadline;
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
	if (!s->lim.max_image_bytes)
		s->lim.max_image_bytes = 128ULL << 20;
	if (!s->lim.max_image_ns)
		s->lim.max_image_ns = 2000000000ULL;
	elf_version(EV_CURRENT);
	return s;
}

void symbols_free(struct symbols *s)
{
	if (!s)
		return;
	while (s->lru.first)
		image_evict(s, s->lru.first);
	while (s->dead.first)
		image_evict(s, s->dead.first);
	free(s);
}

static char *image_key(const struct map_file *f)
{
	char *key;
	int i;

	/* Without a build-id, its inode too: another namespace's file, or one replaced since. */
	if (!f->build_id_len)
		return asprintf(&key, "p:%llx:%llu:%s", (unsigned long long)f->dev,
				(unsigned long long)f->ino, f->path) < 0
			       ? NULL
			       : key;
	key = malloc(3 + 2 * f->build_id_len);
	if (!key)
		return NULL;
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

/* Whether what libdw would read of the image is within its bound; else why not, in why. */
static bool image_affordable(struct elf_image *im, char *why, size_t len)
{
	__u64 limit = im->owner->lim.max_image_bytes;
	struct elf_cost c;

	if (elf_cost_of(im->elf, im->fd, &c))
		return false;
	if (c.bytes <= limit)
		return true;
	if (c.largest > limit / 2)
		snprintf(why, len, "%s %s %llu MiB, above the %llu MiB one binary may cost",
			 c.largest_name, c.largest_inflated ? "inflates to" : "holds",
			 (unsigned long long)(c.largest >> 20), (unsigned long long)(limit >> 20));
	else
		snprintf(why, len,
			 "its sections hold %llu MiB, above the %llu MiB one binary may cost",
			 (unsigned long long)(c.bytes >> 20), (unsigned long long)(limit >> 20));
	return false;
}

/*
 * Whether a binary's line tables may be read. libdw 0.188 reads past a
 * buffer in dwarf_getsrclines() on a corrupt .debug_line_str, in this process:
 * the file:line of a frame is read only from a binary that root (or the user
 * sclat runs as) owns and that nobody else may write, as a package installs
 * them. Any other binary still has its frames named from its symbol table.
 */
static bool image_lines_trusted(const struct stat *st)
{
	return (st->st_uid == 0 || st->st_uid == geteuid()) && !(st->st_mode & (S_IWGRP | S_IWOTH));
}

/*
 * The file of f through one way (image_file.h): open, its loads read, and of
 * f's build-id where the kernel gave one (else replaced since it was mapped,
 * or another namespace's). 0 or -1.
 */
static int image_open_way(struct elf_image *im, const struct map_file *f, const struct map_view *v,
			  int way)
{
	const void *id;
	struct stat st;
	ssize_t n;

	im->fd = image_file_open(f, v, way, &st);
	if (im->fd < 0)
		return -1;
	im->file_bytes = st.st_size;
	im->lines_trusted = image_lines_trusted(&st);
	/* Read, not mapped: a file its owner truncates under a mapping would kill sclat (SIGBUS).
	 */
	im->elf = elf_begin(im->fd, ELF_C_READ, NULL);
	if (im->elf && image_loads(im)) {
		n = dwelf_elf_gnu_build_id(im->elf, &id);
		if (!f->build_id_len || (n == f->build_id_len && !memcmp(id, f->build_id, n)))
			return 0;
	}
	if (im->elf)
		elf_end(im->elf);
	im->elf = NULL;
	close(im->fd);
	im->fd = -1;
	im->nr_loads = 0;
	im->high = 0;
	return -1;
}

/*
 * Open the file of f as process v sees it: 0, -1 when it cannot be read, 1
 * when it is refused for its cost (why says).
 */
static int image_open(struct elf_image *im, const struct map_file *f, const struct map_view *v,
		      char *why, size_t len)
{
	const void *id;
	ssize_t n;
	int way;

	if (!strcmp(f->path, "[vdso]")) {
		im->elf = vdso_open(im);
		if (!im->elf || !image_loads(im))
			return -1;
	} else {
		for (way = 0; way < IMAGE_FILE_WAYS; way++)
			if (!image_open_way(im, f, v, way))
				break;
		if (way == IMAGE_FILE_WAYS)
			return -1;
		if (!image_affordable(im, why, len))
			return *why ? 1 : -1;
	}
	n = dwelf_elf_gnu_build_id(im->elf, &id);
	if (n > 0) {
		im->build_id_len = n > MAP_BUILD_ID_MAX ? MAP_BUILD_ID_MAX : n;
		memcpy(im->build_id, id, im->build_id_len);
	}
	return 0;
}

/* The image of key, already open or remembered as not to be read; NULL if new. */
static struct elf_image *image_find(struct symbols *s, const char *key)
{
	struct elf_image *im;

	for (im = s->buckets[key_hash(key)]; im; im = im->next)
		if (!strcmp(im->key, key))
			return im;
	return NULL;
}

struct elf_image *symbols_image(struct symbols *s, const struct map_file *f)
{
	return symbols_image_in(s, f, NULL);
}

struct elf_image *symbols_image_in(struct symbols *s, const struct map_file *f,
				   const struct map_view *v)
{
	char *key = image_key(f), why[128] = "";
	__u64 t0 = clock_ns(CLOCK_MONOTONIC);
	struct elf_image *im;
	unsigned int h;
	int rc;

	if (!key)
		return NULL;
	im = image_find(s, key);
	if (im) {
		free(key);
		s->st.hits++;
		if (!im->elf)
			return NULL;
		if (im->doomed && !s->held) {
			image_bury(s, im, im->doomed);
			return NULL;
		}
		list_unlink(&s->lru, im);
		list_append(&s->lru, im);
		return im;
	}
	if (stopping(s)) {
		free(key);
		s->st.skipped++;
		return NULL;
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
	rc = im->path ? image_open(im, f, v, why, sizeof(why)) : -1;
	h = key_hash(key);
	im->next = s->buckets[h];
	s->buckets[h] = im;
	s->st.images++;
	if (rc) {
		/* Kept, so that the next frame in it does not try the file again. */
		if (im->elf)
			elf_end(im->elf);
		im->elf = NULL;
		if (rc < 0)
			s->st.failed++;
		image_bury(s, im, rc > 0 ? why : NULL);
		return NULL;
	}
	list_append(&s->lru, im);
	image_weigh(im, sizeof(*im) + im->file_bytes);
	image_timed(im, clock_ns(CLOCK_MONOTONIC) - t0);
	symbols_trim(s, im);
	return im;
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

/*
 * Separate debug files by build-id only (/usr/lib/debug/.build-id/, where
 * Debian's -dbgsym packages put them): a .gnu_debuglink names a path that the
 * traced binary chooses, which libdwfl would open as it is. Within the bound
 * of one image too: the build-id is the binary's to choose.
 */
static int find_debuginfo_bounded(Dwfl_Module *mod, void **userdata, const char *modname,
				  Dwarf_Addr base, const char *file_name,
				  const char *debuglink_file, GElf_Word debuglink_crc,
				  char **debuginfo_file_name)
{
	struct elf_image *im = *userdata;
	struct elf_cost c;
	Elf *elf;
	int fd = dwfl_build_id_find_debuginfo(mod, userdata, modname, base, file_name,
					      debuglink_file, debuglink_crc, debuginfo_file_name);

	if (fd < 0)
		return fd;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (elf && !elf_cost_of(elf, fd, &c) && c.bytes <= im->owner->lim.max_image_bytes) {
		elf_end(elf);
		return fd;
	}
	elf_end(elf);
	close(fd);
	free(*debuginfo_file_name);
	*debuginfo_file_name = NULL;
	return -1;
}

static const Dwfl_Callbacks names_callbacks = {
	.find_elf = elf_image_find_elf,
	.find_debuginfo = find_debuginfo_bounded,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};

static bool image_names(struct elf_image *im)
{
	if (im->mod)
		return true;
	if (im->dwfl || stopping(im->owner))
		return false;
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

	__u64 t0 = im->dwarf_weighed ? 0 : clock_ns(CLOCK_MONOTONIC);

	memset(out, 0, sizeof(*out));
	if (!image_names(im))
		return false;
	c = &im->names[(vaddr ^ (vaddr >> 12)) & (NAME_CACHE_SLOTS - 1)];
	if (c->vaddr == vaddr + 1 && !im->owner->lim.no_name_cache) {
		*out = c->info;
		return out->name || out->src;
	}
	out->name = name_checked(
		im->mod, dwfl_module_addrinfo(im->mod, vaddr, &offset, &sym, NULL, NULL, NULL));
	if (out->name)
		out->offset = offset;
	out->name_len = out->name ? strcspn(out->name, "@") : 0;
	line = im->lines_trusted ? dwfl_module_getsrc(im->mod, vaddr) : NULL;
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
		/* The first lookup read the symbol table and the DWARF. */
		image_timed(im, clock_ns(CLOCK_MONOTONIC) - t0);
		symbols_trim(im->owner, im);
	}
	return out->name || out->src;
}
