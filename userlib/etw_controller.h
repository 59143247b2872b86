/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * libetw internals of the controller and consumer APIs: validation of
 * EVENT_TRACE_PROPERTIES (etw_properties.c, pure), the file logger that
 * writes a session to an .etl file (etw_logger.c, shared with etwctl) and
 * the helpers the controller files share.  Not installed.
 */
#ifndef _ETW_CONTROLLER_H
#define _ETW_CONTROLLER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/etw.h>

#include "evntrace.h"

/* EVENT_TRACE_USE_MS_FLUSH_TIMER (internal): FlushTimer counts ms. */
#define ETW_PROPS_MS_FLUSH_TIMER	0x00000010

/**
 * struct etw_props_names - the names StartTrace checks and copies
 * @name_bytes: bytes of the session name in the caller's encoding, NUL
 *	included (0 when the caller passed no name)
 * @name_chars: characters of the session name, NUL excluded
 * @char_size: 1 for the A functions, 2 for the W functions
 * @kernel_logger: the name is KERNEL_LOGGER_NAME
 */
struct etw_props_names {
	size_t name_bytes;
	size_t name_chars;
	unsigned int char_size;
	bool kernel_logger;
};

ULONG etw_props_check_start(const EVENT_TRACE_PROPERTIES *p,
			    const struct etw_props_names *names);
ULONG etw_props_check_control(const EVENT_TRACE_PROPERTIES *p);
size_t etw_props_file_name_offset(const EVENT_TRACE_PROPERTIES *p,
				  unsigned int char_size);
void etw_props_to_config(const EVENT_TRACE_PROPERTIES *p,
			 struct etw_session_config *c);
ULONG etw_props_kernel_flags(const EVENT_TRACE_PROPERTIES *p,
			     bool kernel_logger, struct etw_session_config *c);
ULONG etw_props_to_update(const EVENT_TRACE_PROPERTIES *p,
			  struct etw_session_args *a);
void etw_props_from_args(EVENT_TRACE_PROPERTIES *p,
			 const struct etw_session_args *a);

/* --- the file logger (etw_logger.c) --------------------------------------- */

/**
 * struct etw_logger_opts - what a file logger writes
 * @logger_id: the session
 * @path: the .etl file (a NEWFILE pattern with %d)
 * @mode: ETW_ETL_MODE_* file mode, 0 for sequential
 * @max_size: MaximumFileSize (MiB, KiB with ETW_ETL_MODE_KBYTES in @mode)
 * @log_file_mode: the session's LogFileMode, for the file header
 * @ready_fd: when >= 0, receives one int (0 or -errno) once the file is
 *	created and the consumer opened, then is closed
 */
struct etw_logger_opts {
	uint32_t logger_id;
	const char *path;
	uint32_t mode;
	uint32_t max_size;
	uint32_t log_file_mode;
	int ready_fd;
};

/**
 * struct etw_logger_info - a running file logger, as its lock file says
 * @pid: the logger process
 * @log_file_mode: the session's LogFileMode
 * @path: the .etl file
 */
struct etw_logger_info {
	uint32_t pid;
	uint32_t log_file_mode;
	char path[4096];
};

ssize_t etw_consume_read(int cfd, void *buf, size_t bs);
int etw_file_logger_run(const struct etw_logger_opts *o);
int etw_file_logger_spawn(const struct etw_logger_opts *o);
int etw_file_logger_find(uint32_t logger_id, uint64_t start_time_ns,
			 bool wait, struct etw_logger_info *info);

/* --- shared by the controller files --------------------------------------- */

/* Name <-> UTF-8 for the A (char_size 1) and W (char_size 2) functions. */
char *etw_ctl_name_utf8(const void *name, unsigned int char_size);
size_t etw_ctl_name_put(void *dst, size_t room, const char *utf8,
			unsigned int char_size);

#endif /* _ETW_CONTROLLER_H */
