/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * Code around mc.exe-generated headers, compiled with libetw's headers in
 * each language mode we support: the <windows.h> macros such code uses,
 * with their Windows values (data/mcgen_windows.c), and the header etwctl
 * mc writes for selftests/mcgen_events.man (build/mc/mcgen_events.h) in
 * two units linked into one program (data/mcgen_link.c).  The behaviour against the module is the
 * mcgen_test and mcgen_cxx_test kselftests'.
 *
 * The compilers run from the project root, SRC_DIR.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"

#define WARNINGS "-Wall -Wextra -Werror"
#define INCLUDES "-Iuserlib/include -Iuapi -Iselftests -Ibuild/mc"
#define MCGEN_UNITS "selftests/mcgen_tu1.c selftests/mcgen_tu2.c"
/* The header's win:UnicodeString template needs 16-bit wchar_t. */
#define WIDE "-fshort-wchar"

/* Runs @cmd in the project root; returns its exit status. */
static int run(const char *cmd)
{
	char buf[8192];

	snprintf(buf, sizeof(buf), "cd '%s' && %s 1>&2", SRC_DIR, cmd);
	return system(buf);
}

static int have(const char *compiler)
{
	char buf[256];

	snprintf(buf, sizeof(buf), "%s --version >/dev/null 2>&1", compiler);
	return system(buf) == 0;
}

FIXTURE(lang) {
	char dir[64];
};

FIXTURE_VARIANT(lang) {
	const char *compiler;
	const char *flags;
};

FIXTURE_VARIANT_ADD(lang, c99_pedantic) {
	.compiler = "cc", .flags = "-x c -std=c99 -pedantic",
};

FIXTURE_VARIANT_ADD(lang, gnu11) {
	.compiler = "cc", .flags = "-x c -std=gnu11",
};

FIXTURE_VARIANT_ADD(lang, clang_c11) {
	.compiler = "clang", .flags = "-x c -std=c11",
};

FIXTURE_VARIANT_ADD(lang, cxx17) {
	.compiler = "c++", .flags = "-x c++ -std=c++17",
};

FIXTURE_VARIANT_ADD(lang, cxx20_pedantic) {
	.compiler = "c++", .flags = "-x c++ -std=c++20 -pedantic",
};

FIXTURE_VARIANT_ADD(lang, clangxx17) {
	.compiler = "clang++", .flags = "-x c++ -std=c++17",
};

FIXTURE_SETUP(lang)
{
	if (!have(variant->compiler))
		SKIP(return, "%s not installed", variant->compiler);
	strcpy(self->dir, "/tmp/etw-mcgen-XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
}

FIXTURE_TEARDOWN(lang)
{
	char cmd[128];

	if (!self->dir[0])
		return;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", self->dir);
	if (system(cmd))
		TH_LOG("could not remove %s", self->dir);
}

/* Every macro has its Windows value (the program checks; 0 = all did). */
TEST_F(lang, windows_macros_have_windows_values)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd),
		 "%s %s " WARNINGS " " INCLUDES " -o %s/w "
		 "userlib/tests/data/mcgen_windows.c && %s/w",
		 variant->compiler, variant->flags, self->dir, self->dir);
	EXPECT_EQ(0, run(cmd)) TH_LOG("%s", cmd);
}

/* The standard headers still compile after <windows.h>. */
TEST_F(lang, standard_headers_after_windows_h)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd),
		 "%s %s " WARNINGS " " INCLUDES " -fsyntax-only "
		 "userlib/tests/data/windows_then_std.c",
		 variant->compiler, variant->flags);
	EXPECT_EQ(0, run(cmd)) TH_LOG("%s", cmd);
}

/*
 * With -fshort-wchar (which mc.exe headers with win:UnicodeString need)
 * every libetw header compiles without a warning, and the macros keep
 * their values.
 */
TEST_F(lang, headers_compile_clean_with_short_wchar)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd),
		 "%s %s " WIDE " " WARNINGS " " INCLUDES
		 " -include wmistr.h -include evntrace.h -include evntcons.h"
		 " -include tdh.h -include winmeta.h"
		 " -include TraceLoggingProvider.h -o %s/w "
		 "userlib/tests/data/mcgen_windows.c && %s/w",
		 variant->compiler, variant->flags, self->dir, self->dir);
	EXPECT_EQ(0, run(cmd)) TH_LOG("%s", cmd);
}

/*
 * The mc.exe-shaped header in two units links into one program that sees
 * one copy of each selectany object.  -Wno-unknown-pragmas: mc.exe's
 * output has MSVC's #pragma warning lines.  Every object is built with
 * -fshort-wchar, as the program must agree on wchar_t.
 */
TEST_F(lang, mc_header_units_link_and_share)
{
	char cmd[2048];

	snprintf(cmd, sizeof(cmd),
		 "%s %s " WIDE " " WARNINGS " -Wno-unknown-pragmas " INCLUDES
		 " -c -o %s/tu1.o selftests/mcgen_tu1.c && "
		 "%s %s " WIDE " " WARNINGS " -Wno-unknown-pragmas " INCLUDES
		 " -c -o %s/tu2.o selftests/mcgen_tu2.c && "
		 "cc " WIDE " " WARNINGS " " INCLUDES " -c -o %s/main.o "
		 "userlib/tests/data/mcgen_link.c && "
		 "%s -o %s/link %s/main.o %s/tu1.o %s/tu2.o "
		 "userlib/libetw.a -lpthread && %s/link",
		 variant->compiler, variant->flags, self->dir,
		 variant->compiler, variant->flags, self->dir, self->dir,
		 variant->compiler, self->dir, self->dir, self->dir,
		 self->dir, self->dir);
	EXPECT_EQ(0, run(cmd)) TH_LOG("%s", cmd);
}

/*
 * C++ before 17 has no definition a const selectany object can become:
 * the header stops with a message that says what to do.
 */
TEST(mc_header_before_cxx17_says_why)
{
	EXPECT_EQ(0, run("c++ -x c++ -std=c++14 " WIDE " -Wno-unknown-pragmas "
			 INCLUDES " -fsyntax-only selftests/mcgen_tu1.c "
			 "2>&1 | grep -q "
			 "'error: __declspec(selectany) needs C++17 "
			 "(-std=c++17)'"));
}

TEST_HARNESS_MAIN
