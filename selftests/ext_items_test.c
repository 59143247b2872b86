// SPDX-License-Identifier: GPL-2.0
/*
 * The extended data items enable properties ask for (kmod/etw_ext_items.c),
 * through bare ioctls: each item present only when its session asked, with
 * its type and size; the SID of uid 0 and of uid 1000, the session id, the
 * process start key across threads and processes, the event key across
 * global sessions and a private session's own, the user stack of the
 * writer (zeros for a session whose starter may not see the writer's
 * layout), the STACKWALK filter, and the enable arguments the kernel
 * refuses; then the same through libetw's EnableTraceEx2.
 *
 * Built with frame pointers (Makefile): the kernel walks user stacks
 * through them.
 */
#include <grp.h>
#include <pthread.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/stat.h>

#include "evntcons.h"
#include "kselftest_harness.h"
#include "etw_raw.h"

#define FAMILY		0xe7da7a00
#define BUF_KB		64
#define USER_UID	1000	/* the VM's user "etw" */
#define MAX_RECS	16
#define MAX_ITEMS	8

/* One record as read back: its header and items, copied. */
struct rec {
	struct etw_event_header h;
	unsigned int nitems;
	struct item {
		__u16 type;
		__u16 size;
		__u16 linkage;
		__u8 data[8 + 8 * ETW_MAX_STACK_DEPTH];
	} items[MAX_ITEMS];
	__u32 payload_len;
	__u8 payload[16];
};

struct recs {
	struct etw_guid guid;
	unsigned int n;
	struct rec r[MAX_RECS];
};

static void rec_fn(const struct etw_event_header *h, void *ctx)
{
	struct recs *rs = ctx;
	const __u8 *p = (const __u8 *)(h + 1);
	const __u8 *end = (const __u8 *)h + h->size;
	struct rec *r;

	if (!raw_guid_eq(&h->provider_id, &rs->guid) || rs->n == MAX_RECS)
		return;
	r = &rs->r[rs->n++];
	memset(r, 0, sizeof(*r));
	r->h = *h;
	while ((h->flags & ETW_EVENT_FLAG_EXTENDED_INFO) &&
	       r->nitems < MAX_ITEMS) {
		const struct etw_ext_item *it = (const void *)p;
		struct item *x = &r->items[r->nitems++];

		x->type = it->ext_type;
		x->size = it->data_size;
		x->linkage = it->linkage;
		if (it->data_size <= sizeof(x->data))
			memcpy(x->data, it + 1, it->data_size);
		p += it->item_size;
		if (!it->linkage || !it->item_size)
			break;
	}
	if (p <= end && end - p <= (long)sizeof(r->payload)) {
		r->payload_len = end - p;
		memcpy(r->payload, p, r->payload_len);
	}
}

static const struct item *rec_item(const struct rec *r, __u16 type)
{
	unsigned int i;

	for (i = 0; i < r->nitems; i++)
		if (r->items[i].type == type)
			return &r->items[i];
	return NULL;
}

static __u64 item_u64(const struct item *x, unsigned int i)
{
	__u64 v;

	memcpy(&v, x->data + 8 * i, sizeof(v));
	return v;
}

FIXTURE(ext) {
	int fd;
	__u32 id[2];
	int cfd[2];
	struct etw_guid guid;
	__u32 reg;
};

FIXTURE_SETUP(ext)
{
	self->fd = etw_open();
	ASSERT_LE(0, self->fd);
	self->guid = raw_guid(FAMILY, 1);
	/* One stream each: records come back in write order. */
	ASSERT_EQ(0, raw_start(self->fd, "ext-items-a", ETW_MODE_NO_PER_PROCESSOR,
			       BUF_KB, 0, &self->id[0]));
	ASSERT_EQ(0, raw_start(self->fd, "ext-items-b", ETW_MODE_NO_PER_PROCESSOR,
			       BUF_KB, 0, &self->id[1]));
	self->cfd[0] = raw_consumer(self->fd, self->id[0]);
	self->cfd[1] = raw_consumer(self->fd, self->id[1]);
	ASSERT_LE(0, self->cfd[0]);
	ASSERT_LE(0, self->cfd[1]);
	ASSERT_EQ(0, raw_register(self->fd, &self->guid, 0, 0, &self->reg,
				  NULL));
}

FIXTURE_TEARDOWN(ext)
{
	raw_session_op(self->fd, ETW_IOC_STOP, self->id[0], NULL);
	raw_session_op(self->fd, ETW_IOC_STOP, self->id[1], NULL);
	close(self->cfd[0]);
	close(self->cfd[1]);
	close(self->fd);
}

/* Enable session @s for the test's provider with @props. */
static int enable(struct _test_data_ext *self, int s, __u32 props)
{
	return raw_control(self->fd, self->id[s], &self->guid,
			   ETW_CONTROL_ENABLE, props);
}

/* Stop session @s and read its records of the test's provider. */
static long collect(struct _test_data_ext *self, int s, struct recs *rs)
{
	memset(rs, 0, sizeof(*rs));
	rs->guid = self->guid;
	if (raw_session_op(self->fd, ETW_IOC_STOP, self->id[s], NULL))
		return -1;
	return raw_drain(self->cfd[s], BUF_KB * 1024, rec_fn, rs);
}

/* The property each item answers, its type and data size (0: varies). */
static const struct {
	const char *name;
	__u32 prop;
	__u16 type;
	__u16 size;
} props[] = {
	{ "SID", ETW_ENABLE_SID, ETW_EXT_SID, 16 },
	{ "TS_ID", ETW_ENABLE_TS_ID, ETW_EXT_TS_ID, 4 },
	{ "STACK_TRACE", ETW_ENABLE_STACK_TRACE, ETW_EXT_STACK_TRACE64, 0 },
	{ "PROCESS_START_KEY", ETW_ENABLE_PROCESS_START_KEY,
	  ETW_EXT_PROCESS_START_KEY, 8 },
	{ "EVENT_KEY", ETW_ENABLE_EVENT_KEY, ETW_EXT_EVENT_KEY, 8 },
};

/* Session 0 asks for one property, session 1 for none: only 0 gets it. */
TEST_F(ext, each_item_only_when_asked)
{
	struct recs a, b;
	unsigned int i;

	ASSERT_EQ(0, enable(self, 1, 0));
	for (i = 0; i < ARRAY_SIZE(props); i++) {
		ASSERT_EQ(0, enable(self, 0, props[i].prop));
		ASSERT_EQ(0, raw_write_ex(self->fd, self->reg, 1, 0, 0,
					  100 + i, 0));
	}
	ASSERT_EQ(ARRAY_SIZE(props), collect(self, 0, &a));
	ASSERT_EQ(ARRAY_SIZE(props), collect(self, 1, &b));
	for (i = 0; i < ARRAY_SIZE(props); i++) {
		const struct item *x = &a.r[i].items[0];

		TH_LOG("%s", props[i].name);
		ASSERT_EQ(1, a.r[i].nitems);
		EXPECT_EQ(ETW_EVENT_FLAG_EXTENDED_INFO, a.r[i].h.flags);
		EXPECT_EQ(props[i].type, x->type);
		EXPECT_EQ(0, x->linkage);
		if (props[i].size) {
			EXPECT_EQ(props[i].size, x->size);
		} else {
			EXPECT_EQ(0, (x->size - 8) % 8);
		}
		EXPECT_EQ(sizeof(a.r[i].h) + 8 + RAW_ALIGN8(x->size) +
			  sizeof(struct raw_payload), a.r[i].h.size);
		EXPECT_EQ(0, b.r[i].nitems);
		EXPECT_EQ(0, b.r[i].h.flags);
		EXPECT_EQ(sizeof(struct raw_payload), b.r[i].payload_len);
		EXPECT_EQ(0, memcmp(a.r[i].payload, b.r[i].payload,
				    sizeof(struct raw_payload)));
		EXPECT_EQ(100 + i, ((struct raw_payload *)a.r[i].payload)->tag);
	}
}

/* The Unix-user SID S-1-22-1-<uid>, as bytes. */
static void unix_sid(__u8 *sid, __u32 uid)
{
	static const __u8 head[12] = { 1, 2, 0, 0, 0, 0, 0, 22, 1, 0, 0, 0 };

	memcpy(sid, head, sizeof(head));
	memcpy(sid + 12, &uid, sizeof(uid));	/* little-endian */
}

TEST_F(ext, sid_of_root)
{
	__u8 want[16];
	struct recs a;

	ASSERT_EQ(0, geteuid());
	ASSERT_EQ(0, enable(self, 0, ETW_ENABLE_SID));
	ASSERT_EQ(0, raw_write(self->fd, self->reg, 1, 0, 0));
	ASSERT_EQ(1, collect(self, 0, &a));
	ASSERT_EQ(1, a.r[0].nitems);
	unix_sid(want, 0);
	EXPECT_EQ(0, memcmp(want, a.r[0].items[0].data, sizeof(want)));
}

/* A child that became uid 1000 registers and writes one event. */
static int write_as_user(const struct etw_guid *g)
{
	__u32 reg;
	int fd;

	if (setgroups(0, NULL) || setresgid(USER_UID, USER_UID, USER_UID) ||
	    setresuid(USER_UID, USER_UID, USER_UID))
		return 10;
	fd = etw_open();
	if (fd < 0)
		return 11;
	if (raw_register(fd, g, 0, 0, &reg, NULL))
		return 12;
	return raw_write(fd, reg, 1, 0, 0) ? 13 : 0;
}

TEST_F(ext, sid_of_user)
{
	__u8 want[16];
	struct recs a;
	pid_t pid;

	ASSERT_EQ(0, enable(self, 0, ETW_ENABLE_SID));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(write_as_user(&self->guid));
	ASSERT_EQ(0, etw_wait_child(pid));
	ASSERT_EQ(1, collect(self, 0, &a));
	ASSERT_EQ(1, a.r[0].nitems);
	EXPECT_EQ(16, a.r[0].items[0].size);
	unix_sid(want, USER_UID);
	EXPECT_EQ(0, memcmp(want, a.r[0].items[0].data, sizeof(want)));
}

TEST_F(ext, ts_id_is_the_session_id)
{
	__u32 sid;
	struct recs a;

	ASSERT_EQ(0, enable(self, 0, ETW_ENABLE_TS_ID));
	ASSERT_EQ(0, raw_write(self->fd, self->reg, 1, 0, 0));
	ASSERT_EQ(1, collect(self, 0, &a));
	ASSERT_EQ(1, a.r[0].nitems);
	memcpy(&sid, a.r[0].items[0].data, sizeof(sid));
	EXPECT_EQ((__u32)getsid(0), sid);
}

struct thread_write {
	int fd;
	__u32 reg;
	int ret;
};

static void *thread_writer(void *arg)
{
	struct thread_write *t = arg;

	t->ret = raw_write(t->fd, t->reg, 2, 0, 0);
	return NULL;
}

/* A forked child registers the same GUID and writes. */
static int write_as_child(const struct etw_guid *g)
{
	__u32 reg;
	int fd = etw_open();

	if (fd < 0 || raw_register(fd, g, 0, 0, &reg, NULL))
		return 10;
	return raw_write(fd, reg, 3, 0, 0) ? 11 : 0;
}

TEST_F(ext, process_start_key_per_process)
{
	struct thread_write t = { .fd = self->fd, .reg = self->reg };
	__u32 tid[3], tgid[3];
	__u64 k[3];
	pthread_t th;
	struct recs a;
	unsigned int i;
	pid_t pid;

	ASSERT_EQ(0, enable(self, 0, ETW_ENABLE_PROCESS_START_KEY));
	ASSERT_EQ(0, raw_write(self->fd, self->reg, 1, 0, 0));
	ASSERT_EQ(0, pthread_create(&th, NULL, thread_writer, &t));
	ASSERT_EQ(0, pthread_join(th, NULL));
	ASSERT_EQ(0, t.ret);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(write_as_child(&self->guid));
	ASSERT_EQ(0, etw_wait_child(pid));
	ASSERT_EQ(3, collect(self, 0, &a));
	for (i = 0; i < 3; i++) {
		const struct rec *r = &a.r[i];

		ASSERT_LE(1, r->h.descriptor.id);
		ASSERT_GE(3, r->h.descriptor.id);
		ASSERT_EQ(1, r->nitems);
		k[r->h.descriptor.id - 1] = item_u64(&r->items[0], 0);
		tid[r->h.descriptor.id - 1] = r->h.thread_id;
		tgid[r->h.descriptor.id - 1] = r->h.process_id;
	}
	EXPECT_NE(tid[0], tid[1]);
	EXPECT_EQ(tgid[0], tgid[1]);
	EXPECT_EQ(k[0], k[1]);
	EXPECT_EQ((__u32)pid, tgid[2]);
	EXPECT_NE(k[0], k[2]);
}

/*
 * A child in a new pid namespace (a container) registers and writes: its
 * pid namespace's inode is Data1 of the CONTAINER_ID GUID.  The exit code
 * carries failures; the inode goes through @pipe_w.
 */
static int write_in_pid_ns(const struct etw_guid *g, int pipe_w)
{
	struct stat st;
	pid_t pid;
	__u32 reg;
	int fd;

	if (unshare(CLONE_NEWPID))
		return 20;
	pid = fork();
	if (pid < 0)
		return 21;
	if (pid)
		return etw_wait_child(pid);
	fd = etw_open();
	if (fd < 0 || raw_register(fd, g, 0, 0, &reg, NULL))
		_exit(22);
	if (stat("/proc/self/ns/pid", &st) ||
	    write(pipe_w, &st.st_ino, sizeof(st.st_ino)) != sizeof(st.st_ino))
		_exit(23);
	_exit(raw_write(fd, reg, 4, 0, 0) ? 24 : 0);
}

/*
 * SOURCE_CONTAINER_TRACKING: an item for the writer in a container, after
 * the other items, none for the host's writers.
 */
TEST_F(ext, container_id_for_writers_in_a_pid_namespace)
{
	struct stat host;
	ino_t ino = 0;
	struct recs a;
	const struct item *x;
	int p[2];
	pid_t pid;
	__u32 data1;

	ASSERT_EQ(0, stat("/proc/self/ns/pid", &host));
	ASSERT_EQ(0, enable(self, 0, ETW_ENABLE_SOURCE_CONTAINER_TRACKING |
				    ETW_ENABLE_PROCESS_START_KEY));
	ASSERT_EQ(0, raw_write(self->fd, self->reg, 1, 0, 0));
	ASSERT_EQ(0, pipe(p));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(write_in_pid_ns(&self->guid, p[1]));
	ASSERT_EQ(0, etw_wait_child(pid));
	ASSERT_EQ(sizeof(ino), read(p[0], &ino, sizeof(ino)));
	close(p[0]);
	close(p[1]);
	ASSERT_NE(host.st_ino, ino);
	ASSERT_EQ(2, collect(self, 0, &a));
	EXPECT_EQ(1, a.r[0].nitems);
	EXPECT_EQ(ETW_EXT_PROCESS_START_KEY, a.r[0].items[0].type);
	ASSERT_EQ(2, a.r[1].nitems);
	EXPECT_EQ(ETW_EXT_PROCESS_START_KEY, a.r[1].items[0].type);
	EXPECT_EQ(ETW_EXT_LINKAGE, a.r[1].items[0].linkage);
	x = &a.r[1].items[1];
	EXPECT_EQ(ETW_EXT_CONTAINER_ID, x->type);
	EXPECT_EQ(16, x->size);
	EXPECT_EQ(0, x->linkage);
	memcpy(&data1, x->data, sizeof(data1));
	EXPECT_EQ((__u32)ino, data1);
	EXPECT_EQ(0, memcmp(x->data + 4, "\0\0\0\0\0\0\0\0\0\0\0\0", 12));
}

/*
 * EXCLUDE_INPRIVATE (ENABLE_TRACE_PARAMETERS): a session that set it does
 * not get events written InPrivate (EventWriteEx's
 * EVENT_WRITE_FLAG_INPRIVATE); the other session does; ordinary events
 * reach both.
 */
TEST_F(ext, exclude_inprivate_drops_inprivate_events)
{
	struct etw_write_args w;
	struct raw_payload pl = { .tag = 7 };
	struct etw_data_descriptor d = { .ptr = (uintptr_t)&pl,
					 .size = sizeof(pl) };
	struct recs a, b;

	ASSERT_EQ(0, enable(self, 0, ETW_ENABLE_EXCLUDE_INPRIVATE));
	ASSERT_EQ(0, enable(self, 1, 0));
	raw_write_init(&w, self->reg, 1, 0, 0);
	w.data_count = 1;
	w.data_ptr = (uintptr_t)&d;
	w.flags = ETW_WRITE_INPRIVATE;
	ASSERT_EQ(0, etw_ioctl(self->fd, ETW_IOC_WRITE, &w));
	ASSERT_EQ(0, raw_write(self->fd, self->reg, 2, 0, 0));
	ASSERT_EQ(1, collect(self, 0, &a));
	EXPECT_EQ(2, a.r[0].h.descriptor.id);
	EXPECT_EQ(0, a.r[0].nitems);
	ASSERT_EQ(2, collect(self, 1, &b));
	EXPECT_EQ(1, b.r[0].h.descriptor.id);
	EXPECT_EQ(2, b.r[1].h.descriptor.id);
}

/* One event's key is the same in both sessions; the next event's differs. */
TEST_F(ext, event_key_shared_by_sessions)
{
	struct recs a, b;

	ASSERT_EQ(0, enable(self, 0, ETW_ENABLE_EVENT_KEY));
	ASSERT_EQ(0, enable(self, 1, ETW_ENABLE_EVENT_KEY | ETW_ENABLE_SID));
	ASSERT_EQ(0, raw_write(self->fd, self->reg, 1, 0, 0));
	ASSERT_EQ(0, raw_write(self->fd, self->reg, 2, 0, 0));
	ASSERT_EQ(2, collect(self, 0, &a));
	ASSERT_EQ(2, collect(self, 1, &b));
	ASSERT_NE(NULL, rec_item(&a.r[0], ETW_EXT_EVENT_KEY));
	ASSERT_NE(NULL, rec_item(&b.r[0], ETW_EXT_EVENT_KEY));
	ASSERT_NE(NULL, rec_item(&a.r[1], ETW_EXT_EVENT_KEY));
	EXPECT_EQ(item_u64(rec_item(&a.r[0], ETW_EXT_EVENT_KEY), 0),
		  item_u64(rec_item(&b.r[0], ETW_EXT_EVENT_KEY), 0));
	EXPECT_NE(item_u64(rec_item(&a.r[0], ETW_EXT_EVENT_KEY), 0),
		  item_u64(rec_item(&a.r[1], ETW_EXT_EVENT_KEY), 0));
}

/* Stop session @id (consumer @cfd) and read its records of @g. */
static long collect_guid(int fd, __u32 id, int cfd, const struct etw_guid *g,
			 struct recs *rs)
{
	memset(rs, 0, sizeof(*rs));
	rs->guid = *g;
	if (raw_session_op(fd, ETW_IOC_STOP, id, NULL))
		return -1;
	return raw_drain(cfd, BUF_KB * 1024, rec_fn, rs);
}

static __u64 rec_key(const struct rec *r)
{
	const struct item *x = rec_item(r, ETW_EXT_EVENT_KEY);

	return x ? item_u64(x, 0) : 0;
}

/*
 * A private session numbers its events itself, 1, 2, 3, whatever the
 * global sessions take meanwhile (another provider's events, its own
 * provider's at a level it does not take); the global sessions' keys
 * count every event one of them took.
 */
TEST_F(ext, private_session_event_keys_are_its_own)
{
	static const __u16 taken[] = { 1, 4, 5 };
	struct etw_guid g2 = raw_guid(FAMILY, 2);
	struct etw_enable_args e;
	struct recs a, b, p;
	__u32 pid, reg2, i;
	__u64 k;
	int pcfd;

	ASSERT_EQ(0, raw_start(self->fd, "ext-items-private",
			       ETW_MODE_PRIVATE | ETW_MODE_NO_PER_PROCESSOR,
			       BUF_KB, 0, &pid));
	pcfd = raw_consumer(self->fd, pid);
	ASSERT_LE(0, pcfd);
	ASSERT_EQ(0, raw_register(self->fd, &g2, 0, 0, &reg2, NULL));
	ASSERT_EQ(0, enable(self, 0, ETW_ENABLE_EVENT_KEY));
	ASSERT_EQ(0, raw_control(self->fd, self->id[1], &g2,
				 ETW_CONTROL_ENABLE, ETW_ENABLE_EVENT_KEY));
	raw_enable_init(&e, pid, &self->guid, 4, 0, 0);
	e.properties = ETW_ENABLE_EVENT_KEY;
	ASSERT_EQ(0, etw_ioctl(self->fd, ETW_IOC_ENABLE, &e));

	ASSERT_EQ(0, raw_write(self->fd, self->reg, 1, 4, 0));
	for (i = 0; i < 3; i++)
		ASSERT_EQ(0, raw_write(self->fd, reg2, 2, 4, 0));
	ASSERT_EQ(0, raw_write(self->fd, self->reg, 3, 5, 0));
	ASSERT_EQ(0, raw_write(self->fd, self->reg, 4, 4, 0));
	ASSERT_EQ(0, raw_write(self->fd, self->reg, 5, 4, 0));

	ASSERT_EQ(3, collect_guid(self->fd, pid, pcfd, &self->guid, &p));
	ASSERT_EQ(4, collect(self, 0, &a));
	ASSERT_EQ(3, collect_guid(self->fd, self->id[1], self->cfd[1], &g2,
				  &b));
	close(pcfd);
	for (i = 0; i < 3; i++) {
		EXPECT_EQ(taken[i], p.r[i].h.descriptor.id);
		EXPECT_EQ(i + 1, rec_key(&p.r[i]));
	}
	/* One global count: 4 events of the first provider, 3 of the other. */
	k = rec_key(&a.r[0]);
	EXPECT_NE(0, k);
	EXPECT_EQ(k + 1, rec_key(&b.r[0]));
	EXPECT_EQ(k + 2, rec_key(&b.r[1]));
	EXPECT_EQ(k + 3, rec_key(&b.r[2]));
	EXPECT_EQ(k + 4, rec_key(&a.r[1]));
	EXPECT_EQ(k + 5, rec_key(&a.r[2]));
	EXPECT_EQ(k + 6, rec_key(&a.r[3]));
}

/* The items a session asked for come before the event's own. */
TEST_F(ext, items_before_related_activity)
{
	struct raw_payload p = { .tag = 7 };
	struct etw_data_descriptor d = { .ptr = (uintptr_t)&p,
					 .size = sizeof(p) };
	struct etw_write_args w;
	struct recs a, b;

	ASSERT_EQ(0, enable(self, 0, 0));
	ASSERT_EQ(0, enable(self, 1, ETW_ENABLE_TS_ID));
	raw_write_init(&w, self->reg, 1, 0, 0);
	w.flags = ETW_WRITE_RELATED_ACTIVITY;
	memset(&w.related_activity_id, 0x5a, sizeof(w.related_activity_id));
	w.data_count = 1;
	w.data_ptr = (uintptr_t)&d;
	ASSERT_EQ(0, etw_ioctl(self->fd, ETW_IOC_WRITE, &w));
	ASSERT_EQ(1, collect(self, 0, &a));
	ASSERT_EQ(1, collect(self, 1, &b));
	ASSERT_EQ(1, a.r[0].nitems);
	EXPECT_EQ(ETW_EXT_RELATED_ACTIVITYID, a.r[0].items[0].type);
	ASSERT_EQ(2, b.r[0].nitems);
	EXPECT_EQ(ETW_EXT_TS_ID, b.r[0].items[0].type);
	EXPECT_EQ(ETW_EXT_LINKAGE, b.r[0].items[0].linkage);
	EXPECT_EQ(ETW_EXT_RELATED_ACTIVITYID, b.r[0].items[1].type);
	EXPECT_EQ(0, b.r[0].items[1].linkage);
	EXPECT_EQ(0, memcmp(a.r[0].items[0].data, b.r[0].items[1].data, 16));
	EXPECT_EQ(a.r[0].h.size + 16, b.r[0].h.size);
	EXPECT_EQ(sizeof(p), b.r[0].payload_len);
	EXPECT_EQ(0, memcmp(&p, b.r[0].payload, sizeof(p)));
}

static unsigned long stack_ret;

/* Writes with the caller's return address at hand. */
static __attribute__((noinline)) int stack_writer(int fd, __u32 reg, __u16 id)
{
	stack_ret = (unsigned long)__builtin_return_address(0);
	return raw_write(fd, reg, id, 0, 0);
}

TEST_F(ext, user_stack_holds_the_callers_return)
{
	const struct item *x;
	unsigned int i, n;
	struct recs a;
	int found = 0;

	ASSERT_EQ(0, enable(self, 0, ETW_ENABLE_STACK_TRACE));
	ASSERT_EQ(0, stack_writer(self->fd, self->reg, 1));
	ASSERT_EQ(1, collect(self, 0, &a));
	x = rec_item(&a.r[0], ETW_EXT_STACK_TRACE64);
	ASSERT_NE(NULL, x);
	n = (x->size - 8) / 8;
	ASSERT_LE(2, n);
	ASSERT_GE(ETW_MAX_STACK_DEPTH, n);
	EXPECT_EQ(0, item_u64(x, 0));	/* MatchId */
	for (i = 0; i < n; i++)
		found |= item_u64(x, 1 + i) == stack_ret;
	EXPECT_TRUE(found);
}

#define CONTROL_GID	"/sys/module/etw/parameters/control_gid"
#define CONTROL_GROUP	1001	/* the VM's group "etwctl" */

static int write_file(const char *path, const char *v)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, v, strlen(v));
	close(fd);
	return n == (ssize_t)strlen(v) ? 0 : -1;
}

/* Record @r is event @id with a stack item of two frames or more, all 0. */
static bool stack_all_zero(const struct rec *r, __u16 id)
{
	const struct item *x = rec_item(r, ETW_EXT_STACK_TRACE64);
	unsigned int i, n;

	if (r->h.descriptor.id != id || !x || (x->size - 8) / 8 < 2)
		return false;
	n = (x->size - 8) / 8;
	for (i = 0; i <= n; i++)
		if (item_u64(x, i))
			return false;
	return true;
}

/*
 * As uid 1000, a member of control_gid: a global session with STACK_TRACE
 * for @g; posts on @ready, waits on @go for root's write (id 1), writes
 * its own (id 2), then again once it is no longer dumpable (id 3, which
 * /proc/PID/maps would not show it either), and checks all three: 0, or
 * which check failed.
 */
static int member_stacks(const struct etw_guid *g, int ready, int go)
{
	gid_t grp = CONTROL_GROUP;
	const struct item *x;
	unsigned int i, n;
	struct recs rs = { .guid = *g };
	int fd, cfd, found = 0;
	__u32 id, reg;
	unsigned long own_ret;
	char c;

	if (setgroups(1, &grp) || setresgid(USER_UID, USER_UID, USER_UID) ||
	    setresuid(USER_UID, USER_UID, USER_UID) ||
	    prctl(PR_SET_DUMPABLE, 1, 0, 0, 0))
		return 101;
	fd = etw_open();
	if (fd < 0 || raw_start(fd, "member-stacks", ETW_MODE_NO_PER_PROCESSOR,
				BUF_KB, 0, &id) ||
	    raw_control(fd, id, g, ETW_CONTROL_ENABLE, ETW_ENABLE_STACK_TRACE) ||
	    raw_register(fd, g, 0, 0, &reg, NULL))
		return 102;
	cfd = raw_consumer(fd, id);
	if (cfd < 0 || write(ready, "", 1) != 1 || read(go, &c, 1) != 1)
		return 103;
	if (stack_writer(fd, reg, 2))
		return 104;
	own_ret = stack_ret;
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) || stack_writer(fd, reg, 3) ||
	    raw_session_op(fd, ETW_IOC_STOP, id, NULL) ||
	    raw_drain(cfd, BUF_KB * 1024, rec_fn, &rs) != 3)
		return 104;
	/* Root's stack: its frames (and MatchId), all zero. */
	if (!stack_all_zero(&rs.r[0], 1))
		return 105;
	/* Its own: the frames. */
	x = rec_item(&rs.r[1], ETW_EXT_STACK_TRACE64);
	if (rs.r[1].h.descriptor.id != 2 || !x)
		return 107;
	n = (x->size - 8) / 8;
	for (i = 0; i < n; i++)
		found |= item_u64(x, 1 + i) == own_ret;
	if (!found)
		return 108;
	/* Its own while not dumpable: zeros, as root's. */
	return stack_all_zero(&rs.r[2], 3) ? 0 : 109;
}

/*
 * A session started by a control_gid member who is not root records its
 * own processes' user stacks, and zeros for root's and for its own once
 * they are not dumpable.
 */
TEST_F(ext, member_session_gets_only_stacks_it_may_read)
{
	int ready[2], go[2];
	char gid[16], c;
	pid_t pid;

	snprintf(gid, sizeof(gid), "%d", CONTROL_GROUP);
	ASSERT_EQ(0, write_file(CONTROL_GID, gid));
	ASSERT_EQ(0, pipe(ready));
	ASSERT_EQ(0, pipe(go));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(member_stacks(&self->guid, ready[1], go[0]));
	ASSERT_EQ(1, read(ready[0], &c, 1));
	ASSERT_EQ(0, stack_writer(self->fd, self->reg, 1));
	ASSERT_EQ(1, write(go[1], "", 1));
	EXPECT_EQ(0, etw_wait_child(pid));
	write_file(CONTROL_GID, "-1");
}

/* EVENT_FILTER_TYPE_STACKWALK: stacks only for the listed ids (or not). */
TEST_F(ext, stack_filter)
{
	static const __u16 ids[] = { 2, 4 };
	struct etw_enable_args e;
	unsigned int in, i;
	struct recs a;

	for (in = 0; in < 2; in++) {
		raw_enable_init(&e, self->id[in], &self->guid, 0, 0, 0);
		e.properties = ETW_ENABLE_STACK_TRACE;
		e.stack_id_count = ARRAY_SIZE(ids);
		e.stack_ids_ptr = (uintptr_t)ids;
		e.stack_ids_filter_in = in;
		ASSERT_EQ(0, etw_ioctl(self->fd, ETW_IOC_ENABLE, &e));
	}
	for (i = 1; i <= 4; i++)
		ASSERT_EQ(0, raw_write(self->fd, self->reg, i, 0, 0));
	for (in = 0; in < 2; in++) {
		ASSERT_EQ(4, collect(self, in, &a));
		for (i = 0; i < 4; i++) {
			int listed = a.r[i].h.descriptor.id % 2 == 0;

			TH_LOG("filter_in %u, id %u", in,
			       a.r[i].h.descriptor.id);
			EXPECT_EQ(listed == (int)in,
				  rec_item(&a.r[i], ETW_EXT_STACK_TRACE64) !=
				  NULL);
		}
	}
}

/*
 * EVENT_FILTER_TYPE_STACKWALK_LEVEL_KW (level 3, MatchAny 0x2): session
 * A takes stacks for the events the level and keywords match, B for the
 * others.  The sessions themselves take every event.
 */
TEST_F(ext, stack_level_kw_filter)
{
	static const struct {
		__u8 level;
		__u64 keyword;
		bool matched;
	} events[] = {
		{ 2, 0x2, true },
		{ 5, 0x2, false },	/* above the level */
		{ 2, 0x4, false },	/* no MatchAny bit */
		{ 2, 0, true },		/* keyword 0 passes, as for sessions */
		{ 0, 0x6, true },	/* level 0 passes */
	};
	struct etw_enable_args e;
	unsigned int s, i;
	struct recs a;

	for (s = 0; s < 2; s++) {
		raw_enable_init(&e, self->id[s], &self->guid, 0, 0, 0);
		e.properties = ETW_ENABLE_STACK_TRACE;
		e.stack_level = 3;
		e.stack_match_any = 0x2;
		e.stack_lk_filter = s ? ETW_STACK_LK_OUT : ETW_STACK_LK_IN;
		ASSERT_EQ(0, etw_ioctl(self->fd, ETW_IOC_ENABLE, &e));
	}
	for (i = 0; i < ARRAY_SIZE(events); i++)
		ASSERT_EQ(0, raw_write(self->fd, self->reg, i + 1,
				       events[i].level, events[i].keyword));
	for (s = 0; s < 2; s++) {
		ASSERT_EQ(ARRAY_SIZE(events), collect(self, s, &a));
		for (i = 0; i < ARRAY_SIZE(events); i++) {
			TH_LOG("session %u, event %u", s, i + 1);
			EXPECT_EQ(events[i].matched == !s,
				  rec_item(&a.r[i], ETW_EXT_STACK_TRACE64) !=
				  NULL);
		}
	}
}

/* With MatchAllKeyword, and with STACKWALK's ids: both must let it in. */
TEST_F(ext, stack_level_kw_and_id_filters_both_apply)
{
	static const __u16 ids[] = { 1, 2 };
	static const __u64 keywords[] = { 0x3, 0x1, 0x3 };
	struct etw_enable_args e;
	unsigned int i;
	struct recs a;

	raw_enable_init(&e, self->id[0], &self->guid, 0, 0, 0);
	e.properties = ETW_ENABLE_STACK_TRACE;
	e.stack_match_all = 0x3;
	e.stack_lk_filter = ETW_STACK_LK_IN;
	e.stack_id_count = ARRAY_SIZE(ids);
	e.stack_ids_ptr = (uintptr_t)ids;
	e.stack_ids_filter_in = 1;
	ASSERT_EQ(0, etw_ioctl(self->fd, ETW_IOC_ENABLE, &e));
	for (i = 0; i < ARRAY_SIZE(keywords); i++)
		ASSERT_EQ(0, raw_write(self->fd, self->reg, i + 1, 4,
				       keywords[i]));
	ASSERT_EQ(3, collect(self, 0, &a));
	EXPECT_NE(NULL, rec_item(&a.r[0], ETW_EXT_STACK_TRACE64));
	EXPECT_EQ(NULL, rec_item(&a.r[1], ETW_EXT_STACK_TRACE64));
	EXPECT_EQ(NULL, rec_item(&a.r[2], ETW_EXT_STACK_TRACE64));
}

/* The stack filter's arguments the kernel refuses. */
TEST_F(ext, stack_filter_invalid)
{
	static const struct {
		const char *name;
		__u32 props, count, in;
		__u8 lk;
	} cases[] = {
		{ "without STACK_TRACE", 0, 1, 1, 0 },
		{ "filter_in above 1", ETW_ENABLE_STACK_TRACE, 1, 2, 0 },
		{ "filter_in with no id", ETW_ENABLE_STACK_TRACE, 0, 1, 0 },
		{ "65 ids", ETW_ENABLE_STACK_TRACE,
		  ETW_MAX_EVENT_ID_FILTER + 1, 1, 0 },
		{ "level filter without STACK_TRACE", 0, 0, 0,
		  ETW_STACK_LK_IN },
		{ "unknown level filter mode", ETW_ENABLE_STACK_TRACE, 0, 0,
		  ETW_STACK_LK_OUT + 1 },
	};
	static __u16 ids[ETW_MAX_EVENT_ID_FILTER + 1];
	struct etw_enable_args e;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		TH_LOG("%s", cases[i].name);
		raw_enable_init(&e, self->id[0], &self->guid, 0, 0, 0);
		e.properties = cases[i].props;
		e.stack_id_count = cases[i].count;
		e.stack_ids_filter_in = cases[i].in;
		e.stack_ids_ptr = (uintptr_t)ids;
		e.stack_lk_filter = cases[i].lk;
		EXPECT_EQ(-EINVAL, etw_ioctl(self->fd, ETW_IOC_ENABLE, &e));
	}
}

/*
 * A record of ETW_MAX_EVENT_SIZE without items: the session that asked for
 * a SID loses it (E2BIG), an independent session without items keeps it.
 */
TEST(items_past_the_largest_record)
{
	static char payload[ETW_MAX_EVENT_SIZE -
			    sizeof(struct etw_event_header)];
	struct etw_data_descriptor d = { .ptr = (uintptr_t)payload,
					 .size = sizeof(payload) };
	struct etw_guid g = raw_guid(FAMILY, 2);
	struct etw_session_args q;
	struct etw_write_args w;
	__u32 id[2], reg;
	int fd, cfd[2], i;

	/* Resident: a fault would retry the write and count A's loss twice. */
	memset(payload, 'x', sizeof(payload));
	fd = etw_open();
	ASSERT_LE(0, fd);
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, raw_start(fd, i ? "ext-items-big-b" : "ext-items-big-a",
				       ETW_MODE_INDEPENDENT |
				       ETW_MODE_NO_PER_PROCESSOR, 128, 0,
				       &id[i]));
		/* Without a consumer, STOP would count the backlog lost. */
		cfd[i] = raw_consumer(fd, id[i]);
		ASSERT_LE(0, cfd[i]);
		ASSERT_EQ(0, raw_control(fd, id[i], &g, ETW_CONTROL_ENABLE,
					 i ? 0 : ETW_ENABLE_SID));
	}
	ASSERT_EQ(0, raw_register(fd, &g, 0, 0, &reg, NULL));
	raw_write_init(&w, reg, 1, 0, 0);
	w.data_count = 1;
	w.data_ptr = (uintptr_t)&d;
	EXPECT_EQ(-E2BIG, etw_ioctl(fd, ETW_IOC_WRITE, &w));
	/* STOP delivers the buffers, which counts their events written. */
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, raw_session_op(fd, ETW_IOC_STOP, id[i], &q));
		EXPECT_EQ(i ? 0 : 1, q.stats.events_lost);
		EXPECT_EQ(i ? 1 : 0, q.stats.events_written);
		close(cfd[i]);
	}
	close(fd);
}

/* libetw: the properties and EVENT_FILTER_TYPE_STACKWALK reach the kernel. */
TEST_F(ext, enable_trace_ex2_stackwalk)
{
	EVENT_FILTER_EVENT_ID ids = { .FilterIn = TRUE, .Count = 1,
				      .Events = { 2 } };
	EVENT_FILTER_DESCRIPTOR d = { .Ptr = (uintptr_t)&ids,
				      .Size = sizeof(ids),
				      .Type = EVENT_FILTER_TYPE_STACKWALK };
	ENABLE_TRACE_PARAMETERS p = {
		.Version = ENABLE_TRACE_PARAMETERS_VERSION_2,
		.EnableProperty = EVENT_ENABLE_PROPERTY_STACK_TRACE |
				  EVENT_ENABLE_PROPERTY_SID,
		.EnableFilterDesc = &d,
		.FilterDescCount = 1,
	};
	struct recs a, b;
	unsigned int i;

	ASSERT_EQ(ERROR_SUCCESS,
		  EnableTraceEx2(self->id[0], (const GUID *)&self->guid,
				 EVENT_CONTROL_CODE_ENABLE_PROVIDER, 0, 0, 0,
				 0, &p));
	/* Without STACK_TRACE the filter is accepted and captures nothing. */
	p.EnableProperty = EVENT_ENABLE_PROPERTY_TS_ID;
	ASSERT_EQ(ERROR_SUCCESS,
		  EnableTraceEx2(self->id[1], (const GUID *)&self->guid,
				 EVENT_CONTROL_CODE_ENABLE_PROVIDER, 0, 0, 0,
				 0, &p));
	for (i = 1; i <= 2; i++)
		ASSERT_EQ(0, raw_write(self->fd, self->reg, i, 0, 0));
	ASSERT_EQ(2, collect(self, 0, &a));
	ASSERT_EQ(2, collect(self, 1, &b));
	for (i = 0; i < 2; i++) {
		EXPECT_NE(NULL, rec_item(&a.r[i], ETW_EXT_SID));
		EXPECT_EQ(i == 1,
			  rec_item(&a.r[i], ETW_EXT_STACK_TRACE64) != NULL);
		EXPECT_EQ(1, b.r[i].nitems);
		EXPECT_NE(NULL, rec_item(&b.r[i], ETW_EXT_TS_ID));
	}
}

/*
 * libetw: EVENT_FILTER_TYPE_STACKWALK_LEVEL_KW (FilterIn FALSE: stacks for
 * what it does not match) reaches the kernel; a block shorter than
 * EVENT_FILTER_LEVEL_KW is a bad parameter.
 */
TEST_F(ext, enable_trace_ex2_stackwalk_level_kw)
{
	EVENT_FILTER_LEVEL_KW lk = { .MatchAnyKeyword = 0x1, .Level = 4,
				     .FilterIn = FALSE };
	EVENT_FILTER_DESCRIPTOR d = {
		.Ptr = (uintptr_t)&lk, .Size = sizeof(lk),
		.Type = EVENT_FILTER_TYPE_STACKWALK_LEVEL_KW,
	};
	ENABLE_TRACE_PARAMETERS p = {
		.Version = ENABLE_TRACE_PARAMETERS_VERSION_2,
		.EnableProperty = EVENT_ENABLE_PROPERTY_STACK_TRACE,
		.EnableFilterDesc = &d,
		.FilterDescCount = 1,
	};
	struct recs a;

	d.Size = sizeof(lk) - 1;
	EXPECT_EQ(ERROR_INVALID_PARAMETER,
		  EnableTraceEx2(self->id[0], (const GUID *)&self->guid,
				 EVENT_CONTROL_CODE_ENABLE_PROVIDER, 0, 0, 0,
				 0, &p));
	d.Size = sizeof(lk);
	ASSERT_EQ(ERROR_SUCCESS,
		  EnableTraceEx2(self->id[0], (const GUID *)&self->guid,
				 EVENT_CONTROL_CODE_ENABLE_PROVIDER, 0, 0, 0,
				 0, &p));
	ASSERT_EQ(0, raw_write(self->fd, self->reg, 1, 4, 0x1));
	ASSERT_EQ(0, raw_write(self->fd, self->reg, 2, 4, 0x2));
	ASSERT_EQ(2, collect(self, 0, &a));
	EXPECT_EQ(NULL, rec_item(&a.r[0], ETW_EXT_STACK_TRACE64));
	EXPECT_NE(NULL, rec_item(&a.r[1], ETW_EXT_STACK_TRACE64));
}

/* An EVENT_FILTER_EVENT_NAME: names at f.Names, which @room extends. */
struct name_block {
	EVENT_FILTER_EVENT_NAME f;
	char room[32];
};

static ULONG enable_names(__u32 id, const struct etw_guid *g, ULONG type,
			  ULONG props, const struct name_block *b, ULONG size)
{
	EVENT_FILTER_DESCRIPTOR d = { .Ptr = (uintptr_t)b, .Size = size,
				      .Type = type };
	ENABLE_TRACE_PARAMETERS p = {
		.Version = ENABLE_TRACE_PARAMETERS_VERSION_2,
		.EnableProperty = props,
		.EnableFilterDesc = &d,
		.FilterDescCount = 1,
	};

	return EnableTraceEx2(id, (const GUID *)g,
			      EVENT_CONTROL_CODE_ENABLE_PROVIDER, 0, 0, 0, 0,
			      &p);
}

/*
 * libetw: EVENT_FILTER_TYPE_EVENT_NAME lets session A take only "Alpha";
 * EVENT_FILTER_TYPE_STACKWALK_NAME gives session B a stack for "Beta"
 * only (ns-evntprov-event_filter_descriptor).  TraceLogging events, named
 * by their metadata.
 */
TEST_F(ext, enable_trace_ex2_event_names)
{
	size_t names = offsetof(EVENT_FILTER_EVENT_NAME, Names);
	struct name_block b = { .f = { .FilterIn = TRUE, .NameCount = 1 } };
	struct recs a;

	memcpy(b.f.Names, "Alpha", 6);
	ASSERT_EQ(ERROR_SUCCESS,
		  enable_names(self->id[0], &self->guid,
			       EVENT_FILTER_TYPE_EVENT_NAME, 0, &b, names + 6));
	memcpy(b.f.Names, "Beta", 5);
	ASSERT_EQ(ERROR_SUCCESS,
		  enable_names(self->id[1], &self->guid,
			       EVENT_FILTER_TYPE_STACKWALK_NAME,
			       EVENT_ENABLE_PROPERTY_STACK_TRACE, &b,
			       names + 5));
	ASSERT_EQ(0, raw_tlg_write(self->fd, self->reg, 1, 4, 0, "Alpha"));
	ASSERT_EQ(0, raw_tlg_write(self->fd, self->reg, 2, 4, 0, "Beta"));
	ASSERT_EQ(1, collect(self, 0, &a));
	EXPECT_EQ(1, a.r[0].h.descriptor.id);
	ASSERT_EQ(2, collect(self, 1, &a));
	EXPECT_EQ(NULL, rec_item(&a.r[0], ETW_EXT_STACK_TRACE64));
	EXPECT_NE(NULL, rec_item(&a.r[1], ETW_EXT_STACK_TRACE64));
}

/* The name blocks libetw refuses, for both types, as the kernel would. */
TEST_F(ext, enable_trace_ex2_event_name_errors)
{
	static const struct {
		const char *what;
		USHORT count;
		BOOLEAN in;
		const char *names;
		ULONG len;
	} cases[] = {
		{ "no name", 0, TRUE, "a", 2 },
		{ "empty name", 1, TRUE, "", 1 },
		{ "unterminated", 1, TRUE, "ab", 2 },
		{ "count past the names", 2, TRUE, "a", 2 },
		{ "FilterIn 2", 1, 2, "a", 2 },
	};
	size_t names = offsetof(EVENT_FILTER_EVENT_NAME, Names);
	static const ULONG types[] = { EVENT_FILTER_TYPE_EVENT_NAME,
				       EVENT_FILTER_TYPE_STACKWALK_NAME };
	struct name_block b;
	unsigned int i, t;

	for (t = 0; t < 2; t++) {
		for (i = 0; i < ARRAY_SIZE(cases); i++) {
			memset(&b, 0, sizeof(b));
			b.f.NameCount = cases[i].count;
			b.f.FilterIn = cases[i].in;
			memcpy(b.f.Names, cases[i].names, cases[i].len);
			EXPECT_EQ(ERROR_INVALID_PARAMETER,
				  enable_names(self->id[0], &self->guid,
					       types[t], 0, &b,
					       names + cases[i].len))
				TH_LOG("type %#x: %s", types[t],
				       cases[i].what);
		}
		EXPECT_EQ(ERROR_INVALID_PARAMETER,
			  enable_names(self->id[0], &self->guid, types[t], 0,
				       NULL, 32));
	}
}

TEST_HARNESS_MAIN
