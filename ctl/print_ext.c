// SPDX-License-Identifier: GPL-2.0
/*
 * print_ext.c: the extended data items enable properties add (SID, TS_ID,
 * STACK_TRACE64, PROCESS_START_KEY, EVENT_KEY), for dump's table and JSON.
 * Stacks are return addresses, innermost first, symbolised through the
 * kernel's Image events of the same trace when there is an image map
 * (symbols.c); keys are hex.  Items of another type, or whose size does
 * not fit their type, are left out.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "etwctl.h"
#include "symbols.h"

#define ETWCTL_SID_HEAD		8	/* revision, count, 6-byte authority */
/* Longer frame text (C++ names) is cut. */
#define ETWCTL_FRAME_LEN	512

/*
 * Image_Load's fields on 64-bit, before FileName: ImageBase, ImageSize,
 * ProcessId, ImageCheckSum, TimeDateStamp, Reserved0, DefaultBase,
 * Reserved1..4.
 */
#define ETWCTL_IMAGE_BASE	0
#define ETWCTL_IMAGE_SIZE	8
#define ETWCTL_IMAGE_PID	16
#define ETWCTL_IMAGE_DEFAULT_BASE 32
#define ETWCTL_IMAGE_NAME	56

/* ImageLoadGuid: the event class of the kernel logger's Image events. */
static const struct etw_guid etwctl_image_guid = {
	0x2cb15d1d, 0x5fc1, 0x11d2,
	{ 0xab, 0xe1, 0x00, 0xa0, 0xc9, 0x11, 0xf5, 0x18 }
};

/*
 * ProcessGuid: Windows logs the loads of a running trace under the
 * process group's LOAD hook, with Image_Load's layout.
 */
static const struct etw_guid etwctl_process_guid = {
	0x3d6fa8d0, 0xfe05, 0x11d0,
	{ 0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c }
};

static uint64_t etwctl_u64_at(const struct etw_etl_ext *x, uint32_t off)
{
	uint64_t v;

	memcpy(&v, (const uint8_t *)x->data + off, sizeof(v));
	return v;
}

/* The item's name when dump prints it: a known type of a fitting size. */
static const char *etwctl_ext_name(const struct etw_etl_ext *x)
{
	const uint8_t *p = x->data;

	switch (x->type) {
	case EVENT_HEADER_EXT_TYPE_SID:
		return x->size >= ETWCTL_SID_HEAD &&
		       x->size == ETWCTL_SID_HEAD + 4u * p[1] ? "sid" : NULL;
	case EVENT_HEADER_EXT_TYPE_TS_ID:
		return x->size == sizeof(uint32_t) ? "session_id" : NULL;
	case EVENT_HEADER_EXT_TYPE_STACK_TRACE64:
		return x->size >= 8 && !(x->size % 8) ? "stack" : NULL;
	case EVENT_HEADER_EXT_TYPE_PROCESS_START_KEY:
		return x->size == 8 ? "process_start_key" : NULL;
	case EVENT_HEADER_EXT_TYPE_EVENT_KEY:
		return x->size == 8 ? "event_key" : NULL;
	case EVENT_HEADER_EXT_TYPE_CONTAINER_ID:
		return x->size == sizeof(GUID) ? "container_id" : NULL;
	default:
		return NULL;
	}
}

/* A binary SID as S-1-<authority>-<sub>... */
static void etwctl_sid(FILE *f, const struct etw_etl_ext *x)
{
	const uint8_t *p = x->data;
	uint64_t auth = 0;
	uint32_t sub;
	int i;

	for (i = 2; i < ETWCTL_SID_HEAD; i++)
		auth = auth << 8 | p[i];
	fprintf(f, "S-%u-%llu", p[0], (unsigned long long)auth);
	for (i = 0; i < p[1]; i++) {
		memcpy(&sub, p + ETWCTL_SID_HEAD + 4 * i, sizeof(sub));
		fprintf(f, "-%u", sub);
	}
}

/*
 * The addresses after MatchId, comma-separated: as symbols when @syms
 * holds an image map, else in hex.
 */
static void etwctl_stack(FILE *f, const struct etw_etl_event *ev,
			 const struct etw_etl_ext *x, bool json,
			 struct etwctl_symbols *syms)
{
	char frame[ETWCTL_FRAME_LEN];
	uint64_t addr;
	uint32_t off;

	for (off = 8; off < x->size; off += 8) {
		addr = etwctl_u64_at(x, off);
		if (off > 8)
			putc_unlocked(',', f);
		if (!syms) {
			fprintf(f, json ? "\"0x%llx\"" : "0x%llx",
				(unsigned long long)addr);
			continue;
		}
		etwctl_symbols_frame(syms, ev->process_id, ev->timestamp, addr,
				     frame, sizeof(frame));
		if (json)
			etwctl_json_string(f, frame);
		else
			etwctl_puts(f, frame);
	}
}

/* One item: "name=value " for the table, ,"name":value for JSON. */
static void etwctl_ext_one(FILE *f, const struct etw_etl_event *ev,
			   const struct etw_etl_ext *x, bool json,
			   struct etwctl_symbols *syms)
{
	const char *name = etwctl_ext_name(x);
	const char *quote = json ? "\"" : "";
	char text[ETWCTL_GUID_LEN];
	uint32_t ts;
	GUID guid;

	if (!name)
		return;
	fprintf(f, json ? ",\"%s\":" : "%s=", name);
	switch (x->type) {
	case EVENT_HEADER_EXT_TYPE_SID:
		fputs(quote, f);
		etwctl_sid(f, x);
		fputs(quote, f);
		break;
	case EVENT_HEADER_EXT_TYPE_TS_ID:
		memcpy(&ts, x->data, sizeof(ts));
		fprintf(f, "%u", ts);
		break;
	case EVENT_HEADER_EXT_TYPE_STACK_TRACE64:
		fputs(json ? "[" : "", f);
		etwctl_stack(f, ev, x, json, syms);
		fputs(json ? "]" : "", f);
		break;
	case EVENT_HEADER_EXT_TYPE_CONTAINER_ID:
		memcpy(&guid, x->data, sizeof(guid));
		etwctl_guid_format(&guid, text);
		fprintf(f, "%s%s%s", quote, text, quote);
		break;
	default:
		fprintf(f, "%s0x%llx%s", quote,
			(unsigned long long)etwctl_u64_at(x, 0), quote);
		break;
	}
	fputs(json ? "" : " ", f);
}

/**
 * etwctl_print_ext - the extended items enable properties add
 * @f: the stream
 * @ev: the event
 * @json: as members of dump's JSON object (each with a leading comma),
 *	else as table words ("sid=S-1-22-1-0 ", each with a trailing space)
 * @syms: the image map stacks are symbolised with, or NULL for hex
 *
 * Prints nothing for an event without such items.
 */
void etwctl_print_ext(FILE *f, const struct etw_etl_event *ev, bool json,
		      struct etwctl_symbols *syms)
{
	uint32_t i;

	for (i = 0; i < ev->ext_count; i++)
		etwctl_ext_one(f, ev, &ev->ext[i], json, syms);
}

/* The message for etwctl_symbols_kallsyms()'s error @err. */
static int etwctl_kallsyms_fail(const char *cmd, const char *path, int err)
{
	if (err == -EINVAL)
		return etwctl_fail(cmd, "%s: not a kallsyms file", path);
	if (err == -ENOENT)
		return etwctl_fail(cmd, "%s: no symbol addresses (kptr_restrict "
				   "hides them from users other than root)",
				   path);
	return etwctl_fail(cmd, "%s: %s", path, strerror(-err));
}

/**
 * etwctl_symbols_setup - the image map dump and view symbolise stacks with
 * @cmd: the command, for the messages
 * @kallsyms: a copy of /proc/kallsyms for kernel addresses, or NULL
 * @out: out: the map, to etwctl_symbols_free()
 *
 * Return: 0, or the exit status after a one-line message.
 */
int etwctl_symbols_setup(const char *cmd, const char *kallsyms,
			 struct etwctl_symbols **out)
{
	int ret = 0, err;
	FILE *f;

	*out = etwctl_symbols_new();
	if (!*out)
		return etwctl_fail(cmd, "out of memory");
	if (!kallsyms)
		return 0;
	f = fopen(kallsyms, "r");
	if (!f) {
		ret = etwctl_fail(cmd, "%s: %s", kallsyms, strerror(errno));
	} else {
		err = etwctl_symbols_kallsyms(*out, f);
		fclose(f);
		if (err)
			ret = etwctl_kallsyms_fail(cmd, kallsyms, err);
	}
	if (ret) {
		etwctl_symbols_free(*out);
		*out = NULL;
	}
	return ret;
}

/**
 * etwctl_event_has_stack - whether an event carries a stack dump prints
 * @ev: the event
 *
 * Return: true for a well-formed STACK_TRACE64 item.
 */
bool etwctl_event_has_stack(const struct etw_etl_event *ev)
{
	uint32_t i;

	for (i = 0; i < ev->ext_count; i++)
		if (ev->ext[i].type == EVENT_HEADER_EXT_TYPE_STACK_TRACE64 &&
		    etwctl_ext_name(&ev->ext[i]))
			return true;
	return false;
}

/* The image operation of an Image event's opcode; false for others. */
static bool etwctl_image_op(uint8_t opcode, enum etwctl_image_op *op)
{
	switch (opcode) {
	case 10:
		*op = ETWCTL_IMAGE_LOAD;
		return true;
	case 2:
		*op = ETWCTL_IMAGE_UNLOAD;
		return true;
	case 3:
		*op = ETWCTL_IMAGE_DCSTART;
		return true;
	case 4:
		*op = ETWCTL_IMAGE_DCEND;
		return true;
	}
	return false;
}

/**
 * etwctl_image_wants - whether etwctl_image_event() may take an event
 * @ev: any event
 *
 * Return: true for the kernel logger's Image and Process classes.
 */
bool etwctl_image_wants(const struct etw_etl_event *ev)
{
	return !memcmp(&ev->provider_id, &etwctl_image_guid,
		       sizeof(etwctl_image_guid)) ||
	       !memcmp(&ev->provider_id, &etwctl_process_guid,
		       sizeof(etwctl_process_guid));
}

/**
 * etwctl_image_event - an Image event of the kernel logger into the map
 * @syms: the image map
 * @ev: any event
 *
 * Takes 64-bit Image_Load records (versions 2 and 3 share the layout) of
 * opcodes Load, Unload, DCStart and DCEnd, and the loads Windows logs
 * under the process group, at the event's time; other events and records
 * too short for their fields are passed over.
 *
 * Return: 0, or -ENOMEM.
 */
int etwctl_image_event(struct etwctl_symbols *syms,
		       const struct etw_etl_event *ev)
{
	const uint8_t *p = ev->user_data;
	struct etwctl_image img;
	enum etwctl_image_op op;
	char *path;
	int ret;

	/* A relogged trace gives some of them PERFINFO headers. */
	if ((ev->header_type != ETW_ETL_HT_SYSTEM64 &&
	     ev->header_type != ETW_ETL_HT_COMPACT64 &&
	     ev->header_type != ETW_ETL_HT_PERFINFO64) ||
	    (ev->descriptor.version != 2 && ev->descriptor.version != 3) ||
	    ev->user_data_len <= ETWCTL_IMAGE_NAME)
		return 0;
	if (!memcmp(&ev->provider_id, &etwctl_process_guid,
		    sizeof(etwctl_process_guid)) &&
	    ev->descriptor.opcode == 10)
		op = ETWCTL_IMAGE_LOAD;
	else if (memcmp(&ev->provider_id, &etwctl_image_guid,
			sizeof(etwctl_image_guid)) ||
		 !etwctl_image_op(ev->descriptor.opcode, &op))
		return 0;
	memcpy(&img.base, p + ETWCTL_IMAGE_BASE, sizeof(img.base));
	memcpy(&img.size, p + ETWCTL_IMAGE_SIZE, sizeof(img.size));
	memcpy(&img.pid, p + ETWCTL_IMAGE_PID, sizeof(img.pid));
	memcpy(&img.file_base, p + ETWCTL_IMAGE_DEFAULT_BASE,
	       sizeof(img.file_base));
	path = etw_etl_utf16_to_utf8(p + ETWCTL_IMAGE_NAME,
				     (ev->user_data_len - ETWCTL_IMAGE_NAME) /
				     2);
	if (!path)
		return -ENOMEM;
	img.path = path;
	ret = etwctl_symbols_image(syms, op, &img, ev->timestamp);
	free(path);
	return ret ? -ENOMEM : 0;
}
