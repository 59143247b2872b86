// SPDX-License-Identifier: GPL-2.0
/*
 * A provider in the shape of Microsoft's Simple provider sample, on the
 * header "etwctl mc -um" writes for simple.man: it registers, writes each
 * event once and unregisters.  Built as C and as C++ by mc_test.c.
 */
#include "mc_hooks.h"
#include "simple_events.h"

int main(void)
{
	ULONG status = EventRegisterEtw_Test_Mc_Simple();

	if (status != ERROR_SUCCESS)
		return 1;
	EventWriteSimpleCount(-3);
	EventWriteSimpleRatio(2.5f);
	EventWriteSimpleFlag(TRUE);
	EventWriteSimpleText(L"Sample \u00e9");
	EventWriteSimpleId(&ETW_TEST_MC_SIMPLE);
	return EventUnregisterEtw_Test_Mc_Simple() == ERROR_SUCCESS ? 0 : 1;
}
