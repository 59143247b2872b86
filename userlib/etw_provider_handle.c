// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * etw_provider_handle.c - the registration table behind REGHANDLE:
 * registering and unregistering, publishing an entry to the lock-free
 * lookup (etw_prov_lookup() in etw_provider.h) and to evntprov.h's inline
 * enable check, forgetting the parent's entries in a fork() child, and the
 * dispatch of notifications to enable callbacks (on the thread that
 * etw_callback.c runs).
 *
 * See etw_provider.h for the handle encoding.  Registration and
 * unregistration take etw_prov_lock; validating a handle takes no lock
 * and makes no system call.
 */
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>

#include "etw_batch.h"
#include "etw_callback.h"
#include "etw_provider.h"
#include "wmistr.h"

/* How long EventRegister waits for the registration-time callback. */
#define ETW_REGISTER_CALLBACK_WAIT_S	2

static pthread_mutex_t etw_prov_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t etw_prov_cond = PTHREAD_COND_INITIALIZER;
struct etw_prov etw_provs[ETW_MAX_REGISTRATIONS];	/* etw_provider.h */
static uint64_t etw_prov_incarnation;		/* under etw_prov_lock */
static uint64_t etw_prov_running;		/* handle in callback; ditto */
static __thread REGHANDLE etw_prov_current;	/* whose callback runs here */
static pthread_once_t etw_prov_atfork_once = PTHREAD_ONCE_INIT;

/* What EtwRegistrationEnabled points at for a slot without registration. */
static const ULONG etw_prov_never_enabled;

uint64_t etw_prov_gen = 1;

/*
 * After the change: pairs with the acquire load of etw_prov_gen before a
 * lookup that a thread remembers (etw_event_write_batched_lookup()), so
 * that a lookup remembered with the new value saw the change.
 */
static void etw_prov_gen_next(void)
{
	__atomic_fetch_add(&etw_prov_gen, 1, __ATOMIC_RELEASE);
}

/* evntprov.h's inline disabled check; see etw_prov_publish(). */
const volatile ULONG *volatile
EtwRegistrationEnabled[ETW_REGISTRATION_SLOTS] = {
	[0 ... ETW_REGISTRATION_SLOTS - 1] = &etw_prov_never_enabled,
};

_Static_assert(ETW_REGISTRATION_SLOTS == ETW_MAX_REGISTRATIONS &&
	       ETW_PROV_SLOT_MASK >= ETW_REGISTRATION_SLOTS,
	       "the inline check indexes the registration table");
_Static_assert(offsetof(struct etw_enable_state, enabled) == 0 &&
	       sizeof(((struct etw_enable_state *)0)->enabled) ==
	       sizeof(ULONG), "the inline check reads enabled as a ULONG");

/**
 * etw_prov_get() - validate a handle without a system call
 * @handle: the REGHANDLE
 * @ref: out: the registration's id, enable state, file and flags
 *
 * Return: true when @handle is a live registration of this process.
 */
bool etw_prov_get(REGHANDLE handle, struct etw_prov_ref *ref)
{
	return etw_prov_lookup(handle, ref);
}

/*
 * @p's entry in EtwRegistrationEnabled: the inline check indexes the
 * table with the handle's low bits, slot + 1, so that it needs no
 * subtraction.
 */
static const volatile ULONG *volatile *
etw_prov_enabled_entry(struct etw_prov *p)
{
	return &EtwRegistrationEnabled[(p - etw_provs + 1) %
				       ETW_REGISTRATION_SLOTS];
}

/* Make @p invisible to etw_prov_get() before its fields change. */
static void etw_prov_retire(struct etw_prov *p)
{
	*etw_prov_enabled_entry(p) = &etw_prov_never_enabled;
	atomic_store_explicit(&p->handle, 0, memory_order_relaxed);
	/*
	 * Pairs with the acquire fence in etw_prov_lookup(): a reader that
	 * sees a field written after this fence sees the handle cleared.
	 */
	atomic_thread_fence(memory_order_release);
	etw_prov_gen_next();
}

static void etw_prov_publish(struct etw_prov *p,
			     const struct etw_register_args *a,
			     const struct etw_enable_state *map, int fd)
{
	const struct etw_enable_state *state = &map[a->enable_index];

	atomic_store_explicit(&p->reg_id, a->reg_id, memory_order_relaxed);
	atomic_store_explicit(&p->state, state, memory_order_relaxed);
	atomic_store_explicit(&p->fd, fd, memory_order_relaxed);
	atomic_store_explicit(&p->flags, p->cb.classic ? ETW_PROV_CLASSIC : 0,
			      memory_order_relaxed);
	/*
	 * The inline check in evntprov.h loads this pointer, then the word
	 * it points to: the address dependency orders the two.  Stored
	 * before the handle's release below, so a thread that learnt the
	 * handle sees the pointer; until then the slot reads as disabled.
	 */
	*etw_prov_enabled_entry(p) = &state->enabled;
	/* Pairs with the first (acquire) handle load in etw_prov_lookup(). */
	atomic_store_explicit(&p->handle, p->cookie, memory_order_release);
}

/* A free entry: never used, unregistered, or inherited across fork(). */
static struct etw_prov *etw_prov_alloc_locked(void)
{
	unsigned int i;

	for (i = 0; i < ETW_MAX_REGISTRATIONS; i++)
		if (!etw_provs[i].cookie)
			return &etw_provs[i];
	return NULL;
}

/* fork() must not leave the child with a lock another thread held. */
static void etw_prov_prepare_fork(void)
{
	pthread_mutex_lock(&etw_prov_lock);
}

static void etw_prov_parent_fork(void)
{
	pthread_mutex_unlock(&etw_prov_lock);
}

static void etw_prov_child_fork(void)
{
	unsigned int i;

	/*
	 * Every inherited registration is the parent's: forget it, so that
	 * its handle is invalid here (incarnations keep counting, so no
	 * later handle of the child equals it).  Only this thread runs.
	 */
	for (i = 0; i < ETW_MAX_REGISTRATIONS; i++) {
		etw_prov_retire(&etw_provs[i]);
		etw_provs[i].cookie = 0;
		etw_provs[i].live = false;
	}
	/* The callback thread and any waiters exist only in the parent. */
	etw_prov_running = 0;
	etw_prov_current = 0;
	etw_callback_after_fork();
	pthread_cond_init(&etw_prov_cond, NULL);
	pthread_mutex_unlock(&etw_prov_lock);
}

static void etw_prov_install_atfork(void)
{
	pthread_atfork(etw_prov_prepare_fork, etw_prov_parent_fork,
		       etw_prov_child_fork);
}

static void etw_prov_deadline(struct timespec *ts)
{
	clock_gettime(CLOCK_REALTIME, ts);
	ts->tv_sec += ETW_REGISTER_CALLBACK_WAIT_S;
}

/*
 * Windows runs the callback of a provider that sessions already enable
 * before EventRegister returns; here the notification thread runs it, and
 * the registering thread waits.  The wait is bounded because the kernel
 * drops notifications past a full queue (the enable area still holds the
 * state), and a stuck callback must not hang EventRegister for ever.
 */
static void etw_prov_wait_first_locked(struct etw_prov *p, uint64_t handle)
{
	struct timespec deadline;

	if (!p->cb.enable && !p->cb.request)
		return;
	if (etw_callback_on_thread() ||
	    !__atomic_load_n(&atomic_load(&p->state)->enabled,
			     __ATOMIC_RELAXED))
		return;
	etw_prov_deadline(&deadline);
	while (p->cookie == handle && !p->called)
		if (pthread_cond_timedwait(&etw_prov_cond, &etw_prov_lock,
					   &deadline) == ETIMEDOUT)
			break;
}

/**
 * etw_prov_callback_begin() - claim the callback of a notification
 * @cookie: the notification's cookie (the handle)
 * @cb: out: what to call
 *
 * Context: the notification thread.
 * Return: true when the registration is live and has a callback, which is
 * then marked running until etw_prov_callback_done().
 */
static bool etw_prov_callback_begin(uint64_t cookie,
				    struct etw_prov_callback *cb)
{
	struct etw_prov *p = etw_prov_slot(cookie);
	bool ok;

	if (!p)
		return false;
	pthread_mutex_lock(&etw_prov_lock);
	/* The kernel queues a notification before EventRegister returns. */
	while (p->cookie == cookie && !p->live)
		pthread_cond_wait(&etw_prov_cond, &etw_prov_lock);
	ok = p->cookie == cookie && (p->cb.enable || p->cb.request);
	if (ok) {
		*cb = p->cb;
		etw_prov_running = cookie;
	}
	pthread_mutex_unlock(&etw_prov_lock);
	return ok;
}

/**
 * etw_prov_callback_done() - the claimed callback returned
 * @cookie: as passed to etw_prov_callback_begin()
 *
 * Context: the notification thread.
 */
static void etw_prov_callback_done(uint64_t cookie)
{
	struct etw_prov *p = etw_prov_slot(cookie);

	pthread_mutex_lock(&etw_prov_lock);
	etw_prov_running = 0;
	if (p->cookie == cookie)
		p->called = true;
	pthread_cond_broadcast(&etw_prov_cond);
	pthread_mutex_unlock(&etw_prov_lock);
}

static void etw_prov_call_manifest(const struct etw_prov_callback *cb,
				   const struct etw_notification *n)
{
	EVENT_FILTER_DESCRIPTOR filter = {
		/* The filter data ends the notification. */
		.Ptr = (uintptr_t)n + n->size - n->filter_size,
		.Size = n->filter_size,
		.Type = EVENT_FILTER_TYPE_SCHEMATIZED,
	};

	cb->enable((LPCGUID)&n->source_id, n->control_code, n->level,
		   n->match_any, n->match_all,
		   n->filter_size ? &filter : NULL, cb->context);
}

static WMIDPREQUESTCODE etw_classic_code(uint32_t control)
{
	switch (control) {
	case ETW_CONTROL_ENABLE:
		return WMI_ENABLE_EVENTS;
	case ETW_CONTROL_DISABLE:
		return WMI_DISABLE_EVENTS;
	default:
		return WMI_CAPTURE_STATE;
	}
}

/*
 * A classic provider gets a WNODE_HEADER whose HistoricalContext is the
 * logger handle for GetTraceLoggerHandle() and TraceEvent().
 */
static void etw_prov_call_classic(const struct etw_prov_callback *cb,
				  const struct etw_notification *n)
{
	WNODE_HEADER wnode = {
		.BufferSize = sizeof(wnode),
		.HistoricalContext = n->cookie | ETW_PROV_LOGGER_BIT,
		.Guid = cb->guid,
		.Flags = WNODE_FLAG_TRACED_GUID,
	};
	ULONG size = sizeof(wnode);

	cb->request(etw_classic_code(n->control_code), cb->context, &size,
		    &wnode);
}

/*
 * etw_callback.c's dispatch function: run the callback of the
 * registration a notification's cookie names.  The thread acknowledges
 * the notification when this returns.
 */
static void etw_prov_notify(const struct etw_notification *n)
{
	struct etw_prov_callback cb;

	if (!etw_prov_callback_begin(n->cookie, &cb))
		return;
	etw_prov_current = n->cookie;
	if (cb.classic)
		etw_prov_call_classic(&cb, n);
	else
		etw_prov_call_manifest(&cb, n);
	etw_prov_current = 0;
	etw_prov_callback_done(n->cookie);
}

static ULONG etw_prov_reserve(const struct etw_prov_callback *cb, int fd,
			      struct etw_prov **slot, uint64_t *handle)
{
	struct etw_prov *p;
	int err;

	pthread_mutex_lock(&etw_prov_lock);
	err = etw_callback_ensure(fd, etw_dev_generation(), etw_prov_notify);
	p = err ? NULL : etw_prov_alloc_locked();
	if (p) {
		etw_prov_retire(p);
		*handle = (++etw_prov_incarnation << 16) |
			  (uint64_t)(p - etw_provs + 1);
		p->cookie = *handle;
		p->live = false;
		p->called = false;
		p->cb = *cb;
	}
	pthread_mutex_unlock(&etw_prov_lock);
	*slot = p;
	/* ETW's limit is 1,024 registrations per process. */
	return p ? ERROR_SUCCESS : ERROR_NOT_ENOUGH_MEMORY;
}

/**
 * etw_prov_register() - register a provider on the process's file
 * @flags: ETW_REGISTER_*
 * @cb: the GUID and what the notification thread calls
 * @handle: out: the handle, set before any callback can run
 *
 * Return: a Win32 error.
 */
ULONG etw_prov_register(uint32_t flags, const struct etw_prov_callback *cb,
			REGHANDLE *handle)
{
	struct etw_register_args a = { .size = sizeof(a), .flags = flags };
	const struct etw_enable_state *map;
	struct etw_prov *p = NULL;
	uint64_t h = 0;
	int fd, ret;
	ULONG err;

	pthread_once(&etw_prov_atfork_once, etw_prov_install_atfork);
	etw_batch_init();
	fd = etw_dev_fd();
	if (fd < 0)
		return etw_win32_from_errno(fd);
	map = etw_dev_enable_map();
	if (!map)
		return ERROR_NOT_ENOUGH_MEMORY;
	err = etw_prov_reserve(cb, fd, &p, &h);
	if (err)
		return err;
	memcpy(&a.guid, &cb->guid, sizeof(a.guid));
	a.cookie = h;
	ret = ioctl(fd, ETW_IOC_REGISTER, &a) ? -errno : 0;

	pthread_mutex_lock(&etw_prov_lock);
	if (ret) {
		p->cookie = 0;
	} else {
		etw_prov_publish(p, &a, map, fd);
		p->live = true;
		*handle = h;
	}
	/* The notification thread may wait for this registration. */
	pthread_cond_broadcast(&etw_prov_cond);
	if (!ret)
		etw_prov_wait_first_locked(p, h);
	pthread_mutex_unlock(&etw_prov_lock);
	if (ret == -EMFILE)
		return ERROR_NOT_ENOUGH_MEMORY;
	return etw_win32_from_errno(ret);
}

/*
 * No callback of @handle may start after this returns.  One that is
 * running is waited for, unless the caller is that callback (it returns
 * to the thread, which then starts no other callback of @handle).
 */
static void etw_prov_wait_callback_locked(REGHANDLE handle)
{
	if (etw_prov_current == handle)
		return;
	while (etw_prov_running == handle)
		pthread_cond_wait(&etw_prov_cond, &etw_prov_lock);
}

/**
 * etw_prov_unregister() - end a registration
 * @handle: the handle
 *
 * Return: 0, or ERROR_INVALID_HANDLE.
 */
ULONG etw_prov_unregister(REGHANDLE handle)
{
	struct etw_unregister_args u = { .size = sizeof(u) };
	struct etw_prov_ref ref;
	struct etw_prov *p;
	int ret;

	if (!etw_prov_get(handle, &ref))
		return ERROR_INVALID_HANDLE;
	p = etw_prov_slot(handle);
	pthread_mutex_lock(&etw_prov_lock);
	/* Another thread may have unregistered it since the check. */
	if (p->cookie != handle || !p->live) {
		pthread_mutex_unlock(&etw_prov_lock);
		return ERROR_INVALID_HANDLE;
	}
	etw_prov_retire(p);
	p->cookie = 0;
	p->live = false;
	pthread_mutex_unlock(&etw_prov_lock);

	/* The kernel also drops this registration's queued notifications. */
	u.reg_id = ref.reg_id;
	ret = etw_dev_ioctl(ETW_IOC_UNREGISTER, &u);

	pthread_mutex_lock(&etw_prov_lock);
	etw_prov_wait_callback_locked(handle);
	pthread_mutex_unlock(&etw_prov_lock);
	return etw_win32_from_errno(ret);
}

/**
 * etw_prov_set_desc_types() - honour EVENT_DATA_DESCRIPTOR.Type or not
 * @handle: a validated handle
 * @on: honour it
 */
void etw_prov_set_desc_types(REGHANDLE handle, bool on)
{
	struct etw_prov *p = etw_prov_slot(handle);

	if (!p)
		return;
	if (on)
		atomic_fetch_or_explicit(&p->flags, ETW_PROV_DESC_TYPES,
					 memory_order_relaxed);
	else
		atomic_fetch_and_explicit(&p->flags,
					  (uint8_t)~ETW_PROV_DESC_TYPES,
					  memory_order_relaxed);
	etw_prov_gen_next();
}

/* --- the exported registration API ---------------------------------------- */

/**
 * EventRegister() - register a manifest or TraceLogging provider
 * @ProviderId: provider GUID
 * @EnableCallback: called on libetw's notification thread, or NULL
 * @CallbackContext: passed to @EnableCallback
 * @RegHandle: out: the handle
 *
 * Return: 0, ERROR_INVALID_PARAMETER for a NULL @ProviderId or
 * @RegHandle, ERROR_NOT_ENOUGH_MEMORY past 1,024 registrations.
 */
ULONG EVNTAPI EventRegister(LPCGUID ProviderId, PENABLECALLBACK EnableCallback,
			    PVOID CallbackContext, PREGHANDLE RegHandle)
{
	struct etw_prov_callback cb = {
		.enable = EnableCallback,
		.context = CallbackContext,
	};

	if (!ProviderId || !RegHandle)
		return ERROR_INVALID_PARAMETER;
	*RegHandle = 0;
	cb.guid = *ProviderId;
	return etw_prov_register(0, &cb, RegHandle);
}

/**
 * EventUnregister() - end a registration
 * @RegHandle: the handle
 *
 * No callback of @RegHandle runs after this returns: one in progress on
 * the notification thread is waited for, unless EventUnregister is called
 * from that callback.
 *
 * Return: 0, or ERROR_INVALID_HANDLE for a handle that is not registered.
 */
ULONG EVNTAPI EventUnregister(REGHANDLE RegHandle)
{
	return etw_prov_unregister(RegHandle);
}
