// SPDX-License-Identifier: GPL-2.0
/*
 * etwctl mc: the headers it writes for ctl/tests/mc/simple.man and
 * advanced.man (in the shape of Microsoft's Simple and Advanced provider
 * samples) build, as C and as C++17, with programs in the shape of the
 * samples' (mc/simple_prog.c, mc/advanced_prog.c); each event those
 * write (caught by mc/mc_hooks.h) has its descriptor, and decodes through
 * TDH with its manifest to the values written.  Bad manifests and
 * arguments give one line on stderr and a non-zero status.
 *
 * The compilers run from the project root, SRC_DIR.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "etwctl.h"
#include <tdh.h>

#define MC_DIR		"ctl/tests/mc"
#define MC_FLAGS	"-fshort-wchar -Wall -Wextra -Werror " \
			"-Wno-unknown-pragmas -Iuserlib/include -Iuapi -I" MC_DIR
#define MC_LIBS		"-x none userlib/libetw.a -lxml2 -lpthread"
#define MC_MAX_EVENTS	32

/* Runs @cmd in the project root; returns its exit status. */
static int run(const char *cmd)
{
	char buf[4096];

	snprintf(buf, sizeof(buf), "cd '%s' && %s", SRC_DIR, cmd);
	return system(buf);
}

/* "etwctl mc ARGS...", its stderr in @err. */
static int mc(char *err, size_t size, int argc, const char **args)
{
	char path[] = "/tmp/mc_test_err.XXXXXX";
	char *argv[16] = { (char *)"mc" };
	int fd = mkstemp(path), saved, ret, i;
	ssize_t n;

	for (i = 0; i < argc && i < 14; i++)
		argv[i + 1] = (char *)args[i];
	fflush(stderr);
	saved = dup(2);
	dup2(fd, 2);
	ret = etwctl_cmd_mc(argc + 1, argv);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	n = pread(fd, err, size - 1, 0);
	err[n > 0 ? n : 0] = 0;
	close(fd);
	unlink(path);
	return ret;
}

/* One line of mc_hooks.h's output. */
struct mc_event {
	struct etw_event_descriptor d;
	unsigned int traits;
	uint8_t data[256];
	uint32_t len;
};

static int mc_events(const char *path, struct mc_event *ev)
{
	char line[1024], *p;
	unsigned int v[7];
	unsigned long long kw;
	FILE *f = fopen(path, "r");
	int n = 0, used;

	while (f && n < MC_MAX_EVENTS && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "E %u %u %u %u %u %u %llx %u %n", &v[0],
			   &v[1], &v[2], &v[3], &v[4], &v[5], &kw, &v[6],
			   &used) != 8)
			break;
		ev[n] = (struct mc_event){
			.d = { .id = v[0], .version = v[1], .channel = v[2],
			       .level = v[3], .opcode = v[4], .task = v[5],
			       .keyword = kw },
			.traits = v[6],
		};
		for (p = line + used; p[0] && p[0] != '\n' &&
		     ev[n].len < sizeof(ev[n].data); p += 2)
			if (sscanf(p, "%2hhx", &ev[n].data[ev[n].len++]) != 1) {
				fclose(f);
				return -1;
			}
		n++;
	}
	if (f)
		fclose(f);
	return n;
}

/* The decoded fields: "Name=Value", separated by spaces. */
static void mc_field(void *ctx, const struct etwctl_field_text *f)
{
	char *s = ctx;
	size_t n = strlen(s);

	snprintf(s + n, 1024 - n, "%s%.*s=%.*s", n ? " " : "",
		 (int)f->name_len, f->name, (int)f->value_len, f->value);
}

/* "ID VERSION CHANNEL LEVEL OPCODE TASK KEYWORD: FIELDS" of @e. */
static int mc_decode(const GUID *g, const struct mc_event *e, char *out)
{
	struct etw_etl_event ev = {
		.kind = ETW_ETL_KIND_EVENT,
		.header_type = ETW_EVENT_HEADER_TYPE_64,
		.descriptor = e->d,
		.user_data = e->data,
		.user_data_len = e->len,
	};
	struct etwctl_names names;
	char fields[1024] = "";
	int ret;

	memcpy(&ev.provider_id, g, sizeof(*g));
	ret = etwctl_decode_event(&ev, &names, mc_field, fields);
	snprintf(out, 1200, "%u %u %u %u %u %u 0x%llx: %s", e->d.id,
		 e->d.version, e->d.channel, e->d.level, e->d.opcode,
		 e->d.task, (unsigned long long)e->d.keyword, fields);
	return ret;
}

static const char *const simple_expected[] = {
	"201 0 9 4 0 0 0x8000000000000000: Count=-3",
	"202 0 16 3 0 0 0x4000000000000000: Ratio=2.5",
	"203 0 16 2 0 0 0x4000000000000000: Flag=true",
	"204 0 9 1 0 0 0x8000000000000000: Text=Sample \xc3\xa9",
	"205 0 9 1 0 0 0x8000000000000000: Id=6b1f3c2e-9d4a-4e57-8a0b-2c7d5e9f1a36",
};

static const char *const advanced_expected[] = {
	"301 0 8 1 1 100 0x8000000000000000: I8=-5",
	"302 0 8 1 2 100 0x8000000000000000: U8=0xAB",
	"303 0 9 2 0 0 0x4000000000000000: I16=-300",
	"304 0 9 2 0 0 0x4000000000000000: U16=65000",
	"305 0 16 3 10 101 0x2000000000000000: State=Bad",
	"306 0 16 3 0 0 0x2000000000000000: I64=-5000000000",
	"307 0 16 3 0 0 0x2000000000000000: U64=0x1234567890ABCDEF",
	"308 0 17 4 0 0 0x1000000000000000: D=-0.25",
	"309 0 17 4 0 0 0x1000000000000000: Ptr=0x1000",
	"310 0 17 4 0 0 0x1000000000000000: When=2023-07-13T19:29:40.1407488Z",
	"311 0 17 4 0 0 0x1000000000000000: Clock=2024-02-29T13:14:15.016",
	"312 0 17 4 0 0 0x1000000000000000: User=S-1-1-0",
	"313 0 17 5 0 0 0x1000000000000000: Name=ansi text",
	"314 0 17 5 0 0 0x1000000000000000: Code=ABCDE",
	"315 0 17 5 0 0 0x1000000000000000: Tag=WXYZ",
	"316 0 17 5 0 0 0x1000000000000000: Mac=0xDEAD01",
	"317 0 17 5 0 0 0x1000000000000000: Text=xyz",
	"318 0 17 5 0 0 0x1000000000000000: Blob=0x7F80",
	"319 0 17 5 0 0 0x1000000000000000: Bytes=[1,-1,2,-2]",
	"320 0 17 5 0 0 0x1000000000000000: Words=[\"ab\",\"cde\"]",
	"321 0 17 5 0 0 0x1000000000000000: Values=[7,-8,9]",
	"322 0 17 5 0 0 0x1000000000000000: Codes=[\"abc\",\"def\"]",
	"323 0 17 5 0 0 0x1000000000000000: Before=16962 Points[0].X=1 Points[0].Y=-2 Points[1].X=3 Points[1].Y=4",
	"324 2 17 16 0 0 0x1000000000000020: Colors=Red | Blue",
	"325 0 17 5 0 0 0x1000000000000000: ",
	"326 0 17 5 0 0 0x1060000000000020: U16=7",
};

static const GUID simple_guid = { 0x6b1f3c2e, 0x9d4a, 0x4e57,
	{ 0x8a, 0x0b, 0x2c, 0x7d, 0x5e, 0x9f, 0x1a, 0x36 } };
static const GUID advanced_guid = { 0x0d4c8a71, 0x5e26, 0x4b93,
	{ 0xb1, 0xf8, 0x7a, 0x3e, 0x6c, 0x2d, 0x9f, 0x05 } };

FIXTURE(prog) {
	char dir[64];
};

FIXTURE_VARIANT(prog) {
	const char *name;	/* NAME.man, NAME_prog.c, NAME_events.h */
	const char *compiler;
	const GUID *guid;
	const char *const *expected;
	int n;
};

FIXTURE_VARIANT_ADD(prog, simple_c) {
	.name = "simple", .compiler = "cc -x c -std=c11",
	.guid = &simple_guid, .expected = simple_expected,
	.n = sizeof(simple_expected) / sizeof(simple_expected[0]),
};

FIXTURE_VARIANT_ADD(prog, simple_cxx) {
	.name = "simple", .compiler = "c++ -x c++ -std=c++17",
	.guid = &simple_guid, .expected = simple_expected,
	.n = sizeof(simple_expected) / sizeof(simple_expected[0]),
};

FIXTURE_VARIANT_ADD(prog, advanced_c) {
	.name = "advanced", .compiler = "cc -x c -std=c11",
	.guid = &advanced_guid, .expected = advanced_expected,
	.n = sizeof(advanced_expected) / sizeof(advanced_expected[0]),
};

FIXTURE_VARIANT_ADD(prog, advanced_cxx) {
	.name = "advanced", .compiler = "c++ -x c++ -std=c++17",
	.guid = &advanced_guid, .expected = advanced_expected,
	.n = sizeof(advanced_expected) / sizeof(advanced_expected[0]),
};

FIXTURE_SETUP(prog)
{
	snprintf(self->dir, sizeof(self->dir), "/tmp/mc_test.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	ASSERT_EQ(0, setenv("ETW_MANIFEST_PATH", SRC_DIR "/" MC_DIR
			    "/simple.man:" SRC_DIR "/" MC_DIR "/advanced.man",
			    1));
}

FIXTURE_TEARDOWN(prog)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", self->dir);
	EXPECT_EQ(0, system(cmd));
}

/* The header builds with the program, which writes every event. */
TEST_F(prog, events_decode)
{
	char man[256], name[64], cmd[1024], err[256], got[1200], out[128];
	const char *args[] = { "-um", "-h", self->dir, "-z", name, man };
	struct mc_event ev[MC_MAX_EVENTS];
	int i, n;

	snprintf(man, sizeof(man), "%s/%s/%s.man", SRC_DIR, MC_DIR,
		 variant->name);
	snprintf(name, sizeof(name), "%s_events", variant->name);
	ASSERT_EQ(0, mc(err, sizeof(err), 6, args)) TH_LOG("%s", err);
	EXPECT_STREQ("", err);
	snprintf(out, sizeof(out), "%s/out", self->dir);
	snprintf(cmd, sizeof(cmd), "%s " MC_FLAGS " -I%s -o %s/prog %s/%s_prog.c "
		 MC_LIBS " && %s/prog > %s", variant->compiler, self->dir,
		 self->dir, MC_DIR, variant->name, self->dir, out);
	ASSERT_EQ(0, run(cmd));
	n = mc_events(out, ev);
	ASSERT_EQ(variant->n, n);
	for (i = 0; i < n; i++) {
		EXPECT_EQ(2 + strlen("Etw-Test-Mc-") + strlen(variant->name) + 1,
			  ev[i].traits);
		EXPECT_EQ(0, mc_decode(variant->guid, &ev[i], got));
		EXPECT_STREQ(variant->expected[i], got);
	}
}

/*
 * winmeta.xml's keywords in a manifest: TdhGetEventInformation names the
 * provider's first, then winmeta's, as Event Viewer shows "Audit Success"
 * (learn.microsoft.com, "KeywordType complex type": the win: keywords
 * winmeta.xml defines).
 */
TEST(winmeta_keyword_names)
{
	EVENT_RECORD r = { 0 };
	TRACE_EVENT_INFO *tei;
	const char *names[] = { "ResourceLimit", "Audit Success",
				"Correlation Hint", "" };
	WCHAR path[256];
	ULONG size = 0, i, off;
	char s[64];

	for (i = 0; i < 1 + strlen(SRC_DIR "/" MC_DIR "/advanced.man"); i++)
		path[i] = (SRC_DIR "/" MC_DIR "/advanced.man")[i];
	ASSERT_EQ(ERROR_SUCCESS, TdhLoadManifest(path));
	r.EventHeader.ProviderId = advanced_guid;
	r.EventHeader.Flags = EVENT_HEADER_FLAG_64_BIT_HEADER;
	r.EventHeader.EventDescriptor.Id = 326;
	r.EventHeader.EventDescriptor.Keyword = 0x1060000000000020ull;
	ASSERT_EQ(ERROR_INSUFFICIENT_BUFFER,
		  TdhGetEventInformation(&r, 0, NULL, NULL, &size));
	tei = malloc(size);
	ASSERT_NE(NULL, tei);
	ASSERT_EQ(ERROR_SUCCESS,
		  TdhGetEventInformation(&r, 0, NULL, tei, &size));
	off = tei->KeywordsNameOffset;
	ASSERT_NE(0u, off);
	for (i = 0; i < 4; i++) {
		const WCHAR *w = (const WCHAR *)((BYTE *)tei + off);
		ULONG n;

		for (n = 0; w[n] && n < sizeof(s) - 1; n++)
			s[n] = (char)w[n];
		s[n] = 0;
		EXPECT_STREQ(names[i], s);
		off += 2 * (n + 1);
	}
	TdhUnloadManifest(path);
	free(tei);
}

/* A provider of one event whose template has a field of @in_type. */
#define MC_MANIFEST(channels, in_type, tmpl_ref) \
	"<instrumentationManifest xmlns=\"http://schemas.microsoft.com/win/2004/08/events\">\n" \
	"<instrumentation><events>\n" \
	"<provider name=\"P\" symbol=\"P\" guid=\"{11111111-2222-3333-4444-555555555555}\">\n" \
	"<channels>" channels "</channels>\n" \
	"<templates><template tid=\"T\">" \
	"<data name=\"F\" inType=\"" in_type "\"/></template></templates>\n" \
	"<events><event value=\"1\" symbol=\"E\" template=\"" tmpl_ref "\"/></events>\n" \
	"</provider></events></instrumentation></instrumentationManifest>\n"

FIXTURE(bad) {
	char dir[64];
	char man[96];
	char header[96];
	char err[512];
};

FIXTURE_SETUP(bad)
{
	snprintf(self->dir, sizeof(self->dir), "/tmp/mc_test.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	snprintf(self->man, sizeof(self->man), "%s/bad.man", self->dir);
	snprintf(self->header, sizeof(self->header), "%s/bad.h", self->dir);
}

FIXTURE_TEARDOWN(bad)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", self->dir);
	EXPECT_EQ(0, system(cmd));
}

/* "etwctl mc -h DIR DIR/bad.man" on @xml: its status, no header. */
static int mc_bad(struct _test_data_bad *self, const char *xml)
{
	const char *args[] = { "-h", self->dir, self->man };
	FILE *f = fopen(self->man, "w");
	int ret;

	if (!f || fputs(xml, f) < 0 || fclose(f))
		return -1;
	ret = mc(self->err, sizeof(self->err), 3, args);
	return access(self->header, F_OK) ? ret : -1;
}

/* The one line @self->err must be: "etwctl mc: MANIFEST:WHAT\n". */
static void mc_line(struct _test_data_bad *self, const char *what,
		    char *out, size_t size)
{
	snprintf(out, size, "etwctl mc: %s:%s\n", self->man, what);
}

TEST_F(bad, not_a_manifest)
{
	char want[256];

	ASSERT_EQ(ETWCTL_EXIT_RUNTIME, mc_bad(self, "<events/>\n"));
	mc_line(self, "1: not an instrumentationManifest", want, sizeof(want));
	EXPECT_STREQ(want, self->err);
}

TEST_F(bad, undefined_template)
{
	char want[256];

	ASSERT_EQ(ETWCTL_EXIT_RUNTIME,
		  mc_bad(self, MC_MANIFEST("", "win:UInt32", "T_None")));
	mc_line(self, "6: no template \"T_None\"", want, sizeof(want));
	EXPECT_STREQ(want, self->err);
}

TEST_F(bad, import_unknown_channel)
{
	char want[256];

	ASSERT_EQ(ETWCTL_EXIT_RUNTIME,
		  mc_bad(self, MC_MANIFEST("<importChannel chid=\"C\" name=\"Setup\"/>",
					   "win:UInt32", "T")));
	mc_line(self, "4: importChannel \"Setup\" is not System, Application or Security",
		want, sizeof(want));
	EXPECT_STREQ(want, self->err);
}

TEST_F(bad, counted_string)
{
	char want[256];

	ASSERT_EQ(ETWCTL_EXIT_RUNTIME,
		  mc_bad(self, MC_MANIFEST("", "win:CountedUnicodeString",
					   "T")));
	mc_line(self, " template \"T\": F: mc.exe writes no Counted types",
		want, sizeof(want));
	EXPECT_STREQ(want, self->err);
}

TEST_F(bad, header_dir_missing)
{
	const char *args[] = { "-h", "/nonexistent", self->man };
	FILE *f = fopen(self->man, "w");

	ASSERT_NE(NULL, f);
	fputs(MC_MANIFEST("", "win:UInt32", "T"), f);
	ASSERT_EQ(0, fclose(f));
	EXPECT_EQ(ETWCTL_EXIT_RUNTIME, mc(self->err, sizeof(self->err), 3, args));
	EXPECT_STREQ("etwctl mc: /nonexistent/bad.h: No such file or directory\n",
		     self->err);
}

TEST(kernel_mode_refused)
{
	const char *args[] = { "-km", "x.man" };
	char err[256];

	EXPECT_EQ(ETWCTL_EXIT_USAGE, mc(err, sizeof(err), 2, args));
	EXPECT_STREQ("etwctl mc: -km: no kernel-mode headers (see 'etwctl mc --help')\n",
		     err);
}

TEST(manifest_needed)
{
	const char *args[] = { "-um" };
	char err[256];

	EXPECT_EQ(ETWCTL_EXIT_USAGE, mc(err, sizeof(err), 1, args));
	EXPECT_STREQ("etwctl mc: need one MANIFEST (see 'etwctl mc --help')\n", err);
}

TEST_HARNESS_MAIN
