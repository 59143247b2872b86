// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * etw_properties.c - EVENT_TRACE_PROPERTIES as StartTrace and ControlTrace
 * read and write it.  Pure functions, no device access, so that every
 * validation rule is testable on the host.
 *
 * The rules and their errors are Windows' (reference §3.2, §3.3 and the
 * Windows 11 observations of §10): lengths first (ERROR_BAD_LENGTH), then
 * offsets and mode combinations (ERROR_INVALID_PARAMETER), then the
 * missing destination (ERROR_BAD_PATHNAME).
 */
#include <string.h>
#include <strings.h>

#include "etw_controller.h"

#define ETW_PROPS_FILE_MODES	(EVENT_TRACE_FILE_MODE_SEQUENTIAL | \
	EVENT_TRACE_FILE_MODE_CIRCULAR | EVENT_TRACE_FILE_MODE_APPEND | \
	EVENT_TRACE_FILE_MODE_NEWFILE)
#define ETW_PROPS_KERNEL_MODES	(ETW_MODE_REAL_TIME | \
	ETW_MODE_BUFFERING | ETW_MODE_PRIVATE | ETW_MODE_INDEPENDENT | \
	ETW_MODE_NO_PER_PROCESSOR | ETW_MODE_SYSTEM_LOGGER)
/* The EnableFlags the kernel logger records. */
#define ETW_PROPS_KERNEL_FLAGS	(EVENT_TRACE_FLAG_PROCESS | \
	EVENT_TRACE_FLAG_THREAD | EVENT_TRACE_FLAG_IMAGE_LOAD | \
	EVENT_TRACE_FLAG_CSWITCH | EVENT_TRACE_FLAG_DISPATCHER | \
	EVENT_TRACE_FLAG_PROFILE | EVENT_TRACE_FLAG_SYSTEMCALL | \
	EVENT_TRACE_FLAG_MEMORY_PAGE_FAULTS)
#define ETW_PROPS_MAX_NAME	1024	/* characters, reference §3.2 */

/* SystemTraceControlGuid, without defining the SDK's symbols here. */
static const GUID etw_props_system_trace = { 0x9e814aad, 0x3204, 0x11d2,
	{ 0x9a, 0x82, 0x00, 0x60, 0x08, 0xa8, 0x69, 0x39 } };

/* Bytes of the fixed part: V2 when the caller says it passes V2. */
static size_t etw_props_fixed(const EVENT_TRACE_PROPERTIES *p)
{
	if (p->Wnode.Flags & WNODE_FLAG_VERSIONED_PROPERTIES)
		return sizeof(EVENT_TRACE_PROPERTIES_V2);
	return sizeof(EVENT_TRACE_PROPERTIES);
}

static ULONG etw_props_check_v2(const EVENT_TRACE_PROPERTIES *p)
{
	const EVENT_TRACE_PROPERTIES_V2 *v2 = (const void *)p;

	if (!(p->Wnode.Flags & WNODE_FLAG_VERSIONED_PROPERTIES))
		return ERROR_SUCCESS;
	if (v2->VersionNumber != 2)
		return ERROR_INVALID_PARAMETER;
	/* Filters at start are for system-wide private loggers only. */
	if (v2->FilterDescCount)
		return ERROR_NOT_SUPPORTED;
	return ERROR_SUCCESS;
}

/**
 * etw_props_file_name_offset - where the log file name is, if any
 * @p: properties whose BufferSize was checked
 * @char_size: 1 (A) or 2 (W)
 *
 * Return: LogFileNameOffset when it names a non-empty string that ends
 * inside Wnode.BufferSize, else 0.
 */
size_t etw_props_file_name_offset(const EVENT_TRACE_PROPERTIES *p,
				  unsigned int char_size)
{
	const uint8_t *base = (const uint8_t *)p;
	size_t off = p->LogFileNameOffset, i;
	uint16_t c;

	if (!off || off < etw_props_fixed(p) || off >= p->Wnode.BufferSize)
		return 0;
	for (i = off; i + char_size <= p->Wnode.BufferSize; i += char_size) {
		if (char_size == 1)
			c = base[i];
		else
			memcpy(&c, base + i, sizeof(c));
		if (!c)
			return i == off ? 0 : off;
	}
	return 0;
}

static ULONG etw_props_check_offsets(const EVENT_TRACE_PROPERTIES *p,
				     const struct etw_props_names *n)
{
	size_t fixed = etw_props_fixed(p);
	size_t name_end = (size_t)p->LoggerNameOffset + n->name_bytes;

	if (p->LoggerNameOffset && p->LoggerNameOffset < fixed)
		return ERROR_INVALID_PARAMETER;
	if (p->LogFileNameOffset && (p->LogFileNameOffset < fixed ||
				     p->LogFileNameOffset >=
				     p->Wnode.BufferSize))
		return ERROR_INVALID_PARAMETER;
	if (p->LoggerNameOffset && name_end > p->Wnode.BufferSize)
		return ERROR_BAD_LENGTH;
	if (p->LogFileNameOffset &&
	    !etw_props_file_name_offset(p, n->char_size) &&
	    *((const uint8_t *)p + p->LogFileNameOffset))
		return ERROR_INVALID_PARAMETER;	/* not terminated */
	/* The session name is copied in: it must not overwrite the file. */
	if (p->LoggerNameOffset && p->LogFileNameOffset &&
	    p->LogFileNameOffset < name_end &&
	    p->LoggerNameOffset <= p->LogFileNameOffset)
		return ERROR_INVALID_PARAMETER;
	return ERROR_SUCCESS;
}

static bool etw_props_has(ULONG mode, ULONG a, ULONG b)
{
	return (mode & a) && (mode & b);
}

static ULONG etw_props_check_modes(const EVENT_TRACE_PROPERTIES *p,
				   bool file)
{
	ULONG m = p->LogFileMode;

	if (etw_props_has(m, EVENT_TRACE_FILE_MODE_SEQUENTIAL,
			  EVENT_TRACE_FILE_MODE_CIRCULAR |
			  EVENT_TRACE_FILE_MODE_NEWFILE) ||
	    etw_props_has(m, EVENT_TRACE_FILE_MODE_CIRCULAR,
			  EVENT_TRACE_FILE_MODE_APPEND |
			  EVENT_TRACE_FILE_MODE_NEWFILE) ||
	    etw_props_has(m, EVENT_TRACE_FILE_MODE_APPEND,
			  EVENT_TRACE_REAL_TIME_MODE |
			  EVENT_TRACE_PRIVATE_LOGGER_MODE |
			  EVENT_TRACE_FILE_MODE_NEWFILE) ||
	    etw_props_has(m, EVENT_TRACE_BUFFERING_MODE,
			  EVENT_TRACE_REAL_TIME_MODE | ETW_PROPS_FILE_MODES) ||
	    etw_props_has(m, EVENT_TRACE_PRIVATE_LOGGER_MODE,
			  EVENT_TRACE_REAL_TIME_MODE |
			  EVENT_TRACE_INDEPENDENT_SESSION_MODE |
			  EVENT_TRACE_FILE_MODE_NEWFILE |
			  EVENT_TRACE_FILE_MODE_PREALLOCATE) ||
	    etw_props_has(m, EVENT_TRACE_USE_GLOBAL_SEQUENCE,
			  EVENT_TRACE_USE_LOCAL_SEQUENCE))
		return ERROR_INVALID_PARAMETER;
	if (!p->MaximumFileSize &&
	    (m & (EVENT_TRACE_FILE_MODE_CIRCULAR |
		  EVENT_TRACE_FILE_MODE_NEWFILE |
		  EVENT_TRACE_FILE_MODE_PREALLOCATE)))
		return ERROR_INVALID_PARAMETER;
	if (file && (m & EVENT_TRACE_BUFFERING_MODE))
		return ERROR_INVALID_PARAMETER;
	if (p->BufferSize > ETW_MAX_BUFFER_KB)
		return ERROR_INVALID_PARAMETER;
	return ERROR_SUCCESS;
}

/* NEWFILE names need one %d for the file number. */
static bool etw_props_has_number(const EVENT_TRACE_PROPERTIES *p, size_t off,
				 unsigned int char_size)
{
	const uint8_t *s = (const uint8_t *)p + off;
	uint16_t c, prev = 0;

	for (;; s += char_size, prev = c) {
		if (char_size == 1)
			c = *s;
		else
			memcpy(&c, s, sizeof(c));
		if (!c)
			return false;
		if (prev == '%' && c == 'd')
			return true;
	}
}

/**
 * etw_props_check_start - validate StartTrace's properties and name
 * @p: the caller's properties (NULL gives ERROR_INVALID_PARAMETER)
 * @names: the session name as the caller passed it
 *
 * Return: ERROR_SUCCESS or the Win32 error StartTrace returns.
 */
ULONG etw_props_check_start(const EVENT_TRACE_PROPERTIES *p,
			    const struct etw_props_names *names)
{
	size_t file;
	ULONG err;

	if (!p || !names->name_bytes || !names->name_chars)
		return ERROR_INVALID_PARAMETER;
	if (p->Wnode.BufferSize < etw_props_fixed(p) ||
	    names->name_chars > ETW_PROPS_MAX_NAME)
		return ERROR_BAD_LENGTH;
	err = etw_props_check_v2(p);
	if (!err)
		err = etw_props_check_offsets(p, names);
	if (err)
		return err;
	file = etw_props_file_name_offset(p, names->char_size);
	err = etw_props_check_modes(p, file != 0);
	if (err)
		return err;
	if (IsEqualGUID(&p->Wnode.Guid, &etw_props_system_trace) &&
	    !names->kernel_logger)
		return ERROR_INVALID_PARAMETER;
	if ((p->LogFileMode & EVENT_TRACE_FILE_MODE_NEWFILE) && file &&
	    !etw_props_has_number(p, file, names->char_size))
		return ERROR_INVALID_PARAMETER;
	if (!file && !(p->LogFileMode & (EVENT_TRACE_REAL_TIME_MODE |
					 EVENT_TRACE_BUFFERING_MODE)))
		return ERROR_BAD_PATHNAME;
	return ERROR_SUCCESS;
}

/**
 * etw_props_check_control - validate ControlTrace's properties
 * @p: the caller's properties
 *
 * Return: ERROR_INVALID_PARAMETER for NULL, ERROR_BAD_LENGTH when the
 * buffer cannot hold the struct, else ERROR_SUCCESS.
 */
ULONG etw_props_check_control(const EVENT_TRACE_PROPERTIES *p)
{
	if (!p)
		return ERROR_INVALID_PARAMETER;
	if (p->Wnode.BufferSize < sizeof(*p))
		return ERROR_BAD_LENGTH;
	if ((p->LoggerNameOffset && p->LoggerNameOffset < sizeof(*p)) ||
	    (p->LogFileNameOffset && p->LogFileNameOffset < sizeof(*p)))
		return ERROR_INVALID_PARAMETER;
	return ERROR_SUCCESS;
}

static uint32_t etw_props_mul_sat(uint32_t v, uint32_t mul)
{
	uint64_t r = (uint64_t)v * mul;

	return r > UINT32_MAX ? UINT32_MAX : (uint32_t)r;
}

/**
 * etw_props_to_config - the kernel's view of validated properties
 * @p: properties that passed etw_props_check_start()
 * @c: out: BufferSize (KiB), buffer counts, the flush timer in ms and the
 *	log-file-mode bits the kernel acts on
 */
void etw_props_to_config(const EVENT_TRACE_PROPERTIES *p,
			 struct etw_session_config *c)
{
	memset(c, 0, sizeof(*c));
	c->buffer_kb = p->BufferSize;
	c->min_buffers = p->MinimumBuffers;
	c->max_buffers = p->MaximumBuffers;
	if (p->LogFileMode & ETW_PROPS_MS_FLUSH_TIMER)
		c->flush_timer_ms = p->FlushTimer;
	else
		c->flush_timer_ms = etw_props_mul_sat(p->FlushTimer, 1000);
	c->mode = p->LogFileMode & ETW_PROPS_KERNEL_MODES;
}

/**
 * etw_props_kernel_flags - the kernel logger's EnableFlags for the kernel
 * @p: properties that passed etw_props_check_start()
 * @kernel_logger: the session is named KERNEL_LOGGER_NAME
 * @c: the config etw_props_to_config() filled; its enable_flags is set
 *
 * EnableFlags counts for a kernel logger (the name, or
 * EVENT_TRACE_SYSTEM_LOGGER_MODE) only, as on Windows.
 *
 * Return: ERROR_SUCCESS, or ERROR_NOT_SUPPORTED for a kernel logger flag
 * etw does not record (see libetw.rst).
 */
ULONG etw_props_kernel_flags(const EVENT_TRACE_PROPERTIES *p,
			     bool kernel_logger, struct etw_session_config *c)
{
	if (!kernel_logger && !(p->LogFileMode & EVENT_TRACE_SYSTEM_LOGGER_MODE))
		return ERROR_SUCCESS;
	if (p->EnableFlags & ~ETW_PROPS_KERNEL_FLAGS)
		return ERROR_NOT_SUPPORTED;
	c->enable_flags = p->EnableFlags;
	return ERROR_SUCCESS;
}

/**
 * etw_props_to_update - the arguments of an UPDATE
 * @p: the caller's properties
 * @a: in: the session as QUERY returned it; out: the UPDATE to pass
 *
 * UPDATE changes the flush timer, MaximumBuffers (0: unchanged) and
 * real-time delivery; of a kernel logger (its name, or
 * EVENT_TRACE_SYSTEM_LOGGER_MODE) also the flags: EnableFlags is the new
 * set, 0 turns every flag off, as on Windows.  Other sessions' EnableFlags
 * is ignored, as StartTrace ignores it.
 *
 * Return: ERROR_SUCCESS, or ERROR_NOT_SUPPORTED for a kernel logger flag
 * etw does not record (as StartTrace; see libetw.rst): then @a is unchanged.
 */
ULONG etw_props_to_update(const EVENT_TRACE_PROPERTIES *p,
			  struct etw_session_args *a)
{
	uint32_t mode = a->config.mode;
	bool kernel_logger = (mode & ETW_MODE_SYSTEM_LOGGER) ||
			     !strcasecmp(a->name, ETW_KERNEL_LOGGER_NAME);
	struct etw_session_config c;

	if (kernel_logger && (p->EnableFlags & ~ETW_PROPS_KERNEL_FLAGS))
		return ERROR_NOT_SUPPORTED;
	etw_props_to_config(p, &c);
	memset(&a->config, 0, sizeof(a->config));
	a->config.flush_timer_ms = c.flush_timer_ms;
	a->config.max_buffers = c.max_buffers;
	a->config.mode = (mode & ~ETW_MODE_REAL_TIME) |
			 (c.mode & ETW_MODE_REAL_TIME);
	a->flags = 0;
	if (kernel_logger) {
		a->flags = ETW_UPDATE_ENABLE_FLAGS;
		a->config.enable_flags = p->EnableFlags;
	}
	return ERROR_SUCCESS;
}

static ULONG etw_props_u32(uint64_t v)
{
	return v > UINT32_MAX ? UINT32_MAX : (ULONG)v;
}

/**
 * etw_props_from_args - write a session's state back into properties
 * @p: the caller's properties (fixed part only is written)
 * @a: the kernel's answer to START, QUERY, UPDATE, FLUSH or STOP
 *
 * The kernel-owned mode bits replace the caller's; file-mode bits the
 * caller passed are kept.  Wnode.HistoricalContext is the session handle.
 */
void etw_props_from_args(EVENT_TRACE_PROPERTIES *p,
			 const struct etw_session_args *a)
{
	const struct etw_session_config *c = &a->config;
	const struct etw_session_stats *s = &a->stats;

	p->Wnode.HistoricalContext = a->logger_id;
	p->BufferSize = c->buffer_kb;
	p->MinimumBuffers = c->min_buffers;
	p->MaximumBuffers = c->max_buffers;
	if (p->LogFileMode & ETW_PROPS_MS_FLUSH_TIMER)
		p->FlushTimer = c->flush_timer_ms;
	else
		p->FlushTimer = (c->flush_timer_ms + 999) / 1000;
	p->LogFileMode = (p->LogFileMode & ~ETW_PROPS_KERNEL_MODES) | c->mode;
	p->EnableFlags = c->enable_flags;
	p->NumberOfBuffers = s->buffers;
	p->FreeBuffers = s->free_buffers;
	p->EventsLost = etw_props_u32(s->events_lost);
	p->BuffersWritten = etw_props_u32(s->buffers_written);
	p->LogBuffersLost = etw_props_u32(s->log_buffers_lost);
	p->RealTimeBuffersLost = etw_props_u32(s->realtime_buffers_lost);
}
