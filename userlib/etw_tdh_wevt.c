// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * etw_tdh_wevt.c: the instrumentation manifest mc.exe compiles into a PE
 * file (its WEVT_TEMPLATE resource, "CRIM"), read into the model of
 * etw_tdh_manifest.h, so that TDH decodes its events as those of an XML
 * manifest.  Texts (an item's description, an event's message, a map
 * entry's text) are those of the message ids in the file's MESSAGETABLE.
 *
 * Layouts, all little-endian:
 *  - the PE file: Microsoft's "PE Format" (e_lfanew at 0x3c, the COFF
 *    header, the optional header's data directory 2, the section table,
 *    and the resource tree: directory tables, entries, data entries);
 *  - the message table: winnt.h's MESSAGE_RESOURCE_DATA, _BLOCK, _ENTRY;
 *  - CRIM and its elements: libfwevt's "Windows Event manifest binary
 *    format" (CRIM, WEVT, CHAN, EVNT, KEYW, LEVL, MAPS with VMAP and BMAP,
 *    OPCO, TASK, TTBL with TEMP), with MAPS and a TEMP item's count
 *    and length as omerbenamram/evtx reads real providers' resources.
 * What those leave unknown and libetw guesses (Documentation/libetw.rst):
 * an opcode's identifier is its task (low 16 bits) and value (high 16);
 * a BMAP is laid out as a VMAP; a TEMP item's first 32 bits are its
 * PROPERTY_FLAGS, bytes 8-11 the offset of its map (or, for a struct,
 * its first member's index and number of members), and with
 * PropertyParamCount or PropertyParamLength its count or length is the
 * index of the property that holds it.
 *
 * Every byte is hostile: each offset and count is checked against the
 * bytes it names before it is read, with 64-bit sums; the resource tree
 * is walked at its three fixed levels, so no loop of directories can
 * recur; elements shared between providers and maps that overlap are
 * refused, and all the text read is bounded by a budget, so that the
 * work is linear in the file.  A bad PE structure is ERROR_BAD_EXE_FORMAT,
 * a bad manifest or message table ERROR_FILE_CORRUPT.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "etw_etl.h"
#include "etw_tdh_manifest.h"

/* Bigger files are refused: no provider binary comes close. */
#define WEVT_MAX_FILE		(256u << 20)
#define WEVT_MAX_PROVIDERS	256
/* A CRIM string of more bytes is corrupt: names are short. */
#define WEVT_MAX_STRING		65536
#define WEVT_RT_MESSAGETABLE	11
#define WEVT_DIR_BIT		0x80000000u
#define WEVT_NO_MESSAGE		0xffffffffu

/* Bytes of the file, or of a part of it. */
struct wevt_view {
	const uint8_t *p;
	size_t len;
};

static uint16_t wevt_le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t wevt_le32(const uint8_t *p)
{
	return (uint32_t)wevt_le16(p) | (uint32_t)wevt_le16(p + 2) << 16;
}

static uint64_t wevt_le64(const uint8_t *p)
{
	return (uint64_t)wevt_le32(p) | (uint64_t)wevt_le32(p + 4) << 32;
}

/* Whether @n bytes at @off are inside @v. */
static bool wevt_has(const struct wevt_view *v, uint64_t off, uint64_t n)
{
	return off <= v->len && n <= v->len - off;
}

/* --- the PE file ---------------------------------------------------------- */

struct wevt_pe {
	struct wevt_view file;
	const uint8_t *sections;
	uint16_t nsections;
	struct wevt_view rsrc;	/* the resource section; empty: none */
};

/* The @size bytes at @rva, in the raw data of the section holding them. */
static bool wevt_pe_map(const struct wevt_pe *pe, uint32_t rva, uint32_t size,
			struct wevt_view *out)
{
	const uint8_t *s;
	uint32_t va, raw_size, raw;
	uint16_t i;

	for (i = 0; i < pe->nsections; i++) {
		s = pe->sections + 40 * i;
		va = wevt_le32(s + 12);
		raw_size = wevt_le32(s + 16);
		raw = wevt_le32(s + 20);
		if (rva < va || (uint64_t)rva - va + size > raw_size)
			continue;
		if (!wevt_has(&pe->file, (uint64_t)raw + (rva - va), size))
			return false;
		out->p = pe->file.p + raw + (rva - va);
		out->len = size;
		return true;
	}
	return false;
}

/* The headers of @pe->file: its sections and resource section. */
static ULONG wevt_pe_open(struct wevt_pe *pe)
{
	const struct wevt_view *f = &pe->file;
	uint32_t pe_off, ndirs, rva, size;
	uint16_t opt_size, magic;
	uint64_t opt, dir;

	if (!wevt_has(f, 0, 64) || memcmp(f->p, "MZ", 2))
		return ERROR_BAD_EXE_FORMAT;
	pe_off = wevt_le32(f->p + 0x3c);
	if (!wevt_has(f, pe_off, 24) || memcmp(f->p + pe_off, "PE\0\0", 4))
		return ERROR_BAD_EXE_FORMAT;
	pe->nsections = wevt_le16(f->p + pe_off + 6);
	opt_size = wevt_le16(f->p + pe_off + 20);
	opt = (uint64_t)pe_off + 24;
	if (opt_size < 2 || !wevt_has(f, opt, opt_size) ||
	    !wevt_has(f, opt + opt_size, 40ull * pe->nsections))
		return ERROR_BAD_EXE_FORMAT;
	pe->sections = f->p + opt + opt_size;
	magic = wevt_le16(f->p + opt);
	/* The data directories of PE32 and PE32+ optional headers. */
	dir = magic == 0x10b ? 96 : magic == 0x20b ? 112 : 0;
	if (!dir || opt_size < dir)
		return ERROR_BAD_EXE_FORMAT;
	ndirs = wevt_le32(f->p + opt + dir - 4);
	if (ndirs < 3 || opt_size < dir + 3 * 8)
		return ERROR_SUCCESS;
	rva = wevt_le32(f->p + opt + dir + 16);
	size = wevt_le32(f->p + opt + dir + 20);
	if (!rva || !size)
		return ERROR_SUCCESS;
	return wevt_pe_map(pe, rva, size, &pe->rsrc) ? ERROR_SUCCESS :
						       ERROR_BAD_EXE_FORMAT;
}

/* The number of entries of the resource directory at @dir. */
static ULONG wevt_rsrc_dir(const struct wevt_view *r, uint32_t dir,
			   uint32_t *n)
{
	if (!wevt_has(r, dir, 16))
		return ERROR_BAD_EXE_FORMAT;
	*n = (uint32_t)wevt_le16(r->p + dir + 12) + wevt_le16(r->p + dir + 14);
	return wevt_has(r, (uint64_t)dir + 16, 8ull * *n) ?
		       ERROR_SUCCESS : ERROR_BAD_EXE_FORMAT;
}

/* Whether directory entry @e names type @id, or @name (any case) if set. */
static ULONG wevt_rsrc_match(const struct wevt_view *r, const uint8_t *e,
			     uint32_t id, const char *name, bool *hit)
{
	uint32_t word = wevt_le32(e), off = word & ~WEVT_DIR_BIT;
	size_t len = name ? strlen(name) : 0, i;
	uint16_t c;

	*hit = false;
	if (!(word & WEVT_DIR_BIT)) {
		*hit = word == id;
		return ERROR_SUCCESS;
	}
	if (!name)
		return ERROR_SUCCESS;
	if (!wevt_has(r, off, 2) ||
	    !wevt_has(r, (uint64_t)off + 2, 2ull * wevt_le16(r->p + off)))
		return ERROR_BAD_EXE_FORMAT;
	if (wevt_le16(r->p + off) != len)
		return ERROR_SUCCESS;
	for (i = 0; i < len; i++) {
		c = wevt_le16(r->p + off + 2 + 2 * i);
		if (c >= 'a' && c <= 'z')
			c -= 'a' - 'A';
		if (c != (uint8_t)name[i])
			return ERROR_SUCCESS;
	}
	*hit = true;
	return ERROR_SUCCESS;
}

/*
 * The data of resource type @id or @name (NULL: none): its first name's
 * first language, as the tree's three levels (type, name, language)
 * hold it.
 */
static ULONG wevt_resource(const struct wevt_pe *pe, uint32_t id,
			   const char *name, struct wevt_view *out)
{
	const struct wevt_view *r = &pe->rsrc;
	const uint8_t *e = NULL;
	uint32_t n, i, off;
	bool hit = false;
	int level;
	ULONG ret;

	if (!r->len)
		return ERROR_RESOURCE_NOT_FOUND;
	ret = wevt_rsrc_dir(r, 0, &n);
	for (i = 0; !ret && !hit && i < n; i++) {
		e = r->p + 16 + 8 * i;
		ret = wevt_rsrc_match(r, e, id, name, &hit);
	}
	if (ret || !hit)
		return ret ? ret : ERROR_RESOURCE_NOT_FOUND;
	off = wevt_le32(e + 4);
	for (level = 0; level < 2; level++) {
		if (!(off & WEVT_DIR_BIT))
			return ERROR_BAD_EXE_FORMAT;
		off &= ~WEVT_DIR_BIT;
		ret = wevt_rsrc_dir(r, off, &n);
		if (ret || !n)
			return ret ? ret : ERROR_RESOURCE_NOT_FOUND;
		off = wevt_le32(r->p + off + 16 + 4);
	}
	if ((off & WEVT_DIR_BIT) || !wevt_has(r, off, 16) ||
	    !wevt_pe_map(pe, wevt_le32(r->p + off), wevt_le32(r->p + off + 4),
			 out))
		return ERROR_BAD_EXE_FORMAT;
	return ERROR_SUCCESS;
}

/* --- the reading state ---------------------------------------------------- */

/* An id's message table entry, or an item's offset in the manifest. */
struct wevt_key {
	uint32_t key;
	uint32_t at;
};

struct wevt_ctx {
	struct etw_manifest *m;
	struct wevt_view crim;
	struct wevt_view msgs;		/* the message table; empty: none */
	struct wevt_key *msg_index;	/* its entries by id */
	size_t nmsgs;
	uint64_t budget;		/* bytes of text still allowed */
	uint32_t used[WEVT_MAX_PROVIDERS * 8];	/* elements read so far */
	uint32_t nused;
};

static int wevt_key_cmp(const void *a, const void *b)
{
	const struct wevt_key *x = a, *y = b;

	return x->key < y->key ? -1 : x->key > y->key;
}

static const struct wevt_key *wevt_key_find(const struct wevt_key *v,
					    size_t n, uint32_t key)
{
	struct wevt_key k = { key, 0 };

	return n ? bsearch(&k, v, n, sizeof(*v), wevt_key_cmp) : NULL;
}

/* @units UTF-16LE units at @le, to the first NUL, as a manifest string. */
static ULONG wevt_keep_utf16(struct wevt_ctx *c, const uint8_t *le,
			     size_t units, char **out)
{
	size_t n = 0;
	char *s;

	while (n < units && (le[2 * n] || le[2 * n + 1]))
		n++;
	if (2 * n > c->budget)
		return ERROR_FILE_CORRUPT;
	c->budget -= 2 * n;
	s = etw_etl_utf16_to_utf8(le, n);
	if (!s)
		return ERROR_NOT_ENOUGH_MEMORY;
	*out = etw_manifest_strdup(c->m, s);
	free(s);
	return *out ? ERROR_SUCCESS : ERROR_NOT_ENOUGH_MEMORY;
}

/*
 * A CRIM string: a 32-bit size (itself included) then UTF-16LE text;
 * NULL for offset 0.
 */
static ULONG wevt_string(struct wevt_ctx *c, uint32_t off, char **out)
{
	uint32_t size;

	*out = NULL;
	if (!off)
		return ERROR_SUCCESS;
	if (!wevt_has(&c->crim, off, 4))
		return ERROR_FILE_CORRUPT;
	size = wevt_le32(c->crim.p + off);
	if (size < 4 || size > WEVT_MAX_STRING ||
	    !wevt_has(&c->crim, off, size))
		return ERROR_FILE_CORRUPT;
	return wevt_keep_utf16(c, c->crim.p + off + 4, (size - 4) / 2, out);
}

/* --- the message table ---------------------------------------------------- */

/* Every entry of the message table, indexed by id for wevt_message(). */
static ULONG wevt_messages_index(struct wevt_ctx *c)
{
	const struct wevt_view *t = &c->msgs;
	uint32_t nblocks, b, lo, hi, id, len;
	uint64_t total = 0, pos;
	const uint8_t *blk;

	if (!t->len)
		return ERROR_SUCCESS;
	if (!wevt_has(t, 0, 4))
		return ERROR_FILE_CORRUPT;
	nblocks = wevt_le32(t->p);
	if (!wevt_has(t, 4, 12ull * nblocks))
		return ERROR_FILE_CORRUPT;
	/* Each entry is 4 bytes at least: the ids are bounded by the size. */
	for (b = 0; b < nblocks; b++) {
		blk = t->p + 4 + 12 * b;
		lo = wevt_le32(blk);
		hi = wevt_le32(blk + 4);
		total += (uint64_t)hi - lo + 1;
		if (hi < lo || total > t->len / 4)
			return ERROR_FILE_CORRUPT;
	}
	c->msg_index = calloc(total ? total : 1, sizeof(*c->msg_index));
	if (!c->msg_index)
		return ERROR_NOT_ENOUGH_MEMORY;
	for (b = 0; b < nblocks; b++) {
		blk = t->p + 4 + 12 * b;
		pos = wevt_le32(blk + 8);
		for (id = wevt_le32(blk);; id++) {
			if (!wevt_has(t, pos, 4))
				return ERROR_FILE_CORRUPT;
			len = wevt_le16(t->p + pos);
			if (len < 4 || !wevt_has(t, pos, len))
				return ERROR_FILE_CORRUPT;
			c->msg_index[c->nmsgs].key = id;
			c->msg_index[c->nmsgs++].at = (uint32_t)pos;
			pos += len;
			if (id == wevt_le32(blk + 4))
				break;
		}
	}
	qsort(c->msg_index, c->nmsgs, sizeof(*c->msg_index), wevt_key_cmp);
	return ERROR_SUCCESS;
}

/* The text without the line ends a message table's strings end with. */
static void wevt_chomp(char *s)
{
	size_t n = strlen(s);

	while (n && (s[n - 1] == '\n' || s[n - 1] == '\r'))
		s[--n] = 0;
}

/*
 * Message @id's text; NULL when @id is none or the table has no such
 * entry.  Flags bit 0 is UTF-16LE; otherwise each byte is one character.
 */
static ULONG wevt_message(struct wevt_ctx *c, uint32_t id, char **out)
{
	const struct wevt_key *k = wevt_key_find(c->msg_index, c->nmsgs, id);
	const uint8_t *e;
	uint8_t *wide;
	size_t n, i;
	ULONG ret;

	*out = NULL;
	if (id == WEVT_NO_MESSAGE || !k)
		return ERROR_SUCCESS;
	e = c->msgs.p + k->at;
	n = wevt_le16(e) - 4;
	if (wevt_le16(e + 2) & 1) {
		ret = wevt_keep_utf16(c, e + 4, n / 2, out);
	} else {
		wide = malloc(2 * n + 1);
		if (!wide)
			return ERROR_NOT_ENOUGH_MEMORY;
		for (i = 0; i < n; i++) {
			wide[2 * i] = e[4 + i];
			wide[2 * i + 1] = 0;
		}
		ret = wevt_keep_utf16(c, wide, n, out);
		free(wide);
	}
	if (!ret)
		wevt_chomp(*out);
	return ret;
}

/* --- the provider's elements ---------------------------------------------- */

enum wevt_elem {
	WEVT_KEYW, WEVT_LEVL, WEVT_OPCO, WEVT_CHAN, WEVT_TASK, WEVT_MAPS,
	WEVT_TTBL, WEVT_EVNT, WEVT_NELEMS,
};

/* In the order later ones refer to earlier ones. */
static const char wevt_sig[WEVT_NELEMS][4] = {
	"KEYW", "LEVL", "OPCO", "CHAN", "TASK", "MAPS", "TTBL", "EVNT",
};

/* An element holding a list: its first entry and their number. */
struct wevt_list {
	uint32_t first;
	uint32_t n;
	uint32_t entry;		/* bytes of each */
};

/* A provider being read: where its elements are, and their indexes. */
struct wevt_prov {
	uint32_t elem[WEVT_NELEMS];	/* CRIM offsets; 0: absent */
	struct wevt_list levels, opcodes, tasks;
	const struct etw_mf_item *channel_of[256];
	struct wevt_key *maps;		/* map offset: index in p->maps */
	struct wevt_key *tmpls;		/* TEMP offset: index in p->tmpls */
	uint32_t nmaps;
};

/* The size of element @off, checked to be inside the CRIM. */
static ULONG wevt_elem_size(const struct wevt_ctx *c, uint32_t off,
			    uint32_t *size)
{
	if (!wevt_has(&c->crim, off, 8))
		return ERROR_FILE_CORRUPT;
	*size = wevt_le32(c->crim.p + off + 4);
	return *size >= 8 && wevt_has(&c->crim, off, *size) ?
		       ERROR_SUCCESS : ERROR_FILE_CORRUPT;
}

/*
 * The size of element @off (MAPS, TTBL) and its count @n: a 12-byte
 * header (signature, size, count), then @n entries that take @least bytes
 * each at least, all inside the element.
 */
static ULONG wevt_counted(const struct wevt_ctx *c, uint32_t off,
			  uint32_t least, uint32_t *size, uint32_t *n)
{
	ULONG ret = wevt_elem_size(c, off, size);

	if (ret || *size < 12)
		return ret ? ret : ERROR_FILE_CORRUPT;
	*n = wevt_le32(c->crim.p + off + 8);
	return (uint64_t)12 + (uint64_t)least * *n <= *size ?
		       ERROR_SUCCESS : ERROR_FILE_CORRUPT;
}

/*
 * The entries of list element @off: @hdr bytes of header then @entry
 * bytes each.  An absent element, or one of size 0, is an empty list.
 */
static ULONG wevt_list(const struct wevt_ctx *c, uint32_t off, uint32_t hdr,
		       uint32_t entry, struct wevt_list *l)
{
	uint32_t size;
	ULONG ret;

	memset(l, 0, sizeof(*l));
	l->entry = entry;
	if (!off || (wevt_has(&c->crim, off, 8) &&
		     !wevt_le32(c->crim.p + off + 4)))
		return ERROR_SUCCESS;
	ret = wevt_elem_size(c, off, &size);
	if (ret)
		return ret;
	if (size < hdr)
		return ERROR_FILE_CORRUPT;
	l->n = wevt_le32(c->crim.p + off + 8);
	l->first = off + hdr;
	return (uint64_t)hdr + (uint64_t)entry * l->n <= size ?
		       ERROR_SUCCESS : ERROR_FILE_CORRUPT;
}

/* Item @i of @l as the definition at @def (an event's reference). */
static ULONG wevt_ref(const struct wevt_list *l,
		      const struct etw_mf_list *items, uint32_t def,
		      const struct etw_mf_item **out)
{
	uint32_t i;

	*out = NULL;
	if (!def)
		return ERROR_SUCCESS;
	if (def < l->first || (def - l->first) % l->entry)
		return ERROR_FILE_CORRUPT;
	i = (def - l->first) / l->entry;
	if (i >= l->n)
		return ERROR_FILE_CORRUPT;
	*out = &items->v[i];
	return ERROR_SUCCESS;
}

/* An item's name (the string at @name) and text (message @msg). */
static ULONG wevt_item(struct wevt_ctx *c, struct etw_mf_item *it,
		       uint64_t value, uint32_t name, uint32_t msg)
{
	ULONG ret = wevt_string(c, name, &it->name);

	if (!ret)
		ret = wevt_message(c, msg, &it->desc);
	it->value = value;
	it->label = it->name;
	it->text = it->desc ? it->desc : it->name;
	return ret;
}

static ULONG wevt_items_alloc(struct etw_mf_list *items, uint32_t n)
{
	items->v = calloc(n ? n : 1, sizeof(*items->v));
	items->n = n;
	return items->v ? ERROR_SUCCESS : ERROR_NOT_ENOUGH_MEMORY;
}

/*
 * The keyword, level, opcode, channel or task list @which: one item per
 * entry, in their order (an event refers to the entry by offset).
 */
static ULONG wevt_items(struct wevt_ctx *c, struct wevt_prov *w,
			struct etw_mf_provider *p, enum wevt_elem which)
{
	static const uint32_t entry[] = {
		[WEVT_KEYW] = 16, [WEVT_LEVL] = 12, [WEVT_OPCO] = 12,
		[WEVT_CHAN] = 16, [WEVT_TASK] = 28,
	};
	struct etw_mf_list *items[] = {
		[WEVT_KEYW] = &p->keywords, [WEVT_LEVL] = &p->levels,
		[WEVT_OPCO] = &p->opcodes, [WEVT_CHAN] = &p->channels,
		[WEVT_TASK] = &p->tasks,
	};
	struct wevt_list l;
	const uint8_t *e;
	uint32_t i, id;
	ULONG ret = wevt_list(c, w->elem[which], 12, entry[which], &l);

	if (!ret)
		ret = wevt_items_alloc(items[which], l.n);
	for (i = 0; !ret && i < l.n; i++) {
		struct etw_mf_item *it = &items[which]->v[i];

		e = c->crim.p + l.first + (size_t)l.entry * i;
		id = wevt_le32(e);
		switch (which) {
		case WEVT_KEYW:
			ret = wevt_item(c, it, wevt_le64(e), wevt_le32(e + 12),
					wevt_le32(e + 8));
			break;
		case WEVT_LEVL:
			ret = id > 0xff ? ERROR_FILE_CORRUPT :
			      wevt_item(c, it, id, wevt_le32(e + 8),
					wevt_le32(e + 4));
			break;
		case WEVT_OPCO:
			it->task = (uint16_t)id;
			ret = id >> 16 > 0xff ? ERROR_FILE_CORRUPT :
			      wevt_item(c, it, id >> 16, wevt_le32(e + 8),
					wevt_le32(e + 4));
			break;
		case WEVT_CHAN:
			ret = id > 0xff ? ERROR_FILE_CORRUPT :
			      wevt_item(c, it, id, wevt_le32(e + 4),
					wevt_le32(e + 12));
			if (!ret && !w->channel_of[id])
				w->channel_of[id] = it;
			break;
		default:
			ret = id > 0xffff ? ERROR_FILE_CORRUPT :
			      wevt_item(c, it, id, wevt_le32(e + 24),
					wevt_le32(e + 4));
			break;
		}
	}
	if (which == WEVT_LEVL)
		w->levels = l;
	else if (which == WEVT_OPCO)
		w->opcodes = l;
	else if (which == WEVT_TASK)
		w->tasks = l;
	return ret;
}

/*
 * The CRIM offset of map @i of the MAPS element at @off: one offset per
 * map after the header, in no particular order (omerbenamram/evtx reads
 * real providers' MAPS so; libfwevt's document has one offset fewer).
 */
static uint32_t wevt_map_at(const struct wevt_ctx *c, uint32_t off,
			    uint32_t i)
{
	return wevt_le32(c->crim.p + off + 12 + 4 * i);
}

/* A VMAP or BMAP at @at, of at most @room bytes. */
static ULONG wevt_map(struct wevt_ctx *c, uint32_t at, uint64_t room,
		      struct etw_mf_map *m)
{
	const uint8_t *d = c->crim.p + at;
	uint32_t i, n, size;
	ULONG ret;

	if (room < 16)
		return ERROR_FILE_CORRUPT;
	size = wevt_le32(d + 4);
	n = wevt_le32(d + 12);
	if (size < 16 || size > room || (uint64_t)16 + 8ull * n > size)
		return ERROR_FILE_CORRUPT;
	if (!memcmp(d, "VMAP", 4))
		m->flag = EVENTMAP_INFO_FLAG_MANIFEST_VALUEMAP;
	else if (!memcmp(d, "BMAP", 4))
		m->flag = EVENTMAP_INFO_FLAG_MANIFEST_BITMAP;
	else
		return ERROR_FILE_CORRUPT;
	ret = wevt_string(c, wevt_le32(d + 8), &m->name);
	if (ret || !m->name)
		return ret ? ret : ERROR_FILE_CORRUPT;
	m->e = calloc(n ? n : 1, sizeof(*m->e));
	if (!m->e)
		return ERROR_NOT_ENOUGH_MEMORY;
	m->n = n;
	for (i = 0; i < n && !ret; i++) {
		m->e[i].value = wevt_le32(d + 16 + 8 * i);
		ret = wevt_message(c, wevt_le32(d + 20 + 8 * i), &m->e[i].text);
		if (!ret && !m->e[i].text)
			m->e[i].text = etw_manifest_strdup(c->m, "");
		if (!ret && !m->e[i].text)
			ret = ERROR_NOT_ENOUGH_MEMORY;
	}
	return ret;
}

/* The maps, by offset: each inside MAPS, none overlapping another. */
static ULONG wevt_maps(struct wevt_ctx *c, struct wevt_prov *w,
		       struct etw_mf_provider *p)
{
	uint32_t off = w->elem[WEVT_MAPS], size, n, i, at, msize;
	ULONG ret;

	if (!off)
		return ERROR_SUCCESS;
	/* Each map takes 4 bytes of offset and 16 of header at least. */
	ret = wevt_counted(c, off, 20, &size, &n);
	if (ret || !n)
		return ret;
	p->maps = calloc(n, sizeof(*p->maps));
	w->maps = calloc(n, sizeof(*w->maps));
	if (!p->maps || !w->maps)
		return ERROR_NOT_ENOUGH_MEMORY;
	p->nmaps = w->nmaps = n;
	for (i = 0; i < n; i++) {
		at = wevt_map_at(c, off, i);
		if (at < off || at - off > size)
			return ERROR_FILE_CORRUPT;
		ret = wevt_map(c, at, size - (at - off), &p->maps[i]);
		if (ret)
			return ret;
		w->maps[i].key = at;
		w->maps[i].at = i;
	}
	qsort(w->maps, n, sizeof(*w->maps), wevt_key_cmp);
	for (i = 0; i + 1 < n; i++) {
		msize = wevt_le32(c->crim.p + w->maps[i].key + 4);
		if ((uint64_t)w->maps[i].key + msize > w->maps[i + 1].key)
			return ERROR_FILE_CORRUPT;
	}
	return ERROR_SUCCESS;
}

/* --- templates ------------------------------------------------------------ */

#define WEVT_PROP_FLAGS	(PropertyStruct | PropertyParamLength | \
			 PropertyParamCount | PropertyParamFixedLength | \
			 PropertyParamFixedCount)

static const struct etw_mf_map *wevt_map_of(const struct wevt_prov *w,
					    const struct etw_mf_provider *p,
					    uint32_t off)
{
	const struct wevt_key *k = wevt_key_find(w->maps, w->nmaps, off);

	return k ? &p->maps[k->at] : NULL;
}

/*
 * A TEMP item (20 bytes at @d): PROPERTY_FLAGS, InType and OutType
 * bytes, 2 reserved, the map's offset (a struct: its first member and
 * number of members, 16 bits each), count, length, the name's offset.
 */
static ULONG wevt_prop(struct wevt_ctx *c, const struct wevt_prov *w,
		       const struct etw_mf_provider *p, const uint8_t *d,
		       struct etw_mf_prop *pr)
{
	EVENT_PROPERTY_INFO *epi = &pr->epi;
	uint32_t map = wevt_le32(d + 8);
	ULONG ret = wevt_string(c, wevt_le32(d + 16), &pr->name);

	if (ret || !pr->name)
		return ret ? ret : ERROR_FILE_CORRUPT;
	epi->Flags = wevt_le32(d) & WEVT_PROP_FLAGS;
	epi->count = wevt_le16(d + 12);
	if (epi->Flags & PropertyParamCount)
		epi->Flags &= ~PropertyParamFixedCount;
	else if (epi->count != 1)
		epi->Flags |= PropertyParamFixedCount;
	if (epi->Flags & PropertyStruct) {
		epi->Flags &= PropertyStruct | PropertyParamCount |
			      PropertyParamFixedCount;
		epi->structType.StructStartIndex = wevt_le16(d + 8);
		epi->structType.NumOfStructMembers = wevt_le16(d + 10);
		return ERROR_SUCCESS;
	}
	epi->nonStructType.InType = d[4];
	epi->nonStructType.OutType = d[5];
	if (!etw_mf_in_type_known(d[4]) || !etw_mf_out_type_known(d[5]))
		return ERROR_FILE_CORRUPT;
	epi->length = wevt_le16(d + 14);
	if (epi->Flags & PropertyParamLength)
		epi->Flags &= ~PropertyParamFixedLength;
	else if (epi->length)
		epi->Flags |= PropertyParamFixedLength;
	pr->map = map ? wevt_map_of(w, p, map) : NULL;
	return map && !pr->map ? ERROR_FILE_CORRUPT : ERROR_SUCCESS;
}

/* Whether the count or length of @i, property @j, can be one. */
static bool wevt_param_ok(const struct etw_mf_template *t,
			  const uint32_t *parent, uint32_t i, uint32_t j)
{
	USHORT in;

	if (j >= i || parent[j] != parent[i] ||
	    t->p[j].epi.Flags & PropertyStruct)
		return false;
	in = t->p[j].epi.nonStructType.InType;
	return in == TDH_INTYPE_UINT8 || in == TDH_INTYPE_UINT16 ||
	       in == TDH_INTYPE_UINT32;
}

/*
 * The shape TDH's walkers rely on, as the XML reader makes it: top-level
 * properties first, then each struct's members (no struct among them,
 * each in one struct); a count or length names an unsigned integer
 * before it at the same level.
 */
static ULONG wevt_tmpl_shape(struct etw_mf_template *t, uint32_t *parent)
{
	const EVENT_PROPERTY_INFO *epi;
	uint32_t i, k, top = t->n, start, end;

	for (i = 0; i < t->n; i++) {
		parent[i] = UINT32_MAX;
		if (t->p[i].epi.Flags & PropertyStruct &&
		    t->p[i].epi.structType.StructStartIndex < top)
			top = t->p[i].epi.structType.StructStartIndex;
	}
	for (i = 0; i < t->n; i++) {
		epi = &t->p[i].epi;
		if (!(epi->Flags & PropertyStruct))
			continue;
		start = epi->structType.StructStartIndex;
		end = start + epi->structType.NumOfStructMembers;
		if (i >= top || start == end || end > t->n)
			return ERROR_FILE_CORRUPT;
		for (k = start; k < end; k++) {
			if (parent[k] != UINT32_MAX ||
			    t->p[k].epi.Flags & PropertyStruct)
				return ERROR_FILE_CORRUPT;
			parent[k] = i;
		}
	}
	for (i = 0; i < t->n; i++) {
		epi = &t->p[i].epi;
		if ((i >= top && parent[i] == UINT32_MAX) ||
		    (epi->Flags & PropertyParamCount &&
		     !wevt_param_ok(t, parent, i, epi->countPropertyIndex)) ||
		    (epi->Flags & PropertyParamLength &&
		     !wevt_param_ok(t, parent, i, epi->lengthPropertyIndex)))
			return ERROR_FILE_CORRUPT;
	}
	t->top = top;
	return ERROR_SUCCESS;
}

static ULONG wevt_guid_text(struct wevt_ctx *c, const uint8_t *g, char **out)
{
	char s[40];

	snprintf(s, sizeof(s),
		 "{%08x-%04x-%04x-%02x%02x-%02x%02x%02x%02x%02x%02x}",
		 wevt_le32(g), wevt_le16(g + 4), wevt_le16(g + 6), g[8], g[9],
		 g[10], g[11], g[12], g[13], g[14], g[15]);
	*out = etw_manifest_strdup(c->m, s);
	return *out ? ERROR_SUCCESS : ERROR_NOT_ENOUGH_MEMORY;
}

/*
 * The TEMP at @off of @size bytes: count and offset of its items (which
 * must lie in it), its GUID (the tid), then BinXML, which TDH needs not.
 */
static ULONG wevt_template(struct wevt_ctx *c, const struct wevt_prov *w,
			   const struct etw_mf_provider *p, uint32_t off,
			   uint32_t size, struct etw_mf_template *t)
{
	const uint8_t *d = c->crim.p + off;
	uint32_t n = wevt_le32(d + 8), items = wevt_le32(d + 16), i;
	uint32_t *parent;
	ULONG ret = wevt_guid_text(c, d + 24, &t->tid);

	if (ret || !n)
		return ret;
	if (n > 0xffff || items < (uint64_t)off + 40 ||
	    (uint64_t)items + 20ull * n > (uint64_t)off + size)
		return ERROR_FILE_CORRUPT;
	t->p = calloc(n, sizeof(*t->p));
	parent = malloc(n * sizeof(*parent));
	if (!t->p || !parent) {
		free(parent);
		return ERROR_NOT_ENOUGH_MEMORY;
	}
	t->n = n;
	for (i = 0; i < n && !ret; i++)
		ret = wevt_prop(c, w, p, c->crim.p + items + 20 * i, &t->p[i]);
	if (!ret)
		ret = wevt_tmpl_shape(t, parent);
	free(parent);
	return ret;
}

/* TTBL: its TEMPs one after another, each inside it. */
static ULONG wevt_templates(struct wevt_ctx *c, struct wevt_prov *w,
			    struct etw_mf_provider *p)
{
	uint32_t off = w->elem[WEVT_TTBL], size, n, i, tsize;
	uint64_t pos;
	ULONG ret;

	if (!off)
		return ERROR_SUCCESS;
	/* Each TEMP takes its 40-byte header at least. */
	ret = wevt_counted(c, off, 40, &size, &n);
	if (ret)
		return ret;
	p->tmpls = calloc(n ? n : 1, sizeof(*p->tmpls));
	w->tmpls = calloc(n ? n : 1, sizeof(*w->tmpls));
	if (!p->tmpls || !w->tmpls)
		return ERROR_NOT_ENOUGH_MEMORY;
	p->ntmpls = n;
	for (i = 0, pos = (uint64_t)off + 12; i < n; i++, pos += tsize) {
		if (pos + 40 > (uint64_t)off + size ||
		    memcmp(c->crim.p + pos, "TEMP", 4))
			return ERROR_FILE_CORRUPT;
		tsize = wevt_le32(c->crim.p + pos + 4);
		if (tsize < 40 || pos + tsize > (uint64_t)off + size)
			return ERROR_FILE_CORRUPT;
		ret = wevt_template(c, w, p, (uint32_t)pos, tsize,
				    &p->tmpls[i]);
		if (ret)
			return ret;
		w->tmpls[i].key = (uint32_t)pos;
		w->tmpls[i].at = i;
	}
	/* Consecutive: the offsets are sorted already. */
	return ERROR_SUCCESS;
}

/* --- events and providers ------------------------------------------------- */

/*
 * An EVNT entry (48 bytes at @d): the EVENT_DESCRIPTOR's fields, the
 * message id, then the offsets of its template, opcode, level and task
 * definitions (0: none).  A level or opcode without one is winmeta's.
 */
static ULONG wevt_event(struct wevt_ctx *c, const struct wevt_prov *w,
			const struct etw_mf_provider *p, const uint8_t *d,
			struct etw_mf_event *e)
{
	uint32_t tmpl = wevt_le32(d + 20);
	const struct wevt_key *k;
	ULONG ret;

	e->desc.Id = wevt_le16(d);
	e->desc.Version = d[2];
	e->desc.Channel = d[3];
	e->desc.Level = d[4];
	e->desc.Opcode = d[5];
	e->desc.Task = wevt_le16(d + 6);
	e->desc.Keyword = wevt_le64(d + 8);
	e->channel = w->channel_of[e->desc.Channel];
	ret = wevt_message(c, wevt_le32(d + 16), &e->message);
	if (!ret)
		ret = wevt_ref(&w->opcodes, &p->opcodes, wevt_le32(d + 24),
			       &e->opcode);
	if (!ret)
		ret = wevt_ref(&w->levels, &p->levels, wevt_le32(d + 28),
			       &e->level);
	if (!ret)
		ret = wevt_ref(&w->tasks, &p->tasks, wevt_le32(d + 32),
			       &e->task);
	if (ret)
		return ret;
	if (!e->level)
		e->level = etw_mf_winmeta_level(e->desc.Level);
	if (!e->opcode)
		e->opcode = etw_mf_winmeta_opcode(e->desc.Opcode);
	if (!tmpl)
		return ERROR_SUCCESS;
	k = wevt_key_find(w->tmpls, p->ntmpls, tmpl);
	if (!k)
		return ERROR_FILE_CORRUPT;
	e->tmpl = &p->tmpls[k->at];
	return ERROR_SUCCESS;
}

/* EVNT; two events of one Id and Version: TDH finds the first. */
static ULONG wevt_events(struct wevt_ctx *c, const struct wevt_prov *w,
			 struct etw_mf_provider *p)
{
	struct wevt_list l;
	uint32_t i;
	ULONG ret = wevt_list(c, w->elem[WEVT_EVNT], 16, 48, &l);

	if (ret)
		return ret;
	p->events = calloc(l.n ? l.n : 1, sizeof(*p->events));
	if (!p->events)
		return ERROR_NOT_ENOUGH_MEMORY;
	p->nevents = l.n;
	for (i = 0; i < l.n && !ret; i++)
		ret = wevt_event(c, w, p, c->crim.p + l.first + 48 * i,
				 &p->events[i]);
	return ret;
}

/* Element @off as one of provider @w's, never one another has. */
static ULONG wevt_claim(struct wevt_ctx *c, struct wevt_prov *w,
			uint32_t off)
{
	uint32_t i;
	int k;

	if (!wevt_has(&c->crim, off, 4))
		return ERROR_FILE_CORRUPT;
	for (k = 0; k < WEVT_NELEMS; k++)
		if (!memcmp(c->crim.p + off, wevt_sig[k], 4))
			break;
	/* PRVA and the others TDH needs not. */
	if (k == WEVT_NELEMS)
		return ERROR_SUCCESS;
	for (i = 0; i < c->nused; i++)
		if (c->used[i] == off)
			return ERROR_FILE_CORRUPT;
	if (w->elem[k])
		return ERROR_FILE_CORRUPT;
	c->used[c->nused++] = off;
	w->elem[k] = off;
	return ERROR_SUCCESS;
}

/*
 * The WEVT at @off: its message id, then its elements' descriptors
 * (offset, and 32 bits TDH needs not).
 */
static ULONG wevt_provider_body(struct wevt_ctx *c, struct wevt_prov *w,
				struct etw_mf_provider *p, uint32_t off)
{
	const uint8_t *d;
	uint32_t n, i;
	ULONG ret;

	if (!wevt_has(&c->crim, off, 20) || memcmp(c->crim.p + off, "WEVT", 4))
		return ERROR_FILE_CORRUPT;
	d = c->crim.p + off;
	n = wevt_le32(d + 12);
	if (!wevt_has(&c->crim, (uint64_t)off + 20, 8ull * n))
		return ERROR_FILE_CORRUPT;
	ret = wevt_message(c, wevt_le32(d + 8), &p->message);
	for (i = 0; i < n && !ret; i++)
		ret = wevt_claim(c, w, wevt_le32(d + 20 + 8 * i));
	if (!ret)
		ret = wevt_items(c, w, p, WEVT_KEYW);
	if (!ret)
		ret = wevt_items(c, w, p, WEVT_LEVL);
	if (!ret)
		ret = wevt_items(c, w, p, WEVT_OPCO);
	if (!ret)
		ret = wevt_items(c, w, p, WEVT_CHAN);
	if (!ret)
		ret = wevt_items(c, w, p, WEVT_TASK);
	if (!ret)
		ret = wevt_maps(c, w, p);
	if (!ret)
		ret = wevt_templates(c, w, p);
	if (!ret)
		ret = wevt_events(c, w, p);
	return ret;
}

/*
 * Provider @i of the CRIM: its GUID and the offset of its WEVT.  Its
 * name is its message's text, else its GUID: the CRIM holds no other.
 */
static ULONG wevt_provider(struct wevt_ctx *c, uint32_t i)
{
	const uint8_t *d = c->crim.p + 16 + 20 * i;
	struct etw_mf_provider *p = &c->m->prov[i];
	struct wevt_prov w;
	uint32_t j;
	ULONG ret;

	memset(&w, 0, sizeof(w));
	p->guid.Data1 = wevt_le32(d);
	p->guid.Data2 = wevt_le16(d + 4);
	p->guid.Data3 = wevt_le16(d + 6);
	memcpy(p->guid.Data4, d + 8, 8);
	for (j = 0; j < i; j++)
		if (!memcmp(&c->m->prov[j].guid, &p->guid, sizeof(GUID)))
			return ERROR_FILE_CORRUPT;
	ret = wevt_provider_body(c, &w, p, wevt_le32(d + 16));
	if (!ret)
		p->name = p->message;
	if (!ret && !p->name)
		ret = wevt_guid_text(c, d, &p->name);
	free(w.maps);
	free(w.tmpls);
	return ret;
}

/* The CRIM header: its size, version, then the providers' entries. */
static ULONG wevt_crim(struct wevt_ctx *c)
{
	uint32_t size, n, i;
	ULONG ret = ERROR_SUCCESS;

	if (!wevt_has(&c->crim, 0, 16) || memcmp(c->crim.p, "CRIM", 4))
		return ERROR_FILE_CORRUPT;
	size = wevt_le32(c->crim.p + 4);
	n = wevt_le32(c->crim.p + 12);
	if (size < 16 || size > c->crim.len)
		return ERROR_FILE_CORRUPT;
	c->crim.len = size;
	if (!n || n > WEVT_MAX_PROVIDERS || !wevt_has(&c->crim, 16, 20ull * n))
		return ERROR_FILE_CORRUPT;
	c->m->prov = calloc(n, sizeof(*c->m->prov));
	if (!c->m->prov)
		return ERROR_NOT_ENOUGH_MEMORY;
	for (i = 0; i < n && !ret; i++) {
		c->m->nprov = i + 1;
		ret = wevt_provider(c, i);
	}
	return ret;
}

/* The manifest of the PE file @image. */
static ULONG wevt_parse(const uint8_t *image, size_t len,
			struct etw_manifest **out)
{
	struct wevt_pe pe = { .file = { image, len } };
	struct wevt_ctx *c;
	ULONG ret;

	*out = NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return ERROR_NOT_ENOUGH_MEMORY;
	ret = wevt_pe_open(&pe);
	if (!ret)
		ret = wevt_resource(&pe, UINT32_MAX, "WEVT_TEMPLATE", &c->crim);
	if (!ret) {
		ret = wevt_resource(&pe, WEVT_RT_MESSAGETABLE, NULL, &c->msgs);
		if (ret == ERROR_RESOURCE_NOT_FOUND)
			ret = ERROR_SUCCESS;
	}
	if (!ret)
		ret = wevt_messages_index(c);
	/* Room for each string read four times over, and some. */
	c->budget = 4 * (uint64_t)len + (1u << 20);
	if (!ret) {
		c->m = calloc(1, sizeof(*c->m));
		ret = c->m ? wevt_crim(c) : ERROR_NOT_ENOUGH_MEMORY;
	}
	if (ret)
		etw_manifest_free(c->m);
	else
		*out = c->m;
	free(c->msg_index);
	free(c);
	return ret;
}

/* The whole of regular file @path, up to WEVT_MAX_FILE bytes. */
static ULONG wevt_read(const char *path, uint8_t **data, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	struct stat st;
	ssize_t n;
	ULONG ret = ERROR_SUCCESS;

	*data = NULL;
	*len = 0;
	if (fd < 0)
		return errno == EACCES ? ERROR_ACCESS_DENIED :
					 ERROR_FILE_NOT_FOUND;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode))
		ret = ERROR_ACCESS_DENIED;
	else if (st.st_size > WEVT_MAX_FILE)
		ret = ERROR_NOT_ENOUGH_MEMORY;
	if (!ret) {
		*data = malloc(st.st_size ? st.st_size : 1);
		if (!*data)
			ret = ERROR_NOT_ENOUGH_MEMORY;
	}
	/*
	 * A read that fails or ends early (the file shrank) leaves what it
	 * read: the parse judges it.
	 */
	while (!ret && *len < (size_t)st.st_size) {
		n = read(fd, *data + *len, st.st_size - *len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		*len += n;
	}
	close(fd);
	return ret;
}

/**
 * etw_wevt_load - reads the compiled manifest of a PE file
 * @path: the file
 * @out: out: the manifest (its path not set), to etw_manifest_free()
 *
 * Context: any thread.
 * Return: ERROR_SUCCESS; ERROR_FILE_NOT_FOUND, ERROR_ACCESS_DENIED (a
 * file that cannot be read, or is no regular file); ERROR_BAD_EXE_FORMAT
 * for no PE file or a bad PE structure; ERROR_RESOURCE_NOT_FOUND without
 * a WEVT_TEMPLATE resource; ERROR_FILE_CORRUPT for a bad CRIM or message
 * table; ERROR_NOT_ENOUGH_MEMORY (also for a file over 256 MiB).
 */
ULONG etw_wevt_load(const char *path, struct etw_manifest **out)
{
	uint8_t *data;
	size_t len;
	ULONG ret = wevt_read(path, &data, &len);

	*out = NULL;
	if (!ret)
		ret = wevt_parse(data, len, out);
	free(data);
	return ret;
}
