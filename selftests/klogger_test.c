// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel logger (kmod/etw_klogger.c) through bare ioctls: a program run
 * here gives Process, Thread and Image events with its pid, parent, image
 * name, command line, threads and mappings, each record's header and
 * payload checked field by field against the layouts of
 * Documentation/abi.rst; the rundown lists every process /proc lists at
 * start and at stop; a killed process's exit status; losses counted;
 * no flag, no event; an UPDATE that turns flags on (their rundown, their
 * events) and off (no event after it), or is refused and changes
 * nothing; who may start it, one at a time, and the arguments
 * the kernel refuses.  Then the same events through
 * libetw: StartTrace's EnableFlags, ProcessTrace's class GUIDs, opcodes
 * and classic flag, and TDH's names and fields; ControlTrace UPDATE's
 * EnableFlags and its Win32 codes.
 */
#include <dirent.h>
#include <grp.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include "evntcons.h"
#include "tdh.h"
#include "kselftest_harness.h"
#include "etw_raw.h"

#define KLOG		ETW_KERNEL_LOGGER_NAME
#define BUF_KB		64
#define MAX_BUFFERS	512
#define USER_UID	1000	/* the VM's user "etw" */
#define ALL_FLAGS	(ETW_KFLAG_PROCESS | ETW_KFLAG_THREAD | \
			 ETW_KFLAG_IMAGE_LOAD)
#define MAX_PIDS	65536
#define KTEXT		512

/* Event types. */
#define T_START		1
#define T_END		2
#define T_DC_START	3
#define T_DC_END	4
#define T_LOAD		10
#define T_UNLOAD	2

/* One record, decoded. */
struct krec {
	struct etw_system_header h;
	__u32 len;
	__u8 data[2400];
	/* Process */
	__u64 key;
	__u32 pid, ppid, session, exit_status, uid;
	char image[32];
	char cmd[KTEXT];
	/* Thread */
	__u32 tid;
	/* Image */
	__u64 base, size, default_base;
	char file[KTEXT];
};

struct krecs {
	struct krec *r;
	size_t n, cap;
	int bad;	/* records that failed a layout check */
};

static __u32 le32(const __u8 *p)
{
	__u32 v;

	memcpy(&v, p, 4);
	return v;
}

static __u64 le64(const __u8 *p)
{
	__u64 v;

	memcpy(&v, p, 8);
	return v;
}

/* A NUL-terminated UTF-16 string (ASCII expected) at @p; its bytes or 0. */
static __u32 utf16(const __u8 *p, __u32 avail, char *out, size_t room)
{
	__u32 i;

	for (i = 0; 2 * i + 1 < avail; i++) {
		__u16 c = p[2 * i] | p[2 * i + 1] << 8;

		if (i < room - 1)
			out[i] = c < 0x80 ? (char)c : '?';
		if (!c) {
			out[i < room - 1 ? i : room - 1] = 0;
			return 2 * (i + 1);
		}
	}
	return 0;
}

/* Process_V4 TypeGroup1: the fixed part, the SID, then four strings. */
static int parse_process(struct krec *k)
{
	static const __u8 sid_head[8] = { 1, 2, 0, 0, 0, 0, 0, 22 };
	const __u8 *d = k->data;
	__u32 off = 68, n;
	char pkg[8];

	if (k->len < 68 + 1 + 6)
		return -1;
	k->key = le64(d);
	k->pid = le32(d + 8);
	k->ppid = le32(d + 12);
	k->session = le32(d + 16);
	k->exit_status = le32(d + 20);
	/* DirectoryTableBase, Flags, TOKEN_USER: what etw writes. */
	if (le64(d + 24) || le32(d + 32) || le64(d + 36) != 16 ||
	    le32(d + 44) || le32(d + 48) || memcmp(d + 52, sid_head, 8) ||
	    le32(d + 60) != 1)
		return -1;
	k->uid = le32(d + 64);
	n = strnlen((const char *)d + off, k->len - off);
	if (off + n >= k->len || n >= sizeof(k->image))
		return -1;
	memcpy(k->image, d + off, n + 1);
	off += n + 1;
	n = utf16(d + off, k->len - off, k->cmd, sizeof(k->cmd));
	if (!n)
		return -1;
	off += n;
	/* PackageFullName and ApplicationId: empty. */
	if (utf16(d + off, k->len - off, pkg, sizeof(pkg)) != 2 ||
	    utf16(d + off + 2, k->len - off - 2, pkg, sizeof(pkg)) != 2)
		return -1;
	return off + 4 == k->len ? 0 : -1;
}

/* Thread_V3 TypeGroup1: 72 bytes, the kernel stack fields zero. */
static int parse_thread(struct krec *k)
{
	const __u8 *d = k->data;

	if (k->len != 72 || le64(d + 8) || le64(d + 16) || !le64(d + 40) ||
	    d[69] != 5 || d[70] != 2 || d[71])
		return -1;
	k->pid = le32(d);
	k->tid = le32(d + 4);
	return 0;
}

/* Image_Load: 56 bytes, then FileName; checksum and reserved zero. */
static int parse_image(struct krec *k)
{
	const __u8 *d = k->data;
	__u32 i;

	if (k->len < 58)
		return -1;
	for (i = 20; i < 32; i += 4)
		if (le32(d + i))
			return -1;
	for (i = 40; i < 56; i += 4)
		if (le32(d + i))
			return -1;
	k->base = le64(d);
	k->size = le64(d + 8);
	k->pid = le32(d + 16);
	k->default_base = le64(d + 32);
	return 56 + utf16(d + 56, k->len - 56, k->file, sizeof(k->file)) ==
	       k->len ? 0 : -1;
}

static int parse_krec(struct krec *k)
{
	const struct etw_system_header *h = &k->h;
	__u8 group = h->hook_id >> 8;

	if (h->header_type != ETW_SYSTEM_HEADER_TYPE ||
	    h->flags != ETW_SYSTEM_HEADER_FLAGS || h->kernel_time ||
	    h->user_time || !h->timestamp)
		return -1;
	switch (group) {
	case ETW_GROUP_PROCESS:
		return h->version == 4 ? parse_process(k) : -1;
	case ETW_GROUP_THREAD:
		return h->version == 3 ? parse_thread(k) : -1;
	case ETW_GROUP_IMAGE:
		return h->version == 3 ? parse_image(k) : -1;
	}
	return -1;
}

/* Every record of one buffer: system records kept, padding skipped. */
static int walk(const __u8 *buf, struct krecs *out)
{
	const struct etw_buffer_header *bh = (const void *)buf;
	__u32 off = ETW_BUFFER_HEADER_SIZE, size;
	__u16 type;

	while (off + 8 <= bh->offset) {
		memcpy(&type, buf + off + 2, 2);
		if (type == ETW_SYSTEM_HEADER_TYPE_64) {
			struct krec *k;

			memcpy(&size, buf + off + 4, 2);
			size &= 0xffff;
			if (size < 32 || size - 32 > sizeof(k->data))
				return -1;
			if (out->n == out->cap) {
				out->cap = out->cap ? 2 * out->cap : 256;
				out->r = realloc(out->r, out->cap * sizeof(*k));
				if (!out->r)
					return -1;
			}
			k = &out->r[out->n++];
			memset(k, 0, sizeof(*k));
			memcpy(&k->h, buf + off, 32);
			k->len = size - 32;
			memcpy(k->data, buf + off + 32, k->len);
			out->bad += parse_krec(k) != 0;
		} else if (type == ETW_EVENT_HEADER_TYPE_64) {
			memcpy(&size, buf + off, 2);
			size &= 0xffff;
		} else {
			return -1;
		}
		if (!size)
			return -1;
		off += RAW_ALIGN8(size);
	}
	return off == bh->offset ? 0 : -1;
}

/* Start a kernel logger; the consumer's fd in *cfd. */
static int klog_start(int fd, const char *name, __u32 mode, __u32 flags,
		      __u32 *id, int *cfd)
{
	struct etw_session_args a;
	int ret;

	raw_session_init(&a, 0);
	snprintf(a.name, sizeof(a.name), "%s", name);
	a.config.buffer_kb = BUF_KB;
	a.config.max_buffers = MAX_BUFFERS;
	a.config.mode = ETW_MODE_REAL_TIME | mode;
	a.config.enable_flags = flags;
	ret = etw_ioctl(fd, ETW_IOC_START, &a);
	if (ret)
		return ret;
	*id = a.logger_id;
	*cfd = raw_consumer(fd, a.logger_id);
	return *cfd < 0 ? *cfd : 0;
}

/* Stop it and read every record; 0 or -1. */
static int klog_stop(int fd, __u32 id, int cfd, struct krecs *out)
{
	__u8 *buf = malloc(BUF_KB * 1024);
	ssize_t r;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	if (!buf || raw_session_op(fd, ETW_IOC_STOP, id, NULL))
		ret = -1;
	while (!ret && (r = read(cfd, buf, BUF_KB * 1024)) != 0) {
		if (r != BUF_KB * 1024) {
			ksft_print_msg("read: %zd (%s)\n", r, strerror(errno));
			ret = -1;
		} else if (walk(buf, out)) {
			ksft_print_msg("malformed buffer after %zu records\n",
				       out->n);
			ret = -1;
		}
	}
	close(cfd);
	free(buf);
	return ret;
}

/* The first record of @group, @type about @pid (written by @writer, or any). */
static const struct krec *find_by(const struct krecs *rs, __u8 group,
				  __u8 type, __u32 pid, __u32 writer)
{
	size_t i;

	for (i = 0; i < rs->n; i++) {
		const struct krec *k = &rs->r[i];

		if (k->h.hook_id == (group << 8 | type) && k->pid == pid &&
		    (!writer || k->h.process_id == writer))
			return k;
	}
	return NULL;
}

static const struct krec *find(const struct krecs *rs, __u8 group, __u8 type,
			       __u32 pid)
{
	return find_by(rs, group, type, pid, 0);
}

static const struct krec *find_tid(const struct krecs *rs, __u8 type,
				   __u32 tid)
{
	size_t i;

	for (i = 0; i < rs->n; i++)
		if (rs->r[i].h.hook_id == (ETW_GROUP_THREAD << 8 | type) &&
		    rs->r[i].tid == tid)
			return &rs->r[i];
	return NULL;
}

static const struct krec *find_image(const struct krecs *rs, __u8 type,
				     __u32 pid, const char *file)
{
	size_t i;

	for (i = 0; i < rs->n; i++) {
		const struct krec *k = &rs->r[i];

		if (k->h.hook_id == (ETW_GROUP_IMAGE << 8 | type) &&
		    k->pid == pid && !strcmp(k->file, file))
			return k;
	}
	return NULL;
}

static void *thread_fn(void *arg)
{
	*(pid_t *)arg = (pid_t)syscall(SYS_gettid);
	return NULL;
}

FIXTURE(klog) {
	int fd;
	__u32 id;
	int cfd;
	struct krecs rs;
};

FIXTURE_SETUP(klog)
{
	self->fd = etw_open();
	ASSERT_GE(self->fd, 0);
	self->cfd = -1;
	memset(&self->rs, 0, sizeof(self->rs));
}

FIXTURE_TEARDOWN(klog)
{
	if (self->cfd >= 0)
		raw_session_op(self->fd, ETW_IOC_STOP, self->id, NULL);
	free(self->rs.r);
	close(self->fd);
}

/* A child that execs /bin/sh: fork's Start, exec's Start, End, images. */
TEST_F(klog, program_run_gives_its_events)
{
	char marker[64], cmd[128], sh[PATH_MAX], exe[PATH_MAX], comm[32];
	const struct krec *k, *fork_start, *exec_start;
	pid_t child, tid = 0;
	pthread_t th;
	void *map;
	int efd;

	ASSERT_NE(NULL, realpath("/bin/sh", sh));
	ASSERT_NE(NULL, realpath("/proc/self/exe", exe));
	ASSERT_EQ(0, prctl(PR_GET_NAME, comm, 0, 0, 0));
	snprintf(marker, sizeof(marker), "etw-klogger-%d", getpid());
	snprintf(cmd, sizeof(cmd), "/bin/sh -c exit 3 %s", marker);
	ASSERT_EQ(0, klog_start(self->fd, KLOG, 0, ALL_FLAGS, &self->id,
				&self->cfd));
	child = fork();
	if (!child) {
		execl("/bin/sh", "/bin/sh", "-c", "exit 3", marker, NULL);
		_exit(99);
	}
	ASSERT_EQ(3, etw_wait_child(child));
	ASSERT_EQ(0, pthread_create(&th, NULL, thread_fn, &tid));
	ASSERT_EQ(0, pthread_join(th, NULL));
	efd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	ASSERT_GE(efd, 0);
	map = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, efd, 0);
	ASSERT_NE(MAP_FAILED, map);
	ASSERT_EQ(0, munmap(map, 4096));
	close(efd);
	ASSERT_EQ(0, klog_stop(self->fd, self->id, self->cfd, &self->rs));
	self->cfd = -1;
	EXPECT_EQ(0, self->rs.bad);

	/*
	 * fork(): the child starts with the parent's image and line, in an
	 * event the parent writes (records are in buffer order, per CPU).
	 */
	fork_start = find_by(&self->rs, ETW_GROUP_PROCESS, T_START, child,
			     getpid());
	ASSERT_NE(NULL, fork_start);
	EXPECT_EQ(getpid(), fork_start->ppid);
	EXPECT_STREQ(comm, fork_start->image);
	EXPECT_EQ(0, fork_start->uid);
	EXPECT_EQ((__u32)getsid(0), fork_start->session);
	/* execve(): the new image and its command line. */
	exec_start = find_by(&self->rs, ETW_GROUP_PROCESS, T_START, child,
			     child);
	ASSERT_NE(NULL, exec_start);
	EXPECT_EQ(getpid(), exec_start->ppid);
	EXPECT_STREQ("sh", exec_start->image);
	EXPECT_STREQ(cmd, exec_start->cmd);
	EXPECT_EQ(fork_start->key, exec_start->key);
	k = find(&self->rs, ETW_GROUP_PROCESS, T_END, child);
	ASSERT_NE(NULL, k);
	EXPECT_EQ(3, k->exit_status);
	EXPECT_EQ(fork_start->key, k->key);
	EXPECT_STREQ("sh", k->image);
	/* Its one thread. */
	k = find_tid(&self->rs, T_START, child);
	ASSERT_NE(NULL, k);
	EXPECT_EQ(child, k->pid);
	ASSERT_NE(NULL, find_tid(&self->rs, T_END, child));
	/* Its program's executable mapping, from execve(). */
	k = find_image(&self->rs, T_LOAD, child, sh);
	ASSERT_NE(NULL, k) TH_LOG("no Load of %s", sh);
	EXPECT_NE(0, k->base);
	EXPECT_NE(0, k->size);
	EXPECT_EQ(0, k->base % 4096);
	/* Our thread. */
	ASSERT_NE(0, tid);
	k = find_tid(&self->rs, T_START, tid);
	ASSERT_NE(NULL, k);
	EXPECT_EQ(getpid(), k->pid);
	k = find_tid(&self->rs, T_END, tid);
	ASSERT_NE(NULL, k);
	EXPECT_EQ(getpid(), k->pid);
	/* mmap() with PROT_EXEC of a file, and its munmap(). */
	k = find_image(&self->rs, T_LOAD, getpid(), exe);
	ASSERT_NE(NULL, k);
	EXPECT_EQ((uintptr_t)map, k->base);
	EXPECT_EQ(4096, k->size);
	EXPECT_EQ((uintptr_t)map, k->default_base);
	k = find_image(&self->rs, T_UNLOAD, getpid(), exe);
	ASSERT_NE(NULL, k);
	EXPECT_EQ((uintptr_t)map, k->base);
	EXPECT_EQ(4096, k->size);
}

static void *spin_fn(void *arg)
{
	for (;;)
		sched_yield();
	return arg;
}

/*
 * A process whose threads all die together (exit_group()) ends once,
 * whichever thread is last out; each thread ends once.
 */
TEST_F(klog, threaded_exit_ends_once)
{
	enum { CHILDREN = 10, THREADS = 4 };
	pid_t child[CHILDREN];
	pthread_t th;
	size_t c, i;
	int ends, tends;

	ASSERT_EQ(0, klog_start(self->fd, KLOG, 0, ETW_KFLAG_PROCESS |
				ETW_KFLAG_THREAD, &self->id, &self->cfd));
	for (c = 0; c < CHILDREN; c++) {
		child[c] = fork();
		if (!child[c]) {
			for (i = 0; i < THREADS; i++)
				if (pthread_create(&th, NULL, spin_fn, NULL))
					_exit(98);
			_exit(7);
		}
		ASSERT_LT(0, child[c]);
	}
	for (c = 0; c < CHILDREN; c++)
		ASSERT_EQ(7, etw_wait_child(child[c]));
	ASSERT_EQ(0, klog_stop(self->fd, self->id, self->cfd, &self->rs));
	self->cfd = -1;
	EXPECT_EQ(0, self->rs.bad);
	for (c = 0; c < CHILDREN; c++) {
		ends = 0;
		tends = 0;
		for (i = 0; i < self->rs.n; i++) {
			const struct krec *k = &self->rs.r[i];

			if (k->pid != (__u32)child[c])
				continue;
			if (k->h.hook_id == (ETW_GROUP_PROCESS << 8 | T_END)) {
				ends++;
				EXPECT_EQ(7, k->exit_status);
			}
			tends += k->h.hook_id ==
				 (ETW_GROUP_THREAD << 8 | T_END);
		}
		EXPECT_EQ(1, ends) TH_LOG("child %d", child[c]);
		EXPECT_EQ(1 + THREADS, tends) TH_LOG("child %d", child[c]);
	}
}

/* A process killed by a signal ends with 128 + the signal, as a shell says. */
TEST_F(klog, killed_process_ends_with_128_plus_the_signal)
{
	const struct krec *k;
	pid_t child;

	ASSERT_EQ(0, klog_start(self->fd, KLOG, 0, ETW_KFLAG_PROCESS,
				&self->id, &self->cfd));
	child = fork();
	ASSERT_LE(0, child);
	if (!child) {
		pause();
		_exit(1);
	}
	ASSERT_EQ(0, kill(child, SIGKILL));
	ASSERT_EQ(256 + SIGKILL, etw_wait_child(child));
	ASSERT_EQ(0, klog_stop(self->fd, self->id, self->cfd, &self->rs));
	self->cfd = -1;
	EXPECT_EQ(0, self->rs.bad);
	k = find(&self->rs, ETW_GROUP_PROCESS, T_END, child);
	ASSERT_NE(NULL, k);
	EXPECT_EQ(128 + SIGKILL, k->exit_status);
}

#define LOSS_THREADS	200

/*
 * A kernel logger with no buffer free loses events and counts them in
 * events_lost: two 4 KiB buffers (one stream) that nobody reads until
 * the stop cannot hold the Start and End of 200 threads.
 */
TEST_F(klog, events_without_a_buffer_count_in_events_lost)
{
	struct etw_session_args a;
	__u8 *buf = malloc(4096);
	pthread_t th;
	pid_t tid;
	ssize_t r;
	int i;

	ASSERT_NE(NULL, buf);
	raw_session_init(&a, 0);
	snprintf(a.name, sizeof(a.name), "%s", KLOG);
	a.config.buffer_kb = 4;
	a.config.max_buffers = 1;	/* raised to the minimum */
	a.config.mode = ETW_MODE_REAL_TIME | ETW_MODE_NO_PER_PROCESSOR;
	a.config.enable_flags = ETW_KFLAG_THREAD;
	ASSERT_EQ(0, etw_ioctl(self->fd, ETW_IOC_START, &a));
	self->id = a.logger_id;
	self->cfd = raw_consumer(self->fd, self->id);
	ASSERT_LE(0, self->cfd);
	for (i = 0; i < LOSS_THREADS; i++) {
		ASSERT_EQ(0, pthread_create(&th, NULL, thread_fn, &tid));
		ASSERT_EQ(0, pthread_join(th, NULL));
	}
	ASSERT_EQ(0, raw_session_op(self->fd, ETW_IOC_STOP, self->id, &a));
	while ((r = read(self->cfd, buf, 4096)) > 0) {
		ASSERT_EQ(4096, r);
		ASSERT_EQ(0, walk(buf, &self->rs));
	}
	ASSERT_EQ(0, r);
	close(self->cfd);
	self->cfd = -1;
	free(buf);
	EXPECT_EQ(0, self->rs.bad);
	/* Every record the session counted written was delivered. */
	EXPECT_EQ(self->rs.n, a.stats.events_written);
	/* The threads' events were written or lost; most were lost. */
	EXPECT_LT(2 * LOSS_THREADS, a.stats.events_written +
				    a.stats.events_lost);
	EXPECT_LT(a.stats.events_written, 2 * LOSS_THREADS);
}

/* --- when images unload -------------------------------------------------- */

#define PAGE		4096

/* One Load or Unload, as the tests below expect them. */
struct img {
	__u8 type;
	__u64 base, size, default_base;
};

static int by_time(const void *a, const void *b)
{
	const struct krec *x = *(const struct krec *const *)a;
	const struct krec *y = *(const struct krec *const *)b;

	return x->h.timestamp < y->h.timestamp ? -1 :
	       x->h.timestamp > y->h.timestamp;
}

/*
 * The Loads and Unloads about @pid's mappings of @file in time order (per-CPU
 * buffers are read one after another); at most @max, the count returned.
 */
static size_t image_events(const struct krecs *rs, __u32 pid, const char *file,
			   struct img *out, size_t max)
{
	const struct krec **sel = calloc(rs->n + 1, sizeof(*sel));
	size_t i, n = 0;

	if (!sel)
		return 0;
	for (i = 0; i < rs->n; i++) {
		const struct krec *k = &rs->r[i];
		__u8 type = k->h.hook_id & 0xff;

		if (k->h.hook_id >> 8 == ETW_GROUP_IMAGE && k->pid == pid &&
		    (type == T_LOAD || type == T_UNLOAD) && !strcmp(k->file, file))
			sel[n++] = k;
	}
	qsort(sel, n, sizeof(*sel), by_time);
	for (i = 0; i < n && i < max; i++) {
		out[i].type = sel[i]->h.hook_id & 0xff;
		out[i].base = sel[i]->base;
		out[i].size = sel[i]->size;
		out[i].default_base = sel[i]->default_base;
	}
	free(sel);
	return n;
}

/* The program's file mapped at a free address with @prot and @flags. */
static char *map_exe(size_t len, int prot, int flags)
{
	int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	void *map;

	if (fd < 0)
		return NULL;
	map = mmap(NULL, len, prot, flags, fd, 0);
	close(fd);
	return map == MAP_FAILED ? NULL : map;
}

/* The executable file mappings /proc/self/maps lists. */
static int exec_file_mappings(void)
{
	FILE *f = fopen("/proc/self/maps", "re");
	char line[512], perms[8], path[PATH_MAX];
	int n = 0;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%*x-%*x %7s %*x %*x:%*x %*u %4095s", perms,
			   path) == 2 && perms[2] == 'x' && path[0] == '/')
			n++;
	if (f)
		fclose(f);
	return f ? n : -1;
}

#define EXPECT_IMAGES(self, pid, file, ...)				\
	do {								\
		const struct img want_[] = { __VA_ARGS__ };		\
		struct img got_[8];					\
		size_t n_ = image_events(&(self)->rs, pid, file, got_,	\
					 8), i_;			\
									\
		ASSERT_EQ(ARRAY_SIZE(want_), n_);			\
		for (i_ = 0; i_ < n_; i_++) {				\
			EXPECT_EQ(want_[i_].type, got_[i_].type)	\
				TH_LOG("event %zu", i_);		\
			EXPECT_EQ(want_[i_].base, got_[i_].base)	\
				TH_LOG("event %zu", i_);		\
			EXPECT_EQ(want_[i_].size, got_[i_].size)	\
				TH_LOG("event %zu", i_);		\
			EXPECT_EQ(want_[i_].default_base,		\
				  got_[i_].default_base)		\
				TH_LOG("event %zu", i_);		\
		}							\
	} while (0)

#define IMG(type, base, size, default_base) \
	{ type, (uintptr_t)(base), size, (uintptr_t)(default_base) }

/* Start the logger with @flags, or fail the test. */
#define KLOG_START(self, flags)						\
	ASSERT_EQ(0, klog_start((self)->fd, KLOG, 0, flags, &(self)->id, \
				&(self)->cfd))

#define KLOG_STOP(self)							\
	do {								\
		ASSERT_EQ(0, klog_stop((self)->fd, (self)->id,		\
				       (self)->cfd, &(self)->rs));	\
		(self)->cfd = -1;					\
		EXPECT_EQ(0, (self)->rs.bad);				\
	} while (0)

/*
 * A child maps the program once more, counts its executable file mappings
 * and sends both, then runs @then: exit (NULL) or execve() of @then.
 */
static pid_t mapping_child(int *pipefd, const char *then)
{
	pid_t child = fork();
	char *map;
	int n;

	if (child)
		return child;
	map = map_exe(2 * PAGE, PROT_READ | PROT_EXEC, MAP_PRIVATE);
	n = exec_file_mappings();
	if (!map || n < 2 || write(pipefd[1], &map, sizeof(map)) != sizeof(map) ||
	    write(pipefd[1], &n, sizeof(n)) != sizeof(n))
		_exit(98);
	if (then)
		execl(then, then, NULL);
	_exit(then ? 99 : 0);
}

/* Has @pid an event @want about @file, before @before? */
static bool has_image(const struct krecs *rs, __u32 pid, const char *file,
		      struct img want, __u64 before)
{
	size_t i;

	for (i = 0; i < rs->n; i++) {
		const struct krec *k = &rs->r[i];

		if (k->h.hook_id == (ETW_GROUP_IMAGE << 8 | want.type) &&
		    k->pid == pid && !strcmp(k->file, file) &&
		    k->base == want.base && k->size == want.size &&
		    k->default_base == want.default_base &&
		    k->h.timestamp < before)
			return true;
	}
	return false;
}

/* @pid's events of @type before @before. */
static int count_type(const struct krecs *rs, __u32 pid, __u8 type,
		      __u64 before)
{
	int n = 0;
	size_t i;

	for (i = 0; i < rs->n; i++)
		n += rs->r[i].h.hook_id == (ETW_GROUP_IMAGE << 8 | type) &&
		     rs->r[i].pid == pid && rs->r[i].h.timestamp < before;
	return n;
}

/* Every executable file mapping of a process unloads when it exits. */
TEST_F(klog, exit_unloads_every_image)
{
	char exe[PATH_MAX], *map;
	int p[2], n;
	pid_t child;

	ASSERT_NE(NULL, realpath("/proc/self/exe", exe));
	ASSERT_EQ(0, pipe(p));
	KLOG_START(self, ETW_KFLAG_IMAGE_LOAD);
	child = mapping_child(p, NULL);
	ASSERT_LT(0, child);
	ASSERT_EQ(sizeof(map), read(p[0], &map, sizeof(map)));
	ASSERT_EQ(sizeof(n), read(p[0], &n, sizeof(n)));
	ASSERT_EQ(0, etw_wait_child(child));
	KLOG_STOP(self);
	EXPECT_EQ(n, count_type(&self->rs, child, T_UNLOAD, ~0ULL));
	EXPECT_EQ(1, count_type(&self->rs, child, T_LOAD, ~0ULL));
	EXPECT_TRUE(has_image(&self->rs, child, exe,
			      (struct img)IMG(T_UNLOAD, map, 2 * PAGE, map),
			      ~0ULL));
}

/*
 * execve() unloads every executable file mapping of the program it
 * replaces, before the new program starts.
 */
TEST_F(klog, execve_unloads_the_old_images)
{
	const struct krec *exec_start;
	char exe[PATH_MAX], *map;
	int p[2], n;
	pid_t child;

	ASSERT_NE(NULL, realpath("/proc/self/exe", exe));
	ASSERT_EQ(0, pipe(p));
	KLOG_START(self, ETW_KFLAG_PROCESS | ETW_KFLAG_IMAGE_LOAD);
	child = mapping_child(p, "/bin/true");
	ASSERT_LT(0, child);
	ASSERT_EQ(sizeof(map), read(p[0], &map, sizeof(map)));
	ASSERT_EQ(sizeof(n), read(p[0], &n, sizeof(n)));
	ASSERT_EQ(0, etw_wait_child(child));
	KLOG_STOP(self);
	exec_start = find_by(&self->rs, ETW_GROUP_PROCESS, T_START, child,
			     child);
	ASSERT_NE(NULL, exec_start);
	EXPECT_EQ(n, count_type(&self->rs, child, T_UNLOAD,
				exec_start->h.timestamp));
	EXPECT_TRUE(has_image(&self->rs, child, exe,
			      (struct img)IMG(T_UNLOAD, map, 2 * PAGE, map),
			      exec_start->h.timestamp));
}

/* A MAP_FIXED mapping over an image unloads what it replaces. */
TEST_F(klog, map_fixed_unloads_what_it_replaces)
{
	char exe[PATH_MAX], *map;

	ASSERT_NE(NULL, realpath("/proc/self/exe", exe));
	KLOG_START(self, ETW_KFLAG_IMAGE_LOAD);
	map = map_exe(2 * PAGE, PROT_READ | PROT_EXEC, MAP_PRIVATE);
	ASSERT_NE(NULL, map);
	ASSERT_EQ(map + PAGE, mmap(map + PAGE, PAGE, PROT_READ,
				   MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS,
				   -1, 0));
	KLOG_STOP(self);
	munmap(map, 2 * PAGE);
	EXPECT_IMAGES(self, getpid(), exe,
		      IMG(T_LOAD, map, 2 * PAGE, map),
		      IMG(T_UNLOAD, map + PAGE, PAGE, map));
}

/* mprotect() taking PROT_EXEC away unloads; giving it back loads. */
TEST_F(klog, mprotect_exec_unloads_and_loads)
{
	char exe[PATH_MAX], *map;

	ASSERT_NE(NULL, realpath("/proc/self/exe", exe));
	KLOG_START(self, ETW_KFLAG_IMAGE_LOAD);
	map = map_exe(2 * PAGE, PROT_READ | PROT_EXEC, MAP_PRIVATE);
	ASSERT_NE(NULL, map);
	ASSERT_EQ(0, mprotect(map + PAGE, PAGE, PROT_READ));
	ASSERT_EQ(0, mprotect(map + PAGE, PAGE, PROT_READ | PROT_EXEC));
	KLOG_STOP(self);
	munmap(map, 2 * PAGE);
	EXPECT_IMAGES(self, getpid(), exe,
		      IMG(T_LOAD, map, 2 * PAGE, map),
		      IMG(T_UNLOAD, map + PAGE, PAGE, map),
		      IMG(T_LOAD, map + PAGE, PAGE, map));
}

/* A file mapped without PROT_EXEC loads when mprotect() adds it. */
TEST_F(klog, mprotect_adding_exec_loads)
{
	char exe[PATH_MAX], *map;

	ASSERT_NE(NULL, realpath("/proc/self/exe", exe));
	KLOG_START(self, ETW_KFLAG_IMAGE_LOAD);
	map = map_exe(PAGE, PROT_READ, MAP_PRIVATE);
	ASSERT_NE(NULL, map);
	ASSERT_EQ(0, mprotect(map, PAGE, PROT_READ | PROT_EXEC));
	KLOG_STOP(self);
	munmap(map, PAGE);
	EXPECT_IMAGES(self, getpid(), exe, IMG(T_LOAD, map, PAGE, map));
}

/*
 * An mprotect() the mapping refuses (write access to a shared mapping of
 * a file opened read-only) changes nothing and reports nothing.
 */
TEST_F(klog, refused_mprotect_reports_nothing)
{
	char exe[PATH_MAX], *map;

	ASSERT_NE(NULL, realpath("/proc/self/exe", exe));
	KLOG_START(self, ETW_KFLAG_IMAGE_LOAD);
	map = map_exe(PAGE, PROT_READ | PROT_EXEC, MAP_SHARED);
	ASSERT_NE(NULL, map);
	ASSERT_EQ(-1, mprotect(map, PAGE, PROT_READ | PROT_WRITE));
	EXPECT_EQ(EACCES, errno);
	KLOG_STOP(self);
	munmap(map, PAGE);
	EXPECT_IMAGES(self, getpid(), exe, IMG(T_LOAD, map, PAGE, map));
}

/* mremap() moving an image unloads it where it was and loads it anew. */
TEST_F(klog, mremap_move_unloads_and_loads)
{
	char exe[PATH_MAX], *map, *to;

	ASSERT_NE(NULL, realpath("/proc/self/exe", exe));
	to = mmap(NULL, 2 * PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
		  0);
	ASSERT_NE(MAP_FAILED, to);
	KLOG_START(self, ETW_KFLAG_IMAGE_LOAD);
	map = map_exe(2 * PAGE, PROT_READ | PROT_EXEC, MAP_PRIVATE);
	ASSERT_NE(NULL, map);
	ASSERT_EQ(to, mremap(map, 2 * PAGE, 2 * PAGE,
			     MREMAP_MAYMOVE | MREMAP_FIXED, to));
	KLOG_STOP(self);
	munmap(to, 2 * PAGE);
	EXPECT_IMAGES(self, getpid(), exe,
		      IMG(T_LOAD, map, 2 * PAGE, map),
		      IMG(T_UNLOAD, map, 2 * PAGE, map),
		      IMG(T_LOAD, to, 2 * PAGE, to));
}

/* mremap() shrinking an image in place unloads its tail. */
TEST_F(klog, mremap_shrink_unloads_the_tail)
{
	char exe[PATH_MAX], *map;

	ASSERT_NE(NULL, realpath("/proc/self/exe", exe));
	KLOG_START(self, ETW_KFLAG_IMAGE_LOAD);
	map = map_exe(2 * PAGE, PROT_READ | PROT_EXEC, MAP_PRIVATE);
	ASSERT_NE(NULL, map);
	ASSERT_EQ(map, mremap(map, 2 * PAGE, PAGE, 0));
	KLOG_STOP(self);
	munmap(map, PAGE);
	EXPECT_IMAGES(self, getpid(), exe,
		      IMG(T_LOAD, map, 2 * PAGE, map),
		      IMG(T_UNLOAD, map + PAGE, PAGE, map));
}

/* The numeric entries of /proc: every process. */
static size_t proc_pids(unsigned char *set)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	size_t n = 0;
	char *end;
	long pid;

	memset(set, 0, MAX_PIDS);
	while (d && (e = readdir(d))) {
		pid = strtol(e->d_name, &end, 10);
		if (*end || pid <= 0 || pid >= MAX_PIDS)
			continue;
		set[pid] = 1;
		n++;
	}
	if (d)
		closedir(d);
	return n;
}

/* /proc/self/cmdline, the arguments joined with spaces. */
static void own_cmdline(char *out, size_t room)
{
	int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, out, room - 1);
	ssize_t i;

	if (fd >= 0)
		close(fd);
	if (n < 0)
		n = 0;
	while (n && !out[n - 1])
		n--;
	for (i = 0; i < n; i++)
		if (!out[i])
			out[i] = ' ';
	out[n] = 0;
}

/*
 * Every process alive before the start and after the stop is in both
 * rundowns, with its threads; each DCStart process was in /proc at one of
 * the two reads or started in between (it then has a Start event too).
 */
TEST_F(klog, rundown_lists_every_process)
{
	unsigned char *before = malloc(MAX_PIDS), *after = malloc(MAX_PIDS);
	unsigned char *dc_start = calloc(MAX_PIDS, 1);
	unsigned char *dc_end = calloc(MAX_PIDS, 1);
	char exe[PATH_MAX], cmd[KTEXT], comm[32];
	const struct krec *k;
	size_t i, both = 0;

	ASSERT_TRUE(before && after && dc_start && dc_end);
	ASSERT_NE(NULL, realpath("/proc/self/exe", exe));
	ASSERT_EQ(0, prctl(PR_GET_NAME, comm, 0, 0, 0));
	own_cmdline(cmd, sizeof(cmd));
	proc_pids(before);
	ASSERT_EQ(0, klog_start(self->fd, KLOG, 0, ALL_FLAGS, &self->id,
				&self->cfd));
	ASSERT_EQ(0, klog_stop(self->fd, self->id, self->cfd, &self->rs));
	self->cfd = -1;
	proc_pids(after);
	EXPECT_EQ(0, self->rs.bad);
	for (i = 0; i < self->rs.n; i++) {
		k = &self->rs.r[i];
		if (k->h.hook_id == (ETW_GROUP_PROCESS << 8 | T_DC_START) &&
		    k->pid < MAX_PIDS)
			dc_start[k->pid] = 1;
		if (k->h.hook_id == (ETW_GROUP_PROCESS << 8 | T_DC_END) &&
		    k->pid < MAX_PIDS)
			dc_end[k->pid] = 1;
	}
	for (i = 1; i < MAX_PIDS; i++) {
		if (before[i] && after[i]) {
			both++;
			EXPECT_TRUE(dc_start[i]) TH_LOG("pid %zu: no DCStart", i);
			EXPECT_TRUE(dc_end[i]) TH_LOG("pid %zu: no DCEnd", i);
			EXPECT_NE(NULL, find(&self->rs, ETW_GROUP_THREAD,
					     T_DC_START, i))
				TH_LOG("pid %zu: no thread DCStart", i);
		}
		if (dc_start[i] && !before[i] && !after[i])
			EXPECT_NE(NULL, find(&self->rs, ETW_GROUP_PROCESS,
					     T_START, i))
				TH_LOG("pid %zu: DCStart, never in /proc", i);
	}
	EXPECT_LT(1, both);
	/* Our own entries, as /proc tells them. */
	k = find(&self->rs, ETW_GROUP_PROCESS, T_DC_START, getpid());
	ASSERT_NE(NULL, k);
	EXPECT_EQ(getppid(), k->ppid);
	EXPECT_STREQ(comm, k->image);
	EXPECT_STREQ(cmd, k->cmd);
	EXPECT_EQ(0, k->exit_status);
	k = find_tid(&self->rs, T_DC_END, getpid());
	ASSERT_NE(NULL, k);
	EXPECT_EQ(getpid(), k->pid);
	ASSERT_NE(NULL, find_image(&self->rs, T_DC_START, getpid(), exe));
	ASSERT_NE(NULL, find_image(&self->rs, T_DC_END, getpid(), exe));
	free(before);
	free(after);
	free(dc_start);
	free(dc_end);
}

/* Each flag alone gives its own group's events only; none gives none. */
TEST_F(klog, flags_choose_the_groups)
{
	static const struct {
		__u32 flags;
		__u32 groups;	/* bit per group */
	} cases[] = {
		{ 0, 0 },
		{ ETW_KFLAG_PROCESS, 1u << ETW_GROUP_PROCESS },
		{ ETW_KFLAG_THREAD, 1u << ETW_GROUP_THREAD },
		{ ETW_KFLAG_IMAGE_LOAD, 1u << ETW_GROUP_IMAGE },
	};
	size_t c, i;
	__u32 seen;
	pid_t child;

	for (c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		ASSERT_EQ(0, klog_start(self->fd, KLOG, 0, cases[c].flags,
					&self->id, &self->cfd));
		child = fork();
		if (!child) {
			execl("/bin/true", "true", NULL);
			_exit(99);
		}
		ASSERT_EQ(0, etw_wait_child(child));
		ASSERT_EQ(0, klog_stop(self->fd, self->id, self->cfd,
				       &self->rs));
		self->cfd = -1;
		seen = 0;
		for (i = 0; i < self->rs.n; i++)
			seen |= 1u << (self->rs.r[i].h.hook_id >> 8);
		EXPECT_EQ(cases[c].groups, seen) TH_LOG("flags %#x",
							cases[c].flags);
		free(self->rs.r);
		memset(&self->rs, 0, sizeof(self->rs));
	}
}

/* One kernel logger at a time, by either way of naming one. */
TEST_F(klog, one_at_a_time)
{
	__u32 id;
	int cfd;

	ASSERT_EQ(0, klog_start(self->fd, KLOG, 0, ETW_KFLAG_PROCESS,
				&self->id, &self->cfd));
	EXPECT_EQ(-EEXIST, klog_start(self->fd, "nt kernel logger", 0, 0, &id,
				      &cfd));
	EXPECT_EQ(-EEXIST, klog_start(self->fd, "other-kernel-logger",
				      ETW_MODE_SYSTEM_LOGGER, 0, &id, &cfd));
	ASSERT_EQ(0, klog_stop(self->fd, self->id, self->cfd, &self->rs));
	self->cfd = -1;
	/* Stopped, a system-logger-mode session may be the one. */
	ASSERT_EQ(0, klog_start(self->fd, "other-kernel-logger",
				ETW_MODE_SYSTEM_LOGGER, ETW_KFLAG_THREAD,
				&self->id, &self->cfd));
}

/*
 * QUERY reports the flags; an UPDATE without ETW_UPDATE_ENABLE_FLAGS may
 * pass 0 or them, nothing else.
 */
TEST_F(klog, query_and_update)
{
	struct etw_session_args a;

	ASSERT_EQ(0, klog_start(self->fd, KLOG, 0, ETW_KFLAG_THREAD,
				&self->id, &self->cfd));
	ASSERT_EQ(0, raw_session_op(self->fd, ETW_IOC_QUERY, self->id, &a));
	EXPECT_EQ(ETW_KFLAG_THREAD, a.config.enable_flags);
	raw_session_init(&a, self->id);
	a.config.enable_flags = ETW_KFLAG_THREAD;
	EXPECT_EQ(0, etw_ioctl(self->fd, ETW_IOC_UPDATE, &a));
	raw_session_init(&a, self->id);
	a.config.enable_flags = ETW_KFLAG_PROCESS;
	EXPECT_EQ(-EINVAL, etw_ioctl(self->fd, ETW_IOC_UPDATE, &a));
}

/* UPDATE of the kernel logger's flags: the new set, @flags; -errno. */
static int klog_set_flags(int fd, __u32 id, __u32 flags,
			  struct etw_session_args *out)
{
	struct etw_session_args a;
	int ret;

	raw_session_init(&a, id);
	a.flags = ETW_UPDATE_ENABLE_FLAGS;
	a.config.enable_flags = flags;
	ret = etw_ioctl(fd, ETW_IOC_UPDATE, &a);
	if (out)
		*out = a;
	return ret;
}

static __u32 klog_flags(int fd, __u32 id)
{
	struct etw_session_args a;

	if (raw_session_op(fd, ETW_IOC_QUERY, id, &a))
		return ~0u;
	return a.config.enable_flags;
}

/* A thread that lives until its pipe's write end is closed; its tid. */
struct waiter {
	int pipe[2];
	pid_t tid;
	pthread_t th;
};

static void *waiter_fn(void *arg)
{
	struct waiter *w = arg;
	char c;

	__atomic_store_n(&w->tid, (pid_t)syscall(SYS_gettid), __ATOMIC_RELEASE);
	return read(w->pipe[0], &c, 1) == 0 ? NULL : arg;
}

static int waiter_start(struct waiter *w)
{
	w->tid = 0;
	if (pipe(w->pipe) || pthread_create(&w->th, NULL, waiter_fn, w))
		return -1;
	while (!__atomic_load_n(&w->tid, __ATOMIC_ACQUIRE))
		sched_yield();
	return 0;
}

static int waiter_end(struct waiter *w)
{
	void *ret;

	close(w->pipe[1]);
	if (pthread_join(w->th, &ret))
		return -1;
	close(w->pipe[0]);
	return ret ? -1 : 0;
}

/* A thread that starts and ends now; its tid, or 0. */
static pid_t one_thread(void)
{
	pthread_t th;
	pid_t tid = 0;

	if (pthread_create(&th, NULL, thread_fn, &tid) ||
	    pthread_join(th, NULL))
		return 0;
	return tid;
}

/* A child that exits at once; its pid, or -1. */
static pid_t one_child(void)
{
	pid_t pid = fork();

	if (!pid)
		_exit(0);
	return pid > 0 && !etw_wait_child(pid) ? pid : -1;
}

static size_t count(const struct krecs *rs, __u8 group, __u8 type, __u32 pid)
{
	size_t i, n = 0;

	for (i = 0; i < rs->n; i++)
		n += rs->r[i].h.hook_id == (group << 8 | type) &&
		     rs->r[i].pid == pid;
	return n;
}

/* A new thread is no new process: PROCESS alone gives a fork's Start only. */
TEST_F(klog, thread_start_is_no_process_start)
{
	pid_t tid, child;

	ASSERT_EQ(0, klog_start(self->fd, KLOG, 0, ETW_KFLAG_PROCESS,
				&self->id, &self->cfd));
	tid = one_thread();
	ASSERT_NE(0, tid);
	child = one_child();
	ASSERT_LT(0, child);
	ASSERT_EQ(0, klog_stop(self->fd, self->id, self->cfd, &self->rs));
	self->cfd = -1;
	EXPECT_EQ(0, count(&self->rs, ETW_GROUP_PROCESS, T_START, getpid()));
	EXPECT_EQ(0, count(&self->rs, ETW_GROUP_PROCESS, T_START, tid));
	EXPECT_EQ(1, count(&self->rs, ETW_GROUP_PROCESS, T_START, child));
}

/*
 * UPDATE turns THREAD on: the threads there are run down (DCStart), new
 * ones start and end; PROCESS, which stays, runs down no second time and
 * misses nothing; QUERY and the reply show the new flags.
 */
TEST_F(klog, update_turns_thread_on)
{
	struct etw_session_args a;
	pid_t before, after, child1, child2;
	struct waiter w;

	ASSERT_EQ(0, klog_start(self->fd, KLOG, 0, ETW_KFLAG_PROCESS,
				&self->id, &self->cfd));
	ASSERT_EQ(0, waiter_start(&w));
	before = one_thread();
	ASSERT_NE(0, before);
	child1 = one_child();
	ASSERT_LT(0, child1);
	ASSERT_EQ(0, klog_set_flags(self->fd, self->id,
				    ETW_KFLAG_PROCESS | ETW_KFLAG_THREAD, &a));
	EXPECT_EQ(ETW_KFLAG_PROCESS | ETW_KFLAG_THREAD, a.config.enable_flags);
	EXPECT_EQ(ETW_KFLAG_PROCESS | ETW_KFLAG_THREAD,
		  klog_flags(self->fd, self->id));
	after = one_thread();
	ASSERT_NE(0, after);
	child2 = one_child();
	ASSERT_LT(0, child2);
	ASSERT_EQ(0, waiter_end(&w));
	ASSERT_EQ(0, klog_stop(self->fd, self->id, self->cfd, &self->rs));
	self->cfd = -1;
	EXPECT_EQ(0, self->rs.bad);

	/* Before: no thread events. */
	EXPECT_EQ(NULL, find_tid(&self->rs, T_START, before));
	EXPECT_EQ(NULL, find_tid(&self->rs, T_END, before));
	EXPECT_EQ(NULL, find_tid(&self->rs, T_START, child1));
	/* The rundown of what ran at the update: this thread, the waiter. */
	EXPECT_NE(NULL, find_tid(&self->rs, T_DC_START, getpid()));
	EXPECT_NE(NULL, find_tid(&self->rs, T_DC_START, w.tid));
	EXPECT_NE(NULL, find_tid(&self->rs, T_END, w.tid));
	/* After: the thread's Start and End, the child's thread too. */
	EXPECT_NE(NULL, find_tid(&self->rs, T_START, after));
	EXPECT_NE(NULL, find_tid(&self->rs, T_END, after));
	EXPECT_NE(NULL, find_tid(&self->rs, T_START, child2));
	/* At stop, THREAD's DCEnd. */
	EXPECT_NE(NULL, find_tid(&self->rs, T_DC_END, getpid()));
	/* PROCESS throughout: both children, one DCStart of this process. */
	EXPECT_NE(NULL, find(&self->rs, ETW_GROUP_PROCESS, T_START, child1));
	EXPECT_NE(NULL, find(&self->rs, ETW_GROUP_PROCESS, T_END, child1));
	EXPECT_NE(NULL, find(&self->rs, ETW_GROUP_PROCESS, T_START, child2));
	EXPECT_NE(NULL, find(&self->rs, ETW_GROUP_PROCESS, T_END, child2));
	EXPECT_EQ(1, count(&self->rs, ETW_GROUP_PROCESS, T_DC_START, getpid()));
}

/*
 * UPDATE turns THREAD off (no thread event after it, PROCESS goes on),
 * then every flag (0): no event at all after it.
 */
TEST_F(klog, update_turns_thread_off)
{
	struct etw_session_args a;
	pid_t tid, child1, child2;

	ASSERT_EQ(0, klog_start(self->fd, KLOG, 0,
				ETW_KFLAG_PROCESS | ETW_KFLAG_THREAD,
				&self->id, &self->cfd));
	ASSERT_EQ(0, klog_set_flags(self->fd, self->id, ETW_KFLAG_PROCESS,
				    &a));
	EXPECT_EQ(ETW_KFLAG_PROCESS, a.config.enable_flags);
	EXPECT_EQ(ETW_KFLAG_PROCESS, klog_flags(self->fd, self->id));
	tid = one_thread();
	ASSERT_NE(0, tid);
	child1 = one_child();
	ASSERT_LT(0, child1);
	ASSERT_EQ(0, klog_set_flags(self->fd, self->id, 0, &a));
	EXPECT_EQ(0, a.config.enable_flags);
	EXPECT_EQ(0, klog_flags(self->fd, self->id));
	child2 = one_child();
	ASSERT_LT(0, child2);
	ASSERT_EQ(0, klog_stop(self->fd, self->id, self->cfd, &self->rs));
	self->cfd = -1;
	EXPECT_EQ(0, self->rs.bad);

	/* The start's rundown had this thread; nothing after the update. */
	EXPECT_NE(NULL, find_tid(&self->rs, T_DC_START, getpid()));
	EXPECT_EQ(NULL, find_tid(&self->rs, T_START, tid));
	EXPECT_EQ(NULL, find_tid(&self->rs, T_END, tid));
	EXPECT_EQ(NULL, find_tid(&self->rs, T_START, child1));
	EXPECT_EQ(NULL, find_tid(&self->rs, T_DC_END, getpid()));
	/* PROCESS until the second update. */
	EXPECT_NE(NULL, find(&self->rs, ETW_GROUP_PROCESS, T_START, child1));
	EXPECT_NE(NULL, find(&self->rs, ETW_GROUP_PROCESS, T_END, child1));
	EXPECT_EQ(NULL, find(&self->rs, ETW_GROUP_PROCESS, T_START, child2));
	EXPECT_EQ(NULL, find(&self->rs, ETW_GROUP_PROCESS, T_END, child2));
	EXPECT_EQ(NULL, find(&self->rs, ETW_GROUP_PROCESS, T_DC_END, getpid()));
}

/*
 * A refused UPDATE changes nothing: an unknown flag, another session, an
 * unknown argument flag, and new flags with a change UPDATE refuses (the
 * probes IMAGE_LOAD would have added are gone again: no image events).
 */
TEST_F(klog, update_refused_changes_nothing)
{
	struct etw_session_args a;
	__u32 other;
	pid_t tid, child;
	void *map;
	size_t i, images = 0;
	int efd;

	ASSERT_EQ(0, klog_start(self->fd, KLOG, 0, ETW_KFLAG_PROCESS,
				&self->id, &self->cfd));
	EXPECT_EQ(-EINVAL, klog_set_flags(self->fd, self->id,
					  ETW_KFLAG_PROCESS | 0x8, NULL));
	EXPECT_EQ(-EINVAL, klog_set_flags(self->fd, self->id, 0x80000000,
					  NULL));
	raw_session_init(&a, self->id);
	a.flags = 0x2;
	a.config.enable_flags = ETW_KFLAG_PROCESS | ETW_KFLAG_THREAD;
	EXPECT_EQ(-EINVAL, etw_ioctl(self->fd, ETW_IOC_UPDATE, &a));
	raw_session_init(&a, self->id);
	a.flags = ETW_UPDATE_ENABLE_FLAGS;
	a.config.enable_flags = ETW_KFLAG_PROCESS | ETW_KFLAG_IMAGE_LOAD;
	a.config.buffer_kb = 2 * BUF_KB;
	EXPECT_EQ(-EINVAL, etw_ioctl(self->fd, ETW_IOC_UPDATE, &a));
	raw_session_init(&a, self->id);
	a.flags = ETW_UPDATE_ENABLE_FLAGS;
	a.config.enable_flags = ETW_KFLAG_THREAD;
	a.config.max_buffers = MAX_BUFFERS - 1;
	EXPECT_EQ(-EINVAL, etw_ioctl(self->fd, ETW_IOC_UPDATE, &a));
	/* Flags for a session that is not the kernel logger. */
	ASSERT_EQ(0, raw_start(self->fd, "klog-other", ETW_MODE_REAL_TIME, 0, 0,
			       &other));
	EXPECT_EQ(-EINVAL, klog_set_flags(self->fd, other, 0, NULL));
	EXPECT_EQ(-EINVAL, klog_set_flags(self->fd, other, ETW_KFLAG_PROCESS,
					  NULL));
	EXPECT_EQ(0, klog_flags(self->fd, other));
	EXPECT_EQ(0, raw_session_op(self->fd, ETW_IOC_STOP, other, NULL));
	EXPECT_EQ(ETW_KFLAG_PROCESS, klog_flags(self->fd, self->id));

	tid = one_thread();
	ASSERT_NE(0, tid);
	child = one_child();
	ASSERT_LT(0, child);
	efd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	ASSERT_GE(efd, 0);
	map = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, efd, 0);
	ASSERT_NE(MAP_FAILED, map);
	ASSERT_EQ(0, munmap(map, 4096));
	close(efd);
	ASSERT_EQ(0, klog_stop(self->fd, self->id, self->cfd, &self->rs));
	self->cfd = -1;
	EXPECT_EQ(0, self->rs.bad);
	EXPECT_EQ(NULL, find_tid(&self->rs, T_START, tid));
	for (i = 0; i < self->rs.n; i++)
		images += self->rs.r[i].h.hook_id >> 8 == ETW_GROUP_IMAGE;
	EXPECT_EQ(0, images);
	EXPECT_NE(NULL, find(&self->rs, ETW_GROUP_PROCESS, T_START, child));
	EXPECT_NE(NULL, find(&self->rs, ETW_GROUP_PROCESS, T_END, child));
}

/* What START refuses: flags elsewhere, unknown flags, a private one. */
TEST_F(klog, bad_arguments)
{
	static const struct {
		const char *name;
		__u32 mode;
		__u32 flags;
		__u32 reserved3;
	} cases[] = {
		{ "not-the-kernel-logger", 0, ETW_KFLAG_PROCESS, 0 },
		{ KLOG, 0, 0x8, 0 },
		{ KLOG, 0, 0x80000000, 0 },
		{ KLOG, 0, ETW_KFLAG_PROCESS, 1 },
		{ "private-kernel-logger", ETW_MODE_SYSTEM_LOGGER |
		  ETW_MODE_PRIVATE, 0, 0 },
	};
	struct etw_session_args a;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		raw_session_init(&a, 0);
		snprintf(a.name, sizeof(a.name), "%s", cases[i].name);
		a.config.mode = (cases[i].mode & ETW_MODE_PRIVATE ? 0 :
				 ETW_MODE_REAL_TIME) | cases[i].mode;
		a.config.enable_flags = cases[i].flags;
		a.config.reserved3 = cases[i].reserved3;
		EXPECT_EQ(-EINVAL, etw_ioctl(self->fd, ETW_IOC_START, &a))
			TH_LOG("case %zu", i);
	}
}

/* --- through libetw ------------------------------------------------------ */

static const GUID process_guid = { 0x3d6fa8d0, 0xfe05, 0x11d0,
	{ 0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c } };
static const GUID thread_guid = { 0x3d6fa8d1, 0xfe05, 0x11d0,
	{ 0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c } };
static const GUID image_guid = { 0x2cb15d1d, 0x5fc1, 0x11d2,
	{ 0xab, 0xe1, 0x00, 0xa0, 0xc9, 0x11, 0xf5, 0x18 } };
/* SystemTraceControlGuid, which the SDK header defines only with INITGUID. */
static const GUID system_trace = { 0x9e814aad, 0x3204, 0x11d2,
	{ 0x9a, 0x82, 0x00, 0x60, 0x08, 0xa8, 0x69, 0x39 } };

/* What ProcessTrace delivered about the child. */
struct seen {
	pid_t child;
	int process_start, thread_start, image_load;
	int bad_flags, bad_tdh;
	char image[32];
	WCHAR cmd[KTEXT];
	char task[32], opcode[32];
};

static struct seen seen;

static ULONG tdh_prop(PEVENT_RECORD r, const char *name, void *out,
		      ULONG size)
{
	PROPERTY_DATA_DESCRIPTOR d = { 0 };
	WCHAR w[32];
	size_t i;

	for (i = 0; name[i]; i++)
		w[i] = (WCHAR)name[i];
	w[i] = 0;
	d.PropertyName = (uintptr_t)w;
	d.ArrayIndex = 0xffffffffu;
	return TdhGetProperty(r, 0, NULL, 1, &d, size, out);
}

static void utf16_ascii(const BYTE *p, char *out, size_t room)
{
	size_t i;

	for (i = 0; i + 1 < room && (p[2 * i] || p[2 * i + 1]); i++)
		out[i] = (char)p[2 * i];
	out[i] = 0;
}

/* A Process Start's schema: the class's task and opcode names. */
static void seen_names(PEVENT_RECORD r)
{
	union {
		TRACE_EVENT_INFO tei;
		BYTE b[4096];
	} u;
	ULONG size = sizeof(u);

	if (TdhGetEventInformation(r, 0, NULL, &u.tei, &size) ||
	    u.tei.DecodingSource != DecodingSourceWbem) {
		seen.bad_tdh++;
		return;
	}
	utf16_ascii(u.b + u.tei.TaskNameOffset, seen.task, sizeof(seen.task));
	utf16_ascii(u.b + u.tei.OpcodeNameOffset, seen.opcode,
		    sizeof(seen.opcode));
}

static VOID WINAPI on_kernel_record(PEVENT_RECORD r)
{
	const EVENT_HEADER *h = &r->EventHeader;
	ULONG pid = 0;

	if (!IsEqualGUID(&h->ProviderId, &process_guid) &&
	    !IsEqualGUID(&h->ProviderId, &thread_guid) &&
	    !IsEqualGUID(&h->ProviderId, &image_guid))
		return;
	if (h->Flags != (EVENT_HEADER_FLAG_CLASSIC_HEADER |
			 EVENT_HEADER_FLAG_64_BIT_HEADER))
		seen.bad_flags++;
	if (tdh_prop(r, "ProcessId", &pid, sizeof(pid)) ||
	    pid != (ULONG)seen.child)
		return;
	if (IsEqualGUID(&h->ProviderId, &thread_guid) &&
	    h->EventDescriptor.Opcode == T_START)
		seen.thread_start++;
	if (IsEqualGUID(&h->ProviderId, &image_guid) &&
	    h->EventDescriptor.Opcode == T_LOAD)
		seen.image_load++;
	/* The exec's Start: its image is the new program's. */
	if (IsEqualGUID(&h->ProviderId, &process_guid) &&
	    h->EventDescriptor.Opcode == T_START &&
	    h->EventDescriptor.Version == 4 && h->ProcessId == (ULONG)seen.child &&
	    !tdh_prop(r, "ImageFileName", seen.image, sizeof(seen.image)) &&
	    !tdh_prop(r, "CommandLine", seen.cmd, sizeof(seen.cmd) - 2)) {
		seen.process_start++;
		seen_names(r);
	}
}

TEST(libetw_process_trace_and_tdh)
{
	size_t room = sizeof(EVENT_TRACE_PROPERTIES) + 2048;
	EVENT_TRACE_PROPERTIES *p = calloc(1, room);
	char marker[64], cmd[128], got[KTEXT];
	EVENT_TRACE_LOGFILEA lf;
	PROCESSTRACE_HANDLE ph;
	CONTROLTRACE_ID id;

	ASSERT_NE(NULL, p);
	p->Wnode.BufferSize = room;
	p->Wnode.Flags = WNODE_FLAG_TRACED_GUID;
	p->Wnode.Guid = system_trace;
	p->LogFileMode = EVENT_TRACE_REAL_TIME_MODE;
	p->EnableFlags = EVENT_TRACE_FLAG_PROCESS | EVENT_TRACE_FLAG_THREAD |
			 EVENT_TRACE_FLAG_IMAGE_LOAD;
	p->MaximumBuffers = MAX_BUFFERS;
	p->LoggerNameOffset = sizeof(*p);
	ASSERT_EQ(ERROR_SUCCESS, StartTraceA(&id, KERNEL_LOGGER_NAMEA, p));
	memset(&lf, 0, sizeof(lf));
	lf.LoggerName = KERNEL_LOGGER_NAMEA;
	lf.ProcessTraceMode = PROCESS_TRACE_MODE_REAL_TIME |
			      PROCESS_TRACE_MODE_EVENT_RECORD;
	lf.EventRecordCallback = on_kernel_record;
	ph = OpenTraceA(&lf);
	ASSERT_NE(INVALID_PROCESSTRACE_HANDLE, ph);
	/* A second one: ERROR_ALREADY_EXISTS, as Windows says. */
	EXPECT_EQ(ERROR_ALREADY_EXISTS,
		  StartTraceA(&id, KERNEL_LOGGER_NAMEA, p));
	snprintf(marker, sizeof(marker), "etw-libetw-%d", getpid());
	snprintf(cmd, sizeof(cmd), "/bin/sh -c exit 5 %s", marker);
	memset(&seen, 0, sizeof(seen));
	seen.child = fork();
	if (!seen.child) {
		execl("/bin/sh", "/bin/sh", "-c", "exit 5", marker, NULL);
		_exit(99);
	}
	ASSERT_EQ(5, etw_wait_child(seen.child));
	ASSERT_EQ(ERROR_SUCCESS, ControlTraceA(0, KERNEL_LOGGER_NAMEA, p,
					       EVENT_TRACE_CONTROL_QUERY));
	EXPECT_EQ((ULONG)(EVENT_TRACE_FLAG_PROCESS | EVENT_TRACE_FLAG_THREAD |
			  EVENT_TRACE_FLAG_IMAGE_LOAD), p->EnableFlags);
	ASSERT_EQ(ERROR_SUCCESS, ControlTraceA(0, KERNEL_LOGGER_NAMEA, p,
					       EVENT_TRACE_CONTROL_STOP));
	ASSERT_EQ(ERROR_SUCCESS, ProcessTrace(&ph, 1, NULL, NULL));
	CloseTrace(ph);
	free(p);
	EXPECT_EQ(0, seen.bad_flags);
	EXPECT_EQ(0, seen.bad_tdh);
	EXPECT_EQ(1, seen.process_start);
	EXPECT_STREQ("sh", seen.image);
	utf16_ascii((const BYTE *)seen.cmd, got, sizeof(got));
	EXPECT_STREQ(cmd, got);
	EXPECT_STREQ("Process", seen.task);
	EXPECT_STREQ("Start", seen.opcode);
	EXPECT_EQ(1, seen.thread_start);
	EXPECT_LE(1, seen.image_load);
}

/*
 * ControlTrace UPDATE of the kernel logger: EnableFlags is the new set
 * (0: none), returned on success and by QUERY; a flag etw does not record
 * is ERROR_NOT_SUPPORTED, as for StartTrace, and changes nothing.
 */
TEST(libetw_update_changes_kernel_flags)
{
	ULONG room = sizeof(EVENT_TRACE_PROPERTIES) + 2048;
	EVENT_TRACE_PROPERTIES *p = calloc(1, room);
	CONTROLTRACE_ID id;

	ASSERT_NE(NULL, p);
	p->Wnode.BufferSize = room;
	p->Wnode.Flags = WNODE_FLAG_TRACED_GUID;
	p->LogFileMode = EVENT_TRACE_REAL_TIME_MODE;
	p->EnableFlags = EVENT_TRACE_FLAG_PROCESS;
	p->MaximumBuffers = MAX_BUFFERS;
	p->LoggerNameOffset = sizeof(*p);
	ASSERT_EQ(ERROR_SUCCESS, StartTraceA(&id, KERNEL_LOGGER_NAMEA, p));

	p->EnableFlags = EVENT_TRACE_FLAG_PROCESS | EVENT_TRACE_FLAG_DISK_IO;
	EXPECT_EQ(ERROR_NOT_SUPPORTED,
		  ControlTraceA(0, KERNEL_LOGGER_NAMEA, p,
				EVENT_TRACE_CONTROL_UPDATE));
	ASSERT_EQ(ERROR_SUCCESS, ControlTraceA(0, KERNEL_LOGGER_NAMEA, p,
					       EVENT_TRACE_CONTROL_QUERY));
	EXPECT_EQ((ULONG)EVENT_TRACE_FLAG_PROCESS, p->EnableFlags);

	p->EnableFlags = EVENT_TRACE_FLAG_PROCESS | EVENT_TRACE_FLAG_THREAD;
	EXPECT_EQ(ERROR_SUCCESS, ControlTraceA(id, NULL, p,
					       EVENT_TRACE_CONTROL_UPDATE));
	EXPECT_EQ((ULONG)(EVENT_TRACE_FLAG_PROCESS | EVENT_TRACE_FLAG_THREAD),
		  p->EnableFlags);
	p->EnableFlags = 0;
	ASSERT_EQ(ERROR_SUCCESS, ControlTraceA(0, KERNEL_LOGGER_NAMEA, p,
					       EVENT_TRACE_CONTROL_QUERY));
	EXPECT_EQ((ULONG)(EVENT_TRACE_FLAG_PROCESS | EVENT_TRACE_FLAG_THREAD),
		  p->EnableFlags);

	p->EnableFlags = 0;
	EXPECT_EQ(ERROR_SUCCESS, ControlTraceA(0, KERNEL_LOGGER_NAMEA, p,
					       EVENT_TRACE_CONTROL_UPDATE));
	ASSERT_EQ(ERROR_SUCCESS, ControlTraceA(0, KERNEL_LOGGER_NAMEA, p,
					       EVENT_TRACE_CONTROL_QUERY));
	EXPECT_EQ(0, p->EnableFlags);
	EXPECT_EQ(ERROR_SUCCESS, ControlTraceA(0, KERNEL_LOGGER_NAMEA, p,
					       EVENT_TRACE_CONTROL_STOP));
	free(p);
}

/* Become uid/gid 1000; dumpable again, so that /proc/self stays ours. */
static int drop_to_user(void)
{
	if (setgroups(0, NULL) || setresgid(USER_UID, USER_UID, USER_UID) ||
	    setresuid(USER_UID, USER_UID, USER_UID))
		return -1;
	return prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
}

static int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, s, strlen(s));
	close(fd);
	return n == (ssize_t)strlen(s) ? 0 : -1;
}

/* START of the kernel logger in a child; its -errno as exit status. */
static int start_as(bool userns)
{
	char map[64];
	pid_t pid = fork();
	__u32 id;
	int fd, cfd;

	if (!pid) {
		if (drop_to_user())
			_exit(101);
		if (userns) {
			snprintf(map, sizeof(map), "0 %d 1", USER_UID);
			if (unshare(CLONE_NEWUSER) ||
			    write_file("/proc/self/uid_map", map))
				_exit(102);
		}
		fd = etw_open();
		if (fd < 0)
			_exit(103);
		_exit(-klog_start(fd, KLOG, 0, ALL_FLAGS, &id, &cfd));
	}
	return etw_wait_child(pid);
}

/* Every process's command line is no one's but the privileged's. */
TEST(unprivileged_user_gets_eperm)
{
	EXPECT_EQ(EPERM, start_as(false));
}

TEST(user_namespace_root_gets_eperm)
{
	EXPECT_EQ(EPERM, start_as(true));
}

/* --- what a delegated controller's logger shows -------------------------- */

#define CONTROL_GID	"/sys/module/etw/parameters/control_gid"
#define CONTROL_GROUP	1001	/* the VM's group "etwctl" */

/* A child of this image and line that lives until @hold[1] is closed. */
static pid_t holder(const int *hold)
{
	pid_t pid = fork();

	if (!pid) {
		char c;

		close(hold[1]);
		_exit(read(hold[0], &c, 1) == 0 ? 0 : 1);
	}
	return pid;
}

/* The first executable mapping of @file in @pid's maps, or -1. */
static int exec_mapping(pid_t pid, const char *file, __u64 *base,
			__u64 *default_base)
{
	char path[64], line[PATH_MAX + 128], perms[8], name[PATH_MAX];
	unsigned long start, end, off;
	FILE *f;
	int ret = -1;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "re");
	while (f && ret && fgets(line, sizeof(line), f)) {
		name[0] = 0;
		if (sscanf(line, "%lx-%lx %7s %lx %*s %*s %4095s", &start, &end,
			   perms, &off, name) < 4)
			continue;
		if (perms[2] == 'x' && !strcmp(name, file)) {
			*base = start;
			*default_base = start - off;
			ret = 0;
		}
	}
	if (f)
		fclose(f);
	return ret;
}

/* What the rundown should show of one process. */
struct view {
	pid_t pid;
	bool shown;		/* its line and mappings, or nothing */
	char cmd[KTEXT];
	char exe[PATH_MAX];
	__u64 base, default_base;
};

/* The view of @pid, a holder of this test's image, as /proc shows it. */
static int view_of(struct view *v, pid_t pid, bool shown)
{
	v->pid = pid;
	v->shown = shown;
	own_cmdline(v->cmd, sizeof(v->cmd));
	if (!realpath("/proc/self/exe", v->exe))
		return -1;
	return shown ? exec_mapping(pid, v->exe, &v->base, &v->default_base) :
		       0;
}

/* 0 when the rundown @rs shows @v; else which check failed (1..6). */
static int check_view(const struct krecs *rs, const struct view *v)
{
	const struct krec *k;
	size_t i, images = 0;

	k = find(rs, ETW_GROUP_PROCESS, T_DC_START, v->pid);
	if (!k)
		return 1;
	if (strcmp(k->cmd, v->shown ? v->cmd : ""))
		return 2;
	if (v->shown) {
		k = find_image(rs, T_DC_START, v->pid, v->exe);
		if (!k)
			return 3;
		return k->base == v->base && k->size &&
		       k->default_base == v->default_base ? 0 : 4;
	}
	for (i = 0; i < rs->n; i++) {
		k = &rs->r[i];
		if (k->h.hook_id != (ETW_GROUP_IMAGE << 8 | T_DC_START) ||
		    k->pid != (__u32)v->pid)
			continue;
		images++;
		if (k->base || k->size || k->default_base || k->file[0])
			return 5;
	}
	return images ? 0 : 6;
}

/*
 * Start and stop a kernel logger (processes and images) and check its
 * rundowns' view of each of @v: 0, or 10 * (index + 1) + the failed check.
 */
static int klog_views(const struct view *v, int n)
{
	struct krecs rs;
	int fd = etw_open(), cfd, i, ret = 0;
	__u32 id;

	if (fd < 0 || klog_start(fd, KLOG, 0,
				 ETW_KFLAG_PROCESS | ETW_KFLAG_IMAGE_LOAD, &id,
				 &cfd))
		return 7;
	if (klog_stop(fd, id, cfd, &rs) || rs.bad)
		ret = 8;
	for (i = 0; !ret && i < n; i++) {
		ret = check_view(&rs, &v[i]);
		if (ret)
			ret += 10 * (i + 1);
	}
	free(rs.r);
	close(fd);
	return ret;
}

/* A root logger sees a root process's line and images. */
TEST(root_logger_sees_lines_and_images)
{
	struct view v;
	int hold[2];
	pid_t pid;

	ASSERT_EQ(0, pipe(hold));
	pid = holder(hold);
	ASSERT_LT(0, pid);
	close(hold[0]);
	ASSERT_EQ(0, view_of(&v, pid, true));
	EXPECT_EQ(0, klog_views(&v, 1));
	close(hold[1]);
	EXPECT_EQ(0, etw_wait_child(pid));
}

/*
 * A member of control_gid (uid 1000) runs a kernel logger: it sees its own
 * process's line and images, and of a root process neither.
 */
static int member_views(pid_t root_pid)
{
	gid_t g = CONTROL_GROUP;
	struct view v[2];
	int hold[2], ret;
	pid_t own;

	if (setgroups(1, &g) || setresgid(USER_UID, USER_UID, USER_UID) ||
	    setresuid(USER_UID, USER_UID, USER_UID) ||
	    prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) || pipe(hold))
		return 101;
	own = holder(hold);
	if (own < 0)
		return 102;
	close(hold[0]);
	if (view_of(&v[0], root_pid, false) || view_of(&v[1], own, true))
		return 103;
	ret = klog_views(v, 2);
	close(hold[1]);
	return etw_wait_child(own) ? 104 : ret;
}

TEST(control_group_logger_sees_only_its_user)
{
	char gid[16];
	int hold[2];
	pid_t root_pid, pid;

	snprintf(gid, sizeof(gid), "%d", CONTROL_GROUP);
	ASSERT_EQ(0, write_file(CONTROL_GID, gid));
	ASSERT_EQ(0, pipe(hold));
	root_pid = holder(hold);
	ASSERT_LT(0, root_pid);
	close(hold[0]);
	pid = fork();
	if (!pid) {
		close(hold[1]);
		_exit(member_views(root_pid));
	}
	EXPECT_EQ(0, etw_wait_child(pid));
	close(hold[1]);
	EXPECT_EQ(0, etw_wait_child(root_pid));
	write_file(CONTROL_GID, "-1");
}

TEST_HARNESS_MAIN
