/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * libetw internals: the notification thread (etw_callback.c), which reads
 * the process's /dev/etw file and hands each notification to the function
 * it was started with.  It knows nothing of registrations: the provider
 * code (etw_provider_handle.c) passes what to call.  Not installed.
 */
#ifndef _ETW_CALLBACK_H
#define _ETW_CALLBACK_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/etw.h>

/*
 * Called on the thread for each well-formed notification, one at a time
 * in the kernel's order; the thread acknowledges the record (ETW_IOC_ACK)
 * when it returns.  @n is valid only during the call.
 */
typedef void etw_notify_fn(const struct etw_notification *n);

/*
 * Start the thread that reads @fd's notifications and passes them to
 * @dispatch, unless it runs for the current device generation @gen.
 * Called with the caller's lock held, which serialises the starts.
 * Returns 0 or a positive errno.
 */
int etw_callback_ensure(int fd, uint64_t gen, etw_notify_fn *dispatch);

/*
 * In a fork() child: the thread is gone; if the fork happened on it, the
 * child's thread is no longer the notification thread.
 */
void etw_callback_after_fork(void);

/* True on the notification thread. */
bool etw_callback_on_thread(void);

#endif /* _ETW_CALLBACK_H */
