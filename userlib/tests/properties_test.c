// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * EVENT_TRACE_PROPERTIES as StartTrace and ControlTrace validate and
 * convert it (etw_properties.c): one variant per validation rule, with
 * the error Windows returns (reference §3.2, §3.3, §10).
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "etw_controller.h"
#include "kselftest_harness.h"

#define NAME_OFF	sizeof(EVENT_TRACE_PROPERTIES)
#define FILE_OFF	(NAME_OFF + 64)

struct props_buf {
	EVENT_TRACE_PROPERTIES p;
	char tail[2048];
};

struct props_case {
	ULONG expect;
	const char *name;		/* NULL: no session name */
	ULONG mode;
	const char *file;		/* NULL: LogFileNameOffset 0 */
	void (*tweak)(struct props_buf *b, struct etw_props_names *n);
};

static void kernel_guid(struct props_buf *b, struct etw_props_names *n)
{
	static const GUID sys = { 0x9e814aad, 0x3204, 0x11d2,
		{ 0x9a, 0x82, 0x00, 0x60, 0x08, 0xa8, 0x69, 0x39 } };

	b->p.Wnode.Guid = sys;
}

static void kernel_guid_name(struct props_buf *b, struct etw_props_names *n)
{
	kernel_guid(b, n);
	n->kernel_logger = true;
}

static void size_zero(struct props_buf *b, struct etw_props_names *n)
{
	b->p.Wnode.BufferSize = 0;
}

static void size_fixed_only(struct props_buf *b, struct etw_props_names *n)
{
	b->p.Wnode.BufferSize = sizeof(b->p);
}

static void size_short_by_one(struct props_buf *b, struct etw_props_names *n)
{
	b->p.Wnode.BufferSize = NAME_OFF + n->name_bytes - 1;
}

static void name_offset_one(struct props_buf *b, struct etw_props_names *n)
{
	b->p.LoggerNameOffset = 1;
}

static void file_offset_one(struct props_buf *b, struct etw_props_names *n)
{
	b->p.LogFileNameOffset = 1;
}

static void file_offset_past(struct props_buf *b, struct etw_props_names *n)
{
	b->p.LogFileNameOffset = b->p.Wnode.BufferSize;
}

static void file_unterminated(struct props_buf *b, struct etw_props_names *n)
{
	memset((char *)b + FILE_OFF, 'x', sizeof(*b) - FILE_OFF);
}

static void file_overlaps_name(struct props_buf *b, struct etw_props_names *n)
{
	b->p.LogFileNameOffset = NAME_OFF + 2;
	strcpy((char *)b + NAME_OFF + 2, "/tmp/x.etl");
}

static void no_name_offset(struct props_buf *b, struct etw_props_names *n)
{
	b->p.LoggerNameOffset = 0;
}

static void buffer_too_big(struct props_buf *b, struct etw_props_names *n)
{
	b->p.BufferSize = ETW_MAX_BUFFER_KB + 1;
}

static void buffer_max(struct props_buf *b, struct etw_props_names *n)
{
	b->p.BufferSize = ETW_MAX_BUFFER_KB;
}

static void max_size(struct props_buf *b, struct etw_props_names *n)
{
	b->p.MaximumFileSize = 10;
}

static void v2_short(struct props_buf *b, struct etw_props_names *n)
{
	b->p.Wnode.Flags |= WNODE_FLAG_VERSIONED_PROPERTIES;
	b->p.Wnode.BufferSize = sizeof(EVENT_TRACE_PROPERTIES_V2) - 1;
	b->p.LoggerNameOffset = 0;
}

static void v2_setup(struct props_buf *b, unsigned int version,
		     unsigned int filters)
{
	EVENT_TRACE_PROPERTIES_V2 *v2 = (void *)b;

	b->p.Wnode.Flags |= WNODE_FLAG_VERSIONED_PROPERTIES;
	b->p.LoggerNameOffset = sizeof(*v2);
	v2->VersionNumber = version;
	v2->FilterDescCount = filters;
}

static void v2_ok(struct props_buf *b, struct etw_props_names *n)
{
	v2_setup(b, 2, 0);
}

static void v2_version1(struct props_buf *b, struct etw_props_names *n)
{
	v2_setup(b, 1, 0);
}

static void v2_filters(struct props_buf *b, struct etw_props_names *n)
{
	v2_setup(b, 2, 1);
}

static void v2_name_in_v2_part(struct props_buf *b, struct etw_props_names *n)
{
	v2_setup(b, 2, 0);
	b->p.LoggerNameOffset = sizeof(EVENT_TRACE_PROPERTIES);
}

static void empty_file(struct props_buf *b, struct etw_props_names *n)
{
	*((char *)b + FILE_OFF) = 0;
}

static const char long_name[] =
	"0123456789012345678901234567890123456789012345678901234567890123"
	"0123456789012345678901234567890123456789012345678901234567890123"
	"0123456789012345678901234567890123456789012345678901234567890123"
	"0123456789012345678901234567890123456789012345678901234567890123"
	"0123456789012345678901234567890123456789012345678901234567890123"
	"0123456789012345678901234567890123456789012345678901234567890123"
	"0123456789012345678901234567890123456789012345678901234567890123"
	"0123456789012345678901234567890123456789012345678901234567890123"
	"0123456789012345678901234567890123456789012345678901234567890123"
	"0123456789012345678901234567890123456789012345678901234567890123"
	"0123456789012345678901234567890123456789012345678901234567890123"
	"0123456789012345678901234567890123456789012345678901234567890123"
	"0123456789012345678901234567890123456789012345678901234567890123"
	"0123456789012345678901234567890123456789012345678901234567890123"
	"0123456789012345678901234567890123456789012345678901234567890123"
	"0123456789012345678901234567890123456789012345678901234567890123"
	"x";	/* 1025 characters */

FIXTURE(start) {
	struct props_buf b;
	struct etw_props_names n;
};

FIXTURE_VARIANT(start) {
	struct props_case c;
};

#define RT		EVENT_TRACE_REAL_TIME_MODE
#define CASE(v, e, nm, md, fl, tw)					\
	FIXTURE_VARIANT_ADD(start, v) {					\
		.c = { .expect = e, .name = nm, .mode = md, .file = fl,	\
		       .tweak = tw },					\
	}

CASE(realtime, ERROR_SUCCESS, "s", RT, NULL, NULL);
CASE(file_mode_0, ERROR_SUCCESS, "s", 0, "/tmp/a.etl", NULL);
CASE(realtime_and_file, ERROR_SUCCESS, "s", RT, "/tmp/a.etl", NULL);
CASE(buffer_size_zero, ERROR_BAD_LENGTH, "s", RT, NULL, size_zero);
CASE(no_room_for_name, ERROR_BAD_LENGTH, "s", RT, NULL, size_fixed_only);
CASE(name_one_byte_short, ERROR_BAD_LENGTH, "session", RT, NULL,
     size_short_by_one);
CASE(name_too_long, ERROR_BAD_LENGTH, long_name, RT, NULL, no_name_offset);
CASE(no_name, ERROR_INVALID_PARAMETER, NULL, RT, NULL, NULL);
CASE(empty_name, ERROR_INVALID_PARAMETER, "", RT, NULL, NULL);
CASE(name_offset_1, ERROR_INVALID_PARAMETER, "s", RT, NULL,
     name_offset_one);
CASE(file_offset_1, ERROR_INVALID_PARAMETER, "s", RT, NULL,
     file_offset_one);
CASE(file_offset_past_end, ERROR_INVALID_PARAMETER, "s", RT, "/tmp/a.etl",
     file_offset_past);
CASE(file_unterminated, ERROR_INVALID_PARAMETER, "s", RT, "/tmp/a.etl",
     file_unterminated);
CASE(file_overlaps_name, ERROR_INVALID_PARAMETER, "session", RT,
     "/tmp/a.etl", file_overlaps_name);
CASE(name_offset_0_allowed, ERROR_SUCCESS, "s", RT, NULL, no_name_offset);
CASE(sequential_circular, ERROR_INVALID_PARAMETER, "s",
     EVENT_TRACE_FILE_MODE_SEQUENTIAL | EVENT_TRACE_FILE_MODE_CIRCULAR,
     "/tmp/a.etl", max_size);
CASE(sequential_newfile, ERROR_INVALID_PARAMETER, "s",
     EVENT_TRACE_FILE_MODE_SEQUENTIAL | EVENT_TRACE_FILE_MODE_NEWFILE,
     "/tmp/a%d.etl", max_size);
CASE(circular_append, ERROR_INVALID_PARAMETER, "s",
     EVENT_TRACE_FILE_MODE_CIRCULAR | EVENT_TRACE_FILE_MODE_APPEND,
     "/tmp/a.etl", max_size);
CASE(append_realtime, ERROR_INVALID_PARAMETER, "s",
     EVENT_TRACE_FILE_MODE_APPEND | RT, "/tmp/a.etl", NULL);
CASE(append_private, ERROR_INVALID_PARAMETER, "s",
     EVENT_TRACE_FILE_MODE_APPEND | EVENT_TRACE_PRIVATE_LOGGER_MODE,
     "/tmp/a.etl", NULL);
CASE(buffering_realtime, ERROR_INVALID_PARAMETER, "s",
     EVENT_TRACE_BUFFERING_MODE | RT, NULL, NULL);
CASE(buffering_with_file, ERROR_INVALID_PARAMETER, "s",
     EVENT_TRACE_BUFFERING_MODE, "/tmp/a.etl", NULL);
CASE(buffering_alone, ERROR_SUCCESS, "s", EVENT_TRACE_BUFFERING_MODE, NULL,
     NULL);
CASE(private_realtime, ERROR_INVALID_PARAMETER, "s",
     EVENT_TRACE_PRIVATE_LOGGER_MODE | RT, NULL, NULL);
CASE(private_independent, ERROR_INVALID_PARAMETER, "s",
     EVENT_TRACE_PRIVATE_LOGGER_MODE | EVENT_TRACE_INDEPENDENT_SESSION_MODE |
     EVENT_TRACE_BUFFERING_MODE, NULL, NULL);
CASE(global_and_local_sequence, ERROR_INVALID_PARAMETER, "s",
     RT | EVENT_TRACE_USE_GLOBAL_SEQUENCE | EVENT_TRACE_USE_LOCAL_SEQUENCE,
     NULL, NULL);
CASE(circular_without_max_size, ERROR_INVALID_PARAMETER, "s",
     EVENT_TRACE_FILE_MODE_CIRCULAR, "/tmp/a.etl", NULL);
CASE(circular_with_max_size, ERROR_SUCCESS, "s",
     EVENT_TRACE_FILE_MODE_CIRCULAR, "/tmp/a.etl", max_size);
CASE(newfile_without_number, ERROR_INVALID_PARAMETER, "s",
     EVENT_TRACE_FILE_MODE_NEWFILE, "/tmp/a.etl", max_size);
CASE(newfile_with_number, ERROR_SUCCESS, "s",
     EVENT_TRACE_FILE_MODE_NEWFILE, "/tmp/a%d.etl", max_size);
CASE(preallocate_without_max_size, ERROR_INVALID_PARAMETER, "s",
     EVENT_TRACE_FILE_MODE_PREALLOCATE, "/tmp/a.etl", NULL);
CASE(buffer_size_above_max, ERROR_INVALID_PARAMETER, "s", RT, NULL,
     buffer_too_big);
CASE(buffer_size_max, ERROR_SUCCESS, "s", RT, NULL, buffer_max);
CASE(system_guid_other_name, ERROR_INVALID_PARAMETER, "s", RT, NULL,
     kernel_guid);
CASE(system_guid_kernel_name, ERROR_SUCCESS, "NT Kernel Logger", RT, NULL,
     kernel_guid_name);
CASE(no_destination, ERROR_BAD_PATHNAME, "s", 0, NULL, NULL);
CASE(empty_file_name, ERROR_BAD_PATHNAME, "s", 0, "/tmp/a.etl",
     empty_file);
CASE(file_modes_without_file, ERROR_BAD_PATHNAME, "s",
     EVENT_TRACE_FILE_MODE_SEQUENTIAL, NULL, NULL);
CASE(v2_valid, ERROR_SUCCESS, "s", RT, NULL, v2_ok);
CASE(v2_too_short, ERROR_BAD_LENGTH, "s", RT, NULL, v2_short);
CASE(v2_version_1, ERROR_INVALID_PARAMETER, "s", RT, NULL, v2_version1);
CASE(v2_start_filters, ERROR_NOT_SUPPORTED, "s", RT, NULL, v2_filters);
CASE(v2_name_inside_v2, ERROR_INVALID_PARAMETER, "s", RT, NULL,
     v2_name_in_v2_part);

FIXTURE_SETUP(start)
{
	const struct props_case *c = &variant->c;

	memset(&self->b, 0, sizeof(self->b));
	memset(&self->n, 0, sizeof(self->n));
	self->b.p.Wnode.BufferSize = sizeof(self->b);
	self->b.p.Wnode.Flags = WNODE_FLAG_TRACED_GUID;
	self->b.p.LogFileMode = c->mode;
	self->b.p.LoggerNameOffset = NAME_OFF;
	self->n.char_size = 1;
	if (c->name) {
		self->n.name_chars = strlen(c->name);
		self->n.name_bytes = self->n.name_chars + 1;
	}
	if (c->file) {
		self->b.p.LogFileNameOffset = FILE_OFF;
		strcpy((char *)&self->b + FILE_OFF, c->file);
	}
	if (c->tweak)
		c->tweak(&self->b, &self->n);
}

FIXTURE_TEARDOWN(start)
{
}

TEST_F(start, check)
{
	EXPECT_EQ(variant->c.expect,
		  etw_props_check_start(&self->b.p, &self->n));
}

TEST(start_null_properties)
{
	struct etw_props_names n = { .name_bytes = 2, .name_chars = 1,
				     .char_size = 1 };

	EXPECT_EQ(ERROR_INVALID_PARAMETER, etw_props_check_start(NULL, &n));
}

/* UTF-16 names: sizes count WCHARs, the file name ends at a 16-bit NUL. */
TEST(start_wide_file_name)
{
	static const WCHAR file[] = u"/tmp/w%d.etl";
	struct etw_props_names n = { .name_bytes = 4, .name_chars = 1,
				     .char_size = 2 };
	struct props_buf b;

	memset(&b, 0, sizeof(b));
	b.p.Wnode.BufferSize = sizeof(b);
	b.p.LoggerNameOffset = NAME_OFF;
	b.p.LogFileNameOffset = FILE_OFF;
	b.p.LogFileMode = EVENT_TRACE_FILE_MODE_NEWFILE;
	b.p.MaximumFileSize = 1;
	memcpy((char *)&b + FILE_OFF, file, sizeof(file));
	EXPECT_EQ(ERROR_SUCCESS, etw_props_check_start(&b.p, &n));
	EXPECT_EQ(FILE_OFF, etw_props_file_name_offset(&b.p, 2));
}

struct control_case {
	ULONG buffer_size;
	ULONG name_offset;
	ULONG file_offset;
	ULONG expect;
};

TEST(control_checks)
{
	static const struct control_case cases[] = {
		{ sizeof(EVENT_TRACE_PROPERTIES), 0, 0, ERROR_SUCCESS },
		{ 0, 0, 0, ERROR_BAD_LENGTH },
		{ sizeof(EVENT_TRACE_PROPERTIES) - 1, 0, 0, ERROR_BAD_LENGTH },
		{ sizeof(struct props_buf), 1, 0, ERROR_INVALID_PARAMETER },
		{ sizeof(struct props_buf), 0, 1, ERROR_INVALID_PARAMETER },
		{ sizeof(struct props_buf), NAME_OFF, FILE_OFF, ERROR_SUCCESS },
	};
	struct props_buf b;
	size_t i;

	EXPECT_EQ(ERROR_INVALID_PARAMETER, etw_props_check_control(NULL));
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memset(&b, 0, sizeof(b));
		b.p.Wnode.BufferSize = cases[i].buffer_size;
		b.p.LoggerNameOffset = cases[i].name_offset;
		b.p.LogFileNameOffset = cases[i].file_offset;
		EXPECT_EQ(cases[i].expect, etw_props_check_control(&b.p))
			TH_LOG("case %zu", i);
	}
}

TEST(to_config_units_and_modes)
{
	struct etw_session_config c;
	EVENT_TRACE_PROPERTIES p;

	memset(&p, 0, sizeof(p));
	p.BufferSize = 64;
	p.MinimumBuffers = 3;
	p.MaximumBuffers = 9;
	p.FlushTimer = 2;
	p.LogFileMode = RT | EVENT_TRACE_NO_PER_PROCESSOR_BUFFERING |
			EVENT_TRACE_FILE_MODE_SEQUENTIAL |
			EVENT_TRACE_INDEPENDENT_SESSION_MODE |
			EVENT_TRACE_SECURE_MODE;
	etw_props_to_config(&p, &c);
	EXPECT_EQ(64u, c.buffer_kb);
	EXPECT_EQ(3u, c.min_buffers);
	EXPECT_EQ(9u, c.max_buffers);
	EXPECT_EQ(2000u, c.flush_timer_ms);
	EXPECT_EQ(ETW_MODE_REAL_TIME | ETW_MODE_NO_PER_PROCESSOR |
		  ETW_MODE_INDEPENDENT, c.mode);
	EXPECT_EQ(0u, c.reserved);
}

TEST(to_config_ms_flush_timer)
{
	struct etw_session_config c;
	EVENT_TRACE_PROPERTIES p;

	memset(&p, 0, sizeof(p));
	p.FlushTimer = 250;
	p.LogFileMode = ETW_PROPS_MS_FLUSH_TIMER | EVENT_TRACE_BUFFERING_MODE;
	etw_props_to_config(&p, &c);
	EXPECT_EQ(250u, c.flush_timer_ms);
	EXPECT_EQ(ETW_MODE_BUFFERING, c.mode);
}

/*
 * EnableFlags reaches the kernel for a kernel logger only (its name, or
 * EVENT_TRACE_SYSTEM_LOGGER_MODE); flags etw does not record are refused.
 */
static const struct {
	const char *what;
	bool kernel_logger;
	ULONG mode;
	ULONG flags;
	ULONG err;
	uint32_t enable_flags;
} kernel_flag_cases[] = {
	{ "kernel logger name", true, 0, EVENT_TRACE_FLAG_PROCESS |
	  EVENT_TRACE_FLAG_THREAD | EVENT_TRACE_FLAG_IMAGE_LOAD,
	  ERROR_SUCCESS, 7 },
	{ "system logger mode", false, EVENT_TRACE_SYSTEM_LOGGER_MODE,
	  EVENT_TRACE_FLAG_THREAD, ERROR_SUCCESS, 2 },
	{ "other session ignores the flags", false, 0,
	  EVENT_TRACE_FLAG_PROCESS, ERROR_SUCCESS, 0 },
	{ "disk io is not recorded", true, 0, EVENT_TRACE_FLAG_PROCESS |
	  EVENT_TRACE_FLAG_DISK_IO, ERROR_NOT_SUPPORTED, 0 },
	{ "context switches and ready threads", true, 0,
	  EVENT_TRACE_FLAG_CSWITCH | EVENT_TRACE_FLAG_DISPATCHER,
	  ERROR_SUCCESS, 0x810 },
	{ "no flags", true, 0, 0, ERROR_SUCCESS, 0 },
};

TEST(kernel_flags_table)
{
	struct etw_session_config c;
	EVENT_TRACE_PROPERTIES p;
	size_t i;

	for (i = 0; i < sizeof(kernel_flag_cases) /
			sizeof(kernel_flag_cases[0]); i++) {
		memset(&p, 0, sizeof(p));
		p.LogFileMode = RT | kernel_flag_cases[i].mode;
		p.EnableFlags = kernel_flag_cases[i].flags;
		etw_props_to_config(&p, &c);
		EXPECT_EQ(kernel_flag_cases[i].err,
			  etw_props_kernel_flags(&p,
						 kernel_flag_cases[i].kernel_logger,
						 &c))
			TH_LOG("%s", kernel_flag_cases[i].what);
		EXPECT_EQ(kernel_flag_cases[i].enable_flags, c.enable_flags)
			TH_LOG("%s", kernel_flag_cases[i].what);
	}
}

TEST(from_args_reports_enable_flags)
{
	EVENT_TRACE_PROPERTIES p;
	struct etw_session_args a;

	memset(&p, 0, sizeof(p));
	memset(&a, 0, sizeof(a));
	a.config.enable_flags = EVENT_TRACE_FLAG_PROCESS;
	a.config.mode = ETW_MODE_REAL_TIME | ETW_MODE_SYSTEM_LOGGER;
	etw_props_from_args(&p, &a);
	EXPECT_EQ((ULONG)EVENT_TRACE_FLAG_PROCESS, p.EnableFlags);
	EXPECT_EQ((ULONG)(RT | EVENT_TRACE_SYSTEM_LOGGER_MODE), p.LogFileMode);
}

/*
 * UPDATE: a kernel logger's EnableFlags is its new set (0: none) and goes
 * to the kernel with ETW_UPDATE_ENABLE_FLAGS; other sessions' is ignored;
 * a flag etw does not record is ERROR_NOT_SUPPORTED, as for StartTrace.
 */
static const struct {
	const char *what;
	const char *name;
	uint32_t mode;
	ULONG flags;
	ULONG err;
	uint32_t args_flags;
	uint32_t enable_flags;
} update_flag_cases[] = {
	{ "kernel logger turns thread on", "NT Kernel Logger", 0,
	  EVENT_TRACE_FLAG_PROCESS | EVENT_TRACE_FLAG_THREAD, ERROR_SUCCESS,
	  ETW_UPDATE_ENABLE_FLAGS, 3 },
	{ "name in any case", "nt kernel logger", 0, EVENT_TRACE_FLAG_THREAD,
	  ERROR_SUCCESS, ETW_UPDATE_ENABLE_FLAGS, 2 },
	{ "system logger mode", "other", ETW_MODE_SYSTEM_LOGGER,
	  EVENT_TRACE_FLAG_IMAGE_LOAD, ERROR_SUCCESS, ETW_UPDATE_ENABLE_FLAGS,
	  4 },
	{ "zero turns every flag off", "NT Kernel Logger", 0, 0,
	  ERROR_SUCCESS, ETW_UPDATE_ENABLE_FLAGS, 0 },
	{ "kernel logger turns cswitch and dispatcher on", "NT Kernel Logger",
	  0, EVENT_TRACE_FLAG_CSWITCH | EVENT_TRACE_FLAG_DISPATCHER,
	  ERROR_SUCCESS, ETW_UPDATE_ENABLE_FLAGS, 0x810 },
	{ "disk io is not recorded", "NT Kernel Logger", 0,
	  EVENT_TRACE_FLAG_THREAD | EVENT_TRACE_FLAG_DISK_IO,
	  ERROR_NOT_SUPPORTED, 0, 0 },
	{ "other session ignores the flags", "other", 0,
	  EVENT_TRACE_FLAG_PROCESS | EVENT_TRACE_FLAG_DISK_IO, ERROR_SUCCESS,
	  0, 0 },
};

TEST(to_update_flags_table)
{
	struct etw_session_args a;
	EVENT_TRACE_PROPERTIES p;
	size_t i;

	for (i = 0; i < sizeof(update_flag_cases) /
			sizeof(update_flag_cases[0]); i++) {
		memset(&p, 0, sizeof(p));
		memset(&a, 0, sizeof(a));
		snprintf(a.name, sizeof(a.name), "%s", update_flag_cases[i].name);
		a.config.mode = ETW_MODE_REAL_TIME | update_flag_cases[i].mode;
		a.config.enable_flags = EVENT_TRACE_FLAG_PROCESS;
		a.config.buffer_kb = 64;
		p.LogFileMode = RT;
		p.EnableFlags = update_flag_cases[i].flags;
		EXPECT_EQ(update_flag_cases[i].err, etw_props_to_update(&p, &a))
			TH_LOG("%s", update_flag_cases[i].what);
		if (update_flag_cases[i].err) {
			/* Refused: the arguments are the query's still. */
			EXPECT_EQ(0, a.flags);
			EXPECT_EQ(64, a.config.buffer_kb);
			EXPECT_EQ((uint32_t)EVENT_TRACE_FLAG_PROCESS,
				  a.config.enable_flags);
			continue;
		}
		EXPECT_EQ(update_flag_cases[i].args_flags, a.flags)
			TH_LOG("%s", update_flag_cases[i].what);
		EXPECT_EQ(update_flag_cases[i].enable_flags,
			  a.config.enable_flags)
			TH_LOG("%s", update_flag_cases[i].what);
		/* What UPDATE cannot change goes as 0. */
		EXPECT_EQ(0, a.config.buffer_kb);
		EXPECT_EQ(ETW_MODE_REAL_TIME | update_flag_cases[i].mode,
			  a.config.mode);
	}
}

TEST(to_config_flush_timer_saturates)
{
	struct etw_session_config c;
	EVENT_TRACE_PROPERTIES p;

	memset(&p, 0, sizeof(p));
	p.FlushTimer = 0xffffffff;
	etw_props_to_config(&p, &c);
	EXPECT_EQ(0xffffffffu, c.flush_timer_ms);
}

/* Statistics land at Windows' offsets (reference §3.2). */
TEST(from_args_offsets)
{
	struct etw_session_args a;
	EVENT_TRACE_PROPERTIES p;
	uint32_t v;

	memset(&a, 0, sizeof(a));
	memset(&p, 0, sizeof(p));
	a.logger_id = 7;
	a.config.buffer_kb = 8;
	a.config.min_buffers = 4;
	a.config.max_buffers = 16;
	a.config.flush_timer_ms = 1500;
	a.config.mode = ETW_MODE_REAL_TIME;
	a.stats.buffers = 11;
	a.stats.free_buffers = 5;
	a.stats.events_lost = 0x100000000ull;
	a.stats.buffers_written = 13;
	a.stats.log_buffers_lost = 2;
	a.stats.realtime_buffers_lost = 3;
	p.LogFileMode = EVENT_TRACE_FILE_MODE_SEQUENTIAL |
			ETW_MODE_BUFFERING;
	etw_props_from_args(&p, &a);
	EXPECT_EQ(7u, p.Wnode.HistoricalContext);
	EXPECT_EQ(8u, p.BufferSize);
	EXPECT_EQ(4u, p.MinimumBuffers);
	EXPECT_EQ(16u, p.MaximumBuffers);
	EXPECT_EQ(2u, p.FlushTimer);	/* rounded up to whole seconds */
	EXPECT_EQ(EVENT_TRACE_FILE_MODE_SEQUENTIAL | RT, p.LogFileMode);
	memcpy(&v, (char *)&p + 0x50, 4);
	EXPECT_EQ(11u, v);
	memcpy(&v, (char *)&p + 0x54, 4);
	EXPECT_EQ(5u, v);
	memcpy(&v, (char *)&p + 0x58, 4);
	EXPECT_EQ(0xffffffffu, v);	/* saturated, not truncated */
	memcpy(&v, (char *)&p + 0x5c, 4);
	EXPECT_EQ(13u, v);
	memcpy(&v, (char *)&p + 0x60, 4);
	EXPECT_EQ(2u, v);
	memcpy(&v, (char *)&p + 0x64, 4);
	EXPECT_EQ(3u, v);
}

TEST_HARNESS_MAIN
