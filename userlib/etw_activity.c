// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * etw_activity.c - EventActivityIdControl: the thread's activity ID.
 *
 * CREATE_ID makes IDs that are unique without asking the kernel: the
 * first 8 bytes (Data1, Data2, Data3) are a random 64-bit prefix drawn
 * once per process with getrandom(), the last 8 (Data4) a per-process
 * counter, most significant byte first.  IDs of one process never repeat;
 * two processes collide only if their prefixes do (2^-64 per pair).  A
 * fork() child draws a new prefix, so it never repeats its parent's IDs.
 * Like Windows' IDs, they are not RFC 4122 GUIDs.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/random.h>

#include "etw_provider.h"

/* The thread's activity ID; etw_provider.h declares it for the write path. */
__thread GUID etw_thread_activity __attribute__((tls_model("initial-exec")));
static _Atomic uint64_t etw_activity_prefix;	/* 0: not drawn yet */
static atomic_uint_fast64_t etw_activity_counter;
static pthread_once_t etw_activity_atfork_once = PTHREAD_ONCE_INIT;

static void etw_activity_child_after_fork(void)
{
	atomic_store(&etw_activity_prefix, 0);
	atomic_store(&etw_activity_counter, 0);
}

static void etw_activity_install_atfork(void)
{
	pthread_atfork(NULL, NULL, etw_activity_child_after_fork);
}

static int etw_activity_get_prefix(uint64_t *prefix)
{
	uint64_t v = atomic_load_explicit(&etw_activity_prefix,
					  memory_order_relaxed), expected = 0;
	ssize_t n;

	if (v) {
		*prefix = v;
		return 0;
	}
	pthread_once(&etw_activity_atfork_once, etw_activity_install_atfork);
	do {
		do
			n = getrandom(&v, sizeof(v), 0);
		while (n < 0 && errno == EINTR);
		if (n != sizeof(v))
			return n < 0 ? -errno : -EIO;
	} while (!v);
	/* The first thread to draw wins; the others adopt its prefix. */
	if (!atomic_compare_exchange_strong_explicit(&etw_activity_prefix,
						     &expected, v,
						     memory_order_relaxed,
						     memory_order_relaxed))
		v = expected;
	*prefix = v;
	return 0;
}

static ULONG etw_activity_create(GUID *id)
{
	uint64_t prefix = 0, seq;
	int ret, i;

	ret = etw_activity_get_prefix(&prefix);
	if (ret)
		return etw_win32_from_errno(ret);
	/* Only uniqueness matters, no ordering with other memory. */
	seq = atomic_fetch_add_explicit(&etw_activity_counter, 1,
					memory_order_relaxed);
	id->Data1 = (ULONG)(prefix >> 32);
	id->Data2 = (USHORT)(prefix >> 16);
	id->Data3 = (USHORT)prefix;
	for (i = 0; i < 8; i++)
		id->Data4[i] = (UCHAR)(seq >> (56 - 8 * i));
	return ERROR_SUCCESS;
}

/**
 * EventActivityIdControl() - get, set or create the thread's activity ID
 * @ControlCode: EVENT_ACTIVITY_CTRL_*
 * @ActivityId: in/out as the code says
 *
 * GET_ID copies the thread's ID out; SET_ID sets it; CREATE_ID makes a new
 * ID (see above) without touching the thread's; GET_SET_ID swaps the two;
 * CREATE_SET_ID returns the old thread ID and sets a new one.  A thread
 * starts with GUID_NULL.
 *
 * Return: 0, or ERROR_INVALID_PARAMETER for a NULL @ActivityId or an
 * unknown @ControlCode.
 */
ULONG EVNTAPI EventActivityIdControl(ULONG ControlCode, LPGUID ActivityId)
{
	GUID old = etw_thread_activity;
	ULONG err;

	if (!ActivityId)
		return ERROR_INVALID_PARAMETER;
	switch (ControlCode) {
	case EVENT_ACTIVITY_CTRL_GET_ID:
		*ActivityId = old;
		return ERROR_SUCCESS;
	case EVENT_ACTIVITY_CTRL_SET_ID:
		etw_thread_activity = *ActivityId;
		return ERROR_SUCCESS;
	case EVENT_ACTIVITY_CTRL_CREATE_ID:
		return etw_activity_create(ActivityId);
	case EVENT_ACTIVITY_CTRL_GET_SET_ID:
		etw_thread_activity = *ActivityId;
		*ActivityId = old;
		return ERROR_SUCCESS;
	case EVENT_ACTIVITY_CTRL_CREATE_SET_ID:
		err = etw_activity_create(&etw_thread_activity);
		if (!err)
			*ActivityId = old;
		return err;
	default:
		return ERROR_INVALID_PARAMETER;
	}
}
