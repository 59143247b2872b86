// SPDX-License-Identifier: GPL-2.0
/*
 * TDH over events recorded here: a provider written as Windows code
 * (EventRegister, provider traits, TraceLogging metadata in a type-1 data
 * descriptor, EventWrite) logs to a file session; the file is read back
 * with OpenTrace/ProcessTrace and each event decoded the way a Windows
 * consumer does it: TdhGetEventInformation for the schema, then
 * TdhFormatProperty property by property (array counts and binary sizes
 * from the properties TDH gives them), and TdhGetProperty for one value.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "windows.h"
#include "evntprov.h"
#include "evntrace.h"
#include "evntcons.h"
#include "tdh.h"

#define SESSION		"tdh-selftest"
#define PATH		"/tmp/tdh-selftest.etl"
#define NAME_OFF	sizeof(EVENT_TRACE_PROPERTIES)
#define FILE_OFF	(NAME_OFF + 1024)
#define EVENTS		3

static const GUID prov = { 0x7d4c6e2a, 0x31f0, 0x4b55,
	{ 0x8e, 0x19, 0x60, 0x2d, 0x1c, 0x0f, 0x7a, 0x15 } };

/*
 * name: ANSI string; n: INT32; pt: struct { x, y: UINT16 };
 * vals: UINT32[] (variable count); blob: binary; id: GUID; ok: UINT8 as
 * Boolean.  The UINT16 size in front is filled in at run time.
 */
static unsigned char meta[] =
	"\0\0" "\0" "TdhTest\0"
	"name\0\x02" "n\0\x07" "pt\0\x98\x02" "x\0\x06" "y\0\x06"
	"vals\0\x48" "blob\0\x0e" "id\0\x0f" "ok\0\x84\x03";
static const unsigned char traits[] = "\x0b\x00tdh_prov";

struct props {
	EVENT_TRACE_PROPERTIES p;
	char tail[2048];
};

static void props_init(struct props *b)
{
	memset(b, 0, sizeof(*b));
	b->p.Wnode.BufferSize = sizeof(*b);
	b->p.Wnode.Flags = WNODE_FLAG_TRACED_GUID;
	b->p.BufferSize = 4;
	b->p.LoggerNameOffset = NAME_OFF;
}

static void put(unsigned char **p, const void *v, size_t n)
{
	memcpy(*p, v, n);
	*p += n;
}

/* Event @i's payload; returns its size. */
static size_t payload(int i, unsigned char *buf)
{
	unsigned char *p = buf, blob[2] = { 0xde, (unsigned char)i };
	INT32 n = -7 * i;
	USHORT u16;
	UINT32 v;
	GUID id = { (ULONG)i, 0, 0, { 0 } };
	char name[8];
	int k;

	snprintf(name, sizeof(name), "ev%d", i);
	put(&p, name, strlen(name) + 1);
	put(&p, &n, 4);
	u16 = (USHORT)i;
	put(&p, &u16, 2);
	u16 = (USHORT)(2 * i);
	put(&p, &u16, 2);
	u16 = (USHORT)i;
	put(&p, &u16, 2);
	for (k = 0; k < i; k++) {
		v = 100 + k;
		put(&p, &v, 4);
	}
	u16 = sizeof(blob);
	put(&p, &u16, 2);
	put(&p, blob, sizeof(blob));
	put(&p, &id, sizeof(id));
	*p++ = (unsigned char)(i % 2);
	return (size_t)(p - buf);
}

static const char *const expected[EVENTS] = {
	"name=ev0 n=0 pt.x=0 pt.y=0 vals.Count=0 blob.Length=2 blob=0xDE00 "
	"id={00000000-0000-0000-0000-000000000000} ok=false ",
	"name=ev1 n=-7 pt.x=1 pt.y=2 vals.Count=1 vals[0]=100 blob.Length=2 "
	"blob=0xDE01 id={00000001-0000-0000-0000-000000000000} ok=true ",
	"name=ev2 n=-14 pt.x=2 pt.y=4 vals.Count=2 vals[0]=100 vals[1]=101 "
	"blob.Length=2 blob=0xDE02 id={00000002-0000-0000-0000-000000000000} "
	"ok=false ",
};

/* What the callback decoded, checked after ProcessTrace. */
static struct {
	int ours;
	ULONG status;
	char provider[32], event[32];
	int source;
	char text[EVENTS][512];
	USHORT y[EVENTS];
	USHORT left[EVENTS];
} seen;

/* Walks the event data in schema order, as TDH's documentation shows. */
struct walk {
	TRACE_EVENT_INFO *tei;
	BYTE *p;
	USHORT left;
	USHORT ints[64];	/* each integer property's last value */
	char *out;
	size_t size;
	ULONG status;
};

static void narrow(const WCHAR *w, char *out, size_t size)
{
	size_t i;

	for (i = 0; i + 1 < size && w[i]; i++)
		out[i] = w[i] < 0x80 ? (char)w[i] : '?';
	out[i] = 0;
}

static void value(struct walk *w, ULONG i, const char *name)
{
	EVENT_PROPERTY_INFO *epi = &w->tei->EventPropertyInfoArray[i];
	USHORT in = epi->nonStructType.InType, used = 0;
	WCHAR buf[128];
	ULONG size = sizeof(buf), v = 0;
	char text[128];
	size_t len = strlen(w->out);

	w->status = TdhFormatProperty(w->tei, NULL, 8, in,
				      epi->nonStructType.OutType,
				      epi->Flags & PropertyParamLength ?
				      w->ints[epi->lengthPropertyIndex] :
				      epi->length, w->left, w->p, &size, buf,
				      &used);
	if (w->status)
		return;
	if (in == TDH_INTYPE_UINT16 || in == TDH_INTYPE_UINT32) {
		memcpy(&v, w->p, used);
		w->ints[i] = (USHORT)v;
	}
	w->p += used;
	w->left -= used;
	narrow(buf, text, sizeof(text));
	snprintf(w->out + len, w->size - len, "%s=%s ", name, text);
}

static void props(struct walk *w, ULONG first, ULONG n, const char *prefix)
{
	EVENT_PROPERTY_INFO *epi;
	ULONG i, k, count;
	char own[64], name[128];
	bool array;

	for (i = first; i < first + n && !w->status && i < 64; i++) {
		epi = &w->tei->EventPropertyInfoArray[i];
		narrow((WCHAR *)((BYTE *)w->tei + epi->NameOffset), own,
		       sizeof(own));
		count = epi->Flags & PropertyParamCount ?
			w->ints[epi->countPropertyIndex] : epi->count;
		array = (epi->Flags & (PropertyParamCount |
				       PropertyParamFixedCount)) || count != 1;
		for (k = 0; k < count && !w->status; k++) {
			if (array)
				snprintf(name, sizeof(name), "%s%s[%u]",
					 prefix, own, k);
			else
				snprintf(name, sizeof(name), "%s%s", prefix,
					 own);
			if (!(epi->Flags & PropertyStruct)) {
				value(w, i, name);
				continue;
			}
			strcat(name, ".");
			props(w, epi->structType.StructStartIndex,
			      epi->structType.NumOfStructMembers, name);
		}
	}
}

static void decode(PEVENT_RECORD r, int n)
{
	PROPERTY_DATA_DESCRIPTOR path[2] = {
		{ 0, 0xFFFFFFFFu, 0 }, { 0, 0xFFFFFFFFu, 0 } };
	static const WCHAR pt[] = { 'p', 't', 0 }, y[] = { 'y', 0 };
	struct walk w = { 0 };
	ULONG size = 0;

	seen.status = TdhGetEventInformation(r, 0, NULL, NULL, &size);
	if (seen.status != ERROR_INSUFFICIENT_BUFFER)
		return;
	w.tei = malloc(size);
	seen.status = TdhGetEventInformation(r, 0, NULL, w.tei, &size);
	if (seen.status)
		goto out;
	seen.source = w.tei->DecodingSource;
	narrow((WCHAR *)((BYTE *)w.tei + w.tei->ProviderNameOffset),
	       seen.provider, sizeof(seen.provider));
	narrow((WCHAR *)((BYTE *)w.tei + w.tei->EventNameOffset), seen.event,
	       sizeof(seen.event));
	w.p = r->UserData;
	w.left = r->UserDataLength;
	w.out = seen.text[n];
	w.size = sizeof(seen.text[n]);
	props(&w, 0, w.tei->TopLevelPropertyCount, "");
	seen.status = w.status;
	seen.left[n] = w.left;
	path[0].PropertyName = (uintptr_t)pt;
	path[1].PropertyName = (uintptr_t)y;
	if (!seen.status)
		seen.status = TdhGetProperty(r, 0, NULL, 2, path,
					     sizeof(seen.y[n]),
					     (PBYTE)&seen.y[n]);
out:
	free(w.tei);
}

static VOID WINAPI on_record(PEVENT_RECORD r)
{
	if (!IsEqualGUID(&r->EventHeader.ProviderId, &prov))
		return;
	if (seen.ours < EVENTS && !seen.status)
		decode(r, seen.ours);
	seen.ours++;
}

/* Records EVENTS events of the provider in PATH. */
static void record(struct __test_metadata *_metadata)
{
	EVENT_DESCRIPTOR desc = { .Id = 1, .Level = 4 };
	EVENT_DATA_DESCRIPTOR d[2];
	unsigned char data[256];
	CONTROLTRACE_ID h;
	REGHANDLE reg;
	BOOLEAN on = TRUE;
	struct props b;
	int i;

	meta[0] = sizeof(meta) - 1;
	unlink(PATH);
	props_init(&b);
	StopTraceA(0, SESSION, &b.p);
	props_init(&b);
	b.p.LogFileNameOffset = FILE_OFF;
	strcpy((char *)&b + FILE_OFF, PATH);
	ASSERT_EQ(ERROR_SUCCESS, StartTraceA(&h, SESSION, &b.p));
	ASSERT_EQ(ERROR_SUCCESS, EventRegister(&prov, NULL, NULL, &reg));
	ASSERT_EQ(ERROR_SUCCESS,
		  EventSetInformation(reg, EventProviderSetTraits,
				      (PVOID)traits, sizeof(traits)));
	ASSERT_EQ(ERROR_SUCCESS,
		  EventSetInformation(reg, EventProviderUseDescriptorType, &on,
				      sizeof(on)));
	ASSERT_EQ(ERROR_SUCCESS, EnableTraceEx2(h, &prov, 1, 5, 0, 0, 0,
						NULL));
	for (i = 0; i < EVENTS; i++) {
		EventDataDescCreate(&d[0], meta, sizeof(meta) - 1);
		d[0].Type = EVENT_DATA_DESCRIPTOR_TYPE_EVENT_METADATA;
		EventDataDescCreate(&d[1], data, (ULONG)payload(i, data));
		ASSERT_EQ(ERROR_SUCCESS, EventWrite(reg, &desc, 2, d));
	}
	EXPECT_EQ(ERROR_SUCCESS, EventUnregister(reg));
	props_init(&b);
	ASSERT_EQ(ERROR_SUCCESS, StopTraceA(0, SESSION, &b.p));
}

TEST(recorded_tracelogging_events)
{
	EVENT_TRACE_LOGFILEA lf;
	PROCESSTRACE_HANDLE ph;
	int i;

	memset(&seen, 0, sizeof(seen));
	record(_metadata);
	memset(&lf, 0, sizeof(lf));
	lf.LogFileName = (LPSTR)PATH;
	lf.ProcessTraceMode = PROCESS_TRACE_MODE_EVENT_RECORD;
	lf.EventRecordCallback = on_record;
	ph = OpenTraceA(&lf);
	ASSERT_NE(INVALID_PROCESSTRACE_HANDLE, ph);
	ASSERT_EQ(ERROR_SUCCESS, ProcessTrace(&ph, 1, NULL, NULL));
	EXPECT_EQ(ERROR_SUCCESS, CloseTrace(ph));
	ASSERT_EQ(EVENTS, seen.ours);
	ASSERT_EQ(ERROR_SUCCESS, seen.status);
	EXPECT_EQ(DecodingSourceTlg, seen.source);
	EXPECT_STREQ("tdh_prov", seen.provider);
	EXPECT_STREQ("TdhTest", seen.event);
	for (i = 0; i < EVENTS; i++) {
		EXPECT_STREQ(expected[i], seen.text[i]);
		EXPECT_EQ(0, seen.left[i]) TH_LOG("event %d", i);
		EXPECT_EQ(2 * i, seen.y[i]) TH_LOG("event %d", i);
	}
	unlink(PATH);
}

TEST_HARNESS_MAIN
