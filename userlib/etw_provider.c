// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * etw_provider.c - the registration table behind REGHANDLE, the lock-free
 * enable check over the mapped enable area, the write path, and the
 * dispatch of notifications to enable callbacks (on the thread that
 * etw_callback.c runs).
 *
 * See etw_provider.h for the handle encoding.  Registration and
 * unregistration take etw_prov_lock; validating a handle, checking the
 * enable state and writing take no lock and make at most the one
 * ETW_IOC_WRITE system call.
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

static pthread_mutex_t etw_prov_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t etw_prov_cond = PTHREAD_COND_INITIALIZER;
static struct etw_prov etw_provs[ETW_MAX_REGISTRATIONS];
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

/* EventWrite hands these arrays to the kernel as they are. */
_Static_assert(sizeof(EVENT_DATA_DESCRIPTOR) ==
	       sizeof(struct etw_data_descriptor), "data descriptor");
_Static_assert(sizeof(EVENT_DESCRIPTOR) ==
	       sizeof(struct etw_event_descriptor), "event descriptor");
_Static_assert(sizeof(GUID) == sizeof(struct etw_guid), "GUID");

static struct etw_prov *etw_prov_slot(REGHANDLE handle)
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

/*
 * The seqcount reader of struct etw_enable_state (uapi/linux/etw.h).  The
 * kernel's etw_state_publish() stores seq odd, smp_wmb(), the fields,
 * smp_wmb(), seq even.
 */
static __always_inline void
etw_state_read(const struct etw_enable_state *es, struct etw_prov_state *st)
{
	uint32_t seq;

	do {
		/*
		 * Pairs with the second smp_wmb() of etw_state_publish()
		 * (before seq becomes even): an even seq seen here comes
		 * with the fields written before it.
		 */
		seq = __atomic_load_n(&es->seq, __ATOMIC_ACQUIRE);
		st->enabled = __atomic_load_n(&es->enabled, __ATOMIC_RELAXED);
		st->level = __atomic_load_n(&es->level, __ATOMIC_RELAXED);
		st->match_any = __atomic_load_n(&es->match_any,
						__ATOMIC_RELAXED);
		st->match_all = __atomic_load_n(&es->match_all,
						__ATOMIC_RELAXED);
		/*
		 * Pairs with the first smp_wmb() of etw_state_publish()
		 * (after seq becomes odd): if a field load saw a new value,
		 * the seq load below sees the odd or a later count.
		 */
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
	} while ((seq & 1) ||
		 __atomic_load_n(&es->seq, __ATOMIC_RELAXED) != seq);
}

/* The write path's inlined enable check: st is valid when it returns true. */
static __always_inline bool
etw_prov_state_of(const struct etw_prov_ref *ref, struct etw_prov_state *st)
{
	/* The disabled path: one load, no seq protocol. */
	if (!__atomic_load_n(&ref->state->enabled, __ATOMIC_RELAXED))
		return false;
	etw_state_read(ref->state, st);
	return st->enabled;
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

/* The predicate over a consistent copy of @ref's state. */
static __always_inline bool
etw_prov_passes(const struct etw_prov_ref *ref, UCHAR level,
		ULONGLONG keyword)
{
	struct etw_prov_state st;

	return etw_prov_state_of(ref, &st) &&
	       etw_state_passes(&st, level, keyword);
}

/**
 * etw_prov_state() - a consistent copy of a registration's enable state
 * @ref: the registration
 * @st: out: the state, all zero while disabled
 *
 * Return: true when at least one session enables the registration.
 */
bool etw_prov_state(const struct etw_prov_ref *ref, struct etw_prov_state *st)
{
	if (etw_prov_state_of(ref, st))
		return true;
	memset(st, 0, sizeof(*st));
	return false;
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

/* The write path's errors, as Windows documents them for EventWrite. */
static ULONG etw_write_error(int err)
{
	switch (-err) {
	case E2BIG:
		return ERROR_ARITHMETIC_OVERFLOW;
	case EMSGSIZE:
		return ERROR_MORE_DATA;
	case ENOBUFS:
		return ERROR_NOT_ENOUGH_MEMORY;
	case EBADF:
		return ERROR_INVALID_HANDLE;
	case EINVAL:
	case EFAULT:	/* an unreadable descriptor or payload */
		return ERROR_INVALID_PARAMETER;
	default:
		return etw_win32_from_errno(err);
	}
}

/* ETW_IOC_WRITE on the registration's file; @args lacks only the flags. */
static __always_inline ULONG
etw_prov_ioctl_write(const struct etw_prov_ref *ref,
		     struct etw_write_args *args)
{
	long err;

	args->size = sizeof(*args);
	args->reg_id = ref->reg_id;
	/* The same bit (etw_provider.h). */
	args->flags |= ref->flags & ETW_PROV_DESC_TYPES;
	err = etw_sys_ioctl(ref->fd, ETW_IOC_WRITE, args);
	if (!err)
		return ERROR_SUCCESS;
	return etw_write_error(err);
}

/**
 * etw_prov_write() - ETW_IOC_WRITE under a registration
 * @ref: the registration
 * @args: the event; size, reg_id and the descriptor-type flag are set here
 *
 * For the classic writes, which ETW_WRITE_DRAIN does not go with: a
 * thread that staged events has them routed first by a drain of its own.
 *
 * Return: a Win32 error (see etw_write_error()).
 */
ULONG etw_prov_write(const struct etw_prov_ref *ref,
		     struct etw_write_args *args)
{
	if (etw_batch_state() && etw_batch_pending())
		etw_batch_drain(&etw_batch_thread);
	return etw_prov_ioctl_write(ref, args);
}

/* --- the exported provider API -------------------------------------------- */

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

/**
 * EventEnabled() - would any session take this event?
 * @RegHandle: the handle
 * @EventDescriptor: the event
 *
 * Return: TRUE when the combined enable state passes the event's level
 * and keyword; FALSE for an invalid handle.  No system call.
 */
BOOLEAN EVNTAPI (EventEnabled)(REGHANDLE RegHandle,
			       PCEVENT_DESCRIPTOR EventDescriptor)
{
	struct etw_prov_ref ref;

	if (!EventDescriptor || !etw_prov_lookup(RegHandle, &ref))
		return FALSE;
	return etw_prov_passes(&ref, EventDescriptor->Level,
			       EventDescriptor->Keyword);
}

/**
 * EventProviderEnabled() - EventEnabled() for a level and a keyword
 * @RegHandle: the handle
 * @Level: event level
 * @Keyword: event keyword
 *
 * Return: as EventEnabled().
 */
BOOLEAN EVNTAPI (EventProviderEnabled)(REGHANDLE RegHandle, UCHAR Level,
				       ULONGLONG Keyword)
{
	struct etw_prov_ref ref;

	if (!etw_prov_lookup(RegHandle, &ref))
		return FALSE;
	return etw_prov_passes(&ref, Level, Keyword);
}

/*
 * EventWriteEx's whole work, for a validated registration: the direct
 * write.  Inlined into each caller with everything it uses but the ioctl,
 * and every argument field stored once: under a TCG guest each call and
 * each rep-stos fill was measurable against the system call itself.
 */
static __always_inline ULONG
etw_event_write_ref(const struct etw_prov_ref *ref, PCEVENT_DESCRIPTOR desc,
		    ULONG64 filter, LPCGUID activity, LPCGUID related,
		    ULONG count, PEVENT_DATA_DESCRIPTOR data, uint32_t flags)
{
	struct etw_write_args a;

	if (!desc)
		return ERROR_INVALID_PARAMETER;
	/* As on Windows, a disabled event costs no system call. */
	if (!etw_prov_may_take(ref, desc->Level, desc->Keyword))
		return ERROR_SUCCESS;
	memcpy(&a.descriptor, desc, sizeof(a.descriptor));
	memcpy(&a.activity_id, activity ? activity : &etw_thread_activity,
	       sizeof(a.activity_id));
	if (related) {
		memcpy(&a.related_activity_id, related,
		       sizeof(a.related_activity_id));
		flags |= ETW_WRITE_RELATED_ACTIVITY;
	} else {
		memset(&a.related_activity_id, 0,
		       sizeof(a.related_activity_id));
	}
	a.flags = flags;
	a.data_count = count;
	/* EVENT_DATA_DESCRIPTOR is struct etw_data_descriptor. */
	a.data_ptr = (uintptr_t)data;
	a.exclude_mask = filter;
	return etw_prov_ioctl_write(ref, &a);
}

/* A direct write of a process that batches: after what the thread staged. */
static __always_inline uint32_t etw_batch_drain_flag(bool batched)
{
	return batched && etw_batch_pending() ? ETW_WRITE_DRAIN : 0;
}

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

static __always_inline ULONG
etw_event_write(REGHANDLE handle, PCEVENT_DESCRIPTOR desc, LPCGUID activity,
		LPCGUID related, ULONG count, PEVENT_DATA_DESCRIPTOR data,
		bool batched)
{
	struct etw_prov_ref ref;

	if (!etw_prov_lookup(handle, &ref))
		return ERROR_INVALID_HANDLE;
	return etw_event_write_ref(&ref, desc, 0, activity, related, count,
				   data, etw_batch_drain_flag(batched));
}

/*
 * The copies of the entry points, out of line, which a process takes once
 * it switched batched writes on (etw_batch.h), so that the direct path of
 * the others keeps its registers.  The _batched ones, while the switch is
 * on and the event may be plain, stage it; any other event goes to the
 * _direct copy, with the same arguments (a jump), which has the kernel
 * drain the thread's ring first.
 */
static __attribute_noinline__ ULONG
etw_event_write_direct(REGHANDLE handle, PCEVENT_DESCRIPTOR desc,
		       LPCGUID activity, LPCGUID related, ULONG count,
		       PEVENT_DATA_DESCRIPTOR data)
{
	return etw_event_write(handle, desc, activity, related, count, data,
			       true);
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
static __attribute_noinline__ ULONG
etw_event_write_plain_batched(REGHANDLE handle, PCEVENT_DESCRIPTOR desc,
			      ULONG count, PEVENT_DATA_DESCRIPTOR data)
{
	return etw_event_write_batched(handle, desc, NULL, count, data);
}

/* EventWriteTransfer's, without a related activity. */
static __attribute_noinline__ ULONG
etw_event_write_transfer_batched(REGHANDLE handle, PCEVENT_DESCRIPTOR desc,
				 LPCGUID activity, ULONG count,
				 PEVENT_DATA_DESCRIPTOR data)
{
	return etw_event_write_batched(handle, desc, activity, count, data);
}

/**
 * EventWrite() - write an event with the thread's activity ID
 * @RegHandle: the handle
 * @EventDescriptor: the event
 * @UserDataCount: entries at @UserData, at most 128
 * @UserData: the payload pieces, concatenated without padding
 *
 * Return: 0 (also when no session takes the event), ERROR_INVALID_HANDLE,
 * ERROR_INVALID_PARAMETER (bad arguments, unreadable memory),
 * ERROR_ARITHMETIC_OVERFLOW (record over 64 KiB), ERROR_MORE_DATA (larger
 * than a session's buffer), ERROR_NOT_ENOUGH_MEMORY (a session had no free
 * buffer and lost the event).
 */
ULONG EVNTAPI EventWrite(REGHANDLE RegHandle,
			 PCEVENT_DESCRIPTOR EventDescriptor,
			 ULONG UserDataCount, PEVENT_DATA_DESCRIPTOR UserData)
{
	uint8_t batching = etw_batch_state();

	if (batching & ETW_BATCHING_ON)
		return etw_event_write_plain_batched(RegHandle, EventDescriptor,
						     UserDataCount, UserData);
	if (batching)
		return etw_event_write_direct(RegHandle, EventDescriptor, NULL,
					      NULL, UserDataCount, UserData);
	return etw_event_write(RegHandle, EventDescriptor, NULL, NULL,
			       UserDataCount, UserData, false);
}

/**
 * EventWriteTransfer() - write an event with explicit activity IDs
 * @RegHandle: the handle
 * @EventDescriptor: the event
 * @ActivityId: the activity, or NULL for the thread's
 * @RelatedActivityId: the related (parent) activity, or NULL for none
 * @UserDataCount: entries at @UserData
 * @UserData: the payload pieces
 *
 * Return: as EventWrite().
 */
ULONG EVNTAPI EventWriteTransfer(REGHANDLE RegHandle,
				 PCEVENT_DESCRIPTOR EventDescriptor,
				 LPCGUID ActivityId, LPCGUID RelatedActivityId,
				 ULONG UserDataCount,
				 PEVENT_DATA_DESCRIPTOR UserData)
{
	uint8_t batching = etw_batch_state();

	if ((batching & ETW_BATCHING_ON) && !RelatedActivityId)
		return etw_event_write_transfer_batched(RegHandle,
							EventDescriptor,
							ActivityId,
							UserDataCount,
							UserData);
	if (batching)
		return etw_event_write_direct(RegHandle, EventDescriptor,
					      ActivityId, RelatedActivityId,
					      UserDataCount, UserData);
	return etw_event_write(RegHandle, EventDescriptor, ActivityId,
			       RelatedActivityId, UserDataCount, UserData,
			       false);
}

static __always_inline ULONG
etw_event_write_ex(REGHANDLE handle, PCEVENT_DESCRIPTOR desc, ULONG64 filter,
		   ULONG flags, LPCGUID activity, LPCGUID related,
		   ULONG count, PEVENT_DATA_DESCRIPTOR data, bool batched)
{
	struct etw_prov_ref ref;

	if (!etw_prov_lookup(handle, &ref))
		return ERROR_INVALID_HANDLE;
	if (flags & ~(EVENT_WRITE_FLAG_NO_FAULTING |
		      EVENT_WRITE_FLAG_INPRIVATE))
		return ERROR_INVALID_PARAMETER;
	return etw_event_write_ref(&ref, desc, filter, activity, related,
				   count, data, etw_batch_drain_flag(batched));
}

static __attribute_noinline__ ULONG
etw_event_write_ex_direct(REGHANDLE handle, PCEVENT_DESCRIPTOR desc,
			  ULONG64 filter, ULONG flags, LPCGUID activity,
			  LPCGUID related, ULONG count,
			  PEVENT_DATA_DESCRIPTOR data)
{
	return etw_event_write_ex(handle, desc, filter, flags, activity,
				  related, count, data, true);
}

static __attribute_noinline__ ULONG
etw_event_write_ex_batched(REGHANDLE handle, PCEVENT_DESCRIPTOR desc,
			   ULONG64 filter, ULONG flags, LPCGUID activity,
			   LPCGUID related, ULONG count,
			   PEVENT_DATA_DESCRIPTOR data)
{
	struct etw_prov_ref ref;

	if (!etw_batch_may_stage(handle, desc, &ref))
		return etw_event_write_ex_direct(handle, desc, filter, flags,
						 activity, related, count,
						 data);
	if (!etw_prov_may_take(&ref, desc->Level, desc->Keyword))
		return ERROR_SUCCESS;
	if (etw_batch_stage(ref.fd, ref.reg_id, desc,
			    activity ?: &etw_thread_activity, count, data, 0))
		return ERROR_SUCCESS;
	return etw_event_write_ex_direct(handle, desc, filter, flags,
					 activity, related, count, data);
}

/**
 * EventWriteEx() - EventWriteTransfer() with a session filter and flags
 * @RegHandle: the handle
 * @EventDescriptor: the event
 * @Filter: OR of the InstanceId values (from the callback's filter data)
 *	of sessions that must not receive the event
 * @Flags: EVENT_WRITE_FLAG_NO_FAULTING or _INPRIVATE; neither changes
 *	anything here (no etw session excludes in-private events)
 * @ActivityId: the activity, or NULL for the thread's
 * @RelatedActivityId: the related activity, or NULL
 * @UserDataCount: entries at @UserData
 * @UserData: the payload pieces
 *
 * Return: as EventWrite(); ERROR_INVALID_PARAMETER for unknown @Flags.
 */
ULONG EVNTAPI EventWriteEx(REGHANDLE RegHandle,
			   PCEVENT_DESCRIPTOR EventDescriptor, ULONG64 Filter,
			   ULONG Flags, LPCGUID ActivityId,
			   LPCGUID RelatedActivityId, ULONG UserDataCount,
			   PEVENT_DATA_DESCRIPTOR UserData)
{
	uint8_t batching = etw_batch_state();

	/* A filter or a flag is for the direct path. */
	if ((batching & ETW_BATCHING_ON) && !Filter && !Flags &&
	    !RelatedActivityId)
		return etw_event_write_ex_batched(RegHandle, EventDescriptor,
						  0, 0, ActivityId, NULL,
						  UserDataCount, UserData);
	if (batching)
		return etw_event_write_ex_direct(RegHandle, EventDescriptor,
						 Filter, Flags, ActivityId,
						 RelatedActivityId,
						 UserDataCount, UserData);
	return etw_event_write_ex(RegHandle, EventDescriptor, Filter, Flags,
				  ActivityId, RelatedActivityId, UserDataCount,
				  UserData, false);
}

static size_t etw_wcslen(PCWSTR s)
{
	size_t n = 0;

	while (s[n])
		n++;
	return n;
}

static __always_inline ULONG
etw_event_write_string(REGHANDLE handle, UCHAR level, ULONGLONG keyword,
		       PCWSTR string, bool batched)
{
	EVENT_DESCRIPTOR desc = { .Level = level, .Keyword = keyword };
	EVENT_DATA_DESCRIPTOR data;
	struct etw_prov_ref ref;
	size_t bytes;

	if (!etw_prov_lookup(handle, &ref))
		return ERROR_INVALID_HANDLE;
	if (!string)
		return ERROR_INVALID_PARAMETER;
	if (!etw_prov_may_take(&ref, level, keyword))
		return ERROR_SUCCESS;	/* before measuring the string */
	bytes = (etw_wcslen(string) + 1) * sizeof(WCHAR);
	if (bytes > ETW_MAX_EVENT_SIZE)
		return ERROR_ARITHMETIC_OVERFLOW;
	EventDataDescCreate(&data, string, (ULONG)bytes);
	if (batched && etw_batch_on() && etw_batch_plain(&ref) &&
	    etw_batch_stage(ref.fd, ref.reg_id, &desc, &etw_thread_activity,
			    1, &data, ETW_EVENT_FLAG_STRING_ONLY))
		return ERROR_SUCCESS;
	return etw_event_write_ref(&ref, &desc, 0, NULL, NULL, 1, &data,
				   ETW_WRITE_STRING_ONLY |
				   etw_batch_drain_flag(batched));
}

static __attribute_noinline__ ULONG
etw_event_write_string_batched(REGHANDLE handle, UCHAR level,
			       ULONGLONG keyword, PCWSTR string)
{
	return etw_event_write_string(handle, level, keyword, string, true);
}

/**
 * EventWriteString() - write a string-only event
 * @RegHandle: the handle
 * @Level: event level
 * @Keyword: event keyword
 * @String: NUL-terminated UTF-16 text; the NUL is part of the payload
 *
 * The event has Id, Version, Channel, Opcode and Task 0 and the header
 * flag EVENT_HEADER_FLAG_STRING_ONLY.
 *
 * Return: as EventWrite(); ERROR_INVALID_PARAMETER for a NULL @String.
 */
ULONG EVNTAPI EventWriteString(REGHANDLE RegHandle, UCHAR Level,
			       ULONGLONG Keyword, PCWSTR String)
{
	if (etw_batch_state())
		return etw_event_write_string_batched(RegHandle, Level, Keyword,
						      String);
	return etw_event_write_string(RegHandle, Level, Keyword, String,
				      false);
}

static uint16_t etw_le16(const uint8_t *p)
{
	return p[0] | p[1] << 8;
}

/*
 * A traits blob as Windows accepts it: TraitsSize equal to the length, a
 * NUL-terminated name inside it, then traits of at least 3 bytes each
 * that end exactly at the end of the blob.  Trait types and data are not
 * checked (a group trait without its GUID is accepted).
 */
static bool etw_traits_valid(const uint8_t *blob, ULONG len)
{
	uint32_t off, name, size;

	if (len < 3 || etw_le16(blob) != len)
		return false;
	name = strnlen((const char *)blob + 2, len - 2);
	if (name == len - 2)
		return false;
	for (off = 2 + name + 1; off < len; off += size) {
		if (len - off < 2)
			return false;
		size = etw_le16(blob + off);
		if (size < 3 || size > len - off)
			return false;
	}
	return true;
}

static ULONG etw_set_traits(const struct etw_prov_ref *ref, const void *blob,
			    ULONG len)
{
	struct etw_traits_args a = {
		.size = sizeof(a),
		.reg_id = ref->reg_id,
		.traits_ptr = (uintptr_t)blob,
		.traits_len = len,
	};
	int ret;

	if (!blob)
		return ERROR_INVALID_PARAMETER;
	/* Checked here so that a bad blob never reaches the one set. */
	if (!etw_traits_valid(blob, len))
		return ERROR_FILE_CORRUPT;
	ret = etw_dev_ioctl(ETW_IOC_SET_TRAITS, &a);
	switch (-ret) {
	case 0:
		etw_prov_set_desc_types(ref->handle, true);
		return ERROR_SUCCESS;
	case EEXIST:
		return ERROR_GEN_FAILURE;
	case EACCES:
		return ERROR_ACCESS_DENIED;
	case EBADMSG:
		return ERROR_FILE_CORRUPT;
	default:
		return etw_win32_from_errno(ret);
	}
}

/**
 * EventSetInformation() - per-registration settings
 * @RegHandle: the handle
 * @InformationClass: EVENT_INFO_CLASS
 * @EventInformation: the class's data
 * @InformationLength: its size
 *
 * The results are the ones Windows 11 gives: class 0 (binary tracking)
 * accepts only length 0 and records nothing, because etw has no
 * image-load events to attach a module path to; class 1 and classes from
 * 5 are ERROR_NOT_SUPPORTED; class 2 sets the traits once (a malformed
 * blob is ERROR_FILE_CORRUPT and does not use up the one set, a second
 * set is ERROR_GEN_FAILURE, a group the caller may not join
 * ERROR_ACCESS_DENIED) and, like class 3 with a TRUE byte, makes writes
 * honour EVENT_DATA_DESCRIPTOR.Type; class 4 is ERROR_INVALID_PARAMETER.
 *
 * Return: a Win32 error as above; ERROR_INVALID_HANDLE for a bad handle.
 */
ULONG EVNTAPI EventSetInformation(REGHANDLE RegHandle,
				  EVENT_INFO_CLASS InformationClass,
				  PVOID EventInformation,
				  ULONG InformationLength)
{
	struct etw_prov_ref ref;

	if (!etw_prov_get(RegHandle, &ref))
		return ERROR_INVALID_HANDLE;
	switch ((unsigned int)InformationClass) {
	case EventProviderBinaryTrackInfo:
		return InformationLength ? ERROR_INVALID_PARAMETER :
					   ERROR_SUCCESS;
	case EventProviderSetTraits:
		return etw_set_traits(&ref, EventInformation,
				      InformationLength);
	case EventProviderUseDescriptorType:
		if (InformationLength != sizeof(BOOLEAN) || !EventInformation)
			return ERROR_INVALID_PARAMETER;
		etw_prov_set_desc_types(RegHandle,
					*(const BOOLEAN *)EventInformation);
		return ERROR_SUCCESS;
	case EventProviderSetReserved2:
		return ERROR_INVALID_PARAMETER;
	default:
		return ERROR_NOT_SUPPORTED;
	}
}
