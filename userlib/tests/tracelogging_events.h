/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * The interface of tracelogging_events.c, which writes one event per
 * group of TraceLogging field macros through the test double and is
 * compiled as C and as C++ (TLE_SUFFIX names each build's functions).
 */
#ifndef _TRACELOGGING_EVENTS_H
#define _TRACELOGGING_EVENTS_H

#include <windows.h>
#include <evntprov.h>

#define TLE_MAX		4096

/* What one write handed to the provider API. */
struct tle_capture {
	EVENT_DESCRIPTOR desc;
	int writes;
	ULONG prov_len;
	ULONG meta_len;
	ULONG payload_len;
	UCHAR prov[TLE_MAX];
	UCHAR meta[TLE_MAX];
	UCHAR payload[TLE_MAX];
};

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Write event @i into @c; its decoded fields should read *@expect
 * ("name=value ...", strings in quotes).  Returns 0, or -1 past the
 * last event.
 */
int tle_run_c(int i, struct tle_capture *c, const char **expect);
int tle_run_cxx(int i, struct tle_capture *c, const char **expect);
int tle_run_clang(int i, struct tle_capture *c, const char **expect);
int tle_run_clangxx(int i, struct tle_capture *c, const char **expect);

#ifdef __cplusplus
}
#endif

#endif /* _TRACELOGGING_EVENTS_H */
