/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lttng_bench_tp.h: the LTTng-UST tracepoint lttng_bench writes, a byte
 * sequence of the payload's length, as etw's events carry their payload.
 */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER etw_bench

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "./lttng_bench_tp.h"

#if !defined(ETW_LTTNG_BENCH_TP_H) || \
	defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define ETW_LTTNG_BENCH_TP_H

#include <stdint.h>
#include <lttng/tracepoint.h>

LTTNG_UST_TRACEPOINT_EVENT(etw_bench, payload,
	LTTNG_UST_TP_ARGS(const uint8_t *, data, unsigned int, len),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_sequence(uint8_t, data, data, unsigned int,
					 len)
	)
)

#endif

#include <lttng/tracepoint-event.h>
