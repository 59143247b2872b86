// SPDX-License-Identifier: GPL-2.0
/*
 * etw_trace.c - defines the tracepoints of etw_trace.h, once for the module.
 */
#include "etw_buffer.h"

#define CREATE_TRACE_POINTS
#include "etw_trace.h"

/* The KUnit module inlines etw_buffer.h's helpers, which fire etw_write. */
#if IS_ENABLED(CONFIG_KUNIT)
EXPORT_TRACEPOINT_SYMBOL_GPL(etw_write);
#endif
