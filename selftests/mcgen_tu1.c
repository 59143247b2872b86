// SPDX-License-Identifier: GPL-2.0
/*
 * First provider unit of mcgen_test (C) and mcgen_cxx_test (C++17):
 * registers the mc.exe-shaped provider and writes three of its events with
 * the header's default helpers (EventRegister, EventWriteTransfer).
 * FileOpened's win:UnicodeString template takes L"..." strings and calls
 * wcslen on them: the unit is built with -fshort-wchar, as on Windows
 * wchar_t is 16 bits.
 */
#include "mcgen_provider.h"
#include "mcgen_events.h"
#include "mcgen_view.h"

ULONG mcgen_register(void)
{
	return EventRegisterEtw_Test_McGen();
}

/* What EventRegister<Provider>() is for a provider without traits. */
ULONG mcgen_register_plain(void)
{
	return McGenEventRegister(&ETW_TEST_MCGEN, McGenControlCallbackV2,
				  &ETW_TEST_MCGEN_Context,
				  &Etw_Test_McGenHandle);
}

ULONG mcgen_unregister(void)
{
	return EventUnregisterEtw_Test_McGen();
}

ULONG mcgen_write_start(const GUID *activity, const char *name,
			unsigned int size)
{
	return EventWriteTransferStart(activity, name, size);
}

ULONG mcgen_write_heartbeat(const GUID *activity)
{
	return EventWriteHeartbeat(activity);
}

ULONG mcgen_write_file(const GUID *activity, PCWSTR path, UINT flags)
{
	return EventWriteFileOpened(activity, path, flags);
}

/* What ETW does on an enable or a disable, without a session. */
void mcgen_callback(ULONG code, UCHAR level, ULONGLONG any, ULONGLONG all)
{
	McGenControlCallbackV2(NULL, code, level, any, all, NULL,
			       &ETW_TEST_MCGEN_Context);
}

void mcgen_tu1_view(struct mcgen_view *v)
{
	mcgen_fill_view(v);
}
