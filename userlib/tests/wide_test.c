/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * Wide strings on the host: Windows code passing L"..." to the W functions
 * builds with -fshort-wchar as C and C++, links against the libetw built
 * without it, and reads an ETL file named by an L"..." path
 * (data/wide_prog.c); without the flag, C++ stops at each such call with
 * a message naming the flag (data/wide_literal.c); pkg-config hands out
 * the flag.  The compilers run from the project root, SRC_DIR.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "testdata.h"

#define WIDE		"-fshort-wchar"
#define WARNINGS	"-Wall -Wextra -Werror"
#define INCLUDES	"-Iuserlib/include -Iuapi"
#define PRIMITIVE	TESTDATA "/etl/primitive-types.etl"
#define WIDE_PROG	"userlib/tests/data/wide_prog.c"
#define WIDE_LITERAL	"userlib/tests/data/wide_literal.c"
/* The W calls in wide_literal.c. */
#define GUARDED_CALLS	9
#define HINT		"compile with -fshort-wchar"

/* Runs @cmd in the project root; returns its exit status. */
static int run(const char *cmd)
{
	char buf[8192];

	snprintf(buf, sizeof(buf), "cd '%s' && %s", SRC_DIR, cmd);
	return system(buf);
}

static int have(const char *compiler)
{
	char buf[256];

	snprintf(buf, sizeof(buf), "%s --version >/dev/null 2>&1", compiler);
	return system(buf) == 0;
}

FIXTURE(wide) {
	char dir[32];
};

FIXTURE_VARIANT(wide) {
	const char *compiler;
	const char *lang;
};

FIXTURE_VARIANT_ADD(wide, gcc_c99) {
	.compiler = "gcc", .lang = "-x c -std=c99 -pedantic",
};

FIXTURE_VARIANT_ADD(wide, clang_c11) {
	.compiler = "clang", .lang = "-x c -std=c11",
};

FIXTURE_VARIANT_ADD(wide, gxx_cxx98) {
	.compiler = "g++", .lang = "-x c++ -std=c++98",
};

FIXTURE_VARIANT_ADD(wide, gxx_cxx11) {
	.compiler = "g++", .lang = "-x c++ -std=c++11",
};

FIXTURE_VARIANT_ADD(wide, clangxx_cxx17) {
	.compiler = "clang++", .lang = "-x c++ -std=c++17",
};

FIXTURE_SETUP(wide)
{
	if (!have(variant->compiler))
		SKIP(return, "%s not installed", variant->compiler);
	strcpy(self->dir, "/tmp/etw-wide-XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
}

FIXTURE_TEARDOWN(wide)
{
	char cmd[64];

	if (!self->dir[0])
		return;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", self->dir);
	EXPECT_EQ(0, system(cmd));
}

/* Compiles @src with @flags in the variant's language; its status. */
static int compile(const struct _fixture_variant_wide *v, const char *flags,
		   const char *src, const char *out)
{
	char cmd[2048];

	snprintf(cmd, sizeof(cmd), "%s %s %s " WARNINGS " " INCLUDES " %s %s",
		 v->compiler, v->lang, flags, src, out);
	fprintf(stderr, "# %s\n", cmd);
	return run(cmd);
}

/* Builds wide_prog.c with the flag into @dir and runs it; its status. */
static int run_wide_prog(const struct _fixture_variant_wide *v,
			 const char *dir)
{
	char out[256];

	snprintf(out, sizeof(out), "-o %s/prog -x none userlib/libetw.a "
		 "-lpthread && %s/prog", dir, dir);
	return compile(v, WIDE " -DWIDE_ETL='\"" PRIMITIVE "\"'", WIDE_PROG,
		       out);
}

/* L"..." names reach libetw (built without the flag) as 16-bit strings. */
TEST_F(wide, program_reads_file_by_wide_name)
{
	REQUIRE_TESTDATA();
	EXPECT_EQ(0, run_wide_prog(variant, self->dir));
}

/* With the flag, L"..." is accepted by every W function taking a string. */
TEST_F(wide, literals_compile_with_flag)
{
	EXPECT_EQ(0, compile(variant, WIDE " -c", WIDE_LITERAL,
			     "-o /dev/null"));
}

/* Lines of @dir/err carrying the hint. */
static int count_hints(const char *dir)
{
	char cmd[256];
	int hints = -1;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "grep -c '" HINT "' %s/err", dir);
	f = popen(cmd, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%d", &hints) != 1)
		hints = -1;
	pclose(f);
	return hints;
}

static bool is_cxx11(const char *lang)
{
	return strstr(lang, "c++") && !strstr(lang, "c++98");
}

/*
 * Without it, C++11 and later stop at each call with the message: count
 * the message's lines in the compiler's output.  C (and C++98, which has
 * no static_assert) get the compiler's own incompatible-pointer
 * diagnostic, an error here through -Werror.
 */
TEST_F(wide, literals_without_flag_fail)
{
	char out[64];

	snprintf(out, sizeof(out), "-fsyntax-only 2>%s/err", self->dir);
	EXPECT_NE(0, compile(variant, "", WIDE_LITERAL, out));
	EXPECT_EQ(is_cxx11(variant->lang) ? GUARDED_CALLS : 0,
		  count_hints(self->dir));
}

/* pkg-config gives the flag; a program built with it runs. */
TEST(pkg_config_wide_cflags)
{
	char dir[] = "/tmp/etw-wide-pc-XXXXXX";
	char cmd[2048];

	REQUIRE_TESTDATA();
	ASSERT_NE(NULL, mkdtemp(dir));
	snprintf(cmd, sizeof(cmd),
		 "make -s install PREFIX=%s/usr >/dev/null && "
		 "export PKG_CONFIG_PATH=%s/usr/lib/pkgconfig && "
		 "test \"$(pkg-config --variable=wide_cflags libetw)\" = "
		 "'" WIDE "' && "
		 "c++ " WARNINGS " -DWIDE_ETL='\"" PRIMITIVE "\"' "
		 "$(pkg-config --variable=wide_cflags libetw) -x c++ "
		 WIDE_PROG " -x none -o %s/prog "
		 "$(pkg-config --cflags --libs libetw) && "
		 "LD_LIBRARY_PATH=%s/usr/lib %s/prog",
		 dir, dir, dir, dir, dir);
	EXPECT_EQ(0, run(cmd)) TH_LOG("%s", cmd);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	EXPECT_EQ(0, system(cmd));
}

TEST_HARNESS_MAIN
