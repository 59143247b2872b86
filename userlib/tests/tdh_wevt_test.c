// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * TdhLoadManifestFromBinary: a PE file with a WEVT_TEMPLATE resource
 * (wevt_build.h) decoded as an XML manifest's events are, exactly; every
 * argument error; and a table of broken files (each structure cut short,
 * offsets and counts out of range, loops), each with its exact code.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "tdh_test.h"
#include "tdh_walk.h"
#include "wevt_build.h"

static const GUID wevt_guid = { 0x12345678, 0xabcd, 0x0eef,
	{ 0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef } };

/* @len bytes of @data as a file of its own; its path in @path. */
static void wevt_write(struct __test_metadata *_metadata, const void *data,
		       size_t len, char *path)
{
	FILE *f;
	int fd;

	strcpy(path, "/tmp/tdh_wevt_XXXXXX");
	fd = mkstemp(path);
	ASSERT_LE(0, fd);
	f = fdopen(fd, "wb");
	ASSERT_NE(NULL, f);
	ASSERT_EQ(len, fwrite(data, 1, len, f));
	ASSERT_EQ(0, fclose(f));
}

/* Writes @len bytes of @data, loads them and removes the file. */
static ULONG wevt_load(struct __test_metadata *_metadata, const void *data,
		       size_t len)
{
	WCHAR w[64];
	char path[64];
	ULONG ret;

	wevt_write(_metadata, data, len, path);
	ret = TdhLoadManifestFromBinary(tdh_wide(path, w));
	unlink(path);
	return ret;
}

static TRACE_EVENT_INFO *wevt_info(USHORT id, UCHAR version, ULONG *st)
{
	EVENT_DESCRIPTOR d = { .Id = id, .Version = version };
	GUID g = wevt_guid;
	TRACE_EVENT_INFO *tei;
	ULONG size = 0;

	*st = TdhGetManifestEventInformation(&g, &d, NULL, &size);
	if (*st != ERROR_INSUFFICIENT_BUFFER)
		return NULL;
	tei = malloc(size);
	*st = TdhGetManifestEventInformation(&g, &d, tei, &size);
	if (*st) {
		free(tei);
		return NULL;
	}
	return tei;
}

FIXTURE(wevt) {
	struct wevt_image im;
};

FIXTURE_SETUP(wevt)
{
	wevt_build(&self->im);
	ASSERT_EQ(ERROR_SUCCESS,
		  wevt_load(_metadata, self->im.file.b, self->im.file.n));
}

FIXTURE_TEARDOWN(wevt)
{
}

/* Property @i's name, flags, types, count and length, in one string. */
static const char *prop(const TRACE_EVENT_INFO *tei, ULONG i, char *out,
			size_t size)
{
	const EVENT_PROPERTY_INFO *p = &tei->EventPropertyInfoArray[i];
	char name[32], map[32];

	tdh_tei_str(tei, p->NameOffset, name, sizeof(name));
	if (p->Flags & PropertyStruct) {
		snprintf(out, size, "%s struct %u+%u flags %#x count %u", name,
			 p->structType.StructStartIndex,
			 p->structType.NumOfStructMembers, p->Flags, p->count);
		return out;
	}
	tdh_tei_str(tei, p->nonStructType.MapNameOffset, map, sizeof(map));
	snprintf(out, size, "%s %u/%u flags %#x count %u length %u map '%s'",
		 name, p->nonStructType.InType, p->nonStructType.OutType,
		 p->Flags, p->count, p->length, map);
	return out;
}

TEST_F(wevt, event_one_names)
{
	static const char *const props[] = {
		"Name 1/1 flags 0 count 1 length 0 map ''",
		"Count 6/0 flags 0 count 1 length 2 map ''",
		"Values 8/0 flags 0x4 count 1 length 4 map ''",
		"Color 8/0 flags 0 count 1 length 4 map 'ColorMap'",
		"Flags 8/18 flags 0 count 1 length 4 map 'FlagMap'",
		"Id 15/0 flags 0 count 1 length 16 map ''",
		"Ratio 12/0 flags 0 count 1 length 8 map ''",
		"Small 3/0 flags 0 count 1 length 1 map ''",
		"Blob 14/0 flags 0x10 count 1 length 4 map ''",
	};
	TRACE_EVENT_INFO *tei;
	char s[96];
	ULONG st, i;

	tei = wevt_info(1, 0, &st);
	ASSERT_NE(NULL, tei);
	EXPECT_EQ(DecodingSourceXMLFile, tei->DecodingSource);
	EXPECT_EQ(0x10, tei->EventDescriptor.Channel);
	EXPECT_EQ(4, tei->EventDescriptor.Level);
	EXPECT_EQ(10, tei->EventDescriptor.Opcode);
	EXPECT_EQ(1, tei->EventDescriptor.Keyword);
	EXPECT_STREQ("Sample Provider",
		     tdh_tei_str(tei, tei->ProviderNameOffset, s, 64));
	EXPECT_STREQ("Sample Provider",
		     tdh_tei_str(tei, tei->ProviderMessageOffset, s, 64));
	EXPECT_STREQ("Information",
		     tdh_tei_str(tei, tei->LevelNameOffset, s, 64));
	EXPECT_STREQ("Operational",
		     tdh_tei_str(tei, tei->ChannelNameOffset, s, 64));
	EXPECT_STREQ("Read", tdh_tei_str(tei, tei->KeywordsNameOffset, s, 64));
	EXPECT_STREQ("Open op", tdh_tei_str(tei, tei->OpcodeNameOffset, s, 64));
	EXPECT_EQ(0, tei->TaskNameOffset);
	EXPECT_STREQ("Event one %1",
		     tdh_tei_str(tei, tei->EventMessageOffset, s, 64));
	ASSERT_EQ(9, tei->PropertyCount);
	EXPECT_EQ(9, tei->TopLevelPropertyCount);
	for (i = 0; i < 9; i++)
		EXPECT_STREQ(props[i], prop(tei, i, s, sizeof(s)));
	free(tei);
}

TEST_F(wevt, event_two_struct_and_task_opcode)
{
	static const char *const props[] = {
		"Points struct 2+2 flags 0x21 count 2",
		"Tail 2/0 flags 0 count 1 length 0 map ''",
		"X 7/0 flags 0 count 1 length 4 map ''",
		"Y 7/0 flags 0 count 1 length 4 map ''",
	};
	TRACE_EVENT_INFO *tei;
	const BYTE *k;
	char s[96];
	ULONG st, i;

	tei = wevt_info(2, 1, &st);
	ASSERT_NE(NULL, tei);
	EXPECT_STREQ("Custom level",
		     tdh_tei_str(tei, tei->LevelNameOffset, s, 64));
	EXPECT_STREQ("Connect task",
		     tdh_tei_str(tei, tei->TaskNameOffset, s, 64));
	EXPECT_STREQ("Handshake op",
		     tdh_tei_str(tei, tei->OpcodeNameOffset, s, 64));
	EXPECT_EQ(0, tei->ChannelNameOffset);
	k = (const BYTE *)tei + tei->KeywordsNameOffset;
	EXPECT_STREQ("Read", tdh_utf8(k, s, 64));
	EXPECT_STREQ("Write", tdh_utf8(k + 10, s, 64));
	EXPECT_EQ(0, k[22] | k[23]);
	ASSERT_EQ(4, tei->PropertyCount);
	EXPECT_EQ(2, tei->TopLevelPropertyCount);
	for (i = 0; i < 4; i++)
		EXPECT_STREQ(props[i], prop(tei, i, s, sizeof(s)));
	free(tei);
}

/* No definitions: winmeta's level and opcode; no message, no template. */
TEST_F(wevt, event_three_winmeta)
{
	TRACE_EVENT_INFO *tei;
	char s[64];
	ULONG st;

	tei = wevt_info(3, 0, &st);
	ASSERT_NE(NULL, tei);
	EXPECT_STREQ("Error", tdh_tei_str(tei, tei->LevelNameOffset, s, 64));
	EXPECT_STREQ("Start", tdh_tei_str(tei, tei->OpcodeNameOffset, s, 64));
	EXPECT_EQ(0, tei->EventMessageOffset);
	EXPECT_EQ(0, tei->KeywordsNameOffset);
	EXPECT_EQ(0, tei->PropertyCount);
	free(tei);
	EXPECT_EQ(NULL, wevt_info(1, 1, &st));
	EXPECT_EQ(ERROR_NOT_FOUND, st);
}

static void wevt_record(EVENT_RECORD *r, USHORT id, UCHAR version,
			const void *data, USHORT len)
{
	memset(r, 0, sizeof(*r));
	r->EventHeader.ProviderId = wevt_guid;
	r->EventHeader.Flags = EVENT_HEADER_FLAG_64_BIT_HEADER;
	r->EventHeader.EventDescriptor.Id = id;
	r->EventHeader.EventDescriptor.Version = version;
	r->UserData = (void *)data;
	r->UserDataLength = len;
}

TEST_F(wevt, event_one_decodes)
{
	static const uint8_t data[] = {
		'h', 0, 'i', 0, 0, 0,			/* Name */
		2, 0,					/* Count */
		7, 0, 0, 0, 9, 0, 0, 0,			/* Values */
		1, 0, 0, 0,				/* Color */
		3, 0, 0, 0,				/* Flags */
		0x78, 0x56, 0x34, 0x12, 0x34, 0x12, 0x78, 0x56,
		1, 2, 3, 4, 5, 6, 7, 8,			/* Id */
		0, 0, 0, 0, 0, 0, 0xf8, 0x3f,		/* Ratio 1.5 */
		0xfe,					/* Small */
		0xde, 0xad, 0xbe, 0xef,			/* Blob */
	};
	static const char *const want[][2] = {
		{ "Name", "hi" }, { "Count", "2" }, { "Values", "7" },
		{ "Values", "9" }, { "Color", "Green" },
		{ "Flags", "Fast | Safe" },
		{ "Id", "{12345678-1234-5678-0102-030405060708}" },
		{ "Ratio", "1.5" }, { "Small", "-2" },
		{ "Blob", "0xDEADBEEF" },
	};
	struct tdh_walk_val v[16];
	struct tdh_walk w;
	EVENT_RECORD r;
	int i;

	wevt_record(&r, 1, 0, data, sizeof(data));
	ASSERT_EQ(ERROR_SUCCESS, tdh_walk(&w, &r, v, 16));
	EXPECT_EQ(0, w.left);
	EXPECT_EQ(0, w.size_mismatch);
	ASSERT_EQ(10, w.n);
	for (i = 0; i < 10; i++) {
		EXPECT_STREQ(want[i][0], v[i].name);
		EXPECT_STREQ(want[i][1], v[i].text);
	}
	tdh_walk_done(&w);
}

TEST_F(wevt, event_two_decodes)
{
	static const uint8_t data[] = {
		1, 0, 0, 0, 2, 0, 0, 0,			/* Points[0] */
		0xfd, 0xff, 0xff, 0xff, 4, 0, 0, 0,	/* Points[1] */
		'o', 'k', 0,				/* Tail */
	};
	static const char *const want[][2] = {
		{ "X", "1" }, { "Y", "2" }, { "X", "-3" }, { "Y", "4" },
		{ "Tail", "ok" },
	};
	struct tdh_walk_val v[8];
	struct tdh_walk w;
	EVENT_RECORD r;
	int i;

	wevt_record(&r, 2, 1, data, sizeof(data));
	ASSERT_EQ(ERROR_SUCCESS, tdh_walk(&w, &r, v, 8));
	EXPECT_EQ(0, w.left);
	ASSERT_EQ(5, w.n);
	for (i = 0; i < 5; i++) {
		EXPECT_STREQ(want[i][0], v[i].name);
		EXPECT_STREQ(want[i][1], v[i].text);
	}
	tdh_walk_done(&w);
}

TEST_F(wevt, maps)
{
	EVENT_MAP_INFO *m;
	EVENT_RECORD r;
	WCHAR name[16];
	ULONG size = 0;
	char s[32];

	wevt_record(&r, 1, 0, NULL, 0);
	ASSERT_EQ(ERROR_INSUFFICIENT_BUFFER,
		  TdhGetEventMapInformation(&r, tdh_wide("FlagMap", name),
					    NULL, &size));
	m = malloc(size);
	ASSERT_EQ(ERROR_SUCCESS,
		  TdhGetEventMapInformation(&r, name, m, &size));
	EXPECT_EQ(EVENTMAP_INFO_FLAG_MANIFEST_BITMAP, m->Flag);
	ASSERT_EQ(2, m->EntryCount);
	EXPECT_EQ(2, m->MapEntryArray[1].Value);
	EXPECT_STREQ("Safe", tdh_utf8((BYTE *)m +
				      m->MapEntryArray[1].OutputOffset, s, 32));
	free(m);
	size = 0;
	EXPECT_EQ(ERROR_INSUFFICIENT_BUFFER,
		  TdhGetEventMapInformation(&r, tdh_wide("ColorMap", name),
					    NULL, &size));
	size = 0;
	EXPECT_EQ(ERROR_NOT_FOUND,
		  TdhGetEventMapInformation(&r, tdh_wide("NoMap", name), NULL,
					    &size));
}

/* Loading again is a no-op; TdhUnloadManifest of the path unloads. */
TEST(load_again_then_unload)
{
	struct wevt_image *im = malloc(sizeof(*im));
	char path[64];
	WCHAR w[64];
	ULONG st;

	ASSERT_NE(NULL, im);
	wevt_build(im);
	wevt_write(_metadata, im->file.b, im->file.n, path);
	ASSERT_EQ(ERROR_SUCCESS, TdhLoadManifestFromBinary(tdh_wide(path, w)));
	ASSERT_EQ(ERROR_SUCCESS, TdhLoadManifestFromBinary(w));
	free(wevt_info(1, 0, &st));
	EXPECT_EQ(ERROR_SUCCESS, st);
	EXPECT_EQ(ERROR_SUCCESS, TdhUnloadManifest(w));
	EXPECT_EQ(NULL, wevt_info(1, 0, &st));
	EXPECT_EQ(ERROR_NOT_FOUND, st);
	EXPECT_EQ(ERROR_FILE_NOT_FOUND, TdhUnloadManifest(w));
	unlink(path);
	free(im);
}

TEST(argument_errors)
{
	char longp[300], dir[] = "/tmp/tdh_wevt_dirXXXXXX";
	WCHAR w[600];

	memset(longp, 'a', sizeof(longp) - 1);
	longp[sizeof(longp) - 1] = 0;
	EXPECT_EQ(ERROR_INVALID_PARAMETER, TdhLoadManifestFromBinary(NULL));
	EXPECT_EQ(ERROR_INVALID_PARAMETER,
		  TdhLoadManifestFromBinary(tdh_wide("", w)));
	EXPECT_EQ(ERROR_INVALID_PARAMETER,
		  TdhLoadManifestFromBinary(tdh_wide(longp, w)));
	EXPECT_EQ(ERROR_FILE_NOT_FOUND,
		  TdhLoadManifestFromBinary(tdh_wide("/nonexistent/x.dll", w)));
	ASSERT_NE(NULL, mkdtemp(dir));
	EXPECT_EQ(ERROR_ACCESS_DENIED,
		  TdhLoadManifestFromBinary(tdh_wide(dir, w)));
	rmdir(dir);
}

/* A broken file: what to change in the sample, and the code it gives. */
enum wevt_part { IN_FILE, IN_CRIM, IN_MSGS };

struct wevt_break {
	const char *what;
	enum wevt_part in;	/* what @at is an offset in */
	size_t (*at)(const struct wevt_image *im);
	size_t plus;
	uint32_t value;
	ULONG expect;
	/* When set, the value is this offset in the CRIM. */
	size_t (*value_at)(const struct wevt_image *im);
};

#define AT(field) \
	static size_t at_##field(const struct wevt_image *im) \
	{ return im->field; }
AT(pe) AT(opt) AT(section) AT(root) AT(type_entry) AT(type_name)
AT(wevt_data) AT(prov_count) AT(prov_entry) AT(wevt)
AT(wevt_descs) AT(keyw) AT(levl_entry) AT(opco_entry) AT(chan)
AT(task_entry) AT(maps) AT(vmap) AT(bmap) AT(ttbl) AT(temp1)
AT(temp1_items) AT(temp2_items) AT(evnt) AT(evnt_entry) AT(msg_blocks)
AT(msg_first)

static size_t at_zero(const struct wevt_image *im)
{
	return 0;
}

static const struct wevt_break breaks[] = {
	{ "no MZ", IN_FILE, at_zero, 0, 0x5a4e, ERROR_BAD_EXE_FORMAT },
	{ "e_lfanew past the end", IN_FILE, at_zero, 0x3c, 0x7fffffff,
	  ERROR_BAD_EXE_FORMAT },
	{ "no PE signature", IN_FILE, at_pe, 0, 0x4551, ERROR_BAD_EXE_FORMAT },
	{ "65535 sections", IN_FILE, at_pe, 4, 0xffff8664, ERROR_BAD_EXE_FORMAT },
	{ "optional header too big", IN_FILE, at_pe, 20, 0x2022ffff,
	  ERROR_BAD_EXE_FORMAT },
	{ "not PE32 nor PE32+", IN_FILE, at_opt, 0, 0x30b, ERROR_BAD_EXE_FORMAT },
	{ "no resource directory", IN_FILE, at_opt, 112 + 16, 0,
	  ERROR_RESOURCE_NOT_FOUND },
	{ "two data directories", IN_FILE, at_opt, 108, 2,
	  ERROR_RESOURCE_NOT_FOUND },
	{ "resources outside every section", IN_FILE, at_opt, 112 + 16, 0x9000,
	  ERROR_BAD_EXE_FORMAT },
	{ "section's raw data past the end", IN_FILE, at_section, 20, 0x7ffff000,
	  ERROR_BAD_EXE_FORMAT },
	{ "root of 65535 entries", IN_FILE, at_root, 12, 0xffffffff,
	  ERROR_BAD_EXE_FORMAT },
	{ "no WEVT_TEMPLATE", IN_FILE, at_type_name, 2, 'X',
	  ERROR_RESOURCE_NOT_FOUND },
	{ "type name past the end", IN_FILE, at_type_entry, 0, 0x8000ffff,
	  ERROR_BAD_EXE_FORMAT },
	{ "type name's length past the end", IN_FILE, at_type_name, 0, 0x7fff,
	  ERROR_BAD_EXE_FORMAT },
	{ "type that is no directory", IN_FILE, at_type_entry, 4, 0x10,
	  ERROR_BAD_EXE_FORMAT },
	{ "type that is the root: a loop", IN_FILE, at_type_entry, 4,
	  0x80000000u, ERROR_BAD_EXE_FORMAT },
	{ "directory past the end", IN_FILE, at_type_entry, 4, 0x8000fff0u,
	  ERROR_BAD_EXE_FORMAT },
	{ "data outside every section", IN_FILE, at_wevt_data, 0, 0x40000,
	  ERROR_BAD_EXE_FORMAT },
	{ "data too long", IN_FILE, at_wevt_data, 4, 0x10000,
	  ERROR_BAD_EXE_FORMAT },
	{ "no CRIM", IN_CRIM, at_zero, 0, 0x4d495243 + 1, ERROR_FILE_CORRUPT },
	{ "CRIM bigger than its resource", IN_CRIM, at_zero, 4, 0x10000,
	  ERROR_FILE_CORRUPT },
	{ "no provider", IN_CRIM, at_prov_count, 0, 0, ERROR_FILE_CORRUPT },
	{ "2^32-1 providers", IN_CRIM, at_prov_count, 0, 0xffffffff,
	  ERROR_FILE_CORRUPT },
	{ "WEVT past the end", IN_CRIM, at_prov_entry, 16, 0xfffffff0u,
	  ERROR_FILE_CORRUPT },
	{ "no WEVT", IN_CRIM, at_wevt, 0, 0x54564558, ERROR_FILE_CORRUPT },
	{ "2^28 elements", IN_CRIM, at_wevt, 12, 0x10000000, ERROR_FILE_CORRUPT },
	{ "one element twice", IN_CRIM, at_wevt_descs, 8, 0,
	  ERROR_FILE_CORRUPT, at_keyw },
	{ "element past the end", IN_CRIM, at_wevt_descs, 0, 0xfffffff0u,
	  ERROR_FILE_CORRUPT },
	{ "keywords past their element", IN_CRIM, at_keyw, 8, 0x1000000,
	  ERROR_FILE_CORRUPT },
	{ "element bigger than the CRIM", IN_CRIM, at_keyw, 4, 0x100000,
	  ERROR_FILE_CORRUPT },
	{ "keyword name past the end", IN_CRIM, at_keyw, 12 + 12, 0xfffffff0u,
	  ERROR_FILE_CORRUPT },
	{ "level 256", IN_CRIM, at_levl_entry, 0, 256, ERROR_FILE_CORRUPT },
	{ "level name longer than the CRIM", IN_CRIM, at_levl_entry, 8, 4,
	  ERROR_FILE_CORRUPT },
	{ "opcode 256", IN_CRIM, at_opco_entry, 0, 0x1000000, ERROR_FILE_CORRUPT },
	{ "channel 256", IN_CRIM, at_chan, 12, 256, ERROR_FILE_CORRUPT },
	{ "task 65536", IN_CRIM, at_task_entry, 0, 0x10000, ERROR_FILE_CORRUPT },
	{ "2^30 maps", IN_CRIM, at_maps, 8, 0x40000000, ERROR_FILE_CORRUPT },
	{ "map outside MAPS", IN_CRIM, at_maps, 12, 0xfffffff0u,
	  ERROR_FILE_CORRUPT },
	{ "map that is no VMAP nor BMAP", IN_CRIM, at_vmap, 0, 0x50414d58,
	  ERROR_FILE_CORRUPT },
	{ "map entries past the map", IN_CRIM, at_bmap, 12, 0x1000,
	  ERROR_FILE_CORRUPT },
	{ "maps overlapping", IN_CRIM, at_maps, 16, 0, ERROR_FILE_CORRUPT,
	  at_vmap },
	{ "map offset 0", IN_CRIM, at_maps, 12, 0, ERROR_FILE_CORRUPT },
	{ "map without a name", IN_CRIM, at_vmap, 8, 0, ERROR_FILE_CORRUPT },
	{ "templates past their table", IN_CRIM, at_ttbl, 8, 1000,
	  ERROR_FILE_CORRUPT },
	{ "no TEMP", IN_CRIM, at_temp1, 0, 0x504d4554 + 1, ERROR_FILE_CORRUPT },
	{ "TEMP past its table", IN_CRIM, at_temp1, 4, 0x10000,
	  ERROR_FILE_CORRUPT },
	{ "65536 items", IN_CRIM, at_temp1, 8, 0x10000, ERROR_FILE_CORRUPT },
	{ "items outside their TEMP", IN_CRIM, at_temp1, 16, 8,
	  ERROR_FILE_CORRUPT },
	{ "unknown InType", IN_CRIM, at_temp1_items, 4, 200, ERROR_FILE_CORRUPT },
	{ "unknown OutType", IN_CRIM, at_temp1_items, 4, 0xc801,
	  ERROR_FILE_CORRUPT },
	{ "map at no map", IN_CRIM, at_temp1_items, 20 * 3 + 8, 4,
	  ERROR_FILE_CORRUPT },
	{ "count naming itself", IN_CRIM, at_temp1_items, 20 * 2 + 12, 2,
	  ERROR_FILE_CORRUPT },
	{ "count naming one after it", IN_CRIM, at_temp1_items, 20 * 2 + 12, 3,
	  ERROR_FILE_CORRUPT },
	{ "count naming no property", IN_CRIM, at_temp1_items, 20 * 2 + 12,
	  100, ERROR_FILE_CORRUPT },
	{ "count naming a string", IN_CRIM, at_temp1_items, 20 * 2 + 12, 0,
	  ERROR_FILE_CORRUPT },
	{ "item without a name", IN_CRIM, at_temp1_items, 16, 0,
	  ERROR_FILE_CORRUPT },
	{ "struct past the end", IN_CRIM, at_temp2_items, 8, 0x20003,
	  ERROR_FILE_CORRUPT },
	{ "struct holding itself: a loop", IN_CRIM, at_temp2_items, 8, 0x20000,
	  ERROR_FILE_CORRUPT },
	{ "empty struct", IN_CRIM, at_temp2_items, 8, 2, ERROR_FILE_CORRUPT },
	{ "struct in a struct", IN_CRIM, at_temp2_items, 40, 1,
	  ERROR_FILE_CORRUPT },
	{ "2^32-1 events", IN_CRIM, at_evnt, 8, 0xffffffff, ERROR_FILE_CORRUPT },
	{ "template at no TEMP", IN_CRIM, at_evnt_entry, 20, 12,
	  ERROR_FILE_CORRUPT },
	{ "level before the first definition", IN_CRIM, at_evnt_entry, 28, 1,
	  ERROR_FILE_CORRUPT },
	{ "opcode before the first", IN_CRIM, at_evnt_entry, 24, 4,
	  ERROR_FILE_CORRUPT },
	{ "task past the last", IN_CRIM, at_evnt_entry, 48 + 32, 0x10000,
	  ERROR_FILE_CORRUPT },
	{ "2^28 message blocks", IN_MSGS, at_zero, 0, 0x10000000,
	  ERROR_FILE_CORRUPT },
	{ "message block ending before it starts", IN_MSGS, at_msg_blocks, 4,
	  0, ERROR_FILE_CORRUPT },
	{ "message entry of no bytes", IN_MSGS, at_msg_first, 0, 0x10000,
	  ERROR_FILE_CORRUPT },
	{ "message block past the table", IN_MSGS, at_msg_blocks, 8, 0xfff0,
	  ERROR_FILE_CORRUPT },
};

TEST(broken_files)
{
	struct wevt_image *im = malloc(sizeof(*im));
	const struct wevt_break *b;
	uint32_t value;
	size_t i, at;

	ASSERT_NE(NULL, im);
	for (i = 0; i < sizeof(breaks) / sizeof(breaks[0]); i++) {
		b = &breaks[i];
		wevt_build(im);
		value = b->value_at ? (uint32_t)b->value_at(im) : b->value;
		at = b->at(im) + b->plus;
		if (b->in == IN_CRIM)
			at += im->crim_at;
		else if (b->in == IN_MSGS)
			at += im->msgs_at;
		wb_set32(&im->file, at, value);
		EXPECT_EQ(b->expect, wevt_load(_metadata, im->file.b,
					       im->file.n))
			TH_LOG("%s", b->what);
	}
	free(im);
}

/*
 * MAPS offsets out of file order, as omerbenamram/evtx found them in a
 * real provider (wevtsvc.dll): each map is still found by its offset.
 */
TEST(maps_out_of_order)
{
	struct wevt_image *im = malloc(sizeof(*im));
	size_t at;

	ASSERT_NE(NULL, im);
	wevt_build(im);
	at = im->crim_at + im->maps + 12;
	wb_set32(&im->file, at, (uint32_t)im->bmap);
	wb_set32(&im->file, at + 4, (uint32_t)im->vmap);
	EXPECT_EQ(ERROR_SUCCESS, wevt_load(_metadata, im->file.b,
					   im->file.n));
	free(im);
}

/* Cut at every byte: the PE structure is what breaks first. */
TEST(every_truncation_of_the_file)
{
	struct wevt_image *im = malloc(sizeof(*im));
	size_t n, bad = 0;

	ASSERT_NE(NULL, im);
	wevt_build(im);
	for (n = 0; n < im->file.n; n++)
		bad += wevt_load(_metadata, im->file.b, n) !=
		       ERROR_BAD_EXE_FORMAT;
	EXPECT_EQ(0, bad);
	free(im);
}

/* The CRIM's size cut at every byte: every structure in it cut short. */
TEST(every_truncation_of_the_crim)
{
	struct wevt_image *im = malloc(sizeof(*im));
	size_t n, bad = 0;

	ASSERT_NE(NULL, im);
	wevt_build(im);
	for (n = 0; n < im->crim.n; n++) {
		wb_set32(&im->file, im->crim_at + 4, (uint32_t)n);
		bad += wevt_load(_metadata, im->file.b, im->file.n) !=
		       ERROR_FILE_CORRUPT;
	}
	EXPECT_EQ(0, bad);
	free(im);
}

/* The message table's resource cut at every byte but the first. */
TEST(every_truncation_of_the_messages)
{
	struct wevt_image *im = malloc(sizeof(*im));
	size_t n, bad = 0;

	ASSERT_NE(NULL, im);
	wevt_build(im);
	for (n = 1; n < im->msgs.n; n++) {
		wb_set32(&im->file, im->msgs_data + 4, (uint32_t)n);
		bad += wevt_load(_metadata, im->file.b, im->file.n) !=
		       ERROR_FILE_CORRUPT;
	}
	EXPECT_EQ(0, bad);
	/* None at all: the texts are gone, the names stay. */
	wb_set32(&im->file, im->msgs_data + 4, 0);
	EXPECT_EQ(ERROR_SUCCESS,
		  wevt_load(_metadata, im->file.b, im->file.n));
	free(im);
}

TEST_HARNESS_MAIN
