/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * libetw internals of the provider API: the registration table behind
 * REGHANDLE, the enable-state check, the write path, and the interface of
 * the enable-callback thread.  Not installed.
 *
 * A REGHANDLE is (incarnation << 16) | (slot + 1).  The slot indexes a
 * fixed table of ETW_MAX_REGISTRATIONS entries that is never freed, so a
 * zero, bogus or stale handle is rejected by comparing it with the slot's
 * current handle, never by dereferencing it; incarnations come from one
 * process-wide counter, so a handle never names a later registration of
 * its slot.  A fork() child empties the table, so every inherited handle
 * is invalid there.  Bit 63 marks the logger handle that classic
 * providers receive in their WNODE_HEADER (see etw_classic.c).
 */
#ifndef _ETW_PROVIDER_H
#define _ETW_PROVIDER_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "windows.h"
#include "evntprov.h"
#include "evntrace.h"
#include "etw_lib.h"

#define ETW_PROV_SLOT_MASK	0xffffULL
#define ETW_PROV_LOGGER_BIT	(1ULL << 63)

/* What the notification thread calls for one registration. */
struct etw_prov_callback {
	bool classic;
	PENABLECALLBACK enable;		/* manifest and TraceLogging */
	WMIDPREQUEST request;		/* classic providers */
	void *context;
	GUID guid;			/* the provider (control) GUID */
};

/* A validated registration, copied out of its table entry. */
struct etw_prov_ref {
	REGHANDLE handle;
	uint32_t reg_id;
	int fd;
	const struct etw_enable_state *state;
	bool desc_types;
};

/*
 * Register @cb->guid on the process's /dev/etw file (@flags: ETW_REGISTER_*).
 * On success *@handle is set before any callback can run; when a session
 * already enables the GUID, returns after the registration-time callback
 * ran (unless called from the callback thread).  Returns a Win32 error.
 */
ULONG etw_prov_register(uint32_t flags, const struct etw_prov_callback *cb,
			REGHANDLE *handle);

/* Unregister; no callback of @handle runs after it returns. */
ULONG etw_prov_unregister(REGHANDLE handle);

/* Validate @handle without a system call; false for any invalid handle. */
bool etw_prov_get(REGHANDLE handle, struct etw_prov_ref *ref);

/* Honour EVENT_DATA_DESCRIPTOR.Type from now on. */
void etw_prov_set_desc_types(REGHANDLE handle, bool on);

/* A consistent copy of a registration's enable state. */
struct etw_prov_state {
	bool enabled;
	UCHAR level;
	ULONGLONG match_any;
	ULONGLONG match_all;
};

/* Read @ref's enable state; false when it is not enabled. */
bool etw_prov_state(const struct etw_prov_ref *ref,
		    struct etw_prov_state *st);

/* ETW_IOC_WRITE under @ref; returns a Win32 error. */
ULONG etw_prov_write(const struct etw_prov_ref *ref,
		     struct etw_write_args *args);

/*
 * The calling thread's activity ID (EventActivityIdControl), owned by
 * etw_activity.c.  Initial-exec, so that the write path reads it with one
 * thread-pointer-relative load instead of a __tls_get_addr() call.
 */
extern __thread GUID etw_thread_activity
	__attribute__((tls_model("initial-exec")));

/* --- the notification thread (etw_callback.c) ----------------------------- */

/*
 * Start the thread that reads @fd's notifications unless it runs for the
 * current device generation.  Called with the registration lock held.
 * Returns 0 or a positive errno.
 */
int etw_callback_ensure(int fd, uint64_t gen);

/*
 * In a fork() child: the thread is gone; if the fork happened in a
 * callback, the child's thread is no longer the callback thread.
 */
void etw_callback_after_fork(void);

/* True on the notification thread (callbacks run there). */
bool etw_callback_on_thread(void);

/* The handle whose callback the calling thread is running, or 0. */
REGHANDLE etw_callback_current(void);

/*
 * Called by the thread for each notification: find the registration of
 * @cookie, waiting while it is being registered, and mark its callback
 * running.  Returns false when it is gone or has no callback; then
 * etw_prov_callback_done() must not be called.
 */
bool etw_prov_callback_begin(uint64_t cookie, struct etw_prov_callback *cb);

/* The callback of @cookie returned: wake EventUnregister/EventRegister. */
void etw_prov_callback_done(uint64_t cookie);

#endif /* _ETW_PROVIDER_H */
