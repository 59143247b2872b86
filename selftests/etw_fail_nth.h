/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Failing the n-th allocation or user copy of one system call through
 * /proc/thread-self/fail-nth, with the debugfs knobs that make it reach
 * every allocation.
 */
#ifndef _ETW_FAIL_NTH_H
#define _ETW_FAIL_NTH_H

#include <stdio.h>

#include "etw_raw.h"

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif

#define FAIL_NTH_DEBUGFS	"/sys/kernel/debug"

/* Write @val to @path; 0 or -errno. */
static inline int fail_nth_write_file(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	n = n < 0 ? -errno : n == (ssize_t)strlen(val) ? 0 : -EIO;
	close(fd);
	return (int)n;
}

/*
 * Make fail-nth reach every allocation an ioctl makes: failslab and
 * fail_page_alloc skip allocations that may sleep unless ignore-gfp-wait
 * is N; verbose 0 keeps injected failures off the console (a stack trace
 * there fails the run's console scan).  Return: 0, or -errno of the first
 * knob that could not be set (no fault injection in this kernel).
 */
static inline int fail_nth_setup(void)
{
	static const char *const knobs[][2] = {
		{ FAIL_NTH_DEBUGFS "/failslab/ignore-gfp-wait", "N" },
		{ FAIL_NTH_DEBUGFS "/failslab/verbose", "0" },
		{ FAIL_NTH_DEBUGFS "/fail_page_alloc/ignore-gfp-wait", "N" },
		{ FAIL_NTH_DEBUGFS "/fail_page_alloc/verbose", "0" },
		{ FAIL_NTH_DEBUGFS "/fail_usercopy/verbose", "0" },
	};
	unsigned int i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(knobs); i++) {
		ret = fail_nth_write_file(knobs[i][0], knobs[i][1]);
		if (ret)
			return ret;
	}
	return 0;
}

/* The kernel's defaults, for the next test program. */
static inline void fail_nth_restore(void)
{
	fail_nth_write_file(FAIL_NTH_DEBUGFS "/failslab/ignore-gfp-wait", "Y");
	fail_nth_write_file(FAIL_NTH_DEBUGFS "/failslab/verbose", "2");
	fail_nth_write_file(FAIL_NTH_DEBUGFS "/fail_page_alloc/ignore-gfp-wait",
			    "Y");
	fail_nth_write_file(FAIL_NTH_DEBUGFS "/fail_page_alloc/verbose", "2");
	fail_nth_write_file(FAIL_NTH_DEBUGFS "/fail_usercopy/verbose", "2");
}

/*
 * This thread's fail-nth file, opened once: opening it later would itself
 * be an allocation that the pending failure could hit.
 */
static inline int fail_nth_open(void)
{
	return open("/proc/thread-self/fail-nth", O_RDWR | O_CLOEXEC);
}

/* Fail the @n-th fault-injection point this thread reaches from now on. */
static inline int fail_nth_set(int fd, unsigned int n)
{
	char buf[16];
	int len = snprintf(buf, sizeof(buf), "%u", n);

	return pwrite(fd, buf, len, 0) == len ? 0 : -errno;
}

/*
 * Whether the failure armed by fail_nth_set() was injected, and
 * disarm it.  Reading the file is a user copy too: when one point was
 * left, the read itself fails (EFAULT) and uses it up.
 * Return: 1 when it was injected, 0 when the call ended first.
 */
static inline int fail_nth_fired(int fd)
{
	char buf[16] = "";
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
	int fired = n > 0 && atoi(buf) == 0;

	fail_nth_set(fd, 0);
	return fired;
}

#endif /* _ETW_FAIL_NTH_H */
