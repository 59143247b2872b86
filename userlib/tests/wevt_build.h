/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * A PE file such as mc.exe, rc.exe and link.exe make of a manifest,
 * written from the layouts etw_tdh_wevt.c reads (no Windows binary with
 * a WEVT_TEMPLATE resource is in the test data): a PE32+ header, one
 * .rsrc section holding a WEVT_TEMPLATE resource (the "CRIM" manifest of
 * one provider, described below) and a MESSAGETABLE with its texts.
 * wevt_build() records where each structure is, for the tests that
 * break one; shared by tdh_wevt_test.c and the fuzz target's seeds.
 *
 * The provider: keywords Read (0x1) and Write (0x2); levels
 * win:Informational (4) and Custom (16); opcodes Open (10) and, of task
 * Connect, Handshake (11); channel Sample/Operational (16); task Connect
 * (1); value map ColorMap (0 Red, 1 Green) and bitmap FlagMap (1 Fast,
 * 2 Safe).  Template T1: Name UnicodeString, Count UInt16, Values UInt32
 * [Count], Color UInt32 (ColorMap), Flags HexInt32 (FlagMap), Id GUID,
 * Ratio Double, Small Int8, Blob Binary [4 bytes].  Template T2: Points
 * struct [2] of X, Y Int32, then Tail AnsiString.  Event 1 (version 0):
 * T1, Informational, Open, Read, Sample/Operational.  Event 2 (version
 * 1): T2, Custom, Connect, Handshake, Read and Write.  Event 3: no
 * template, level 2 and opcode 1 with no definitions (winmeta's).
 */
#ifndef _WEVT_BUILD_H
#define _WEVT_BUILD_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define WEVT_BUILD_MAX	8192

/* Bytes being written; every put returns the offset it wrote at. */
struct wevt_buf {
	uint8_t b[WEVT_BUILD_MAX];
	size_t n;
};

static inline size_t wb_put(struct wevt_buf *w, const void *p, size_t n)
{
	size_t at = w->n;

	memcpy(w->b + at, p, n);
	w->n += n;
	return at;
}

static inline void wb_set16(struct wevt_buf *w, size_t at, uint16_t v)
{
	w->b[at] = (uint8_t)v;
	w->b[at + 1] = (uint8_t)(v >> 8);
}

static inline void wb_set32(struct wevt_buf *w, size_t at, uint32_t v)
{
	wb_set16(w, at, (uint16_t)v);
	wb_set16(w, at + 2, (uint16_t)(v >> 16));
}

static inline uint32_t wb_get32(const struct wevt_buf *w, size_t at)
{
	return w->b[at] | w->b[at + 1] << 8 | w->b[at + 2] << 16 |
	       (uint32_t)w->b[at + 3] << 24;
}

static inline size_t wb_zero(struct wevt_buf *w, size_t n)
{
	size_t at = w->n;

	memset(w->b + at, 0, n);
	w->n += n;
	return at;
}

static inline size_t wb_u8(struct wevt_buf *w, uint8_t v)
{
	return wb_put(w, &v, 1);
}

static inline size_t wb_u16(struct wevt_buf *w, uint16_t v)
{
	size_t at = wb_zero(w, 2);

	wb_set16(w, at, v);
	return at;
}

static inline size_t wb_u32(struct wevt_buf *w, uint32_t v)
{
	size_t at = wb_zero(w, 4);

	wb_set32(w, at, v);
	return at;
}

static inline size_t wb_u64(struct wevt_buf *w, uint64_t v)
{
	size_t at = wb_u32(w, (uint32_t)v);

	wb_u32(w, (uint32_t)(v >> 32));
	return at;
}

static inline void wb_align(struct wevt_buf *w, size_t a)
{
	while (w->n % a)
		w->b[w->n++] = 0;
}

/* ASCII @s as UTF-16LE, with its NUL when @nul. */
static inline size_t wb_wide(struct wevt_buf *w, const char *s, int nul)
{
	size_t at = w->n;

	for (; *s; s++)
		wb_u16(w, (uint8_t)*s);
	if (nul)
		wb_u16(w, 0);
	return at;
}

/* A CRIM string: its size (itself included), UTF-16LE and a NUL. */
static inline size_t wb_string(struct wevt_buf *w, const char *s)
{
	size_t at = wb_u32(w, (uint32_t)(4 + 2 * (strlen(s) + 1)));

	wb_wide(w, s, 1);
	wb_align(w, 4);
	return at;
}

/* Where wevt_build() put each structure: offsets in @crim or @file. */
struct wevt_image {
	struct wevt_buf crim, msgs, file;
	size_t prov_count, prov_entry, wevt, wevt_descs;
	size_t keyw, levl, levl_entry, opco, opco_entry, chan, task;
	size_t task_entry, maps, vmap, bmap, ttbl, temp1, temp1_items;
	size_t temp2, temp2_items, evnt, evnt_entry;
	size_t msg_blocks, msg_first;
	/* In @file: */
	size_t pe, opt, section, rsrc, root, type_entry, type_name;
	size_t wevt_data, msgs_data, crim_at, msgs_at;
};

#define WEVT_GUID \
	"\x78\x56\x34\x12\xcd\xab\xef\x0e\x01\x23\x45\x67\x89\xab\xcd\xef"
#define WEVT_NONE	0xffffffffu

/* The message table: each message a block of its own, as UTF-16. */
static const struct { uint32_t id; const char *text; } wevt_messages[] = {
	{ 100, "Sample Provider\r\n" }, { 201, "Read" }, { 202, "Write" },
	{ 301, "Information" }, { 302, "Custom level" },
	{ 401, "Open op" }, { 402, "Handshake op" }, { 501, "Operational" },
	{ 601, "Connect task" }, { 701, "Red" }, { 702, "Green" },
	{ 703, "Fast" }, { 704, "Safe" }, { 801, "Event one %1\r\n" },
	{ 802, "Event two %1" },
};

static inline void wevt_build_messages(struct wevt_image *im)
{
	struct wevt_buf *w = &im->msgs;
	size_t n = sizeof(wevt_messages) / sizeof(wevt_messages[0]), i;
	size_t len, at;

	wb_u32(w, (uint32_t)n);
	im->msg_blocks = w->n;
	for (i = 0; i < n; i++) {
		wb_u32(w, wevt_messages[i].id);
		wb_u32(w, wevt_messages[i].id);
		wb_u32(w, 0);
	}
	for (i = 0; i < n; i++) {
		wb_set32(w, im->msg_blocks + 12 * i + 8, (uint32_t)w->n);
		if (!i)
			im->msg_first = w->n;
		len = 4 + 2 * (strlen(wevt_messages[i].text) + 1);
		len = (len + 3) & ~(size_t)3;
		at = wb_u16(w, (uint16_t)len);
		wb_u16(w, 1);
		wb_wide(w, wevt_messages[i].text, 1);
		while (w->n < at + len)
			wb_u8(w, 0);
	}
}

/* A list element's header; its size is set by wevt_end(). */
static inline size_t wevt_begin(struct wevt_buf *w, const char *sig,
				uint32_t n)
{
	size_t at = wb_put(w, sig, 4);

	wb_u32(w, 0);
	wb_u32(w, n);
	return at;
}

static inline void wevt_end(struct wevt_buf *w, size_t at)
{
	wb_set32(w, at + 4, (uint32_t)(w->n - at));
}

/* Entries @i of element @at, each @entry bytes after a @hdr header. */
#define WEVT_ENTRY(at, hdr, entry, i)	((at) + (hdr) + (entry) * (i))

static inline void wevt_build_keywords(struct wevt_image *im)
{
	struct wevt_buf *w = &im->crim;
	size_t e;

	im->keyw = wevt_begin(w, "KEYW", 2);
	e = wb_zero(w, 32);
	wb_set32(w, e, 0x1);
	wb_set32(w, e + 8, 201);
	wb_set32(w, e + 12, (uint32_t)wb_string(w, "ReadKeyword"));
	wb_set32(w, e + 16, 0x2);
	wb_set32(w, e + 24, 202);
	wb_set32(w, e + 28, (uint32_t)wb_string(w, "WriteKeyword"));
	wevt_end(w, im->keyw);
}

/* A LEVL, OPCO or CHAN entry list: id, message, name (CHAN: id, name). */
static inline size_t wevt_build_ids(struct wevt_image *im, const char *sig,
				    const uint32_t *id, const uint32_t *msg,
				    const char *const *name, int n)
{
	struct wevt_buf *w = &im->crim;
	int chan = !memcmp(sig, "CHAN", 4), i;
	size_t entry = chan ? 16 : 12;
	size_t at = wevt_begin(w, sig, (uint32_t)n), e = wb_zero(w, entry * n);

	for (i = 0; i < n; i++, e += entry) {
		wb_set32(w, e, id[i]);
		wb_set32(w, e + (chan ? 12 : 4), msg[i]);
		wb_set32(w, e + (chan ? 4 : 8), (uint32_t)wb_string(w, name[i]));
	}
	wevt_end(w, at);
	return at;
}

static inline void wevt_build_tasks(struct wevt_image *im)
{
	struct wevt_buf *w = &im->crim;

	im->task = wevt_begin(w, "TASK", 1);
	im->task_entry = wb_zero(w, 28);
	wb_set32(w, im->task_entry, 1);
	wb_set32(w, im->task_entry + 4, 601);
	wb_set32(w, im->task_entry + 24, (uint32_t)wb_string(w, "Connect"));
	wevt_end(w, im->task);
}

/* A VMAP or BMAP: name, then (value, message) pairs. */
static inline size_t wevt_build_map(struct wevt_buf *w, const char *sig,
				    size_t name, const uint32_t *pairs, int n)
{
	size_t at = wb_put(w, sig, 4);
	int i;

	wb_u32(w, 16 + 8 * n);
	wb_u32(w, (uint32_t)name);
	wb_u32(w, n);
	for (i = 0; i < 2 * n; i++)
		wb_u32(w, pairs[i]);
	return at;
}

static inline void wevt_build_maps(struct wevt_image *im)
{
	static const uint32_t colors[] = { 0, 701, 1, 702 };
	static const uint32_t flags[] = { 1, 703, 2, 704 };
	struct wevt_buf *w = &im->crim;
	size_t offs, cname, fname;

	/* One offset per map (as omerbenamram/evtx reads real MAPS). */
	im->maps = wevt_begin(w, "MAPS", 2);
	offs = wb_zero(w, 8);
	im->vmap = wevt_build_map(w, "VMAP", 0, colors, 2);
	im->bmap = wevt_build_map(w, "BMAP", 0, flags, 2);
	wb_set32(w, offs, (uint32_t)im->vmap);
	wb_set32(w, offs + 4, (uint32_t)im->bmap);
	cname = wb_string(w, "ColorMap");
	fname = wb_string(w, "FlagMap");
	wb_set32(w, im->vmap + 8, (uint32_t)cname);
	wb_set32(w, im->bmap + 8, (uint32_t)fname);
	wevt_end(w, im->maps);
}

/* One TEMP item; @map is an offset, or a struct's start and count. */
struct wevt_item {
	uint32_t flags;
	uint8_t in, out;
	uint32_t map;
	uint16_t count, length;
	const char *name;
};

static inline size_t wevt_build_template(struct wevt_image *im,
					 const struct wevt_item *it, int n,
					 uint8_t tag, size_t *items)
{
	struct wevt_buf *w = &im->crim;
	size_t at = wb_put(w, "TEMP", 4), names[16];
	int i;

	wb_u32(w, 0);
	wb_u32(w, n);
	wb_u32(w, n);
	wb_u32(w, 0);
	wb_u32(w, 1);
	wb_put(w, "\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f",
	       15);
	wb_u8(w, tag);
	/* A BinXML fragment TDH needs not: the end-of-stream token. */
	wb_u8(w, 0);
	wb_align(w, 4);
	*items = w->n;
	wb_zero(w, 20 * n);
	for (i = 0; i < n; i++)
		names[i] = wb_string(w, it[i].name);
	for (i = 0; i < n; i++) {
		size_t d = *items + 20 * i;

		wb_set32(w, d, it[i].flags);
		w->b[d + 4] = it[i].in;
		w->b[d + 5] = it[i].out;
		wb_set32(w, d + 8, it[i].map);
		wb_set16(w, d + 12, it[i].count);
		wb_set16(w, d + 14, it[i].length);
		wb_set32(w, d + 16, (uint32_t)names[i]);
	}
	wb_set32(w, at + 16, (uint32_t)*items);
	wevt_end(w, at);
	return at;
}

static inline void wevt_build_templates(struct wevt_image *im)
{
	const struct wevt_item t1[] = {
		{ 0, 1, 1, 0, 1, 0, "Name" },		/* UnicodeString */
		{ 0, 6, 0, 0, 1, 0, "Count" },		/* UInt16 */
		{ 4, 8, 0, 0, 1, 0, "Values" },		/* [Count] */
		{ 0, 8, 0, (uint32_t)im->vmap, 1, 0, "Color" },
		{ 0, 8, 18, (uint32_t)im->bmap, 1, 0, "Flags" },
		{ 0, 15, 0, 0, 1, 0, "Id" },		/* GUID */
		{ 0, 12, 0, 0, 1, 0, "Ratio" },		/* Double */
		{ 0, 3, 0, 0, 1, 0, "Small" },		/* Int8 */
		{ 0, 14, 0, 0, 1, 4, "Blob" },		/* Binary */
	};
	const struct wevt_item t2[] = {
		{ 1, 0, 0, 2 | 2 << 16, 2, 0, "Points" },
		{ 0, 2, 0, 0, 1, 0, "Tail" },		/* AnsiString */
		{ 0, 7, 0, 0, 1, 0, "X" },		/* Int32 */
		{ 0, 7, 0, 0, 1, 0, "Y" },
	};
	struct wevt_buf *w = &im->crim;

	im->ttbl = wevt_begin(w, "TTBL", 2);
	im->temp1 = wevt_build_template(im, t1, 9, 1, &im->temp1_items);
	im->temp2 = wevt_build_template(im, t2, 4, 2, &im->temp2_items);
	wevt_end(w, im->ttbl);
}

/* One EVNT entry; the definitions' offsets are in the image. */
static inline void wevt_build_event(struct wevt_buf *w, size_t e,
				    const uint8_t *desc, uint64_t keywords,
				    uint32_t msg, size_t tmpl, size_t opcode,
				    size_t level, size_t task)
{
	memcpy(w->b + e, desc, 8);
	wb_set32(w, e + 8, (uint32_t)keywords);
	wb_set32(w, e + 12, (uint32_t)(keywords >> 32));
	wb_set32(w, e + 16, msg);
	wb_set32(w, e + 20, (uint32_t)tmpl);
	wb_set32(w, e + 24, (uint32_t)opcode);
	wb_set32(w, e + 28, (uint32_t)level);
	wb_set32(w, e + 32, (uint32_t)task);
}

/* Last in the CRIM: a cut anywhere cuts something read. */
static inline void wevt_build_events(struct wevt_image *im)
{
	struct wevt_buf *w = &im->crim;
	size_t e;

	im->evnt = wevt_begin(w, "EVNT", 3);
	wb_u32(w, 0);
	e = im->evnt_entry = wb_zero(w, 3 * 48);
	/* Id 1, version 0, channel 16, level 4, opcode 10, task 0. */
	wevt_build_event(w, e, (const uint8_t *)"\x01\x00\x00\x10\x04\x0a\0",
			 0x1, 801, im->temp1, im->opco_entry, im->levl_entry,
			 0);
	wevt_build_event(w, e + 48,
			 (const uint8_t *)"\x02\x00\x01\x00\x10\x0b\x01\x00",
			 0x3, 802, im->temp2, im->opco_entry + 12,
			 im->levl_entry + 12, im->task_entry);
	wevt_build_event(w, e + 96,
			 (const uint8_t *)"\x03\x00\x00\x00\x02\x01\0",
			 0, WEVT_NONE, 0, 0, 0, 0);
	wevt_end(w, im->evnt);
}

static inline void wevt_build_crim(struct wevt_image *im)
{
	static const uint32_t lvl[] = { 4, 16 }, lvl_msg[] = { 301, 302 };
	static const char *const lvl_name[] = { "win:Informational",
						"Custom" };
	/* An opcode's id: its task, then its value, 16 bits each. */
	static const uint32_t op[] = { 10 << 16, 1 | 11 << 16 };
	static const uint32_t op_msg[] = { 401, 402 };
	static const char *const op_name[] = { "Open", "Handshake" };
	static const uint32_t ch[] = { 16 }, ch_msg[] = { 501 };
	static const char *const ch_name[] = { "Sample/Operational" };
	struct wevt_buf *w = &im->crim;
	size_t elem[8], i;

	wb_put(w, "CRIM", 4);
	wb_u32(w, 0);
	wb_u16(w, 3);
	wb_u16(w, 1);
	im->prov_count = wb_u32(w, 1);
	im->prov_entry = wb_put(w, WEVT_GUID, 16);
	wb_u32(w, 0);
	im->wevt = wb_put(w, "WEVT", 4);
	wb_u32(w, 0);
	wb_u32(w, 100);
	wb_u32(w, 8);
	wb_u32(w, 0);
	im->wevt_descs = wb_zero(w, 8 * 8);
	wb_set32(w, im->prov_entry + 16, (uint32_t)im->wevt);
	wevt_build_keywords(im);
	im->levl = wevt_build_ids(im, "LEVL", lvl, lvl_msg, lvl_name, 2);
	im->levl_entry = im->levl + 12;
	im->opco = wevt_build_ids(im, "OPCO", op, op_msg, op_name, 2);
	im->opco_entry = im->opco + 12;
	im->chan = wevt_build_ids(im, "CHAN", ch, ch_msg, ch_name, 1);
	wevt_build_tasks(im);
	wevt_build_maps(im);
	wevt_build_templates(im);
	wevt_build_events(im);
	wb_set32(w, im->wevt + 4, (uint32_t)(im->keyw - im->wevt));
	elem[0] = im->keyw;
	elem[1] = im->levl;
	elem[2] = im->opco;
	elem[3] = im->chan;
	elem[4] = im->task;
	elem[5] = im->maps;
	elem[6] = im->ttbl;
	elem[7] = im->evnt;
	for (i = 0; i < 8; i++)
		wb_set32(w, im->wevt_descs + 8 * i, (uint32_t)elem[i]);
	wb_set32(w, 4, (uint32_t)w->n);
}

/* A resource directory of one entry (@id), pointing at @to. */
static inline size_t wevt_build_dir(struct wevt_buf *w, uint32_t id,
				    uint32_t to)
{
	size_t at = wb_zero(w, 16);

	wb_set16(w, at + 14, 1);
	wb_u32(w, id);
	wb_u32(w, to);
	return at;
}

#define WEVT_RSRC_RVA	0x1000u
#define WEVT_RSRC_FILE	0x200u

/* The .rsrc section: type, name and language levels, data entries, data. */
static inline void wevt_build_rsrc(struct wevt_image *im)
{
	struct wevt_buf *w = &im->file;
	size_t base = w->n, name_a, lang_a, name_b, lang_b;

	im->root = wb_zero(w, 16);
	wb_set16(w, im->root + 12, 1);
	wb_set16(w, im->root + 14, 1);
	im->type_entry = wb_zero(w, 8);
	wb_u32(w, 11);
	wb_u32(w, 0);
	name_a = wevt_build_dir(w, 1, 0);
	lang_a = wevt_build_dir(w, 0x409, 0);
	name_b = wevt_build_dir(w, 1, 0);
	lang_b = wevt_build_dir(w, 0x409, 0);
	im->type_name = w->n;
	wb_u16(w, 13);
	wb_wide(w, "WEVT_TEMPLATE", 0);
	wb_align(w, 4);
	im->wevt_data = wb_zero(w, 16);
	im->msgs_data = wb_zero(w, 16);
	wb_align(w, 8);
	im->crim_at = wb_put(w, im->crim.b, im->crim.n);
	wb_align(w, 8);
	im->msgs_at = wb_put(w, im->msgs.b, im->msgs.n);
	wb_align(w, 8);
	wb_set32(w, im->type_entry, 0x80000000u | (uint32_t)(im->type_name - base));
	wb_set32(w, im->type_entry + 4, 0x80000000u | (uint32_t)(name_a - base));
	wb_set32(w, im->type_entry + 12, 0x80000000u | (uint32_t)(name_b - base));
	wb_set32(w, name_a + 20, 0x80000000u | (uint32_t)(lang_a - base));
	wb_set32(w, lang_a + 20, (uint32_t)(im->wevt_data - base));
	wb_set32(w, name_b + 20, 0x80000000u | (uint32_t)(lang_b - base));
	wb_set32(w, lang_b + 20, (uint32_t)(im->msgs_data - base));
	wb_set32(w, im->wevt_data, WEVT_RSRC_RVA + (uint32_t)(im->crim_at - base));
	wb_set32(w, im->wevt_data + 4, (uint32_t)im->crim.n);
	wb_set32(w, im->msgs_data, WEVT_RSRC_RVA + (uint32_t)(im->msgs_at - base));
	wb_set32(w, im->msgs_data + 4, (uint32_t)im->msgs.n);
}

/* DOS stub, PE32+ headers, one section (.rsrc) at file offset 0x200. */
static inline void wevt_build(struct wevt_image *im)
{
	struct wevt_buf *w = &im->file;
	size_t rsrc_size;

	memset(im, 0, sizeof(*im));
	wevt_build_crim(im);
	wevt_build_messages(im);
	wb_put(w, "MZ", 2);
	wb_zero(w, 0x3a);
	wb_u32(w, 0x40);
	im->pe = wb_put(w, "PE\0\0", 4);
	wb_u16(w, 0x8664);
	wb_u16(w, 1);
	wb_zero(w, 12);
	wb_u16(w, 240);
	wb_u16(w, 0x2022);
	im->opt = wb_u16(w, 0x20b);
	wb_zero(w, 106);
	wb_u32(w, 16);
	wb_zero(w, 16 * 8);
	im->section = wb_put(w, ".rsrc\0\0\0", 8);
	wb_zero(w, 32);
	wb_zero(w, WEVT_RSRC_FILE - w->n);
	im->rsrc = w->n;
	wevt_build_rsrc(im);
	rsrc_size = w->n - im->rsrc;
	wb_set32(w, im->opt + 112 + 16, WEVT_RSRC_RVA);
	wb_set32(w, im->opt + 112 + 20, (uint32_t)rsrc_size);
	wb_set32(w, im->section + 8, (uint32_t)rsrc_size);
	wb_set32(w, im->section + 12, WEVT_RSRC_RVA);
	wb_set32(w, im->section + 16, (uint32_t)rsrc_size);
	wb_set32(w, im->section + 20, WEVT_RSRC_FILE);
}

#endif /* _WEVT_BUILD_H */
