// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * Every input that once crashed a fuzz target, replayed through the
 * target's entry point (userlib/fuzz/etw_fuzz_entry.c) in a plain build,
 * without the sanitizers: it must give the exact Win32 code its entry in
 * REGRESS_INPUTS names (and break none of the entry point's checks, which
 * abort).  The inputs are the files userlib/fuzz/regress/TARGET/NAME;
 * each has an entry, and each entry a file.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etw_fuzz_entry.h"
#include "kselftest_harness.h"

#define REGRESS_DIR	SRC_DIR "/userlib/fuzz/regress"

/* (target, file, the code it gives); what each fixed is in its commit. */
#define REGRESS_INPUTS(X) \
	X(tl, custom_schema_uint32, ERROR_SUCCESS) \
	X(tl, custom_schema_uint32_long, ERROR_SUCCESS) \
	X(tl, filetime_high_bit, ERROR_EVT_INVALID_EVENT_DATA) \
	X(tl, empty_struct_array, ERROR_SUCCESS) \
	X(tl, empty_struct_array_nested, ERROR_SUCCESS) \
	X(wevt, count_index_past_the_end, ERROR_FILE_CORRUPT)

struct regress_entry {
	const char *target;
	const char *name;
	ULONG expect;
};

#define REGRESS_ENTRY(t, n, e) { #t, #n, e },
static const struct regress_entry regress_table[] = {
	REGRESS_INPUTS(REGRESS_ENTRY)
};

static const char *const regress_targets[] = { "etl", "tl", "manifest",
						 "xpress", "wevt" };

static uint8_t *regress_read(const char *target, const char *name,
			     size_t *len)
{
	char path[4096];
	uint8_t *buf = NULL;
	long n = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s/%s", REGRESS_DIR, target, name);
	f = fopen(path, "rb");
	if (!f)
		return NULL;
	if (!fseek(f, 0, SEEK_END))
		n = ftell(f);
	if (n >= 0 && !fseek(f, 0, SEEK_SET))
		buf = malloc(n ? n : 1);
	if (buf && fread(buf, 1, n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	*len = n;
	fclose(f);
	return buf;
}

static ULONG replay_input(const char *target, const uint8_t *data,
			  size_t len)
{
	if (!strcmp(target, "etl"))
		return etw_fuzz_etl(data, len);
	if (!strcmp(target, "tl"))
		return etw_fuzz_tl(data, len);
	if (!strcmp(target, "xpress"))
		return etw_fuzz_xpress(data, len);
	if (!strcmp(target, "wevt"))
		return etw_fuzz_wevt(data, len);
	return etw_fuzz_manifest(data, len);
}

FIXTURE(regress) {
};

FIXTURE_VARIANT(regress) {
	const char *target;
	const char *name;
	ULONG expect;
};

#define REGRESS_VARIANT(t, n, e) \
	FIXTURE_VARIANT_ADD(regress, t##__##n) { \
		.target = #t, .name = #n, .expect = e, \
	};
REGRESS_INPUTS(REGRESS_VARIANT)

FIXTURE_SETUP(regress)
{
}

FIXTURE_TEARDOWN(regress)
{
}

TEST_F(regress, replay)
{
	size_t len;
	uint8_t *data = regress_read(variant->target, variant->name, &len);

	ASSERT_NE(NULL, data) TH_LOG("%s/%s/%s is missing", REGRESS_DIR,
				     variant->target, variant->name);
	EXPECT_EQ(variant->expect, replay_input(variant->target, data, len));
	free(data);
}

static bool regress_listed(const char *target, const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(regress_table) / sizeof(regress_table[0]); i++)
		if (!strcmp(regress_table[i].target, target) &&
		    !strcmp(regress_table[i].name, name))
			return true;
	return false;
}

/* An input committed without an entry would never be replayed. */
TEST(every_input_has_an_entry)
{
	char path[4096];
	struct dirent *de;
	size_t t;
	DIR *d;
	int files = 0;

	for (t = 0; t < sizeof(regress_targets) / sizeof(*regress_targets);
	     t++) {
		snprintf(path, sizeof(path), "%s/%s", REGRESS_DIR,
			 regress_targets[t]);
		d = opendir(path);
		if (!d)
			continue;
		while ((de = readdir(d))) {
			if (de->d_name[0] == '.')
				continue;
			files++;
			EXPECT_TRUE(regress_listed(regress_targets[t],
						   de->d_name))
				TH_LOG("%s/%s has no entry", path, de->d_name);
		}
		closedir(d);
	}
	EXPECT_EQ(sizeof(regress_table) / sizeof(regress_table[0]),
		  (size_t)files);
}

TEST_HARNESS_MAIN
