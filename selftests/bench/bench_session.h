/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bench_session.h: the sessions the raw-ioctl benchmarks write to, and
 * their enables.  Each helper exits with a message when its ioctl fails.
 */
#ifndef ETW_BENCH_SESSION_H
#define ETW_BENCH_SESSION_H

#include <err.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <linux/etw.h>

/* Session @name with 8 buffers of 64 KiB in @mode; its logger id. */
static inline __u32 bench_start_session(int fd, const char *name, __u32 mode)
{
	/* Too big for a benchmark's stack frames to want it there. */
	static struct etw_session_args a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	snprintf(a.name, sizeof(a.name), "%s", name);
	a.config.buffer_kb = 64;
	a.config.min_buffers = 8;
	a.config.mode = mode;
	if (ioctl(fd, ETW_IOC_START, &a))
		err(1, "ETW_IOC_START");
	return a.logger_id;
}

static inline void bench_stop_session(int fd, __u32 id)
{
	static struct etw_session_args a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.logger_id = id;
	ioctl(fd, ETW_IOC_STOP, &a);
}

/* ETW_CONTROL_* @code for @guid in session @id, with enable @props. */
static inline void bench_enable(int fd, __u32 id, const struct etw_guid *guid,
				__u32 code, __u32 props)
{
	struct etw_enable_args e;

	memset(&e, 0, sizeof(e));
	e.size = sizeof(e);
	e.logger_id = id;
	e.control_code = code;
	e.guid = *guid;
	e.properties = props;
	if (ioctl(fd, ETW_IOC_ENABLE, &e))
		err(1, "ETW_IOC_ENABLE");
}

#endif
