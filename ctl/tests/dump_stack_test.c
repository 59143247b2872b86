// SPDX-License-Identifier: GPL-2.0
/*
 * etwctl dump symbolising stacks: a kernel logger's file with this
 * program's Image events and a provider's file with events whose
 * STACK_TRACE64 items hold this program's call chain, dumped together.
 */
#include <errno.h>
#include <inttypes.h>
#include <unistd.h>

#include "call_chain.h"
#include "ctl_test.h"
#include "etl_test.h"
#include "kselftest_harness.h"

#define KERNEL_ADDR	((uint64_t)0xffffffff81000000ull)
/* etl_test_guid: only the stack events, not the Image events. */
#define PROVIDER	"12345678-9abc-def0-0123-456789abcdef"

/* Hook group of Image events; their opcodes. */
enum { GROUP_IMAGE = 0x14, LOAD = 10, UNLOAD = 2, DCSTART = 3 };

/* A 64-bit SYSTEM_TRACE_HEADER record of @len payload bytes. */
static void add_system(void *buf, uint64_t ns, uint8_t group, uint8_t type,
		       uint8_t version, const void *data, uint16_t len)
{
	struct etw_buffer_header *bh = buf;
	uint8_t *p = (uint8_t *)buf + bh->offset;
	uint32_t marker = 0xc002u << 16 | version;
	uint16_t size = (uint16_t)(32 + len);
	uint16_t hook = (uint16_t)(group << 8 | type);
	uint32_t tid = 1, pid = 0;
	uint64_t ts = ETL_TEST_START_RAW + ns;

	memset(p, 0, (size + 7u) & ~7u);
	memcpy(p, &marker, 4);
	memcpy(p + 4, &size, 2);
	memcpy(p + 6, &hook, 2);
	memcpy(p + 8, &tid, 4);
	memcpy(p + 12, &pid, 4);
	memcpy(p + 16, &ts, 8);
	memcpy(p + 32, data, len);
	bh->offset += (size + 7u) & ~7u;
	bh->saved_offset = bh->current_offset = bh->offset;
	bh->events++;
	bh->timestamp = ts;
}

/*
 * Image_Load v3 on 64-bit: ImageBase, ImageSize, ProcessId, ImageCheckSum,
 * TimeDateStamp, Reserved0, DefaultBase, Reserved1..4, FileName (UTF-16).
 */
static void add_image(void *buf, uint64_t ns, uint8_t opcode,
		      const struct etwctl_image *img)
{
	uint8_t d[56 + 2 * 256] = { 0 };
	size_t i, n = strlen(img->path);

	memcpy(d, &img->base, 8);
	memcpy(d + 8, &img->size, 8);
	memcpy(d + 16, &img->pid, 4);
	memcpy(d + 32, &img->base, 8);
	for (i = 0; i < n && i < 255; i++)
		d[56 + 2 * i] = (uint8_t)img->path[i];
	add_system(buf, ns, GROUP_IMAGE, opcode, 3, d,
		   (uint16_t)(56 + 2 * (i + 1)));
}

/* An EVENT_HEADER64 record of this process with one STACK_TRACE64 item. */
static void add_stack_event(void *buf, uint64_t ns, uint16_t id,
			    const uint64_t *frames, uint16_t n)
{
	struct etw_buffer_header *bh = buf;
	uint8_t *p = (uint8_t *)buf + bh->offset;
	uint64_t match_id = 0;
	struct etw_ext_item x = {
		.item_size = (uint16_t)(sizeof(x) + 8 + 8 * n),
		.ext_type = ETW_EXT_STACK_TRACE64,
		.data_size = (uint16_t)(8 + 8 * n),
	};
	struct etw_event_header eh = {
		.size = (uint16_t)(sizeof(eh) + x.item_size),
		.header_type = ETW_EVENT_HEADER_TYPE_64,
		.flags = ETW_EVENT_FLAG_EXTENDED_INFO,
		.thread_id = 1,
		.process_id = (uint32_t)getpid(),
		.timestamp = ETL_TEST_START_RAW + ns,
		.provider_id = etl_test_guid,
		.descriptor = { .id = id, .level = 4 },
	};

	memcpy(p, &eh, sizeof(eh));
	memcpy(p + sizeof(eh), &x, sizeof(x));
	memcpy(p + sizeof(eh) + sizeof(x), &match_id, 8);
	memcpy(p + sizeof(eh) + sizeof(x) + 8, frames, 8u * n);
	bh->offset += eh.size;
	bh->saved_offset = bh->current_offset = bh->offset;
	bh->events++;
	bh->timestamp = eh.timestamp;
}

static int write_file(const char *path, const void *buf)
{
	struct etw_etl_writer_params p = etl_test_params();
	struct etw_etl_writer *w;
	int ret;

	ret = etw_etl_writer_open(path, ETW_ETL_MODE_SEQUENTIAL, &p, &w);
	if (ret)
		return ret;
	ret = etw_etl_writer_append(w, buf);
	if (etw_etl_writer_close(w, NULL) && !ret)
		ret = -EIO;
	return ret;
}

/*
 * kernel.etl: libc loaded at 3 us, unloaded at 5 us, the program's own
 * image by rundown at 9 us.  user.etl: event 1 at 2 us (the chain, libc's
 * frame before its load, a kernel address), event 2 at 4 us (libc's
 * frame), event 3 at 6 us (libc's frame after its unload).
 */
FIXTURE(dump) {
	char *dir;
	char *kernel;
	char *user;
	char exe_path[256];
	char libc_path[256];
	struct ctl_run run;
};

FIXTURE_SETUP(dump)
{
	struct etwctl_image exe = { .pid = getpid() };
	struct etwctl_image libc = { .pid = getpid() };
	uint8_t buf[ETL_TEST_BS];
	uint64_t frames[5];

	memset(&self->run, 0, sizeof(self->run));
	chain_a();
	libc_frame();
	ASSERT_EQ(0, image_of(chain[0], &exe, self->exe_path,
			      sizeof(self->exe_path)));
	ASSERT_EQ(0, image_of(chain[3], &libc, self->libc_path,
			      sizeof(self->libc_path)));
	self->dir = etl_mkdtemp();
	ASSERT_NE(NULL, self->dir);
	self->kernel = etl_path(self->dir, "kernel.etl");
	self->user = etl_path(self->dir, "user.etl");

	etl_buf_init(buf, ETL_TEST_BS, 0);
	add_image(buf, 3000, LOAD, &libc);
	add_image(buf, 5000, UNLOAD, &libc);
	add_image(buf, 9000, DCSTART, &exe);
	ASSERT_EQ(0, write_file(self->kernel, buf));

	etl_buf_init(buf, ETL_TEST_BS, 0);
	memcpy(frames, chain, 3 * sizeof(chain[0]));
	frames[3] = chain[3];
	frames[4] = KERNEL_ADDR;
	add_stack_event(buf, 2000, 1, frames, 5);
	add_stack_event(buf, 4000, 2, &chain[3], 1);
	add_stack_event(buf, 6000, 3, &chain[3], 1);
	ASSERT_EQ(0, write_file(self->user, buf));
}

FIXTURE_TEARDOWN(dump)
{
	ctl_run_free(&self->run);
	free(self->kernel);
	free(self->user);
	etl_rmdir(self->dir);
}

/* The text after "stack=" in line @line (0-based) of @out, up to a space. */
static char *stack_of(const char *out, int line, char *buf, size_t size)
{
	const char *p = out, *s;
	size_t n;

	while (line-- > 0 && p)
		p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL;
	s = p ? strstr(p, "stack=") : NULL;
	if (!s || (strchr(p, '\n') && s > strchr(p, '\n')))
		return NULL;
	s += strlen("stack=");
	n = strcspn(s, " \n");
	if (n >= size)
		return NULL;
	memcpy(buf, s, n);
	buf[n] = 0;
	return buf;
}

/* The chain by name, libc not yet loaded, the kernel address in hex. */
TEST_F(dump, kernel_and_user_files)
{
	const char *exe = base_name(self->exe_path);
	char want[1024], got[1024];

	self->run = ctl_run(etwctl_cmd_dump,
			    CTL_ARGV("dump", "--provider", PROVIDER,
				     self->kernel, self->user));
	ASSERT_EQ(0, self->run.status);
	EXPECT_STREQ("", self->run.err);
	snprintf(want, sizeof(want),
		 "%s!chain_c+0x%" PRIx64 ",%s!chain_b+0x%" PRIx64
		 ",%s!chain_a+0x%" PRIx64 ",0x%" PRIx64 ",0x%" PRIx64,
		 exe, chain[0] - (uintptr_t)chain_c,
		 exe, chain[1] - (uintptr_t)chain_b,
		 exe, chain[2] - (uintptr_t)chain_a, chain[3], KERNEL_ADDR);
	ASSERT_NE(NULL, stack_of(self->run.out, 0, got, sizeof(got)));
	EXPECT_STREQ(want, got);
}

/* libc's frame while it is loaded, and in hex after its unload. */
TEST_F(dump, load_and_unload)
{
	char want[32], got[1024];

	self->run = ctl_run(etwctl_cmd_dump,
			    CTL_ARGV("dump", "--provider", PROVIDER, self->user,
				     self->kernel));
	ASSERT_EQ(0, self->run.status);
	ASSERT_NE(NULL, stack_of(self->run.out, 1, got, sizeof(got)));
	EXPECT_TRUE(names_symbol(got, base_name(self->libc_path), chain[3]));
	snprintf(want, sizeof(want), "0x%" PRIx64, chain[3]);
	ASSERT_NE(NULL, stack_of(self->run.out, 2, got, sizeof(got)));
	EXPECT_STREQ(want, got);
}

/* Without the kernel logger's file, or with --no-symbols: addresses. */
TEST_F(dump, addresses)
{
	char want[32], got[1024];
	struct ctl_run again;

	self->run = ctl_run(etwctl_cmd_dump,
			    CTL_ARGV("dump", "--provider", PROVIDER,
				     self->user));
	again = ctl_run(etwctl_cmd_dump,
			CTL_ARGV("dump", "--no-symbols", "--provider", PROVIDER,
				 self->kernel, self->user));
	ASSERT_EQ(0, self->run.status);
	ASSERT_EQ(0, again.status);
	EXPECT_STREQ(self->run.out, again.out);
	snprintf(want, sizeof(want), "0x%" PRIx64, chain[3]);
	ASSERT_NE(NULL, stack_of(self->run.out, 1, got, sizeof(got)));
	EXPECT_STREQ(want, got);
	ctl_run_free(&again);
}

static int write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -errno;
	fputs(text, f);
	return fclose(f) ? -EIO : 0;
}

/* --kallsyms: the kernel address by name, the rest as before. */
TEST_F(dump, kallsyms)
{
	char *ksyms = etl_path(self->dir, "kallsyms");
	char got[1024], *comma;

	ASSERT_EQ(0, write_text(ksyms, "ffffffff80fffff0 T kfunc\n"
				"ffffffff81000010 t kother\t[etw]\n"));
	self->run = ctl_run(etwctl_cmd_dump,
			    CTL_ARGV("dump", "--kallsyms", ksyms, "--provider",
				     PROVIDER, self->kernel, self->user));
	free(ksyms);
	ASSERT_EQ(0, self->run.status);
	ASSERT_NE(NULL, stack_of(self->run.out, 0, got, sizeof(got)));
	comma = strrchr(got, ',');
	ASSERT_NE(NULL, comma);
	EXPECT_STREQ(",vmlinux!kfunc+0x10", comma);
	EXPECT_EQ(0, strncmp(got, base_name(self->exe_path),
			     strlen(base_name(self->exe_path))));
}

/* A copy of kallsyms made by a user kptr_restrict showed zeros to. */
TEST_F(dump, kallsyms_hidden)
{
	char *ksyms = etl_path(self->dir, "kallsyms");
	char want[512];

	ASSERT_EQ(0, write_text(ksyms, "0000000000000000 T kfunc\n"));
	self->run = ctl_run(etwctl_cmd_dump,
			    CTL_ARGV("dump", "--kallsyms", ksyms, self->user));
	snprintf(want, sizeof(want), "etwctl dump: %s: no symbol addresses "
		 "(kptr_restrict hides them from users other than root)\n",
		 ksyms);
	free(ksyms);
	EXPECT_EQ(1, self->run.status);
	EXPECT_STREQ(want, self->run.err);
	EXPECT_STREQ("", self->run.out);
}

/* JSON: the frames as strings of the "stack" array. */
TEST_F(dump, json)
{
	char want[1024];

	self->run = ctl_run(etwctl_cmd_dump,
			    CTL_ARGV("dump", "-f", "json", "--fields",
				     "id,fields", "--provider", PROVIDER,
				     self->kernel, self->user));
	ASSERT_EQ(0, self->run.status);
	snprintf(want, sizeof(want),
		 "{\"id\":1,\"fields\":\"\",\"stack\":[\"%s!chain_c+0x%" PRIx64
		 "\",", base_name(self->exe_path),
		 chain[0] - (uintptr_t)chain_c);
	EXPECT_EQ(0, strncmp(self->run.out, want, strlen(want)));
}

TEST_HARNESS_MAIN
