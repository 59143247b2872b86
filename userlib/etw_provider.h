/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * libetw internals of the provider API: the registration table behind
 * REGHANDLE (etw_provider_handle.c) and its lock-free lookup, and the
 * enable check the write path inlines (etw_write.c, etw_write_batched.c).
 * Registrations start the notification thread (etw_callback.h) with
 * etw_provider_handle.c's dispatch function, which runs their callbacks.
 * Not installed.
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
	UCHAR session_level;	/* as the sessions passed it: 0 stays 0 */
	ULONGLONG match_any;
	ULONGLONG match_all;
};

/* Read @ref's enable state; false when it is not enabled. */
bool etw_prov_state(const struct etw_prov_ref *ref,
		    struct etw_prov_state *st);

/**
 * struct etw_prov - one entry of the registration table
 * @handle: the live handle, 0 when the entry is free or being set up;
 *	written last (release) so that lock-free readers see the fields below
 * @reg_id: the kernel's registration id
 * @state: the registration's entry in the mapped enable area
 * @fd: the /dev/etw file the registration belongs to
 * @flags: ETW_PROV_*: descriptor types honoured, a classic registration
 * @cookie: the handle the entry is reserved for (also while registering),
 *	0 when free; under etw_prov_lock
 * @live: the kernel registration exists; under etw_prov_lock
 * @called: a callback of this registration ran; under etw_prov_lock
 * @cb: what the notification thread calls; under etw_prov_lock
 */
struct etw_prov {
	_Atomic uint64_t handle;
	_Atomic uint32_t reg_id;
	const struct etw_enable_state *_Atomic state;
	atomic_int fd;
	atomic_uchar flags;
	uint64_t cookie;
	bool live;
	bool called;
	struct etw_prov_callback cb;
};

/* The registration table, etw_provider_handle.c's: never freed. */
extern struct etw_prov etw_provs[ETW_MAX_REGISTRATIONS]
	__attribute__((visibility("hidden")));

/* @handle's entry, whether or not it is live; NULL for no slot. */
static __always_inline struct etw_prov *etw_prov_slot(REGHANDLE handle)
{
	uint64_t slot = (handle & ETW_PROV_SLOT_MASK) - 1;

	if ((handle & ETW_PROV_LOGGER_BIT) || slot >= ETW_MAX_REGISTRATIONS)
		return NULL;
	return &etw_provs[slot];
}

/*
 * The entry's handle works as a sequence count: the fields are read
 * between two loads of it, and an unchanged non-zero handle means they
 * belong to @handle (entries are only rewritten while their handle is 0).
 * Inlined: it is most of what the write path does in user space.
 */
static __always_inline bool
etw_prov_lookup(REGHANDLE handle, struct etw_prov_ref *ref)
{
	struct etw_prov *p = etw_prov_slot(handle);

	if (!p)
		return false;
	/* Pairs with the release store of @handle in etw_prov_publish(). */
	if (atomic_load_explicit(&p->handle, memory_order_acquire) != handle)
		return false;
	ref->reg_id = atomic_load_explicit(&p->reg_id, memory_order_relaxed);
	ref->state = atomic_load_explicit(&p->state, memory_order_relaxed);
	ref->fd = atomic_load_explicit(&p->fd, memory_order_relaxed);
	ref->flags = atomic_load_explicit(&p->flags, memory_order_relaxed);
	/* Pairs with the release fence in etw_prov_retire(). */
	atomic_thread_fence(memory_order_acquire);
	if (atomic_load_explicit(&p->handle, memory_order_relaxed) != handle)
		return false;
	ref->handle = handle;
	return true;
}

/*
 * ETW's enable predicate: level 0 always passes, otherwise the level must
 * not exceed the enabled level (the kernel maps a session's 0 to 255);
 * keyword 0 always passes, otherwise it needs a bit of MatchAny and all
 * bits of MatchAll.
 */
static __always_inline bool
etw_state_passes(const struct etw_prov_state *st, UCHAR level,
		 ULONGLONG keyword)
{
	if (level && level > st->level)
		return false;
	return !keyword || ((keyword & st->match_any) &&
			    (keyword & st->match_all) == st->match_all);
}

/*
 * The write path's check, which only spares the system call for an event
 * no session takes: the kernel filters every event again, per session.
 * So it reads the fields without the seq protocol.  A read that races an
 * update sees each field's old or new value, and each test of the
 * predicate depends on one field: an event both states take passes, one
 * that only one of them takes passes or not, as if written before or
 * after the update.  One neither takes may pass, at the cost of a
 * system call.
 */
static __always_inline bool
etw_prov_may_take(const struct etw_prov_ref *ref, UCHAR level,
		  ULONGLONG keyword)
{
	const struct etw_enable_state *es = ref->state;
	struct etw_prov_state st;

	if (!__atomic_load_n(&es->enabled, __ATOMIC_RELAXED))
		return false;
	st.level = __atomic_load_n(&es->level, __ATOMIC_RELAXED);
	st.match_any = __atomic_load_n(&es->match_any, __ATOMIC_RELAXED);
	st.match_all = __atomic_load_n(&es->match_all, __ATOMIC_RELAXED);
	return etw_state_passes(&st, level, keyword);
}

/* ETW_IOC_WRITE under @ref; returns a Win32 error. */
ULONG etw_prov_write(const struct etw_prov_ref *ref,
		     struct etw_write_args *args);

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
