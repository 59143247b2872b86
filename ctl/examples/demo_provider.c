// SPDX-License-Identifier: MIT
/*
 * demo_provider: a provider written the way Windows programs write them,
 * compiled unchanged against libetw:
 *
 *   cc demo_provider.c $(pkg-config --cflags --libs libetw)
 *
 * It registers "Etw-Demo-Provider" (GUID from the EventSource name hash,
 * 3a8b6f4e-... printed at start), waits for a session to enable it (or
 * --no-wait), then writes a request with an activity: a Start event, work
 * events at several levels and keywords, and a Stop event, with the Start
 * and Stop carrying the activity and its parent as related activity.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <windows.h>
#include <evntprov.h>
#include <evntrace.h>

#define KW_REQUEST	0x1ULL
#define KW_DATABASE	0x2ULL
#define KW_CACHE	0x4ULL

/* id, version, channel, level, opcode, task, keyword */
static const EVENT_DESCRIPTOR RequestStart = { 1, 0, 0, 4, 1, 1, KW_REQUEST };
static const EVENT_DESCRIPTOR QueryRun = { 2, 0, 0, 5, 0, 2, KW_DATABASE };
static const EVENT_DESCRIPTOR CacheMiss = { 3, 0, 0, 3, 0, 3, KW_CACHE };
static const EVENT_DESCRIPTOR SlowQuery = { 4, 0, 0, 2, 0, 2, KW_DATABASE };
static const EVENT_DESCRIPTOR RequestStop = { 5, 0, 0, 4, 2, 1, KW_REQUEST };
static const EVENT_DESCRIPTOR Banner = { 6, 0, 0, 0, 0, 0, 0 };

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

static ULONG write_text(REGHANDLE h, PCEVENT_DESCRIPTOR d, LPCGUID act,
			LPCGUID related, const char *text, ULONG number)
{
	EVENT_DATA_DESCRIPTOR data[2];

	EventDataDescCreate(&data[0], text, (ULONG)strlen(text) + 1);
	EventDataDescCreate(&data[1], &number, sizeof(number));
	return EventWriteTransfer(h, d, act, related, 2, data);
}

int main(int argc, char **argv)
{
	int wait = !(argc > 1 && !strcmp(argv[1], "--no-wait"));
	GUID provider, parent, activity;
	REGHANDLE h = 0;
	ULONG err;
	int i;

	err = EtwProviderGuidFromName("Etw-Demo-Provider", &provider);
	if (!err)
		err = EventRegister(&provider, on_enable, NULL, &h);
	if (err) {
		fprintf(stderr, "demo_provider: EventRegister failed: %lu\n",
			(unsigned long)err);
		return 1;
	}
	printf("demo_provider: registered {%08x-%04x-%04x-...}\n",
	       provider.Data1, provider.Data2, provider.Data3);
	fflush(stdout);
	for (i = 0; wait && !enabled && i < 100; i++)
		usleep(50000);

	EventWriteString(h, 0, 0, u"demo provider starting");
	write_text(h, &Banner, NULL, NULL, "banner", 0);

	/* The request's activity, child of the thread's current one. */
	EventActivityIdControl(EVENT_ACTIVITY_CTRL_CREATE_ID, &parent);
	EventActivityIdControl(EVENT_ACTIVITY_CTRL_SET_ID, &parent);
	EventActivityIdControl(EVENT_ACTIVITY_CTRL_CREATE_ID, &activity);

	write_text(h, &RequestStart, &activity, &parent, "GET /orders", 42);
	for (i = 0; i < 3; i++)
		write_text(h, &QueryRun, &activity, NULL, "SELECT * FROM orders", i);
	write_text(h, &CacheMiss, &activity, NULL, "orders:42", 1);
	write_text(h, &SlowQuery, &activity, NULL, "SELECT * FROM orders", 1500);
	write_text(h, &RequestStop, &activity, &parent, "200 OK", 200);

	printf("demo_provider: wrote the request's events\n");
	EventUnregister(h);
	return 0;
}
