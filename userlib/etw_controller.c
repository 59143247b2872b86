// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * etw_controller.c - StartTrace, ControlTrace and its wrappers and
 * QueryAllTraces over /dev/etw.
 *
 * A CONTROLTRACE_ID is the kernel's logger id (1-64 for global sessions),
 * which is also what Wnode.HistoricalContext returns.  Sessions with a log
 * file are written by a file logger daemon (etw_logger.c); ControlTrace
 * STOP returns once that logger has completed the file.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "etw_controller.h"
#include "etw_etl.h"
#include "etw_lib.h"

#define ETW_CTL_FILE_MODES	(ETW_ETL_MODE_SEQUENTIAL | \
	ETW_ETL_MODE_CIRCULAR | ETW_ETL_MODE_APPEND | ETW_ETL_MODE_NEWFILE)

static size_t etw_ctl_units(const void *name, unsigned int char_size)
{
	const uint8_t *p = name;
	size_t n = 0;
	uint16_t c;

	for (;; n++) {
		if (char_size == 1)
			c = p[n];
		else
			memcpy(&c, p + 2 * n, sizeof(c));
		if (!c)
			return n;
	}
}

/**
 * etw_ctl_name_utf8 - a caller's name as UTF-8
 * @name: NUL-terminated char (A) or WCHAR (W) string, or NULL
 * @char_size: 1 or 2
 *
 * Return: a malloc'ed string, NULL for a NULL name or without memory.
 */
char *etw_ctl_name_utf8(const void *name, unsigned int char_size)
{
	if (!name)
		return NULL;
	if (char_size == 1)
		return strdup(name);
	return etw_etl_utf16_to_utf8(name, etw_ctl_units(name, 2));
}

/**
 * etw_ctl_name_put - write a UTF-8 name in the caller's encoding
 * @dst: where the name goes
 * @room: bytes at @dst
 * @utf8: the name
 * @char_size: 1 or 2
 *
 * Return: the bytes the name needs, NUL included; nothing is written
 * when that exceeds @room.
 */
size_t etw_ctl_name_put(void *dst, size_t room, const char *utf8,
			unsigned int char_size)
{
	size_t units, need;

	if (char_size == 1) {
		need = strlen(utf8) + 1;
		if (need <= room)
			memcpy(dst, utf8, need);
		return need;
	}
	units = etw_etl_utf8_to_utf16(utf8, NULL, 0);
	need = 2 * (units + 1);
	if (need <= room) {
		etw_etl_utf8_to_utf16(utf8, dst, units);
		memset((uint8_t *)dst + 2 * units, 0, 2);
	}
	return need;
}

static void etw_ctl_args_init(struct etw_session_args *a)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
}

/* Copy a UTF-8 name into args; ERROR_BAD_LENGTH when it is too long. */
static ULONG etw_ctl_set_name(struct etw_session_args *a, const char *name)
{
	size_t len = strlen(name);

	if (len > ETW_MAX_NAME_LEN)
		return ERROR_BAD_LENGTH;
	memcpy(a->name, name, len + 1);
	return ERROR_SUCCESS;
}

static char *etw_ctl_absolute(const char *path)
{
	char cwd[PATH_MAX];
	char *abs;

	if (path[0] == '/')
		return strdup(path);
	if (!getcwd(cwd, sizeof(cwd)))
		return NULL;
	abs = malloc(strlen(cwd) + strlen(path) + 2);
	if (abs)
		sprintf(abs, "%s/%s", cwd, path);
	return abs;
}

static ULONG etw_ctl_file_error(int err)
{
	switch (-err) {
	case ENOENT:
	case ENOTDIR:
		return ERROR_PATH_NOT_FOUND;
	case EBADMSG:
	case EXDEV:
		return ERROR_BAD_PATHNAME;
	default:
		return etw_win32_from_errno(err);
	}
}

static ULONG etw_ctl_start_logger(const EVENT_TRACE_PROPERTIES *p,
				  uint32_t logger_id, size_t file_off,
				  unsigned int char_size)
{
	struct etw_logger_opts o = { .logger_id = logger_id, .ready_fd = -1 };
	char *name, *path;
	int ret;

	name = etw_ctl_name_utf8((const uint8_t *)p + file_off, char_size);
	path = name ? etw_ctl_absolute(name) : NULL;
	free(name);
	if (!path)
		return ERROR_NOT_ENOUGH_MEMORY;
	o.path = path;
	o.mode = p->LogFileMode & ETW_CTL_FILE_MODES;
	o.max_size = p->MaximumFileSize;
	o.log_file_mode = p->LogFileMode;
	ret = etw_file_logger_spawn(&o);
	free(path);
	return ret ? etw_ctl_file_error(ret) : ERROR_SUCCESS;
}

static void etw_ctl_stop_quietly(uint32_t logger_id)
{
	struct etw_session_args a;

	etw_ctl_args_init(&a);
	a.logger_id = logger_id;
	etw_dev_ioctl(ETW_IOC_STOP, &a);
}

static bool etw_ctl_is_kernel_logger(const char *name)
{
	return name && !strcasecmp(name, KERNEL_LOGGER_NAMEA);
}

static ULONG etw_ctl_start(PCONTROLTRACE_ID id, const void *name,
			   PEVENT_TRACE_PROPERTIES p, unsigned int char_size)
{
	struct etw_props_names n = { .char_size = char_size };
	struct etw_session_args a;
	char *utf8 = NULL;
	size_t file;
	ULONG err;

	if (!id || !p)
		return ERROR_INVALID_PARAMETER;
	if (name) {
		n.name_chars = etw_ctl_units(name, char_size);
		n.name_bytes = (n.name_chars + 1) * char_size;
		utf8 = etw_ctl_name_utf8(name, char_size);
		if (!utf8)
			return ERROR_NOT_ENOUGH_MEMORY;
		n.kernel_logger = etw_ctl_is_kernel_logger(utf8);
	}
	err = etw_props_check_start(p, &n);
	file = etw_props_file_name_offset(p, char_size);
	if (!err && file && (p->LogFileMode & EVENT_TRACE_PRIVATE_LOGGER_MODE))
		err = ERROR_NOT_SUPPORTED;	/* see libetw.rst */
	etw_ctl_args_init(&a);
	if (!err)
		err = etw_ctl_set_name(&a, utf8);
	free(utf8);
	if (err)
		return err;
	etw_props_to_config(p, &a.config);
	err = etw_props_kernel_flags(p, n.kernel_logger, &a.config);
	if (err)
		return err;
	err = etw_win32_from_errno(etw_dev_ioctl(ETW_IOC_START, &a));
	if (!err && file) {
		err = etw_ctl_start_logger(p, a.logger_id, file, char_size);
		if (err)
			etw_ctl_stop_quietly(a.logger_id);
	}
	if (err)
		return err;
	etw_props_from_args(p, &a);
	if (p->LoggerNameOffset)
		memcpy((uint8_t *)p + p->LoggerNameOffset, name, n.name_bytes);
	*id = a.logger_id;
	return ERROR_SUCCESS;
}

/**
 * StartTraceA - start a session (UTF-8 names)
 * @TraceId: out: the session handle
 * @InstanceName: the session name
 * @Properties: EVENT_TRACE_PROPERTIES and room for the names
 *
 * Return: a Win32 error; see Documentation/libetw.rst.
 */
ULONG WMIAPI StartTraceA(PCONTROLTRACE_ID TraceId, LPCSTR InstanceName,
			 PEVENT_TRACE_PROPERTIES Properties)
{
	return etw_ctl_start(TraceId, InstanceName, Properties, 1);
}

/**
 * StartTraceW - start a session (UTF-16 names)
 * @TraceId: out: the session handle
 * @InstanceName: the session name
 * @Properties: EVENT_TRACE_PROPERTIES and room for the names
 *
 * Return: a Win32 error; see Documentation/libetw.rst.
 */
ULONG WMIAPI StartTraceW(PCONTROLTRACE_ID TraceId, LPCWSTR InstanceName,
			 PEVENT_TRACE_PROPERTIES Properties)
{
	return etw_ctl_start(TraceId, InstanceName, Properties, 2);
}

static const unsigned long etw_ctl_cmds[] = {
	[EVENT_TRACE_CONTROL_QUERY] = ETW_IOC_QUERY,
	[EVENT_TRACE_CONTROL_STOP] = ETW_IOC_STOP,
	[EVENT_TRACE_CONTROL_UPDATE] = ETW_IOC_UPDATE,
	[EVENT_TRACE_CONTROL_FLUSH] = ETW_IOC_FLUSH,
};

static ULONG etw_ctl_do(ULONG code, const EVENT_TRACE_PROPERTIES *p,
			struct etw_session_args *a)
{
	struct etw_session_args cur = *a;
	int ret;

	if (code == EVENT_TRACE_CONTROL_UPDATE) {
		ULONG err;

		ret = etw_dev_ioctl(ETW_IOC_QUERY, &cur);
		if (ret)
			return etw_win32_from_errno(ret);
		/* The name QUERY returned tells a kernel logger. */
		err = etw_props_to_update(p, &cur);
		if (err)
			return err;
		a->flags = cur.flags;
		a->config = cur.config;
	}
	return etw_win32_from_errno(etw_dev_ioctl(etw_ctl_cmds[code], a));
}

/*
 * Names go after the fixed part, where LoggerNameOffset and
 * LogFileNameOffset say, or are laid out there when the offsets are 0.
 */
static ULONG etw_ctl_put_names(PEVENT_TRACE_PROPERTIES p, const char *name,
			       const char *file, unsigned int char_size)
{
	size_t off = p->LoggerNameOffset ? p->LoggerNameOffset : sizeof(*p);
	size_t room = p->Wnode.BufferSize > off ? p->Wnode.BufferSize - off : 0;
	size_t need = etw_ctl_name_put((uint8_t *)p + off, room, name,
				       char_size);

	if (need > room)
		return ERROR_MORE_DATA;
	p->LoggerNameOffset = off;
	if (!file)
		return ERROR_SUCCESS;
	off = p->LogFileNameOffset ? p->LogFileNameOffset : off + need;
	room = p->Wnode.BufferSize > off ? p->Wnode.BufferSize - off : 0;
	if (etw_ctl_name_put((uint8_t *)p + off, room, file, char_size) > room)
		return ERROR_MORE_DATA;
	p->LogFileNameOffset = off;
	return ERROR_SUCCESS;
}

static ULONG etw_ctl_report(PEVENT_TRACE_PROPERTIES p, ULONG code,
			    const struct etw_session_args *a,
			    unsigned int char_size)
{
	struct etw_logger_info info;
	int ret;

	/* STOP of a file session: wait until its logger closed the file. */
	ret = etw_file_logger_find(a->logger_id, a->start_time_ns,
				   code == EVENT_TRACE_CONTROL_STOP, &info);
	etw_props_from_args(p, a);
	p->LoggerThreadId = (HANDLE)(uintptr_t)(ret == 1 ? info.pid : 0);
	if (ret == 1)
		p->LogFileMode |= info.log_file_mode & ~ETW_MODE_REAL_TIME;
	return etw_ctl_put_names(p, a->name, ret == 1 ? info.path : NULL,
				 char_size);
}

static ULONG etw_ctl_control(CONTROLTRACE_ID id, const void *name,
			     PEVENT_TRACE_PROPERTIES p, ULONG code,
			     unsigned int char_size)
{
	struct etw_session_args a;
	char *utf8;
	ULONG err;

	err = etw_props_check_control(p);
	if (err)
		return err;
	if (code == EVENT_TRACE_CONTROL_INCREMENT_FILE ||
	    code == EVENT_TRACE_CONTROL_CONVERT_TO_REALTIME)
		return ERROR_NOT_SUPPORTED;
	if (code > EVENT_TRACE_CONTROL_FLUSH)
		return ERROR_INVALID_PARAMETER;
	etw_ctl_args_init(&a);
	utf8 = etw_ctl_name_utf8(name, char_size);
	if (utf8 && *utf8) {
		/* The name wins over the handle, as on Windows. */
		err = etw_ctl_set_name(&a, utf8);
		if (err == ERROR_BAD_LENGTH)
			err = ERROR_WMI_INSTANCE_NOT_FOUND;
	} else if (id == 0 || id > UINT32_MAX) {
		err = id ? ERROR_WMI_INSTANCE_NOT_FOUND :
			   ERROR_INVALID_PARAMETER;
	} else {
		a.logger_id = (uint32_t)id;
	}
	free(utf8);
	if (!err)
		err = etw_ctl_do(code, p, &a);
	if (err)
		return err;
	return etw_ctl_report(p, code, &a, char_size);
}

/**
 * ControlTraceA - query, stop, update or flush a session (UTF-8 names)
 * @TraceId: the session handle (ignored when @InstanceName is given)
 * @InstanceName: the session name, or NULL
 * @Properties: receives the session's properties and statistics
 * @ControlCode: EVENT_TRACE_CONTROL_*
 *
 * Return: a Win32 error; ERROR_MORE_DATA when @Properties cannot hold the
 * names (the control was still done).
 */
ULONG WMIAPI ControlTraceA(CONTROLTRACE_ID TraceId, LPCSTR InstanceName,
			   PEVENT_TRACE_PROPERTIES Properties,
			   ULONG ControlCode)
{
	return etw_ctl_control(TraceId, InstanceName, Properties, ControlCode,
			       1);
}

/**
 * ControlTraceW - query, stop, update or flush a session (UTF-16 names)
 * @TraceId: the session handle (ignored when @InstanceName is given)
 * @InstanceName: the session name, or NULL
 * @Properties: receives the session's properties and statistics
 * @ControlCode: EVENT_TRACE_CONTROL_*
 *
 * Return: as ControlTraceA().
 */
ULONG WMIAPI ControlTraceW(CONTROLTRACE_ID TraceId, LPCWSTR InstanceName,
			   PEVENT_TRACE_PROPERTIES Properties,
			   ULONG ControlCode)
{
	return etw_ctl_control(TraceId, InstanceName, Properties, ControlCode,
			       2);
}

/*
 * StopTraceA/W, QueryTraceA/W, UpdateTraceA/W, FlushTraceA/W: ControlTrace
 * with EVENT_TRACE_CONTROL_STOP, _QUERY, _UPDATE and _FLUSH; same
 * arguments and results as ControlTraceA() (real functions, as the SDK
 * declares them without __TRACE_W2K_COMPATIBLE).
 */
#define ETW_CTL_WRAPPER(fn, ctype, size, code)				\
ULONG WMIAPI fn(CONTROLTRACE_ID TraceId, ctype InstanceName,		\
		PEVENT_TRACE_PROPERTIES Properties)			\
{									\
	return etw_ctl_control(TraceId, InstanceName, Properties,	\
			       code, size);				\
}

ETW_CTL_WRAPPER(StopTraceA, LPCSTR, 1, EVENT_TRACE_CONTROL_STOP)
ETW_CTL_WRAPPER(StopTraceW, LPCWSTR, 2, EVENT_TRACE_CONTROL_STOP)
ETW_CTL_WRAPPER(QueryTraceA, LPCSTR, 1, EVENT_TRACE_CONTROL_QUERY)
ETW_CTL_WRAPPER(QueryTraceW, LPCWSTR, 2, EVENT_TRACE_CONTROL_QUERY)
ETW_CTL_WRAPPER(UpdateTraceA, LPCSTR, 1, EVENT_TRACE_CONTROL_UPDATE)
ETW_CTL_WRAPPER(UpdateTraceW, LPCWSTR, 2, EVENT_TRACE_CONTROL_UPDATE)
ETW_CTL_WRAPPER(FlushTraceA, LPCSTR, 1, EVENT_TRACE_CONTROL_FLUSH)
ETW_CTL_WRAPPER(FlushTraceW, LPCWSTR, 2, EVENT_TRACE_CONTROL_FLUSH)

static ULONG etw_ctl_query_all(PEVENT_TRACE_PROPERTIES *arr, ULONG count,
			       PULONG logger_count, unsigned int char_size)
{
	uint32_t ids[ETW_MAX_GLOBAL_SESSIONS];
	struct etw_list_args l = {
		.size = sizeof(l), .count = ETW_MAX_GLOBAL_SESSIONS,
		.ids_ptr = (uintptr_t)ids,
	};
	ULONG err, i, n = 0;

	if (!arr || !logger_count || !count || count > ETW_MAX_GLOBAL_SESSIONS)
		return ERROR_INVALID_PARAMETER;
	err = etw_win32_from_errno(etw_dev_ioctl(ETW_IOC_LIST_SESSIONS, &l));
	if (err)
		return err;
	if (l.count > ETW_MAX_GLOBAL_SESSIONS)
		l.count = ETW_MAX_GLOBAL_SESSIONS;
	for (i = 0; i < l.count && n < count; i++) {
		err = etw_ctl_control(ids[i], NULL, arr[n],
				      EVENT_TRACE_CONTROL_QUERY, char_size);
		/* A session that stopped meanwhile is not reported. */
		if (err == ERROR_WMI_INSTANCE_NOT_FOUND)
			continue;
		if (err)
			return err;
		n++;
	}
	*logger_count = n;
	return i < l.count ? ERROR_MORE_DATA : ERROR_SUCCESS;
}

/**
 * QueryAllTracesA - properties of every running session (UTF-8 names)
 * @PropertyArray: @PropertyArrayCount properties blocks to fill
 * @PropertyArrayCount: 1 to 64
 * @LoggerCount: out: blocks filled
 *
 * Return: ERROR_MORE_DATA when more sessions run than the array holds
 * (the array is filled), ERROR_INVALID_PARAMETER for a bad count.
 */
ULONG WMIAPI QueryAllTracesA(PEVENT_TRACE_PROPERTIES *PropertyArray,
			     ULONG PropertyArrayCount, PULONG LoggerCount)
{
	return etw_ctl_query_all(PropertyArray, PropertyArrayCount,
				 LoggerCount, 1);
}

/**
 * QueryAllTracesW - properties of every running session (UTF-16 names)
 * @PropertyArray: @PropertyArrayCount properties blocks to fill
 * @PropertyArrayCount: 1 to 64
 * @LoggerCount: out: blocks filled
 *
 * Return: as QueryAllTracesA().
 */
ULONG WMIAPI QueryAllTracesW(PEVENT_TRACE_PROPERTIES *PropertyArray,
			     ULONG PropertyArrayCount, PULONG LoggerCount)
{
	return etw_ctl_query_all(PropertyArray, PropertyArrayCount,
				 LoggerCount, 2);
}
