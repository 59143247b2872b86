// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * A second translation unit, in C++, that writes through a provider
 * defined in C elsewhere: TRACELOGGING_DECLARE_PROVIDER must name the
 * same object across translation units and languages.
 */
#include "tracelogging_double.h"

#include <TraceLoggingProvider.h>

#include "tracelogging_events.h"

TRACELOGGING_DECLARE_PROVIDER(tle_run_c_provider);

int tle_run_other_tu(struct tle_capture *c)
{
	TLE_INTEGERS(tle_run_c_provider);
	tle_capture_last(c);
	return 0;
}
