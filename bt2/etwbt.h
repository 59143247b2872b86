/* SPDX-License-Identifier: GPL-2.0 */
/*
 * etwbt: the babeltrace2 plugin "etw" and its source component class
 * source.etw.etl, which reads .etl files through libetw and emits
 * babeltrace2 messages.  Internals shared by the plugin's files.
 *
 * The component owns the trace IR classes: one trace class, one clock
 * class (ns since the Unix epoch), one stream class whose event common
 * context carries the EVENT_HEADER fields, and the event classes, made on
 * demand (classes.c) from what TDH says about each kind of event.  The
 * message iterator (iter.c) owns the traces (one per file) and streams
 * (one per file and CPU, one packet each) and pulls events from libetw's
 * time-ordered merge of the files' buffers; payload.c fills an event's
 * fields through TdhFormatProperty.
 */
#ifndef _ETWBT_H
#define _ETWBT_H

#include <stdbool.h>
#include <stdint.h>

#include <babeltrace2/babeltrace.h>

#include <windows.h>
#include <evntcons.h>
#include <tdh.h>

#include "etw_etl.h"

/* Event classes are looked up in a hash table of this many chains. */
#define ETWBT_CLASS_BUCKETS	4096

/**
 * struct etwbt_class - one event class: what TDH says about a kind of event
 * @next: next in the hash chain
 * @hash: of the key
 * @provider: key: the provider GUID
 * @id: key: the event id
 * @version: key: the event version
 * @opcode: key: the opcode (classic events are told apart by it)
 * @raw: key: the payload is bytes (TDH could not decode the event)
 * @meta: key: the TraceLogging metadata, NULL for other events
 * @meta_len: bytes at @meta
 * @ec: the babeltrace2 event class
 * @tei: the event's schema; NULL for a raw class
 * @ints: scratch: the last value of each integer property (counts and
 *	lengths of later properties)
 * @maps: the value map of each property (a manifest's valueMap or bitMap),
 *	NULL for none; a mapped value is the map's text
 */
struct etwbt_class {
	struct etwbt_class *next;
	uint64_t hash;
	struct etw_guid provider;
	uint16_t id;
	uint8_t version;
	uint8_t opcode;
	bool raw;
	uint8_t *meta;
	uint16_t meta_len;
	bt_event_class *ec;
	TRACE_EVENT_INFO *tei;
	USHORT *ints;
	EVENT_MAP_INFO **maps;
};

/**
 * struct etwbt_comp - a source.etw.etl component
 * @self: the component
 * @log_level: its logging level
 * @paths: the files of the "inputs" parameter
 * @npaths: entries of @paths
 * @manifests: the files of the "manifests" parameter
 * @nmanifests: entries of @manifests
 * @nloaded: the first @nloaded of @manifests were loaded (TdhLoadManifest)
 * @tc: the trace class
 * @cc: the clock class
 * @sc: the stream class
 * @classes: the event classes, hashed
 */
struct etwbt_comp {
	bt_self_component *self;
	bt_logging_level log_level;
	char **paths;
	unsigned int npaths;
	char **manifests;
	unsigned int nmanifests;
	unsigned int nloaded;
	bt_trace_class *tc;
	bt_clock_class *cc;
	bt_stream_class *sc;
	struct etwbt_class *classes[ETWBT_CLASS_BUCKETS];
};

/* Members of the event common context, in this order (classes.c). */
enum etwbt_ctx_member {
	ETWBT_CTX_PID,
	ETWBT_CTX_TID,
	ETWBT_CTX_ID,
	ETWBT_CTX_VERSION,
	ETWBT_CTX_CHANNEL,
	ETWBT_CTX_LEVEL,
	ETWBT_CTX_OPCODE,
	ETWBT_CTX_TASK,
	ETWBT_CTX_KEYWORDS,
	ETWBT_CTX_ACTIVITY_ID,
};

/* "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" and its NUL. */
#define ETWBT_GUID_LEN		37

void etwbt_guid_format(const void *guid, char out[ETWBT_GUID_LEN]);
void etwbt_event_record(const struct etw_etl_event *ev, EVENT_RECORD *rec,
			EVENT_HEADER_EXTENDED_DATA_ITEM *ext);

/**
 * enum etwbt_kind - what a non-struct property's values become
 * @ETWBT_SINT: a signed integer
 * @ETWBT_UINT: an unsigned integer
 * @ETWBT_HEX: an unsigned integer shown in hexadecimal
 * @ETWBT_PORT: an unsigned integer, read from TdhFormatProperty's text (a
 *	port, whose bytes are in network order)
 * @ETWBT_BOOL: a Boolean
 * @ETWBT_REAL32: a single-precision real
 * @ETWBT_REAL64: a double-precision real
 * @ETWBT_ANSI: a string: the bytes of ANSI text, up to the NUL
 * @ETWBT_TEXT: a string: TdhFormatProperty's text
 * @ETWBT_GUID: a string: the GUID in lowercase, without braces
 * @ETWBT_BYTES: a dynamic array of 8-bit unsigned integers
 */
enum etwbt_kind {
	ETWBT_SINT,
	ETWBT_UINT,
	ETWBT_HEX,
	ETWBT_PORT,
	ETWBT_BOOL,
	ETWBT_REAL32,
	ETWBT_REAL64,
	ETWBT_ANSI,
	ETWBT_TEXT,
	ETWBT_GUID,
	ETWBT_BYTES,
};

/**
 * struct etwbt_scalar - the mapping of one InType and OutType
 * @kind: the field's kind
 * @bits: integer size
 * @skip: bytes of a length prefix before the value (manifest counted
 *	types), which the field does not hold
 */
struct etwbt_scalar {
	enum etwbt_kind kind;
	unsigned int bits;
	unsigned int skip;
};

void etwbt_scalar_of(USHORT in, USHORT out, struct etwbt_scalar *s);
bool etwbt_is_prefix(const TRACE_EVENT_INFO *tei, ULONG i, ULONG end);
char *etwbt_tei_string(const TRACE_EVENT_INFO *tei, ULONG off);

/* classes.c */
void etwbt_classes_free(struct etwbt_comp *c);
struct etwbt_class *etwbt_class_get(struct etwbt_comp *c,
				    const struct etw_etl_event *ev,
				    EVENT_RECORD *rec, bool raw);

/* iter.c */
bt_message_iterator_class_next_method_status
etwbt_iter_next(bt_self_message_iterator *self, bt_message_array_const msgs,
		uint64_t capacity, uint64_t *count);
bt_message_iterator_class_initialize_method_status
etwbt_iter_init(bt_self_message_iterator *self,
		bt_self_message_iterator_configuration *config,
		bt_self_component_port_output *port);
void etwbt_iter_finalize(bt_self_message_iterator *self);
bt_message_iterator_class_can_seek_beginning_method_status
etwbt_iter_can_seek_beginning(bt_self_message_iterator *self,
			      bt_bool *can_seek);
bt_message_iterator_class_seek_beginning_method_status
etwbt_iter_seek_beginning(bt_self_message_iterator *self);

/* payload.c */

/**
 * struct etwbt_text - a growing UTF-16 buffer for TdhFormatProperty
 * @text: the buffer
 * @size: its bytes
 */
struct etwbt_text {
	WCHAR *text;
	ULONG size;
};

int etwbt_payload_fill(struct etwbt_class *cls, const EVENT_RECORD *rec,
		       bt_field *payload, struct etwbt_text *scratch);
int etwbt_raw_fill(const struct etw_etl_event *ev, bt_field *payload);

#endif /* _ETWBT_H */
