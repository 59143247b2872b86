/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * etw: Event Tracing for Windows' routing core for Linux.
 *
 * The ABI of /dev/etw.  Every ioctl argument struct starts with its size
 * (struct versioning in the style of clone3/openat2: new members go at the
 * end, the kernel zero-fills what an older caller did not pass and rejects
 * non-zero bytes it does not know with E2BIG), uses fixed-width types and
 * __u64 for user pointers, and has explicit padding that must be zero.
 * ETW_*_SIZE_VER0 is the first published size of each struct: the kernel
 * accepts any size from it up to a page (EINVAL below, E2BIG above).  The
 * kernel ignores the size encoded in the ioctl command number, so a caller
 * built against a newer header reaches the same handler.  A struct embedded
 * in another never changes size: later members take its reserved words.
 * Unknown flags are rejected with EINVAL.  Documentation/abi.rst describes
 * every call.
 */
#ifndef _UAPI_LINUX_ETW_H
#define _UAPI_LINUX_ETW_H

#include <linux/types.h>
#include <linux/ioctl.h>

#define ETW_ABI_VERSION			2

/* Limits (the seeds' values; ETW_IOC_GET_INFO reports them). */
#define ETW_MAX_GLOBAL_SESSIONS		64
#define ETW_MAX_PRIVATE_SESSIONS	4	/* per process */
#define ETW_MAX_SESSIONS_PER_PROVIDER	8	/* manifest/TraceLogging */
#define ETW_MAX_SESSIONS_PER_CLASSIC	1
#define ETW_MAX_EVENT_SIZE		0xffff	/* whole record, header included */
#define ETW_MAX_DATA_DESCRIPTORS	128
#define ETW_MAX_REGISTRATIONS		1024	/* per open file */
#define ETW_MAX_TRAITS_SIZE		0xffff
#define ETW_MAX_NAME_LEN		1024	/* bytes of a session name, NUL excluded */
#define ETW_MAX_EVENT_ID_FILTER		64
#define ETW_MAX_PID_FILTER		8
#define ETW_MAX_FILTER_DATA		1024	/* schematized filter bytes */
#define ETW_MAX_EXE_FILTER		1536	/* UTF-8 bytes of an image-name list */
#define ETW_MAX_EVENT_NAME_FILTER	4096	/* MAX_EVENT_FILTER_EVENT_NAME_SIZE */
#define ETW_MAX_EVENT_NAME		255	/* bytes of a name a filter lists */
#define ETW_MAX_PAYLOAD_FILTER		4096	/* MAX_EVENT_FILTER_PAYLOAD_SIZE */
#define ETW_MAX_PAYLOAD_EVENTS		64	/* event blocks of a payload filter */
#define ETW_MAX_PAYLOAD_FIELDS		64	/* properties one block describes */
#define ETW_MAX_PAYLOAD_PREDICATES	8	/* MAX_PAYLOAD_PREDICATES */
#define ETW_MAX_PAYLOAD_VALUE		1024	/* bytes of a string operand */
#define ETW_MAX_DISALLOW		64	/* GUIDs on one session's disallow list */
#define ETW_MIN_BUFFER_KB		4
#define ETW_MAX_BUFFER_KB		16384
#define ETW_MAX_BUFFERS			4096	/* buffers of one session */

/* Log-file-mode bits the kernel acts on (values are ETW's). */
#define ETW_MODE_REAL_TIME		0x00000100
#define ETW_MODE_BUFFERING		0x00000400
#define ETW_MODE_PRIVATE		0x00000800
#define ETW_MODE_SYSTEM_LOGGER		0x02000000	/* a kernel logger */
#define ETW_MODE_INDEPENDENT		0x08000000
#define ETW_MODE_NO_PER_PROCESSOR	0x10000000

/*
 * A global session of this name (case-insensitively, KERNEL_LOGGER_NAME) or
 * with %ETW_MODE_SYSTEM_LOGGER is the kernel logger: it receives the kernel
 * system provider's events etw_session_config.enable_flags asks for.  One
 * exists at a time.
 */
#define ETW_KERNEL_LOGGER_NAME		"NT Kernel Logger"

/* etw_session_config.enable_flags (EVENT_TRACE_FLAG_*). */
#define ETW_KFLAG_PROCESS		0x00000001	/* Process events */
#define ETW_KFLAG_THREAD		0x00000002	/* Thread events */
#define ETW_KFLAG_IMAGE_LOAD		0x00000004	/* Image events */
#define ETW_KFLAG_CSWITCH		0x00000010	/* CSwitch events */
#define ETW_KFLAG_SYSCALL		0x00000080	/* SysCallEnter/Exit */
#define ETW_KFLAG_DISPATCHER		0x00000800	/* ReadyThread events */
#define ETW_KFLAG_PAGE_FAULTS		0x00001000	/* PageFault events */
#define ETW_KFLAG_PROFILE		0x01000000	/* SampledProfile, CPU samples */

/* Enable-time properties the kernel acts on (EVENT_ENABLE_PROPERTY_*). */
#define ETW_ENABLE_SID			0x00000001	/* ext item SID */
#define ETW_ENABLE_TS_ID		0x00000002	/* ext item TS_ID */
#define ETW_ENABLE_STACK_TRACE		0x00000004	/* ext item STACK_TRACE64 */
#define ETW_ENABLE_IGNORE_KEYWORD_0	0x00000010
#define ETW_ENABLE_PROVIDER_GROUP	0x00000020
#define ETW_ENABLE_PROCESS_START_KEY	0x00000080	/* ext item PROCESS_START_KEY */
#define ETW_ENABLE_EVENT_KEY		0x00000100	/* ext item EVENT_KEY */
/* drop events written with %ETW_WRITE_INPRIVATE */
#define ETW_ENABLE_EXCLUDE_INPRIVATE	0x00000200
/* ext item CONTAINER_ID for writers in a container (a pid namespace) */
#define ETW_ENABLE_SOURCE_CONTAINER_TRACKING	0x00000800

/* Frames a STACK_TRACE64 item holds at most (the innermost ones). */
#define ETW_MAX_STACK_DEPTH		32

/* Control codes (EVENT_CONTROL_CODE_*). */
#define ETW_CONTROL_DISABLE		0
#define ETW_CONTROL_ENABLE		1
#define ETW_CONTROL_CAPTURE_STATE	2

/**
 * struct etw_guid - a GUID in Windows' memory layout
 * @data1: first field, little-endian
 * @data2: second field
 * @data3: third field
 * @data4: the last eight bytes
 */
struct etw_guid {
	__u32 data1;
	__u16 data2;
	__u16 data3;
	__u8 data4[8];
};

/**
 * struct etw_event_descriptor - EVENT_DESCRIPTOR, byte for byte
 * @id: event id
 * @version: event version
 * @channel: channel
 * @level: level, 0 (log always) to 255
 * @opcode: opcode
 * @task: task
 * @keyword: 64-bit keyword mask
 */
struct etw_event_descriptor {
	__u16 id;
	__u8 version;
	__u8 channel;
	__u8 level;
	__u8 opcode;
	__u16 task;
	__u64 keyword;
};

/* EVENT_DATA_DESCRIPTOR.Type values. */
#define ETW_DATA_TYPE_PAYLOAD		0
#define ETW_DATA_TYPE_EVENT_METADATA	1	/* becomes ext item EVENT_SCHEMA_TL */
#define ETW_DATA_TYPE_PROVIDER_METADATA	2	/* becomes ext item PROV_TRAITS */
#define ETW_DATA_TYPE_TIMESTAMP		3	/* 8-byte timestamp override */

/**
 * struct etw_data_descriptor - EVENT_DATA_DESCRIPTOR, byte for byte
 * @ptr: user address of the data
 * @size: bytes
 * @type: ETW_DATA_TYPE_*; read only with %ETW_WRITE_DESC_TYPES
 * @reserved1: must be zero when @type is read
 * @reserved2: must be zero when @type is read
 */
struct etw_data_descriptor {
	__u64 ptr;
	__u32 size;
	__u8 type;
	__u8 reserved1;
	__u16 reserved2;
};

/* ---------------------------------------------------------------------- */
/* Buffer and record layout: ETL's, so that buffers go to files unchanged.  */

#define ETW_BUFFER_HEADER_SIZE		0x48
#define ETW_BUFFER_TYPE_GENERIC		0
#define ETW_BUFFER_TYPE_HEADER		4
#define ETW_BUFFER_FLAG_FLUSH_MARKER	0x0001
#define ETW_BUFFER_FLAG_EVENTS_LOST	0x0002
#define ETW_BUFFER_FLAG_PROC_INDEX	0x0020
#define ETW_BUFFER_STATE_FLUSH		3

/**
 * struct etw_buffer_header - WMI_BUFFER_HEADER as written to ETL files
 * @buffer_size: total bytes of the buffer
 * @saved_offset: filled bytes, header included
 * @current_offset: filled bytes, header included
 * @reference_count: zero
 * @timestamp: seal time, session clock
 * @sequence_number: per session, increasing in seal order
 * @clock: zero
 * @processor_index: CPU whose events the buffer holds
 * @logger_id: session logger id
 * @state: %ETW_BUFFER_STATE_FLUSH
 * @offset: filled bytes, header included
 * @buffer_flag: ETW_BUFFER_FLAG_*
 * @buffer_type: ETW_BUFFER_TYPE_*
 * @events: number of records (etw's use of a field Windows leaves stale)
 * @events_lost: events this CPU lost since the previous buffer was sealed
 * @reserved: zero
 *
 * Unused bytes after @offset are 0xff, as Windows leaves them.
 */
struct etw_buffer_header {
	__u32 buffer_size;
	__u32 saved_offset;
	__u32 current_offset;
	__u32 reference_count;
	__u64 timestamp;
	__u64 sequence_number;
	__u64 clock;
	__u16 processor_index;
	__u16 logger_id;
	__u32 state;
	__u32 offset;
	__u16 buffer_flag;
	__u16 buffer_type;
	__u32 events;
	__u32 events_lost;
	__u64 reserved;
};

#define ETW_EVENT_HEADER_TYPE_64	0xc013
#define ETW_EVENT_FLAG_EXTENDED_INFO	0x0001
#define ETW_EVENT_FLAG_PRIVATE_SESSION	0x0002
#define ETW_EVENT_FLAG_STRING_ONLY	0x0004
#define ETW_EVENT_FLAG_CLASSIC_HEADER	0x0100

/**
 * struct etw_event_header - EVENT_HEADER as stored in buffers
 * @size: record bytes (header, extended items and payload, unpadded)
 * @header_type: %ETW_EVENT_HEADER_TYPE_64
 * @flags: ETW_EVENT_FLAG_*
 * @event_property: zero
 * @thread_id: writer's thread id (in the initial pid namespace)
 * @process_id: writer's process id (in the initial pid namespace)
 * @timestamp: session clock, nanoseconds of CLOCK_MONOTONIC
 * @provider_id: provider GUID
 * @descriptor: the event descriptor
 * @processor_time: zero
 * @activity_id: activity GUID
 *
 * Records start 8-byte aligned.  With %ETW_EVENT_FLAG_EXTENDED_INFO,
 * extended items (struct etw_ext_item) follow the header.
 */
struct etw_event_header {
	__u16 size;
	__u16 header_type;
	__u16 flags;
	__u16 event_property;
	__u32 thread_id;
	__u32 process_id;
	__u64 timestamp;
	struct etw_guid provider_id;
	struct etw_event_descriptor descriptor;
	__u64 processor_time;
	struct etw_guid activity_id;
};

#define ETW_CLASSIC_HEADER_TYPE_64	0xc014
#define ETW_INSTANCE_HEADER_TYPE_64	0xc015
#define ETW_INSTANCE_FIELDS_SIZE	24

/**
 * struct etw_classic_header - EVENT_TRACE_HEADER as stored in buffers
 *	(%ETW_WRITE_CLASSIC records)
 * @size: record bytes (header and payload, unpadded)
 * @header_type: %ETW_CLASSIC_HEADER_TYPE_64, or
 *	%ETW_INSTANCE_HEADER_TYPE_64 when the payload starts with the
 *	EVENT_INSTANCE_GUID_HEADER fields (InstanceId, ParentInstanceId,
 *	ParentGuid: %ETW_INSTANCE_FIELDS_SIZE bytes)
 * @type: Class.Type (the descriptor's opcode)
 * @level: Class.Level (the descriptor's level)
 * @version: Class.Version (the descriptor's version)
 * @thread_id: as in struct etw_event_header
 * @process_id: as in struct etw_event_header
 * @timestamp: as in struct etw_event_header
 * @guid: the event-class GUID (etw_write_args.activity_id)
 * @processor_time: zero
 *
 * @thread_id, @process_id and @timestamp sit where struct etw_event_header
 * has them.
 */
struct etw_classic_header {
	__u16 size;
	__u16 header_type;
	__u8 type;
	__u8 level;
	__u16 version;
	__u32 thread_id;
	__u32 process_id;
	__u64 timestamp;
	struct etw_guid guid;
	__u64 processor_time;
};

/* The second 16 bits of a SYSTEM_TRACE_HEADER: @flags << 8 | @header_type. */
#define ETW_SYSTEM_HEADER_TYPE_64	0xc002
#define ETW_SYSTEM_HEADER_TYPE		0x02	/* TRACE_HEADER_TYPE_SYSTEM64 */
#define ETW_SYSTEM_HEADER_FLAGS		0xc0	/* TRACE_HEADER_FLAG | EVENT_TRACE */

/* Hook groups of the kernel logger's records (EVENT_TRACE_GROUP_*). */
#define ETW_GROUP_MEMORY		0x02
#define ETW_GROUP_PROCESS		0x03
#define ETW_GROUP_THREAD		0x05
#define ETW_GROUP_IMAGE			0x14
#define ETW_GROUP_PERFINFO		0x0f
#define ETW_GROUP_STACKWALK		0x18

/* The second 16 bits of a PERFINFO_TRACE_HEADER: @flags << 8 | @header_type. */
#define ETW_PERFINFO_HEADER_TYPE	0x11	/* TRACE_HEADER_TYPE_PERFINFO64 */

/**
 * struct etw_perfinfo_header - PERFINFO_TRACE_HEADER: the kernel logger's
 *	CPU samples (SampledProfile)
 * @version: the event class's version (SampledProfile 2)
 * @header_type: %ETW_PERFINFO_HEADER_TYPE
 * @flags: %ETW_SYSTEM_HEADER_FLAGS
 * @size: record bytes (header and payload, unpadded)
 * @hook_id: group << 8 | type
 * @timestamp: as in struct etw_event_header
 *
 * No thread or process: the payload names the thread.  The stack of a
 * sample (StackWalk_Event, group %ETW_GROUP_STACKWALK) has one too.
 */
struct etw_perfinfo_header {
	__u16 version;
	__u8 header_type;
	__u8 flags;
	__u16 size;
	__u16 hook_id;
	__u64 timestamp;
};

/**
 * struct etw_system_header - SYSTEM_TRACE_HEADER: the kernel logger's records
 * @version: the event class's version (Process 4, Thread 3, Image 3,
 *	CSwitch and ReadyThread 2)
 * @header_type: %ETW_SYSTEM_HEADER_TYPE
 * @flags: %ETW_SYSTEM_HEADER_FLAGS
 * @size: record bytes (header and payload, unpadded)
 * @hook_id: group << 8 | type (the event type: the opcode)
 * @thread_id: as in struct etw_event_header
 * @process_id: as in struct etw_event_header
 * @timestamp: as in struct etw_event_header
 * @kernel_time: zero
 * @user_time: zero
 *
 * The payload is the MOF class's fields, pointers 8 bytes wide;
 * Documentation/abi.rst lists them.
 */
struct etw_system_header {
	__u16 version;
	__u8 header_type;
	__u8 flags;
	__u16 size;
	__u16 hook_id;
	__u32 thread_id;
	__u32 process_id;
	__u64 timestamp;
	__u32 kernel_time;
	__u32 user_time;
};

#define ETW_MESSAGE_HEADER_TYPE		0x9000
#define ETW_MESSAGE_SEQUENCE		0x0001
#define ETW_MESSAGE_GUID		0x0002
#define ETW_MESSAGE_COMPONENTID		0x0004
#define ETW_MESSAGE_TIMESTAMP		0x0008
#define ETW_MESSAGE_SYSTEMINFO		0x0020

/**
 * struct etw_message_header - MESSAGE_TRACE_HEADER as stored in buffers
 *	(%ETW_WRITE_MESSAGE records)
 * @size: record bytes (header, fields and payload, unpadded)
 * @header_type: %ETW_MESSAGE_HEADER_TYPE (Reserved 0, then TRACE_HEADER_FLAG
 *	| TRACE_MESSAGE in the top byte)
 * @message_number: the descriptor's id
 * @flags: TraceMessage's flags (ETW_MESSAGE_* and the pointer-size bits)
 *
 * The fields @flags asks for follow, in this order: a __u32 sequence number
 * (0: sessions keep no sequence), a __u32 component id (the first 4 bytes
 * of etw_write_args.activity_id) or, with %ETW_MESSAGE_GUID, the
 * activity_id GUID, the __u64 timestamp, and the __u32 thread and process
 * ids.  They are 4-byte aligned only; the payload follows them.
 */
struct etw_message_header {
	__u16 size;
	__u16 header_type;
	__u16 message_number;
	__u16 flags;
};

#define ETW_EXT_RELATED_ACTIVITYID	0x0001
#define ETW_EXT_SID			0x0002	/* a binary SID */
#define ETW_EXT_TS_ID			0x0003	/* __u32 session id */
#define ETW_EXT_STACK_TRACE64		0x0006	/* __u64 match id, addresses */
#define ETW_EXT_EVENT_KEY		0x000a	/* __u64 key */
#define ETW_EXT_EVENT_SCHEMA_TL		0x000b
#define ETW_EXT_PROV_TRAITS		0x000c
#define ETW_EXT_PROCESS_START_KEY	0x000d	/* __u64 key */
#define ETW_EXT_CONTAINER_ID		0x0010	/* a GUID, see abi.rst */
#define ETW_EXT_LINKAGE			0x0001

/*
 * Records of this provider are padding left where a write was abandoned
 * after space had been reserved (a user page faulted, or another session
 * could not take the event); consumers skip them.  They are not events.
 * {6a1d0a7e-52f1-4c8b-9d5e-e7e70000f111}
 */
#define ETW_PADDING_PROVIDER { 0x6a1d0a7e, 0x52f1, 0x4c8b, \
	{ 0x9d, 0x5e, 0xe7, 0xe7, 0x00, 0x00, 0xf1, 0x11 } }

/**
 * struct etw_ext_item - an extended data item inside a buffer
 * @item_size: bytes of this item, header included, a multiple of 8
 * @ext_type: ETW_EXT_*
 * @linkage: %ETW_EXT_LINKAGE when another item follows
 * @data_size: bytes of data after this header
 */
struct etw_ext_item {
	__u16 item_size;
	__u16 ext_type;
	__u16 linkage;
	__u16 data_size;
};

/* ---------------------------------------------------------------------- */
/* ioctls */

#define ETW_IOC_MAGIC			0xe7

/**
 * struct etw_info - what this module implements (ETW_IOC_GET_INFO)
 * @size: in: bytes the caller passes
 * @abi_version: %ETW_ABI_VERSION
 * @features: zero for now; bits announce later extensions
 * @max_global_sessions: %ETW_MAX_GLOBAL_SESSIONS
 * @max_private_sessions: %ETW_MAX_PRIVATE_SESSIONS
 * @max_sessions_per_provider: %ETW_MAX_SESSIONS_PER_PROVIDER
 * @max_event_size: %ETW_MAX_EVENT_SIZE
 * @max_data_descriptors: %ETW_MAX_DATA_DESCRIPTORS
 * @max_registrations: %ETW_MAX_REGISTRATIONS
 * @enable_map_size: bytes to mmap at %ETW_MMAP_ENABLE
 * @clock_id: the clock of timestamps (CLOCK_MONOTONIC)
 * @boot_offset_ns: CLOCK_REALTIME minus the session clock, now
 */
struct etw_info {
	__u32 size;
	__u32 abi_version;
	__u64 features;
	__u32 max_global_sessions;
	__u32 max_private_sessions;
	__u32 max_sessions_per_provider;
	__u32 max_event_size;
	__u32 max_data_descriptors;
	__u32 max_registrations;
	__u32 enable_map_size;
	__u32 clock_id;
	__s64 boot_offset_ns;
};

#define ETW_INFO_SIZE_VER0		56

/* --- providers ---------------------------------------------------------- */

#define ETW_REGISTER_CLASSIC		0x1	/* RegisterTraceGuids */

/**
 * struct etw_register_args - register a provider (ETW_IOC_REGISTER)
 * @size: bytes the caller passes
 * @flags: ETW_REGISTER_*
 * @guid: provider GUID
 * @cookie: returned in every notification for this registration
 * @reg_id: out: registration id, valid on this file
 * @enable_index: out: index of this registration's struct etw_enable_state
 *	in the mapped enable area
 */
struct etw_register_args {
	__u32 size;
	__u32 flags;
	struct etw_guid guid;
	__u64 cookie;
	__u32 reg_id;
	__u32 enable_index;
};

#define ETW_REGISTER_ARGS_SIZE_VER0	40

/**
 * struct etw_unregister_args - drop a registration (ETW_IOC_UNREGISTER)
 * @size: bytes the caller passes
 * @reg_id: registration
 */
struct etw_unregister_args {
	__u32 size;
	__u32 reg_id;
};

#define ETW_UNREGISTER_ARGS_SIZE_VER0	8

/**
 * struct etw_traits_args - set a registration's traits (ETW_IOC_SET_TRAITS)
 * @size: bytes the caller passes
 * @reg_id: registration
 * @traits_ptr: user address of the traits blob
 * @traits_len: bytes at @traits_ptr; must equal the blob's own size
 * @flags: zero
 */
struct etw_traits_args {
	__u32 size;
	__u32 reg_id;
	__u64 traits_ptr;
	__u32 traits_len;
	__u32 flags;
};

#define ETW_TRAITS_ARGS_SIZE_VER0	24

#define ETW_WRITE_RELATED_ACTIVITY	0x01	/* @related_activity_id is set */
#define ETW_WRITE_DESC_TYPES		0x02	/* honour etw_data_descriptor.type */
#define ETW_WRITE_STRING_ONLY		0x04	/* EventWriteString */
/*
 * A classic registration's TraceEvent: the record is a struct
 * etw_classic_header whose GUID is @activity_id (classic events carry no
 * activity ID); not with the three flags above.
 */
#define ETW_WRITE_CLASSIC		0x08
/* With CLASSIC: TraceEventInstance, the payload starts with the fields. */
#define ETW_WRITE_INSTANCE		0x10
/*
 * A classic registration's TraceMessage: a struct etw_message_header
 * record, MessageNumber the descriptor's id, the flags its task; alone.
 */
#define ETW_WRITE_MESSAGE		0x20
/*
 * Route the calling thread's staging ring on this file first (see
 * struct etw_batch_args): a write the thread could not stage comes after
 * the events it staged before.
 */
#define ETW_WRITE_DRAIN			0x40
/*
 * EventWriteEx's EVENT_WRITE_FLAG_INPRIVATE: sessions that enabled the
 * provider with %ETW_ENABLE_EXCLUDE_INPRIVATE do not get the event.
 */
#define ETW_WRITE_INPRIVATE		0x80

/**
 * struct etw_write_args - write one event (ETW_IOC_WRITE)
 * @size: bytes the caller passes
 * @reg_id: registration
 * @descriptor: the event descriptor
 * @activity_id: activity GUID (the thread's, or the one passed); with
 *	%ETW_WRITE_CLASSIC the event-class GUID
 * @related_activity_id: with %ETW_WRITE_RELATED_ACTIVITY
 * @flags: ETW_WRITE_*
 * @data_count: entries at @data_ptr, at most %ETW_MAX_DATA_DESCRIPTORS
 * @data_ptr: user address of struct etw_data_descriptor[@data_count]
 * @exclude_mask: EventWriteEx's Filter: bits of sessions not to write to
 *
 * Return: 0 when every session the event was routed to recorded it (or it
 * was routed to none); EINVAL for an unknown flag, %ETW_WRITE_CLASSIC on
 * a registration that is not classic or with another flag but
 * %ETW_WRITE_INSTANCE, or %ETW_WRITE_INSTANCE without %ETW_WRITE_CLASSIC
 * or with less payload than %ETW_INSTANCE_FIELDS_SIZE, %ETW_WRITE_MESSAGE
 * on a registration that is not classic, with another flag, or with both
 * %ETW_MESSAGE_GUID and %ETW_MESSAGE_COMPONENTID; ENOBUFS when at
 * least one dropped it for want of a free buffer (it is counted in that
 * session's events_lost); E2BIG when the
 * record would exceed %ETW_MAX_EVENT_SIZE; EMSGSIZE when it exceeds a
 * target session's buffer.
 */
struct etw_write_args {
	__u32 size;
	__u32 reg_id;
	struct etw_event_descriptor descriptor;
	struct etw_guid activity_id;
	struct etw_guid related_activity_id;
	__u32 flags;
	__u32 data_count;
	__u64 data_ptr;
	__u64 exclude_mask;
};

#define ETW_WRITE_ARGS_SIZE_VER0	80

/**
 * struct etw_enable_state - one registration's combined enable state
 * @enabled: non-zero when at least one session enables the registration
 * @level: the most verbose level of the enabling sessions, 0 mapped to 255
 * @session_level: the level as the sessions passed it: 0 when one passed
 *	0, else @level (GetTraceEnableLevel answers it)
 * @reserved: zero
 * @seq: even while stable; odd while the kernel rewrites the entry
 * @reserved2: zero
 * @match_any: OR of the sessions' MatchAnyKeyword (0 normalised to ~0)
 * @match_all: AND of the sessions' MatchAllKeyword
 *
 * An array of these, indexed by etw_register_args.enable_index, is mapped
 * read-only at %ETW_MMAP_ENABLE.  The kernel updates an entry before it
 * queues the matching notification.  Readers load @seq (acquire), the
 * fields, then @seq again, and retry when it changed or is odd; a disabled
 * check may read @enabled alone.
 */
struct etw_enable_state {
	__u32 enabled;
	__u8 level;
	__u8 session_level;
	__u8 reserved[2];
	__u32 seq;
	__u32 reserved2;
	__u64 match_any;
	__u64 match_all;
};

#define ETW_MMAP_ENABLE			0

/**
 * struct etw_filter_header - EVENT_FILTER_HEADER, which starts each block
 *	of schematized filter data a controller passes and a provider receives
 * @id: filter type
 * @version: filter version
 * @reserved: zero
 * @instance_id: the session's bit for etw_write_args.exclude_mask; set by
 *	the kernel in notifications
 * @size: bytes of the block, this header included
 * @next_offset: bytes from this header to the next block, 0 for the last
 */
struct etw_filter_header {
	__u16 id;
	__u8 version;
	__u8 reserved[5];
	__u64 instance_id;
	__u32 size;
	__u32 next_offset;
};

/**
 * struct etw_notification - an enable notification, read() from /dev/etw
 * @size: bytes of this notification, filter data included
 * @reg_id: registration
 * @cookie: the registration's cookie
 * @seq: acknowledge with %ETW_IOC_ACK once handled
 * @control_code: ETW_CONTROL_* (the resulting aggregate for enable/disable)
 * @level: aggregate level (255 for "all")
 * @reserved: zero
 * @match_any: aggregate MatchAnyKeyword
 * @match_all: aggregate MatchAllKeyword
 * @source_id: the controller's SourceId, or zero
 * @filter_size: bytes of filter data that follow this struct
 * @filter_count: number of EVENT_FILTER_HEADER blocks in it
 *
 * The filter data is a chain of EVENT_FILTER_HEADER blocks (one per
 * session that passed schematized filter data), with InstanceId set to the
 * session's bit for etw_write_args.exclude_mask and NextOffset linking them.
 * It is the last @filter_size bytes of the notification: readers find it
 * at @size - @filter_size, not at the end of this struct, which may grow.
 */
struct etw_notification {
	__u32 size;
	__u32 reg_id;
	__u64 cookie;
	__u64 seq;
	__u32 control_code;
	__u8 level;
	__u8 reserved[3];
	__u64 match_any;
	__u64 match_all;
	struct etw_guid source_id;
	__u32 filter_size;
	__u32 filter_count;
};

/**
 * struct etw_ack_args - a notification is handled (ETW_IOC_ACK)
 * @size: bytes the caller passes
 * @flags: zero
 * @seq: etw_notification.seq; notifications up to it are handled
 */
struct etw_ack_args {
	__u32 size;
	__u32 flags;
	__u64 seq;
};

#define ETW_ACK_ARGS_SIZE_VER0		16

/* --- sessions ----------------------------------------------------------- */

/**
 * struct etw_session_config - properties of a session
 * @buffer_kb: bytes per buffer, in KiB (%ETW_MIN_BUFFER_KB..%ETW_MAX_BUFFER_KB)
 * @min_buffers: buffers allocated at start (raised to 2 per buffer stream)
 * @max_buffers: most buffers (raised to @min_buffers)
 * @flush_timer_ms: seal partial buffers this often; 0 = never (1 s for
 *	real-time sessions)
 * @mode: ETW_MODE_* bits
 * @reserved: zero
 * @enable_flags: the kernel logger's ETW_KFLAG_* bits (EnableFlags); zero
 *	for other sessions.  UPDATE: the kernel logger's new set with
 *	%ETW_UPDATE_ENABLE_FLAGS, else zero or the session's own.
 * @reserved3: zero
 * @reserved2: zero; room for later properties (this struct is embedded in
 *	struct etw_session_args, so it never changes size)
 */
struct etw_session_config {
	__u32 buffer_kb;
	__u32 min_buffers;
	__u32 max_buffers;
	__u32 flush_timer_ms;
	__u32 mode;
	__u32 reserved;
	__u32 enable_flags;
	__u32 reserved3;
	__u64 reserved2[2];
};

/**
 * struct etw_session_stats - statistics, as EVENT_TRACE_PROPERTIES reports
 * @buffers: buffers allocated (NumberOfBuffers)
 * @free_buffers: allocated and unused (FreeBuffers)
 * @events_lost: events that passed the filters and were not recorded
 * @buffers_written: buffers sealed and handed to consumers
 * @log_buffers_lost: always zero (the kernel writes no files)
 * @realtime_buffers_lost: sealed buffers discarded with no consumer at stop
 * @events_written: events recorded in buffers
 * @buffers_overwritten: buffering-mode buffers reused before a flush
 * @events_overwritten: events in those buffers
 * @consumers: open consumer files
 * @reserved: zero
 * @reserved2: zero; room for later counters (this struct is embedded in
 *	struct etw_session_args and struct etw_consumer_stats_args, so it
 *	never changes size)
 */
struct etw_session_stats {
	__u32 buffers;
	__u32 free_buffers;
	__u64 events_lost;
	__u64 buffers_written;
	__u64 log_buffers_lost;
	__u64 realtime_buffers_lost;
	__u64 events_written;
	__u64 buffers_overwritten;
	__u64 events_overwritten;
	__u32 consumers;
	__u32 reserved;
	__u64 reserved2[7];
};

/*
 * etw_session_args.flags of an UPDATE: config.enable_flags is the kernel
 * logger's new set of flags, zero included (every flag off).
 */
#define ETW_UPDATE_ENABLE_FLAGS		0x00000001

/**
 * struct etw_session_args - start, query, update, stop or flush a session
 * @size: bytes the caller passes
 * @flags: zero; for UPDATE, %ETW_UPDATE_ENABLE_FLAGS or zero
 * @logger_id: in: the session (when @name is empty); out: its id
 * @reserved: zero
 * @name: NUL-terminated session name (case-insensitive, unique)
 * @pad: zero
 * @config: in (start, update) / out (query, stop)
 * @stats: out (query, stop, flush, update)
 * @owner_pid: out: for private sessions, the owning process; else 0
 * @owner_uid: out: the uid that started the session
 * @start_time_ns: out: session clock at start
 *
 * Sessions are named by @name or, when @name[0] is 0, by @logger_id.
 */
struct etw_session_args {
	__u32 size;
	__u32 flags;
	__u32 logger_id;
	__u32 reserved;
	char name[ETW_MAX_NAME_LEN + 1];
	__u8 pad[7];
	struct etw_session_config config;
	struct etw_session_stats stats;
	__u32 owner_pid;
	__u32 owner_uid;
	__u64 start_time_ns;
};

#define ETW_SESSION_ARGS_SIZE_VER0	1240

/* The kernel logger's sample sources (KPROFILE_SOURCE): the timer only. */
#define ETW_PROFILE_SOURCE_TIME		0
/* Its sampling interval in 100 ns units: Windows' default and bounds. */
#define ETW_PROFILE_INTERVAL_DEFAULT	10000		/* 1 ms */
#define ETW_PROFILE_INTERVAL_MIN	1221
#define ETW_PROFILE_INTERVAL_MAX	10000000	/* 1 s */

/* etw_profile_interval_args.flags: set the interval (else query it). */
#define ETW_PROFILE_INTERVAL_SET	0x00000001

/**
 * struct etw_profile_interval_args - the kernel logger's sampling interval
 *	(ETW_IOC_PROFILE_INTERVAL)
 * @size: bytes the caller passes
 * @flags: %ETW_PROFILE_INTERVAL_SET or zero
 * @source: the sample source, %ETW_PROFILE_SOURCE_TIME
 * @interval: in (set): 100 ns units, clamped to %ETW_PROFILE_INTERVAL_MIN
 *	..%ETW_PROFILE_INTERVAL_MAX; out: the interval now (0 for a query of
 *	a source there is none of)
 *
 * One setting for the system, whether a kernel logger runs or not; a
 * running one samples at a new interval from its next sample on.
 */
struct etw_profile_interval_args {
	__u32 size;
	__u32 flags;
	__u32 source;
	__u32 interval;
};

#define ETW_PROFILE_INTERVAL_ARGS_SIZE_VER0	16

/* Most entries of the kernel logger's stack list (TraceStackTracingInfo). */
#define ETW_MAX_STACK_EVENTS		256

/**
 * struct etw_classic_event_id - CLASSIC_EVENT_ID: a kernel logger event
 * @guid: its event class (PerfInfoGuid for SampledProfile)
 * @type: its event type (46)
 * @reserved: zero
 */
struct etw_classic_event_id {
	struct etw_guid guid;
	__u8 type;
	__u8 reserved[7];
};

/* etw_stack_events_args.flags: set the list (else get it). */
#define ETW_STACK_EVENTS_SET		0x00000001

/**
 * struct etw_stack_events_args - the kernel logger events whose records
 *	are followed by their stack (ETW_IOC_STACK_EVENTS)
 * @size: bytes the caller passes
 * @flags: %ETW_STACK_EVENTS_SET or zero
 * @logger_id: the kernel logger
 * @count: set: entries at @ids_ptr (0 clears the list); get: in, the
 *	room at @ids_ptr, out, the entries of the list
 * @ids_ptr: user address of struct etw_classic_event_id entries
 */
struct etw_stack_events_args {
	__u32 size;
	__u32 flags;
	__u32 logger_id;
	__u32 count;
	__u64 ids_ptr;
};

#define ETW_STACK_EVENTS_ARGS_SIZE_VER0	24

/**
 * struct etw_list_args - list sessions (ETW_IOC_LIST_SESSIONS)
 * @size: bytes the caller passes
 * @count: in: entries at @ids_ptr; out: sessions visible to the caller
 * @ids_ptr: user address of a __u32 array receiving logger ids
 */
struct etw_list_args {
	__u32 size;
	__u32 count;
	__u64 ids_ptr;
};

#define ETW_LIST_ARGS_SIZE_VER0		16

/**
 * struct etw_enable_args - enable, disable or capture state
 * @size: bytes the caller passes
 * @logger_id: the session
 * @control_code: ETW_CONTROL_*
 * @level: session level for this provider (0 = all)
 * @reserved: zero
 * @properties: ETW_ENABLE_* bits
 * @reserved1: zero
 * @guid: provider (or provider group with %ETW_ENABLE_PROVIDER_GROUP)
 * @source_id: passed to the provider's callback
 * @match_any: MatchAnyKeyword (0 = all for manifest providers)
 * @match_all: MatchAllKeyword
 * @timeout_ms: wait this long for providers to handle the notification;
 *	0 = do not wait
 * @event_id_count: entries at @event_ids_ptr (0 = no event-ID filter)
 * @event_ids_ptr: user address of __u16 event ids
 * @event_ids_filter_in: 1: only the listed ids; 0: all but the listed ids
 * @pid_count: entries at @pids_ptr (0 = no PID filter)
 * @pids_ptr: user address of __u32 process ids
 * @filter_data_ptr: user address of schematized filter data passed to
 *	providers (an EVENT_FILTER_HEADER and its data)
 * @filter_data_size: bytes at @filter_data_ptr
 * @reserved2: zero
 * @stack_id_count: entries at @stack_ids_ptr (0 = no stack filter); only
 *	with %ETW_ENABLE_STACK_TRACE (EVENT_FILTER_TYPE_STACKWALK)
 * @stack_ids_filter_in: 1: stacks only for the listed ids; 0: for all but
 *	the listed ids
 * @stack_ids_ptr: user address of __u16 event ids
 * @exe_names_size: bytes at @exe_names_ptr (0 = no executable-name filter,
 *	EVENT_FILTER_TYPE_EXECUTABLE_NAME), at most %ETW_MAX_EXE_FILTER
 * @reserved3: zero
 * @exe_names_ptr: user address of UTF-8 image names separated by ';', no
 *	NUL: only registrations made by a program whose executable's file
 *	name is one of them (ASCII case-insensitive) are enabled
 * @stack_match_any: EVENT_FILTER_TYPE_STACKWALK_LEVEL_KW's MatchAnyKeyword
 *	(0 = all)
 * @stack_match_all: its MatchAllKeyword
 * @stack_level: its level (0 = all)
 * @stack_lk_filter: %ETW_STACK_LK_NONE, or with %ETW_ENABLE_STACK_TRACE,
 *	%ETW_STACK_LK_IN (stacks only for the events the level and keywords
 *	match) or %ETW_STACK_LK_OUT (only for the others)
 * @reserved4: zero
 * @names_size: bytes at @names_ptr (0 = no event-name filter)
 * @stack_names_size: bytes at @stack_names_ptr (0 = none); only with
 *	%ETW_ENABLE_STACK_TRACE
 * @names_ptr: user address of EVENT_FILTER_TYPE_EVENT_NAME's data, a
 *	struct etw_event_name_filter: TraceLogging events it selects are let
 *	in only when listed (@filter_in 1) or only when not (0)
 * @stack_names_ptr: the same for EVENT_FILTER_TYPE_STACKWALK_NAME: stacks
 *	of the events it selects only when listed (or only when not)
 * @payload_size: bytes at @payload_ptr (0 = no payload filter), at most
 *	%ETW_MAX_PAYLOAD_FILTER
 * @reserved5: zero
 * @payload_ptr: user address of EVENT_FILTER_TYPE_PAYLOAD's data, a struct
 *	etw_payload_filter and its blocks
 */
struct etw_enable_args {
	__u32 size;
	__u32 logger_id;
	__u32 control_code;
	__u8 level;
	__u8 reserved[3];
	__u32 properties;
	__u32 reserved1;
	struct etw_guid guid;
	struct etw_guid source_id;
	__u64 match_any;
	__u64 match_all;
	__u32 timeout_ms;
	__u32 event_id_count;
	__u64 event_ids_ptr;
	__u32 event_ids_filter_in;
	__u32 pid_count;
	__u64 pids_ptr;
	__u64 filter_data_ptr;
	__u32 filter_data_size;
	__u32 reserved2;
	__u32 stack_id_count;
	__u32 stack_ids_filter_in;
	__u64 stack_ids_ptr;
	__u32 exe_names_size;
	__u32 reserved3;
	__u64 exe_names_ptr;
	__u64 stack_match_any;
	__u64 stack_match_all;
	__u8 stack_level;
	__u8 stack_lk_filter;
	__u8 reserved4[6];
	__u32 names_size;
	__u32 stack_names_size;
	__u64 names_ptr;
	__u64 stack_names_ptr;
	__u32 payload_size;
	__u32 reserved5;
	__u64 payload_ptr;
};

#define ETW_STACK_LK_NONE		0
#define ETW_STACK_LK_IN			1
#define ETW_STACK_LK_OUT		2

#define ETW_ENABLE_ARGS_SIZE_VER0	120
#define ETW_ENABLE_ARGS_SIZE_VER1	136	/* adds the stack filter */
#define ETW_ENABLE_ARGS_SIZE_VER2	200	/* adds image-name, stack, name filters */
#define ETW_ENABLE_ARGS_SIZE_VER3	216	/* adds the payload filter */

/**
 * struct etw_event_name_filter - EVENT_FILTER_EVENT_NAME, byte for byte
 * @match_any: with @match_all and @level, the events the filter selects,
 *	by the session rules (MatchAnyKeyword 0 = all, level 0 = all)
 * @match_all: MatchAllKeyword
 * @level: level
 * @filter_in: 1: a selected event passes only when its name is listed;
 *	0: only when it is not
 * @name_count: NUL-terminated UTF-8 names, 1 or more, each at most
 *	%ETW_MAX_EVENT_NAME bytes, one after another from byte
 *	%ETW_EVENT_NAME_FILTER_NAMES of the block (not at its sizeof, which
 *	counts alignment padding)
 */
struct etw_event_name_filter {
	__u64 match_any;
	__u64 match_all;
	__u8 level;
	__u8 filter_in;
	__u16 name_count;
};

#define ETW_EVENT_NAME_FILTER_NAMES	20

/**
 * struct etw_payload_filter - EVENT_FILTER_TYPE_PAYLOAD's data, as
 * TdhAggregatePayloadFilters() builds it
 * @size: bytes of the filter, this header included
 * @count: struct etw_payload_event blocks after the header, one after
 *	another, 1..%ETW_MAX_PAYLOAD_EVENTS
 * @reserved: zero
 *
 * An event is written when no block names its id and version, or when
 * the blocks that do pass: every one with @match_all_group set and, if
 * there are others, at least one of those.
 */
struct etw_payload_filter {
	__u32 size;
	__u16 count;
	__u16 reserved;
};

/**
 * struct etw_payload_event - one event's filter (TdhCreatePayloadFilter())
 * @size: bytes of the block: this header, @nfields struct
 *	etw_payload_field, @npreds struct etw_payload_predicate from the next
 *	multiple of 8 bytes (ETW_PAYLOAD_PREDICATES_OFF()), then the string
 *	operands; a multiple of 8
 * @id: the event id it applies to
 * @version: the event version it applies to
 * @match_any: 1: it passes when any predicate holds; 0: when all do
 * @match_all_group: TdhAggregatePayloadFilters()' EventMatchALLFlags entry
 * @nfields: the event's first properties, 1..%ETW_MAX_PAYLOAD_FIELDS, as
 *	far as the last one a predicate compares
 * @npreds: predicates, 1..%ETW_MAX_PAYLOAD_PREDICATES
 * @reserved: zero
 */
struct etw_payload_event {
	__u32 size;
	__u16 id;
	__u8 version;
	__u8 match_any;
	__u8 match_all_group;
	__u8 nfields;
	__u8 npreds;
	__u8 reserved[5];
};

/**
 * struct etw_payload_field - how one property is laid out in the payload
 * @kind: %ETW_PAYLOAD_FIELD_FIXED: @size bytes; _SZ8: bytes up to and with
 *	a NUL; _SZ16: 16-bit units up to and with a NUL unit; _COUNTED: @size
 *	bytes times the value of the earlier field @ref
 * @ref: _COUNTED: the field holding the count, a FIXED field of 1, 2 or 4
 *	bytes; else zero
 * @size: _FIXED: bytes (1 or more); _COUNTED: bytes per unit (1 or more);
 *	else zero
 */
struct etw_payload_field {
	__u8 kind;
	__u8 ref;
	__u16 size;
};

/* Where a block's predicates start: after its fields, 8-byte aligned. */
#define ETW_PAYLOAD_PREDICATES_OFF(nfields) \
	(sizeof(struct etw_payload_event) + \
	 (((nfields) * sizeof(struct etw_payload_field) + 7) & ~(__u64)7))

#define ETW_PAYLOAD_FIELD_FIXED		0
#define ETW_PAYLOAD_FIELD_SZ8		1
#define ETW_PAYLOAD_FIELD_SZ16		2
#define ETW_PAYLOAD_FIELD_COUNTED	3

/**
 * struct etw_payload_predicate - one PAYLOAD_FILTER_PREDICATE, resolved
 * @field: the field it compares
 * @op: PAYLOAD_OPERATOR: %ETW_PAYLOAD_OP_EQ...
 * @type: how the field is read: %ETW_PAYLOAD_UINT or _INT (a FIXED field
 *	of 1, 2, 4 or 8 bytes, little-endian), _STR8 or _STR16 (a string,
 *	compared ASCII case-insensitively up to its end or first NUL), _BYTES
 *	(a FIXED field of @value_len bytes, such as a GUID)
 * @reserved: zero
 * @value_off: _STR8, _STR16, _BYTES: where the operand is, from the start
 *	of the block; else zero
 * @value_len: its bytes, at most %ETW_MAX_PAYLOAD_VALUE (even for _STR16);
 *	else zero
 * @value: _UINT, _INT: the operand (the lower bound of BETWEEN and
 *	NOTBETWEEN, the divisor of MODULO, not 0); else zero
 * @value2: the upper bound of BETWEEN and NOTBETWEEN; else zero
 */
struct etw_payload_predicate {
	__u8 field;
	__u8 op;
	__u8 type;
	__u8 reserved;
	__u16 value_off;
	__u16 value_len;
	__u64 value;
	__u64 value2;
};

/* Operators: Windows' PAYLOAD_OPERATOR values. */
#define ETW_PAYLOAD_OP_EQ		0
#define ETW_PAYLOAD_OP_NE		1
#define ETW_PAYLOAD_OP_LE		2
#define ETW_PAYLOAD_OP_GT		3
#define ETW_PAYLOAD_OP_LT		4
#define ETW_PAYLOAD_OP_GE		5
#define ETW_PAYLOAD_OP_BETWEEN		6
#define ETW_PAYLOAD_OP_NOTBETWEEN	7
#define ETW_PAYLOAD_OP_MODULO		8	/* value % operand == 0 */
#define ETW_PAYLOAD_OP_CONTAINS		20
#define ETW_PAYLOAD_OP_DOESNTCONTAIN	21
#define ETW_PAYLOAD_OP_IS		30
#define ETW_PAYLOAD_OP_ISNOT		31

#define ETW_PAYLOAD_UINT		0
#define ETW_PAYLOAD_INT			1
#define ETW_PAYLOAD_STR8		2
#define ETW_PAYLOAD_STR16		3
#define ETW_PAYLOAD_BYTES		4

/**
 * struct etw_disallow_args - set or get a session's group disallow list
 * @size: bytes the caller passes
 * @logger_id: the session
 * @count: SET: GUIDs at @guids_ptr (0 clears the list); GET: in, room at
 *	@guids_ptr, out, the GUIDs on the list (as many as fit are copied)
 * @reserved: zero
 * @guids_ptr: user address of struct etw_guid[@count]
 */
struct etw_disallow_args {
	__u32 size;
	__u32 logger_id;
	__u32 count;
	__u32 reserved;
	__u64 guids_ptr;
};

#define ETW_DISALLOW_ARGS_SIZE_VER0	24

/**
 * struct etw_consume_args - open a consumer file for a session
 * @size: bytes the caller passes
 * @logger_id: the session
 * @flags: O_CLOEXEC and O_NONBLOCK only
 * @reserved: zero
 *
 * Return: a new file descriptor.  read() on it returns one whole sealed
 * buffer per call (the buffer must hold config.buffer_kb KiB), 0 once the
 * session has stopped and every buffer was read; poll() reports POLLIN.
 * ETW_IOC_CONSUMER_STATS on it returns the session's statistics, also
 * after the session stopped (the final ones, for a file header).
 */
struct etw_consume_args {
	__u32 size;
	__u32 logger_id;
	__u32 flags;
	__u32 reserved;
};

#define ETW_CONSUME_ARGS_SIZE_VER0	16

/**
 * struct etw_consumer_stats_args - a consumer's session statistics
 * @size: bytes the caller passes
 * @flags: zero
 * @stats: out: the session's statistics (the final ones once it stopped)
 *
 * ETW_IOC_CONSUMER_STATS, on a file ETW_IOC_CONSUME returned.
 */
struct etw_consumer_stats_args {
	__u32 size;
	__u32 flags;
	struct etw_session_stats stats;
};

#define ETW_CONSUMER_STATS_ARGS_SIZE_VER0	136

#define ETW_PROVIDER_NAME_LEN		128

/*
 * Most sessions one registration's events go to: eight enabling its GUID,
 * eight enabling its group and the process's private sessions.
 */
#define ETW_PROVIDER_MAX_SESSIONS	(2 * ETW_MAX_SESSIONS_PER_PROVIDER + \
					 ETW_MAX_PRIVATE_SESSIONS)

/* etw_provider_info.flags, beside ETW_REGISTER_*: no registration. */
#define ETW_PROVIDER_PRE_ENABLED	0x80000000

/**
 * struct etw_provider_session - one session a registration's events go to
 * @logger_id: the session
 * @level: the level the session passed (0 = all)
 * @reserved: zero
 * @properties: the ETW_ENABLE_* bits the session passed
 *	(%ETW_ENABLE_PROVIDER_GROUP when it enabled the provider's group)
 * @reserved2: zero
 * @match_any: the MatchAnyKeyword the session passed
 * @match_all: the MatchAllKeyword the session passed
 */
struct etw_provider_session {
	__u32 logger_id;
	__u8 level;
	__u8 reserved[3];
	__u32 properties;
	__u32 reserved2;
	__u64 match_any;
	__u64 match_all;
};

/**
 * struct etw_provider_info - one registration (ETW_IOC_LIST_PROVIDERS)
 * @guid: provider GUID
 * @pid: owning process (0 with %ETW_PROVIDER_PRE_ENABLED)
 * @flags: ETW_REGISTER_*, or %ETW_PROVIDER_PRE_ENABLED for a GUID that
 *	sessions enable but nothing registered
 * @group: provider group GUID from traits, zero when none
 * @enabled: combined state
 * @level: combined level
 * @reserved: zero
 * @match_any: combined MatchAnyKeyword
 * @match_all: combined MatchAllKeyword
 * @session_mask: bit n set when the session with logger id n + 1 is routed
 * @name: the provider name from its traits, NUL-terminated (truncated to
 *	%ETW_PROVIDER_NAME_LEN - 1 bytes); empty without traits
 * @session_count: entries of @sessions in use
 * @reserved2: zero
 * @sessions: the sessions the events go to, each with what it passed
 *	(a classic registration's one: the newest enabling session); for a
 *	pre-enabled GUID the sessions enabling it
 *
 * Entries are etw_list_providers_args.info_size bytes apart, so that this
 * struct can grow at its end: the kernel fills what it knows and zeroes the
 * rest of each entry.  The combined fields are zero for pre-enabled GUIDs.
 */
struct etw_provider_info {
	struct etw_guid guid;
	__u32 pid;
	__u32 flags;
	struct etw_guid group;
	__u32 enabled;
	__u8 level;
	__u8 reserved[3];
	__u64 match_any;
	__u64 match_all;
	__u64 session_mask;
	char name[ETW_PROVIDER_NAME_LEN];
	__u32 session_count;
	__u32 reserved2;
	struct etw_provider_session sessions[ETW_PROVIDER_MAX_SESSIONS];
};

#define ETW_PROVIDER_INFO_SIZE_VER0	200
#define ETW_PROVIDER_INFO_SIZE_VER1	848

/* Most entries one ETW_IOC_LIST_PROVIDERS call returns. */
#define ETW_LIST_PROVIDERS_MAX		4096

/* etw_list_providers_args.flags */
#define ETW_LIST_PRE_ENABLED		0x1	/* pre-enabled GUIDs too */

/**
 * struct etw_list_providers_args - list registrations, a page at a time
 * @size: bytes the caller passes
 * @count: in: entries of room at @info_ptr; out: entries written (at most
 *	%ETW_LIST_PROVIDERS_MAX per call)
 * @info_ptr: user address of @count entries of @info_size bytes
 * @info_size: bytes per entry: %ETW_PROVIDER_INFO_SIZE_VER0 up to a page
 * @start: in: index of the first registration to return (0, then the
 *	previous @start plus the previous @count out)
 * @total: out: registrations visible to the caller
 * @flags: ETW_LIST_*; %ETW_LIST_PRE_ENABLED adds one entry per GUID that
 *	sessions enable without a registration (privileged callers only;
 *	others see only their own registrations either way)
 *
 * The registrations are listed in the kernel's order, which holds while
 * none is added or removed; the listing is complete when @start plus
 * @count out reaches @total.
 */
struct etw_list_providers_args {
	__u32 size;
	__u32 count;
	__u64 info_ptr;
	__u32 info_size;
	__u32 start;
	__u32 total;
	__u32 flags;
};

#define ETW_LIST_PROVIDERS_ARGS_SIZE_VER0	32

/**
 * struct etw_batch_args - open a staging ring for the calling thread
 *	(ETW_IOC_BATCH_OPEN, batched writes)
 * @size: bytes the caller passes
 * @flags: O_CLOEXEC only
 * @ring_size: in: bytes of records, a power of two from
 *	%ETW_BATCH_MIN_RING to %ETW_BATCH_MAX_RING, or 0 for
 *	%ETW_BATCH_DEFAULT_RING; out: the ring's bytes
 * @ctl_size: out: bytes of struct etw_batch_ctl's page, which the ring
 *	follows in the mapping
 * @clock: in: the ETW_BATCH_CLOCK_* the thread would stage; out: the one
 *	it must stage, what etw_staged_event.timestamp holds (TSC is granted
 *	only where the kernel computes CLOCK_MONOTONIC from it)
 * @reserved: zero
 *
 * Return: a new file descriptor.  mmap() it at offset 0, @ctl_size plus
 * @ring_size bytes, shared, readable and writable.  The thread stages
 * events there (struct etw_staged_event) and the kernel routes them, with
 * the same filters, delivery and loss accounting as ETW_IOC_WRITE, on the
 * thread's next ioctl on the /dev/etw file the ring was opened on (an
 * ETW_IOC_WRITE only with %ETW_WRITE_DRAIN, which keeps the write path of
 * threads without a ring free of the test), on ETW_IOC_BATCH_DRAIN on the
 * ring's file, when a session is flushed or stopped, at each session's
 * flush timer, when the thread exits and when the ring's file is closed;
 * also before ETW_IOC_UNREGISTER on that /dev/etw file, from any thread,
 * routes what every ring of the file holds.  The mapping is not inherited
 * by fork(); once the thread has exited, what is staged is dropped.
 * EBUSY when the thread already has a ring on this /dev/etw file; EINVAL
 * for a bad @ring_size, flag or reserved field.
 */
struct etw_batch_args {
	__u32 size;
	__u32 flags;
	__u32 ring_size;
	__u32 ctl_size;
	__u32 clock;
	__u32 reserved;
};

#define ETW_BATCH_ARGS_SIZE_VER0	24

#define ETW_BATCH_MIN_RING		4096
#define ETW_BATCH_DEFAULT_RING		65536
#define ETW_BATCH_MAX_RING		1048576

/*
 * etw_batch_args.clock.  MONOTONIC: CLOCK_MONOTONIC in ns, as
 * clock_gettime() reads it.  TSC (when CLOCK_MONOTONIC is computed from
 * the counter user space reads: x86's time-stamp counter, as rdtsc reads
 * it, or arm64's virtual count CNTVCT_EL0): that reading; the kernel
 * converts it to CLOCK_MONOTONIC when it routes the event, back from the
 * drain's start at the rate the clock ran at over the last second.  A
 * monotonic time is the thread's view: a time namespace's offset is taken
 * off.
 */
#define ETW_BATCH_CLOCK_MONOTONIC	0
#define ETW_BATCH_CLOCK_TSC		1

/**
 * struct etw_batch_ctl - the head of a staging ring's mapping
 * @head: written by the thread: bytes staged since the ring was opened;
 *	stored with release semantics after the records it covers
 * @tail: written by the kernel: bytes routed (or dropped) so far; the
 *	thread reads it with acquire semantics before it reuses their room
 * @dropped: written by the kernel: staged records it refused (a bad size,
 *	registration, flag or reserved field) and skipped; they are not
 *	events, so no session counts them lost
 * @ring_size: bytes of the ring
 * @reserved: zero
 *
 * The ring follows the page that holds this.  The kernel keeps its own
 * copies of @tail and @dropped and never reads them back: what the thread
 * writes there changes nothing but its own view.
 */
struct etw_batch_ctl {
	__u64 head;
	__u64 tail;
	__u64 dropped;
	__u32 ring_size;
	__u32 reserved;
};

/*
 * A record whose @size is this, at the ring's offset head % ring_size:
 * the rest of the ring up to its end is unused and the next record is at
 * offset 0.
 */
#define ETW_STAGED_WRAP			0

/**
 * struct etw_staged_event - one event in a staging ring
 * @size: bytes of the record, this header and the payload (which follows
 *	it), as the recorded event's size; the next record starts at the
 *	next multiple of 8; a record never wraps around the ring's end
 * @reserved1: zero
 * @flags: 0 or %ETW_EVENT_FLAG_STRING_ONLY (EventWriteString)
 * @reserved2: zero
 * @reg_id: the registration, on the /dev/etw file the ring was opened on
 * @reserved3: zero
 * @timestamp: when the event was written, in the ring's clock
 *	(etw_batch_args.clock); a time after the drain is taken as the drain's
 * @provider_id: not read (the kernel writes the registration's GUID)
 * @descriptor: the event descriptor
 * @processor_time: not read
 * @activity_id: activity GUID
 *
 * The layout of struct etw_event_header, the record the event becomes:
 * the kernel copies a run of records into a session buffer at once, then
 * checks and completes each copy (header type, flags, thread and process
 * id of the ring's thread, time, provider).  Staged events are plain
 * ETW_IOC_WRITE events: no related activity, no typed descriptors, not
 * classic, not excluded from any session.
 */
struct etw_staged_event {
	__u16 size;
	__u16 reserved1;
	__u16 flags;
	__u16 reserved2;
	__u32 reg_id;
	__u32 reserved3;
	__u64 timestamp;
	struct etw_guid provider_id;
	struct etw_event_descriptor descriptor;
	__u64 processor_time;
	struct etw_guid activity_id;
};

#define ETW_STAGED_EVENT_SIZE		80

#define ETW_IOC_GET_INFO	_IOWR(ETW_IOC_MAGIC, 0x00, struct etw_info)
#define ETW_IOC_NULL		_IO(ETW_IOC_MAGIC, 0x01)
#define ETW_IOC_REGISTER	_IOWR(ETW_IOC_MAGIC, 0x10, struct etw_register_args)
#define ETW_IOC_UNREGISTER	_IOW(ETW_IOC_MAGIC, 0x11, struct etw_unregister_args)
#define ETW_IOC_SET_TRAITS	_IOW(ETW_IOC_MAGIC, 0x12, struct etw_traits_args)
#define ETW_IOC_WRITE		_IOW(ETW_IOC_MAGIC, 0x13, struct etw_write_args)
#define ETW_IOC_ACK		_IOW(ETW_IOC_MAGIC, 0x14, struct etw_ack_args)
#define ETW_IOC_LIST_PROVIDERS	_IOWR(ETW_IOC_MAGIC, 0x15, struct etw_list_providers_args)
#define ETW_IOC_START		_IOWR(ETW_IOC_MAGIC, 0x20, struct etw_session_args)
#define ETW_IOC_STOP		_IOWR(ETW_IOC_MAGIC, 0x21, struct etw_session_args)
#define ETW_IOC_QUERY		_IOWR(ETW_IOC_MAGIC, 0x22, struct etw_session_args)
#define ETW_IOC_UPDATE		_IOWR(ETW_IOC_MAGIC, 0x23, struct etw_session_args)
#define ETW_IOC_FLUSH		_IOWR(ETW_IOC_MAGIC, 0x24, struct etw_session_args)
#define ETW_IOC_LIST_SESSIONS	_IOWR(ETW_IOC_MAGIC, 0x25, struct etw_list_args)
#define ETW_IOC_ENABLE		_IOW(ETW_IOC_MAGIC, 0x26, struct etw_enable_args)
#define ETW_IOC_SET_DISALLOW	_IOW(ETW_IOC_MAGIC, 0x27, struct etw_disallow_args)
#define ETW_IOC_CONSUME		_IOW(ETW_IOC_MAGIC, 0x28, struct etw_consume_args)
#define ETW_IOC_GET_DISALLOW	_IOWR(ETW_IOC_MAGIC, 0x29, struct etw_disallow_args)
#define ETW_IOC_CONSUMER_STATS	_IOWR(ETW_IOC_MAGIC, 0x30, struct etw_consumer_stats_args)
#define ETW_IOC_PROFILE_INTERVAL _IOWR(ETW_IOC_MAGIC, 0x31, struct etw_profile_interval_args)
#define ETW_IOC_STACK_EVENTS	_IOWR(ETW_IOC_MAGIC, 0x32, struct etw_stack_events_args)
#define ETW_IOC_BATCH_OPEN	_IOWR(ETW_IOC_MAGIC, 0x16, struct etw_batch_args)
/* On a ring's file: route what is staged now; EPERM from another process. */
#define ETW_IOC_BATCH_DRAIN	_IO(ETW_IOC_MAGIC, 0x17)

#endif /* _UAPI_LINUX_ETW_H */
