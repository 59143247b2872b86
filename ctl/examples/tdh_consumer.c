// SPDX-License-Identifier: MIT
/*
 * tdh_consumer: the events of an ETL file, decoded the way Windows
 * consumers decode them, compiled unchanged against libetw:
 *
 *   cc tdh_consumer.c $(pkg-config --cflags --libs libetw)
 *   ./tdh_consumer [--manifest FILE.man] FILE.etl
 *
 * OpenTrace opens the file and ProcessTrace calls back with each
 * EVENT_RECORD; TdhGetEventInformation gives its schema (the event's own
 * for TraceLogging, a manifest's otherwise: loaded with --manifest, or
 * found where libetw looks, `pkg-config --variable=manifestdir libetw`),
 * TdhFormatProperty each top-level property in turn.  One line per event:
 *
 *   PROVIDER EVENT name=value ...
 *   {GUID} id=N version=N: no schema (TDH status)
 *
 * and at the end "N events, N decoded, N without a schema".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <windows.h>
#include <evntrace.h>
#include <evntcons.h>
#include <tdh.h>

static unsigned long events, decoded, no_schema;

/* A NUL-terminated UTF-16 string as UTF-8 on stdout. */
static void put_utf16(const WCHAR *s)
{
	unsigned long c;

	for (; s && *s; s++) {
		c = *s;
		if (c >= 0xd800 && c < 0xdc00 && s[1] >= 0xdc00 && s[1] < 0xe000) {
			c = 0x10000 + ((c - 0xd800) << 10) + (s[1] - 0xdc00);
			s++;
		}
		if (c < 0x80) {
			putchar((int)c);
		} else if (c < 0x800) {
			putchar((int)(0xc0 | c >> 6));
			putchar((int)(0x80 | (c & 0x3f)));
		} else if (c < 0x10000) {
			putchar((int)(0xe0 | c >> 12));
			putchar((int)(0x80 | (c >> 6 & 0x3f)));
			putchar((int)(0x80 | (c & 0x3f)));
		} else {
			putchar((int)(0xf0 | c >> 18));
			putchar((int)(0x80 | (c >> 12 & 0x3f)));
			putchar((int)(0x80 | (c >> 6 & 0x3f)));
			putchar((int)(0x80 | (c & 0x3f)));
		}
	}
}

static const WCHAR *tei_str(const TRACE_EVENT_INFO *tei, ULONG off)
{
	return off ? (const WCHAR *)((const BYTE *)tei + off) : NULL;
}

/* The bytes of top-level property @i, as TDH counts them. */
static ULONG property_size(PEVENT_RECORD rec, TRACE_EVENT_INFO *tei, ULONG i,
			   ULONG *size)
{
	PROPERTY_DATA_DESCRIPTOR d = {
		.PropertyName = (ULONGLONG)(uintptr_t)tei_str(tei,
			tei->EventPropertyInfoArray[i].NameOffset),
		.ArrayIndex = 0xFFFFFFFF,	/* the whole property */
	};

	return TdhGetPropertySize(rec, 0, NULL, 1, &d, size);
}

/* The value map a property names, NULL for none (or none found). */
static EVENT_MAP_INFO *property_map(PEVENT_RECORD rec, TRACE_EVENT_INFO *tei,
				    const EVENT_PROPERTY_INFO *p)
{
	ULONG off = p->nonStructType.MapNameOffset, size = 0;
	EVENT_MAP_INFO *map;

	if (!off || TdhGetEventMapInformation(rec, (PWSTR)tei_str(tei, off),
					      NULL, &size) !=
		    ERROR_INSUFFICIENT_BUFFER)
		return NULL;
	map = malloc(size);
	if (map && TdhGetEventMapInformation(rec, (PWSTR)tei_str(tei, off),
					     map, &size)) {
		free(map);
		map = NULL;
	}
	return map;
}

static void print_properties(PEVENT_RECORD rec, TRACE_EVENT_INFO *tei)
{
	ULONG ptr = rec->EventHeader.Flags & EVENT_HEADER_FLAG_32_BIT_HEADER ?
		    4 : 8;
	BYTE *data = rec->UserData, *end = data + rec->UserDataLength;
	WCHAR *buf = NULL;
	ULONG bufsize = 0, i, st, size;

	for (i = 0; i < tei->TopLevelPropertyCount; i++) {
		const EVENT_PROPERTY_INFO *p = &tei->EventPropertyInfoArray[i];
		EVENT_MAP_INFO *map;
		USHORT used = 0;

		putchar(' ');
		put_utf16(tei_str(tei, p->NameOffset));
		putchar('=');
		/* Structures and arrays: their size, not their members. */
		if ((p->Flags & (PropertyStruct | PropertyParamCount)) ||
		    p->count > 1) {
			if (property_size(rec, tei, i, &size) ||
			    size > (ULONG)(end - data)) {
				printf("(undecodable)");
				break;
			}
			printf("(%lu bytes)", (unsigned long)size);
			data += size;
			continue;
		}
		size = p->length;
		if ((p->Flags & PropertyParamLength) &&
		    property_size(rec, tei, i, &size)) {
			printf("(undecodable)");
			break;
		}
		map = property_map(rec, tei, p);
		for (;;) {
			st = TdhFormatProperty(tei, map, ptr, p->nonStructType.InType,
					       p->nonStructType.OutType,
					       (USHORT)size, (USHORT)(end - data),
					       data, &bufsize, buf, &used);
			if (st != ERROR_INSUFFICIENT_BUFFER)
				break;
			free(buf);
			buf = malloc(bufsize);
			if (!buf) {
				st = ERROR_NOT_ENOUGH_MEMORY;
				break;
			}
		}
		free(map);
		if (st) {
			printf("(TDH status %lu)", (unsigned long)st);
			break;
		}
		put_utf16(buf);
		data += used;
	}
	free(buf);
}

static VOID WINAPI on_event(PEVENT_RECORD rec)
{
	const GUID *g = &rec->EventHeader.ProviderId;
	TRACE_EVENT_INFO *tei = NULL;
	ULONG size = 0, st;

	events++;
	st = TdhGetEventInformation(rec, 0, NULL, NULL, &size);
	if (st == ERROR_INSUFFICIENT_BUFFER) {
		tei = malloc(size);
		st = tei ? TdhGetEventInformation(rec, 0, NULL, tei, &size) :
			   ERROR_NOT_ENOUGH_MEMORY;
	}
	if (st) {
		no_schema++;
		printf("{%08lX-%04X-%04X-%02X%02X-%02X%02X%02X%02X%02X%02X} "
		       "id=%u version=%u: no schema (TDH status %lu)\n",
		       (unsigned long)g->Data1, g->Data2, g->Data3,
		       g->Data4[0], g->Data4[1], g->Data4[2], g->Data4[3],
		       g->Data4[4], g->Data4[5], g->Data4[6], g->Data4[7],
		       rec->EventHeader.EventDescriptor.Id,
		       rec->EventHeader.EventDescriptor.Version,
		       (unsigned long)st);
		free(tei);
		return;
	}
	decoded++;
	put_utf16(tei_str(tei, tei->ProviderNameOffset));
	putchar(' ');
	if (tei->EventNameOffset) {
		put_utf16(tei_str(tei, tei->EventNameOffset));
	} else {
		put_utf16(tei_str(tei, tei->TaskNameOffset));
		if (tei->OpcodeNameOffset) {
			putchar('/');
			put_utf16(tei_str(tei, tei->OpcodeNameOffset));
		}
	}
	print_properties(rec, tei);
	putchar('\n');
	free(tei);
}

int main(int argc, char **argv)
{
	EVENT_TRACE_LOGFILEA log = { 0 };
	PROCESSTRACE_HANDLE h;
	ULONG st;
	int i = 1;

	if (argc == 4 && !strcmp(argv[1], "--manifest")) {
		WCHAR path[4096];
		size_t n;

		for (n = 0; argv[2][n] && n < 4095; n++)
			path[n] = (unsigned char)argv[2][n];
		path[n] = 0;
		st = TdhLoadManifest(path);
		if (st) {
			fprintf(stderr, "tdh_consumer: %s: TdhLoadManifest: %lu\n",
				argv[2], (unsigned long)st);
			return 1;
		}
		i = 3;
	}
	if (argc != i + 1) {
		fprintf(stderr, "usage: tdh_consumer [--manifest FILE.man] FILE.etl\n");
		return 2;
	}
	log.LogFileName = argv[i];
	log.ProcessTraceMode = PROCESS_TRACE_MODE_EVENT_RECORD;
	log.EventRecordCallback = on_event;
	h = OpenTraceA(&log);
	if (h == INVALID_PROCESSTRACE_HANDLE) {
		fprintf(stderr, "tdh_consumer: %s: OpenTrace: %lu\n", argv[i],
			(unsigned long)GetLastError());
		return 1;
	}
	st = ProcessTrace(&h, 1, NULL, NULL);
	CloseTrace(h);
	printf("%lu events, %lu decoded, %lu without a schema\n", events,
	       decoded, no_schema);
	if (st) {
		fprintf(stderr, "tdh_consumer: %s: ProcessTrace: %lu\n", argv[i],
			(unsigned long)st);
		return 1;
	}
	return 0;
}
