// SPDX-License-Identifier: GPL-2.0
/*
 * print_ext.c: the extended data items enable properties add (SID, TS_ID,
 * STACK_TRACE64, PROCESS_START_KEY, EVENT_KEY), for dump's table and JSON.
 * Stacks are raw return addresses, innermost first; keys are hex.  Items
 * of another type, or whose size does not fit their type, are left out.
 */
#include <string.h>

#include "etwctl.h"

#define ETWCTL_SID_HEAD		8	/* revision, count, 6-byte authority */

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

/* The addresses after MatchId, comma-separated. */
static void etwctl_stack(FILE *f, const struct etw_etl_ext *x, bool json)
{
	uint32_t off;

	for (off = 8; off < x->size; off += 8)
		fprintf(f, json ? "%s\"0x%llx\"" : "%s0x%llx",
			off > 8 ? "," : "",
			(unsigned long long)etwctl_u64_at(x, off));
}

/* One item: "name=value " for the table, ,"name":value for JSON. */
static void etwctl_ext_one(FILE *f, const struct etw_etl_ext *x, bool json)
{
	const char *name = etwctl_ext_name(x);
	const char *quote = json ? "\"" : "";
	uint32_t ts;

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
		etwctl_stack(f, x, json);
		fputs(json ? "]" : "", f);
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
 *
 * Prints nothing for an event without such items.
 */
void etwctl_print_ext(FILE *f, const struct etw_etl_event *ev, bool json)
{
	uint32_t i;

	for (i = 0; i < ev->ext_count; i++)
		etwctl_ext_one(f, &ev->ext[i], json);
}
