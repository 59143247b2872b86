// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * etw_device.c - the process's /dev/etw file.
 *
 * One file per process, as Windows has one ETW connection per process:
 * providers register on it, its notification queue feeds the callback
 * thread, and its enable area is mapped once.  A fork() child starts with
 * none (pthread_atfork) and opens its own on first use; the inherited fd
 * is closed there, because the kernel refuses writes under a registration
 * made by another process anyway and a child must not keep the parent's
 * private sessions alive.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "etw_lib.h"
#include "windows.h"

#define ETW_DEV_PATH "/dev/etw"

static pthread_mutex_t etw_dev_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_int etw_dev_cached = -1;
static const struct etw_enable_state *_Atomic etw_dev_map;
static size_t etw_dev_map_size;
static atomic_uint_fast64_t etw_dev_gen = 1;
static pthread_once_t etw_dev_atfork_once = PTHREAD_ONCE_INIT;

static void etw_dev_child_after_fork(void)
{
	int fd = atomic_load(&etw_dev_cached);
	const struct etw_enable_state *map = atomic_load(&etw_dev_map);

	/* Only this thread exists in the child: no locking needed. */
	if (map)
		munmap((void *)map, etw_dev_map_size);
	if (fd >= 0)
		close(fd);
	atomic_store(&etw_dev_map, NULL);
	atomic_store(&etw_dev_cached, -1);
	atomic_fetch_add(&etw_dev_gen, 1);
	pthread_mutex_init(&etw_dev_lock, NULL);
}

static void etw_dev_install_atfork(void)
{
	pthread_atfork(NULL, NULL, etw_dev_child_after_fork);
}

int etw_dev_fd(void)
{
	int fd = atomic_load_explicit(&etw_dev_cached, memory_order_acquire);

	if (fd >= 0)
		return fd;
	pthread_once(&etw_dev_atfork_once, etw_dev_install_atfork);
	pthread_mutex_lock(&etw_dev_lock);
	fd = atomic_load(&etw_dev_cached);
	if (fd < 0) {
		fd = open(ETW_DEV_PATH, O_RDWR | O_CLOEXEC);
		/* No /dev/etw: the module is not loaded. */
		if (fd < 0)
			fd = errno == ENOENT || errno == ENXIO ? -ENODEV : -errno;
		else
			atomic_store_explicit(&etw_dev_cached, fd,
					      memory_order_release);
	}
	pthread_mutex_unlock(&etw_dev_lock);
	return fd;
}

int etw_dev_ioctl(unsigned long cmd, void *arg)
{
	int fd = etw_dev_fd();

	if (fd < 0)
		return fd;
	return ioctl(fd, cmd, arg) < 0 ? -errno : 0;
}

const struct etw_enable_state *etw_dev_enable_map(void)
{
	const struct etw_enable_state *map = atomic_load_explicit(
		&etw_dev_map, memory_order_acquire);
	struct etw_info info = { .size = sizeof(info) };
	void *p;

	if (map)
		return map;
	if (etw_dev_ioctl(ETW_IOC_GET_INFO, &info))
		return NULL;
	pthread_mutex_lock(&etw_dev_lock);
	map = atomic_load(&etw_dev_map);
	if (!map) {
		p = mmap(NULL, info.enable_map_size, PROT_READ, MAP_SHARED,
			 etw_dev_fd(), ETW_MMAP_ENABLE);
		if (p != MAP_FAILED) {
			etw_dev_map_size = info.enable_map_size;
			map = p;
			atomic_store_explicit(&etw_dev_map, map,
					      memory_order_release);
		}
	}
	pthread_mutex_unlock(&etw_dev_lock);
	return map;
}

uint64_t etw_dev_generation(void)
{
	return atomic_load(&etw_dev_gen);
}

uint32_t etw_win32_from_errno(int err)
{
	switch (-err) {
	case 0:
		return ERROR_SUCCESS;
	case EPERM:
	case EACCES:
		return ERROR_ACCESS_DENIED;
	case EBADF:
		return ERROR_INVALID_HANDLE;
	case ENOMEM:
		return ERROR_NOT_ENOUGH_MEMORY;
	case ENOBUFS:
		return ERROR_NOT_ENOUGH_MEMORY;
	case EMSGSIZE:
		return ERROR_MORE_DATA;
	case E2BIG:
		return ERROR_ARITHMETIC_OVERFLOW;
	case EEXIST:
		return ERROR_ALREADY_EXISTS;
	case ENOENT:
		return ERROR_WMI_INSTANCE_NOT_FOUND;
	case ENOSPC:
		return ERROR_NO_SYSTEM_RESOURCES;
	case ETIMEDOUT:
		return ERROR_TIMEOUT;
	case EBADMSG:
		return ERROR_FILE_CORRUPT;
	case EOPNOTSUPP:
	case ENODEV:
		return ERROR_NOT_SUPPORTED;
	case ENAMETOOLONG:
		return ERROR_BAD_LENGTH;
	default:
		return ERROR_INVALID_PARAMETER;
	}
}
