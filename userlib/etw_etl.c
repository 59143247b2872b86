// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * etw_etl.c: records inside one ETL buffer, timestamps and names.
 *
 * Everything here works on memory the caller holds and trusts nothing in
 * it: every size is checked against the filled bytes of the buffer before
 * a byte is read, so a hostile file can at worst end a buffer early.
 * Multi-byte fields are little-endian, as on every host libetw runs on;
 * they are read with memcpy because nothing guarantees the caller's
 * buffer is aligned.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "etw_etl.h"

/* Minimum record sizes: the fixed part of each header kind. */
#define ETW_ETL_EVENT_MIN	80
#define ETW_ETL_SYSTEM_MIN	32
#define ETW_ETL_COMPACT_MIN	24
#define ETW_ETL_PERFINFO_MIN	16
#define ETW_ETL_CLASSIC_MIN	48
#define ETW_ETL_INSTANCE_MIN	72
#define ETW_ETL_MESSAGE_MIN	8

/* TraceMessage's flags that add fields; EVENT_HEADER_FLAG_TRACE_MESSAGE. */
#define ETW_ETL_MSG_SEQUENCE	0x01
#define ETW_ETL_MSG_GUID	0x02
#define ETW_ETL_MSG_COMPONENTID	0x04
#define ETW_ETL_MSG_TIMESTAMP	0x08
#define ETW_ETL_MSG_SYSTEMINFO	0x20
#define ETW_ETL_FLAG_TRACE_MESSAGE 0x0008

/* TRACE_HEADER_FLAG and TRACE_HEADER_EVENT_TRACE, in the top 16 bits. */
#define ETW_ETL_HT_FLAG		0x8000
#define ETW_ETL_HT_EVENT_TRACE	0x4000
#define ETW_ETL_EXT_ITEM_SIZE	8

/*
 * The event class of a kernel (SYSTEM, PERFINFO) record by its hook's
 * group, as ProcessTrace gives consumers ProviderId: the class GUIDs of
 * "NT Kernel Logger Constants" and the MOF classes' pages (EventTraceGuid
 * for the HEADER group).  A group with no documented class keeps a zero
 * ProviderId.
 */
#define ETW_ETL_KERNEL_CLASS(grp, a, b, c, ...) \
	[grp] = { .present = true, .guid = { a, b, c, { __VA_ARGS__ } } }
static const struct {
	bool present;
	struct etw_guid guid;
} etw_etl_kernel_classes[] = {
	/* HEADER: EventTraceGuid */
	ETW_ETL_KERNEL_CLASS(0x00, 0x68fdd900, 0x4a3e, 0x11d1,
			     0x84, 0xf4, 0x00, 0x00, 0xf8, 0x04, 0x64, 0xe3),
	/* IO: DiskIoGuid */
	ETW_ETL_KERNEL_CLASS(0x01, 0x3d6fa8d4, 0xfe05, 0x11d0,
			     0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c),
	/* MEMORY: PageFaultGuid */
	ETW_ETL_KERNEL_CLASS(0x02, 0x3d6fa8d3, 0xfe05, 0x11d0,
			     0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c),
	/* PROCESS: ProcessGuid */
	ETW_ETL_KERNEL_CLASS(0x03, 0x3d6fa8d0, 0xfe05, 0x11d0,
			     0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c),
	/* FILE: FileIoGuid */
	ETW_ETL_KERNEL_CLASS(0x04, 0x90cbdc39, 0x4a3e, 0x11d1,
			     0x84, 0xf4, 0x00, 0x00, 0xf8, 0x04, 0x64, 0xe3),
	/* THREAD: ThreadGuid */
	ETW_ETL_KERNEL_CLASS(0x05, 0x3d6fa8d1, 0xfe05, 0x11d0,
			     0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c),
	/* TCPIP: TcpIpGuid */
	ETW_ETL_KERNEL_CLASS(0x06, 0x9a280ac0, 0xc8e0, 0x11d1,
			     0x84, 0xe2, 0x00, 0xc0, 0x4f, 0xb9, 0x98, 0xa2),
	/* UDPIP: UdpIpGuid */
	ETW_ETL_KERNEL_CLASS(0x08, 0xbf3a50c5, 0xa9c9, 0x4988,
			     0xa0, 0x05, 0x2d, 0xf0, 0xb7, 0xc8, 0x0f, 0x80),
	/* REGISTRY: RegistryGuid */
	ETW_ETL_KERNEL_CLASS(0x09, 0xae53722e, 0xc863, 0x11d2,
			     0x86, 0x59, 0x00, 0xc0, 0x4f, 0xa3, 0x21, 0xa1),
	/* CONFIG: EventTraceConfigGuid (HWConfig, SystemConfig) */
	ETW_ETL_KERNEL_CLASS(0x0b, 0x01853a65, 0x418f, 0x4f36,
			     0xae, 0xfc, 0xdc, 0x0f, 0x1d, 0x2f, 0xd2, 0x35),
	/* PERFINFO: PerfInfoGuid */
	ETW_ETL_KERNEL_CLASS(0x0f, 0xce1dbfb4, 0x137e, 0x4da6,
			     0x87, 0xb0, 0x3f, 0x59, 0xaa, 0x10, 0x2c, 0xbc),
	/* IMAGE: ImageLoadGuid */
	ETW_ETL_KERNEL_CLASS(0x14, 0x2cb15d1d, 0x5fc1, 0x11d2,
			     0xab, 0xe1, 0x00, 0xa0, 0xc9, 0x11, 0xf5, 0x18),
	/* STACKWALK: StackWalkGuid */
	ETW_ETL_KERNEL_CLASS(0x18, 0xdef2fe46, 0x7bd6, 0x4b80,
			     0xbd, 0x94, 0xf5, 0x7f, 0xe2, 0x0d, 0x0c, 0xe3),
	/* ALPC: ALPCGuid */
	ETW_ETL_KERNEL_CLASS(0x1a, 0x45d8cccd, 0x539f, 0x4b72,
			     0xa8, 0xb7, 0x5c, 0x68, 0x31, 0x42, 0x60, 0x9a),
	/* SPLITIO: SplitIoGuid */
	ETW_ETL_KERNEL_CLASS(0x1b, 0xd837ca92, 0x12b9, 0x44a5,
			     0xad, 0x6a, 0x3a, 0x65, 0xb3, 0x57, 0x8a, 0xa8),
};

/* A kernel record's ProviderId: its hook group's event class. */
static void etw_etl_kernel_class(struct etw_etl_event *ev)
{
	unsigned int group = ev->hook_id >> 8;

	if (group < sizeof(etw_etl_kernel_classes) /
		    sizeof(etw_etl_kernel_classes[0]) &&
	    etw_etl_kernel_classes[group].present)
		ev->provider_id = etw_etl_kernel_classes[group].guid;
}

static uint16_t etw_etl_le16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint32_t etw_etl_le32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint64_t etw_etl_le64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/**
 * etw_etl_buffer_check - validate a buffer header against its memory
 * @buf: the buffer
 * @len: bytes available at @buf
 * @filled: out: bytes of header and records
 *
 * The filled size is Offset (ETW_BUFFER_HEADER.FilledBytes), as dissect
 * and etl2pcapng read it; Windows' CurrentOffset is not meaningful in
 * files.
 */
int etw_etl_buffer_check(const void *buf, size_t len, uint32_t *filled)
{
	struct etw_buffer_header bh;

	if (len < sizeof(bh))
		return -EBADMSG;
	memcpy(&bh, buf, sizeof(bh));
	if (bh.buffer_flag & ETW_ETL_BUFFER_FLAG_COMPRESSED)
		return -EOPNOTSUPP;
	if (bh.buffer_size > len || bh.offset < sizeof(bh) ||
	    bh.offset > bh.buffer_size)
		return -EBADMSG;
	*filled = bh.offset;
	return 0;
}

/*
 * ETW_BUFFER_CONTEXT holds a 16-bit ProcessorIndex only when the buffer
 * says so; older buffers have an 8-bit ProcessorNumber and an alignment
 * byte.
 */
uint16_t etw_etl_buffer_cpu(const struct etw_buffer_header *bh)
{
	if (bh->buffer_flag & ETW_BUFFER_FLAG_PROC_INDEX)
		return bh->processor_index;
	return bh->processor_index & 0xff;
}

int etw_etl_records_init(struct etw_etl_records *it, const void *buf,
			 size_t len, const struct etw_etl_clock *clock)
{
	struct etw_buffer_header bh;
	uint32_t filled;
	int ret;

	ret = etw_etl_buffer_check(buf, len, &filled);
	if (ret)
		return ret;
	memcpy(&bh, buf, sizeof(bh));
	memset(it, 0, sizeof(*it));
	it->buf = buf;
	it->pos = sizeof(bh);
	it->end = filled;
	it->processor_index = etw_etl_buffer_cpu(&bh);
	it->logger_id = bh.logger_id;
	it->clock = clock;
	return 0;
}

static uint64_t etw_etl_scale(uint64_t delta, uint64_t mul, uint64_t div)
{
	return (uint64_t)((unsigned __int128)delta * mul / div);
}

/* start + (raw - start_raw) * mul / div, for raw on either side. */
static int64_t etw_etl_rebase(const struct etw_etl_clock *c, uint64_t raw,
			      uint64_t mul, uint64_t div)
{
	uint64_t t = c->start_time;

	if (raw >= c->start_raw)
		t += etw_etl_scale(raw - c->start_raw, mul, div);
	else
		t -= etw_etl_scale(c->start_raw - raw, mul, div);
	return (int64_t)t;
}

/**
 * etw_etl_filetime - convert a raw timestamp to FILETIME (§4.8)
 * @clock: the file's clock
 * @raw: a timestamp of that clock
 *
 * A clock whose rate is unknown (zero PerfFreq or CPU speed) leaves the
 * raw value, as the system-time clock does.
 */
int64_t etw_etl_filetime(const struct etw_etl_clock *clock, uint64_t raw)
{
	switch (clock->type) {
	case ETW_ETL_CLOCK_SYSTEM_TIME:
		return (int64_t)raw;
	case ETW_ETL_CLOCK_CPU_CYCLES:
		if (!clock->cpu_speed_mhz)
			return (int64_t)raw;
		return etw_etl_rebase(clock, raw, 10, clock->cpu_speed_mhz);
	default:
		if (!clock->perf_freq)
			return (int64_t)raw;
		return etw_etl_rebase(clock, raw, 10000000, clock->perf_freq);
	}
}

/*
 * System, compact and perfinfo headers keep a version in the low 16 bits
 * of the marker and the size in the packet that follows; all the others
 * keep the size in the low 16 bits.
 */
static bool etw_etl_size_in_packet(uint16_t ht)
{
	switch (ht) {
	case ETW_ETL_HT_SYSTEM32:
	case ETW_ETL_HT_SYSTEM64:
	case ETW_ETL_HT_COMPACT32:
	case ETW_ETL_HT_COMPACT64:
	case ETW_ETL_HT_PERFINFO32:
	case ETW_ETL_HT_PERFINFO64:
		return true;
	default:
		return false;
	}
}

/* The fixed part a record of this type must hold; 0 for unknown types. */
static uint32_t etw_etl_min_size(uint16_t ht)
{
	switch (ht) {
	case ETW_ETL_HT_EVENT32:
	case ETW_ETL_HT_EVENT64:
		return ETW_ETL_EVENT_MIN;
	case ETW_ETL_HT_SYSTEM32:
	case ETW_ETL_HT_SYSTEM64:
		return ETW_ETL_SYSTEM_MIN;
	case ETW_ETL_HT_COMPACT32:
	case ETW_ETL_HT_COMPACT64:
		return ETW_ETL_COMPACT_MIN;
	case ETW_ETL_HT_PERFINFO32:
	case ETW_ETL_HT_PERFINFO64:
		return ETW_ETL_PERFINFO_MIN;
	case ETW_ETL_HT_FULL32:
	case ETW_ETL_HT_FULL64:
		return ETW_ETL_CLASSIC_MIN;
	case ETW_ETL_HT_INSTANCE32:
	case ETW_ETL_HT_INSTANCE64:
		return ETW_ETL_INSTANCE_MIN;
	case ETW_ETL_HT_MESSAGE:
		return ETW_ETL_MESSAGE_MIN;
	default:
		return 0;
	}
}

static int etw_etl_parse_ext(struct etw_etl_event *ev, const uint8_t *rec,
			     uint32_t *pos)
{
	struct etw_etl_ext *x;
	struct etw_ext_item item;

	for (;;) {
		if (ev->size - *pos < sizeof(item) ||
		    ev->ext_count == ETW_ETL_MAX_EXT_ITEMS)
			return -EBADMSG;
		memcpy(&item, rec + *pos, sizeof(item));
		if (item.item_size < sizeof(item) || item.item_size % 8 ||
		    item.item_size > ev->size - *pos ||
		    item.data_size > item.item_size - sizeof(item))
			return -EBADMSG;
		x = &ev->ext[ev->ext_count++];
		x->type = item.ext_type;
		x->size = item.data_size;
		x->data = rec + *pos + sizeof(item);
		*pos += item.item_size;
		if (!(item.linkage & ETW_EXT_LINKAGE))
			return 0;
	}
}

static int etw_etl_parse_event(struct etw_etl_event *ev, const uint8_t *rec)
{
	struct etw_event_header eh;
	uint32_t pos = sizeof(eh);
	int ret;

	memcpy(&eh, rec, sizeof(eh));
	ev->kind = ETW_ETL_KIND_EVENT;
	ev->flags = eh.flags;
	ev->event_property = eh.event_property;
	ev->thread_id = eh.thread_id;
	ev->process_id = eh.process_id;
	ev->raw_timestamp = eh.timestamp;
	ev->provider_id = eh.provider_id;
	ev->descriptor = eh.descriptor;
	ev->processor_time = eh.processor_time;
	ev->activity_id = eh.activity_id;
	if (eh.flags & ETW_EVENT_FLAG_EXTENDED_INFO) {
		ret = etw_etl_parse_ext(ev, rec, &pos);
		if (ret)
			return ret;
	}
	ev->user_data = rec + pos;
	ev->user_data_len = ev->size - pos;
	return 0;
}

/* SYSTEM_TRACE_HEADER, and its compact form without the CPU times. */
static void etw_etl_parse_system(struct etw_etl_event *ev, const uint8_t *rec)
{
	bool compact = ev->header_type == ETW_ETL_HT_COMPACT32 ||
		       ev->header_type == ETW_ETL_HT_COMPACT64;
	uint32_t hdr = compact ? ETW_ETL_COMPACT_MIN : ETW_ETL_SYSTEM_MIN;

	ev->kind = ETW_ETL_KIND_SYSTEM;
	ev->hook_id = etw_etl_le16(rec + 6);
	ev->thread_id = etw_etl_le32(rec + 8);
	ev->process_id = etw_etl_le32(rec + 12);
	ev->raw_timestamp = etw_etl_le64(rec + 16);
	if (!compact)
		ev->processor_time = etw_etl_le64(rec + 24);
	ev->descriptor.version = etw_etl_le16(rec) & 0xff;
	ev->descriptor.opcode = ev->hook_id & 0xff;
	etw_etl_kernel_class(ev);
	ev->user_data = rec + hdr;
	ev->user_data_len = ev->size - hdr;
}

static void etw_etl_parse_perfinfo(struct etw_etl_event *ev,
				   const uint8_t *rec)
{
	ev->kind = ETW_ETL_KIND_PERFINFO;
	ev->hook_id = etw_etl_le16(rec + 6);
	ev->raw_timestamp = etw_etl_le64(rec + 8);
	ev->descriptor.version = etw_etl_le16(rec) & 0xff;
	ev->descriptor.opcode = ev->hook_id & 0xff;
	etw_etl_kernel_class(ev);
	ev->user_data = rec + ETW_ETL_PERFINFO_MIN;
	ev->user_data_len = ev->size - ETW_ETL_PERFINFO_MIN;
}

/*
 * EVENT_TRACE_HEADER: Class {Type, Level, Version} at 4, then TID, PID,
 * TimeStamp, Guid and the CPU times; EVENT_INSTANCE_GUID_HEADER adds
 * InstanceId, ParentInstanceId and ParentGuid.
 */
static void etw_etl_parse_classic(struct etw_etl_event *ev,
				  const uint8_t *rec)
{
	uint32_t hdr = ETW_ETL_CLASSIC_MIN;

	ev->kind = ETW_ETL_KIND_CLASSIC;
	ev->flags = ETW_EVENT_FLAG_CLASSIC_HEADER;
	ev->descriptor.opcode = rec[4];
	ev->descriptor.level = rec[5];
	ev->descriptor.version = etw_etl_le16(rec + 6) & 0xff;
	ev->thread_id = etw_etl_le32(rec + 8);
	ev->process_id = etw_etl_le32(rec + 12);
	ev->raw_timestamp = etw_etl_le64(rec + 16);
	memcpy(&ev->provider_id, rec + 24, sizeof(ev->provider_id));
	ev->processor_time = etw_etl_le64(rec + 40);
	if (ev->header_type == ETW_ETL_HT_INSTANCE32 ||
	    ev->header_type == ETW_ETL_HT_INSTANCE64) {
		ev->kind = ETW_ETL_KIND_INSTANCE;
		ev->instance_id = etw_etl_le32(rec + 48);
		ev->parent_instance_id = etw_etl_le32(rec + 52);
		memcpy(&ev->parent_guid, rec + 56, sizeof(ev->parent_guid));
		hdr = ETW_ETL_INSTANCE_MIN;
	}
	ev->user_data = rec + hdr;
	ev->user_data_len = ev->size - hdr;
}

/* The bytes of the fields a message's flags ask for. */
static uint32_t etw_etl_message_fields(uint16_t f)
{
	uint32_t n = 0;

	if (f & ETW_ETL_MSG_SEQUENCE)
		n += 4;
	if (f & ETW_ETL_MSG_COMPONENTID)
		n += 4;
	else if (f & ETW_ETL_MSG_GUID)
		n += 16;
	if (f & ETW_ETL_MSG_TIMESTAMP)
		n += 8;
	if (f & ETW_ETL_MSG_SYSTEMINFO)
		n += 8;
	return n;
}

/*
 * MESSAGE_TRACE_HEADER: MessageNumber at 4, the flags at 6, then the
 * fields they ask for in TraceMessage's order (sequence, component id or
 * GUID, timestamp, thread and process id).  Without a timestamp the
 * message keeps @ev->raw_timestamp, the previous record's.
 */
static int etw_etl_parse_message(struct etw_etl_event *ev, const uint8_t *rec)
{
	uint16_t f = etw_etl_le16(rec + 6);
	uint32_t pos = ETW_ETL_MESSAGE_MIN;

	if (ev->size < pos + etw_etl_message_fields(f))
		return -EBADMSG;
	ev->kind = ETW_ETL_KIND_MESSAGE;
	ev->flags = ETW_ETL_FLAG_TRACE_MESSAGE;
	ev->descriptor.id = etw_etl_le16(rec + 4);
	ev->message_flags = f;
	if (f & ETW_ETL_MSG_SEQUENCE) {
		ev->sequence = etw_etl_le32(rec + pos);
		pos += 4;
	}
	if (f & ETW_ETL_MSG_COMPONENTID) {
		ev->provider_id.data1 = etw_etl_le32(rec + pos);
		pos += 4;
	} else if (f & ETW_ETL_MSG_GUID) {
		memcpy(&ev->provider_id, rec + pos, sizeof(ev->provider_id));
		pos += 16;
	}
	if (f & ETW_ETL_MSG_TIMESTAMP) {
		ev->raw_timestamp = etw_etl_le64(rec + pos);
		pos += 8;
	}
	if (f & ETW_ETL_MSG_SYSTEMINFO) {
		ev->thread_id = etw_etl_le32(rec + pos);
		ev->process_id = etw_etl_le32(rec + pos + 4);
		pos += 8;
	}
	ev->user_data = rec + pos;
	ev->user_data_len = ev->size - pos;
	return 0;
}

static int etw_etl_parse(struct etw_etl_event *ev, const uint8_t *rec)
{
	switch (ev->header_type) {
	case ETW_ETL_HT_MESSAGE:
		return etw_etl_parse_message(ev, rec);
	case ETW_ETL_HT_EVENT32:
	case ETW_ETL_HT_EVENT64:
		return etw_etl_parse_event(ev, rec);
	case ETW_ETL_HT_PERFINFO32:
	case ETW_ETL_HT_PERFINFO64:
		etw_etl_parse_perfinfo(ev, rec);
		return 0;
	case ETW_ETL_HT_FULL32:
	case ETW_ETL_HT_FULL64:
	case ETW_ETL_HT_INSTANCE32:
	case ETW_ETL_HT_INSTANCE64:
		etw_etl_parse_classic(ev, rec);
		return 0;
	default:
		etw_etl_parse_system(ev, rec);
		return 0;
	}
}

/*
 * Find the size of the record at it->pos.  Returns the record's header
 * type, or a negative errno; *size is 0 at the end of the records.
 */
static inline int etw_etl_record_size(const struct etw_etl_records *it,
				      uint32_t *size)
{
	const uint8_t *rec = it->buf + it->pos;
	uint32_t avail = it->end - it->pos;
	uint32_t marker;
	uint16_t ht;

	*size = 0;
	if (avail < 4)
		return 0;
	marker = etw_etl_le32(rec);
	/* Windows pads the tail with 0xff; dissect stops at this marker. */
	if (marker == 0xffffffff)
		return 0;
	ht = marker >> 16;
	if (!(ht & ETW_ETL_HT_FLAG))
		return -EBADMSG;
	if ((ht & ETW_ETL_HT_EVENT_TRACE) && etw_etl_size_in_packet(ht)) {
		if (avail < 8)
			return -EBADMSG;
		*size = etw_etl_le16(rec + 4);
	} else {
		*size = marker & 0xffff;
	}
	if (*size < 4 || *size > avail || *size < etw_etl_min_size(ht))
		return -EBADMSG;
	return ht;
}

static void etw_etl_advance(struct etw_etl_records *it, uint32_t size)
{
	uint32_t step = (size + 7) & ~7u;

	/* The last record's padding may be cut off by the fill mark. */
	it->pos = step > it->end - it->pos ? it->end : it->pos + step;
}

/*
 * The header type of the next record of a known type, records of unknown
 * types skipped by their size; *@size its size.  0 at the end, -EBADMSG
 * for a malformed record (the iterator then stays at the end).
 */
static inline int etw_etl_record_next(struct etw_etl_records *it,
				      uint32_t *size)
{
	int ht;

	for (;;) {
		ht = etw_etl_record_size(it, size);
		if (ht <= 0) {
			it->pos = it->end;
			return ht;
		}
		if (etw_etl_min_size(ht))
			return ht;
		it->skipped++;
		etw_etl_advance(it, *size);
	}
}

/**
 * etw_etl_records_class - the class of the next record, ahead of parsing
 * @it: iterator from etw_etl_records_init()
 * @ev: out: the record's kind, header_type, size, hook_id, provider_id,
 *	descriptor and raw_timestamp, as etw_etl_records_next() gives them,
 *	and nothing else
 *
 * For a reader that takes few records: each of the others then costs a
 * few loads, not a parse, a time conversion and the clearing of @ev.  A
 * message is parsed whole, its class being in its optional fields.
 *
 * Return: 1 with a record, which etw_etl_records_next() then parses or
 * etw_etl_records_pass() passes over; otherwise as
 * etw_etl_records_next().
 */
int etw_etl_records_class(struct etw_etl_records *it,
			  struct etw_etl_event *ev)
{
	const uint8_t *rec;
	uint32_t size;
	int ht = etw_etl_record_next(it, &size);

	if (ht <= 0)
		return ht;
	rec = it->buf + it->pos;
	ev->header_type = ht;
	ev->size = size;
	switch (ht) {
	case ETW_ETL_HT_EVENT32:
	case ETW_ETL_HT_EVENT64:
		ev->kind = ETW_ETL_KIND_EVENT;
		ev->hook_id = 0;
		ev->raw_timestamp = etw_etl_le64(rec + 16);
		memcpy(&ev->provider_id, rec + 24, sizeof(ev->provider_id));
		memcpy(&ev->descriptor, rec + 40, sizeof(ev->descriptor));
		return 1;
	case ETW_ETL_HT_MESSAGE:
	case ETW_ETL_HT_FULL32:
	case ETW_ETL_HT_FULL64:
	case ETW_ETL_HT_INSTANCE32:
	case ETW_ETL_HT_INSTANCE64:
		memset(ev, 0, offsetof(struct etw_etl_event, ext));
		ev->header_type = ht;
		ev->size = size;
		ev->raw_timestamp = it->last_raw;
		if (ht != ETW_ETL_HT_MESSAGE) {
			etw_etl_parse_classic(ev, rec);
		} else if (etw_etl_parse_message(ev, rec)) {
			it->pos = it->end;
			return -EBADMSG;
		}
		return 1;
	}
	/* SYSTEM, COMPACT and PERFINFO records: a kernel class. */
	memset(&ev->provider_id, 0, sizeof(ev->provider_id));
	memset(&ev->descriptor, 0, sizeof(ev->descriptor));
	ev->kind = ht == ETW_ETL_HT_PERFINFO32 || ht == ETW_ETL_HT_PERFINFO64 ?
		   ETW_ETL_KIND_PERFINFO : ETW_ETL_KIND_SYSTEM;
	ev->hook_id = etw_etl_le16(rec + 6);
	ev->raw_timestamp = etw_etl_le64(rec + (ev->kind ==
						ETW_ETL_KIND_PERFINFO ? 8 : 16));
	ev->descriptor.version = etw_etl_le16(rec) & 0xff;
	ev->descriptor.opcode = ev->hook_id & 0xff;
	etw_etl_kernel_class(ev);
	return 1;
}

/**
 * etw_etl_records_pass - pass over the record etw_etl_records_class() gave
 * @it: the iterator
 * @ev: the class it gave
 *
 * A message after it takes its time, as after a parsed record.
 */
void etw_etl_records_pass(struct etw_etl_records *it,
			  const struct etw_etl_event *ev)
{
	it->last_raw = ev->raw_timestamp;
	etw_etl_advance(it, ev->size);
}

/**
 * etw_etl_records_next - parse the next record of a buffer
 * @it: iterator from etw_etl_records_init()
 * @ev: out: the record; its pointers point into the buffer
 *
 * Records of unknown types are skipped by their size.
 *
 * Return: 1 with a record in @ev, 0 at the end of the buffer, -EBADMSG
 * when a record is malformed (the iterator then stays at the end).
 */
int etw_etl_records_next(struct etw_etl_records *it,
			 struct etw_etl_event *ev)
{
	uint32_t size;
	int ht = etw_etl_record_next(it, &size), ret;

	if (ht <= 0)
		return ht;
	memset(ev, 0, offsetof(struct etw_etl_event, ext));
	ev->header_type = ht;
	ev->size = size;
	ev->record = it->buf + it->pos;
	ev->processor_index = it->processor_index;
	ev->logger_id = it->logger_id;
	ev->raw_timestamp = it->last_raw;
	ret = etw_etl_parse(ev, ev->record);
	if (ret) {
		it->pos = it->end;
		return ret;
	}
	it->last_raw = ev->raw_timestamp;
	ev->timestamp = it->clock ? etw_etl_filetime(it->clock,
						     ev->raw_timestamp) :
				    (int64_t)ev->raw_timestamp;
	etw_etl_advance(it, size);
	return 1;
}

/* ---------------------------------------------------------------------- */
/* Names: UTF-8 in the API, NUL-terminated UTF-16LE in the header event. */

#define ETW_ETL_REPLACEMENT	0xfffd

/* Decode one UTF-8 sequence; invalid input yields U+FFFD for one byte. */
static uint32_t etw_etl_utf8_next(const unsigned char **sp)
{
	const unsigned char *s = *sp;
	uint32_t cp, min;
	int n, i;

	if (s[0] < 0x80) {
		*sp = s + 1;
		return s[0];
	}
	if ((s[0] & 0xe0) == 0xc0) {
		n = 1, cp = s[0] & 0x1f, min = 0x80;
	} else if ((s[0] & 0xf0) == 0xe0) {
		n = 2, cp = s[0] & 0x0f, min = 0x800;
	} else if ((s[0] & 0xf8) == 0xf0) {
		n = 3, cp = s[0] & 0x07, min = 0x10000;
	} else {
		*sp = s + 1;
		return ETW_ETL_REPLACEMENT;
	}
	for (i = 1; i <= n; i++) {
		if ((s[i] & 0xc0) != 0x80) {
			*sp = s + 1;
			return ETW_ETL_REPLACEMENT;
		}
		cp = cp << 6 | (s[i] & 0x3f);
	}
	*sp = s + n + 1;
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp < 0xe000))
		return ETW_ETL_REPLACEMENT;
	return cp;
}

static void etw_etl_put16(uint8_t *out, size_t max, size_t n, uint16_t u)
{
	if (n < max) {
		out[2 * n] = u & 0xff;
		out[2 * n + 1] = u >> 8;
	}
}

/**
 * etw_etl_utf8_to_utf16 - encode a name for the header event
 * @s: NUL-terminated UTF-8
 * @out: receives up to @max UTF-16LE code units (2 bytes each), no NUL
 * @max: units @out holds
 *
 * Return: the units @s needs, which may exceed @max.
 */
size_t etw_etl_utf8_to_utf16(const char *s, uint8_t *out, size_t max)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = 0;
	uint32_t cp;

	while (*p) {
		cp = etw_etl_utf8_next(&p);
		if (cp >= 0x10000) {
			cp -= 0x10000;
			etw_etl_put16(out, max, n++, 0xd800 | cp >> 10);
			etw_etl_put16(out, max, n++, 0xdc00 | (cp & 0x3ff));
		} else {
			etw_etl_put16(out, max, n++, cp);
		}
	}
	return n;
}

static size_t etw_etl_put_utf8(char *o, uint32_t cp)
{
	if (cp < 0x80) {
		o[0] = cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = 0xc0 | cp >> 6;
		o[1] = 0x80 | (cp & 0x3f);
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = 0xe0 | cp >> 12;
		o[1] = 0x80 | (cp >> 6 & 0x3f);
		o[2] = 0x80 | (cp & 0x3f);
		return 3;
	}
	o[0] = 0xf0 | cp >> 18;
	o[1] = 0x80 | (cp >> 12 & 0x3f);
	o[2] = 0x80 | (cp >> 6 & 0x3f);
	o[3] = 0x80 | (cp & 0x3f);
	return 4;
}

/**
 * etw_etl_utf16_units - the code units of a NUL-terminated UTF-16 string
 * @le: UTF-16LE code units
 * @max: how many there are at most
 *
 * Four units at a time, with the zero-lane test of etw_etl_utf16_utf8():
 * the CLR's events carry thousands of method names.
 *
 * Return: the units before the first NUL, or @max when there is none.
 */
size_t etw_etl_utf16_units(const uint8_t *le, size_t max)
{
	size_t n = 0;
	uint64_t w;

	for (; n + 4 <= max; n += 4) {
		w = etw_etl_le64(le + 2 * n);
		if ((w - 0x0001000100010001ull) & ~w & 0x8000800080008000ull)
			break;
	}
	while (n < max && etw_etl_le16(le + 2 * n))
		n++;
	return n;
}

/**
 * etw_etl_utf16_utf8 - UTF-16LE as UTF-8, into a buffer
 * @le: UTF-16LE code units
 * @units: how many; decoding also stops at a NUL
 * @out: out: the NUL-terminated UTF-8, at most 3 * @units + 1 bytes
 *
 * Unpaired surrogates become U+FFFD.  A caller that decodes many strings
 * (etwctl's event fields) writes them where they go, with no malloc.
 *
 * Return: the bytes written before the NUL.
 */
size_t etw_etl_utf16_utf8(const uint8_t *le, size_t units, char *out)
{
	size_t i, n = 0;
	uint32_t cp, lo;
	uint64_t w;

	for (i = 0; i < units; i++) {
		/*
		 * ASCII, most of what a trace names, four units at a time
		 * while none is past 0x7f or a NUL (a lane of 0 borrows).
		 */
		while (i + 4 <= units) {
			w = etw_etl_le64(le + 2 * i);
			if ((w & 0xff80ff80ff80ff80ull) ||
			    ((w - 0x0001000100010001ull) & ~w &
			     0x8000800080008000ull))
				break;
			out[n] = (char)w;
			out[n + 1] = (char)(w >> 16);
			out[n + 2] = (char)(w >> 32);
			out[n + 3] = (char)(w >> 48);
			n += 4;
			i += 4;
		}
		if (i == units)
			break;
		cp = etw_etl_le16(le + 2 * i);
		if (cp - 1 < 0x7f) {
			out[n++] = (char)cp;
			continue;
		}
		if (!cp)
			break;
		if (cp >= 0xd800 && cp < 0xdc00 && i + 1 < units) {
			lo = etw_etl_le16(le + 2 * i + 2);
			if (lo >= 0xdc00 && lo < 0xe000) {
				cp = 0x10000 + ((cp - 0xd800) << 10) +
				     (lo - 0xdc00);
				i++;
			}
		}
		if (cp >= 0xd800 && cp < 0xe000)
			cp = ETW_ETL_REPLACEMENT;
		n += etw_etl_put_utf8(out + n, cp);
	}
	out[n] = '\0';
	return n;
}

/**
 * etw_etl_utf16_to_utf8 - decode a name from the header event
 * @le: UTF-16LE code units
 * @units: how many; decoding also stops at a NUL
 *
 * Unpaired surrogates become U+FFFD.
 *
 * Return: a malloc'ed NUL-terminated string, or NULL without memory.
 */
char *etw_etl_utf16_to_utf8(const uint8_t *le, size_t units)
{
	char *s = malloc(units * 3 + 1);

	if (s)
		etw_etl_utf16_utf8(le, units, s);
	return s;
}
