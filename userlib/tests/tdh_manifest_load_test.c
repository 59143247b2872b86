/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * Loading and unloading instrumentation manifests: the Win32 code of every
 * error path, the "FILE:LINE: what" message of a bad manifest, and that a
 * bad manifest loads nothing.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "tdh_test.h"

#define SAMPLE	SRC_DIR "/userlib/tests/tdh_manifest_sample.man"

static GUID sample_guid = { 0x12345678, 0x9abc, 0xdef0,
	{ 0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef } };
static GUID other_guid = { 0x0badf00d, 0x1, 0x2,
	{ 3, 4, 5, 6, 7, 8, 9, 10 } };

/* Whether event @id (version 1) of @g is decodable now. */
static ULONG lookup(GUID *g, USHORT id)
{
	EVENT_DESCRIPTOR d = { .Id = id, .Version = 1 };
	ULONG size = 0;

	return TdhGetManifestEventInformation(g, &d, NULL, &size);
}

/* @fn(@arg) with stderr captured into @out. */
static ULONG captured(ULONG (*fn)(const char *), const char *arg, char *out,
		      size_t size)
{
	FILE *f = tmpfile();
	int saved;
	size_t n;
	ULONG ret;

	fflush(stderr);
	saved = dup(2);
	dup2(fileno(f), 2);
	ret = fn(arg);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(f);
	n = fread(out, 1, size - 1, f);
	out[n] = 0;
	fclose(f);
	return ret;
}

static ULONG load_mem(const char *xml)
{
	return TdhLoadManifestFromMemory(xml, (ULONG)strlen(xml));
}

static ULONG load_path(const char *path)
{
	WCHAR w[512];

	return TdhLoadManifest(tdh_wide(path, w));
}

TEST(load_unload_codes)
{
	WCHAR w[600];
	char longp[300];

	memset(longp, 'a', sizeof(longp) - 1);
	longp[0] = '/';
	longp[sizeof(longp) - 1] = 0;
	ASSERT_EQ(ERROR_INVALID_PARAMETER, TdhLoadManifest(NULL));
	ASSERT_EQ(ERROR_INVALID_PARAMETER, TdhLoadManifest(tdh_wide("", w)));
	ASSERT_EQ(ERROR_INVALID_PARAMETER,
		  TdhLoadManifest(tdh_wide(longp, w)));
	ASSERT_EQ(ERROR_FILE_NOT_FOUND,
		  TdhLoadManifest(tdh_wide("/nonexistent/x.man", w)));
	ASSERT_EQ(ERROR_INVALID_PARAMETER, TdhUnloadManifest(NULL));
	ASSERT_EQ(ERROR_INVALID_PARAMETER,
		  TdhUnloadManifest(tdh_wide(longp, w)));
	ASSERT_EQ(ERROR_FILE_NOT_FOUND, TdhUnloadManifest(tdh_wide(SAMPLE, w)));
	ASSERT_EQ(ERROR_INVALID_PARAMETER, TdhLoadManifestFromMemory(NULL, 4));
	ASSERT_EQ(ERROR_INVALID_PARAMETER, TdhLoadManifestFromMemory("x", 0));
	ASSERT_EQ(ERROR_INVALID_PARAMETER,
		  TdhUnloadManifestFromMemory(NULL, 4));
	ASSERT_EQ(ERROR_INVALID_PARAMETER, TdhUnloadManifestFromMemory("x", 0));
	ASSERT_EQ(ERROR_FILE_NOT_FOUND, TdhUnloadManifestFromMemory("x", 1));
}

TEST(load_then_unload_file)
{
	WCHAR w[512];

	ASSERT_EQ(ERROR_NOT_FOUND, lookup(&sample_guid, 1));
	ASSERT_EQ(ERROR_SUCCESS, TdhLoadManifest(tdh_wide(SAMPLE, w)));
	ASSERT_EQ(ERROR_INSUFFICIENT_BUFFER, lookup(&sample_guid, 1));
	ASSERT_EQ(ERROR_INSUFFICIENT_BUFFER, lookup(&sample_guid, 2));
	ASSERT_EQ(ERROR_NOT_FOUND, lookup(&sample_guid, 3));
	/* A second load of the same file is the same manifest. */
	ASSERT_EQ(ERROR_SUCCESS, TdhLoadManifest(tdh_wide(SAMPLE, w)));
	ASSERT_EQ(ERROR_SUCCESS, TdhUnloadManifest(tdh_wide(SAMPLE, w)));
	ASSERT_EQ(ERROR_NOT_FOUND, lookup(&sample_guid, 1));
	ASSERT_EQ(ERROR_FILE_NOT_FOUND, TdhUnloadManifest(tdh_wide(SAMPLE, w)));
}

#define MAN_HEAD \
	"<instrumentationManifest xmlns=\"http://schemas.microsoft.com/" \
	"win/2004/08/events\">\n<instrumentation><events>\n"
#define MAN_TAIL "</events></instrumentation>\n</instrumentationManifest>\n"
/* A good provider (line 3) whose event 1 other_guid would decode. */
#define GOOD_PROV \
	"<provider name=\"G\" guid=\"{0BADF00D-0001-0002-0304-05060708090A}\">" \
	"<events><event value=\"1\" version=\"1\"/></events></provider>\n"
#define PROV(body) \
	"<provider name=\"P\" guid=\"{11111111-2222-3333-4444-555555555555}\">" \
	"\n" body "</provider>\n"

TEST(load_then_unload_memory)
{
	static const char xml[] = MAN_HEAD GOOD_PROV MAN_TAIL;
	char copy[sizeof(xml)];

	ASSERT_EQ(ERROR_SUCCESS, load_mem(xml));
	ASSERT_EQ(ERROR_INSUFFICIENT_BUFFER, lookup(&other_guid, 1));
	/* Unloading matches the bytes, not the pointer. */
	memcpy(copy, xml, sizeof(xml));
	ASSERT_EQ(ERROR_SUCCESS,
		  TdhUnloadManifestFromMemory(copy, sizeof(xml) - 1));
	ASSERT_EQ(ERROR_NOT_FOUND, lookup(&other_guid, 1));
}

/* Each manifest has GOOD_PROV on line 3, then the broken item on @line. */
static const struct {
	const char *xml;
	const char *msg;	/* the whole message, "(memory):LINE: ..." */
} bad[] = {
	{ MAN_HEAD GOOD_PROV "<provider", "(memory):4: " },
	{ MAN_HEAD GOOD_PROV PROV("<events><event version=\"1\"/></events>")
	  MAN_TAIL, "libetw: (memory):5: <event> needs value=\n" },
	{ MAN_HEAD GOOD_PROV PROV("<events><event value=\"70000\"/></events>")
	  MAN_TAIL,
	  "libetw: (memory):5: value=\"70000\" is not a number up to 65535\n" },
	{ MAN_HEAD GOOD_PROV PROV("<events><event value=\"1\" level=\"Loud\"/>"
				  "</events>") MAN_TAIL,
	  "libetw: (memory):5: level=\"Loud\" is not defined\n" },
	{ MAN_HEAD GOOD_PROV PROV("<events><event value=\"1\" keywords=\"A\"/>"
				  "</events>") MAN_TAIL,
	  "libetw: (memory):5: keyword \"A\" not defined\n" },
	{ MAN_HEAD GOOD_PROV PROV("<events><event value=\"1\" template=\"T\"/>"
				  "</events>") MAN_TAIL,
	  "libetw: (memory):5: no template \"T\"\n" },
	{ MAN_HEAD GOOD_PROV PROV("<events><event value=\"1\"/>\n"
				  "<event value=\"1\"/></events>") MAN_TAIL,
	  "libetw: (memory):6: event 1 version 0 twice\n" },
	{ MAN_HEAD GOOD_PROV PROV("<templates><template tid=\"T\">"
				  "<data name=\"a\" inType=\"win:Int99\"/>"
				  "</template></templates>") MAN_TAIL,
	  "libetw: (memory):5: unknown inType \"win:Int99\"\n" },
	{ MAN_HEAD GOOD_PROV PROV("<templates><template tid=\"T\">"
				  "<data name=\"a\" inType=\"win:Int8\" "
				  "outType=\"xs:nothing\"/>"
				  "</template></templates>") MAN_TAIL,
	  "libetw: (memory):5: unknown outType \"xs:nothing\"\n" },
	{ MAN_HEAD GOOD_PROV PROV("<templates><template tid=\"T\">\n"
				  "<data name=\"a\" inType=\"win:UInt8\" "
				  "map=\"M\"/></template></templates>") MAN_TAIL,
	  "libetw: (memory):6: no map \"M\"\n" },
	{ MAN_HEAD GOOD_PROV PROV("<templates><template tid=\"T\">\n"
				  "<data name=\"b\" inType=\"win:UInt8\" "
				  "count=\"n\"/>\n<data name=\"n\" "
				  "inType=\"win:UInt8\"/>"
				  "</template></templates>") MAN_TAIL,
	  "libetw: (memory):6: count=\"n\" names no unsigned integer "
	  "before it\n" },
	{ MAN_HEAD GOOD_PROV PROV("<templates><template tid=\"T\">"
				  "<data name=\"b\" inType=\"win:UInt8\" "
				  "count=\"n\"/><data name=\"n\" "
				  "inType=\"win:UInt8\"/>"
				  "</template></templates>") MAN_TAIL,
	  "libetw: (memory):5: count=\"n\" names no unsigned integer "
	  "before it\n" },
	{ MAN_HEAD GOOD_PROV PROV("<templates><template tid=\"T\">\n"
				  "<data name=\"n\" inType=\"win:Int8\"/>\n"
				  "<data name=\"b\" inType=\"win:Binary\" "
				  "length=\"n\"/></template></templates>")
	  MAN_TAIL,
	  "libetw: (memory):7: length=\"n\" names no unsigned integer "
	  "before it\n" },
	{ MAN_HEAD GOOD_PROV PROV("<templates><template tid=\"T\">\n"
				  "<data name=\"b\" inType=\"win:Binary\"/>"
				  "</template></templates>") MAN_TAIL,
	  "libetw: (memory):6: win:Binary needs length=\n" },
	{ MAN_HEAD GOOD_PROV PROV("<templates><template tid=\"T\">\n"
				  "<struct name=\"s\"><struct name=\"t\">"
				  "</struct></struct></template></templates>")
	  MAN_TAIL, "libetw: (memory):6: a struct inside a struct\n" },
	{ MAN_HEAD GOOD_PROV PROV("<templates><template tid=\"T\">\n"
				  "<struct name=\"s\"></struct>"
				  "</template></templates>") MAN_TAIL,
	  "libetw: (memory):6: an empty struct\n" },
	{ MAN_HEAD GOOD_PROV PROV("<templates><template tid=\"T\"/>\n"
				  "<template tid=\"T\"/></templates>") MAN_TAIL,
	  "libetw: (memory):6: tid \"T\" twice\n" },
	{ MAN_HEAD GOOD_PROV PROV("<keywords><keyword name=\"k\" mask=\"1\"/>\n"
				  "<keyword name=\"k\" mask=\"2\"/></keywords>")
	  MAN_TAIL, "libetw: (memory):6: \"k\" defined twice\n" },
	{ MAN_HEAD GOOD_PROV PROV("<maps><valueMap name=\"M\">\n"
				  "<map value=\"1\"/></valueMap></maps>")
	  MAN_TAIL, "libetw: (memory):6: <map> needs message=\n" },
	{ MAN_HEAD GOOD_PROV PROV("<levels><level name=\"l\" value=\"1\" "
				  "message=\"$(string.nope)\"/></levels>")
	  MAN_TAIL,
	  "libetw: (memory):5: no string \"nope\" in the stringTable\n" },
	{ MAN_HEAD GOOD_PROV "<provider name=\"B\" guid=\"{1-2-3}\"/>\n"
	  MAN_TAIL, "libetw: (memory):4: bad guid \"{1-2-3}\"\n" },
	{ MAN_HEAD GOOD_PROV GOOD_PROV MAN_TAIL,
	  "libetw: (memory):4: provider {0BADF00D-0001-0002-0304-05060708090A}"
	  " twice\n" },
	{ "<x/>\n", "libetw: (memory):1: not an instrumentationManifest\n" },
	{ MAN_HEAD MAN_TAIL, "libetw: (memory):1: no provider\n" },
};

TEST(bad_manifests_load_nothing)
{
	char msg[512];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		TH_LOG("case %zu", i);
		ASSERT_EQ(ERROR_XML_PARSE_ERROR,
			  captured(load_mem, bad[i].xml, msg, sizeof(msg)));
		/* libxml2 words its own messages (case 0). */
		if (i == 0) {
			ASSERT_NE(NULL, strstr(msg, bad[i].msg));
		} else {
			ASSERT_STREQ(bad[i].msg, msg);
		}
		ASSERT_EQ(ERROR_NOT_FOUND, lookup(&other_guid, 1));
		ASSERT_EQ(ERROR_FILE_NOT_FOUND,
			  TdhUnloadManifestFromMemory(bad[i].xml,
						      strlen(bad[i].xml)));
	}
}

TEST(bad_file_names_its_line)
{
	char dir[] = "/tmp/tdh_manifest_XXXXXX", path[64], msg[512];
	FILE *f;

	ASSERT_NE(NULL, mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/bad.man", dir);
	f = fopen(path, "w");
	ASSERT_NE(NULL, f);
	fputs(MAN_HEAD GOOD_PROV PROV("<events><event value=\"x\"/></events>")
	      MAN_TAIL, f);
	fclose(f);
	ASSERT_EQ(ERROR_XML_PARSE_ERROR,
		  captured(load_path, path, msg, sizeof(msg)));
	unlink(path);
	rmdir(dir);
	ASSERT_NE(NULL, strstr(msg, "/bad.man:5: value=\"x\" is not a number"));
	ASSERT_EQ(ERROR_NOT_FOUND, lookup(&other_guid, 1));
}

/* A decoder's view while another thread loads and unloads. */
struct racer {
	pthread_t t;
	atomic_int *stop;
	unsigned long found, missing, bad;
};

static void *race(void *arg)
{
	EVENT_DESCRIPTOR d = { .Id = 1, .Version = 1 };
	struct racer *r = arg;
	ULONG size, st;
	char s[32];
	union {
		TRACE_EVENT_INFO tei;
		BYTE b[4096];
	} u;

	while (!atomic_load(r->stop)) {
		size = sizeof(u);
		st = TdhGetManifestEventInformation(&sample_guid, &d, &u.tei,
						    &size);
		if (st == ERROR_NOT_FOUND)
			r->missing++;
		else if (st == ERROR_SUCCESS &&
			 !strcmp("Connecting",
				 tdh_tei_str(&u.tei, u.tei.TaskNameOffset, s,
					     32)))
			r->found++;
		else
			r->bad++;
	}
	return NULL;
}

TEST(decoders_race_load_and_unload)
{
	atomic_int stop = 0;
	struct racer r[2] = { { .stop = &stop }, { .stop = &stop } };
	WCHAR w[512];
	int i;

	for (i = 0; i < 2; i++)
		ASSERT_EQ(0, pthread_create(&r[i].t, NULL, race, &r[i]));
	for (i = 0; i < 200; i++) {
		ASSERT_EQ(ERROR_SUCCESS, TdhLoadManifest(tdh_wide(SAMPLE, w)));
		usleep(100);
		ASSERT_EQ(ERROR_SUCCESS,
			  TdhUnloadManifest(tdh_wide(SAMPLE, w)));
	}
	atomic_store(&stop, 1);
	for (i = 0; i < 2; i++) {
		pthread_join(r[i].t, NULL);
		TH_LOG("decoder %d: %lu found, %lu missing", i, r[i].found,
		       r[i].missing);
		EXPECT_EQ(0ul, r[i].bad);
		EXPECT_LT(0ul, r[i].found + r[i].missing);
	}
}

TEST_HARNESS_MAIN
