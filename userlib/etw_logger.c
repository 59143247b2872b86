// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * etw_logger.c - the file logger: writes a session's sealed buffers to an
 * .etl file.  StartTrace with a log file name runs it in a daemon (so the
 * session keeps being logged after the starting process exits), and
 * etwctl start -f runs the same function.
 *
 * The kernel writes no files; a logger is a consumer of the session
 * (ETW_IOC_CONSUME) that appends every buffer it reads and completes the
 * file when the read returns 0, i.e. after STOP sealed and delivered the
 * last buffers.
 *
 * Completion handshake: while it runs, a logger holds an exclusive flock
 * on its lock file /run/etw/logger-<id> (/tmp/etw/ without /run), which
 * records its pid, the session's start time, LogFileMode and the file
 * name.  After the file is closed (and fsync'ed) the logger unlinks the
 * lock file and then drops the lock by closing it.  ControlTrace STOP
 * opens the lock file and takes a shared flock, which is granted only
 * once the file is complete; QUERY reads the file name without waiting.
 * The start time tells a lock file left by a killed logger from one of
 * the current session with the same logger id.
 */
#include <errno.h>
#include <sched.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysinfo.h>
#include <sys/wait.h>
#include <unistd.h>

#include "etw_controller.h"
#include "etw_etl.h"
#include "etw_lib.h"

/* /run where it exists (not in minimal systems such as initramfs). */
#define ETW_LOGGER_RUN		"/run"
#define ETW_LOGGER_SUBDIR	"etw"
#define ETW_LOGGER_TMP		"/tmp"
#define ETW_LOGGER_EPOCH	116444736000000000ll	/* 1601 -> 1970 */
#define ETW_LOGGER_NS_PER_TICK	100
/*
 * The daemon's priority: it must drain buffers as fast as writers on
 * every CPU fill them, as Windows' logger thread runs above the threads
 * it logs.  The lowest real-time priority where the daemon may take it
 * (a nice value of -10 alone let two writers run 24 buffers ahead of it
 * once writes got faster), else nice -10.  It sleeps in read() while
 * nothing is sealed, and the kernel's real-time throttling bounds it.
 */
#define ETW_LOGGER_RT_PRIO	1
#define ETW_LOGGER_NICE		(-10)

static const char *etw_logger_dir(void)
{
	struct stat st;

	if (!stat(ETW_LOGGER_RUN, &st) && S_ISDIR(st.st_mode))
		return ETW_LOGGER_RUN "/" ETW_LOGGER_SUBDIR;
	return ETW_LOGGER_TMP "/" ETW_LOGGER_SUBDIR;
}

static void etw_logger_lock_path(uint32_t logger_id, char *buf, size_t size)
{
	snprintf(buf, size, "%s/logger-%" PRIu32, etw_logger_dir(),
		 logger_id);
}

static int64_t etw_logger_filetime(uint64_t raw, int64_t boot_offset_ns)
{
	return ((int64_t)raw + boot_offset_ns) / ETW_LOGGER_NS_PER_TICK +
	       ETW_LOGGER_EPOCH;
}

/* Create and lock the lock file; the directory is shared like /tmp. */
static int etw_logger_lock(const struct etw_logger_opts *o,
			   uint64_t start_time_ns)
{
	char path[64];
	FILE *f;
	int fd;

	if (mkdir(etw_logger_dir(), 01777) == 0)
		chmod(etw_logger_dir(), 01777);
	etw_logger_lock_path(o->logger_id, path, sizeof(path));
	unlink(path);
	fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	if (flock(fd, LOCK_EX) < 0) {
		close(fd);
		return -errno;
	}
	f = fdopen(dup(fd), "w");
	if (!f) {
		close(fd);
		return -ENOMEM;
	}
	fprintf(f, "%d\n%" PRIu64 "\n%" PRIu32 "\n%s\n", (int)getpid(),
		start_time_ns, o->log_file_mode, o->path);
	if (fclose(f)) {
		close(fd);
		return -EIO;
	}
	return fd;
}

static int etw_logger_session(uint32_t logger_id, struct etw_session_args *a)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->logger_id = logger_id;
	return etw_dev_ioctl(ETW_IOC_QUERY, a);
}

static int etw_logger_consume(uint32_t logger_id)
{
	struct etw_consume_args c = {
		.size = sizeof(c), .logger_id = logger_id, .flags = O_CLOEXEC,
	};
	int fd = etw_dev_fd();

	if (fd < 0)
		return fd;
	fd = ioctl(fd, ETW_IOC_CONSUME, &c);
	return fd < 0 ? -errno : fd;
}

static int etw_logger_open_writer(const struct etw_logger_opts *o,
				  const struct etw_session_args *a,
				  struct etw_etl_writer **w)
{
	struct etw_info info = { .size = sizeof(info) };
	struct etw_etl_writer_params p;
	int ret;

	ret = etw_dev_ioctl(ETW_IOC_GET_INFO, &info);
	if (ret)
		return ret;
	memset(&p, 0, sizeof(p));
	p.buffer_size = a->config.buffer_kb * 1024;
	p.max_file_size = o->max_size;
	p.log_file_mode = o->log_file_mode;
	p.number_of_processors = get_nprocs_conf();
	p.timer_resolution = 1;
	p.logger_id = o->logger_id;
	p.process_id = getpid();
	p.thread_id = gettid();
	p.start_raw = a->start_time_ns;
	p.start_time = etw_logger_filetime(a->start_time_ns,
					   info.boot_offset_ns);
	p.boot_time = etw_logger_filetime(0, info.boot_offset_ns);
	p.logger_name = a->name;
	return etw_etl_writer_open(o->path, o->mode, &p, w);
}

static void etw_logger_ready(const struct etw_logger_opts *o, int status)
{
	ssize_t n;

	if (o->ready_fd < 0)
		return;
	do {
		n = write(o->ready_fd, &status, sizeof(status));
	} while (n < 0 && errno == EINTR);
	close(o->ready_fd);
}

/**
 * etw_consume_read - read one sealed buffer from a consumer file
 * @cfd: the file ETW_IOC_CONSUME returned
 * @buf: room for one buffer
 * @bs: bytes at @buf (the session's buffer size)
 *
 * Return: bytes read, 0 once the session has stopped and every buffer was
 * read, or -errno (-EAGAIN on a non-blocking file with nothing to read).
 */
ssize_t etw_consume_read(int cfd, void *buf, size_t bs)
{
	ssize_t n;

	do
		n = read(cfd, buf, bs);
	while (n < 0 && errno == EINTR);
	return n < 0 ? -errno : n;
}

/* Append buffers until the session has stopped and all were read. */
static int etw_logger_copy(int cfd, struct etw_etl_writer *w, size_t bs)
{
	void *buf = malloc(bs);
	ssize_t n;
	int ret = 0;

	if (!buf)
		return -ENOMEM;
	for (;;) {
		n = etw_consume_read(cfd, buf, bs);
		if (n <= 0) {
			ret = n;
			break;
		}
		/* A full sequential file counts the buffer lost; go on. */
		ret = etw_etl_writer_append(w, buf);
		if (ret && ret != -ENOSPC)
			break;
		ret = 0;
	}
	free(buf);
	return ret;
}

/**
 * etw_file_logger_run - log a session to an .etl file until it stops
 * @o: the session, the file and how to write it
 *
 * Creates the file, reports readiness on @o->ready_fd, then writes every
 * buffer the session seals.  Returns when the session has stopped and the
 * file is complete; the lock file (see the top of this file) is released
 * only then.
 *
 * Return: 0, or a negative errno (the file may then be incomplete).
 */
int etw_file_logger_run(const struct etw_logger_opts *o)
{
	struct etw_etl_writer_stats stats = { 0 };
	struct etw_etl_writer *w = NULL;
	struct etw_session_args a;
	int lock = -1, cfd = -1, ret;
	char lock_path[64];

	ret = etw_logger_session(o->logger_id, &a);
	if (!ret)
		ret = cfd = etw_logger_consume(o->logger_id);
	if (ret >= 0)
		ret = lock = etw_logger_lock(o, a.start_time_ns);
	if (ret >= 0)
		ret = etw_logger_open_writer(o, &a, &w);
	etw_logger_ready(o, ret < 0 ? ret : 0);
	if (!ret)
		ret = etw_logger_copy(cfd, w,
				      (size_t)a.config.buffer_kb * 1024);
	if (w) {
		struct etw_consumer_stats_args st = { .size = sizeof(st) };

		/* The final statistics: the session itself is gone by now. */
		if (!ioctl(cfd, ETW_IOC_CONSUMER_STATS, &st)) {
			stats.events_lost = (uint32_t)st.stats.events_lost;
			stats.buffers_lost =
				(uint32_t)st.stats.realtime_buffers_lost;
		}
		if (etw_etl_writer_close(w, &stats) && !ret)
			ret = -EIO;
	}
	if (lock >= 0) {
		etw_logger_lock_path(o->logger_id, lock_path,
				     sizeof(lock_path));
		unlink(lock_path);
	}
	if (cfd >= 0)
		close(cfd);
	if (lock >= 0)
		close(lock);
	return ret;
}

/* The daemon: no terminal, no inherited files but the ready pipe. */
static void etw_logger_daemon(struct etw_logger_opts o)
{
	struct sched_param rt = { .sched_priority = ETW_LOGGER_RT_PRIO };
	int null = open("/dev/null", O_RDWR);

	if (null >= 0) {
		dup2(null, 0);
		dup2(null, 1);
		dup2(null, 2);
	}
	if (o.ready_fd != 3) {
		dup2(o.ready_fd, 3);
		o.ready_fd = 3;
	}
	close_range(4, ~0u, 0);
	signal(SIGHUP, SIG_IGN);
	signal(SIGINT, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	/* Without CAP_SYS_NICE it keeps the caller's policy and priority. */
	if (sched_setscheduler(0, SCHED_RR, &rt) &&
	    setpriority(PRIO_PROCESS, 0, ETW_LOGGER_NICE))
		errno = 0;
	if (chdir("/"))
		_exit(1);
	_exit(etw_file_logger_run(&o) ? 1 : 0);
}

/**
 * etw_file_logger_spawn - run a file logger in a daemon process
 * @o: as for etw_file_logger_run(); @o->path must be absolute and
 *	@o->ready_fd is ignored
 *
 * The daemon is double-forked and setsid'ed: it is not the caller's
 * child and outlives it.
 *
 * Return: 0 once the daemon has created the file and opened the session,
 * or its negative errno.
 */
int etw_file_logger_spawn(const struct etw_logger_opts *o)
{
	struct etw_logger_opts d = *o;
	int pfd[2], status = -EIO;
	pid_t pid;
	ssize_t n;

	if (pipe2(pfd, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return -errno;
	}
	if (!pid) {
		close(pfd[0]);
		setsid();
		if (fork() == 0) {
			d.ready_fd = pfd[1];
			etw_logger_daemon(d);
		}
		_exit(0);
	}
	close(pfd[1]);
	waitpid(pid, NULL, 0);
	do {
		n = read(pfd[0], &status, sizeof(status));
	} while (n < 0 && errno == EINTR);
	close(pfd[0]);
	return n == sizeof(status) ? status : -EIO;
}

static int etw_logger_parse(int fd, uint64_t *start,
			    struct etw_logger_info *info)
{
	char buf[4200];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
	int len = 0;

	if (n <= 0)
		return -EBADMSG;
	buf[n] = 0;
	if (sscanf(buf, "%" SCNu32 "\n%" SCNu64 "\n%" SCNu32 "\n%n",
		   &info->pid, start, &info->log_file_mode, &len) != 3 || !len)
		return -EBADMSG;
	snprintf(info->path, sizeof(info->path), "%.*s",
		 (int)strcspn(buf + len, "\n"), buf + len);
	return 0;
}

/**
 * etw_file_logger_find - the file logger of a session, if it has one
 * @logger_id: the session
 * @start_time_ns: the session's start time (etw_session_args), which
 *	tells its logger from one of an earlier session with the same id
 * @wait: wait until that logger has completed its file
 * @info: out: the logger's pid, LogFileMode and file name
 *
 * Return: 1 when the session has (or, with @wait, had) a file logger,
 * 0 when it has none, or a negative errno.
 */
int etw_file_logger_find(uint32_t logger_id, uint64_t start_time_ns,
			 bool wait, struct etw_logger_info *info)
{
	uint64_t start = 0;
	char path[64];
	int fd, ret;

	etw_logger_lock_path(logger_id, path, sizeof(path));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	ret = etw_logger_parse(fd, &start, info);
	if (!ret && start != start_time_ns)
		ret = 0;
	else if (!ret)
		ret = 1;
	while (ret == 1 && wait && flock(fd, LOCK_SH) < 0) {
		if (errno != EINTR) {
			ret = -errno;
			break;
		}
	}
	close(fd);
	return ret == -EBADMSG ? 0 : ret;
}
