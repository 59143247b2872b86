/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * TdhEnumerateProviders, TdhEnumerateProviderFieldInformation and
 * TdhQueryProviderFieldInformation: every Win32 code, the entries of
 * tdh_manifest_sample.man for each field type and value; and the
 * manifests TDH finds by itself, on ETW_MANIFEST_PATH and in the
 * installed directory, read once on the first call that needs them.
 *
 * The harness runs each test in a child of its own, so each one sets the
 * environment before its first TDH call and sees a fresh read.  This file
 * builds its own etw_tdh_path.c with the installed directory under build/
 * (the archive's copy is then not linked in), so that what is installed
 * on the machine changes nothing here and the directory can be tested.
 */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#define ETW_MANIFEST_DIR	SRC_DIR "/build/tdh_enum_installed"
#include "etw_tdh_path.c"

#include "kselftest_harness.h"
#include "tdh_test.h"

#define SAMPLE	SRC_DIR "/userlib/tests/tdh_manifest_sample.man"

static GUID sample_guid = { 0x12345678, 0x9abc, 0xdef0,
	{ 0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef } };
static GUID g_guid = { 0x0badf00d, 0x1, 0x2, { 3, 4, 5, 6, 7, 8, 9, 10 } };
static GUID nobody_guid = { 0xfeedface, 0x1, 0x2, { 0 } };

#define MAN_HEAD \
	"<instrumentationManifest xmlns=\"http://schemas.microsoft.com/" \
	"win/2004/08/events\">\n<instrumentation><events>\n"
#define MAN_TAIL "</events></instrumentation>\n</instrumentationManifest>\n"
/* Provider g_guid named @name: one event, no keywords, levels... */
#define G_MAN(name) \
	MAN_HEAD "<provider name=\"" name "\" " \
	"guid=\"{0BADF00D-0001-0002-0304-05060708090A}\">" \
	"<events><event value=\"1\" version=\"1\"/></events></provider>\n" \
	MAN_TAIL
/* Line 3 names an undefined level. */
#define BAD_MAN \
	MAN_HEAD "<provider name=\"B\" " \
	"guid=\"{11111111-2222-3333-4444-555555555555}\">\n" \
	"<events><event value=\"1\" level=\"Loud\"/></events></provider>\n" \
	MAN_TAIL

static void put_file(const char *dir, const char *name, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void rm_rf(const char *dir)
{
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		fprintf(stderr, "# %s failed\n", cmd);
}

/* TdhEnumerateProviders with its size protocol; NULL on error. */
static PROVIDER_ENUMERATION_INFO *providers(void)
{
	PROVIDER_ENUMERATION_INFO *pei;
	ULONG size = 0;

	if (TdhEnumerateProviders(NULL, &size) != ERROR_INSUFFICIENT_BUFFER)
		return NULL;
	pei = malloc(size);
	if (pei && TdhEnumerateProviders(pei, &size)) {
		free(pei);
		pei = NULL;
	}
	return pei;
}

/* The providers' names in order, each followed by ' '; "" for none. */
static const char *provider_names(char *out, size_t size)
{
	PROVIDER_ENUMERATION_INFO *pei = providers();
	size_t len = 0;
	char s[128];
	ULONG i;

	*out = 0;
	if (!pei)
		return "(error)";
	for (i = 0; i < pei->NumberOfProviders; i++)
		len += snprintf(out + len, size - len, "%s ",
				tdh_utf8(PEI_PROVIDER_NAME(pei,
					&pei->TraceProviderInfoArray[i]),
					 s, sizeof(s)));
	free(pei);
	return out;
}

/* Entries as "name|description|value " ("-": no description). */
static const char *field_str(const PROVIDER_FIELD_INFOARRAY *a, char *out,
			     size_t size)
{
	const PROVIDER_FIELD_INFO *f;
	char n[128], d[128];
	size_t len = 0;
	ULONG i;

	*out = 0;
	for (i = 0; i < a->NumberOfElements; i++) {
		f = &a->FieldInfoArray[i];
		tdh_utf8(PFI_FIELD_NAME(a, f), n, sizeof(n));
		if (f->DescriptionOffset)
			tdh_utf8(PFI_FIELD_MESSAGE(a, f), d, sizeof(d));
		else
			strcpy(d, "-");
		len += snprintf(out + len, size - len, "%s|%s|%llx ", n, d,
				(unsigned long long)f->Value);
	}
	return out;
}

/* TdhQueryProviderFieldInformation (@query) or the Enumerate one. */
static ULONG field_call(GUID *g, EVENT_FIELD_TYPE type, bool query,
			ULONGLONG value, PROVIDER_FIELD_INFOARRAY *buf,
			ULONG *size)
{
	if (query)
		return TdhQueryProviderFieldInformation(g, value, type, buf,
							size);
	return TdhEnumerateProviderFieldInformation(g, type, buf, size);
}

/* Enumerate (@query false) or query @value: the entries, or the code. */
static const char *fields(GUID *g, EVENT_FIELD_TYPE type, bool query,
			  ULONGLONG value, char *out, size_t size)
{
	PROVIDER_FIELD_INFOARRAY *a;
	ULONG st, need = 0, got;

	st = field_call(g, type, query, value, NULL, &need);
	if (st != ERROR_INSUFFICIENT_BUFFER) {
		snprintf(out, size, "error %lu", (unsigned long)st);
		return out;
	}
	a = malloc(need);
	got = need;
	st = a ? field_call(g, type, query, value, a, &got) :
		 ERROR_OUTOFMEMORY;
	if (st || got != need || a->FieldType != type)
		snprintf(out, size, "error %lu, %lu of %lu bytes",
			 (unsigned long)st, (unsigned long)got,
			 (unsigned long)need);
	else
		field_str(a, out, size);
	free(a);
	return out;
}

static ULONG load_sample(void)
{
	WCHAR w[512];

	return TdhLoadManifest(tdh_wide(SAMPLE, w));
}

static ULONG load_g(const char *xml)
{
	return TdhLoadManifestFromMemory(xml, (ULONG)strlen(xml));
}

/* A temporary directory for manifests; the installed one starts absent. */
FIXTURE(env) {
	char dir[64];
	char sub[2][80];
};

FIXTURE_SETUP(env)
{
	int i;

	strcpy(self->dir, "/tmp/tdh_enum_XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	for (i = 0; i < 2; i++) {
		snprintf(self->sub[i], sizeof(self->sub[i]), "%s/d%d",
			 self->dir, i);
		ASSERT_EQ(0, mkdir(self->sub[i], 0755));
	}
	rm_rf(ETW_MANIFEST_DIR);
	/* Its parent, for the tests that create it. */
	if (mkdir(SRC_DIR "/build", 0755))
		ASSERT_EQ(EEXIST, errno);
	unsetenv("ETW_MANIFEST_PATH");
	unsetenv("ETW_MANIFEST_DEBUG");
}

FIXTURE_TEARDOWN(env)
{
	rm_rf(self->dir);
	rm_rf(ETW_MANIFEST_DIR);
}

TEST_F(env, enumerate_providers_codes)
{
	PROVIDER_ENUMERATION_INFO pei;
	ULONG size = 0;

	ASSERT_EQ(ERROR_INVALID_PARAMETER, TdhEnumerateProviders(&pei, NULL));
	size = 8;
	ASSERT_EQ(ERROR_INVALID_PARAMETER, TdhEnumerateProviders(NULL, &size));
	/* Nothing loaded, no path, no installed directory: no provider. */
	size = 0;
	ASSERT_EQ(ERROR_INSUFFICIENT_BUFFER, TdhEnumerateProviders(NULL, &size));
	ASSERT_EQ(8, size);
	size = 7;
	ASSERT_EQ(ERROR_INSUFFICIENT_BUFFER, TdhEnumerateProviders(&pei, &size));
	ASSERT_EQ(8, size);
	pei.NumberOfProviders = 99;
	ASSERT_EQ(ERROR_SUCCESS, TdhEnumerateProviders(&pei, &size));
	ASSERT_EQ(8, size);
	ASSERT_EQ(0, pei.NumberOfProviders);
}

TEST_F(env, enumerate_loaded_providers)
{
	PROVIDER_ENUMERATION_INFO *pei;
	TRACE_PROVIDER_INFO *t;
	ULONG size = 0, need;
	char names[256];

	ASSERT_EQ(ERROR_SUCCESS, load_sample());
	ASSERT_EQ(ERROR_SUCCESS, load_g(G_MAN("G")));
	/* Newest first; names after the array, UTF-16 with their NULs. */
	ASSERT_EQ(ERROR_INSUFFICIENT_BUFFER, TdhEnumerateProviders(NULL, &size));
	need = 8 + 2 * 24 + 2 * sizeof("G") + 2 * sizeof("Etw-Test-Manifest");
	ASSERT_EQ(need, size);
	pei = malloc(need);
	ASSERT_NE(NULL, pei);
	size = need - 1;
	ASSERT_EQ(ERROR_INSUFFICIENT_BUFFER, TdhEnumerateProviders(pei, &size));
	ASSERT_EQ(need, size);
	ASSERT_EQ(ERROR_SUCCESS, TdhEnumerateProviders(pei, &size));
	ASSERT_EQ(need, size);
	ASSERT_EQ(2, pei->NumberOfProviders);
	t = pei->TraceProviderInfoArray;
	EXPECT_EQ(0, memcmp(&g_guid, &t[0].ProviderGuid, sizeof(GUID)));
	EXPECT_EQ(0, memcmp(&sample_guid, &t[1].ProviderGuid, sizeof(GUID)));
	EXPECT_EQ(0, t[0].SchemaSource);
	EXPECT_EQ(0, t[1].SchemaSource);
	EXPECT_EQ(8 + 2 * 24, t[0].ProviderNameOffset);
	free(pei);
	EXPECT_STREQ("G Etw-Test-Manifest ", provider_names(names, 256));
	ASSERT_EQ(ERROR_SUCCESS, TdhUnloadManifestFromMemory(G_MAN("G"),
					(ULONG)strlen(G_MAN("G"))));
	EXPECT_STREQ("Etw-Test-Manifest ", provider_names(names, 256));
}

/* Every entry of the sample manifest, by field type. */
static const struct {
	EVENT_FIELD_TYPE type;
	const char *want;
} enum_cases[] = {
	{ EventKeywordInformation, "Net|Network|10 Disk|-|20 Mem|-|40 " },
	/* Defined levels, then winmeta's that events use (its text). */
	{ EventLevelInformation,
	  "Chatty|Very chatty|10 win:Informational|Information|4 " },
	/* The channel's name, not its chid. */
	{ EventChannelInformation, "Etw-Test-Manifest/Operational|-|10 " },
	{ EventTaskInformation, "Connect|Connecting|3 " },
	/* Opcode << 16 | task. */
	{ EventOpcodeInformation, "Retry|Retrying|b0003 win:Start|Start|10000 " },
};

TEST_F(env, enumerate_fields_of_sample)
{
	char out[512];
	size_t i;

	ASSERT_EQ(ERROR_SUCCESS, load_sample());
	for (i = 0; i < sizeof(enum_cases) / sizeof(enum_cases[0]); i++) {
		TH_LOG("type %d", enum_cases[i].type);
		EXPECT_STREQ(enum_cases[i].want,
			     fields(&sample_guid, enum_cases[i].type, false, 0,
				    out, sizeof(out)));
	}
}

/* Queries of the sample manifest: the entries, or the code. */
static const struct {
	EVENT_FIELD_TYPE type;
	ULONGLONG value;
	const char *want;
} query_cases[] = {
	{ EventKeywordInformation, 0x10, "Net|Network|10 " },
	/* Every keyword whose bits are all in the mask. */
	{ EventKeywordInformation, 0x31, "Net|Network|10 Disk|-|20 " },
	{ EventKeywordInformation, ~0ull,
	  "Net|Network|10 Disk|-|20 Mem|-|40 " },
	{ EventKeywordInformation, 0x80, "error 1168" },
	{ EventKeywordInformation, 0, "error 1168" },
	{ EventLevelInformation, 16, "Chatty|Very chatty|10 " },
	{ EventLevelInformation, 4, "win:Informational|Information|4 " },
	{ EventLevelInformation, 5, "error 1168" },
	{ EventLevelInformation, 0x110, "error 1168" },
	{ EventChannelInformation, 16, "Etw-Test-Manifest/Operational|-|10 " },
	{ EventChannelInformation, 17, "error 1168" },
	{ EventTaskInformation, 3, "Connect|Connecting|3 " },
	{ EventTaskInformation, 4, "error 1168" },
	{ EventOpcodeInformation, 11 << 16 | 3, "Retry|Retrying|b0003 " },
	/* A global opcode from any task: its entry says task 0. */
	{ EventOpcodeInformation, 1 << 16 | 3, "win:Start|Start|10000 " },
	{ EventOpcodeInformation, 1 << 16, "win:Start|Start|10000 " },
	/* Retry is task 3's only; no event uses win:Stop. */
	{ EventOpcodeInformation, 11 << 16, "error 1168" },
	{ EventOpcodeInformation, 11 << 16 | 4, "error 1168" },
	{ EventOpcodeInformation, 2 << 16 | 3, "error 1168" },
};

TEST_F(env, query_fields_of_sample)
{
	char out[512];
	size_t i;

	ASSERT_EQ(ERROR_SUCCESS, load_sample());
	for (i = 0; i < sizeof(query_cases) / sizeof(query_cases[0]); i++) {
		TH_LOG("type %d value 0x%llx", query_cases[i].type,
		       (unsigned long long)query_cases[i].value);
		EXPECT_STREQ(query_cases[i].want,
			     fields(&sample_guid, query_cases[i].type, true,
				    query_cases[i].value, out, sizeof(out)));
	}
}

/*
 * The codes both field functions share, called through @query (value
 * 0x10); @need: the size of the keywords' answer.
 */
static void field_codes(struct __test_metadata *_metadata, bool query,
			ULONG need)
{
	PROVIDER_FIELD_INFOARRAY a;
	ULONG size = sizeof(a);
	char out[64];

	const EVENT_FIELD_TYPE kw = EventKeywordInformation;

	ASSERT_EQ(ERROR_INVALID_PARAMETER,
		  field_call(NULL, kw, query, 0x10, &a, &size));
	ASSERT_EQ(ERROR_INVALID_PARAMETER,
		  field_call(&sample_guid, kw, query, 0x10, &a, NULL));
	ASSERT_EQ(ERROR_INVALID_PARAMETER,
		  field_call(&sample_guid, kw, query, 0x10, NULL, &size));
	ASSERT_EQ(ERROR_NOT_SUPPORTED,
		  field_call(&sample_guid, EventInformationMax, query, 0x10,
			     &a, &size));
	ASSERT_EQ(ERROR_NOT_SUPPORTED,
		  field_call(&sample_guid, (EVENT_FIELD_TYPE)-1, query, 0x10,
			     &a, &size));
	ASSERT_EQ(ERROR_NOT_FOUND,
		  field_call(&nobody_guid, kw, query, 0x10, &a, &size));
	/* Too small (room for one entry, no string): the size needed. */
	ASSERT_EQ(ERROR_INSUFFICIENT_BUFFER,
		  field_call(&sample_guid, kw, query, 0x10, &a, &size));
	ASSERT_EQ(need, size);
	/* G defines nothing and its event uses no winmeta item. */
	ASSERT_STREQ("error 1168", fields(&g_guid, EventKeywordInformation,
					  query, 0x10, out, 64));
	ASSERT_STREQ("error 1168", fields(&g_guid, EventLevelInformation,
					  query, 0x10, out, 64));
}

TEST_F(env, enumerate_fields_codes)
{
	ASSERT_EQ(ERROR_SUCCESS, load_sample());
	ASSERT_EQ(ERROR_SUCCESS, load_g(G_MAN("G")));
	field_codes(_metadata, false,
		    8 + 3 * 16 + 2 * sizeof("Net") + 2 * sizeof("Network") +
		    2 * sizeof("Disk") + 2 * sizeof("Mem"));
}

TEST_F(env, query_fields_codes)
{
	ASSERT_EQ(ERROR_SUCCESS, load_sample());
	ASSERT_EQ(ERROR_SUCCESS, load_g(G_MAN("G")));
	/* Only Net is within 0x10. */
	field_codes(_metadata, true,
		    8 + 16 + 2 * sizeof("Net") + 2 * sizeof("Network"));
}

/* The first TDH call (enumerating) with stderr captured into @out. */
static const char *first_call(char *names, char *out, size_t size)
{
	FILE *f = tmpfile();
	int saved;
	size_t n;

	fflush(stderr);
	saved = dup(2);
	dup2(fileno(f), 2);
	provider_names(names, 256);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(f);
	n = fread(out, 1, size - 1, f);
	out[n] = 0;
	fclose(f);
	return names;
}

/* A directory's *.man files, alphabetically; a bad one is skipped. */
TEST_F(env, path_directory_skips_bad_manifest)
{
	char names[256], err[1024];

	put_file(self->sub[0], "a.man", BAD_MAN);
	put_file(self->sub[0], "b.man", G_MAN("G"));
	put_file(self->sub[0], "c.txt", G_MAN("NotAManFile"));
	put_file(self->sub[0], "d.man", "<not xml");
	put_file(self->sub[1], "e.man", G_MAN("Shadowed"));
	ASSERT_EQ(0, setenv("ETW_MANIFEST_PATH", self->sub[0], 1));
	EXPECT_STREQ("G ", first_call(names, err, sizeof(err)));
	/* Without ETW_MANIFEST_DEBUG, nothing on stderr. */
	EXPECT_STREQ("", err);
}

TEST_F(env, path_files_dirs_and_empty_entries)
{
	char path[512], names[256], err[1024], file[128];

	snprintf(file, sizeof(file), "%s/sample.xml", self->dir);
	ASSERT_EQ(0, symlink(SAMPLE, file));
	put_file(self->sub[1], "g.man", G_MAN("G"));
	/* A file of any name, a missing entry, empty entries, a directory. */
	snprintf(path, sizeof(path), ":%s::/nonexistent/x.man:%s:", file,
		 self->sub[1]);
	ASSERT_EQ(0, setenv("ETW_MANIFEST_PATH", path, 1));
	EXPECT_STREQ("Etw-Test-Manifest G ",
		     first_call(names, err, sizeof(err)));
	EXPECT_STREQ("", err);
}

/* The first manifest found for a provider wins; loading beats them all. */
TEST_F(env, first_found_wins_and_loaded_wins_over_path)
{
	char path[256], names[256];
	WCHAR w[512];

	put_file(self->sub[0], "x.man", G_MAN("First"));
	put_file(self->sub[1], "a.man", G_MAN("Second"));
	snprintf(path, sizeof(path), "%s:%s", self->sub[0], self->sub[1]);
	ASSERT_EQ(0, setenv("ETW_MANIFEST_PATH", path, 1));
	EXPECT_STREQ("First ", provider_names(names, 256));
	ASSERT_EQ(ERROR_SUCCESS, load_g(G_MAN("Loaded")));
	EXPECT_STREQ("Loaded ", provider_names(names, 256));
	ASSERT_EQ(ERROR_SUCCESS, TdhUnloadManifestFromMemory(G_MAN("Loaded"),
					(ULONG)strlen(G_MAN("Loaded"))));
	EXPECT_STREQ("First ", provider_names(names, 256));
	/* Only loaded manifests unload. */
	snprintf(path, sizeof(path), "%s/x.man", self->sub[0]);
	ASSERT_EQ(ERROR_FILE_NOT_FOUND, TdhUnloadManifest(tdh_wide(path, w)));
	/* Loading a path manifest's file, then unloading it, keeps it. */
	ASSERT_EQ(ERROR_SUCCESS, TdhLoadManifest(tdh_wide(path, w)));
	ASSERT_EQ(ERROR_SUCCESS, TdhUnloadManifest(tdh_wide(path, w)));
	EXPECT_STREQ("First ", provider_names(names, 256));
}

/* One file reached three ways is read once. */
TEST_F(env, file_reached_twice_is_read_once)
{
	char path[256], names[256], err[2048];
	const char *p, *line = "/x.man: 1 provider(s)\n";
	int n = 0;

	put_file(self->sub[0], "x.man", G_MAN("G"));
	snprintf(path, sizeof(path), "%s:%s/../d0:%s/x.man", self->sub[0],
		 self->sub[0], self->sub[0]);
	ASSERT_EQ(0, setenv("ETW_MANIFEST_PATH", path, 1));
	ASSERT_EQ(0, setenv("ETW_MANIFEST_DEBUG", "1", 1));
	EXPECT_STREQ("G ", first_call(names, err, sizeof(err)));
	for (p = strstr(err, line); p; p = strstr(p + 1, line))
		n++;
	EXPECT_EQ(1, n);
}

TEST_F(env, installed_directory_without_path)
{
	char names[256];

	ASSERT_EQ(0, mkdir(ETW_MANIFEST_DIR, 0755));
	put_file(ETW_MANIFEST_DIR, "g.man", G_MAN("Installed"));
	EXPECT_STREQ("Installed ", provider_names(names, 256));
}

/* The path comes first; a bad installed manifest is skipped too. */
TEST_F(env, path_beats_installed_directory)
{
	char names[256];

	ASSERT_EQ(0, mkdir(ETW_MANIFEST_DIR, 0755));
	put_file(ETW_MANIFEST_DIR, "g.man", G_MAN("Installed"));
	put_file(ETW_MANIFEST_DIR, "s.man", "<instrumentationManifest/>");
	put_file(self->sub[0], "s.man", G_MAN("FromPath"));
	ASSERT_EQ(0, setenv("ETW_MANIFEST_PATH", self->sub[0], 1));
	EXPECT_STREQ("FromPath ", provider_names(names, 256));
}

TEST_F(env, debug_tells_what_each_file_did)
{
	char names[256], err[2048], want[256];

	put_file(self->sub[0], "a.man", BAD_MAN);
	put_file(self->sub[0], "b.man", G_MAN("G"));
	ASSERT_EQ(0, setenv("ETW_MANIFEST_PATH", self->sub[0], 1));
	ASSERT_EQ(0, setenv("ETW_MANIFEST_DEBUG", "1", 1));
	EXPECT_STREQ("G ", first_call(names, err, sizeof(err)));
	snprintf(want, sizeof(want), "/a.man:4: level=\"Loud\" is not "
		 "defined\nlibetw: %s/a.man: skipped (error 1465)\n",
		 self->sub[0]);
	EXPECT_NE(NULL, strstr(err, want));
	snprintf(want, sizeof(want), "libetw: %s/b.man: 1 provider(s)\n",
		 self->sub[0]);
	EXPECT_NE(NULL, strstr(err, want));
	snprintf(want, sizeof(want), "libetw: %s: No such file or "
		 "directory\n", ETW_MANIFEST_DIR);
	EXPECT_NE(NULL, strstr(err, want));
}

/* The path is read once: a later change of the variable changes nothing. */
TEST_F(env, path_read_once)
{
	char names[256];

	put_file(self->sub[0], "g.man", G_MAN("G"));
	EXPECT_STREQ("", provider_names(names, 256));
	ASSERT_EQ(0, setenv("ETW_MANIFEST_PATH", self->sub[0], 1));
	EXPECT_STREQ("", provider_names(names, 256));
}

/* Event 1 of the sample (T_Conn), 8-byte pointers. */
static const uint8_t conn_data[] = {
	0x00, 0x50, 0x01, 0, 0, 0, 0x05, 0, 0, 0, 'a', 0, 'b', 0, 0, 0,
	0x01, 0x00, 0x7f, 0x00, 0x00, 0x01, 'x', 0, 0x00, 0, 0, 0,
	0x07, 0x08, 0x00, 0x10, 0, 0, 0, 0, 0, 0,
};

/* A consumer decodes a manifest event without TdhLoadManifest. */
TEST_F(env, decode_without_load)
{
	PROPERTY_DATA_DESCRIPTOR pdd = { 0 };
	WCHAR port_w[8], map_w[16];
	TRACE_EVENT_INFO *tei;
	EVENT_RECORD r;
	ULONG st, size = 0;
	USHORT port;
	char s[64];

	ASSERT_EQ(0, setenv("ETW_MANIFEST_PATH", SAMPLE, 1));
	memset(&r, 0, sizeof(r));
	r.EventHeader.ProviderId = sample_guid;
	r.EventHeader.Flags = EVENT_HEADER_FLAG_64_BIT_HEADER;
	r.EventHeader.EventDescriptor.Id = 1;
	r.EventHeader.EventDescriptor.Version = 1;
	r.UserData = (void *)conn_data;
	r.UserDataLength = sizeof(conn_data);
	tei = tdh_info(&r, &st);
	ASSERT_NE(NULL, tei) TH_LOG("status %lu", (unsigned long)st);
	EXPECT_EQ(DecodingSourceXMLFile, tei->DecodingSource);
	EXPECT_STREQ("Etw-Test-Manifest",
		     tdh_tei_str(tei, tei->ProviderNameOffset, s, 64));
	EXPECT_STREQ("Connecting", tdh_tei_str(tei, tei->TaskNameOffset, s, 64));
	free(tei);
	pdd.PropertyName = (ULONGLONG)(uintptr_t)tdh_wide("Port", port_w);
	pdd.ArrayIndex = 0xFFFFFFFF;
	ASSERT_EQ(ERROR_SUCCESS, TdhGetProperty(&r, 0, NULL, 1, &pdd,
						sizeof(port), (BYTE *)&port));
	EXPECT_EQ(0x5000, port);
	EXPECT_EQ(ERROR_INSUFFICIENT_BUFFER,
		  TdhGetEventMapInformation(&r, tdh_wide("StateMap", map_w),
					    NULL, &size));
}

struct first_caller {
	pthread_t t;
	char names[256];
};

static void *enumerate(void *arg)
{
	struct first_caller *c = arg;

	provider_names(c->names, sizeof(c->names));
	return NULL;
}

/* Threads racing to make the first call all see the whole path. */
TEST_F(env, first_calls_race)
{
	struct first_caller c[4];
	int i;

	put_file(self->sub[0], "g.man", G_MAN("G"));
	ASSERT_EQ(0, setenv("ETW_MANIFEST_PATH", self->sub[0], 1));
	for (i = 0; i < 4; i++)
		ASSERT_EQ(0, pthread_create(&c[i].t, NULL, enumerate, &c[i]));
	for (i = 0; i < 4; i++) {
		pthread_join(c[i].t, NULL);
		EXPECT_STREQ("G ", c[i].names);
	}
}

TEST_HARNESS_MAIN
