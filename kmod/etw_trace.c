// SPDX-License-Identifier: GPL-2.0
/*
 * etw_trace.c - defines the tracepoints of etw_trace.h, once for the module.
 */
#define CREATE_TRACE_POINTS
#include "etw_trace.h"
