// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * etw_tdh_enum.c: what TDH says about providers rather than events:
 * TdhEnumerateProviders (every provider TDH can decode) and the keywords,
 * levels, channels, tasks and opcodes of one provider
 * (TdhEnumerateProviderFieldInformation, TdhQueryProviderFieldInformation).
 *
 * The providers are those of the manifests the program loaded and of the
 * manifests found on the manifest path (etw_tdh_path.c); the classic
 * kernel event classes are MOF classes, which TDH does not decode here, so
 * they are not listed.  Each answer is built under the manifests' read
 * lock, in two passes: the count, which places the strings after the
 * array, then the entries.
 */
#include <stdbool.h>
#include <string.h>

#include "etw_tdh_manifest.h"

/* A field query: which entries match, and the answer being built. */
struct etw_fi_query {
	EVENT_FIELD_TYPE type;
	bool all;		/* Enumerate: every entry */
	uint64_t value;		/* Query: the value asked for */
	uint32_t n;		/* entries matched */
	bool emit;		/* false while counting */
	struct etw_mf_out o;
	PROVIDER_FIELD_INFOARRAY *buf;
};

static const struct etw_mf_list *etw_fi_list(const struct etw_mf_provider *p,
					     EVENT_FIELD_TYPE type)
{
	switch (type) {
	case EventKeywordInformation:
		return &p->keywords;
	case EventLevelInformation:
		return &p->levels;
	case EventChannelInformation:
		return &p->channels;
	case EventTaskInformation:
		return &p->tasks;
	default:
		return &p->opcodes;
	}
}

/* An entry's Value: for an opcode, task | opcode << 16, as queries take it. */
static uint64_t etw_fi_value(const struct etw_mf_item *it,
			     EVENT_FIELD_TYPE type)
{
	if (type == EventOpcodeInformation)
		return it->value << 16 | it->task;
	return it->value;
}

static bool etw_fi_match(const struct etw_fi_query *q, uint64_t v)
{
	if (q->all)
		return true;
	if (q->type == EventKeywordInformation)
		return v && (v & q->value) == v;
	return v == q->value;
}

static void etw_fi_add(struct etw_fi_query *q, const struct etw_mf_item *it)
{
	PROVIDER_FIELD_INFO pfi;

	pfi.Value = etw_fi_value(it, q->type);
	if (!etw_fi_match(q, pfi.Value))
		return;
	if (q->emit) {
		pfi.NameOffset = etw_mf_put(&q->o, it->label);
		pfi.DescriptionOffset = etw_mf_put(&q->o, it->desc);
		if (q->o.off <= q->o.cap)
			memcpy(&q->buf->FieldInfoArray[q->n], &pfi,
			       sizeof(pfi));
	}
	q->n++;
}

/* The winmeta level or opcode of @e: one that is not in the list @l. */
static const struct etw_mf_item *etw_fi_builtin(const struct etw_mf_event *e,
						EVENT_FIELD_TYPE type,
						const struct etw_mf_list *l)
{
	const struct etw_mf_item *it = NULL;
	uintptr_t at, start = (uintptr_t)l->v;

	if (type == EventLevelInformation)
		it = e->level;
	else if (type == EventOpcodeInformation)
		it = e->opcode;
	at = (uintptr_t)it;
	if (!it || (at >= start && at < start + l->n * sizeof(*it)))
		return NULL;
	return it;
}

/*
 * The provider's items of @q->type in manifest order, then the winmeta
 * levels or opcodes its events use, in the order first used.
 */
static void etw_fi_each(const struct etw_mf_provider *p,
			struct etw_fi_query *q)
{
	const struct etw_mf_list *l = etw_fi_list(p, q->type);
	const struct etw_mf_item *it;
	bool seen[256] = { false };	/* winmeta values are 8-bit */
	uint32_t i;

	for (i = 0; i < l->n; i++)
		etw_fi_add(q, &l->v[i]);
	for (i = 0; i < p->nevents; i++) {
		it = etw_fi_builtin(&p->events[i], q->type, l);
		if (!it || seen[it->value & 0xff])
			continue;
		seen[it->value & 0xff] = true;
		etw_fi_add(q, it);
	}
}

/* Counts, then writes, the entries of @q; @q->n ends as their number. */
static ULONG etw_fi_build(const struct etw_mf_provider *p,
			  struct etw_fi_query *q, PROVIDER_FIELD_INFOARRAY *buf,
			  ULONG *size)
{
	PROVIDER_FIELD_INFOARRAY head;

	q->n = 0;
	q->emit = false;
	etw_fi_each(p, q);
	if (!q->n)
		return ERROR_NOT_FOUND;
	q->o.buf = (BYTE *)buf;
	q->o.cap = buf ? *size : 0;
	q->o.off = offsetof(PROVIDER_FIELD_INFOARRAY, FieldInfoArray) +
		   q->n * sizeof(PROVIDER_FIELD_INFO);
	q->buf = buf;
	q->n = 0;
	q->emit = true;
	etw_fi_each(p, q);
	*size = q->o.off;
	if (q->o.off > q->o.cap)
		return ERROR_INSUFFICIENT_BUFFER;
	head.NumberOfElements = q->n;
	head.FieldType = q->type;
	memcpy(buf, &head, offsetof(PROVIDER_FIELD_INFOARRAY, FieldInfoArray));
	return ERROR_SUCCESS;
}

/* For an opcode of a task, the global opcode of that value. */
static bool etw_fi_global_opcode(struct etw_fi_query *q)
{
	if (q->all || q->type != EventOpcodeInformation || !(q->value & 0xffff))
		return false;
	q->value &= ~(uint64_t)0xffff;
	return true;
}

static ULONG etw_fi_answer(const GUID *guid, struct etw_fi_query *q,
			   PROVIDER_FIELD_INFOARRAY *buf, ULONG *size)
{
	const struct etw_mf_provider *p;
	ULONG ret = ERROR_NOT_FOUND;

	etw_manifest_read_lock();
	p = etw_mf_provider_of(guid);
	if (p) {
		ret = etw_fi_build(p, q, buf, size);
		if (ret == ERROR_NOT_FOUND && etw_fi_global_opcode(q))
			ret = etw_fi_build(p, q, buf, size);
	}
	etw_manifest_read_unlock();
	return ret;
}

static ULONG etw_fi_check(const GUID *guid, EVENT_FIELD_TYPE type,
			  const void *buf, const ULONG *size)
{
	if (!guid || !size || (!buf && *size))
		return ERROR_INVALID_PARAMETER;
	if ((unsigned int)type >= EventInformationMax)
		return ERROR_NOT_SUPPORTED;
	return ERROR_SUCCESS;
}

/**
 * TdhEnumerateProviderFieldInformation - a provider's keywords, levels...
 * @pGuid: the provider
 * @EventFieldType: EventKeywordInformation, EventLevelInformation,
 *	EventChannelInformation, EventTaskInformation or EventOpcodeInformation
 * @pBuffer: receives a PROVIDER_FIELD_INFOARRAY and its strings
 * @pBufferSize: in: bytes at @pBuffer; out: bytes used or needed
 *
 * The items its manifest defines, in the manifest's order, then the
 * winmeta levels or opcodes (win:Informational, win:Start...) its events
 * use.  Each has the name attribute (a channel's name, not its chid), the
 * message's text or no description (winmeta's: their display text) and
 * its value; an opcode's value is its task in bits 0-15 and the opcode in
 * bits 16-23, as TdhQueryProviderFieldInformation takes it.
 *
 * Context: any thread.
 * Return: ERROR_SUCCESS; ERROR_INSUFFICIENT_BUFFER (*@pBufferSize then
 * holds the size needed); ERROR_INVALID_PARAMETER for a NULL @pGuid or
 * @pBufferSize, or a NULL @pBuffer with a non-zero size;
 * ERROR_NOT_SUPPORTED for another @EventFieldType; ERROR_NOT_FOUND when no
 * manifest describes the provider or it has no item of that type.
 */
TDHSTATUS WINAPI TdhEnumerateProviderFieldInformation(LPGUID pGuid,
		EVENT_FIELD_TYPE EventFieldType, PPROVIDER_FIELD_INFOARRAY pBuffer,
		ULONG *pBufferSize)
{
	struct etw_fi_query q = { .type = EventFieldType, .all = true };
	ULONG ret = etw_fi_check(pGuid, EventFieldType, pBuffer, pBufferSize);

	if (ret)
		return ret;
	return etw_fi_answer(pGuid, &q, pBuffer, pBufferSize);
}

/**
 * TdhQueryProviderFieldInformation - the items of a provider with a value
 * @pGuid: the provider
 * @EventFieldValue: a keyword mask, a level, channel or task value, or for
 *	an opcode the task in bits 0-15 and the opcode in bits 16-23
 * @EventFieldType: as for TdhEnumerateProviderFieldInformation
 * @pBuffer: receives a PROVIDER_FIELD_INFOARRAY and its strings
 * @pBufferSize: in: bytes at @pBuffer; out: bytes used or needed
 *
 * The entries TdhEnumerateProviderFieldInformation gives whose value is
 * @EventFieldValue; for keywords, every keyword whose bits are all in the
 * mask.  An opcode is looked for in its task, then among the global
 * opcodes (the entry's value then has task 0).
 *
 * Context: any thread.
 * Return: ERROR_SUCCESS; ERROR_INSUFFICIENT_BUFFER (*@pBufferSize then
 * holds the size needed); ERROR_INVALID_PARAMETER for a NULL @pGuid or
 * @pBufferSize, or a NULL @pBuffer with a non-zero size;
 * ERROR_NOT_SUPPORTED for another @EventFieldType; ERROR_NOT_FOUND when no
 * manifest describes the provider or no item has the value.
 */
TDHSTATUS WINAPI TdhQueryProviderFieldInformation(LPGUID pGuid,
		ULONGLONG EventFieldValue, EVENT_FIELD_TYPE EventFieldType,
		PPROVIDER_FIELD_INFOARRAY pBuffer, ULONG *pBufferSize)
{
	struct etw_fi_query q = { .type = EventFieldType,
				  .value = EventFieldValue };
	ULONG ret = etw_fi_check(pGuid, EventFieldType, pBuffer, pBufferSize);

	if (ret)
		return ret;
	return etw_fi_answer(pGuid, &q, pBuffer, pBufferSize);
}

/* TdhEnumerateProviders' answer: counted, then written. */
struct etw_pe {
	uint32_t n;
	bool emit;		/* false while counting */
	struct etw_mf_out o;
	PROVIDER_ENUMERATION_INFO *buf;
};

static void etw_pe_add(const struct etw_mf_provider *p, void *arg)
{
	struct etw_pe *pe = arg;
	TRACE_PROVIDER_INFO tpi;

	if (pe->emit) {
		tpi.ProviderGuid = p->guid;
		tpi.SchemaSource = 0;	/* an XML manifest */
		tpi.ProviderNameOffset = etw_mf_put(&pe->o, p->name);
		if (pe->o.off <= pe->o.cap)
			memcpy(&pe->buf->TraceProviderInfoArray[pe->n], &tpi,
			       sizeof(tpi));
	}
	pe->n++;
}

/**
 * TdhEnumerateProviders - the providers whose events TDH can decode
 * @pBuffer: receives a PROVIDER_ENUMERATION_INFO and the names
 * @pBufferSize: in: bytes at @pBuffer; out: bytes used or needed
 *
 * Every provider of the loaded manifests and of those found on the
 * manifest path, each GUID once, in the order TDH looks them up (loaded
 * manifests newest first, then the path's); SchemaSource 0 (manifest).
 *
 * Context: any thread.
 * Return: ERROR_SUCCESS; ERROR_INSUFFICIENT_BUFFER (*@pBufferSize then
 * holds the size needed); ERROR_INVALID_PARAMETER for a NULL
 * @pBufferSize, or a NULL @pBuffer with a non-zero size.
 */
TDHSTATUS WINAPI TdhEnumerateProviders(PPROVIDER_ENUMERATION_INFO pBuffer,
				       ULONG *pBufferSize)
{
	struct etw_pe pe = { 0 };
	PROVIDER_ENUMERATION_INFO head = { 0 };

	if (!pBufferSize || (!pBuffer && *pBufferSize))
		return ERROR_INVALID_PARAMETER;
	etw_manifest_read_lock();
	etw_manifest_for_each(etw_pe_add, &pe);
	pe.o.buf = (BYTE *)pBuffer;
	pe.o.cap = pBuffer ? *pBufferSize : 0;
	pe.o.off = offsetof(PROVIDER_ENUMERATION_INFO, TraceProviderInfoArray) +
		   pe.n * sizeof(TRACE_PROVIDER_INFO);
	pe.buf = pBuffer;
	pe.n = 0;
	pe.emit = true;
	etw_manifest_for_each(etw_pe_add, &pe);
	etw_manifest_read_unlock();
	*pBufferSize = pe.o.off;
	if (pe.o.off > pe.o.cap)
		return ERROR_INSUFFICIENT_BUFFER;
	head.NumberOfProviders = pe.n;
	memcpy(pBuffer, &head,
	       offsetof(PROVIDER_ENUMERATION_INFO, TraceProviderInfoArray));
	return ERROR_SUCCESS;
}
