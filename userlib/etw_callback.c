// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * etw_callback.c - the thread that reads a process's notifications.
 *
 * One thread per process, started by the first registration (and again by
 * the first registration in a fork() child, where it does not exist).  It
 * reads struct etw_notification records from the process's /dev/etw file,
 * hands each to the dispatch function it was started with
 * (etw_provider_handle.c runs the registration's enable callback there),
 * and acknowledges each record with ETW_IOC_ACK, which is what a
 * controller's EnableTraceEx2 Timeout waits for.  Callbacks therefore run
 * one at a time, in the order the kernel queued them.
 *
 * This file knows nothing of registrations, so that it does not call back
 * into the provider code that starts it.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "etw_callback.h"

/*
 * One read returns whole notifications; the largest carries a filter
 * block from each of ETW_MAX_SESSIONS_PER_PROVIDER sessions.
 */
#define ETW_NOTIFY_BUF	(64 * 1024)

/* What the thread is started with; it frees it. */
struct etw_cb_start {
	int fd;
	etw_notify_fn *dispatch;
};

static uint64_t etw_cb_gen;		/* under the caller's lock */
static __thread bool etw_cb_is_thread;

/**
 * etw_callback_after_fork() - forget the thread in a fork() child
 *
 * Context: the child's only thread, from the atfork handler.
 */
void etw_callback_after_fork(void)
{
	etw_cb_gen = 0;
	etw_cb_is_thread = false;
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

static void etw_callback_dispatch(const struct etw_cb_start *s,
				  const struct etw_notification *n)
{
	struct etw_ack_args ack = { .size = sizeof(ack), .seq = n->seq };

	s->dispatch(n);
	/* Handled: a controller waiting with a Timeout may go on. */
	ioctl(s->fd, ETW_IOC_ACK, &ack);
}

/* Dispatch the whole notifications of one read of @len bytes. */
static void etw_callback_records(const struct etw_cb_start *s,
				 const unsigned char *buf, ssize_t len)
{
	ssize_t off;

	for (off = 0; off + (ssize_t)sizeof(struct etw_notification) <= len;) {
		const struct etw_notification *n = (const void *)(buf + off);

		if (n->size < sizeof(*n) || n->size > len - off ||
		    n->size - sizeof(*n) < n->filter_size)
			break;
		etw_callback_dispatch(s, n);
		off += n->size;
	}
}

static void *etw_callback_thread(void *arg)
{
	_Alignas(8) unsigned char buf[ETW_NOTIFY_BUF];
	struct etw_cb_start s = *(struct etw_cb_start *)arg;
	ssize_t len;

	free(arg);
	etw_cb_is_thread = true;
	for (;;) {
		len = read(s.fd, buf, ETW_NOTIFY_BUF);
		if (len < 0 && errno == EINTR)
			continue;
		/* Not retryable; the enable area still tracks the state. */
		if (len <= 0)
			break;
		etw_callback_records(&s, buf, len);
	}
	return NULL;
}

/**
 * etw_callback_ensure() - start the notification thread if needed
 * @fd: the process's /dev/etw file
 * @gen: the device generation @fd belongs to
 * @dispatch: what the thread calls for each notification
 *
 * Context: the caller's lock held (the registration lock).
 * Return: 0 or a positive errno.
 */
int etw_callback_ensure(int fd, uint64_t gen, etw_notify_fn *dispatch)
{
	struct etw_cb_start *s;
	pthread_attr_t attr;
	sigset_t all, old;
	pthread_t t;
	int err;

	if (etw_cb_gen == gen)
		return 0;
	s = malloc(sizeof(*s));
	if (!s)
		return ENOMEM;
	s->fd = fd;
	s->dispatch = dispatch;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	/* Signals are for the application's threads, not this one. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&t, &attr, etw_callback_thread, s);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
	if (err)
		free(s);
	else
		etw_cb_gen = gen;
	return err;
}
