/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * libetw's instrumentation manifests: the model etw_tdh_manifest.c parses
 * from the XML (with libxml2), etw_tdh_wevt.c from a PE file's compiled
 * form, and etw_tdh_manifest_info.c serves to TDH.
 * Names are UTF-8; every reference between items is resolved at load
 * time, so a loaded manifest is consistent.  Not installed.
 */
#ifndef _ETW_TDH_MANIFEST_H
#define _ETW_TDH_MANIFEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <tdh.h>

/*
 * A keyword, level, opcode, task or channel: @text is its display name.
 * @label and @desc are what TDH's field functions report: the name
 * attribute (a channel's, not its chid) and the message's text, or NULL.
 * @symbol is the symbol attribute (a generated header's macro), or NULL.
 */
struct etw_mf_item {
	char *name;
	char *text;
	uint64_t value;
	uint16_t task;		/* an opcode's task; 0: global */
	char *label;
	char *desc;
	char *symbol;
};

struct etw_mf_list {
	struct etw_mf_item *v;
	uint32_t n;
};

/* A map's entry and the map; @symbol as an item's. */
struct etw_mf_entry {
	uint32_t value;
	char *text;
	char *symbol;
};

struct etw_mf_map {
	char *name;
	char *symbol;
	MAP_FLAGS flag;
	struct etw_mf_entry *e;
	uint32_t n;
};

/* A template's property, already in TDH's order and encoding. */
struct etw_mf_prop {
	char *name;
	const struct etw_mf_map *map;
	/* Offsets, and the length of fixed-size types, are set on output. */
	EVENT_PROPERTY_INFO epi;
};

struct etw_mf_template {
	char *tid;
	struct etw_mf_prop *p;
	uint32_t n;
	uint32_t top;
};

struct etw_mf_event {
	EVENT_DESCRIPTOR desc;
	const struct etw_mf_item *level, *task, *opcode, *channel;
	const struct etw_mf_template *tmpl;
	char *name;
	char *message;
	char *symbol;
};

struct etw_mf_provider {
	GUID guid;
	char *name;
	char *message;
	char *symbol;
	struct etw_mf_list keywords, levels, opcodes, tasks, channels;
	struct etw_mf_map *maps;
	uint32_t nmaps;
	struct etw_mf_template *tmpls;
	uint32_t ntmpls;
	struct etw_mf_event *events;
	uint32_t nevents;
};

struct etw_manifest {
	struct etw_manifest *next;
	char *path;		/* NULL for one loaded from memory */
	void *blob;		/* the bytes of one loaded from memory */
	size_t blob_len;
	struct etw_mf_provider *prov;
	uint32_t nprov;
	struct etw_mf_str *strs;	/* every string above */
};

ULONG etw_manifest_parse(const char *path, const void *blob, size_t len,
			 FILE *diag, struct etw_manifest **out);
void etw_manifest_free(struct etw_manifest *m);
char *etw_manifest_strdup(struct etw_manifest *m, const char *s);
bool etw_mf_in_type_known(USHORT in);
bool etw_mf_out_type_known(USHORT out);
const struct etw_mf_item *etw_mf_winmeta_level(uint64_t value);
const struct etw_mf_item *etw_mf_winmeta_opcode(uint64_t value);
const struct etw_mf_item *etw_mf_winmeta_keyword(uint64_t bit);

/* A PE file's WEVT_TEMPLATE manifest (etw_tdh_wevt.c). */
ULONG etw_wevt_load(const char *path, struct etw_manifest **out);
ULONG etw_manifest_build(const EVENT_RECORD *ev, const GUID *guid,
			 const EVENT_DESCRIPTOR *desc, ULONG ptr_size,
			 BYTE *buf, ULONG cap, ULONG *needed);

ULONG etw_manifest_map(const EVENT_RECORD *ev, const WCHAR *name,
		       EVENT_MAP_INFO *buf, ULONG *size);

/* The providers TDH decodes, under the loaded manifests' read lock. */
void etw_manifest_read_lock(void);
void etw_manifest_read_unlock(void);
const struct etw_mf_provider *etw_mf_provider_of(const GUID *guid);
void etw_manifest_for_each(void (*fn)(const struct etw_mf_provider *p,
				      void *arg), void *arg);

/* The manifests on ETW_MANIFEST_PATH and in the installed directory. */
const struct etw_manifest *etw_manifest_found(void);

/* A TDH output buffer being filled: strings go at @off, which grows. */
struct etw_mf_out {
	BYTE *buf;
	ULONG cap;
	ULONG off;
};

ULONG etw_mf_put(struct etw_mf_out *o, const char *s);

#endif /* _ETW_TDH_MANIFEST_H */
