/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * Cross-check against a second, independent header set: MinGW-w64's.
 *
 * For each struct both header sets define, this generates a C file of
 * _Static_asserts holding the sizes and offsets that OUR headers give (as
 * compiled into this very program) and compiles it for Windows x64 with
 * x86_64-w64-mingw32-gcc against MinGW's <windows.h> and ETW headers.  A
 * compile failure names the struct and field that differ.  The integer
 * constants and enumerators both define are checked the same way.
 *
 * MinGW-w64 10 is older than the SDK: structs and fields it lacks are
 * skipped (data/layout_table.h marks them), and so are constants whose
 * value MinGW has not caught up with (data/mingw_constants.h says which).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "data/layout_table.h"
#include <intsafe.h>
#include <sddl.h>

#define MINGW_CC	"x86_64-w64-mingw32-gcc"

static const char mingw_preamble[] =
	"#define WINVER 0x0A00\n"
	"#define _WIN32_WINNT 0x0A00\n"
	"#define WIN32_LEAN_AND_MEAN\n"
	"#include <winsock2.h>\n"
	"#include <windows.h>\n"
	"#include <ws2ipdef.h>\n"
	"#include <intsafe.h>\n"
	"#include <sddl.h>\n"
	"#include <wmistr.h>\n"
	"#include <evntprov.h>\n"
	"#include <evntrace.h>\n"
	"#include <evntcons.h>\n"
	"#include <stddef.h>\n";

static int have_mingw(void)
{
	return system(MINGW_CC " --version >/dev/null 2>&1") == 0;
}

/*
 * Compiles @body after the preamble with the MinGW compiler.  Returns the
 * compiler's exit status (0 = every assertion held); its diagnostics go to
 * stderr so a failing test shows them.
 */
static int mingw_compile(const char *body)
{
	char dir[] = "/tmp/etw-mingw-XXXXXX";
	char path[64], cmd[256];
	FILE *f;
	int ret;

	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof(path), "%s/check.c", dir);
	f = fopen(path, "w");
	if (!f) {
		rmdir(dir);
		return -1;
	}
	fputs(mingw_preamble, f);
	fputs(body, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd),
		 MINGW_CC " -std=gnu11 -fsyntax-only -fmax-errors=20 %s 1>&2",
		 path);
	ret = system(cmd);
	unlink(path);
	rmdir(dir);
	return ret;
}

/* A growable string for the generated source. */
struct buf {
	char *p;
	size_t len, cap;
};

static void __attribute__((format(printf, 2, 3)))
buf_printf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
		va_end(ap);
		if (n >= 0 && (size_t)n < b->cap - b->len)
			break;
		b->cap = b->cap * 2 + n + 1;
		b->p = realloc(b->p, b->cap);
		if (!b->p)
			abort();
	}
	b->len += n;
}

static void layout_asserts(struct buf *b, const struct etw_layout *l)
{
	size_t i;

	buf_printf(b, "_Static_assert(sizeof(%s) == %zu, "
		   "\"sizeof(%s) is %zu with libetw's headers\");\n",
		   l->name, l->size, l->name, l->size);
	for (i = 0; i < l->nfields; i++) {
		const struct etw_field *f = &l->fields[i];

		if (!f->mingw)
			continue;
		buf_printf(b, "_Static_assert(offsetof(%s, %s) == %zu, "
			   "\"%s.%s is at %zu with libetw's headers\");\n",
			   l->name, f->name, f->off, l->name, f->name, f->off);
	}
}

FIXTURE(mingw) {
	int unused;
};

FIXTURE_VARIANT(mingw) {
	const struct etw_layout *l;
};

#define ETW_ADD_VARIANT(name)						\
	FIXTURE_VARIANT_ADD(mingw, name) { .l = &etw_layout_##name };
ETW_LAYOUTS(ETW_ADD_VARIANT)

FIXTURE_SETUP(mingw)
{
	if (!have_mingw())
		SKIP(return, MINGW_CC " not installed (Debian: mingw-w64)");
}

FIXTURE_TEARDOWN(mingw) {}

TEST_F(mingw, layout)
{
	struct buf b = { NULL, 0, 0 };

	if (!variant->l->mingw)
		SKIP(return, "MinGW-w64 does not define %s", variant->l->name);
	layout_asserts(&b, variant->l);
	EXPECT_EQ(0, mingw_compile(b.p)) TH_LOG("%s differs from MinGW-w64",
						variant->l->name);
	free(b.p);
}

/* The shared constants, with the values our headers give them. */
static const struct {
	const char *name;
	unsigned long long value;
	int is_macro;
} shared_constants[] = {
#define ETW_CONST(n)	{ #n, (unsigned long long)(n), 1 },
#define ETW_ENUM(n)	{ #n, (unsigned long long)(n), 0 },
#include "data/mingw_constants.h"
#undef ETW_CONST
#undef ETW_ENUM
};

TEST(mingw_constants)
{
	struct buf b = { NULL, 0, 0 };
	unsigned int i;

	if (!have_mingw())
		SKIP(return, MINGW_CC " not installed (Debian: mingw-w64)");
	for (i = 0; i < ARRAYSIZE(shared_constants); i++) {
		const char *n = shared_constants[i].name;

		/* A macro MinGW lacks is not a mismatch. */
		if (shared_constants[i].is_macro)
			buf_printf(&b, "#ifdef %s\n", n);
		buf_printf(&b, "_Static_assert((unsigned long long)(%s) == "
			   "%lluULL, \"%s is %#llx with libetw's headers\");\n",
			   n, shared_constants[i].value, n,
			   shared_constants[i].value);
		if (shared_constants[i].is_macro)
			buf_printf(&b, "#endif\n");
	}
	EXPECT_EQ(0, mingw_compile(b.p));
	free(b.p);
}

/* The check itself must be able to fail, or the passes above mean nothing. */
TEST(mingw_check_detects_a_mismatch)
{
	if (!have_mingw())
		SKIP(return, MINGW_CC " not installed (Debian: mingw-w64)");
	fprintf(stderr, "# an error about EVENT_HEADER is expected here:\n");
	EXPECT_NE(0, mingw_compile("_Static_assert(sizeof(EVENT_HEADER) == 81,"
				   " \"deliberately wrong\");\n"));
	EXPECT_EQ(0, mingw_compile("_Static_assert(sizeof(EVENT_HEADER) == 80,"
				   " \"right\");\n"));
}

TEST_HARNESS_MAIN
