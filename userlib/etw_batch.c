// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * etw_batch.c - batched writes: each thread's staging ring, its life, and
 * the switch (ETW_BATCHED_WRITES=1 or EtwSetBatchedWrites).
 *
 * A thread opens its ring (ETW_IOC_BATCH_OPEN on the registration's
 * /dev/etw file) at its first staged write and keeps it until it exits:
 * a pthread key's destructor unmaps and closes it, and the kernel routes
 * what the ring still holds when its file closes.  A thread whose ring
 * cannot be opened writes directly.  A thread that ends without running
 * key destructors (the main thread's exit(), _exit()) leaves that to the
 * kernel, which drains the ring when the thread exits.
 *
 * The mapping is not inherited by fork(), but the ring files are: the
 * child closes every one it inherited (the rings are on a list for this)
 * and its thread starts without a ring, to open its own on the child's
 * /dev/etw file.  The files are O_CLOEXEC, so exec closes them.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "etw_batch.h"

/*
 * The clock asked for: the CPU's counter where there is one (etw_arch.h),
 * a few instructions against clock_gettime()'s tens; the kernel grants it
 * only where CLOCK_MONOTONIC is computed from it, else answers MONOTONIC.
 */
#ifdef ETW_ARCH_COUNTER
#define ETW_BATCH_TIME_CLOCK	ETW_BATCH_CLOCK_TSC
#else
#define ETW_BATCH_TIME_CLOCK	ETW_BATCH_CLOCK_MONOTONIC
#endif

__thread struct etw_batch etw_batch_thread
	__attribute__((tls_model("initial-exec"))) = { .gate.dev_fd = -1 };
uint8_t etw_batching;

static pthread_once_t etw_batch_env_once = PTHREAD_ONCE_INIT;
static pthread_once_t etw_batch_setup_once = PTHREAD_ONCE_INIT;
static pthread_key_t etw_batch_key;
static bool etw_batch_key_ok;
/* Every thread's open ring, for the fork() child to close their files. */
static pthread_mutex_t etw_batch_lock = PTHREAD_MUTEX_INITIALIZER;
static struct etw_batch *etw_batch_all;

static void etw_batch_read_env(void)
{
	const char *v = secure_getenv("ETW_BATCHED_WRITES");

	if (v && !strcmp(v, "1"))
		__atomic_fetch_or(&etw_batching,
				  ETW_BATCHING_ON | ETW_BATCHING_USED,
				  __ATOMIC_RELAXED);
}

/**
 * etw_batch_init() - read ETW_BATCHED_WRITES, once per process
 *
 * Called by every registration, before any write can stage.
 */
void etw_batch_init(void)
{
	pthread_once(&etw_batch_env_once, etw_batch_read_env);
}

static void etw_batch_link(struct etw_batch *b)
{
	pthread_mutex_lock(&etw_batch_lock);
	b->next = etw_batch_all;
	if (b->next)
		b->next->pprev = &b->next;
	b->pprev = &etw_batch_all;
	etw_batch_all = b;
	pthread_mutex_unlock(&etw_batch_lock);
}

static void etw_batch_unlink(struct etw_batch *b)
{
	pthread_mutex_lock(&etw_batch_lock);
	*b->pprev = b->next;
	if (b->next)
		b->next->pprev = b->pprev;
	pthread_mutex_unlock(&etw_batch_lock);
}

/* The key's destructor: the thread exits, and its ring with it. */
static void etw_batch_release(void *arg)
{
	struct etw_batch *b = arg;

	/* A fork() child's thread has no ring of its parent's. */
	if (!b->ctl)
		return;
	etw_batch_unlink(b);
	/* The mapping holds the file: unmapped first, the close routes. */
	munmap(b->ctl, b->map_size);
	close(b->fd);
	b->ctl = NULL;
	b->ring = NULL;
	b->gate.dev_fd = -1;
	/* Another destructor may still write: directly. */
	b->off = true;
}

/* fork() must not leave the child with a lock another thread held. */
static void etw_batch_prepare_fork(void)
{
	pthread_mutex_lock(&etw_batch_lock);
}

static void etw_batch_parent_fork(void)
{
	pthread_mutex_unlock(&etw_batch_lock);
}

static void etw_batch_child_fork(void)
{
	struct etw_batch *b;

	/*
	 * Only this thread runs.  The rings are not mapped here: close the
	 * inherited files, and let this thread open a ring of its own.
	 */
	for (b = etw_batch_all; b; b = b->next)
		close(b->fd);
	etw_batch_all = NULL;
	etw_batch_thread = (struct etw_batch){ .gate.dev_fd = -1 };
	pthread_mutex_init(&etw_batch_lock, NULL);
}

static void etw_batch_setup(void)
{
	etw_batch_key_ok = !pthread_key_create(&etw_batch_key,
					       etw_batch_release);
	pthread_atfork(etw_batch_prepare_fork, etw_batch_parent_fork,
		       etw_batch_child_fork);
}

/* What the kernel returned describes a ring this code can use. */
static bool etw_batch_args_ok(const struct etw_batch_args *a)
{
	return a->ring_size >= ETW_BATCH_MIN_RING &&
	       !(a->ring_size & (a->ring_size - 1)) &&
	       a->ctl_size >= sizeof(struct etw_batch_ctl) &&
	       (a->clock == ETW_BATCH_CLOCK_MONOTONIC ||
		a->clock == ETW_BATCH_TIME_CLOCK);
}

static bool etw_batch_map(struct etw_batch *b, int dev_fd)
{
	struct etw_batch_args a = {
		.size = sizeof(a),
		.flags = O_CLOEXEC,
		.clock = ETW_BATCH_TIME_CLOCK,
	};
	void *map;
	int fd;

	fd = ioctl(dev_fd, ETW_IOC_BATCH_OPEN, &a);
	if (fd < 0)
		return false;
	map = etw_batch_args_ok(&a) ?
	      mmap(NULL, (size_t)a.ctl_size + a.ring_size,
		   PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) : MAP_FAILED;
	if (map == MAP_FAILED) {
		close(fd);
		return false;
	}
	b->ctl = map;
	b->ring = (uint8_t *)map + a.ctl_size;
	b->mask = a.ring_size - 1;
	b->max_record = a.ring_size / 2 < ETW_MAX_EVENT_SIZE ?
			a.ring_size / 2 : ETW_MAX_EVENT_SIZE;
	b->gate.monotonic = a.clock != ETW_BATCH_CLOCK_TSC;
	b->head = 0;
	etw_batch_set_limit(b, 0);
	b->fd = fd;
	b->map_size = (size_t)a.ctl_size + a.ring_size;
	return true;
}

/**
 * etw_batch_open() - open the calling thread's ring
 * @b: the thread's etw_batch_thread
 * @dev_fd: the /dev/etw file of the registration that writes
 *
 * Only the first staged write of a thread opens; a thread with a ring on
 * another file (none while fork() children start afresh), or whose ring
 * failed or was released, writes directly.
 *
 * Return: true when @b holds a ring on @dev_fd.
 */
bool etw_batch_open(struct etw_batch *b, int dev_fd)
{
	if (b->off || b->ctl)
		return false;
	pthread_once(&etw_batch_setup_once, etw_batch_setup);
	if (!etw_batch_key_ok || !etw_batch_map(b, dev_fd)) {
		b->off = true;
		return false;
	}
	if (pthread_setspecific(etw_batch_key, b)) {
		munmap(b->ctl, b->map_size);
		close(b->fd);
		b->ctl = NULL;
		b->ring = NULL;
		b->off = true;
		return false;
	}
	etw_batch_link(b);
	b->gate.dev_fd = dev_fd;
	return true;
}

/**
 * etw_batch_drain() - have the kernel route what the ring holds now
 * @b: the thread's ring
 *
 * The system call as the write path makes it (etw_arch_ioctl()).  An
 * error changes nothing here: the next write finds the ring as full as
 * the kernel left it.
 */
void etw_batch_drain(struct etw_batch *b)
{
	etw_arch_ioctl(b->fd, ETW_IOC_BATCH_DRAIN, NULL);
}

/**
 * EtwSetBatchedWrites() - stage plain writes, or write each directly
 * @Enable: TRUE to stage from now on, FALSE to write directly
 *
 * Process-wide; overrides ETW_BATCHED_WRITES.  What threads staged
 * before FALSE is still routed, before their next direct write.
 *
 * Return: ERROR_SUCCESS.
 */
ULONG EVNTAPI EtwSetBatchedWrites(BOOLEAN Enable)
{
	etw_batch_init();
	if (Enable)
		__atomic_fetch_or(&etw_batching,
				  ETW_BATCHING_ON | ETW_BATCHING_USED,
				  __ATOMIC_RELAXED);
	else
		__atomic_fetch_and(&etw_batching, (uint8_t)~ETW_BATCHING_ON,
				   __ATOMIC_RELAXED);
	return ERROR_SUCCESS;
}
