// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * etw_win32_module.c - LoadLibrary, GetModuleHandle, GetProcAddress and
 * FreeLibrary for the Windows DLLs whose functions libetw has: tdh.dll
 * and advapi32.dll.
 * Code written for several Windows versions loads them and looks its
 * functions up by name (TdhFormatProperty, EventSetInformation); here
 * they are libetw's own.  The modules are part of libetw, so they are
 * always loaded and never unloaded; the tables are constant, so every
 * function is thread-safe.
 */
#include <string.h>
#include <strings.h>

#include <windows.h>
#include <evntprov.h>
#include <evntrace.h>
#include <sddl.h>
#include <tdh.h>

struct etw_export {
	const char *name;
	FARPROC proc;
};

struct etw_module {
	const char *name;	/* lower case, with its extension */
	const struct etw_export *exports;
	size_t count;
};

/* Through void (*)(void), the type GCC lets any function pointer become. */
#define EXPORT(f)	{ #f, (FARPROC)(void (*)(void))f }

static const struct etw_export tdh_exports[] = {
	EXPORT(TdhAggregatePayloadFilters),
	EXPORT(TdhCleanupPayloadEventFilterDescriptor),
	EXPORT(TdhCloseDecodingHandle),
	EXPORT(TdhCreatePayloadFilter),
	EXPORT(TdhDeletePayloadFilter),
	EXPORT(TdhEnumerateProviderFieldInformation),
	EXPORT(TdhEnumerateProviderFilters),
	EXPORT(TdhEnumerateProviders),
	EXPORT(TdhEnumerateProvidersForDecodingSource),
	EXPORT(TdhFormatProperty),
	EXPORT(TdhGetDecodingParameter),
	EXPORT(TdhGetEventInformation),
	EXPORT(TdhGetEventMapInformation),
	EXPORT(TdhGetManifestEventInformation),
	EXPORT(TdhGetProperty),
	EXPORT(TdhGetPropertySize),
	EXPORT(TdhGetWppMessage),
	EXPORT(TdhGetWppProperty),
	EXPORT(TdhLoadManifest),
	EXPORT(TdhLoadManifestFromBinary),
	EXPORT(TdhLoadManifestFromMemory),
	EXPORT(TdhOpenDecodingHandle),
	EXPORT(TdhQueryProviderFieldInformation),
	EXPORT(TdhSetDecodingParameter),
	EXPORT(TdhUnloadManifest),
	EXPORT(TdhUnloadManifestFromMemory),
};

static const struct etw_export advapi32_exports[] = {
	EXPORT(CloseTrace),
	EXPORT(ControlTraceA),
	EXPORT(ControlTraceW),
	EXPORT(ConvertSidToStringSidA),
	EXPORT(ConvertSidToStringSidW),
	EXPORT(CreateTraceInstanceId),
	EXPORT(CreateWellKnownSid),
	EXPORT(EnableTrace),
	EXPORT(EnableTraceEx),
	EXPORT(EnableTraceEx2),
	EXPORT(EnumerateTraceGuids),
	EXPORT(EnumerateTraceGuidsEx),
	EXPORT(EqualSid),
	EXPORT(EventActivityIdControl),
	EXPORT(EventEnabled),
	EXPORT(EventProviderEnabled),
	EXPORT(EventRegister),
	EXPORT(EventSetInformation),
	EXPORT(EventUnregister),
	EXPORT(EventWrite),
	EXPORT(EventWriteEx),
	EXPORT(EventWriteString),
	EXPORT(EventWriteTransfer),
	EXPORT(FlushTraceA),
	EXPORT(FlushTraceW),
	EXPORT(GetLengthSid),
	EXPORT(GetTraceEnableFlags),
	EXPORT(GetTraceEnableLevel),
	EXPORT(GetTraceLoggerHandle),
	EXPORT(IsValidSid),
	EXPORT(LookupAccountSidA),
	EXPORT(LookupAccountSidW),
	EXPORT(OpenTraceA),
	EXPORT(OpenTraceW),
	EXPORT(ProcessTrace),
	EXPORT(QueryAllTracesA),
	EXPORT(QueryAllTracesW),
	EXPORT(QueryTraceA),
	EXPORT(QueryTraceW),
	EXPORT(RegisterTraceGuidsA),
	EXPORT(RegisterTraceGuidsW),
	EXPORT(StartTraceA),
	EXPORT(StartTraceW),
	EXPORT(StopTraceA),
	EXPORT(StopTraceW),
	EXPORT(TraceEvent),
	EXPORT(TraceEventInstance),
	EXPORT(TraceMessage),
	EXPORT(TraceMessageVa),
	EXPORT(TraceQueryInformation),
	EXPORT(TraceSetInformation),
	EXPORT(UnregisterTraceGuids),
	EXPORT(UpdateTraceA),
	EXPORT(UpdateTraceW),
};

static const struct etw_module modules[] = {
	{ "tdh.dll", tdh_exports, ARRAYSIZE(tdh_exports) },
	{ "advapi32.dll", advapi32_exports, ARRAYSIZE(advapi32_exports) },
};

/*
 * The module a name means, as LoadLibrary resolves it: any directory is
 * ignored, the case too, and a name without an extension gets ".dll"
 * (a trailing dot means no extension at all).
 */
static const struct etw_module *module_find(const char *path)
{
	const char *base = path, *p;
	char name[MAX_PATH];
	size_t len, i;

	for (p = path; *p; p++)
		if (*p == '\\' || *p == '/')
			base = p + 1;
	len = strlen(base);
	if (!len || len >= sizeof(name) - 4)
		return NULL;
	memcpy(name, base, len + 1);
	if (name[len - 1] == '.')
		name[len - 1] = 0;
	else if (!strchr(name, '.'))
		memcpy(name + len, ".dll", 5);
	for (i = 0; i < ARRAYSIZE(modules); i++)
		if (!strcasecmp(name, modules[i].name))
			return &modules[i];
	return NULL;
}

/* WCHAR to ASCII; any other unit becomes '?', which no module name has. */
static int ascii_from_wide(LPCWSTR w, char *out, size_t size)
{
	size_t i;

	for (i = 0; w[i]; i++) {
		if (i + 1 >= size)
			return -1;
		out[i] = w[i] < 0x80 ? (char)w[i] : '?';
	}
	out[i] = 0;
	return 0;
}

static HMODULE module_load(const char *name)
{
	const struct etw_module *m;

	if (!name) {
		SetLastError(ERROR_INVALID_PARAMETER);
		return NULL;
	}
	m = module_find(name);
	if (!m) {
		SetLastError(ERROR_MOD_NOT_FOUND);
		return NULL;
	}
	return (HMODULE)m;
}

static HMODULE module_load_w(LPCWSTR name)
{
	char a[MAX_PATH];

	if (!name) {
		SetLastError(ERROR_INVALID_PARAMETER);
		return NULL;
	}
	if (ascii_from_wide(name, a, sizeof(a))) {
		SetLastError(ERROR_MOD_NOT_FOUND);
		return NULL;
	}
	return module_load(a);
}

/* GetModuleHandle(NULL)'s: the program, whose functions are not known. */
static const struct etw_module program = { "", NULL, 0 };

static const struct etw_module *module_of(HMODULE h)
{
	size_t i;

	if (h == (HMODULE)&program)
		return &program;
	for (i = 0; i < ARRAYSIZE(modules); i++)
		if (h == (HMODULE)&modules[i])
			return &modules[i];
	return NULL;
}

HMODULE WINAPI LoadLibraryA(LPCSTR name)
{
	return module_load(name);
}

HMODULE WINAPI LoadLibraryW(LPCWSTR name)
{
	return module_load_w(name);
}

/* The modules are always loaded: GetModuleHandle is LoadLibrary. */
HMODULE WINAPI GetModuleHandleA(LPCSTR name)
{
	return name ? module_load(name) : (HMODULE)&program;
}

HMODULE WINAPI GetModuleHandleW(LPCWSTR name)
{
	return name ? module_load_w(name) : (HMODULE)&program;
}

/* By name only: the modules here have no ordinals. */
FARPROC WINAPI GetProcAddress(HMODULE h, LPCSTR name)
{
	const struct etw_module *m = module_of(h);
	size_t i;

	if (!m) {
		SetLastError(h ? ERROR_MOD_NOT_FOUND : ERROR_PROC_NOT_FOUND);
		return NULL;
	}
	if ((uintptr_t)name > 0xFFFF)
		for (i = 0; i < m->count; i++)
			if (!strcmp(name, m->exports[i].name))
				return m->exports[i].proc;
	SetLastError(ERROR_PROC_NOT_FOUND);
	return NULL;
}

BOOL WINAPI FreeLibrary(HMODULE h)
{
	if (!module_of(h)) {
		SetLastError(ERROR_MOD_NOT_FOUND);
		return FALSE;
	}
	return TRUE;
}
