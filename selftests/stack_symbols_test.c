// SPDX-License-Identifier: GPL-2.0
/*
 * Stacks of a known call chain resolve to its function names, end to end:
 * a file session records this program's events with STACK_TRACE, the NT
 * Kernel Logger records image events (LOADER) to a second file, and
 * "etwctl dump -f json k.etl u.etl" names the frames of chain_a ->
 * chain_b -> chain_c -> EventWrite as stack_symbols_test!chain_c+0x...
 * The offsets must be the raw return addresses ("--no-symbols") minus the
 * functions' addresses in this process: both are at the image's load
 * base, so their difference is the one in the file's own addresses.
 * Cases: the kernel logger started before the event (a Load or DCStart
 * image event), an event written before it started (named through its
 * DCStart rundown), and a frame in a library dlopen()ed while the kernel
 * logger runs (its Load event), named while loaded.
 *
 * etwctl is run as a program (ctl/etwctl beside this binary's directory).
 * Built with frame pointers (Makefile), as libetw is: the kernel walks
 * user stacks through them.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <inttypes.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "evntprov.h"
#include "kselftest_harness.h"

#define NOIPA		__attribute__((noipa))
#define SESSION		"stack-symbols"
#define KERNEL_LOGGER	"NT Kernel Logger"
#define DIR		"/tmp/stack_symbols"
#define KFILE		DIR "/k.etl"
#define UFILE		DIR "/u.etl"
#define OUT		DIR "/out"
#define ERR		DIR "/err"
#define TEST_GUID	"5e1f7e57-0c71-4d2a-9a53-e7c7e7c70516"
#define LIB		"stack_symbols_lib.so"
#define MAX_FRAMES	200
#define FRAME_LEN	256

static const GUID test_guid = { 0x5e1f7e57, 0x0c71, 0x4d2a,
	{ 0x9a, 0x53, 0xe7, 0xc7, 0xe7, 0xc7, 0x05, 0x16 } };

static REGHANDLE reg;

/* Return addresses, each recorded after its call: in chain_b, a, caller. */
static uintptr_t ret_c, ret_b, ret_a;

static NOIPA unsigned long chain_c(unsigned short id)
{
	EVENT_DESCRIPTOR d = { .Id = id };
	ULONG err = EventWrite(reg, &d, 0, NULL);

	ret_c = (uintptr_t)__builtin_return_address(0);
	return err;
}

static NOIPA unsigned long chain_b(unsigned short id)
{
	unsigned long err = chain_c(id);

	ret_b = (uintptr_t)__builtin_return_address(0);
	return err;
}

static NOIPA unsigned long chain_a(unsigned short id)
{
	unsigned long err = chain_b(id);

	ret_a = (uintptr_t)__builtin_return_address(0);
	return err;
}

/* One event's stack as dump prints it: symbolised, and raw. */
struct stack {
	int n;
	char sym[MAX_FRAMES][FRAME_LEN];
	uint64_t raw[MAX_FRAMES];
};

/* The directory of this binary, where etwctl and the library are found. */
static const char *self_dir(void)
{
	static char dir[4000];
	ssize_t n = readlink("/proc/self/exe", dir, sizeof(dir) - 1);
	char *slash;

	if (n <= 0)
		return "/etw/selftests";
	dir[n] = 0;
	slash = strrchr(dir, '/');
	if (slash)
		*slash = 0;
	return dir;
}

/* This binary's file name, its module name in dump's frames. */
static const char *self_name(void)
{
	static char path[4000];
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);

	if (n <= 0)
		return "stack_symbols_test";
	path[n] = 0;
	return strrchr(path, '/') + 1;
}

/*
 * Run etwctl with the NULL-terminated arguments, its standard output to
 * OUT and its errors to ERR.  Return: its exit status, -1 if it did not
 * exit.
 */
static int etwctl(const char *arg, ...)
{
	char path[4096], *argv[16];
	posix_spawn_file_actions_t fa;
	int argc = 1, ws = 0;
	va_list ap;
	pid_t pid;

	snprintf(path, sizeof(path), "%s/../ctl/etwctl", self_dir());
	argv[0] = path;
	va_start(ap, arg);
	for (; arg && argc < 15; arg = va_arg(ap, const char *))
		argv[argc++] = (char *)arg;
	va_end(ap);
	argv[argc] = NULL;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, OUT, O_WRONLY | O_CREAT |
					 O_TRUNC, 0644);
	posix_spawn_file_actions_addopen(&fa, 2, ERR, O_WRONLY | O_CREAT |
					 O_TRUNC, 0644);
	if (posix_spawn(&pid, path, &fa, NULL, argv, NULL))
		pid = -1;
	posix_spawn_file_actions_destroy(&fa);
	if (pid < 0 || waitpid(pid, &ws, 0) != pid || !WIFEXITED(ws))
		return -1;
	return WEXITSTATUS(ws);
}

/* What etwctl last wrote to @file (OUT or ERR), for the log. */
static const char *slurp(const char *file)
{
	static char buf[16384];
	FILE *f = fopen(file, "r");
	size_t n = 0;

	if (f) {
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
	}
	buf[n] = 0;
	return buf;
}

/*
 * The frames of the "stack" array of OUT's one line into @s->sym, or as
 * addresses into @s->raw when @raw.  Return: the number of frames, -1 if
 * OUT does not hold one event with a stack.
 */
static int parse_stack(struct stack *s, int raw)
{
	const char *line = slurp(OUT), *p = strstr(line, "\"stack\":[");
	const char *end;
	int n = 0;

	if (!p || strchr(line, '\n') != line + strlen(line) - 1)
		return -1;
	for (p += strlen("\"stack\":["); *p == '"' && n < MAX_FRAMES; n++) {
		end = strchr(p + 1, '"');
		if (!end || end - p - 1 >= FRAME_LEN)
			return -1;
		if (raw)
			s->raw[n] = strtoull(p + 1, NULL, 16);
		else
			snprintf(s->sym[n], FRAME_LEN, "%.*s",
				 (int)(end - p - 1), p + 1);
		p = end + 1 + (end[1] == ',');
	}
	return *p == ']' ? n : -1;
}

/* Event @id's stack from the two files: named, then with --no-symbols. */
static int dump_stack(unsigned short id, struct stack *s)
{
	char ids[8];
	int n;

	snprintf(ids, sizeof(ids), "%u", id);
	if (etwctl("dump", "-f", "json", "--fields", "id,fields", "--provider",
		   TEST_GUID, "--id", ids, KFILE, UFILE, NULL))
		return -1;
	s->n = parse_stack(s, 0);
	if (etwctl("dump", "-f", "json", "--fields", "id,fields", "--provider",
		   TEST_GUID, "--id", ids, "--no-symbols", UFILE, NULL))
		return -1;
	n = parse_stack(s, 1);
	return n == s->n ? n : -1;
}

/* The frame's index whose raw address is @addr, -1 if none. */
static int frame_of(const struct stack *s, uintptr_t addr)
{
	int i;

	for (i = 0; i < s->n; i++)
		if (s->raw[i] == addr)
			return i;
	return -1;
}

/* "module!fn+0xoff" for return address @ret in @fn at @fn_addr. */
static const char *want_frame(char *buf, const char *module, const char *fn,
			      const void *fn_addr, uint64_t ret)
{
	snprintf(buf, FRAME_LEN, "%s!%s+0x%" PRIx64, module, fn,
		 ret - (uintptr_t)fn_addr);
	return buf;
}

FIXTURE(stk) {
	struct stack s;
	int kernel_logger;
};

FIXTURE_SETUP(stk)
{
	if (geteuid())
		SKIP(return, "the kernel logger needs root");
	mkdir(DIR, 0755);
	unlink(KFILE);
	unlink(UFILE);
	ASSERT_EQ(0, EventRegister(&test_guid, NULL, NULL, &reg));
	ASSERT_EQ(0, etwctl("start", SESSION, "-f", UFILE, NULL))
		TH_LOG("%s", slurp(ERR));
	ASSERT_EQ(0, etwctl("enable", SESSION, TEST_GUID, "--extended",
			    "stack", NULL))
		TH_LOG("%s", slurp(ERR));
	ASSERT_TRUE(EventEnabled(reg, &(EVENT_DESCRIPTOR){ .Id = 1 }));
}

FIXTURE_TEARDOWN(stk)
{
	if (self->kernel_logger)
		etwctl("stop", KERNEL_LOGGER, NULL);
	etwctl("stop", SESSION, NULL);
	EventUnregister(reg);
}

static int start_kernel_logger(struct _test_data_stk *self)
{
	self->kernel_logger = !etwctl("start", KERNEL_LOGGER, "-on", "LOADER",
				      "-f", KFILE, NULL);
	return self->kernel_logger ? 0 : -1;
}

/* Stop both sessions: their files are complete once stop returns. */
static int stop_both(struct _test_data_stk *self)
{
	int err = etwctl("stop", SESSION, NULL);

	self->kernel_logger = 0;
	return etwctl("stop", KERNEL_LOGGER, NULL) || err ? -1 : 0;
}

/*
 * The event's stack holds libetw's frames, then chain_c's, chain_b's and
 * chain_a's, each named with its offset.  Return: chain_a's index.
 */
static int check_chain(struct __test_metadata *_metadata,
		       const struct stack *s)
{
	char want[FRAME_LEN];
	int i = frame_of(s, ret_c);

	/* ret_c, in chain_b, comes after EventWrite's return into chain_c. */
	if (i < 1 || i + 1 >= s->n) {
		TH_LOG("no frame 0x%" PRIxPTR " in chain_b", ret_c);
		return -1;
	}
	TH_LOG("frames %d to %d: %s %s %s %s", i - 1, i + 2, s->sym[i - 1],
	       s->sym[i], s->sym[i + 1], i + 2 < s->n ? s->sym[i + 2] : "");
	EXPECT_EQ(0, strncmp(s->sym[0], "libetw.so", strlen("libetw.so")))
		TH_LOG("frame 0: %s", s->sym[0]);
	EXPECT_STREQ(want_frame(want, self_name(), "chain_c", chain_c,
				s->raw[i - 1]), s->sym[i - 1]);
	EXPECT_STREQ(want_frame(want, self_name(), "chain_b", chain_b, ret_c),
		     s->sym[i]);
	EXPECT_EQ(ret_b, s->raw[i + 1]);
	EXPECT_STREQ(want_frame(want, self_name(), "chain_a", chain_a, ret_b),
		     s->sym[i + 1]);
	return i + 1;
}

/* The kernel logger runs as the event is written. */
TEST_F(stk, chain_named)
{
	ASSERT_EQ(0, start_kernel_logger(self)) TH_LOG("%s", slurp(ERR));
	ASSERT_EQ(0, chain_a(1));
	ASSERT_EQ(0, stop_both(self)) TH_LOG("%s", slurp(ERR));
	ASSERT_LE(0, dump_stack(1, &self->s)) TH_LOG("%s", slurp(ERR));
	EXPECT_LE(0, check_chain(_metadata, &self->s));
}

/* Written before the kernel logger starts: its DCStart names the image. */
TEST_F(stk, chain_before_kernel_logger)
{
	ASSERT_EQ(0, chain_a(2));
	ASSERT_EQ(0, start_kernel_logger(self)) TH_LOG("%s", slurp(ERR));
	ASSERT_EQ(0, stop_both(self)) TH_LOG("%s", slurp(ERR));
	ASSERT_LE(0, dump_stack(2, &self->s)) TH_LOG("%s", slurp(ERR));
	EXPECT_LE(0, check_chain(_metadata, &self->s));
}

/* A library dlopen()ed after the kernel logger started: its Load event. */
TEST_F(stk, dlopened_library_frame)
{
	unsigned long (*call)(unsigned long (*)(unsigned short),
			      unsigned short);
	char path[4096], want[FRAME_LEN];
	void *lib;
	int i;

	ASSERT_EQ(0, start_kernel_logger(self)) TH_LOG("%s", slurp(ERR));
	snprintf(path, sizeof(path), "%s/" LIB, self_dir());
	lib = dlopen(path, RTLD_NOW);
	ASSERT_NE(NULL, lib) TH_LOG("%s", dlerror());
	call = (unsigned long (*)(unsigned long (*)(unsigned short),
				  unsigned short))dlsym(lib, "stack_lib_call");
	ASSERT_NE(NULL, call);
	EXPECT_EQ(0, call(chain_a, 3));
	ASSERT_EQ(0, stop_both(self)) TH_LOG("%s", slurp(ERR));
	ASSERT_LE(0, dump_stack(3, &self->s)) TH_LOG("%s", slurp(ERR));
	i = check_chain(_metadata, &self->s);
	ASSERT_LE(0, i);
	ASSERT_LT(i + 1, self->s.n);
	EXPECT_EQ(ret_a, self->s.raw[i + 1]);
	EXPECT_STREQ(want_frame(want, LIB, "stack_lib_call", (void *)call,
				ret_a), self->s.sym[i + 1]);
	dlclose(lib);
}

TEST_HARNESS_MAIN
