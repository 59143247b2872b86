/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the etw kselftests: raw access to /dev/etw without
 * libetw, so that the kernel ABI is tested on its own.  Sessions,
 * registrations, enables, writes and reading records back from consumer
 * files, all through bare ioctls, each returning 0 or -errno so that tests
 * compare exact errors.
 *
 * GUIDs and session names include the test process's pid: every TEST runs
 * in its own process, so state a failed test leaves behind cannot collide
 * with the next one.
 */
#ifndef _ETW_RAW_H
#define _ETW_RAW_H

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/etw.h>

#define ETW_DEV "/dev/etw"

static inline int etw_open(void)
{
	return open(ETW_DEV, O_RDWR | O_CLOEXEC);
}

/* ioctl() returning -errno, so that tests can compare exact errors. */
static inline int etw_ioctl(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) < 0 ? -errno : 0;
}

/*
 * Reap child @pid.  Return: its exit status (0-255) when it exited, 256 plus
 * the signal number when a signal killed it, -errno when waitpid() failed.
 * Tests compare the result with the one exit status they expect, so a child
 * that crashed or was killed fails the test whatever its status word held.
 */
static inline int etw_wait_child(pid_t pid)
{
	int status;
	pid_t r;

	do {
		r = waitpid(pid, &status, 0);
	} while (r < 0 && errno == EINTR);
	if (r < 0)
		return -errno;
	if (r != pid)
		return -ECHILD;
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 256 + WTERMSIG(status);
	return -EINVAL;
}

/* ETW_INJECT_FAILURE=kselftest makes the harness check fail on purpose. */
static inline int etw_injected_failure(void)
{
	const char *v = getenv("ETW_INJECT_FAILURE");

	return v && !strcmp(v, "kselftest");
}

#ifdef __KSELFTEST_HARNESS_H
/*
 * Every test of a kselftest program needs /dev/etw.  Without it (etw.ko is
 * not loaded) the program reports itself skipped, with the reason, and
 * exits with KSFT_SKIP (4) before the harness runs anything, rather than
 * failing each test on its first ioctl.
 */
static void __attribute__((constructor)) etw_skip_without_device(void)
{
	if (access(ETW_DEV, F_OK) && errno == ENOENT) {
		ksft_print_header();
		ksft_exit_skip("%s is missing: etw.ko is not loaded\n", ETW_DEV);
	}
}
#endif

#define RAW_ALIGN8(x)	(((x) + 7u) & ~7u)

/*
 * Fill an ioctl's argument struct with 0xcc before its inputs are set, so
 * that an output the kernel failed to write reads as 0xcc bytes, not as a
 * plausible zero.
 */
#define RAW_POISON(p)	memset((p), 0xcc, sizeof(*(p)))

/* The payload every raw_write() event carries: who wrote it, and a tag. */
struct raw_payload {
	__u32 tag;
	__u32 pid;
};

/* A test-unique GUID: @family tells tests apart, @n providers apart. */
static inline struct etw_guid raw_guid(__u32 family, __u16 n)
{
	struct etw_guid g = {
		.data1 = family, .data2 = (__u16)getpid(), .data3 = n,
		.data4 = { 'e', 't', 'w', 'k', 's', 'f', 't',
			   (__u8)(getpid() >> 16) },
	};

	return g;
}

static inline int raw_guid_eq(const struct etw_guid *a,
			      const struct etw_guid *b)
{
	return !memcmp(a, b, sizeof(*a));
}

static inline __u64 raw_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static inline void raw_sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/*
 * Wait (up to 10 s) until thread @tid has left /proc/self/task: its exit
 * has then run its task work and the tracepoint that drains its rings
 * (pthread_join() returns earlier, when the tid is cleared).
 * Return: 0, or -1 if it is still there.
 */
static inline int raw_wait_thread_gone(pid_t tid)
{
	char path[64];
	int i;

	snprintf(path, sizeof(path), "/proc/self/task/%d", tid);
	for (i = 0; i < 10000 && access(path, F_OK) == 0; i++)
		raw_sleep_ms(1);
	return access(path, F_OK) ? 0 : -1;
}

/* --- sessions ------------------------------------------------------------ */

/*
 * Every input zero but @size and @logger_id (@config too: UPDATE reads it);
 * the outputs (stats, owner, start time) poisoned.
 */
static inline void raw_session_init(struct etw_session_args *a, __u32 id)
{
	RAW_POISON(a);
	a->size = sizeof(*a);
	a->flags = 0;
	a->logger_id = id;
	a->reserved = 0;
	memset(a->name, 0, sizeof(a->name));
	memset(a->pad, 0, sizeof(a->pad));
	memset(&a->config, 0, sizeof(a->config));
}

/* Start a session named "@name-<pid>"; @kb 0 and @max_buffers 0: defaults. */
static inline int raw_start(int fd, const char *name, __u32 mode, __u32 kb,
			    __u32 max_buffers, __u32 *id)
{
	struct etw_session_args a;
	int ret;

	raw_session_init(&a, 0);
	snprintf(a.name, sizeof(a.name), "%s-%d", name, getpid());
	a.config.buffer_kb = kb;
	a.config.max_buffers = max_buffers;
	a.config.mode = mode;
	ret = etw_ioctl(fd, ETW_IOC_START, &a);
	if (!ret && id)
		*id = a.logger_id;
	return ret;
}

/* STOP, QUERY, UPDATE or FLUSH by logger id; @out may be NULL. */
static inline int raw_session_op(int fd, unsigned long cmd, __u32 id,
				 struct etw_session_args *out)
{
	struct etw_session_args a;
	int ret;

	raw_session_init(&a, id);
	ret = etw_ioctl(fd, cmd, &a);
	if (out)
		*out = a;
	return ret;
}

static inline int raw_consumer(int fd, __u32 id)
{
	struct etw_consume_args c = { .size = sizeof(c), .logger_id = id,
				      .flags = O_NONBLOCK | O_CLOEXEC };
	int cfd = ioctl(fd, ETW_IOC_CONSUME, &c);

	return cfd < 0 ? -errno : cfd;
}

/* --- providers ----------------------------------------------------------- */

static inline int raw_register(int fd, const struct etw_guid *guid,
			       __u32 flags, __u64 cookie, __u32 *reg_id,
			       __u32 *index)
{
	struct etw_register_args r;
	int ret;

	RAW_POISON(&r);
	r.size = sizeof(r);
	r.flags = flags;
	r.guid = *guid;
	r.cookie = cookie;
	ret = etw_ioctl(fd, ETW_IOC_REGISTER, &r);
	if (!ret) {
		*reg_id = r.reg_id;
		if (index)
			*index = r.enable_index;
	}
	return ret;
}

static inline int raw_unregister(int fd, __u32 reg_id)
{
	struct etw_unregister_args u = { .size = sizeof(u), .reg_id = reg_id };

	return etw_ioctl(fd, ETW_IOC_UNREGISTER, &u);
}

/*
 * A traits blob in @buf: TraitsSize, @name, then a group trait (type 1)
 * naming @group unless it is NULL.  Returns its size.
 */
static inline __u16 raw_traits_blob(__u8 *buf, const char *name,
				    const struct etw_guid *group)
{
	__u16 len = 2 + strlen(name) + 1;

	memcpy(buf + 2, name, strlen(name) + 1);
	if (group) {
		buf[len] = 3 + sizeof(*group);
		buf[len + 1] = 0;
		buf[len + 2] = 1;
		memcpy(buf + len + 3, group, sizeof(*group));
		len += 3 + sizeof(*group);
	}
	buf[0] = len & 0xff;
	buf[1] = len >> 8;
	return len;
}

static inline int raw_set_traits(int fd, __u32 reg, const void *blob,
				 __u32 len)
{
	struct etw_traits_args t = { .size = sizeof(t), .reg_id = reg,
				     .traits_ptr = (uintptr_t)blob,
				     .traits_len = len };

	return etw_ioctl(fd, ETW_IOC_SET_TRAITS, &t);
}

/* Acknowledge notifications up to @seq. */
static inline int raw_ack(int fd, __u64 seq)
{
	struct etw_ack_args a = { .size = sizeof(a), .seq = seq };

	return etw_ioctl(fd, ETW_IOC_ACK, &a);
}

/* ETW_IOC_SET_DISALLOW: session @id's group enables skip @guids. */
static inline int raw_set_disallow(int fd, __u32 id,
				   const struct etw_guid *guids, __u32 count)
{
	struct etw_disallow_args d = { .size = sizeof(d), .logger_id = id,
				       .count = count,
				       .guids_ptr = (uintptr_t)guids };

	return etw_ioctl(fd, ETW_IOC_SET_DISALLOW, &d);
}

static inline void raw_enable_init(struct etw_enable_args *e, __u32 id,
				   const struct etw_guid *guid, __u8 level,
				   __u64 any, __u64 all)
{
	memset(e, 0, sizeof(*e));
	e->size = sizeof(*e);
	e->logger_id = id;
	e->control_code = ETW_CONTROL_ENABLE;
	e->guid = *guid;
	e->level = level;
	e->match_any = any;
	e->match_all = all;
}

static inline int raw_enable(int fd, __u32 id, const struct etw_guid *guid,
			     __u8 level, __u64 any, __u64 all)
{
	struct etw_enable_args e;

	raw_enable_init(&e, id, guid, level, any, all);
	return etw_ioctl(fd, ETW_IOC_ENABLE, &e);
}

static inline int raw_control(int fd, __u32 id, const struct etw_guid *guid,
			      __u32 code, __u32 properties)
{
	struct etw_enable_args e;

	raw_enable_init(&e, id, guid, 0, 0, 0);
	e.control_code = code;
	e.properties = properties;
	return etw_ioctl(fd, ETW_IOC_ENABLE, &e);
}

/* --- writing ------------------------------------------------------------- */

static inline void raw_write_init(struct etw_write_args *w, __u32 reg_id,
				  __u16 event_id, __u8 level, __u64 keyword)
{
	memset(w, 0, sizeof(*w));
	w->size = sizeof(*w);
	w->reg_id = reg_id;
	w->descriptor.id = event_id;
	w->descriptor.level = level;
	w->descriptor.keyword = keyword;
}

/* Write one event whose payload is a struct raw_payload carrying @tag. */
static inline int raw_write_ex(int fd, __u32 reg_id, __u16 event_id,
			       __u8 level, __u64 keyword, __u32 tag,
			       __u64 exclude)
{
	struct raw_payload p = { .tag = tag, .pid = (__u32)getpid() };
	struct etw_data_descriptor d = { .ptr = (uintptr_t)&p,
					 .size = sizeof(p) };
	struct etw_write_args w;

	raw_write_init(&w, reg_id, event_id, level, keyword);
	w.data_count = 1;
	w.data_ptr = (uintptr_t)&d;
	w.exclude_mask = exclude;
	return etw_ioctl(fd, ETW_IOC_WRITE, &w);
}

static inline int raw_write(int fd, __u32 reg_id, __u16 event_id, __u8 level,
			    __u64 keyword)
{
	return raw_write_ex(fd, reg_id, event_id, level, keyword, 0, 0);
}

/*
 * A TraceLogging write: metadata (UINT16 size, one tag byte, @name, no
 * field) as ETW_DATA_TYPE_EVENT_METADATA, or none when @name is NULL.
 */
static inline int raw_tlg_write(int fd, __u32 reg, __u16 id, __u8 level,
				__u64 keyword, const char *name)
{
	struct etw_data_descriptor d = { .type = ETW_DATA_TYPE_EVENT_METADATA };
	struct etw_write_args w;
	char meta[64];

	meta[2] = 0;
	snprintf(meta + 3, sizeof(meta) - 3, "%s", name ? name : "");
	d.size = 3 + strlen(meta + 3) + 1;
	meta[0] = (char)d.size;
	meta[1] = 0;
	d.ptr = (uintptr_t)meta;
	raw_write_init(&w, reg, id, level, keyword);
	if (name) {
		w.flags = ETW_WRITE_DESC_TYPES;
		w.data_count = 1;
		w.data_ptr = (uintptr_t)&d;
	}
	return etw_ioctl(fd, ETW_IOC_WRITE, &w);
}

/* --- reading records back ------------------------------------------------ */

typedef void (*raw_record_fn)(const struct etw_event_header *h, void *ctx);

/*
 * Call @fn for every event record (padding skipped) of one buffer.
 * Return: records seen, or -1 when the buffer is malformed.
 */
static inline int raw_walk_buffer(const void *buf, raw_record_fn fn, void *ctx)
{
	static const struct etw_guid pad = ETW_PADDING_PROVIDER;
	const struct etw_buffer_header *bh = buf;
	__u32 off = ETW_BUFFER_HEADER_SIZE;
	int n = 0;

	if (bh->offset > bh->buffer_size)
		return -1;
	while (off + sizeof(struct etw_event_header) <= bh->offset) {
		const struct etw_event_header *h = (const void *)
						   ((const char *)buf + off);

		if (h->size < sizeof(*h) || off + h->size > bh->offset ||
		    h->header_type != ETW_EVENT_HEADER_TYPE_64)
			return -1;
		if (!raw_guid_eq(&h->provider_id, &pad)) {
			fn(h, ctx);
			n++;
		}
		off += RAW_ALIGN8(h->size);
	}
	return off == bh->offset ? n : -1;
}

/*
 * Read every buffer a non-blocking consumer has waiting (after a FLUSH,
 * or until end of file after a STOP) and walk its records.
 * Return: records seen, or -errno / -1 (malformed buffer).
 */
static inline long raw_drain(int cfd, __u32 buf_bytes, raw_record_fn fn,
			     void *ctx)
{
	char *buf = malloc(buf_bytes);
	long total = 0;

	if (!buf)
		return -ENOMEM;
	for (;;) {
		ssize_t r = read(cfd, buf, buf_bytes);
		int n;

		if (r == 0 || (r < 0 && errno == EAGAIN))
			break;
		if (r != (ssize_t)buf_bytes) {
			total = r < 0 ? -errno : -1;
			break;
		}
		n = raw_walk_buffer(buf, fn, ctx);
		if (n < 0) {
			total = -1;
			break;
		}
		total += n;
	}
	free(buf);
	return total;
}

/*
 * What raw_seen_fn() gathers about one provider's events (of one process
 * when @pid is set): how many, and bit masks of their ids and payload
 * tags (each modulo 64).  The payload is the record's last bytes.
 */
struct raw_seen {
	struct etw_guid guid;
	__u32 pid;
	long n;
	__u64 ids;
	__u64 tags;
};

static inline void raw_seen_fn(const struct etw_event_header *h, void *ctx)
{
	const struct raw_payload *p = (const void *)
		((const char *)h + h->size - sizeof(*p));
	struct raw_seen *c = ctx;

	if (!raw_guid_eq(&h->provider_id, &c->guid) ||
	    (c->pid && h->process_id != c->pid))
		return;
	c->n++;
	c->ids |= 1ull << (h->descriptor.id & 63);
	if (h->size >= sizeof(*h) + sizeof(*p))
		c->tags |= 1ull << (p->tag & 63);
}

/* FLUSH session @id and gather @c's events from its consumer @cfd. */
static inline int raw_flush_seen(int fd, __u32 id, int cfd, __u32 buf_bytes,
				 struct raw_seen *c)
{
	long r;

	c->n = 0;
	c->ids = 0;
	c->tags = 0;
	r = raw_session_op(fd, ETW_IOC_FLUSH, id, NULL);
	if (r)
		return (int)r;
	r = raw_drain(cfd, buf_bytes, raw_seen_fn, c);
	return r < 0 ? (int)r : 0;
}

/* --- the kernel logger ---------------------------------------------------- */

/*
 * Start the kernel logger in real time with @kb-KB buffers, at most
 * @max_buffers, flushed every @flush_ms (0: by no timer), recording the
 * ETW_KFLAG_* @flags; its id in *@id, its consumer's fd in *@cfd.
 */
static inline int raw_klog_start(int fd, __u32 kb, __u32 max_buffers,
				 __u32 flush_ms, __u32 flags, __u32 *id,
				 int *cfd)
{
	struct etw_session_args a;
	int ret;

	raw_session_init(&a, 0);
	snprintf(a.name, sizeof(a.name), "%s", ETW_KERNEL_LOGGER_NAME);
	a.config.buffer_kb = kb;
	a.config.max_buffers = max_buffers;
	a.config.mode = ETW_MODE_REAL_TIME;
	a.config.flush_timer_ms = flush_ms;
	a.config.enable_flags = flags;
	ret = etw_ioctl(fd, ETW_IOC_START, &a);
	if (ret)
		return ret;
	*id = a.logger_id;
	*cfd = raw_consumer(fd, a.logger_id);
	return *cfd < 0 ? *cfd : 0;
}

/* UPDATE a running kernel logger's flags to @flags. */
static inline int raw_klog_set_flags(int fd, __u32 id, __u32 flags)
{
	struct etw_session_args a;

	raw_session_init(&a, id);
	a.flags = ETW_UPDATE_ENABLE_FLAGS;
	a.config.enable_flags = flags;
	return etw_ioctl(fd, ETW_IOC_UPDATE, &a);
}

/* --- processes ----------------------------------------------------------- */

/* Block until the peer writes a byte on @fd; false on end of file. */
static inline int raw_wait_byte(int fd)
{
	char c;

	return read(fd, &c, 1) == 1;
}

static inline void raw_post_byte(int fd)
{
	char c = 1;

	if (write(fd, &c, 1) != 1)
		_exit(99);
}

/* --- a delegated controller ---------------------------------------------- */

#define RAW_CONTROL_GID		"/sys/module/etw/parameters/control_gid"
#define RAW_MEMBER_UID		1000	/* the VM's user "etw" */
#define RAW_CONTROL_GROUP	1001	/* the VM's group "etwctl" */

/* Write @v into the file at @path (a module parameter); 0 or -1. */
static inline int raw_write_str(const char *path, const char *v)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, v, strlen(v));
	close(fd);
	return n == (ssize_t)strlen(v) ? 0 : -1;
}

/*
 * Become the VM's user "etw" with the group "etwctl" alone and no
 * capability, dumpable again (a process may read its own /proc/PID/maps);
 * 0 or -1.
 */
static inline int raw_become_member(void)
{
	gid_t g = RAW_CONTROL_GROUP;

	return setgroups(1, &g) ||
	       setresgid(RAW_MEMBER_UID, RAW_MEMBER_UID, RAW_MEMBER_UID) ||
	       setresuid(RAW_MEMBER_UID, RAW_MEMBER_UID, RAW_MEMBER_UID) ||
	       prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) ? -1 : 0;
}

#endif /* _ETW_RAW_H */
