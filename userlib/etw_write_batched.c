// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * etw_write_batched.c - the write entry points' batched copies, which a
 * process takes once it switched batched writes on (Documentation/
 * libetw.rst, "Batched writes"): a plain event is staged in the calling
 * thread's ring (etw_batch.h) without a system call; any other goes to the
 * _direct copy of etw_write.c.  The thread remembers the event it staged
 * last, so that a write of the same event skips the handle and enable
 * checks while nothing they read has changed.
 */
#include "etw_batch.h"
#include "etw_provider.h"
#include "etw_write.h"

/*
 * Can the batched copy of an entry point stage the event of @handle?
 * Sets @ref when it can; when not, the event goes the direct way, which
 * also reports a bad handle or descriptor.
 */
static __always_inline bool
etw_batch_may_stage(REGHANDLE handle, PCEVENT_DESCRIPTOR desc,
		    struct etw_prov_ref *ref)
{
	return etw_prov_lookup(handle, ref) && etw_batch_plain(ref) && desc;
}

/* etw_event_write_batched() for all but its fast path. */
static __attribute_noinline__ ULONG
etw_event_write_batched_slow(REGHANDLE handle, PCEVENT_DESCRIPTOR desc,
			     LPCGUID activity, LPCGUID related, ULONG count,
			     PEVENT_DATA_DESCRIPTOR data)
{
	struct etw_prov_ref ref;

	if (!etw_batch_may_stage(handle, desc, &ref))
		return etw_event_write_direct(handle, desc, activity, related,
					      count, data);
	/* As on Windows, a disabled event costs no system call. */
	if (!etw_prov_may_take(&ref, desc->Level, desc->Keyword))
		return ERROR_SUCCESS;
	if (etw_batch_stage(ref.fd, ref.reg_id, desc,
			    activity ?: &etw_thread_activity, count, data, 0))
		return ERROR_SUCCESS;
	return etw_event_write_direct(handle, desc, activity, related, count,
				      data);
}

/* A staged write filled the ring past half: drain it. */
static __attribute_noinline__ ULONG etw_event_write_drain(void)
{
	etw_batch_drain_more(&etw_batch_thread);
	return ERROR_SUCCESS;
}

/*
 * Stage without a call (etw_batch_stage_one()), else the slow way with
 * @handle and @count, which the caller may pass as it can read them
 * again: the registers it keeps across the stage are what costs.
 */
static __always_inline ULONG
etw_event_write_stage(struct etw_batch *b, REGHANDLE handle,
		      PCEVENT_DESCRIPTOR desc, bool open,
		      const uint32_t *reg_id, LPCGUID activity, ULONG count,
		      PEVENT_DATA_DESCRIPTOR data)
{
	switch (etw_batch_stage_one(b, open, reg_id, desc,
				    activity ?: &etw_thread_activity, count,
				    data)) {
	case ETW_BATCH_STAGED:
		return ERROR_SUCCESS;
	case ETW_BATCH_STAGED_DRAIN:
		return etw_event_write_drain();
	case ETW_BATCH_SLOW:
		break;
	}
	return etw_event_write_batched_slow(handle, desc, activity, NULL,
					    count, data);
}

/*
 * The thread staged this event last (same handle, level and keyword), and
 * neither the registration table nor the registration's enable state has
 * changed since: the checks then passed, and would again.  The generation
 * is tested first: it is 0 in a thread that remembers nothing.  Relaxed:
 * a write that races a change takes the remembered result, as one that
 * raced the checks themselves would; the kernel filters again.
 */
static __always_inline bool
etw_batch_same_event(const struct etw_batch_last *l, REGHANDLE handle,
		     PCEVENT_DESCRIPTOR desc)
{
	return handle == l->handle &&
	       __atomic_load_n(&etw_prov_gen, __ATOMIC_RELAXED) == l->gen &&
	       desc && desc->Level == l->level &&
	       desc->Keyword == l->keyword &&
	       __atomic_load_n(&l->state->seq, __ATOMIC_RELAXED) == l->seq;
}

/*
 * Checks as a direct write makes them, then the stage; the thread
 * remembers the event once its ring is open on the registration's file.
 * @gen and @seq are read before what they cover: a change after them
 * moves them on.
 */
static __attribute_noinline__ ULONG
etw_event_write_batched_lookup(REGHANDLE handle, PCEVENT_DESCRIPTOR desc,
			       LPCGUID activity, ULONG count,
			       PEVENT_DATA_DESCRIPTOR data)
{
	/* Pairs with the release in etw_prov_gen_next(). */
	uint64_t gen = __atomic_load_n(&etw_prov_gen, __ATOMIC_ACQUIRE);
	struct etw_batch *b = &etw_batch_thread;
	struct etw_prov_ref ref;
	uint32_t seq;

	if (!etw_batch_may_stage(handle, desc, &ref))
		goto slow;
	/* Pairs with the kernel's store of the even seq after the fields. */
	seq = __atomic_load_n(&ref.state->seq, __ATOMIC_ACQUIRE);
	/* As on Windows, a disabled event costs no system call. */
	if (!etw_prov_may_take(&ref, desc->Level, desc->Keyword))
		return ERROR_SUCCESS;
	/* Only with a ring on its file: the remembered path stages there. */
	if (!(seq & 1) && b->gate.dev_fd == ref.fd)
		b->last = (struct etw_batch_last){
			.handle = handle,
			.gen = gen,
			.keyword = desc->Keyword,
			.state = ref.state,
			.seq = seq,
			.reg_id = ref.reg_id,
			.level = desc->Level,
		};
	return etw_event_write_stage(b, handle, desc,
				     etw_batch_gate_open(b, ref.fd),
				     &ref.reg_id, activity, count, data);
slow:
	return etw_event_write_batched_slow(handle, desc, activity, NULL,
					    count, data);
}

/*
 * The batched entry points' common write, whose fast path makes no call
 * (a call costs the registers it must keep): the same event as the last
 * stages at once; everything else goes to etw_event_write_batched_lookup(),
 * etw_event_write_batched_slow() or etw_event_write_drain(), all jumps.
 * Its callers stage only writes without a related activity.
 */
static __always_inline ULONG
etw_event_write_batched(REGHANDLE handle, PCEVENT_DESCRIPTOR desc,
			LPCGUID activity, ULONG count,
			PEVENT_DATA_DESCRIPTOR data)
{
	struct etw_batch *b = &etw_batch_thread;

	if (!etw_batch_same_event(&b->last, handle, desc))
		return etw_event_write_batched_lookup(handle, desc, activity,
						      count, data);
	if (count != 1)
		return etw_event_write_batched_slow(handle, desc, activity,
						    NULL, count, data);
	/*
	 * The handle is the one remembered, the count 1; the ring is on the
	 * remembered registration's file (remembered once it staged there).
	 */
	return etw_event_write_stage(b, b->last.handle, desc, !b->gate.closed,
				     &b->last.reg_id, activity, 1, data);
}

/* EventWrite's: the thread's activity. */
__attribute_noinline__ ULONG
etw_event_write_plain_batched(REGHANDLE handle, PCEVENT_DESCRIPTOR desc,
			      ULONG count, PEVENT_DATA_DESCRIPTOR data)
{
	return etw_event_write_batched(handle, desc, NULL, count, data);
}

/* EventWriteTransfer's, without a related activity. */
__attribute_noinline__ ULONG
etw_event_write_transfer_batched(REGHANDLE handle, PCEVENT_DESCRIPTOR desc,
				 LPCGUID activity, ULONG count,
				 PEVENT_DATA_DESCRIPTOR data)
{
	return etw_event_write_batched(handle, desc, activity, count, data);
}

/* EventWriteEx's, without a filter, flags or a related activity. */
__attribute_noinline__ ULONG
etw_event_write_ex_batched(REGHANDLE handle, PCEVENT_DESCRIPTOR desc,
			   LPCGUID activity, ULONG count,
			   PEVENT_DATA_DESCRIPTOR data)
{
	struct etw_prov_ref ref;

	if (!etw_batch_may_stage(handle, desc, &ref))
		return etw_event_write_ex_direct(handle, desc, 0, 0, activity,
						 NULL, count, data);
	if (!etw_prov_may_take(&ref, desc->Level, desc->Keyword))
		return ERROR_SUCCESS;
	if (etw_batch_stage(ref.fd, ref.reg_id, desc,
			    activity ?: &etw_thread_activity, count, data, 0))
		return ERROR_SUCCESS;
	return etw_event_write_ex_direct(handle, desc, 0, 0, activity, NULL,
					 count, data);
}
