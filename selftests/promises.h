/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers for the promises_*_test kselftests (the documented promises of
 * Documentation/abi.rst that had no test): running a function in a child
 * process, as the unprivileged user of the test VM (uid/gid 1000), and
 * failing the n-th allocation or user copy of one system call through
 * /proc/thread-self/fail-nth.
 */
#ifndef _PROMISES_H
#define _PROMISES_H

#include <grp.h>
#include <stdio.h>
#include <sys/wait.h>

#include "etw_raw.h"

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif

#define PROMISES_UID	1000	/* the VM's user "etw" */
#define PROMISES_GID	1000

/* Drop every privilege: uid and gid 1000, no supplementary groups. */
static inline int promises_drop_privileges(void)
{
	if (setgroups(0, NULL) ||
	    setresgid(PROMISES_GID, PROMISES_GID, PROMISES_GID) ||
	    setresuid(PROMISES_UID, PROMISES_UID, PROMISES_UID))
		return -errno;
	return 0;
}

/*
 * Run @fn(@arg) in a forked child (unprivileged when @unpriv) and return
 * its exit status, or -1 when it did not exit normally.  @fn returns 0 for
 * success or a small positive code that says what went wrong; 200 means
 * the privileges could not be dropped.
 */
static inline int promises_in_child(int (*fn)(void *arg), void *arg,
				    int unpriv)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (!pid) {
		if (unpriv && promises_drop_privileges())
			_exit(200);
		_exit(fn(arg));
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/* --- fault injection ------------------------------------------------------ */

#define PROMISES_DEBUGFS	"/sys/kernel/debug"

/* Write @val to @path; 0 or -errno. */
static inline int promises_write_file(const char *path, const char *val)
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
static inline int promises_fault_injection_setup(void)
{
	static const char *const knobs[][2] = {
		{ PROMISES_DEBUGFS "/failslab/ignore-gfp-wait", "N" },
		{ PROMISES_DEBUGFS "/failslab/verbose", "0" },
		{ PROMISES_DEBUGFS "/fail_page_alloc/ignore-gfp-wait", "N" },
		{ PROMISES_DEBUGFS "/fail_page_alloc/verbose", "0" },
		{ PROMISES_DEBUGFS "/fail_usercopy/verbose", "0" },
	};
	unsigned int i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(knobs); i++) {
		ret = promises_write_file(knobs[i][0], knobs[i][1]);
		if (ret)
			return ret;
	}
	return 0;
}

/* The kernel's defaults, for the next test program. */
static inline void promises_fault_injection_restore(void)
{
	promises_write_file(PROMISES_DEBUGFS "/failslab/ignore-gfp-wait", "Y");
	promises_write_file(PROMISES_DEBUGFS "/failslab/verbose", "2");
	promises_write_file(PROMISES_DEBUGFS "/fail_page_alloc/ignore-gfp-wait",
			    "Y");
	promises_write_file(PROMISES_DEBUGFS "/fail_page_alloc/verbose", "2");
	promises_write_file(PROMISES_DEBUGFS "/fail_usercopy/verbose", "2");
}

/*
 * This thread's fail-nth file, opened once: opening it later would itself
 * be an allocation that the pending failure could hit.
 */
static inline int promises_fail_nth_open(void)
{
	return open("/proc/thread-self/fail-nth", O_RDWR | O_CLOEXEC);
}

/* Fail the @n-th fault-injection point this thread reaches from now on. */
static inline int promises_fail_nth_set(int fd, unsigned int n)
{
	char buf[16];
	int len = snprintf(buf, sizeof(buf), "%u", n);

	return pwrite(fd, buf, len, 0) == len ? 0 : -errno;
}

/*
 * Whether the failure armed by promises_fail_nth_set() was injected, and
 * disarm it.  Reading the file is a user copy too: when one point was
 * left, the read itself fails (EFAULT) and uses it up.
 * Return: 1 when it was injected, 0 when the call ended first.
 */
static inline int promises_fail_nth_fired(int fd)
{
	char buf[16] = "";
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
	int fired = n > 0 && atoi(buf) == 0;

	promises_fail_nth_set(fd, 0);
	return fired;
}

#endif /* _PROMISES_H */
