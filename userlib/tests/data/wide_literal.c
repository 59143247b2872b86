/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * L"..." passed straight to each guarded W function, for wide_test.c: it
 * compiles with -fshort-wchar; without, C++ must stop at every call with
 * the message that names the flag (GUARDED_CALLS of them).
 */
#include <evntrace.h>

ULONG wide_literal_calls(PEVENT_TRACE_PROPERTIES p);

ULONG wide_literal_calls(PEVENT_TRACE_PROPERTIES p)
{
	TRACEHANDLE reg;
	CONTROLTRACE_ID h;

	return StartTraceW(&h, L"a", p) |
	       ControlTraceW(0, L"b", p, EVENT_TRACE_CONTROL_QUERY) |
	       StopTraceW(0, L"c", p) | QueryTraceW(0, L"d", p) |
	       UpdateTraceW(0, L"e", p) | FlushTraceW(0, L"f", p) |
	       RegisterTraceGuidsW(NULL, NULL, NULL, 0, NULL, L"g", NULL,
				   &reg) |
	       RegisterTraceGuidsW(NULL, NULL, NULL, 0, NULL, NULL, L"h",
				   &reg) |
	       EventWriteString(0, 4, 0, L"i");
}
