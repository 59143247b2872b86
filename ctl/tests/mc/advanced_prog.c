// SPDX-License-Identifier: GPL-2.0
/*
 * A provider in the shape of Microsoft's Advanced provider sample, on the
 * header "etwctl mc -um" writes for advanced.man: it registers, writes
 * each event once, with the argument lists mc.exe gives them, and
 * unregisters.  Built as C and as C++ by mc_test.c.
 */
#include "mc_hooks.h"
#include "advanced_events.h"

struct adv_point {
	INT32 x, y;
};

int main(void)
{
	static const UCHAR everyone[12] = { 1, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0 };
	static const WCHAR words[] = L"ab\0cde";
	static const BYTE mac[3] = { 0xde, 0xad, 0x01 };
	static const BYTE blob[2] = { 0x7f, 0x80 };
	static const INT32 values[3] = { 7, -8, 9 };
	static const struct adv_point pts[2] = { { 1, -2 }, { 3, 4 } };
	/* char is unsigned on arm64: the casts keep C++ from narrowing. */
	const char bytes[4] = { 1, (char)-1, 2, (char)-2 };
	FILETIME ft = { 0x5e1c6400, 0x01d9b5c0 };
	SYSTEMTIME st = { 2024, 2, 4, 29, 13, 14, 15, 16 };

	if (EventRegisterEtw_Test_Mc_Advanced() != ERROR_SUCCESS)
		return 1;
	EventWriteAdvInt8(-5);
	EventWriteAdvUInt8Hex(0xab);
	EventWriteAdvInt16(-300);
	EventWriteAdvUInt16(65000);
	EventWriteAdvUInt32Map(AdvState_Bad);
	EventWriteAdvInt64(-5000000000LL);
	EventWriteAdvUInt64Hex(0x1234567890abcdefULL);
	EventWriteAdvDouble(-0.25);
	EventWriteAdvPointer((const void *)(ULONG_PTR)0x1000);
	EventWriteAdvFileTime(&ft);
	EventWriteAdvSystemTime(&st);
	EventWriteAdvSid((const SID *)everyone);
	EventWriteAdvAnsi("ansi text");
	EventWriteAdvFixedUnicode(L"ABCDE");
	EventWriteAdvFixedAnsi("WXYZ");
	EventWriteAdvFixedBinary(mac);
	EventWriteAdvParamUnicode(3, L"xyz");
	EventWriteAdvParamBinary(2, blob);
	EventWriteAdvFixedCountInt8(bytes);
	EventWriteAdvFixedCountUnicode(7, words);
	EventWriteAdvParamCountInt32(3, values);
	EventWriteAdvFixedCountFixedAnsi("abcdef");
	EventWriteAdvStruct(0x4242, sizeof(pts[0]), pts);
	EventWriteAdvBitMap(AdvColor_Red | 4);
	EventWriteAdvNoPayload();
	EventWriteAdvWinmetaKeywords(7);
	return EventUnregisterEtw_Test_Mc_Advanced() == ERROR_SUCCESS ? 0 : 1;
}
