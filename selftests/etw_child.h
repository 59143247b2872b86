/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Running a test's function in a child process, as root or as the test
 * VM's unprivileged user (uid/gid 1000, no supplementary groups).
 */
#ifndef _ETW_CHILD_H
#define _ETW_CHILD_H

#include <grp.h>
#include <stdio.h>
#include <sys/wait.h>

#include "etw_raw.h"

#define CHILD_UID	1000	/* the VM's user "etw" */
#define CHILD_GID	1000

/* Drop every privilege: uid and gid 1000, no supplementary groups. */
static inline int child_drop_privileges(void)
{
	if (setgroups(0, NULL) ||
	    setresgid(CHILD_GID, CHILD_GID, CHILD_GID) ||
	    setresuid(CHILD_UID, CHILD_UID, CHILD_UID))
		return -errno;
	return 0;
}

/*
 * Run @fn(@arg) in a forked child (unprivileged when @unpriv) and return
 * its exit status, or -1 when it did not exit normally.  @fn returns 0 for
 * success or a small positive code that says what went wrong; 200 means
 * the privileges could not be dropped.
 */
static inline int child_run(int (*fn)(void *arg), void *arg, int unpriv)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (!pid) {
		if (unpriv && child_drop_privileges())
			_exit(200);
		_exit(fn(arg));
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

#endif /* _ETW_CHILD_H */
