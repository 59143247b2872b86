/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * etw_etl: the ETL file format, for etwctl's file logger and for
 * ProcessTrace over files.  Not installed: it is libetw's, shared with
 * etwctl, which links libetw.a and includes it through -Iuserlib.
 *
 * A session writes an ETL file as a sequence of equally sized buffers.
 * Buffer 0 (the header buffer) starts with the WMI_LOG_TYPE_HEADER system
 * event, which carries a TRACE_LOGFILE_HEADER and the logger and file
 * names.  Every later buffer
 * holds the records of one CPU, exactly as the kernel sealed it (see
 * struct etw_buffer_header in <linux/etw.h>).
 *
 * Files that Windows' relogger writes (xperf -merge, WPR, PerfView's
 * merge) and files of compressed sessions differ: each buffer is stored
 * in its own size (BufferSize of its header, which follows the previous
 * one without padding), and a buffer with %ETW_ETL_BUFFER_FLAG_COMPRESSED
 * holds its records XPRESS-compressed (etw_xpress.c) after an
 * uncompressed header whose Offset is the inflated fill.  The reader
 * gives every buffer inflated, in TRACE_LOGFILE_HEADER.BufferSize bytes.
 *
 * Functions return 0 or a positive count on success and a negative errno on
 * failure: -EBADMSG for corrupt or truncated data, -EOPNOTSUPP for
 * compressed records in memory (etw_etl_records_init() on a buffer the
 * reader did not inflate), -ENOSPC when a size-limited sequential file is
 * full.
 */
#ifndef _ETW_ETL_H
#define _ETW_ETL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/etw.h>

/* File modes: EVENT_TRACE_FILE_MODE_* values. */
#define ETW_ETL_MODE_SEQUENTIAL		0x00000001
#define ETW_ETL_MODE_CIRCULAR		0x00000002
#define ETW_ETL_MODE_APPEND		0x00000004
#define ETW_ETL_MODE_NEWFILE		0x00000008
/* EVENT_TRACE_USE_KBYTES_FOR_SIZE: MaximumFileSize counts KiB, not MiB. */
#define ETW_ETL_MODE_KBYTES		0x00002000
/* EVENT_TRACE_RELOG_MODE: written by a relogger (a merge). */
#define ETW_ETL_MODE_RELOG		0x00010000
/* EVENT_TRACE_COMPRESSED_MODE: buffers are stored compressed. */
#define ETW_ETL_MODE_COMPRESSED		0x04000000

/* SYSTEM_TRACE_HEADER.Marker of the header event: version 2, 64-bit. */
#define ETW_ETL_SYSTEM_MARKER64		0xc0020002u
/* Hook WMI_LOG_TYPE_HEADER, in group EVENT_TRACE_GROUP_HEADER. */
#define ETW_ETL_HOOK_HEADER		0x0000
#define ETW_ETL_HOOK_GROUP_HEADER	0x00

/* Record header types: the 16-bit value at record offset 2. */
#define ETW_ETL_HT_SYSTEM32		0xc001
#define ETW_ETL_HT_SYSTEM64		0xc002
#define ETW_ETL_HT_COMPACT32		0xc003
#define ETW_ETL_HT_COMPACT64		0xc004
#define ETW_ETL_HT_FULL32		0xc00a
#define ETW_ETL_HT_INSTANCE32		0xc00b
#define ETW_ETL_HT_PERFINFO32		0xc010
#define ETW_ETL_HT_PERFINFO64		0xc011
#define ETW_ETL_HT_EVENT32		0xc012
#define ETW_ETL_HT_EVENT64		0xc013
#define ETW_ETL_HT_FULL64		0xc014
#define ETW_ETL_HT_INSTANCE64		0xc015
#define ETW_ETL_HT_MESSAGE		0x9000

/* ETW_BUFFER_FLAG_COMPRESSED: the records are XPRESS-compressed. */
#define ETW_ETL_BUFFER_FLAG_COMPRESSED	0x0040

/* TRACE_LOGFILE_HEADER.ReservedFlags: the clock of raw timestamps. */
#define ETW_ETL_CLOCK_QPC		1
#define ETW_ETL_CLOCK_SYSTEM_TIME	2
#define ETW_ETL_CLOCK_CPU_CYCLES	3

/* Ext items one record may carry; [dissect] reads at most 13. */
#define ETW_ETL_MAX_EXT_ITEMS		16
/* Largest buffer accepted from a file (Windows allows 16 MiB). */
#define ETW_ETL_MAX_BUFFER_SIZE		(64u << 20)

/**
 * struct etw_etl_system_header - SYSTEM_TRACE_HEADER (32 bytes)
 * @marker: version (low 16 bits), header type and 0xc0 flags
 * @size: record bytes, this header included
 * @hook_id: group << 8 | type
 * @thread_id: thread id
 * @process_id: process id
 * @system_time: raw session clock
 * @kernel_time: CPU ticks
 * @user_time: CPU ticks
 */
struct etw_etl_system_header {
	uint32_t marker;
	uint16_t size;
	uint16_t hook_id;
	uint32_t thread_id;
	uint32_t process_id;
	uint64_t system_time;
	uint32_t kernel_time;
	uint32_t user_time;
};

_Static_assert(sizeof(struct etw_etl_system_header) == 32,
	       "SYSTEM_TRACE_HEADER is 32 bytes");

#define ETW_ETL_TIME_ZONE_SIZE		172

/**
 * struct etw_etl_logfile_header - TRACE_LOGFILE_HEADER, x64 form (0x118)
 *
 * Field names follow Windows'.  Times are FILETIMEs (100 ns since 1601)
 * except @perf_freq (Hz of the raw clock).  @logger_name and
 * @log_file_name are not pointers in files; the names follow the struct.
 * The 32-bit form (0x110 bytes, 4-byte name fields) is converted to this
 * one when read.
 */
struct etw_etl_logfile_header {
	uint32_t buffer_size;
	uint8_t version[4];
	uint32_t provider_version;
	uint32_t number_of_processors;
	uint64_t end_time;
	uint32_t timer_resolution;
	uint32_t maximum_file_size;
	uint32_t log_file_mode;
	uint32_t buffers_written;
	uint32_t start_buffers;
	uint32_t pointer_size;
	uint32_t events_lost;
	uint32_t cpu_speed_mhz;
	uint64_t logger_name;
	uint64_t log_file_name;
	uint8_t time_zone[ETW_ETL_TIME_ZONE_SIZE];
	uint32_t pad;
	uint64_t boot_time;
	uint64_t perf_freq;
	uint64_t start_time;
	uint32_t reserved_flags;
	uint32_t buffers_lost;
};

#define ETW_ETL_LOGFILE_HEADER_SIZE	0x118
#define ETW_ETL_LOGFILE_HEADER32_SIZE	0x110

_Static_assert(sizeof(struct etw_etl_logfile_header) ==
	       ETW_ETL_LOGFILE_HEADER_SIZE, "TRACE_LOGFILE_HEADER x64 size");
_Static_assert(offsetof(struct etw_etl_logfile_header, buffers_written) ==
	       0x24, "BuffersWritten offset");
_Static_assert(offsetof(struct etw_etl_logfile_header, pointer_size) ==
	       0x2c, "PointerSize offset");
_Static_assert(offsetof(struct etw_etl_logfile_header, logger_name) ==
	       0x38, "LoggerName offset");
_Static_assert(offsetof(struct etw_etl_logfile_header, time_zone) == 0x48,
	       "TimeZone offset");
_Static_assert(offsetof(struct etw_etl_logfile_header, pad) == 0xf4,
	       "padding before BootTime");
_Static_assert(offsetof(struct etw_etl_logfile_header, boot_time) == 0xf8,
	       "BootTime offset");
_Static_assert(offsetof(struct etw_etl_logfile_header, perf_freq) == 0x100,
	       "PerfFreq offset");
_Static_assert(offsetof(struct etw_etl_logfile_header, start_time) == 0x108,
	       "StartTime offset");
_Static_assert(offsetof(struct etw_etl_logfile_header, reserved_flags) ==
	       0x110, "ReservedFlags offset");
_Static_assert(sizeof(struct etw_buffer_header) == ETW_BUFFER_HEADER_SIZE,
	       "WMI_BUFFER_HEADER size");
_Static_assert(sizeof(struct etw_event_header) == 80, "EVENT_HEADER size");

/* ---------------------------------------------------------------------- */
/* Records (etw_etl.c) */

/**
 * struct etw_etl_clock - what converting raw timestamps to FILETIME needs
 * @type: ETW_ETL_CLOCK_*
 * @perf_freq: Hz of the raw clock (QPC type)
 * @cpu_speed_mhz: CPU cycles per microsecond (cycle type)
 * @start_raw: raw clock at @start_time (the header event's SystemTime)
 * @start_time: FILETIME of the session start
 */
struct etw_etl_clock {
	uint32_t type;
	uint32_t cpu_speed_mhz;
	uint64_t perf_freq;
	uint64_t start_raw;
	uint64_t start_time;
};

enum etw_etl_kind {
	ETW_ETL_KIND_EVENT,	/* EVENT_HEADER (0xc012/0xc013) */
	ETW_ETL_KIND_SYSTEM,	/* SYSTEM_TRACE_HEADER, full or compact */
	ETW_ETL_KIND_PERFINFO,	/* PERFINFO_TRACE_HEADER */
	ETW_ETL_KIND_CLASSIC,	/* EVENT_TRACE_HEADER (TraceEvent) */
	ETW_ETL_KIND_INSTANCE,	/* EVENT_INSTANCE_GUID_HEADER */
	ETW_ETL_KIND_MESSAGE,	/* MESSAGE_TRACE_HEADER (TraceMessage) */
};

/**
 * struct etw_etl_ext - one extended data item of a record
 * @type: EVENT_HEADER_EXT_TYPE_*
 * @size: bytes at @data (the item's DataSize)
 * @data: inside the buffer
 */
struct etw_etl_ext {
	uint16_t type;
	uint16_t size;
	const void *data;
};

/**
 * struct etw_etl_event - one record, parsed
 * @kind: ETW_ETL_KIND_*
 * @header_type: the record's header type (ETW_ETL_HT_*)
 * @size: record bytes as stored, unpadded
 * @flags: EVENT_HEADER.Flags (kind EVENT; ETW_EVENT_FLAG_CLASSIC_HEADER
 *	for CLASSIC and INSTANCE records, EVENT_HEADER_FLAG_TRACE_MESSAGE
 *	for MESSAGE records)
 * @event_property: EVENT_HEADER.EventProperty
 * @thread_id: thread id
 * @process_id: process id
 * @raw_timestamp: session clock
 * @timestamp: FILETIME, from @raw_timestamp and the file's clock
 * @provider_id: provider GUID; for system and perfinfo records the event
 *	class of the hook's group (EventTraceGuid for HEADER), zero for a
 *	group with no documented class; for MESSAGE
 *	records the message GUID, or the component id in data1
 * @descriptor: descriptor; for system and perfinfo records opcode is the
 *	hook type and version the marker version, for classic records
 *	opcode, level and version come from the class, for messages id is
 *	the message number
 * @processor_time: Kernel/UserTime or ProcessorTime
 * @activity_id: activity GUID (kind EVENT)
 * @hook_id: SYSTEM and PERFINFO records: group << 8 | type
 * @instance_id: INSTANCE records
 * @parent_instance_id: INSTANCE records
 * @parent_guid: INSTANCE records
 * @message_flags: MESSAGE records: the TRACE_MESSAGE_* flags
 * @sequence: MESSAGE records: the sequence number, when the flags have one
 * @processor_index: CPU, from the buffer
 * @logger_id: session, from the buffer
 * @ext_count: entries of @ext in use
 * @ext: extended data items, in file order
 * @user_data: payload, inside the buffer
 * @user_data_len: bytes at @user_data
 * @record: the whole record, inside the buffer
 */
struct etw_etl_event {
	enum etw_etl_kind kind;
	uint16_t header_type;
	uint16_t size;
	uint16_t flags;
	uint16_t event_property;
	uint32_t thread_id;
	uint32_t process_id;
	uint64_t raw_timestamp;
	int64_t timestamp;
	struct etw_guid provider_id;
	struct etw_event_descriptor descriptor;
	uint64_t processor_time;
	struct etw_guid activity_id;
	uint16_t hook_id;
	uint32_t instance_id;
	uint32_t parent_instance_id;
	struct etw_guid parent_guid;
	uint16_t message_flags;
	uint32_t sequence;
	uint16_t processor_index;
	uint16_t logger_id;
	uint32_t ext_count;
	struct etw_etl_ext ext[ETW_ETL_MAX_EXT_ITEMS];
	const void *user_data;
	uint32_t user_data_len;
	const void *record;
};

/**
 * struct etw_etl_records - iterator over the records of one buffer
 * @buf: the buffer (header included)
 * @pos: offset of the next record
 * @end: filled bytes
 * @processor_index: CPU of the buffer
 * @logger_id: session of the buffer
 * @clock: converts timestamps; NULL leaves @timestamp = raw
 * @skipped: records of unknown types passed over
 * @last_raw: raw timestamp of the last record, which a message without
 *	one takes
 */
struct etw_etl_records {
	const uint8_t *buf;
	uint32_t pos;
	uint32_t end;
	uint16_t processor_index;
	uint16_t logger_id;
	const struct etw_etl_clock *clock;
	uint32_t skipped;
	uint64_t last_raw;
};

int etw_etl_buffer_check(const void *buf, size_t len, uint32_t *filled);
uint16_t etw_etl_buffer_cpu(const struct etw_buffer_header *bh);
int etw_etl_records_init(struct etw_etl_records *it, const void *buf,
			 size_t len, const struct etw_etl_clock *clock);
int etw_etl_records_next(struct etw_etl_records *it,
			 struct etw_etl_event *ev);
int etw_etl_records_class(struct etw_etl_records *it,
			  struct etw_etl_event *ev);
void etw_etl_records_pass(struct etw_etl_records *it,
			  const struct etw_etl_event *ev);
int64_t etw_etl_filetime(const struct etw_etl_clock *clock, uint64_t raw);

/* UTF-16LE <-> UTF-8 for the names in the header event. */
size_t etw_etl_utf8_to_utf16(const char *s, uint8_t *out, size_t max);
size_t etw_etl_utf16_units(const uint8_t *le, size_t max);
size_t etw_etl_utf16_utf8(const uint8_t *le, size_t units, char *out);
char *etw_etl_utf16_to_utf8(const uint8_t *le, size_t units);

/* ---------------------------------------------------------------------- */
/* XPRESS, plain LZ77 ([MS-XCA]; etw_xpress.c) */

int etw_xpress_decompress(const void *in, size_t in_len, void *out,
			  size_t cap, size_t *out_len);
ssize_t etw_xpress_compress(const void *in, size_t len, void *out,
			    size_t cap);

/* ---------------------------------------------------------------------- */
/* Reader (etw_etl_reader.c) */

/**
 * struct etw_etl_stored - how a buffer is stored in the file
 * @offset: file offset of its header
 * @size: bytes it takes in the file
 * @compressed: its records are XPRESS-compressed
 */
struct etw_etl_stored {
	uint64_t offset;
	uint32_t size;
	bool compressed;
};

struct etw_etl_reader;

int etw_etl_reader_open(const char *path, struct etw_etl_reader **out);
void etw_etl_reader_close(struct etw_etl_reader *r);
const struct etw_etl_logfile_header *
etw_etl_reader_header(const struct etw_etl_reader *r);
const struct etw_etl_system_header *
etw_etl_reader_header_event(const struct etw_etl_reader *r);
const struct etw_etl_clock *
etw_etl_reader_clock(const struct etw_etl_reader *r);
const char *etw_etl_reader_logger_name(const struct etw_etl_reader *r);
const char *etw_etl_reader_file_name(const struct etw_etl_reader *r);
uint32_t etw_etl_reader_buffer_size(const struct etw_etl_reader *r);
uint64_t etw_etl_reader_buffer_count(const struct etw_etl_reader *r);
int etw_etl_reader_buffer_header(struct etw_etl_reader *r, uint64_t index,
				 struct etw_buffer_header *bh);
int etw_etl_reader_buffer(struct etw_etl_reader *r, uint64_t index,
			  void *buf);
int etw_etl_reader_stored(const struct etw_etl_reader *r, uint64_t index,
			  struct etw_etl_stored *st);
void etw_etl_reader_keep(struct etw_etl_reader *r, size_t mem);

/* ---------------------------------------------------------------------- */
/* Time-ordered merge (etw_etl_merge.c) */

struct etw_etl_merge;

int etw_etl_merge_open(struct etw_etl_reader *const *readers,
		       unsigned int count, struct etw_etl_merge **out);
int etw_etl_merge_next(struct etw_etl_merge *m, struct etw_etl_event *ev,
		       unsigned int *file);
typedef bool (*etw_etl_merge_want_fn)(const struct etw_etl_event *ev,
				      void *arg);
void etw_etl_merge_filter(struct etw_etl_merge *m, etw_etl_merge_want_fn want,
			  void *arg);
void etw_etl_merge_close(struct etw_etl_merge *m);

/* ---------------------------------------------------------------------- */
/* Writer (etw_etl_writer.c) */

/**
 * struct etw_etl_writer_params - what the header buffer describes
 * @buffer_size: bytes per buffer (the kernel's buffer_kb * 1024); with
 *	%ETW_ETL_MODE_APPEND, 0 takes the file's
 * @max_file_size: MaximumFileSize: MiB, or KiB with %ETW_ETL_MODE_KBYTES
 *	in @log_file_mode; 0 = unlimited (sequential and append only)
 * @log_file_mode: LogFileMode for the header; the file-mode bits are
 *	replaced by the mode passed to etw_etl_writer_open();
 *	%ETW_ETL_MODE_COMPRESSED writes a compressed file (sequential, no
 *	size limit): a 512-byte-rounded header buffer, then each buffer
 *	XPRESS-compressed in its own size, or as filled when compression
 *	would not make it smaller
 * @number_of_processors: more than the highest processor index logged
 * @timer_resolution: TimerResolution, 100 ns units
 * @provider_version: ProviderVersion (OS build)
 * @logger_id: session logger id, for the header buffer's context
 * @process_id: of the logger, for the header event
 * @thread_id: of the logger, for the header event
 * @start_raw: session clock (ns of CLOCK_MONOTONIC) at @start_time
 * @start_time: FILETIME of the session start
 * @boot_time: FILETIME of the boot
 * @logger_name: session name, UTF-8
 * @cpu_speed_mhz: CpuSpeedInMHz; 0 takes this host's
 *	(etw_etl_cpu_speed_mhz()), what a file recorded here wants
 * @log_file_name: LogFileName of the header, UTF-8; NULL for the file's
 *	path
 */
struct etw_etl_writer_params {
	uint32_t buffer_size;
	uint32_t max_file_size;
	uint32_t log_file_mode;
	uint32_t number_of_processors;
	uint32_t timer_resolution;
	uint32_t provider_version;
	uint16_t logger_id;
	uint32_t process_id;
	uint32_t thread_id;
	uint64_t start_raw;
	uint64_t start_time;
	uint64_t boot_time;
	const char *logger_name;
	uint32_t cpu_speed_mhz;
	const char *log_file_name;
};

/**
 * struct etw_etl_writer_stats - final counts for the header
 * @end_time: FILETIME of the stop; 0 = the newest buffer's timestamp,
 *	which also replaces an earlier stop time
 * @events_lost: events the session lost
 * @buffers_lost: buffers the session lost (buffers the writer refused
 *	are added)
 */
struct etw_etl_writer_stats {
	uint64_t end_time;
	uint32_t events_lost;
	uint32_t buffers_lost;
};

struct etw_etl_writer;

int etw_etl_writer_open(const char *path, uint32_t mode,
			const struct etw_etl_writer_params *params,
			struct etw_etl_writer **out);
int etw_etl_writer_append(struct etw_etl_writer *w, const void *buffer);
int etw_etl_writer_close(struct etw_etl_writer *w,
			 const struct etw_etl_writer_stats *stats);
uint32_t etw_etl_writer_file_number(const struct etw_etl_writer *w);
uint32_t etw_etl_cpu_speed_mhz(const char *root);

#endif /* _ETW_ETL_H */
