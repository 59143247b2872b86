// SPDX-License-Identifier: MIT
/*
 * demo_provider: a TraceLogging provider written the way Windows programs
 * write them, compiled unchanged against libetw:
 *
 *   cc demo_provider.c $(pkg-config --cflags --libs libetw)
 *
 * It registers "Etw-Demo-Provider" (GUID b319fc6b-770f-5ef8-63e0-
 * 0870a8f92b03, the EventSource name hash of its name, printed at start),
 * waits for a session to enable it (or --no-wait), then writes a request
 * with an activity: a Request start, work events at several levels and
 * keywords, and a Request stop, the start and stop carrying the activity
 * and its parent as related activity.  Every event is self-describing:
 * consumers see the provider's name, the event's name and named fields.
 * Each query scans rows in memory: the CPU a profile of it shows.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <windows.h>
#include <evntprov.h>
#include <evntrace.h>
#include <TraceLoggingProvider.h>

#define KW_REQUEST	0x1ULL
#define KW_DATABASE	0x2ULL
#define KW_CACHE	0x4ULL

TRACELOGGING_DEFINE_PROVIDER(demo_provider, "Etw-Demo-Provider",
	(0xb319fc6b, 0x770f, 0x5ef8, 0x63, 0xe0, 0x08, 0x70, 0xa8, 0xf9, 0x2b,
	 0x03));

static volatile LONG enabled;

static void NTAPI on_enable(LPCGUID source, ULONG is_enabled, UCHAR level,
			    ULONGLONG any, ULONGLONG all,
			    PEVENT_FILTER_DESCRIPTOR filter, PVOID ctx)
{
	(void)source; (void)filter; (void)ctx;
	printf("demo_provider: callback: %s level=%u any=0x%llx all=0x%llx\n",
	       is_enabled == EVENT_CONTROL_CODE_ENABLE_PROVIDER ? "enable" :
	       is_enabled == EVENT_CONTROL_CODE_DISABLE_PROVIDER ? "disable" :
	       "capture-state", level, (unsigned long long)any,
	       (unsigned long long)all);
	fflush(stdout);
	enabled = is_enabled != EVENT_CONTROL_CODE_DISABLE_PROVIDER;
}

/*
 * A query's work: a checksum over the rows it scans, CPU time that a
 * kernel logger's PROFILE samples see.
 */
static UINT32 scan_rows(UINT32 rows)
{
	static UINT32 table[4096];
	UINT32 sum = 0, r, i;

	for (r = 0; r < rows; r++)
		for (i = 0; i < 4096; i++)
			sum = sum * 31 + (table[i] ^ r);
	return sum;
}

static volatile UINT32 checksum;

static void run_query(const GUID *activity, const char *query, UINT32 row)
{
	checksum += scan_rows(10000);
	TraceLoggingWriteActivity(demo_provider, "QueryRun", activity, NULL,
		TraceLoggingLevel(WINEVENT_LEVEL_VERBOSE),
		TraceLoggingKeyword(KW_DATABASE),
		TraceLoggingString(query, "query"),
		TraceLoggingUInt32(row, "row"));
}

int main(int argc, char **argv)
{
	int wait = !(argc > 1 && !strcmp(argv[1], "--no-wait"));
	const GUID *id = TraceLoggingProviderId(demo_provider);
	GUID parent, activity;
	HRESULT hr;
	UINT32 i;

	hr = TraceLoggingRegisterEx(demo_provider, on_enable, NULL);
	if (hr) {
		fprintf(stderr, "demo_provider: TraceLoggingRegister failed: "
			"0x%08x\n", (unsigned int)hr);
		return 1;
	}
	printf("demo_provider: registered {%08x-%04x-%04x-...}\n",
	       id->Data1, id->Data2, id->Data3);
	fflush(stdout);
	for (i = 0; wait && !enabled && i < 100; i++)
		usleep(50000);

	TraceLoggingWrite(demo_provider, "Starting",
		TraceLoggingLevel(WINEVENT_LEVEL_LOG_ALWAYS),
		TraceLoggingString("demo provider starting", "message"));
	TraceLoggingWrite(demo_provider, "Banner",
		TraceLoggingLevel(WINEVENT_LEVEL_LOG_ALWAYS),
		TraceLoggingString("banner", "text"),
		TraceLoggingPid(getpid(), "pid"));

	/* The request's activity, child of the thread's current one. */
	EventActivityIdControl(EVENT_ACTIVITY_CTRL_CREATE_ID, &parent);
	EventActivityIdControl(EVENT_ACTIVITY_CTRL_SET_ID, &parent);
	EventActivityIdControl(EVENT_ACTIVITY_CTRL_CREATE_ID, &activity);

	TraceLoggingWriteActivity(demo_provider, "Request", &activity, &parent,
		TraceLoggingOpcode(WINEVENT_OPCODE_START),
		TraceLoggingLevel(WINEVENT_LEVEL_INFO),
		TraceLoggingKeyword(KW_REQUEST),
		TraceLoggingString("GET", "method"),
		TraceLoggingString("/orders", "path"),
		TraceLoggingUInt32(42, "orderId"));
	for (i = 0; i < 3; i++)
		run_query(&activity, "SELECT * FROM orders", i);
	TraceLoggingWriteActivity(demo_provider, "CacheMiss", &activity, NULL,
		TraceLoggingLevel(WINEVENT_LEVEL_WARNING),
		TraceLoggingKeyword(KW_CACHE),
		TraceLoggingString("orders:42", "key"));
	TraceLoggingWriteActivity(demo_provider, "SlowQuery", &activity, NULL,
		TraceLoggingLevel(WINEVENT_LEVEL_ERROR),
		TraceLoggingKeyword(KW_DATABASE),
		TraceLoggingString("SELECT * FROM orders", "query"),
		TraceLoggingUInt32(1500, "durationMs"),
		TraceLoggingFloat64(1.5, "thresholdRatio"));
	TraceLoggingWriteActivity(demo_provider, "Request", &activity, &parent,
		TraceLoggingOpcode(WINEVENT_OPCODE_STOP),
		TraceLoggingLevel(WINEVENT_LEVEL_INFO),
		TraceLoggingKeyword(KW_REQUEST),
		TraceLoggingUInt32(200, "status"),
		TraceLoggingBoolean(TRUE, "cached"));

	printf("demo_provider: wrote the request's events\n");
	TraceLoggingUnregister(demo_provider);
	return 0;
}
