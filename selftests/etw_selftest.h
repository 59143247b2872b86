/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the etw kselftests: raw access to /dev/etw without
 * libetw, so that the kernel ABI is tested on its own.
 */
#ifndef _ETW_SELFTEST_H
#define _ETW_SELFTEST_H

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <linux/etw.h>

#define ETW_DEV "/dev/etw"

static inline int etw_open(void)
{
	return open(ETW_DEV, O_RDWR | O_CLOEXEC);
}

/* ioctl() returning -errno, so that tests can compare exact errors. */
static inline int etw_ioctl(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) < 0 ? -errno : 0;
}

/* ETW_INJECT_FAILURE=kselftest makes the harness check fail on purpose. */
static inline int etw_injected_failure(void)
{
	const char *v = getenv("ETW_INJECT_FAILURE");

	return v && !strcmp(v, "kselftest");
}

#endif /* _ETW_SELFTEST_H */
