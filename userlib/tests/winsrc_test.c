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
 * rejects.
 */
TEST(each_header_stands_alone)
{
	static const char *const headers[] = {
		"windows.h", "wmistr.h", "evntprov.h", "evntrace.h",
		"evntcons.h",
	};
	static const char *const modes[] = {
		"cc -std=c99 -pedantic -Wstrict-prototypes -x c",
		"cc -std=c11 -pedantic -Wstrict-prototypes -DINITGUID -x c",
		"c++ -std=c++98 -pedantic -x c++",
		"c++ -std=c++17 -pedantic -DINITGUID -DUNICODE -x c++",
	};
	char cmd[1024];
	unsigned int h, m;

	for (h = 0; h < sizeof(headers) / sizeof(headers[0]); h++) {
		for (m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
			snprintf(cmd, sizeof(cmd),
				 "printf '#include <%s>\\n' | %s " WARNINGS
				 " -Wshadow " INCLUDES " -fsyntax-only -",
				 headers[h], modes[m]);
			EXPECT_EQ(0, run(cmd)) TH_LOG("%s", cmd);
		}
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
