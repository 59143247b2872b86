/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * A stand-in for the provider API under <TraceLoggingProvider.h> (through
 * its ETW_TLG_EVENT_* hooks), for host tests: it records the registration,
 * the traits set and what each write passes, split by descriptor type the
 * way the kernel splits it (type 2 -> PROV_TRAITS item, type 1 ->
 * EVENT_SCHEMA_TL item, type 0 -> payload), and enables the provider when
 * the test says so.  Include it before <TraceLoggingProvider.h>, from one
 * file of the test program.
 */
#ifndef _TRACELOGGING_DOUBLE_H
#define _TRACELOGGING_DOUBLE_H

#include <stdbool.h>
#include <string.h>

#include <windows.h>
#include <evntprov.h>

#define TLD_HANDLE	0x5a5a0001ull
#define TLD_MAX		8192

struct tld_state {
	bool registered;
	GUID provider;
	PENABLECALLBACK callback;
	PVOID context;
	int unregisters;
	int traits_sets;
	UCHAR traits[TLD_MAX];
	ULONG traits_len;
	ULONG set_error;		/* what EventSetInformation returns */
	int writes;
	EVENT_DESCRIPTOR desc;
	GUID activity;
	GUID related;
	bool has_activity;
	bool has_related;
	ULONG count;			/* descriptors of the last write */
	int bad_desc;			/* descriptors with an unknown type */
	UCHAR prov_meta[TLD_MAX];
	ULONG prov_meta_len;
	UCHAR meta[TLD_MAX];
	ULONG meta_len;
	UCHAR payload[TLD_MAX];
	ULONG payload_len;
};

static struct tld_state tld;

static void tld_append(UCHAR *buf, ULONG *len, const EVENT_DATA_DESCRIPTOR *d)
{
	if (*len + d->Size > TLD_MAX) {
		tld.bad_desc++;
		return;
	}
	memcpy(buf + *len, (const void *)(ULONG_PTR)d->Ptr, d->Size);
	*len += d->Size;
}

static ULONG tld_register(LPCGUID id, PENABLECALLBACK cb, PVOID ctx,
			  PREGHANDLE h)
{
	tld.registered = true;
	tld.provider = *id;
	tld.callback = cb;
	tld.context = ctx;
	*h = TLD_HANDLE;
	return 0;
}

static ULONG tld_unregister(REGHANDLE h)
{
	if (h != TLD_HANDLE || !tld.registered)
		return 6;	/* ERROR_INVALID_HANDLE */
	tld.registered = false;
	tld.unregisters++;
	return 0;
}

static ULONG tld_set_information(REGHANDLE h, EVENT_INFO_CLASS cls,
				 PVOID info, ULONG len)
{
	if (h != TLD_HANDLE || cls != EventProviderSetTraits || !info ||
	    len > TLD_MAX)
		return 87;	/* ERROR_INVALID_PARAMETER */
	if (tld.set_error)
		return tld.set_error;
	tld.traits_sets++;
	memcpy(tld.traits, info, len);
	tld.traits_len = len;
	return 0;
}

static ULONG tld_write_transfer(REGHANDLE h, PCEVENT_DESCRIPTOR desc,
				LPCGUID activity, LPCGUID related, ULONG n,
				PEVENT_DATA_DESCRIPTOR data)
{
	ULONG i;

	if (h != TLD_HANDLE)
		return 6;
	tld.writes++;
	tld.desc = *desc;
	tld.has_activity = activity != NULL;
	tld.has_related = related != NULL;
	if (activity)
		tld.activity = *activity;
	if (related)
		tld.related = *related;
	tld.count = n;
	tld.prov_meta_len = tld.meta_len = tld.payload_len = 0;
	for (i = 0; i < n; i++) {
		if (data[i].Reserved == EVENT_DATA_DESCRIPTOR_TYPE_NONE)
			tld_append(tld.payload, &tld.payload_len, &data[i]);
		else if (data[i].Reserved ==
			 EVENT_DATA_DESCRIPTOR_TYPE_EVENT_METADATA)
			tld_append(tld.meta, &tld.meta_len, &data[i]);
		else if (data[i].Reserved ==
			 EVENT_DATA_DESCRIPTOR_TYPE_PROVIDER_METADATA)
			tld_append(tld.prov_meta, &tld.prov_meta_len,
				   &data[i]);
		else
			tld.bad_desc++;
	}
	return 0;
}

/* What a session's enable (code 1) or disable (code 0) makes ETW call. */
static inline void tld_notify(ULONG code, UCHAR level, ULONGLONG any, ULONGLONG all)
{
	if (tld.callback)
		tld.callback(&tld.provider, code, level, any, all, NULL,
			     tld.context);
}

static inline void tld_reset(void)
{
	memset(&tld, 0, sizeof(tld));
}

#define ETW_TLG_EVENT_REGISTER		tld_register
#define ETW_TLG_EVENT_UNREGISTER	tld_unregister
#define ETW_TLG_EVENT_SET_INFORMATION	tld_set_information
#define ETW_TLG_EVENT_WRITE_TRANSFER	tld_write_transfer

#endif /* _TRACELOGGING_DOUBLE_H */
