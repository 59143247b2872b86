/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * libetw internals shared by its files: the process's /dev/etw handle and
 * the errno to Win32 error mapping.  Not installed; etwctl, which links
 * libetw.a, also uses it (through -Iuserlib).
 */
#ifndef _ETW_LIB_H
#define _ETW_LIB_H

#include <stdint.h>
#include <linux/etw.h>

/*
 * The process's /dev/etw file, opened on first use.  After fork() the
 * child opens its own on first use: it never uses its parent's file, so it
 * can neither see nor write under its parent's registrations.
 * Return: the fd, or -errno.
 */
int etw_dev_fd(void);

/* ioctl() on the process's file; returns 0 or -errno. */
int etw_dev_ioctl(unsigned long cmd, void *arg);

/*
 * The read-only enable area of the process's file (struct etw_enable_state
 * indexed by etw_register_args.enable_index), or NULL when it cannot be
 * mapped.
 */
const struct etw_enable_state *etw_dev_enable_map(void);

/*
 * Generation of the process's file: changes in a fork() child, so that the
 * notification thread (which the child lacks) is known to be the parent's.
 */
uint64_t etw_dev_generation(void);

/* The Win32 error for a negative errno from the kernel, in general. */
uint32_t etw_win32_from_errno(int err);

#endif /* _ETW_LIB_H */
