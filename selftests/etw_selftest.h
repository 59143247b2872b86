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
#include <sys/wait.h>
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

/*
 * Reap child @pid.  Return: its exit status (0-255) when it exited, 256 plus
 * the signal number when a signal killed it, -errno when waitpid() failed.
 * Tests compare the result with the one exit status they expect, so a child
 * that crashed or was killed fails the test whatever its status word held.
 */
static inline int etw_wait_child(pid_t pid)
{
	int status;
	pid_t r;

	do {
		r = waitpid(pid, &status, 0);
	} while (r < 0 && errno == EINTR);
	if (r < 0)
		return -errno;
	if (r != pid)
		return -ECHILD;
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 256 + WTERMSIG(status);
	return -EINVAL;
}

/* ETW_INJECT_FAILURE=kselftest makes the harness check fail on purpose. */
static inline int etw_injected_failure(void)
{
	const char *v = getenv("ETW_INJECT_FAILURE");

	return v && !strcmp(v, "kselftest");
}

#endif /* _ETW_SELFTEST_H */
