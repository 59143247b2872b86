// SPDX-License-Identifier: GPL-2.0
/*
 * ctl/symbols.c: the image map's rules on made-up images (files that do
 * not exist print as module+0xoff), and this program's own call chain
 * and a libc frame symbolised from the images /proc/self/maps shows.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <search.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "call_chain.h"
#include "kselftest_harness.h"

/* --- the map's rules ------------------------------------------------------ */

#define A	"/nonexistent/liba.so"
#define B	"/nonexistent/libb.so"

static const struct {
	enum etwctl_image_op op;
	int64_t time;
	struct etwctl_image img;
} map_events[] = {
	/* pid 1: a.so from t=100, unloaded at 300, reloaded elsewhere. */
	{ ETWCTL_IMAGE_LOAD, 100, { 1, 0x10000, 0x1000, A, 0x10000 } },
	{ ETWCTL_IMAGE_UNLOAD, 300, { 1, 0x10000, 0x1000, A, 0x10000 } },
	{ ETWCTL_IMAGE_LOAD, 400, { 1, 0x50000, 0x1000, A, 0x50000 } },
	/* pid 2: b.so at a.so's first base, from rundown at t=500. */
	{ ETWCTL_IMAGE_DCSTART, 500, { 2, 0x10000, 0x2000, B, 0x10000 } },
	/* pid 3: an unload with no load, a DCEnd with no load. */
	{ ETWCTL_IMAGE_UNLOAD, 200, { 3, 0x20000, 0x1000, A, 0x20000 } },
	{ ETWCTL_IMAGE_DCEND, 900, { 3, 0x30000, 0x1000, B, 0x30000 } },
	/* pid 4: loaded twice at one base, the unload in between lost. */
	{ ETWCTL_IMAGE_LOAD, 100, { 4, 0x10000, 0x1000, A, 0x10000 } },
	{ ETWCTL_IMAGE_LOAD, 200, { 4, 0x10000, 0x1000, B, 0x10000 } },
	/* pid 5: a DCEnd does not replace what is mapped at its base. */
	{ ETWCTL_IMAGE_DCSTART, 10, { 5, 0x10000, 0x1000, A, 0x10000 } },
	{ ETWCTL_IMAGE_DCEND, 990, { 5, 0x10000, 0x1000, B, 0x10000 } },
};

static const struct {
	const char *name;
	uint32_t pid;
	int64_t time;
	uint64_t addr;
	const char *text;
} map_cases[] = {
	{ "first byte", 1, 200, 0x10000, "liba.so+0x0" },
	{ "last byte", 1, 200, 0x10fff, "liba.so+0xfff" },
	{ "before the image", 1, 200, 0xffff, "0xffff" },
	{ "after the image", 1, 200, 0x11000, "0x11000" },
	{ "before its load", 1, 99, 0x10010, "0x10010" },
	{ "at its load", 1, 100, 0x10010, "liba.so+0x10" },
	{ "at its unload", 1, 300, 0x10010, "0x10010" },
	{ "new base before the reload", 1, 350, 0x50010, "0x50010" },
	{ "new base after the reload", 1, 400, 0x50010, "liba.so+0x10" },
	{ "old base after the reload", 1, 400, 0x10010, "0x10010" },
	{ "same base, other process", 2, 600, 0x10010, "libb.so+0x10" },
	{ "other process's size", 2, 600, 0x11010, "libb.so+0x1010" },
	{ "rundown: before its record", 2, 1, 0x10010, "libb.so+0x10" },
	{ "unload without load: before", 3, 199, 0x20010, "liba.so+0x10" },
	{ "unload without load: after", 3, 200, 0x20010, "0x20010" },
	{ "DCEnd without load", 3, 5, 0x30010, "libb.so+0x10" },
	{ "lost unload: first load", 4, 150, 0x10010, "liba.so+0x10" },
	{ "lost unload: second load", 4, 250, 0x10010, "libb.so+0x10" },
	{ "DCEnd of a mapped base", 5, 1000, 0x10010, "liba.so+0x10" },
	{ "unknown process", 9, 200, 0x10010, "0x10010" },
	{ "kernel address", 1, 200, 0xffffffff81000000ull,
	  "0xffffffff81000000" },
};

/* map_events into @s, then each of map_cases. */
static void check_map_rules(struct __test_metadata *_metadata,
			    struct etwctl_symbols *s)
{
	char buf[128];
	unsigned int i;

	for (i = 0; i < sizeof(map_events) / sizeof(map_events[0]); i++)
		ASSERT_EQ(0, etwctl_symbols_image(s, map_events[i].op,
						  &map_events[i].img,
						  map_events[i].time));
	for (i = 0; i < sizeof(map_cases) / sizeof(map_cases[0]); i++) {
		TH_LOG("%s", map_cases[i].name);
		EXPECT_EQ((int)strlen(map_cases[i].text),
			  etwctl_symbols_frame(s, map_cases[i].pid,
					       map_cases[i].time,
					       map_cases[i].addr, buf,
					       sizeof(buf)));
		EXPECT_STREQ(map_cases[i].text, buf);
	}
}

TEST(map_rules)
{
	struct etwctl_symbols *s = etwctl_symbols_new();

	ASSERT_NE(NULL, s);
	check_map_rules(_metadata, s);
	etwctl_symbols_free(s);
}

/* map_events, each @copies times in a row, as merged copies give them. */
static int add_copies(struct etwctl_symbols *s, unsigned int copies)
{
	unsigned int i, k;

	for (i = 0; i < sizeof(map_events) / sizeof(map_events[0]); i++)
		for (k = 0; k < copies; k++)
			if (etwctl_symbols_image(s, map_events[i].op,
						 &map_events[i].img,
						 map_events[i].time))
				return -1;
	return 0;
}

/* Each event once: eight mappings (a rundown of a mapped base adds none). */
TEST(map_mappings_once)
{
	struct etwctl_symbols *s = etwctl_symbols_new();

	ASSERT_NE(NULL, s);
	ASSERT_EQ(0, add_copies(s, 1));
	EXPECT_EQ(8, etwctl_symbols_mappings(s));
	etwctl_symbols_free(s);
}

/*
 * Each event twice: the second unload of pid 1's and pid 3's images finds
 * nothing mapped and adds a mapping from before the trace; the repeated
 * loads and rundown records add none.
 */
TEST(map_mappings_twice)
{
	struct etwctl_symbols *s = etwctl_symbols_new();

	ASSERT_NE(NULL, s);
	ASSERT_EQ(0, add_copies(s, 2));
	EXPECT_EQ(9, etwctl_symbols_mappings(s));
	etwctl_symbols_free(s);
}

/*
 * Four copies hold what two do, and name every frame as two do: the
 * image reloaded at another base included.
 */
TEST(map_mappings_four_times)
{
	struct etwctl_symbols *two = etwctl_symbols_new();
	struct etwctl_symbols *four = etwctl_symbols_new();
	char a[128], b[128];
	unsigned int i;

	ASSERT_NE(NULL, two);
	ASSERT_NE(NULL, four);
	ASSERT_EQ(0, add_copies(two, 2));
	ASSERT_EQ(0, add_copies(four, 4));
	EXPECT_EQ(9, etwctl_symbols_mappings(four));
	for (i = 0; i < sizeof(map_cases) / sizeof(map_cases[0]); i++) {
		TH_LOG("%s", map_cases[i].name);
		etwctl_symbols_frame(two, map_cases[i].pid, map_cases[i].time,
				     map_cases[i].addr, a, sizeof(a));
		etwctl_symbols_frame(four, map_cases[i].pid, map_cases[i].time,
				     map_cases[i].addr, b, sizeof(b));
		EXPECT_STREQ(a, b);
	}
	etwctl_symbols_frame(four, 1, 400, 0x50010, b, sizeof(b));
	EXPECT_STREQ("liba.so+0x10", b);
	etwctl_symbols_frame(four, 1, 400, 0x10010, b, sizeof(b));
	EXPECT_STREQ("0x10010", b);
	/* Before its load: the second unload's mapping from before the trace. */
	etwctl_symbols_frame(four, 1, 99, 0x10010, b, sizeof(b));
	EXPECT_STREQ("liba.so+0x10", b);
	etwctl_symbols_free(four);
	etwctl_symbols_free(two);
}

/* Add @n images of @size bytes to @pid from @base, @step apart, at @time. */
static int add_images(struct etwctl_symbols *s, uint32_t pid, uint64_t base,
		      uint64_t size, uint64_t step, unsigned int n,
		      int64_t time)
{
	struct etwctl_image img = { pid, 0, size, "/nonexistent/libc.so", 0 };
	unsigned int i;

	for (i = 0; i < n; i++) {
		img.base = img.file_base = base + i * step;
		if (etwctl_symbols_image(s, ETWCTL_IMAGE_LOAD, &img, time))
			return -1;
	}
	return 0;
}

/*
 * The rules again with a hundred images below and above each process's
 * (more than a look-up scans unsorted: the sorted index answers).
 */
TEST(map_rules_among_many_images)
{
	struct etwctl_symbols *s = etwctl_symbols_new();
	uint32_t pid;

	ASSERT_NE(NULL, s);
	for (pid = 1; pid <= 5; pid++) {
		ASSERT_EQ(0, add_images(s, pid, 0x100, 0x10, 0x10, 100, 0));
		ASSERT_EQ(0, add_images(s, pid, 0x100000, 0x10, 0x10, 100, 0));
	}
	check_map_rules(_metadata, s);
	etwctl_symbols_free(s);
}

/*
 * Methods JIT-compiled into a code heap that is itself mapped: an address
 * is in the latest mapped that holds it, found past the heap's other
 * methods, the heap's where no method holds it.
 */
TEST(nested_images)
{
	struct etwctl_image heap = { 6, 0x40000, 0x10000, A, 0x40000 };
	struct etwctl_symbols *s = etwctl_symbols_new();
	char buf[128];
	static const struct {
		int64_t time;
		uint64_t addr;
		const char *text;
	} cases[] = {
		{ 50, 0x40000, "liba.so+0x0" },
		{ 50, 0x40100, "libc.so+0x0" },
		{ 50, 0x4013f, "libc.so+0x3f" },
		{ 50, 0x40140, "liba.so+0x140" },
		{ 50, 0x47f00, "libc.so+0x0" },
		{ 50, 0x4ffff, "liba.so+0xffff" },
		{ 5, 0x40100, "liba.so+0x100" },
		{ 50, 0x50000, "0x50000" },
	};
	unsigned int i;

	ASSERT_NE(NULL, s);
	ASSERT_EQ(0, etwctl_symbols_image(s, ETWCTL_IMAGE_LOAD, &heap, 0));
	/* 127 methods of 0x40 bytes, 0x100 apart, from 0x40100. */
	ASSERT_EQ(0, add_images(s, 6, 0x40100, 0x40, 0x100, 127, 10));
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		TH_LOG("case %u", i);
		etwctl_symbols_frame(s, 6, cases[i].time, cases[i].addr, buf,
				     sizeof(buf));
		EXPECT_STREQ(cases[i].text, buf);
	}
	etwctl_symbols_free(s);
}

/* Text longer than the buffer is cut; the whole length is returned. */
TEST(frame_cut)
{
	struct etwctl_symbols *s = etwctl_symbols_new();
	char buf[8];

	ASSERT_NE(NULL, s);
	ASSERT_EQ(0, etwctl_symbols_image(s, ETWCTL_IMAGE_LOAD,
					  &map_events[0].img, 0));
	EXPECT_EQ(12, etwctl_symbols_frame(s, 1, 0, 0x10010, buf,
					   sizeof(buf)));
	EXPECT_STREQ("liba.so", buf);
	etwctl_symbols_free(s);
}

/* --- this program's stack ------------------------------------------------- */

/* leave() returns to the end of ends_in_call: past its last byte. */
static jmp_buf jump;
static uint64_t last_call;

static NOIPA __attribute__((noreturn)) void leave(void)
{
	last_call = (uintptr_t)__builtin_return_address(0);
	longjmp(jump, 1);
}

static NOIPA void ends_in_call(void)
{
	leave();
}

/* Checks that @addr prints as MODULE!@fn+0x(@addr - @fn_addr), exactly. */
static void expect_function(struct __test_metadata *_metadata,
			    struct etwctl_symbols *s, uint64_t addr,
			    const char *path, const char *fn, void *fn_addr)
{
	char want[256], buf[256];

	snprintf(want, sizeof(want), "%s!%s+0x%" PRIx64, base_name(path), fn,
		 addr - (uintptr_t)fn_addr);
	etwctl_symbols_frame(s, getpid(), 200, addr, buf, sizeof(buf));
	EXPECT_STREQ(want, buf);
}

/* This program's images, loaded at t=100. */
FIXTURE(self) {
	struct etwctl_symbols *s;
	struct etwctl_image exe;
	char path[256];
};

FIXTURE_SETUP(self)
{
	self->s = etwctl_symbols_new();
	ASSERT_NE(NULL, self->s);
	self->exe.pid = getpid();
	ASSERT_EQ(0, image_of((uintptr_t)chain_a, &self->exe, self->path,
			      sizeof(self->path)));
	ASSERT_EQ(0, etwctl_symbols_image(self->s, ETWCTL_IMAGE_LOAD,
					  &self->exe, 100));
}

FIXTURE_TEARDOWN(self)
{
	etwctl_symbols_free(self->s);
}

/* c, b and a by name, each at the return address's offset. */
TEST_F(self, call_chain)
{
	chain_a();
	expect_function(_metadata, self->s, chain[0], self->path, "chain_c",
			chain_c);
	expect_function(_metadata, self->s, chain[1], self->path, "chain_b",
			chain_b);
	expect_function(_metadata, self->s, chain[2], self->path, "chain_a",
			chain_a);
}

/*
 * The executable mapping of @addr alone, as etw.ko's Image events give it:
 * ImageBase and ImageSize that mapping, DefaultBase the file's offset 0.
 */
static int exec_mapping_of(uint64_t addr, struct etwctl_image *img)
{
	FILE *f = fopen("/proc/self/maps", "r");
	unsigned long long start, end, off;
	char line[512], perms[8];
	int ret = -1;

	if (!f)
		return -1;
	while (ret && fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx-%llx %7s %llx", &start, &end, perms,
			   &off) == 4 && addr >= start && addr < end &&
		    perms[2] == 'x') {
			img->base = start;
			img->size = end - start;
			img->file_base = start - off;
			ret = 0;
		}
	fclose(f);
	return ret;
}

/* An image event for the text segment only: symbols from DefaultBase. */
TEST(text_segment_image)
{
	struct etwctl_symbols *s = etwctl_symbols_new();
	struct etwctl_image img = { .pid = getpid() };
	char path[256];

	ASSERT_NE(NULL, s);
	ASSERT_EQ(0, image_of((uintptr_t)chain_a, &img, path, sizeof(path)));
	ASSERT_EQ(0, exec_mapping_of((uintptr_t)chain_a, &img));
	/* The test is one if the text does not start the file. */
	ASSERT_NE(img.base, img.file_base);
	ASSERT_EQ(0, etwctl_symbols_image(s, ETWCTL_IMAGE_LOAD, &img, 100));
	chain_a();
	expect_function(_metadata, s, chain[1], path, "chain_b", chain_b);
	etwctl_symbols_free(s);
}

/* A call that ends its function: named by the call, not what follows. */
TEST_F(self, call_at_the_end)
{
	if (!setjmp(jump))
		ends_in_call();
	expect_function(_metadata, self->s, last_call, self->path,
			"ends_in_call", ends_in_call);
}

/* This program's function by its first instruction. */
TEST_F(self, instruction_at_a_function_start)
{
	char want[sizeof(self->path) + 32], buf[sizeof(want)];

	snprintf(want, sizeof(want), "%s!chain_b+0x0", base_name(self->path));
	etwctl_symbols_ip(self->s, getpid(), 200, (uintptr_t)chain_b, buf,
			  sizeof(buf));
	EXPECT_STREQ(want, buf);
}

/* Before the load the same address has no image. */
TEST_F(self, before_the_load)
{
	char want[32], buf[256];

	chain_a();
	snprintf(want, sizeof(want), "0x%" PRIx64, chain[0]);
	etwctl_symbols_frame(self->s, getpid(), 99, chain[0], buf,
			     sizeof(buf));
	EXPECT_STREQ(want, buf);
}

/* A libc frame, by one of the names libc's symbols give the function. */
TEST_F(self, libc_frame)
{
	struct etwctl_image libc = { .pid = getpid() };
	char path[256], buf[256];

	libc_frame();
	ASSERT_EQ(0, image_of(chain[3], &libc, path, sizeof(path)));
	ASSERT_EQ(0, etwctl_symbols_image(self->s, ETWCTL_IMAGE_DCSTART,
					  &libc, 150));
	etwctl_symbols_frame(self->s, getpid(), 200, chain[3], buf,
			     sizeof(buf));
	TH_LOG("%s", buf);
	EXPECT_TRUE(names_symbol(buf, base_name(path), chain[3]));
}

/*
 * Files a trace may name that are not read: a FIFO (opening it would
 * block) and a relative path (read from wherever dump runs), here a link
 * to this program.
 */
TEST_F(self, files_not_read)
{
	char dir[] = "/tmp/symbols_test.XXXXXX", fifo[64], want[64], buf[256];
	struct etwctl_image img = self->exe;
	int cwd = open(".", O_RDONLY | O_DIRECTORY);

	ASSERT_LE(0, cwd);
	ASSERT_NE(NULL, mkdtemp(dir));
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	ASSERT_EQ(0, mkfifo(fifo, 0600));
	ASSERT_EQ(0, chdir(dir));
	ASSERT_EQ(0, symlink(self->path, "link"));
	img.pid = 2;
	img.path = fifo;
	ASSERT_EQ(0, etwctl_symbols_image(self->s, ETWCTL_IMAGE_LOAD, &img,
					  100));
	img.pid = 3;
	img.path = "link";
	ASSERT_EQ(0, etwctl_symbols_image(self->s, ETWCTL_IMAGE_LOAD, &img,
					  100));
	chain_a();
	snprintf(want, sizeof(want), "fifo+0x%" PRIx64, chain[0] - img.base);
	etwctl_symbols_frame(self->s, 2, 200, chain[0], buf, sizeof(buf));
	EXPECT_STREQ(want, buf);
	snprintf(want, sizeof(want), "link+0x%" PRIx64, chain[0] - img.base);
	etwctl_symbols_frame(self->s, 3, 200, chain[0], buf, sizeof(buf));
	EXPECT_STREQ(want, buf);
	unlink("link");
	unlink(fifo);
	EXPECT_EQ(0, fchdir(cwd));
	close(cwd);
	rmdir(dir);
}

/* --- kernel addresses through kallsyms ------------------------------------ */

static const char kallsyms[] =
	"ffffffff81000000 T _text\n"
	"ffffffff81000000 T __pi__text\n"
	"ffffffff81000000 t a_local_alias\n"
	"ffffffff81000000 T _stext\n"
	"ffffffff81000100 T do_one\n"
	"ffffffff81000100 W do_one_weak\n"
	"ffffffff81000180 t helper\n"
	"ffffffff81000200 D some_data\n"
	"0000000000000000 A fixed_percpu_data\n"
	"ffffffffc0001000 t etw_write\t[etw]\n"
	"ffffffffc0001080 T etw_other\t[etw]\n";

/* Process 2 has an image where the kernel is. */
static const struct {
	const char *name;
	uint32_t pid;
	uint64_t addr;
	const char *text;
} kernel_cases[] = {
	{ "in a function", 1, 0xffffffff81000110ull, "vmlinux!do_one+0x10" },
	{ "aliases: global, fewest _, bytes", 1, 0xffffffff81000010ull,
	  "vmlinux!_stext+0x10" },
	{ "aliases: global before weak", 1, 0xffffffff81000101ull,
	  "vmlinux!do_one+0x1" },
	{ "returning to a function's start", 1, 0xffffffff81000100ull,
	  "vmlinux!_stext+0x100" },
	{ "a static function", 1, 0xffffffff81000190ull,
	  "vmlinux!helper+0x10" },
	{ "data symbols do not end text", 1, 0xffffffff81000210ull,
	  "vmlinux!helper+0x90" },
	{ "a module", 1, 0xffffffffc0001010ull, "etw!etw_write+0x10" },
	{ "a module's global", 1, 0xffffffffc0001090ull,
	  "etw!etw_other+0x10" },
	{ "before the first", 1, 0xffffffff80ffffffull,
	  "0xffffffff80ffffff" },
	{ "a user address", 1, 0x7f0000001000ull, "0x7f0000001000" },
	{ "the process's image first", 2, 0xffffffff81000110ull,
	  "liba.so+0x110" },
};

TEST(kernel_symbols)
{
	struct etwctl_symbols *s = etwctl_symbols_new();
	struct etwctl_image img = { 2, 0xffffffff81000000ull, 0x1000, A,
				    0xffffffff81000000ull };
	FILE *f = fmemopen((void *)kallsyms, strlen(kallsyms), "r");
	char buf[128];
	unsigned int i;

	ASSERT_NE(NULL, s);
	ASSERT_NE(NULL, f);
	ASSERT_EQ(0, etwctl_symbols_kallsyms(s, f));
	fclose(f);
	ASSERT_EQ(0, etwctl_symbols_image(s, ETWCTL_IMAGE_LOAD, &img, 0));
	for (i = 0; i < sizeof(kernel_cases) / sizeof(kernel_cases[0]); i++) {
		TH_LOG("%s", kernel_cases[i].name);
		etwctl_symbols_frame(s, kernel_cases[i].pid, 10,
				     kernel_cases[i].addr, buf, sizeof(buf));
		EXPECT_STREQ(kernel_cases[i].text, buf);
	}
	etwctl_symbols_free(s);
}

/*
 * An instruction (a sample's InstructionPointer) is named by the function
 * holding it, the first byte of a function included, where a return
 * address there names the call before it.
 */
TEST(kernel_instruction_at_a_function_start)
{
	struct etwctl_symbols *s = etwctl_symbols_new();
	FILE *f = fmemopen((void *)kallsyms, strlen(kallsyms), "r");
	char buf[128];

	ASSERT_NE(NULL, s);
	ASSERT_NE(NULL, f);
	ASSERT_EQ(0, etwctl_symbols_kallsyms(s, f));
	fclose(f);
	etwctl_symbols_ip(s, 1, 10, 0xffffffff81000100ull, buf, sizeof(buf));
	EXPECT_STREQ("vmlinux!do_one+0x0", buf);
	etwctl_symbols_frame(s, 1, 10, 0xffffffff81000100ull, buf,
			     sizeof(buf));
	EXPECT_STREQ("vmlinux!_stext+0x100", buf);
	etwctl_symbols_ip(s, 1, 10, 0xffffffff81000110ull, buf, sizeof(buf));
	EXPECT_STREQ("vmlinux!do_one+0x10", buf);
	etwctl_symbols_free(s);
}

/* What a kallsyms copy must be: the error of each bad one. */
static const struct {
	const char *name;
	const char *text;
	int ret;
} bad_kallsyms[] = {
	{ "a blank line", "\n", -ENOENT },
	{ "hidden by kptr_restrict",
	  "0000000000000000 T _text\n0000000000000000 t etw_write\t[etw]\n",
	  -ENOENT },
	{ "data only", "ffffffff82000000 D some_data\n", -ENOENT },
	{ "not kallsyms", "hello world\n", -EINVAL },
	{ "no name", "ffffffff81000000 T\n", -EINVAL },
	{ "module without brackets", "ffffffff81000000 T f etw\n", -EINVAL },
};

TEST(kallsyms_errors)
{
	struct etwctl_symbols *s;
	unsigned int i;
	FILE *f;

	for (i = 0; i < sizeof(bad_kallsyms) / sizeof(bad_kallsyms[0]); i++) {
		TH_LOG("%s", bad_kallsyms[i].name);
		s = etwctl_symbols_new();
		ASSERT_NE(NULL, s);
		f = fmemopen((void *)bad_kallsyms[i].text,
			     strlen(bad_kallsyms[i].text), "r");
		ASSERT_NE(NULL, f);
		EXPECT_EQ(bad_kallsyms[i].ret, etwctl_symbols_kallsyms(s, f));
		fclose(f);
		etwctl_symbols_free(s);
	}
}

TEST_HARNESS_MAIN
