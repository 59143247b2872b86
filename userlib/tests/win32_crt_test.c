/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * The Windows C runtime around ETW code (<etw_crt.h>, <strsafe.h>,
 * <tchar.h>, libetw's etw_crt.c and etw_win32.c, libetw-wmain): a program
 * in the shape of Windows' samples (data/win32/crt_print.c) is built as C
 * and C++, ANSI and UNICODE, with the C++ standard headers before and
 * after <windows.h>, by gcc and clang, with -fshort-wchar and a wmain
 * entry point, and its output must be data/win32/crt_print.expected, byte
 * for byte.  So must two consumers': data/win32/tdh_consumer.c's (C and
 * C++) and data/win32/xml_consumer.cpp's, which has the headers and the
 * Win32 calls of Microsoft's EtwConsumer sample (C++).  The compilers run
 * from the project root, SRC_DIR.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "testdata.h"

#define WARNINGS	"-Wall -Wextra -Werror"
#define INCLUDES	"-Iuserlib/include -Iuapi"
#define LIBS		"userlib/libetw-wmain.a userlib/libetw.a -lxml2 -lpthread"
#define PROG		"userlib/tests/data/win32/crt_print.c"
#define EXPECTED	"userlib/tests/data/win32/crt_print.expected"
#define CONSUMER	"userlib/tests/data/win32/tdh_consumer.c"
#define DOC_TOOLS	"userlib/tests/data/win32/doc_tools"
#define CONSUMED	"userlib/tests/data/win32/tdh_consumer.expected"
#define PRIMITIVE	TESTDATA "/etl/primitive-types.etl"
#define CLR_GC		TESTDATA "/etl/clr-gc-events.etl"
#define XML		"userlib/tests/data/win32/xml_consumer"
/* Windows' own casts of GetProcAddress's FARPROC, which -Wextra reports. */
#define XML_BUILD	" -fshort-wchar " WARNINGS " -Wno-cast-function-type " \
	INCLUDES " -o %s/x " XML ".cpp -x none " LIBS

static int run(const char *cmd)
{
	char buf[8192];

	snprintf(buf, sizeof(buf), "cd '%s' && %s", SRC_DIR, cmd);
	fprintf(stderr, "# %s\n", cmd);
	return system(buf);
}

static int have(const char *compiler)
{
	char buf[256];

	snprintf(buf, sizeof(buf), "%s --version >/dev/null 2>&1", compiler);
	return system(buf) == 0;
}

FIXTURE(crt) {
	char dir[32];
};

FIXTURE_VARIANT(crt) {
	const char *compiler;
	const char *flags;
};

FIXTURE_VARIANT_ADD(crt, gcc_c99_ansi) {
	.compiler = "gcc", .flags = "-x c -std=c99 -pedantic",
};

FIXTURE_VARIANT_ADD(crt, gcc_c11_unicode) {
	.compiler = "gcc", .flags = "-x c -std=c11 -DUNICODE -D_UNICODE",
};

FIXTURE_VARIANT_ADD(crt, clang_c11_unicode) {
	.compiler = "clang", .flags = "-x c -std=c11 -DUNICODE -D_UNICODE",
};

FIXTURE_VARIANT_ADD(crt, gxx_cxx98_ansi) {
	.compiler = "g++", .flags = "-x c++ -std=c++98",
};

FIXTURE_VARIANT_ADD(crt, gxx_cxx17_unicode) {
	.compiler = "g++", .flags = "-x c++ -std=c++17 -DUNICODE -D_UNICODE",
};

FIXTURE_VARIANT_ADD(crt, gxx_cxx17_std_first) {
	.compiler = "g++", .flags = "-x c++ -std=c++17 -DSTD_FIRST -DUNICODE",
};

FIXTURE_VARIANT_ADD(crt, clangxx_cxx17_unicode) {
	.compiler = "clang++", .flags = "-x c++ -std=c++17 -DUNICODE",
};

FIXTURE_VARIANT_ADD(crt, clangxx_cxx14_std_first) {
	.compiler = "clang++", .flags = "-x c++ -std=c++14 -DSTD_FIRST",
};

FIXTURE_SETUP(crt)
{
	if (!have(variant->compiler))
		SKIP(return, "%s not installed", variant->compiler);
	strcpy(self->dir, "/tmp/etw-crt-XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
}

FIXTURE_TEARDOWN(crt)
{
	char cmd[64];

	if (!self->dir[0])
		return;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", self->dir);
	EXPECT_EQ(0, system(cmd));
}

/* Every answer, printed by wprintf, is the expected one. */
TEST_F_TIMEOUT(crt, sample_prints_expected_output, 120)
{
	char cmd[2048];

	snprintf(cmd, sizeof(cmd),
		 "%s %s -fshort-wchar " WARNINGS " " INCLUDES " -o %s/p " PROG
		 " -x none " LIBS " && %s/p '\303\244rg x' > %s/out && "
		 "diff -u " EXPECTED " %s/out >&2",
		 variant->compiler, variant->flags, self->dir, self->dir,
		 self->dir, self->dir);
	EXPECT_EQ(0, run(cmd));
}

/*
 * A program in the shape of the ETW documentation's controller and TDH
 * examples: <conio.h>'s keys from a file ("ab", then its end), COM's GUID
 * strings, byte order, LookupAccountSid and GetModuleHandle, each answer
 * the expected one.  Not from a pipe: its writer may not have written yet
 * when the first _kbhit looks, which then sees no key.
 */
TEST_F_TIMEOUT(crt, doc_examples_calls, 120)
{
	char cmd[2048];

	snprintf(cmd, sizeof(cmd),
		 "%s %s -fshort-wchar " WARNINGS " " INCLUDES " -o %s/d "
		 DOC_TOOLS ".c -x none " LIBS " && printf ab > %s/keys && "
		 "%s/d < %s/keys > %s/out && diff -u " DOC_TOOLS ".expected "
		 "%s/out >&2",
		 variant->compiler, variant->flags, self->dir, self->dir,
		 self->dir, self->dir, self->dir, self->dir);
	EXPECT_EQ(0, run(cmd));
}

/*
 * A consumer in the shape of Microsoft's TdhFormatProperty sample reads
 * the ETL file Windows wrote and prints each property as the file holds
 * it (the int64_type field is declared UINT64 in its metadata).
 */
TEST_F_TIMEOUT(crt, consumer_prints_windows_file, 120)
{
	char cmd[2048];

	REQUIRE_TESTDATA();
	snprintf(cmd, sizeof(cmd),
		 "%s %s -fshort-wchar " WARNINGS " " INCLUDES " -o %s/c "
		 CONSUMER " -x none " LIBS " && %s/c '" PRIMITIVE "' > %s/out"
		 " && diff -u " CONSUMED " %s/out >&2",
		 variant->compiler, variant->flags, self->dir, self->dir,
		 self->dir, self->dir);
	EXPECT_EQ(0, run(cmd));
}

/*
 * A consumer in the shape of Microsoft's EtwConsumer sample (the same
 * headers in the same order, inside extern "C"; LoadLibrary and
 * GetProcAddress for TdhFormatProperty; GetDateFormatW, GetTimeFormatW,
 * FormatMessageW for the event message ...), built as C++ by g++ and
 * clang++: its table of Win32 answers, its XML for the Windows file and
 * the CLR events' messages must be the expected ones.
 */
FIXTURE(consumer) {
	char dir[32];
};

FIXTURE_VARIANT(consumer) {
	const char *compiler;
	const char *flags;
};

FIXTURE_VARIANT_ADD(consumer, gxx_cxx98) {
	.compiler = "g++", .flags = "-x c++ -std=c++98",
};

FIXTURE_VARIANT_ADD(consumer, gxx_cxx17_unicode) {
	.compiler = "g++", .flags = "-x c++ -std=c++17 -DUNICODE -D_UNICODE",
};

FIXTURE_VARIANT_ADD(consumer, clangxx_cxx14) {
	.compiler = "clang++", .flags = "-x c++ -std=c++14",
};

FIXTURE_VARIANT_ADD(consumer, clangxx_cxx17_unicode) {
	.compiler = "clang++", .flags = "-x c++ -std=c++17 -DUNICODE",
};

FIXTURE_SETUP(consumer)
{
	char cmd[2048];

	if (!have(variant->compiler))
		SKIP(return, "%s not installed", variant->compiler);
	strcpy(self->dir, "/tmp/etw-xml-XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	snprintf(cmd, sizeof(cmd), "%s %s" XML_BUILD, variant->compiler,
		 variant->flags, self->dir);
	ASSERT_EQ(0, run(cmd));
}

FIXTURE_TEARDOWN(consumer)
{
	char cmd[64];

	if (!self->dir[0])
		return;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", self->dir);
	EXPECT_EQ(0, system(cmd));
}

/* GetVersionEx, LoadLibrary, GetDateFormat, FormatMessage ... per case. */
TEST_F_TIMEOUT(consumer, win32_answers, 120)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd), "%s/x checks > %s/out && diff -u "
		 XML ".expected %s/out >&2", self->dir, self->dir, self->dir);
	EXPECT_EQ(0, run(cmd));
}

TEST_F_TIMEOUT(consumer, xml_of_windows_file, 120)
{
	char cmd[1024];

	REQUIRE_TESTDATA();
	snprintf(cmd, sizeof(cmd), "%s/x '" PRIMITIVE "' -xml > %s/out && "
		 "diff -u " XML "_primitive.expected %s/out >&2", self->dir,
		 self->dir, self->dir);
	EXPECT_EQ(0, run(cmd));
}

/* The CLR manifest's messages, their inserts from the events' fields. */
TEST_F_TIMEOUT(consumer, messages_of_clr_events, 120)
{
	char cmd[1024];

	REQUIRE_TESTDATA();
	snprintf(cmd, sizeof(cmd), "ETW_MANIFEST_PATH=userlib/manifests/clr.man "
		 "%s/x '" CLR_GC "' > %s/out && diff -u " XML "_clr.expected "
		 "%s/out >&2", self->dir, self->dir, self->dir);
	EXPECT_EQ(0, run(cmd));
}

/*
 * libetw-wmain calls C++'s wmain in each of its forms: wmain(),
 * wmain(int, wchar_t **) and wmain(int, wchar_t **, wchar_t **); the exit
 * status says which ran and that it saw its arguments.
 */
FIXTURE(wmain) {
	int unused;
};

FIXTURE_SETUP(wmain) {}

FIXTURE_TEARDOWN(wmain) {}

TEST_F_TIMEOUT(wmain, forms_in_cxx, 120)
{
	static const struct {
		const char *def;
		int status;
	} forms[] = {
		{ "int wmain(void) { return 3; }", 3 },
		{ "int wmain(int c, wchar_t **v) "
		  "{ return c == 2 && v[1][0] == 0x20ac ? 4 : 1; }", 4 },
		{ "int wmain(int c, wchar_t **v, wchar_t **e) "
		  "{ return c == 2 && v[1][1] == 0 && e[0] ? 5 : 1; }", 5 },
	};
	char dir[] = "/tmp/etw-wmain-XXXXXX";
	char cmd[2048];
	unsigned int i;

	if (!have("g++"))
		SKIP(return, "g++ not installed");
	ASSERT_NE(NULL, mkdtemp(dir));
	for (i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		snprintf(cmd, sizeof(cmd),
			 "printf '#include <windows.h>\\n%s\\n' | g++ -x c++ "
			 "-fshort-wchar " WARNINGS " " INCLUDES " -o %s/w - "
			 "-x none " LIBS " && { %s/w '\342\202\254'; test $? = %d; }",
			 forms[i].def, dir, dir, forms[i].status);
		EXPECT_EQ(0, run(cmd));
	}
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	EXPECT_EQ(0, system(cmd));
}

/*
 * The documentation's controllers define void wmain(void): libetw-wmain
 * runs it, from C and C++ (its exit status is undefined, as on Windows,
 * where a void main returns no code).
 */
TEST_F_TIMEOUT(wmain, void_form_runs, 120)
{
	static const char *const compilers[] = { "gcc -x c", "g++ -x c++" };
	static const char prog[] =
		"#include <windows.h>\n"
		"void wmain(void) { wprintf(L\"void wmain ran\\n\"); }\n";
	char dir[] = "/tmp/etw-wmain-XXXXXX";
	char path[64], cmd[2048];
	unsigned int i;
	FILE *f;

	ASSERT_NE(NULL, mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/void.c", dir);
	f = fopen(path, "w");
	ASSERT_NE(NULL, f);
	fputs(prog, f);
	ASSERT_EQ(0, fclose(f));
	for (i = 0; i < sizeof(compilers) / sizeof(compilers[0]); i++) {
		snprintf(cmd, sizeof(cmd),
			 "%s -fshort-wchar " WARNINGS " " INCLUDES " -o %s/w %s "
			 "-x none " LIBS " && test \"$(%s/w)\" = 'void wmain ran'",
			 compilers[i], dir, path, dir);
		EXPECT_EQ(0, run(cmd));
	}
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	EXPECT_EQ(0, system(cmd));
}

/*
 * The TraceLogging quick start's void main(), which MSVC accepts and ISO
 * C++ refuses: built with -Dmain=etw_void_main, libetw-wmain runs it and
 * exits 0, as MSVC's start-up does for a void main.
 */
TEST_F_TIMEOUT(wmain, void_main_runs_and_exits_0, 120)
{
	static const char *const compilers[] = { "gcc -x c", "g++ -x c++" };
	static const char prog[] =
		"#include <windows.h>\n"
		"void main() { wprintf(L\"void main ran\\n\"); }\n";
	char dir[] = "/tmp/etw-wmain-XXXXXX";
	char path[64], cmd[2048];
	unsigned int i;
	FILE *f;

	ASSERT_NE(NULL, mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/void.c", dir);
	f = fopen(path, "w");
	ASSERT_NE(NULL, f);
	fputs(prog, f);
	ASSERT_EQ(0, fclose(f));
	for (i = 0; i < sizeof(compilers) / sizeof(compilers[0]); i++) {
		snprintf(cmd, sizeof(cmd),
			 "%s -fshort-wchar -Dmain=etw_void_main " WARNINGS " "
			 INCLUDES " -o %s/w %s -x none " LIBS " && "
			 "test \"$(%s/w)\" = 'void main ran'", compilers[i], dir,
			 path, dir);
		EXPECT_EQ(0, run(cmd));
		snprintf(cmd, sizeof(cmd), "%s/w > /dev/null", dir);
		EXPECT_EQ(0, system(cmd));
	}
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	EXPECT_EQ(0, system(cmd));
}

/*
 * ...and the samples are Windows code: MinGW-w64 compiles them, ANSI and
 * UNICODE, C and C++.
 */
TEST(sample_compiles_for_windows)
{
	if (!have("x86_64-w64-mingw32-gcc"))
		SKIP(return, "x86_64-w64-mingw32-gcc not installed");
	EXPECT_EQ(0, run("x86_64-w64-mingw32-gcc -municode " WARNINGS
			 " -fsyntax-only " PROG));
	EXPECT_EQ(0, run("x86_64-w64-mingw32-gcc -municode -DUNICODE "
			 "-D_UNICODE " WARNINGS " -fsyntax-only " PROG));
	EXPECT_EQ(0, run("x86_64-w64-mingw32-gcc -municode " WARNINGS
			 " -fsyntax-only " DOC_TOOLS ".c"));
	EXPECT_EQ(0, run("x86_64-w64-mingw32-g++ -x c++ -municode -DUNICODE "
			 "-D_UNICODE " WARNINGS " -fsyntax-only " DOC_TOOLS
			 ".c"));
}


/*
 * glibc's fortified wide functions would bypass the renaming: a
 * -fshort-wchar build with _FORTIFY_SOURCE stops with the message.
 */
TEST(fortify_source_with_short_wchar_stops)
{
	EXPECT_EQ(0, run("printf '#include <windows.h>\\n' | gcc -x c -O2 "
			 "-D_FORTIFY_SOURCE=2 -fshort-wchar " INCLUDES
			 " -fsyntax-only - 2>&1 | "
			 "grep -q 'built without _FORTIFY_SOURCE'"));
}

TEST_HARNESS_MAIN
