// SPDX-License-Identifier: GPL-2.0
/*
 * symbols.c: stack addresses as module!function+0xoff.
 *
 * The image map keeps, per process, every mapping of an image with the
 * time range it was mapped over: a load opens the range at its time, an
 * unload closes it, rundown records (DCStart, DCEnd) stand for a mapping
 * made before the trace, so it holds from the start.  An address is
 * looked up in the images its process had mapped at the event's time.
 *
 * Symbols come from the file each image's path names, opened with
 * elfutils (libdwfl) on the first look-up in it: its .symtab, the
 * separate debug file its build ID names when installed, else .dynsym.
 * Its functions are sorted once: dwfl_module_addrinfo() scans the whole
 * symbol table at each call, some 10 us a frame on a large file.
 * Addresses are return addresses: the symbol is the one holding the call
 * (address - 1), the offset printed is the return address's, as Windows'
 * symbolisers print it.
 *
 * Kernel addresses are in no process's images; with a copy of
 * /proc/kallsyms of the boot that recorded them, they are named after the
 * nearest text symbol at or before the call (kallsyms gives no sizes).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <search.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <elfutils/libdwfl.h>

#include "symbols.h"
#include "table.h"

/*
 * A function of an image file: [@addr, @addr + @size); @sized is false
 * for a symbol without a size, given one up to the next symbol or the
 * end of its section.
 */
struct etwctl_sym {
	uint64_t addr;
	uint64_t size;
	const char *name;
	unsigned int rank;
	bool sized;
};

/*
 * One image file, opened on the first look-up in it, in one allocation
 * with its path: a .NET trace's methods are thousands of such images.
 * @name: its last component, what frames print
 * @dwfl, @mod: the file reported at its own addresses (bias 0); NULL
 *	when it could not be read
 * @start: the address @mod gives the file's first byte
 * @syms: its functions by address, one per address (names are @dwfl's)
 * @nsyms: entries of @syms
 * @tried: opening it was tried
 * @path: as the trace names it
 */
struct etwctl_elf {
	const char *name;
	Dwfl *dwfl;
	Dwfl_Module *mod;
	Dwarf_Addr start;
	struct etwctl_sym *syms;
	size_t nsyms;
	bool tried;
	char path[];
};

/* One mapping of an image, from @from to before @to. */
struct etwctl_mapping {
	uint64_t base;
	uint64_t size;
	uint64_t file_base;
	int64_t from;
	int64_t to;
	struct etwctl_elf *elf;
};

/*
 * The mappings of process @pid, @n of @cap at @v in the order they were
 * reported, and two indexes, as a process may map thousands (a .NET
 * process's JIT-compiled methods):
 * @open: the mapping still mapped at each base (at most one), as struct
 *	etwctl_open by base: an open-address hash of @nopen_slots slots (a
 *	power of two; idx ETWCTL_OPEN_FREE: free) for @nopen mappings
 * @by_base: the positions in @v of the first @nsorted mappings, by base
 * @reach: at @i, the highest end of the mappings at @by_base[0..i]: a
 *	look-up walks down from the last base at or below an address while
 *	a mapping there can reach it, then scans those added since
 */
struct etwctl_proc {
	uint32_t pid;
	struct etwctl_mapping *v;
	size_t n;
	size_t cap;
	struct etwctl_open *open;
	size_t nopen_slots, nopen;
	size_t *by_base;
	uint64_t *reach;
	size_t nsorted;
};

/*
 * The mapping @idx of a process, still mapped at its base: the base is
 * read from the mapping, a slot costs 4 bytes.
 */
struct etwctl_open {
	uint32_t idx;
};

#define ETWCTL_OPEN_FREE	UINT32_MAX

/* Mappings added since the index was sorted that a look-up scans. */
#define ETWCTL_UNSORTED_MAX 32

/*
 * A kernel text symbol: @name, then its module's name ("" for the
 * kernel's own), in one allocation; @rank orders aliases (global first).
 */
struct etwctl_ksym {
	uint64_t addr;
	char *name;
	const char *module;
	unsigned int rank;
};

/*
 * @procs: struct etwctl_proc by pid (a tsearch tree)
 * @elfs: struct etwctl_elf by path, an open-address hash of @nelf_slots
 *	slots (a power of two; NULL: free) for @nelfs files: a .NET
 *	trace's methods are thousands of images whose names share long
 *	prefixes, which a tree of string comparisons walked twice per image
 *	event
 * @last: the process looked up last (stacks come in runs of one process)
 * @nmappings: the mappings of all processes
 * @ksyms: kernel text symbols by address, one per address
 * @nksyms: entries of @ksyms
 */
struct etwctl_symbols {
	void *procs;
	struct etwctl_elf **elfs;
	size_t nelf_slots, nelfs;
	struct etwctl_proc *last;
	size_t nmappings;
	struct etwctl_ksym *ksyms;
	size_t nksyms;
};

static const Dwfl_Callbacks etwctl_dwfl_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

static int etwctl_proc_cmp(const void *a, const void *b)
{
	uint32_t x = ((const struct etwctl_proc *)a)->pid;
	uint32_t y = ((const struct etwctl_proc *)b)->pid;

	return x < y ? -1 : x > y;
}

static void etwctl_proc_free(void *node)
{
	struct etwctl_proc *p = node;

	free(p->open);
	free(p->by_base);
	free(p->reach);
	free(p->v);
	free(p);
}

static void etwctl_elf_free(void *p)
{
	struct etwctl_elf *e = p;

	if (e->dwfl)
		dwfl_end(e->dwfl);
	free(e->syms);
	free(e);
}

/**
 * etwctl_symbols_new - an empty image map
 *
 * Return: the map, to etwctl_symbols_free(), or NULL when out of memory.
 */
struct etwctl_symbols *etwctl_symbols_new(void)
{
	return calloc(1, sizeof(struct etwctl_symbols));
}

/**
 * etwctl_symbols_free - frees the map and closes its files
 * @s: the map, or NULL
 */
void etwctl_symbols_free(struct etwctl_symbols *s)
{
	size_t i;

	if (!s)
		return;
	tdestroy(s->procs, etwctl_proc_free);
	for (i = 0; i < s->nelf_slots; i++)
		if (s->elfs[i])
			etwctl_elf_free(s->elfs[i]);
	free(s->elfs);
	for (i = 0; i < s->nksyms; i++)
		free(s->ksyms[i].name);
	free(s->ksyms);
	free(s);
}

static struct etwctl_proc *etwctl_proc_find(struct etwctl_symbols *s,
					    uint32_t pid)
{
	struct etwctl_proc key = { .pid = pid };
	void *node;

	if (s->last && s->last->pid == pid)
		return s->last;
	node = tfind(&key, &s->procs, etwctl_proc_cmp);
	if (node)
		s->last = *(struct etwctl_proc **)node;
	return node ? s->last : NULL;
}

static struct etwctl_proc *etwctl_proc_get(struct etwctl_symbols *s,
					   uint32_t pid)
{
	struct etwctl_proc *p = etwctl_proc_find(s, pid);
	void *node;

	if (p)
		return p;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->pid = pid;
	node = tsearch(p, &s->procs, etwctl_proc_cmp);
	if (!node) {
		free(p);
		return NULL;
	}
	return p;
}

static int etwctl_elfs_rehash(struct etwctl_symbols *s)
{
	size_t n = s->nelf_slots ? 2 * s->nelf_slots : 256, i, j;
	struct etwctl_elf **slots = calloc(n, sizeof(*slots));

	if (!slots)
		return -1;
	for (i = 0; i < s->nelf_slots; i++) {
		if (!s->elfs[i])
			continue;
		j = etwctl_str_hash(s->elfs[i]->path) & (n - 1);
		while (slots[j])
			j = (j + 1) & (n - 1);
		slots[j] = s->elfs[i];
	}
	free(s->elfs);
	s->elfs = slots;
	s->nelf_slots = n;
	return 0;
}

static struct etwctl_elf *etwctl_elf_get(struct etwctl_symbols *s,
					 const char *path)
{
	size_t j, len = strlen(path) + 1;
	struct etwctl_elf *e;
	const char *slash;

	if (2 * (s->nelfs + 1) > s->nelf_slots && etwctl_elfs_rehash(s))
		return NULL;
	for (j = etwctl_str_hash(path) & (s->nelf_slots - 1); s->elfs[j];
	     j = (j + 1) & (s->nelf_slots - 1))
		if (!strcmp(s->elfs[j]->path, path))
			return s->elfs[j];
	e = calloc(1, sizeof(*e) + len);
	if (!e)
		return NULL;
	memcpy(e->path, path, len);
	/* Windows traces name files with backslashes. */
	for (e->name = slash = e->path; *slash; slash++)
		if (*slash == '/' || *slash == '\\')
			e->name = slash + 1;
	s->elfs[j] = e;
	s->nelfs++;
	return e;
}

static size_t etwctl_open_home(const struct etwctl_proc *p, uint64_t base)
{
	uint64_t h = base * 0x9e3779b97f4a7c15ull;

	return (h ^ h >> 32) & (p->nopen_slots - 1);
}

/* The slot of the mapping still mapped at @base, or of where it would go. */
static struct etwctl_open *etwctl_open_slot(struct etwctl_proc *p,
					    uint64_t base)
{
	size_t j = etwctl_open_home(p, base);

	while (p->open[j].idx != ETWCTL_OPEN_FREE &&
	       p->v[p->open[j].idx].base != base)
		j = (j + 1) & (p->nopen_slots - 1);
	return &p->open[j];
}

/* The entry of the mapping still mapped at @base, or NULL. */
static struct etwctl_open *etwctl_open_find(struct etwctl_proc *p,
					    uint64_t base)
{
	struct etwctl_open *o;

	if (!p->nopen)
		return NULL;
	o = etwctl_open_slot(p, base);
	return o->idx == ETWCTL_OPEN_FREE ? NULL : o;
}

static int etwctl_open_rehash(struct etwctl_proc *p)
{
	struct etwctl_open *old = p->open, *o;
	size_t n = p->nopen_slots, i;

	o = malloc((n ? 2 * n : 64) * sizeof(*o));
	if (!o)
		return -1;
	p->open = o;
	p->nopen_slots = n ? 2 * n : 64;
	for (i = 0; i < p->nopen_slots; i++)
		o[i].idx = ETWCTL_OPEN_FREE;
	for (i = 0; i < n; i++)
		if (old[i].idx != ETWCTL_OPEN_FREE)
			*etwctl_open_slot(p, p->v[old[i].idx].base) = old[i];
	free(old);
	return 0;
}

/*
 * Whether the last mapping of @p is @img over [@from, @to): merged copies
 * of a trace repeat each Image event, and a mapping like one reported
 * just before it either replaces it (a load) or is never chosen over it.
 */
static bool etwctl_mapping_repeats(const struct etwctl_proc *p,
				   const struct etwctl_elf *elf,
				   const struct etwctl_image *img, int64_t from,
				   int64_t to)
{
	const struct etwctl_mapping *m = p->n ? &p->v[p->n - 1] : NULL;

	return m && m->elf == elf && m->base == img->base &&
	       m->size == img->size && m->file_base == img->file_base &&
	       m->from == from && m->to == to;
}

static int etwctl_mapping_add(struct etwctl_symbols *s,
			      struct etwctl_proc *p,
			      const struct etwctl_image *img, int64_t from,
			      int64_t to)
{
	struct etwctl_mapping *v;
	struct etwctl_elf *elf;
	size_t cap;

	/* The index of those still mapped holds 32-bit positions. */
	if (p->n >= ETWCTL_OPEN_FREE)
		return -1;
	if (p->n == p->cap) {
		cap = p->cap ? 2 * p->cap : 16;
		v = realloc(p->v, cap * sizeof(*v));
		if (!v)
			return -1;
		p->v = v;
		p->cap = cap;
	}
	elf = etwctl_elf_get(s, img->path);
	if (!elf)
		return -1;
	v = &p->v[p->n];
	v->elf = elf;
	v->base = img->base;
	v->size = img->size;
	v->file_base = img->file_base;
	v->from = from;
	v->to = to;
	p->n++;
	s->nmappings++;
	return 0;
}

/* Mapping @idx, just added, is the one still mapped at its base. */
static int etwctl_open_set(struct etwctl_proc *p, struct etwctl_open *open,
			   size_t idx)
{
	if (open) {
		open->idx = (uint32_t)idx;
		return 0;
	}
	if (2 * (p->nopen + 1) > p->nopen_slots && etwctl_open_rehash(p))
		return -1;
	open = etwctl_open_slot(p, p->v[idx].base);
	open->idx = (uint32_t)idx;
	p->nopen++;
	return 0;
}

/*
 * The mapping @open names is unmapped at @time.  The entries probed past
 * its slot move back into the hole when their home slot allows, so that
 * no look-up stops short of them.
 */
static void etwctl_open_end(struct etwctl_proc *p, struct etwctl_open *open,
			    int64_t time)
{
	size_t mask = p->nopen_slots - 1, hole = open - p->open, j, home;

	p->v[open->idx].to = time;
	for (j = (hole + 1) & mask; p->open[j].idx != ETWCTL_OPEN_FREE;
	     j = (j + 1) & mask) {
		home = etwctl_open_home(p, p->v[p->open[j].idx].base);
		/* Stays when its home lies cyclically in (hole, j]. */
		if (((j - home) & mask) < ((j - hole) & mask))
			continue;
		p->open[hole] = p->open[j];
		hole = j;
	}
	p->open[hole].idx = ETWCTL_OPEN_FREE;
	p->nopen--;
}

/**
 * etwctl_symbols_image - one Image event into the map
 * @s: the map
 * @op: what happened
 * @img: the image (@img->path is copied)
 * @time: the event's time, in any unit that orders events
 *
 * A load of an image still mapped at the same base (its unload was not
 * recorded) ends the old mapping there.  A load or an unload that repeats
 * the one just before it in its process, as merged copies of a trace do,
 * adds nothing: the map would answer every look-up as it does.  Rundown records add a mapping
 * from before any time unless the image is mapped already; an unload of
 * an image never loaded (it was mapped before the trace) adds one that
 * ends at @time.
 *
 * Return: 0, or -1 when out of memory.
 */
int etwctl_symbols_image(struct etwctl_symbols *s, enum etwctl_image_op op,
			 const struct etwctl_image *img, int64_t time)
{
	struct etwctl_proc *p = etwctl_proc_get(s, img->pid);
	struct etwctl_elf *elf = NULL;
	struct etwctl_open *open;

	if (!p)
		return -1;
	open = etwctl_open_find(p, img->base);
	if (op == ETWCTL_IMAGE_LOAD || (op == ETWCTL_IMAGE_UNLOAD && !open)) {
		elf = etwctl_elf_get(s, img->path);
		if (!elf)
			return -1;
	}
	switch (op) {
	case ETWCTL_IMAGE_LOAD:
		/* Its twin just loaded at its time: the map stays as it is. */
		if (open && open->idx == p->n - 1 &&
		    etwctl_mapping_repeats(p, elf, img, time, INT64_MAX))
			return 0;
		if (open)
			p->v[open->idx].to = time;
		if (etwctl_mapping_add(s, p, img, time, INT64_MAX))
			return -1;
		return etwctl_open_set(p, open, p->n - 1);
	case ETWCTL_IMAGE_UNLOAD:
		if (open) {
			etwctl_open_end(p, open, time);
			return 0;
		}
		if (etwctl_mapping_repeats(p, elf, img, INT64_MIN, time))
			return 0;
		return etwctl_mapping_add(s, p, img, INT64_MIN, time);
	case ETWCTL_IMAGE_DCSTART:
	case ETWCTL_IMAGE_DCEND:
		if (open)
			return 0;
		if (etwctl_mapping_add(s, p, img, INT64_MIN, INT64_MAX))
			return -1;
		return etwctl_open_set(p, NULL, p->n - 1);
	}
	return 0;
}

/**
 * etwctl_symbols_mappings - how many mappings the map holds
 * @s: the map
 *
 * Return: the mappings of all processes, each image's and method's
 * ranges of time.
 */
size_t etwctl_symbols_mappings(const struct etwctl_symbols *s)
{
	return s->nmappings;
}

static uint64_t etwctl_mapping_end(const struct etwctl_mapping *m)
{
	return m->base + m->size < m->base ? UINT64_MAX : m->base + m->size;
}

static int etwctl_by_base_cmp(const void *a, const void *b, void *arg)
{
	const struct etwctl_mapping *v = arg;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	if (v[x].base != v[y].base)
		return v[x].base < v[y].base ? -1 : 1;
	return x < y ? -1 : x > y;
}

/*
 * Sort every mapping into @p's index when more than a few were added
 * since; out of memory, the old index stays and look-ups scan the rest.
 */
static void etwctl_proc_index(struct etwctl_proc *p)
{
	size_t *by_base;
	uint64_t *reach;
	size_t i;

	if (p->n - p->nsorted <= ETWCTL_UNSORTED_MAX)
		return;
	by_base = reallocarray(p->by_base, p->n, sizeof(*by_base));
	if (!by_base)
		return;
	p->by_base = by_base;
	reach = reallocarray(p->reach, p->n, sizeof(*reach));
	if (!reach)
		return;
	p->reach = reach;
	for (i = 0; i < p->n; i++)
		by_base[i] = i;
	qsort_r(by_base, p->n, sizeof(*by_base), etwctl_by_base_cmp, p->v);
	for (i = 0; i < p->n; i++) {
		reach[i] = etwctl_mapping_end(&p->v[by_base[i]]);
		if (i && reach[i - 1] > reach[i])
			reach[i] = reach[i - 1];
	}
	p->nsorted = p->n;
}

/* @best, or mapping @idx if it holds @addr at @time and was mapped later. */
static const struct etwctl_mapping *
etwctl_mapping_later(const struct etwctl_proc *p, size_t idx, uint64_t addr,
		     int64_t time, const struct etwctl_mapping *best)
{
	const struct etwctl_mapping *m = &p->v[idx];

	if (addr < m->base || addr - m->base >= m->size || m->from > time ||
	    time >= m->to)
		return best;
	/* Of two mapped at the same time, the one reported first. */
	if (!best || m->from > best->from || (m->from == best->from && m < best))
		return m;
	return best;
}

/* The mapping holding @addr at @time; the latest mapped, should two. */
static const struct etwctl_mapping *
etwctl_mapping_at(struct etwctl_proc *p, uint64_t addr, int64_t time)
{
	const struct etwctl_mapping *best = NULL;
	size_t lo = 0, hi, mid, i;

	etwctl_proc_index(p);
	/* lo: the first sorted mapping whose base is above @addr. */
	hi = p->nsorted;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (p->v[p->by_base[mid]].base <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = lo; i-- && p->reach[i] > addr;)
		best = etwctl_mapping_later(p, p->by_base[i], addr, time, best);
	for (i = p->nsorted; i < p->n; i++)
		best = etwctl_mapping_later(p, i, addr, time, best);
	return best;
}

/*
 * The file the trace names, if it is a regular file at an absolute path:
 * a trace must not make dump read relative to where it runs, or block
 * on a FIFO or a device.
 */
static int etwctl_elf_fd(const char *path)
{
	struct stat st;
	int fd;

	if (*path != '/')
		return -1;
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd >= 0 && (fstat(fd, &st) || !S_ISREG(st.st_mode))) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* By address; of aliases, the strongest binding first, then by name. */
static int etwctl_sym_cmp(const void *a, const void *b)
{
	const struct etwctl_sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return strcmp(x->name, y->name);
}

static unsigned int etwctl_sym_rank(unsigned char info)
{
	switch (GELF_ST_BIND(info)) {
	case STB_GLOBAL:
		return 0;
	case STB_WEAK:
		return 1;
	default:
		return 2;
	}
}

/*
 * Aliases become one entry: the first name, the largest size an alias
 * gives.  A symbol without a size ends where the next one starts.
 */
static void etwctl_syms_unique(struct etwctl_elf *e)
{
	struct etwctl_sym *prev, *cur;
	size_t i, n = 0;

	for (i = 0; i < e->nsyms; i++) {
		prev = n ? &e->syms[n - 1] : NULL;
		cur = &e->syms[i];
		if (!prev || prev->addr != cur->addr) {
			e->syms[n++] = *cur;
		} else if (cur->sized &&
			   (!prev->sized || cur->size > prev->size)) {
			prev->size = cur->size;
			prev->sized = true;
		}
	}
	e->nsyms = n;
	for (i = 0; i + 1 < n; i++)
		if (!e->syms[i].sized &&
		    e->syms[i + 1].addr - e->syms[i].addr < e->syms[i].size)
			e->syms[i].size = e->syms[i + 1].addr - e->syms[i].addr;
}

/* The end of section @shndx of @elf, at the module's addresses; 0 if none. */
static uint64_t etwctl_section_end(Elf *elf, GElf_Word shndx,
				   Dwarf_Addr bias)
{
	Elf_Scn *scn;
	GElf_Shdr shdr;

	if (!elf || shndx == SHN_UNDEF || shndx >= SHN_LORESERVE)
		return 0;
	scn = elf_getscn(elf, shndx);
	if (!scn || !gelf_getshdr(scn, &shdr) || !(shdr.sh_flags & SHF_ALLOC))
		return 0;
	return shdr.sh_addr + shdr.sh_size + bias;
}

/*
 * Whether symbol @i of the module is a defined function; fills @out.  A
 * symbol without a size (crt's register_tm_clones, some assembly) is
 * given one to the end of its section, which the next symbol shortens:
 * not further, or _init would claim the PLT after it.
 */
static bool etwctl_elf_sym(struct etwctl_elf *e, int i,
			   struct etwctl_sym *out)
{
	const char *name;
	Dwarf_Addr bias;
	GElf_Word shndx;
	GElf_Addr addr;
	GElf_Sym sym;
	uint64_t end;
	int type;
	Elf *elf;

	name = dwfl_module_getsym_info(e->mod, i, &sym, &addr, &shndx, &elf,
				       &bias);
	type = GELF_ST_TYPE(sym.st_info);
	if (!name || !*name || shndx == SHN_UNDEF ||
	    (type != STT_FUNC && type != STT_GNU_IFUNC))
		return false;
	*out = (struct etwctl_sym){ addr, sym.st_size, name,
				    etwctl_sym_rank(sym.st_info), true };
	if (sym.st_size)
		return true;
	end = etwctl_section_end(elf, shndx, bias);
	out->size = end > addr ? end - addr : 0;
	out->sized = false;
	return out->size;
}

/* The defined functions of the module's symbol table, sorted. */
static bool etwctl_elf_symbols(struct etwctl_elf *e)
{
	int i, n = dwfl_module_getsymtab(e->mod);

	if (n <= 0)
		return true;
	e->syms = malloc((size_t)n * sizeof(*e->syms));
	if (!e->syms)
		return false;
	for (i = 1; i < n; i++)
		e->nsyms += etwctl_elf_sym(e, i, &e->syms[e->nsyms]);
	qsort(e->syms, e->nsyms, sizeof(*e->syms), etwctl_sym_cmp);
	etwctl_syms_unique(e);
	return true;
}

/* The function holding @addr: the last one at or before it, if it ends after. */
static const struct etwctl_sym *etwctl_sym_at(const struct etwctl_elf *e,
					      uint64_t addr)
{
	const struct etwctl_sym *sym;
	size_t lo = 0, hi = e->nsyms, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (e->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	sym = &e->syms[lo - 1];
	return addr - sym->addr < sym->size ? sym : NULL;
}

/* Leading underscores: of aliases, the name with fewest is kept. */
static size_t etwctl_underscores(const char *name)
{
	return strspn(name, "_");
}

/*
 * By address; of aliases, global (T) before weak (W) before local, then
 * the fewest leading underscores (_text before __pi__text), then bytes.
 */
static int etwctl_ksym_cmp(const void *a, const void *b)
{
	const struct etwctl_ksym *x = a, *y = b;
	size_t ux, uy;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	ux = etwctl_underscores(x->name);
	uy = etwctl_underscores(y->name);
	if (ux != uy)
		return ux < uy ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Keeps the first of each address's aliases. */
static void etwctl_ksyms_unique(struct etwctl_symbols *s)
{
	size_t i, n = 0;

	for (i = 0; i < s->nksyms; i++) {
		if (n && s->ksyms[n - 1].addr == s->ksyms[i].addr)
			free(s->ksyms[i].name);
		else
			s->ksyms[n++] = s->ksyms[i];
	}
	s->nksyms = n;
}

/*
 * One "ADDRESS TYPE NAME [MODULE]" line: 1 and @out filled for a text
 * symbol at a non-zero address, 0 for another or a blank line, -EINVAL
 * if the line is not of that form, -ENOMEM.
 */
static int etwctl_kallsyms_line(const char *line, struct etwctl_ksym *out)
{
	char type, name[512], module[130] = "";
	unsigned long long addr;
	size_t nlen, mlen;
	int n;

	n = sscanf(line, "%llx %c %511s %129s", &addr, &type, name, module);
	if (n == EOF)
		return 0;
	if (n < 3 || (n == 4 && (module[0] != '[' ||
				 module[strlen(module) - 1] != ']')))
		return -EINVAL;
	if (!addr || !strchr("tTwW", type))
		return 0;
	/* "[etw]" becomes "etw". */
	mlen = n == 4 ? strlen(module) - 2 : 0;
	nlen = strlen(name) + 1;
	out->addr = addr;
	out->rank = type == 'T' ? 0 : type == 'W' ? 1 : 2;
	out->name = malloc(nlen + mlen + 1);
	if (!out->name)
		return -ENOMEM;
	memcpy(out->name, name, nlen);
	memcpy(out->name + nlen, module + 1, mlen);
	out->name[nlen + mlen] = 0;
	out->module = out->name + nlen;
	return 1;
}

/**
 * etwctl_symbols_kallsyms - kernel symbols for kernel addresses
 * @s: the map
 * @f: a copy of /proc/kallsyms of the boot the trace was recorded in
 *
 * Its text symbols (types t, T, w, W) name the kernel addresses no
 * process's image holds.  Read once, before any look-up.
 *
 * Return: 0; -EINVAL for a line that is not "ADDRESS TYPE NAME
 * [MODULE]", -ENOENT when no text symbol has an address (kptr_restrict
 * showed zeros to the reader), -ENOMEM, or -errno of a read error.
 */
int etwctl_symbols_kallsyms(struct etwctl_symbols *s, FILE *f)
{
	size_t cap = 0, size = 0;
	struct etwctl_ksym *v;
	char *line = NULL;
	int ret = 0;

	while (ret >= 0 && getline(&line, &size, f) > 0) {
		if (s->nksyms == cap) {
			cap = cap ? 2 * cap : 4096;
			v = realloc(s->ksyms, cap * sizeof(*v));
			if (!v) {
				ret = -ENOMEM;
				break;
			}
			s->ksyms = v;
		}
		ret = etwctl_kallsyms_line(line, &s->ksyms[s->nksyms]);
		s->nksyms += ret > 0;
	}
	free(line);
	if (ret >= 0 && ferror(f))
		ret = -EIO;
	if (ret >= 0 && !s->nksyms)
		ret = -ENOENT;
	if (ret < 0)
		return ret;
	qsort(s->ksyms, s->nksyms, sizeof(*s->ksyms), etwctl_ksym_cmp);
	etwctl_ksyms_unique(s);
	return 0;
}

/* The kernel text symbol nearest at or before @addr, or NULL. */
static const struct etwctl_ksym *etwctl_ksym_at(const struct etwctl_symbols *s,
						uint64_t addr)
{
	size_t lo = 0, hi = s->nksyms, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (s->ksyms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? &s->ksyms[lo - 1] : NULL;
}

/* Reports the file to its own libdwfl session, once. */
static bool etwctl_elf_open(struct etwctl_elf *e)
{
	int fd;

	if (e->tried)
		return e->mod;
	e->tried = true;
	fd = etwctl_elf_fd(e->path);
	if (fd < 0)
		return false;
	e->dwfl = dwfl_begin(&etwctl_dwfl_callbacks);
	if (!e->dwfl) {
		close(fd);
		return false;
	}
	dwfl_report_begin(e->dwfl);
	/*
	 * Base 0 added to the first PT_LOAD: the file's own addresses.  The
	 * descriptor is libdwfl's once the report succeeds.
	 */
	e->mod = dwfl_report_elf(e->dwfl, e->name, e->path, fd, 0, true);
	if (!e->mod)
		close(fd);
	/* Without memory for its symbols the file is as one without. */
	if (dwfl_report_end(e->dwfl, NULL, NULL) || !e->mod ||
	    !etwctl_elf_symbols(e)) {
		dwfl_end(e->dwfl);
		e->dwfl = NULL;
		e->mod = NULL;
		return false;
	}
	dwfl_module_info(e->mod, NULL, &e->start, NULL, NULL, NULL, NULL,
			 NULL);
	return true;
}

/* @n bytes of @p at *@at of @buf, as many as fit before its last byte. */
static void etwctl_frame_put(char *buf, size_t size, size_t *at,
			     const char *p, size_t n)
{
	if (n > size - 1 - *at)
		n = size - 1 - *at;
	memcpy(buf + *at, p, n);
	*at += n;
}

/*
 * "@module!@function+0x@off" (without "!@function" when @function is
 * NULL, "0x@off" alone when @module is) into @buf as snprintf()
 * would write it, without its cost: a stack prints many frames.
 */
static int etwctl_frame_text(char *buf, size_t size, const char *module,
			     const char *function, uint64_t off)
{
	char hex[2 + 16];
	size_t a = module ? strlen(module) : 0;
	size_t b = module && function ? strlen(function) : 0;
	size_t h = sizeof(hex), len, at = 0;

	do {
		hex[--h] = "0123456789abcdef"[off & 0xf];
		off >>= 4;
	} while (off);
	hex[--h] = 'x';
	hex[--h] = '0';
	len = (module ? a + (function ? 1 + b : 0) + 1 : 0) + sizeof(hex) - h;
	if (len > INT_MAX)
		return -1;
	if (!size)
		return (int)len;
	if (module) {
		etwctl_frame_put(buf, size, &at, module, a);
		if (function) {
			etwctl_frame_put(buf, size, &at, "!", 1);
			etwctl_frame_put(buf, size, &at, function, b);
		}
		etwctl_frame_put(buf, size, &at, "+", 1);
	}
	etwctl_frame_put(buf, size, &at, hex + h, sizeof(hex) - h);
	buf[at] = 0;
	return (int)len;
}

/*
 * An address outside the process's images: kallsyms' name, or hex.
 * @back: 1 for a return address (the call is before it), 0 for an
 * instruction.
 */
static int etwctl_kernel_frame(const struct etwctl_symbols *s, uint64_t addr,
			       unsigned int back, char *buf, size_t size)
{
	const struct etwctl_ksym *k = addr ? etwctl_ksym_at(s, addr - back) :
					     NULL;

	if (!k)
		return etwctl_frame_text(buf, size, NULL, NULL, addr);
	return etwctl_frame_text(buf, size, *k->module ? k->module : "vmlinux",
				 k->name, addr - k->addr);
}

/* etwctl_symbols_frame() of a return address (@back 1) or instruction. */
static int etwctl_symbols_name(struct etwctl_symbols *s, uint32_t pid,
			       int64_t time, uint64_t addr, unsigned int back,
			       char *buf, size_t size)
{
	const struct etwctl_mapping *m;
	struct etwctl_proc *p = etwctl_proc_find(s, pid);
	const struct etwctl_sym *sym;
	Dwarf_Addr at, call;

	m = p ? etwctl_mapping_at(p, addr, time) : NULL;
	/* Windows' kernel and drivers: process 0's images, in every process. */
	if (!m && pid) {
		p = etwctl_proc_find(s, 0);
		m = p ? etwctl_mapping_at(p, addr, time) : NULL;
	}
	if (!m)
		return etwctl_kernel_frame(s, addr, back, buf, size);
	if (!etwctl_elf_open(m->elf))
		return etwctl_frame_text(buf, size, m->elf->name, NULL,
					 addr - m->base);
	at = addr - m->file_base + m->elf->start;
	/* The call before a return address; none before the base. */
	call = at - (back && addr > m->file_base);
	sym = etwctl_sym_at(m->elf, call);
	if (sym)
		return etwctl_frame_text(buf, size, m->elf->name, sym->name,
					 (uint64_t)(at - sym->addr));
	return etwctl_frame_text(buf, size, m->elf->name, NULL,
				 addr - m->file_base);
}

/**
 * etwctl_symbols_frame - one stack address as text
 * @s: the map
 * @pid: the process of the event the stack belongs to
 * @time: the event's time, in the unit of etwctl_symbols_image()'s
 * @addr: a return address
 * @buf: out: the text
 * @size: bytes at @buf; longer text is cut, as by snprintf()
 *
 * The text is "module!function+0xoff" when @pid (or else process 0, where
 * a Windows trace puts the kernel's images) had an image mapped over
 * @addr at @time and its file names the function holding @addr - 1,
 * "module+0xoff" for an image without that symbol (from the file's
 * offset 0, as objdump and addr2line count) or whose file cannot be read
 * (from the image's base: DefaultBase is a PE's preferred base in a
 * Windows trace), "module!function+0xoff" from
 * kallsyms for other addresses at or after its first text symbol
 * ("vmlinux" for the kernel's own), else "0x" and @addr in hex.
 *
 * Return: the length of the whole text, as snprintf() returns it.
 */
int etwctl_symbols_frame(struct etwctl_symbols *s, uint32_t pid,
			 int64_t time, uint64_t addr, char *buf, size_t size)
{
	return etwctl_symbols_name(s, pid, time, addr, 1, buf, size);
}

/**
 * etwctl_symbols_ip - an instruction's address as text
 * @s: the map
 * @pid: the process of the event
 * @time: the event's time, in the unit of etwctl_symbols_image()'s
 * @addr: the instruction (a CPU sample's InstructionPointer, the
 *	innermost frame of its stack)
 * @buf: out: the text
 * @size: bytes at @buf; longer text is cut, as by snprintf()
 *
 * As etwctl_symbols_frame(), with the function holding @addr itself: a
 * sampled instruction may be the first of its function.
 *
 * Return: the length of the whole text, as snprintf() returns it.
 */
int etwctl_symbols_ip(struct etwctl_symbols *s, uint32_t pid, int64_t time,
		      uint64_t addr, char *buf, size_t size)
{
	return etwctl_symbols_name(s, pid, time, addr, 0, buf, size);
}
