/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * libetw internals of the provider API: the registration table behind
 * REGHANDLE, the enable-state check and the write path.  Registrations
 * start the notification thread (etw_callback.h) with etw_provider.c's
 * dispatch function, which runs their callbacks.  Not installed.
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

#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>

#include "windows.h"
#include "evntprov.h"
#include "evntrace.h"
#include "etw_lib.h"

#define ETW_PROV_SLOT_MASK	0xffffULL
#define ETW_PROV_LOGGER_BIT	(1ULL << 63)

/*
 * etw_prov_ref.flags: what makes a registration's writes not plain.
 * DESC_TYPES is ETW_WRITE_DESC_TYPES, so that a write ORs it in.
 */
#define ETW_PROV_CLASSIC	0x1	/* RegisterTraceGuids */
#define ETW_PROV_DESC_TYPES	ETW_WRITE_DESC_TYPES	/* honour .Type */

/* The enable callback of one registration, run on the notification thread. */
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
	uint8_t flags;			/* ETW_PROV_* */
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
 * ioctl() as the write path makes it: on x86-64 the system call itself,
 * as Windows' ntdll makes its own, without the call into libc's wrapper
 * and its errno store.  Return: 0 or a negative errno.
 */
static __always_inline long etw_sys_ioctl(int fd, unsigned long cmd,
					  void *arg)
{
#ifdef __x86_64__
	long ret;

	/* The kernel reads *@arg: the "memory" clobber keeps the stores. */
	__asm__ volatile("syscall"
			 : "=a" (ret)
			 : "0" ((long)SYS_ioctl), "D" ((long)fd), "S" (cmd),
			   "d" (arg)
			 : "rcx", "r11", "memory");
	return ret;
#else
	return ioctl(fd, cmd, arg) ? -errno : 0;
#endif
}

/*
 * Moves on whenever a handle's lookup may change: a registration retired,
 * its descriptor types switched.  What a thread remembers of a lookup
 * (etw_batch.h's struct etw_batch_last) holds while it has not moved.
 * Starts at 1.
 */
extern uint64_t etw_prov_gen __attribute__((visibility("hidden")));

/*
 * The calling thread's activity ID (EventActivityIdControl), owned by
 * etw_activity.c.  Initial-exec, so that the write path reads it with one
 * thread-pointer-relative load instead of a __tls_get_addr() call.
 */
extern __thread GUID etw_thread_activity
	__attribute__((tls_model("initial-exec")));

#endif /* _ETW_PROVIDER_H */
