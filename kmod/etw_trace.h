/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The routing core's tracepoints, in tracefs under events/etw: what perf,
 * ftrace, bpftrace and etwctl top see.  Each is behind a static key, so
 * the write path pays nothing for them while they are off.
 *
 * The records' layouts are ABI for etwctl top, which checks them against
 * each event's format file (ctl/top_layout.c): a field changed here must
 * change there too.
 *
 * Included by etw_buffer.h, whose helpers fire etw_write and etw_lost for
 * every producer; etw_trace.c includes etw_buffer.h before defining them,
 * for struct etw_buffer.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM etw

#if !defined(_ETW_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _ETW_TRACE_H

#include <linux/tracepoint.h>

#include "compat.h"
#include "etw_internal.h"

struct etw_buffer;

/*
 * One record written to one session: once per target session, before its
 * commit (etw_record_written(), etw_buffer_commit_run()).  @provider: the
 * registration's GUID, SystemTraceControlGuid for the kernel logger's
 * records; @id: the event id, the kernel logger's hook id (group << 8 |
 * type); @size: the record's, header and extended items included.
 */
TRACE_EVENT(etw_write,
	    TP_PROTO(const struct etw_session *s,
		     const struct etw_guid *provider, u16 id, u16 size),
	    TP_ARGS(s, provider, id, size),
	    TP_STRUCT__entry(__field(u32, logger_id)
			     __field(u16, event_id)
			     __field(u16, size)
			     __array(u8, provider, sizeof(struct etw_guid))),
	    TP_fast_assign(__entry->logger_id = s->logger_id;
			   __entry->event_id = id;
			   __entry->size = size;
			   memcpy(__entry->provider, provider, sizeof(*provider));),
	    TP_printk("session=%u provider=%pUl id=%u size=%u",
		      __entry->logger_id, __entry->provider, __entry->event_id,
		      __entry->size)
);

/*
 * One event a session lost, counted once the write will not be retried
 * (etw_record_lost()); @provider and @id as for etw_write.  @error: the
 * write's result, the first failure among its sessions: -ENOBUFS (no free
 * buffer), -EMSGSIZE (larger than a buffer), -E2BIG (too large with the
 * session's extended items); the kernel logger's -EBUSY: it could not
 * take an address space's lock to record its images.
 */
TRACE_EVENT(etw_lost,
	    TP_PROTO(const struct etw_session *s,
		     const struct etw_guid *provider, u16 id, int error),
	    TP_ARGS(s, provider, id, error),
	    TP_STRUCT__entry(__field(u32, logger_id)
			     __field(s32, error)
			     __array(u8, provider, sizeof(struct etw_guid))
			     __field(u16, event_id)),
	    TP_fast_assign(__entry->logger_id = s->logger_id;
			   __entry->error = error;
			   memcpy(__entry->provider, provider, sizeof(*provider));
			   __entry->event_id = id;),
	    TP_printk("session=%u provider=%pUl id=%u error=%d",
		      __entry->logger_id, __entry->provider, __entry->event_id,
		      __entry->error)
);

/* A buffer taken off its stream and sealed: no more reservations in it. */
TRACE_EVENT(etw_buffer_seal,
	    TP_PROTO(const struct etw_session *s, const struct etw_buffer *b,
		     u64 state),
	    TP_ARGS(s, b, state),
	    TP_STRUCT__entry(__field(u32, logger_id)
			     __field(u32, cpu)
			     __field(u64, seq)
			     __field(u32, bytes)
			     __field(u32, events)),
	    TP_fast_assign(__entry->logger_id = s->logger_id;
			   __entry->cpu = b->cpu;
			   __entry->seq = b->seq;
			   __entry->bytes = (state & ETW_BS_OFF_MASK) * 8;
			   __entry->events = (state & ETW_BS_EV_MASK) / ETW_BS_EV_ONE;),
	    TP_printk("session=%u cpu=%u seq=%llu bytes=%u events=%u",
		      __entry->logger_id, __entry->cpu, __entry->seq,
		      __entry->bytes, __entry->events)
);

/* A finished buffer queued for the session's consumers. */
TRACE_EVENT(etw_buffer_deliver,
	    TP_PROTO(const struct etw_session *s, const struct etw_buffer *b,
		     const struct etw_buffer_header *h),
	    TP_ARGS(s, b, h),
	    TP_STRUCT__entry(__field(u32, logger_id)
			     __field(u32, cpu)
			     __field(u64, seq)
			     __field(u32, bytes)
			     __field(u32, events)
			     __field(u32, lost)),
	    TP_fast_assign(__entry->logger_id = s->logger_id;
			   __entry->cpu = b->cpu;
			   __entry->seq = b->seq;
			   __entry->bytes = h->saved_offset;
			   __entry->events = h->events;
			   __entry->lost = h->events_lost;),
	    TP_printk("session=%u cpu=%u seq=%llu bytes=%u events=%u lost=%u",
		      __entry->logger_id, __entry->cpu, __entry->seq,
		      __entry->bytes, __entry->events, __entry->lost)
);

/* An enable, disable or capture-state request and its result. */
TRACE_EVENT(etw_enable,
	    TP_PROTO(const struct etw_session *s, const struct etw_enable_args *a,
		     int ret),
	    TP_ARGS(s, a, ret),
	    TP_STRUCT__entry(__field(u32, logger_id)
			     __field(u32, control_code)
			     __field(u32, properties)
			     __field(s32, ret)
			     __field(u64, match_any)
			     __field(u64, match_all)
			     __array(u8, provider, sizeof(struct etw_guid))
			     __field(u8, level)),
	    TP_fast_assign(__entry->logger_id = s->logger_id;
			   __entry->control_code = a->control_code;
			   __entry->properties = a->properties;
			   __entry->ret = ret;
			   __entry->match_any = a->match_any;
			   __entry->match_all = a->match_all;
			   memcpy(__entry->provider, &a->guid, sizeof(a->guid));
			   __entry->level = a->level;),
	    TP_printk("session=%u provider=%pUl control=%s level=%u any=0x%llx all=0x%llx properties=0x%x ret=%d",
		      __entry->logger_id, __entry->provider,
		      __print_symbolic(__entry->control_code,
				       { ETW_CONTROL_DISABLE, "disable" },
				       { ETW_CONTROL_ENABLE, "enable" },
				       { ETW_CONTROL_CAPTURE_STATE, "capture" }),
		      __entry->level, __entry->match_any, __entry->match_all,
		      __entry->properties, __entry->ret)
);

/* A session started. */
TRACE_EVENT(etw_session_start,
	    TP_PROTO(const struct etw_session *s),
	    TP_ARGS(s),
	    TP_STRUCT__entry(__field(u32, logger_id)
			     __field(u32, mode)
			     __field(u32, buffer_bytes)
			     __field(u32, max_buffers)
			     __string(name, s->name)),
	    TP_fast_assign(__entry->logger_id = s->logger_id;
			   __entry->mode = s->cfg.mode;
			   __entry->buffer_bytes = s->buf_bytes;
			   __entry->max_buffers = s->cfg.max_buffers;
			   etw_assign_str(name, s->name);),
	    TP_printk("session=%u name=%s mode=0x%x buffer=%u buffers=%u",
		      __entry->logger_id, __get_str(name), __entry->mode,
		      __entry->buffer_bytes, __entry->max_buffers)
);

/* A session stopped: its last buffers are delivered, its counts final. */
TRACE_EVENT(etw_session_stop,
	    TP_PROTO(struct etw_session *s),
	    TP_ARGS(s),
	    TP_STRUCT__entry(__field(u32, logger_id)
			     __field(u64, events_written)
			     __field(u64, events_lost)
			     __field(u64, buffers_written)),
	    TP_fast_assign(__entry->logger_id = s->logger_id;
			   __entry->events_written = atomic64_read(&s->events_written);
			   __entry->events_lost = atomic64_read(&s->events_lost);
			   __entry->buffers_written = atomic64_read(&s->buffers_written);),
	    TP_printk("session=%u written=%llu lost=%llu buffers=%llu",
		      __entry->logger_id, __entry->events_written,
		      __entry->events_lost, __entry->buffers_written)
);

#endif /* _ETW_TRACE_H */

/* Out of tree: define_trace.h finds this file through -I$(src). */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE etw_trace
#include <trace/define_trace.h>
