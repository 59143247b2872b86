// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * etw_callback.c - the thread that runs providers' enable callbacks.
 *
 * One thread per process, started by the first registration (and again by
 * the first registration in a fork() child, where it does not exist).  It
 * reads struct etw_notification records from the process's /dev/etw file,
 * calls the callback of the registration the cookie names, and
 * acknowledges each record with ETW_IOC_ACK, which is what a controller's
 * EnableTraceEx2 Timeout waits for.  Callbacks therefore run one at a
 * time, in the order the kernel queued them.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "etw_provider.h"
#include "wmistr.h"

/*
 * One read returns whole notifications; the largest carries a filter
 * block from each of ETW_MAX_SESSIONS_PER_PROVIDER sessions.
 */
#define ETW_NOTIFY_BUF	(64 * 1024)

static uint64_t etw_cb_gen;		/* under the registration lock */
static __thread bool etw_cb_is_thread;
static __thread REGHANDLE etw_cb_current;

/**
 * etw_callback_after_fork() - forget the thread in a fork() child
 *
 * Context: the child's only thread, from the atfork handler.
 */
void etw_callback_after_fork(void)
{
	etw_cb_gen = 0;
	etw_cb_is_thread = false;
	etw_cb_current = 0;
}

/**
 * etw_callback_on_thread() - is the caller the notification thread?
 *
 * Return: true on the thread that runs callbacks.
 */
bool etw_callback_on_thread(void)
{
	return etw_cb_is_thread;
}

/**
 * etw_callback_current() - the registration whose callback the caller runs
 *
 * Return: its handle, or 0 outside callbacks.
 */
REGHANDLE etw_callback_current(void)
{
	return etw_cb_current;
}

static void etw_callback_manifest(const struct etw_prov_callback *cb,
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
static void etw_callback_classic(const struct etw_prov_callback *cb,
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

static void etw_callback_dispatch(int fd, const struct etw_notification *n)
{
	struct etw_ack_args ack = { .size = sizeof(ack), .seq = n->seq };
	struct etw_prov_callback cb;

	if (etw_prov_callback_begin(n->cookie, &cb)) {
		etw_cb_current = n->cookie;
		if (cb.classic)
			etw_callback_classic(&cb, n);
		else
			etw_callback_manifest(&cb, n);
		etw_cb_current = 0;
		etw_prov_callback_done(n->cookie);
	}
	/* Handled: a controller waiting with a Timeout may go on. */
	ioctl(fd, ETW_IOC_ACK, &ack);
}

static void *etw_callback_thread(void *arg)
{
	_Alignas(8) unsigned char buf[ETW_NOTIFY_BUF];
	int fd = (int)(intptr_t)arg;
	ssize_t len, off;

	etw_cb_is_thread = true;
	for (;;) {
		len = read(fd, buf, ETW_NOTIFY_BUF);
		if (len < 0 && errno == EINTR)
			continue;
		/* Not retryable; the enable area still tracks the state. */
		if (len <= 0)
			break;
		for (off = 0; off + (ssize_t)sizeof(struct etw_notification) <=
			      len;) {
			const struct etw_notification *n =
				(const void *)(buf + off);

			if (n->size < sizeof(*n) || n->size > len - off ||
			    n->size - sizeof(*n) < n->filter_size)
				break;
			etw_callback_dispatch(fd, n);
			off += n->size;
		}
	}
	return NULL;
}

/**
 * etw_callback_ensure() - start the notification thread if needed
 * @fd: the process's /dev/etw file
 * @gen: the device generation @fd belongs to
 *
 * Context: the registration lock held.
 * Return: 0 or a positive errno.
 */
int etw_callback_ensure(int fd, uint64_t gen)
{
	pthread_attr_t attr;
	sigset_t all, old;
	pthread_t t;
	int err;

	if (etw_cb_gen == gen)
		return 0;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	/* Signals are for the application's threads, not this one. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&t, &attr, etw_callback_thread,
			     (void *)(intptr_t)fd);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
	if (!err)
		etw_cb_gen = gen;
	return err;
}
