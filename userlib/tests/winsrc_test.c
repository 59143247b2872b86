/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * Source compatibility: code written for Windows compiles unchanged
 * against libetw's headers, warning-free, as C99, C11 and C++, and the
 * headers stand alone in every language mode we support.
 *
 * The compilers run from the project root, SRC_DIR (the Makefile's
 * directory).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"

#define WARNINGS "-Wall -Wextra -Werror"
#define INCLUDES "-Iuserlib/include -Iuapi"
#define WINPROG "userlib/tests/data/winprog.c"

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

FIXTURE(winprog) {
	int unused;
};

FIXTURE_VARIANT(winprog) {
	const char *compiler;
	const char *flags;
};

FIXTURE_VARIANT_ADD(winprog, c99_pedantic) {
	.compiler = "cc", .flags = "-std=c99 -pedantic -c -o /dev/null",
};

FIXTURE_VARIANT_ADD(winprog, gnu11) {
	.compiler = "cc", .flags = "-std=gnu11 -c -o /dev/null",
};

FIXTURE_VARIANT_ADD(winprog, c11_unicode) {
	.compiler = "cc", .flags = "-std=c11 -DUNICODE -c -o /dev/null",
};

FIXTURE_VARIANT_ADD(winprog, cxx11) {
	.compiler = "c++", .flags = "-x c++ -std=c++11 -fsyntax-only",
};

FIXTURE_VARIANT_ADD(winprog, cxx17_unicode) {
	.compiler = "c++",
	.flags = "-x c++ -std=c++17 -DUNICODE -fsyntax-only",
};

FIXTURE_VARIANT_ADD(winprog, clang_c11) {
	.compiler = "clang", .flags = "-std=c11 -c -o /dev/null",
};

FIXTURE_SETUP(winprog)
{
	if (!have(variant->compiler))
		SKIP(return, "%s not installed", variant->compiler);
}

FIXTURE_TEARDOWN(winprog) {}

static int compile_winprog(const char *compiler, const char *flags)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd), "%s %s " WARNINGS " " INCLUDES " " WINPROG,
		 compiler, flags);
	fprintf(stderr, "# %s\n", cmd);
	return run(cmd);
}

/* The Windows program compiles unchanged with our headers. */
TEST_F(winprog, compiles)
{
	EXPECT_EQ(0, compile_winprog(variant->compiler, variant->flags));
}

/* ...and it is genuine Windows code: MinGW-w64 compiles it too. */
TEST(winprog_compiles_for_windows)
{
	if (!have("x86_64-w64-mingw32-gcc"))
		SKIP(return, "x86_64-w64-mingw32-gcc not installed");
	EXPECT_EQ(0, run("x86_64-w64-mingw32-gcc " WARNINGS
			 " -fsyntax-only " WINPROG));
}

/*
 * Each header on its own, first in a unit, in strict modes: it must pull
 * in what it needs and use nothing a pedantic C99 or C++98 compiler
 * rejects.  A variant per mode: in C++ <windows.h> reads the standard
 * headers first, which takes a while.
 */
FIXTURE(header_mode) {
	int unused;
};

FIXTURE_VARIANT(header_mode) {
	const char *mode;
};

FIXTURE_VARIANT_ADD(header_mode, c99) {
	.mode = "cc -std=c99 -pedantic -Wstrict-prototypes -x c",
};

FIXTURE_VARIANT_ADD(header_mode, c11_initguid) {
	.mode = "cc -std=c11 -pedantic -Wstrict-prototypes -DINITGUID -x c",
};

FIXTURE_VARIANT_ADD(header_mode, cxx98) {
	.mode = "c++ -std=c++98 -pedantic -x c++",
};

FIXTURE_VARIANT_ADD(header_mode, cxx17_initguid_unicode) {
	.mode = "c++ -std=c++17 -pedantic -DINITGUID -DUNICODE -x c++",
};

FIXTURE_SETUP(header_mode) {}

FIXTURE_TEARDOWN(header_mode) {}

TEST_F_TIMEOUT(header_mode, each_header_stands_alone, 300)
{
	static const char *const headers[] = {
		"windows.h", "wmistr.h", "evntprov.h", "evntrace.h",
		"evntcons.h", "guiddef.h", "initguid.h", "tdh.h",
		"strsafe.h", "tchar.h", "shellapi.h", "objbase.h",
		"etw_crt.h",
	};
	char cmd[1024];
	unsigned int h;

	for (h = 0; h < sizeof(headers) / sizeof(headers[0]); h++) {
		snprintf(cmd, sizeof(cmd),
			 "printf '#include <%s>\\n' | %s " WARNINGS
			 " -Wshadow " INCLUDES " -fsyntax-only -",
			 headers[h], variant->mode);
		EXPECT_EQ(0, run(cmd)) TH_LOG("%s", cmd);
	}
}

/* Two units defining the GUIDs with INITGUID link and share one copy. */
TEST(initguid_units_link_together)
{
	char dir[] = "/tmp/etw-initguid-XXXXXX";
	char cmd[1024];

	ASSERT_NE(NULL, mkdtemp(dir));
	snprintf(cmd, sizeof(cmd),
		 "cc " WARNINGS " " INCLUDES " -o %s/a.out "
		 "userlib/tests/data/initguid_a.c "
		 "userlib/tests/data/initguid_b.c && %s/a.out", dir, dir);
	EXPECT_EQ(0, run(cmd)) TH_LOG("%s", cmd);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	EXPECT_EQ(0, system(cmd));
}

/*
 * As on Windows, where <guiddef.h> reads INITGUID at every inclusion:
 * INITGUID defined after <windows.h>, or <initguid.h>, before
 * <evntrace.h> defines its GUIDs, in C and C++; without either the
 * program does not link (the GUIDs are only declared).
 */
static int build_initguid(const char *compiler, const char *defs)
{
	char dir[] = "/tmp/etw-initguid-XXXXXX";
	char cmd[1024];
	int ret;

	if (!mkdtemp(dir))
		return -1;
	snprintf(cmd, sizeof(cmd),
		 "%s %s " WARNINGS " " INCLUDES " -o %s/a.out "
		 "userlib/tests/data/initguid_after.c 2>/dev/null && %s/a.out",
		 compiler, defs, dir, dir);
	fprintf(stderr, "# %s\n", cmd);
	ret = run(cmd);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		return -1;
	return ret;
}

TEST(initguid_after_windows_h_defines)
{
	EXPECT_EQ(0, build_initguid("cc", "-x c"));
	EXPECT_EQ(0, build_initguid("c++", "-x c++"));
}

TEST(initguid_header_defines)
{
	EXPECT_EQ(0, build_initguid("cc", "-x c -DINITGUID_HEADER"));
	EXPECT_EQ(0, build_initguid("c++", "-x c++ -DINITGUID_HEADER"));
}

TEST(without_initguid_guids_are_only_declared)
{
	EXPECT_NE(0, build_initguid("cc", "-x c -DNO_INITGUID"));
	EXPECT_NE(0, build_initguid("c++", "-x c++ -DNO_INITGUID"));
}

/* Headers as Windows code spells them resolve to libetw's. */
TEST(headers_resolve_in_windows_spelling)
{
	static const char *const headers[] = {
		"Windows.h", "Evntrace.h", "EvnTrace.h", "Evntprov.h",
		"Evntcons.h", "Tdh.h", "WinMeta.h", "Wmistr.h",
		"InitGuid.h", "Initguid.h", "Guiddef.h", "StrSafe.h",
		"Strsafe.h", "ShellAPI.h", "ObjBase.h",
	};
	char cmd[1024];
	unsigned int h;

	for (h = 0; h < sizeof(headers) / sizeof(headers[0]); h++) {
		snprintf(cmd, sizeof(cmd),
			 "printf '#include <%s>\\n' | cc -std=c11 " WARNINGS
			 " " INCLUDES " -fsyntax-only -x c -",
			 headers[h]);
		EXPECT_EQ(0, run(cmd)) TH_LOG("%s", cmd);
	}
}

/*
 * What real code uses from <windows.h> without including it: malloc and
 * free in C++, the SID types, FLOAT, HMODULE, USHORT_MAX, UNICODE_NULL
 * and the TDH error codes, each with its Windows value or size.
 */
TEST(windows_h_brings_what_windows_code_uses)
{
	static const char *const modes[] = {
		"cc -std=c99 -x c", "c++ -std=c++11 -x c++",
	};
	static const char prog[] =
		"#include <windows.h>\\n"
		"int main(void) {\\n"
		" void *p = malloc(sizeof(SID) + sizeof(SID_IDENTIFIER_AUTHORITY));\\n"
		" PSID sid = p; FLOAT f = 1; DOUBLE d = 2; HMODULE m = NULL;\\n"
		" WCHAR nul = UNICODE_NULL; (void)sid; (void)m;\\n"
		" free(p);\\n"
		" return !(sizeof(SID) == 12 && sizeof(SID_IDENTIFIER_AUTHORITY) == 6\\n"
		"  && USHORT_MAX == 65535 && ERROR_NOT_FOUND == 1168\\n"
		"  && ERROR_EVT_INVALID_EVENT_DATA == 15005 && nul == 0\\n"
		"  && sizeof(f) == 4 && sizeof(d) == 8);\\n"
		"}\\n";
	char dir[] = "/tmp/etw-windows-h-XXXXXX";
	char cmd[2048];
	unsigned int m;

	ASSERT_NE(NULL, mkdtemp(dir));
	for (m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
		snprintf(cmd, sizeof(cmd),
			 "printf '%s' | %s " WARNINGS " " INCLUDES
			 " -o %s/a.out - && %s/a.out",
			 prog, modes[m], dir, dir);
		EXPECT_EQ(0, run(cmd)) TH_LOG("%s", cmd);
	}
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	EXPECT_EQ(0, system(cmd));
}

/*
 * The Windows program builds into an executable the way a user builds one:
 * libetw installed under a prefix, flags from pkg-config.
 */
TEST(winprog_links_through_pkg_config)
{
	char dir[] = "/tmp/etw-pkgconfig-XXXXXX";
	char cmd[2048];

	ASSERT_NE(NULL, mkdtemp(dir));
	snprintf(cmd, sizeof(cmd),
		 "make -s install PREFIX=%s/usr >/dev/null && "
		 "PKG_CONFIG_PATH=%s/usr/lib/pkgconfig "
		 "cc " WARNINGS " -o %s/winprog " WINPROG
		 " $(PKG_CONFIG_PATH=%s/usr/lib/pkgconfig "
		 "pkg-config --cflags --libs libetw) && test -x %s/winprog",
		 dir, dir, dir, dir, dir);
	EXPECT_EQ(0, run(cmd)) TH_LOG("%s", cmd);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	EXPECT_EQ(0, system(cmd));
}

TEST_HARNESS_MAIN
