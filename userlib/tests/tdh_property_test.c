/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * TdhGetPropertySize and TdhGetProperty: a property's bytes found by a
 * path of PROPERTY_DATA_DESCRIPTORs through structs and arrays, and a
 * Win32 code for every error.
 */
#include "kselftest_harness.h"
#include "tdh_test.h"

#define ALL	0xFFFFFFFFu
#define P_INIT	{ { "s", "x" }, { ALL, ALL } }

/*
 * s: struct { x int32; t: struct { u uint8 }; a: uint16[] };
 * b: binary; z: uint8; then p: struct { v uint8; w unicode }[]; q uint8;
 * n: ansi string[]; k: counted ansi string[]; y: uint8.
 */
static const char fields[] =
	"s\0\x98\x03" "x\0\x07" "t\0\x98\x01" "u\0\x04" "a\0\x46"
	"b\0\x0e" "z\0\x04" "p\0\xd8\x02" "v\0\x04" "w\0\x01" "q\0\x04"
	"n\0\x42" "k\0\x57" "y\0\x04";
static const char data[] =
	"\xff\xff\xff\xff" "\x09" "\x02\x00\x02\x01\x04\x03"
	"\x03\x00\xde\xad\xbe" "\x2a"
	"\x02\x00" "\x05" "a\0\0\0" "\x06" "b\0c\0\0\0" "\x07"
	"\x02\x00" "ab\0" "c\0" "\x02\x00" "\x01\x00" "x" "\x02\x00" "yz"
	"\x2b";

/* A path of up to three names with their array indexes. */
struct path {
	const char *name[3];
	ULONG index[3];
};

static const struct {
	const char *what;
	struct path path;
	ULONG want;		/* Win32 code */
	const char *bytes;	/* when found */
	ULONG size;
} cases[] = {
#define OK(w, p, b)	{ w, p, ERROR_SUCCESS, b, sizeof(b) - 1 }
#define KO(w, p, r)	{ w, p, r, NULL, 0 }
#define P1(a, i)	{ { a }, { i } }
#define P2(a, i, b, j)	{ { a, b }, { i, j } }
#define P3(a, i, b, j, c, k) { { a, b, c }, { i, j, k } }
	OK("struct member", P2("s", ALL, "x", ALL), "\xff\xff\xff\xff"),
	OK("struct member with index 0", P2("s", 0, "x", 0),
	   "\xff\xff\xff\xff"),
	OK("nested member", P3("s", ALL, "t", ALL, "u", ALL), "\x09"),
	OK("whole array", P2("s", ALL, "a", ALL), "\x02\x01\x04\x03"),
	OK("array element", P2("s", ALL, "a", 1), "\x04\x03"),
	OK("count property", P2("s", ALL, "a.Count", ALL), "\x02\x00"),
	OK("whole struct", P1("s", ALL),
	   "\xff\xff\xff\xff\x09\x02\x00\x02\x01\x04\x03"),
	OK("binary", P1("b", ALL), "\xde\xad\xbe"),
	OK("length property", P1("b.Length", ALL), "\x03\x00"),
	OK("after the binary", P1("z", ALL), "\x2a"),
	OK("struct array element member", P2("p", 1, "w", ALL),
	   "b\0c\0\0\0"),
	OK("first struct array element", P2("p", 0, "v", ALL), "\x05"),
	OK("whole struct array", P1("p", ALL), "\x05" "a\0\0\0" "\x06"
	   "b\0c\0\0\0"),
	OK("after the struct array", P1("q", ALL), "\x07"),
	OK("whole string array", P1("n", ALL), "ab\0c\0"),
	OK("string array element", P1("n", 1), "c\0"),
	OK("string array count", P1("n.Count", ALL), "\x02\x00"),
	OK("counted string array element", P1("k", 1), "\x02\x00" "yz"),
	OK("after the string arrays", P1("y", ALL), "\x2b"),
	KO("array index past the end", P2("s", ALL, "a", 2),
	   ERROR_INVALID_PARAMETER),
	KO("into an array without an index", P2("p", ALL, "v", ALL),
	   ERROR_INVALID_PARAMETER),
	KO("string array index past the end", P1("n", 2),
	   ERROR_INVALID_PARAMETER),
	KO("scalar index 1", P1("z", 1), ERROR_INVALID_PARAMETER),
	KO("member of a scalar", P2("z", ALL, "x", ALL),
	   ERROR_INVALID_PARAMETER),
	KO("no such name", P1("nope", ALL), ERROR_NOT_FOUND),
	KO("member looked for at the top", P1("x", ALL), ERROR_NOT_FOUND),
	KO("names are case-sensitive", P1("Z", ALL), ERROR_NOT_FOUND),
#undef OK
#undef KO
#undef P1
#undef P2
#undef P3
};

/* The descriptors of @p; returns their count. */
static ULONG descriptors(const struct path *p, PROPERTY_DATA_DESCRIPTOR *d,
			 WCHAR names[3][16])
{
	ULONG n;

	memset(d, 0, 3 * sizeof(*d));
	for (n = 0; n < 3 && p->name[n]; n++) {
		d[n].PropertyName = (uintptr_t)tdh_wide(p->name[n], names[n]);
		d[n].ArrayIndex = p->index[n];
	}
	return n;
}

TEST(path_table)
{
	PROPERTY_DATA_DESCRIPTOR d[3];
	struct tdh_event e;
	WCHAR names[3][16];
	BYTE buf[64];
	ULONG n, size, st;
	size_t i;

	TDH_EVENT(&e, fields, data);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		n = descriptors(&cases[i].path, d, names);
		size = 0xdead;
		st = TdhGetPropertySize(&e.rec, 0, NULL, n, d, &size);
		EXPECT_EQ(cases[i].want, st) TH_LOG("%s", cases[i].what);
		if (st)
			continue;
		EXPECT_EQ(cases[i].size, size) TH_LOG("%s", cases[i].what);
		memset(buf, 0xee, sizeof(buf));
		ASSERT_EQ(ERROR_SUCCESS, TdhGetProperty(&e.rec, 0, NULL, n, d,
							sizeof(buf), buf))
			TH_LOG("%s", cases[i].what);
		EXPECT_EQ(0, memcmp(cases[i].bytes, buf, cases[i].size))
			TH_LOG("%s", cases[i].what);
		EXPECT_EQ(0xee, buf[cases[i].size]) TH_LOG("%s", cases[i].what);
	}
}

TEST(buffer_too_small)
{
	PROPERTY_DATA_DESCRIPTOR d[3];
	struct path p = P_INIT;
	struct tdh_event e;
	WCHAR names[3][16];
	BYTE buf[4];
	ULONG n;

	TDH_EVENT(&e, fields, data);
	n = descriptors(&p, d, names);
	EXPECT_EQ(ERROR_INSUFFICIENT_BUFFER,
		  TdhGetProperty(&e.rec, 0, NULL, n, d, 3, buf));
	EXPECT_EQ(ERROR_SUCCESS, TdhGetProperty(&e.rec, 0, NULL, n, d, 4, buf));
	EXPECT_EQ(0, memcmp("\xff\xff\xff\xff", buf, 4));
}

/* Data that ends before the property: the walk reports it. */
TEST(data_cut_short)
{
	PROPERTY_DATA_DESCRIPTOR d[3];
	struct path p = { { "y" }, { ALL } };
	struct tdh_event e;
	WCHAR names[3][16];
	ULONG n, size;

	tdh_event(&e, fields, sizeof(fields) - 1, data, sizeof(data) - 2);
	n = descriptors(&p, d, names);
	EXPECT_EQ(ERROR_EVT_INVALID_EVENT_DATA,
		  TdhGetPropertySize(&e.rec, 0, NULL, n, d, &size));
	/* A property before the cut is still found. */
	p.name[0] = "z";
	n = descriptors(&p, d, names);
	EXPECT_EQ(ERROR_SUCCESS,
		  TdhGetPropertySize(&e.rec, 0, NULL, n, d, &size));
}

TEST(parameter_errors_table)
{
	PROPERTY_DATA_DESCRIPTOR d[3];
	struct path p = P_INIT;
	struct tdh_event e, none;
	WCHAR names[3][16];
	BYTE buf[8];
	ULONG n, size;

	TDH_EVENT(&e, fields, data);
	memset(&none, 0, sizeof(none));
	n = descriptors(&p, d, names);
	EXPECT_EQ(ERROR_INVALID_PARAMETER,
		  TdhGetPropertySize(NULL, 0, NULL, n, d, &size));
	EXPECT_EQ(ERROR_INVALID_PARAMETER,
		  TdhGetPropertySize(&e.rec, 0, NULL, 0, d, &size));
	EXPECT_EQ(ERROR_INVALID_PARAMETER,
		  TdhGetPropertySize(&e.rec, 0, NULL, n, NULL, &size));
	EXPECT_EQ(ERROR_INVALID_PARAMETER,
		  TdhGetPropertySize(&e.rec, 0, NULL, n, d, NULL));
	EXPECT_EQ(ERROR_INVALID_PARAMETER,
		  TdhGetPropertySize(&e.rec, 1, NULL, n, d, &size));
	EXPECT_EQ(ERROR_INVALID_PARAMETER,
		  TdhGetProperty(&e.rec, 0, NULL, n, d, sizeof(buf), NULL));
	d[1].PropertyName = 0;
	EXPECT_EQ(ERROR_INVALID_PARAMETER,
		  TdhGetPropertySize(&e.rec, 0, NULL, n, d, &size));
	n = descriptors(&p, d, names);
	EXPECT_EQ(ERROR_NOT_FOUND,
		  TdhGetPropertySize(&none.rec, 0, NULL, n, d, &size));
	EXPECT_EQ(ERROR_NOT_FOUND,
		  TdhGetProperty(&none.rec, 0, NULL, n, d, sizeof(buf), buf));
}

TEST_HARNESS_MAIN
