// SPDX-License-Identifier: GPL-2.0
/*
 * Every /dev/etw operation that allocates or copies, failed at each of its
 * fault sites in turn (/proc/thread-self/fail-nth = 1, 2, ... until the
 * call runs without the armed fault firing).  One fixture variant per
 * operation, from the table below: a fresh setup, the call, and a state
 * snapshot (LIST_SESSIONS, QUERY of each session, LIST_PROVIDERS of this
 * process, the enable area) taken before the call and compared after a
 * failed one.  A failed call must return its documented errno (ENOMEM or
 * EFAULT unless the row says more) and leave the state as it was.  A fault
 * that fired while the call still succeeded (an optional allocation, such
 * as memcg's obj_exts) is legitimate: the state is torn down and the next
 * nth runs.  Each operation must fail at one injected fault at least,
 * unless its row says why it has no fault site (and then it must fail at
 * none): a run where injection does not reach the call fails.  The
 * module's own load is failed the same way ("loading the module" below).
 * Kernel reports (KASAN, kmemleak, lockdep) fail the run through the
 * console-log scan.
 */
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "kselftest_harness.h"
#include "etw_raw.h"
#include "etw_fail_nth.h"

#define MAX_NTH		400
#define MAX_SESSIONS	(ETW_MAX_GLOBAL_SESSIONS + ETW_MAX_PRIVATE_SESSIONS)
#define MAX_PROVIDERS	64
#define MAP_ENTRIES	16
#define BUF_BYTES	4096
#define TRAIT_GROUP	1

/* --- the state every row starts from -------------------------------------- */

/*
 * A global real-time session enabling @g (level 4, keyword 0x1) and the
 * group @grp, a registration of @g on @fd (non-blocking), the enable area
 * mapped, and a consumer of the session.  No notification is queued.
 */
struct ctx {
	int fd;
	int cfd;
	__u32 sid;
	__u32 reg;
	__u32 index;
	struct etw_enable_state *map;
	struct etw_guid g;
	struct etw_guid grp;
	char name[64];
	char name2[64];
	/* Row-specific results, undone at teardown. */
	int new_fd;
	void *new_map;
	__u32 new_reg;
	__u32 new_sid;
	struct etw_session_config config;	/* the session's, at setup */
	char buf[BUF_BYTES];
};

static int drain_notifications(int fd)
{
	char buf[4096];
	ssize_t r;
	int count = 0;

	while ((r = read(fd, buf, sizeof(buf))) > 0) {
		const char *p = buf;

		while (p < buf + r) {
			count++;
			p += ((const struct etw_notification *)p)->size;
		}
	}
	return count;
}

static int stop_by_name(int fd, const char *name)
{
	struct etw_session_args a;

	raw_session_init(&a, 0);
	snprintf(a.name, sizeof(a.name), "%s", name);
	return etw_ioctl(fd, ETW_IOC_STOP, &a);
}

static __u16 group_traits(__u8 *buf, const struct etw_guid *group)
{
	static const char name[] = "FaultProvider";
	__u16 len = 2 + sizeof(name);

	memcpy(buf + 2, name, sizeof(name));
	buf[len] = 3 + sizeof(*group);
	buf[len + 1] = 0;
	buf[len + 2] = TRAIT_GROUP;
	memcpy(buf + len + 3, group, sizeof(*group));
	len += 3 + sizeof(*group);
	buf[0] = len & 0xff;
	buf[1] = len >> 8;
	return len;
}

static int ctx_setup(struct ctx *c)
{
	struct etw_session_args a;
	int ret;

	memset(c, 0, sizeof(*c));
	c->cfd = c->new_fd = -1;
	c->map = c->new_map = MAP_FAILED;
	c->g = raw_guid(0xfa17, 1);
	c->grp = raw_guid(0xfa17, 2);
	snprintf(c->name, sizeof(c->name), "fault-%d", getpid());
	snprintf(c->name2, sizeof(c->name2), "fault2-%d", getpid());
	c->fd = open(ETW_DEV, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (c->fd < 0)
		return -errno;
	raw_session_init(&a, 0);
	strcpy(a.name, c->name);
	a.config.buffer_kb = 4;
	a.config.mode = ETW_MODE_REAL_TIME;
	ret = etw_ioctl(c->fd, ETW_IOC_START, &a);
	if (ret)
		return ret;
	c->sid = a.logger_id;
	c->config = a.config;
	ret = raw_enable(c->fd, c->sid, &c->g, 4, 0x1, 0) ?:
	      raw_control(c->fd, c->sid, &c->grp, ETW_CONTROL_ENABLE,
			  ETW_ENABLE_PROVIDER_GROUP) ?:
	      raw_register(c->fd, &c->g, 0, 7, &c->reg, &c->index);
	if (ret)
		return ret;
	c->map = mmap(NULL, 4096, PROT_READ, MAP_SHARED, c->fd,
		      ETW_MMAP_ENABLE);
	if (c->map == MAP_FAILED)
		return -errno;
	c->cfd = raw_consumer(c->fd, c->sid);
	if (c->cfd < 0)
		return c->cfd;
	drain_notifications(c->fd);
	return 0;
}

static void ctx_teardown(struct ctx *c)
{
	if (c->new_map != MAP_FAILED)
		munmap(c->new_map, 4096);
	if (c->map != MAP_FAILED)
		munmap(c->map, 4096);
	if (c->new_fd >= 0)
		close(c->new_fd);
	if (c->cfd >= 0)
		close(c->cfd);
	if (c->fd >= 0) {
		stop_by_name(c->fd, c->name);
		stop_by_name(c->fd, c->name2);
		close(c->fd);
	}
}

/* --- the state snapshot --------------------------------------------------- */

struct snap_session {
	__u32 id;
	struct etw_session_config config;
	__u32 buffers;
	__u32 consumers;
	__u32 owner_pid;
	char name[64];
};

struct snap_provider {
	struct etw_guid guid;
	__u32 flags;
	struct etw_guid group;
	__u32 enabled;
	__u8 level;
	__u64 match_any;
	__u64 match_all;
	__u64 session_mask;
	char name[ETW_PROVIDER_NAME_LEN];
};

struct snap_enable {
	__u32 enabled;
	__u8 level;
	__u64 match_any;
	__u64 match_all;
};

struct snap {
	__u32 nsessions;
	struct snap_session sessions[MAX_SESSIONS];
	__u32 nproviders;
	struct snap_provider providers[MAX_PROVIDERS];
	struct snap_enable enable[MAP_ENTRIES];
};

static int snapshot(struct ctx *c, struct snap *s)
{
	static struct etw_provider_info info[MAX_PROVIDERS];
	struct etw_list_providers_args l = { .size = sizeof(l),
		.count = MAX_PROVIDERS, .info_ptr = (uintptr_t)info,
		.info_size = sizeof(info[0]) };
	__u32 ids[MAX_SESSIONS];
	struct etw_list_args la = { .size = sizeof(la), .count = MAX_SESSIONS,
				    .ids_ptr = (uintptr_t)ids };
	__u32 i;
	int ret;

	memset(s, 0, sizeof(*s));
	ret = etw_ioctl(c->fd, ETW_IOC_LIST_SESSIONS, &la);
	if (ret)
		return ret;
	for (i = 0; i < la.count && i < MAX_SESSIONS; i++) {
		struct snap_session *ss = &s->sessions[s->nsessions];
		struct etw_session_args a;

		if (raw_session_op(c->fd, ETW_IOC_QUERY, ids[i], &a))
			continue;	/* another test's private session */
		ss->id = ids[i];
		ss->config = a.config;
		ss->buffers = a.stats.buffers;
		ss->consumers = a.stats.consumers;
		ss->owner_pid = a.owner_pid;
		memcpy(ss->name, a.name, sizeof(ss->name) - 1);
		s->nsessions++;
	}
	ret = etw_ioctl(c->fd, ETW_IOC_LIST_PROVIDERS, &l);
	if (ret)
		return ret;
	for (i = 0; i < l.count && i < MAX_PROVIDERS; i++) {
		struct snap_provider *p = &s->providers[s->nproviders];

		if (info[i].pid != (__u32)getpid())
			continue;
		p->guid = info[i].guid;
		p->flags = info[i].flags;
		p->group = info[i].group;
		p->enabled = info[i].enabled;
		p->level = info[i].level;
		p->match_any = info[i].match_any;
		p->match_all = info[i].match_all;
		p->session_mask = info[i].session_mask;
		memcpy(p->name, info[i].name, sizeof(p->name));
		s->nproviders++;
	}
	for (i = 0; i < MAP_ENTRIES; i++) {
		s->enable[i].enabled = c->map[i].enabled;
		s->enable[i].level = c->map[i].level;
		s->enable[i].match_any = c->map[i].match_any;
		s->enable[i].match_all = c->map[i].match_all;
	}
	return 0;
}

/* What differs, for the log; NULL when nothing does. */
static const char *snap_diff(const struct snap *a, const struct snap *b)
{
	if (a->nsessions != b->nsessions)
		return "number of sessions";
	if (memcmp(a->sessions, b->sessions, sizeof(a->sessions)))
		return "a session's config, buffers or consumers";
	if (a->nproviders != b->nproviders)
		return "number of registrations";
	if (memcmp(a->providers, b->providers, sizeof(a->providers)))
		return "a registration's listed state";
	if (memcmp(a->enable, b->enable, sizeof(a->enable)))
		return "the enable area";
	return NULL;
}

/* --- the operations --------------------------------------------------------- */

static int op_register(struct ctx *c)
{
	return raw_register(c->fd, &c->g, 0, 8, &c->new_reg, NULL);
}

static int op_unregister(struct ctx *c)
{
	return raw_unregister(c->fd, c->reg);
}

static int op_set_traits(struct ctx *c)
{
	__u8 blob[64];
	struct etw_traits_args t = { .size = sizeof(t), .reg_id = c->reg,
				     .traits_ptr = (uintptr_t)blob };

	t.traits_len = group_traits(blob, &c->grp);
	return etw_ioctl(c->fd, ETW_IOC_SET_TRAITS, &t);
}

static int op_write(struct ctx *c)
{
	static const char meta[] = "\x10\x00" "Event\0field\0\x01";
	struct raw_payload p = { .tag = 1, .pid = (__u32)getpid() };
	struct etw_data_descriptor d[2] = {
		{ .ptr = (uintptr_t)meta, .size = sizeof(meta),
		  .type = ETW_DATA_TYPE_EVENT_METADATA },
		{ .ptr = (uintptr_t)&p, .size = sizeof(p) },
	};
	struct etw_write_args w;

	raw_write_init(&w, c->reg, 1, 4, 0x1);
	w.flags = ETW_WRITE_DESC_TYPES | ETW_WRITE_RELATED_ACTIVITY;
	w.data_count = 2;
	w.data_ptr = (uintptr_t)d;
	return etw_ioctl(c->fd, ETW_IOC_WRITE, &w);
}

static int op_list_providers(struct ctx *c)
{
	static struct etw_provider_info info[MAX_PROVIDERS];
	struct etw_list_providers_args l = { .size = sizeof(l),
		.count = MAX_PROVIDERS, .info_ptr = (uintptr_t)info,
		.info_size = sizeof(info[0]) };

	return etw_ioctl(c->fd, ETW_IOC_LIST_PROVIDERS, &l);
}

static int op_start(struct ctx *c)
{
	struct etw_session_args a;
	int ret;

	raw_session_init(&a, 0);
	strcpy(a.name, c->name2);
	a.config.buffer_kb = 4;
	a.config.max_buffers = 8;
	a.config.mode = ETW_MODE_REAL_TIME;
	ret = etw_ioctl(c->fd, ETW_IOC_START, &a);
	if (!ret)
		c->new_sid = a.logger_id;
	return ret;
}

static int session_op(struct ctx *c, unsigned long cmd)
{
	struct etw_session_args a;

	raw_session_init(&a, c->sid);
	if (cmd == ETW_IOC_UPDATE) {
		/* Raise max_buffers: UPDATE allocates the new buffers. */
		a.config = c->config;
		a.config.max_buffers = c->config.max_buffers + 4;
		a.config.flush_timer_ms = 0;
	}
	return etw_ioctl(c->fd, cmd, &a);
}

/*
 * A kernel logger with no flags (it records nothing: the snapshot's
 * counts stay), under the name teardown stops.
 */
static int pre_klogger(struct ctx *c)
{
	struct etw_session_args a;

	snprintf(c->name2, sizeof(c->name2), "%s", ETW_KERNEL_LOGGER_NAME);
	raw_session_init(&a, 0);
	strcpy(a.name, c->name2);
	a.config.buffer_kb = 4;
	a.config.mode = ETW_MODE_REAL_TIME;
	return etw_ioctl(c->fd, ETW_IOC_START, &a);
}

/* Its flags on: the tracepoints they need are registered. */
static int op_update_klogger(struct ctx *c)
{
	struct etw_session_args a;

	raw_session_init(&a, 0);
	strcpy(a.name, c->name2);
	a.flags = ETW_UPDATE_ENABLE_FLAGS;
	a.config.enable_flags = ETW_KFLAG_PROCESS | ETW_KFLAG_THREAD |
				ETW_KFLAG_IMAGE_LOAD;
	return etw_ioctl(c->fd, ETW_IOC_UPDATE, &a);
}

static int op_stop(struct ctx *c) { return session_op(c, ETW_IOC_STOP); }
static int op_query(struct ctx *c) { return session_op(c, ETW_IOC_QUERY); }
static int op_update(struct ctx *c) { return session_op(c, ETW_IOC_UPDATE); }
static int op_flush(struct ctx *c) { return session_op(c, ETW_IOC_FLUSH); }

static int op_list_sessions(struct ctx *c)
{
	__u32 ids[MAX_SESSIONS];
	struct etw_list_args la = { .size = sizeof(la), .count = MAX_SESSIONS,
				    .ids_ptr = (uintptr_t)ids };

	return etw_ioctl(c->fd, ETW_IOC_LIST_SESSIONS, &la);
}

/* A new level and keywords, with event-id, pid and filter-data filters. */
static int op_enable(struct ctx *c)
{
	__u16 ids[3] = { 1, 2, 3 };
	__u32 pid = getpid();
	struct {
		struct etw_filter_header h;
		__u8 data[24];
	} fd = { .h = { .id = 1, .version = 1,
			.size = sizeof(fd) } };
	struct etw_enable_args e;

	memset(fd.data, 0x5a, sizeof(fd.data));
	raw_enable_init(&e, c->sid, &c->g, 5, 0x3, 0);
	e.event_id_count = 3;
	e.event_ids_ptr = (uintptr_t)ids;
	e.event_ids_filter_in = 1;
	e.pid_count = 1;
	e.pids_ptr = (uintptr_t)&pid;
	e.filter_data_ptr = (uintptr_t)&fd;
	e.filter_data_size = sizeof(fd);
	return etw_ioctl(c->fd, ETW_IOC_ENABLE, &e);
}

static int op_set_disallow(struct ctx *c)
{
	struct etw_guid g[3] = { raw_guid(0xfa18, 1), raw_guid(0xfa18, 2),
				 raw_guid(0xfa18, 3) };
	struct etw_disallow_args d = { .size = sizeof(d), .logger_id = c->sid,
				       .count = 3, .guids_ptr = (uintptr_t)g };

	return etw_ioctl(c->fd, ETW_IOC_SET_DISALLOW, &d);
}

static int op_get_disallow(struct ctx *c)
{
	struct etw_guid g[ETW_MAX_DISALLOW];
	struct etw_disallow_args d = { .size = sizeof(d), .logger_id = c->sid,
				       .count = ETW_MAX_DISALLOW,
				       .guids_ptr = (uintptr_t)g };

	return etw_ioctl(c->fd, ETW_IOC_GET_DISALLOW, &d);
}

static int op_open(struct ctx *c)
{
	int fd = open(ETW_DEV, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	c->new_fd = fd;
	return 0;
}

static int op_consume(struct ctx *c)
{
	int fd = raw_consumer(c->fd, c->sid);

	if (fd < 0)
		return fd;
	c->new_fd = fd;
	return 0;
}

static int op_get_info(struct ctx *c)
{
	struct etw_info i = { .size = sizeof(i) };

	return etw_ioctl(c->fd, ETW_IOC_GET_INFO, &i);
}

static int op_consumer_stats(struct ctx *c)
{
	struct etw_consumer_stats_args st = { .size = sizeof(st) };

	return etw_ioctl(c->cfd, ETW_IOC_CONSUMER_STATS, &st);
}

static int op_ack(struct ctx *c)
{
	return raw_ack(c->fd, 1);
}

static int op_read_notifications(struct ctx *c)
{
	ssize_t r = read(c->fd, c->buf, sizeof(c->buf));

	return r < 0 ? -errno : r > 0 ? 0 : -ENODATA;
}

static int op_read_consumer(struct ctx *c)
{
	ssize_t r = read(c->cfd, c->buf, BUF_BYTES);

	return r < 0 ? -errno : r == BUF_BYTES ? 0 : -ENODATA;
}

static int op_mmap(struct ctx *c)
{
	void *m = mmap(NULL, 4096, PROT_READ, MAP_SHARED, c->fd,
		       ETW_MMAP_ENABLE);

	if (m == MAP_FAILED)
		return -errno;
	c->new_map = m;
	return 0;
}

/* --- row-specific setup and checks ----------------------------------------- */

/* A state change not yet read: one ENABLE notification queued. */
static int pre_notification(struct ctx *c)
{
	return raw_enable(c->fd, c->sid, &c->g, 5, 0x1, 0);
}

/* One sealed buffer waiting for the consumer. */
static int pre_buffer(struct ctx *c)
{
	return raw_write(c->fd, c->reg, 1, 4, 0x1) ?:
	       raw_session_op(c->fd, ETW_IOC_FLUSH, c->sid, NULL);
}

/* An event in a partial buffer, for FLUSH to seal. */
static int pre_event(struct ctx *c)
{
	return raw_write(c->fd, c->reg, 1, 4, 0x1);
}

/* A failed call queued no notification. */
static int post_no_notification(struct ctx *c)
{
	return drain_notifications(c->fd) == 0 ? 0 : -1;
}

/* The notification a failed read did not deliver is still queued. */
static int post_notification_kept(struct ctx *c)
{
	return drain_notifications(c->fd) == 1 ? 0 : -1;
}

/* The buffer a failed read did not deliver is still there, whole. */
static int post_buffer_kept(struct ctx *c)
{
	struct etw_buffer_header *h = (void *)c->buf;

	if (read(c->cfd, c->buf, BUF_BYTES) != BUF_BYTES)
		return -1;
	return h->events == 1 ? 0 : -1;
}

/* The name of a START that failed can be taken at once. */
static int post_name_free(struct ctx *c)
{
	int ret = op_start(c);

	return ret ? -1 : stop_by_name(c->fd, c->name2);
}

struct fault_row {
	const char *name;
	int (*pre)(struct ctx *c);
	int (*call)(struct ctx *c);
	int (*post_fail)(struct ctx *c);
	/* Besides ENOMEM and EFAULT. */
	int extra_errno;
	/*
	 * The call's result is copied out after it took effect: an EFAULT
	 * from that last copy comes with the effect (ioctl semantics).
	 */
	bool effect_then_efault;
	/* Why the call has no fault site; NULL when it has. */
	const char *no_site;
};

/* --- the table ------------------------------------------------------------- */

FIXTURE(op) {
	int fail;
};

FIXTURE_VARIANT(op) {
	struct fault_row row;
};

#define ROW(id, ...) \
	FIXTURE_VARIANT_ADD(op, id) { .row = { .name = #id, __VA_ARGS__ } }

ROW(open, .call = op_open);
ROW(register, .call = op_register, .post_fail = post_no_notification);
ROW(unregister, .call = op_unregister);
ROW(set_traits, .call = op_set_traits, .post_fail = post_no_notification);
ROW(write, .call = op_write,
    .no_site = "it allocates nothing, and copies with the write path's "
	       "inline __copy_from_user(), which fail_usercopy does not reach");
ROW(list_providers, .call = op_list_providers);
ROW(start, .call = op_start, .post_fail = post_name_free);
ROW(stop, .call = op_stop, .effect_then_efault = true);
ROW(query, .call = op_query);
ROW(update, .call = op_update, .effect_then_efault = true);
ROW(update_kernel_flags, .pre = pre_klogger, .call = op_update_klogger,
    .effect_then_efault = true);
ROW(flush, .pre = pre_event, .call = op_flush, .effect_then_efault = true);
ROW(list_sessions, .call = op_list_sessions);
ROW(enable_filters, .call = op_enable, .post_fail = post_no_notification);
ROW(set_disallow, .call = op_set_disallow);
ROW(get_disallow, .pre = op_set_disallow, .call = op_get_disallow);
ROW(consume, .call = op_consume);
ROW(get_info, .call = op_get_info);
ROW(consumer_stats, .call = op_consumer_stats);
ROW(ack, .call = op_ack);
ROW(read_notifications, .pre = pre_notification,
    .call = op_read_notifications, .post_fail = post_notification_kept);
ROW(read_consumer, .pre = pre_buffer, .call = op_read_consumer,
    .post_fail = post_buffer_kept);
ROW(mmap, .call = op_mmap);

FIXTURE_SETUP(op)
{
	self->fail = fail_nth_open();
	ASSERT_LE(0, self->fail);
	ASSERT_EQ(0, fail_nth_setup(true));
}

FIXTURE_TEARDOWN(op)
{
	close(self->fail);
}

TEST_F_TIMEOUT(op, every_site, 300)
{
	const struct fault_row *row = &variant->row;
	static struct snap before, after;
	static struct ctx c;
	int nth, ret = -1, failures = 0, committed = 0;
	bool verbose = getenv("ETW_FAULT_VERBOSE");

	for (nth = 1; nth <= MAX_NTH; nth++) {
		const char *diff;
		bool fired;

		ASSERT_EQ(0, ctx_setup(&c));
		if (row->pre)
			ASSERT_EQ(0, row->pre(&c));
		ASSERT_EQ(0, snapshot(&c, &before));
		ASSERT_EQ(0, fail_nth_set(self->fail, nth));
		ret = row->call(&c);
		fired = fail_nth_fired(self->fail);
		if (!fired) {
			EXPECT_EQ(0, ret) {
				TH_LOG("%s: fails without a fault: %d",
				       row->name, ret);
			}
			ctx_teardown(&c);
			break;
		}
		if (!ret) {
			/* An optional step failed; the call succeeded whole. */
			ctx_teardown(&c);
			continue;
		}
		failures++;
		EXPECT_TRUE(ret == -ENOMEM || ret == -EFAULT ||
			    (row->extra_errno && ret == -row->extra_errno)) {
			TH_LOG("%s: fault site %d: errno %d", row->name, nth,
			       -ret);
		}
		ASSERT_EQ(0, snapshot(&c, &after));
		diff = snap_diff(&before, &after);
		if (verbose)
			TH_LOG("%s: fault site %d: errno %d, changed %s",
			       row->name, nth, -ret, diff ? diff : "nothing");
		if (diff && ret == -EFAULT && row->effect_then_efault) {
			committed++;
			diff = NULL;
		}
		EXPECT_TRUE(diff == NULL) {
			TH_LOG("%s: fault site %d (errno %d) changed %s",
			       row->name, nth, -ret, diff);
		}
		if (row->post_fail && !diff)
			EXPECT_EQ(0, row->post_fail(&c)) {
				TH_LOG("%s: fault site %d (errno %d): check after the failure failed",
				       row->name, nth, -ret);
			}
		ctx_teardown(&c);
	}
	EXPECT_LE(nth, MAX_NTH);
	EXPECT_EQ(0, ret);
	if (row->no_site) {
		EXPECT_EQ(0, failures) {
			TH_LOG("%s: %d injected faults failed the call, which has no fault site (%s)",
			       row->name, failures, row->no_site);
		}
	} else {
		EXPECT_LT(0, failures) {
			TH_LOG("%s: no injected fault failed the call (%d fired)",
			       row->name, nth - 1);
		}
	}
	/* The line scripts and people read: sites exercised, calls failed. */
	TH_LOG("FAULT %s: %d fault sites, %d failed the call%s", row->name,
	       nth - 1, failures,
	       committed ? " (EFAULT copying the result out after the call took effect counted below)" : "");
	if (committed)
		TH_LOG("FAULT %s: %d of them EFAULT after taking effect",
		       row->name, committed);
	if (row->no_site)
		TH_LOG("FAULT %s: no fault site: %s", row->name, row->no_site);
}

/* --- loading the module -------------------------------------------------- */

/*
 * etw.ko's load, failed at each fault site of its init in turn: the
 * module must go whole (no /dev/etw, nothing in /sys/module, no leak for
 * the kmemleak scan), and the load fail with ENOMEM.  Only allocations and
 * copies made under do_one_initcall(), which runs the init, may fail (the
 * fault attributes' require-start/require-end): its frame is on the stack
 * for all the init calls, tail calls included, and for nothing else of
 * the load, whose own failures end in kernel warnings (the module's trace
 * events, vmalloc) that are not the module's to answer.  The module is
 * loaded from ETW_MODULE (default where scripts/vm-run puts it), with the
 * control_gid it had, and is loaded again whatever the outcome.
 */
#define MODULE_FILE	"/lib/etw/etw.ko"

/* The module's file in memory, and the parameters it is loaded with. */
struct module_file {
	void *image;
	size_t len;
	char params[64];
};

FIXTURE(load) {
	int fail;
	struct module_file mod;
	struct fail_nth_filter filter;
};

static void *read_module(const char *path, size_t *len)
{
	struct stat st;
	void *image = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	if (!fstat(fd, &st))
		image = malloc(st.st_size);
	if (image && read(fd, image, st.st_size) != st.st_size) {
		free(image);
		image = NULL;
	}
	close(fd);
	*len = image ? st.st_size : 0;
	return image;
}

static int load(const struct module_file *m)
{
	return syscall(SYS_init_module, m->image, m->len, m->params) ?
	       -errno : 0;
}

/*
 * Unload etw; a process's last reference can go a little after it exits,
 * as run_vm_tests.sh's unload allows.  Return: 0 or -errno.
 */
static int unload(void)
{
	int i;

	for (i = 0; i < 100; i++) {
		if (!syscall(SYS_delete_module, "etw", O_NONBLOCK))
			return 0;
		if (errno != EBUSY && errno != EAGAIN)
			return -errno;
		usleep(100 * 1000);
	}
	return -EBUSY;
}

static bool exists(const char *path)
{
	struct stat st;

	return !stat(path, &st);
}

FIXTURE_SETUP(load)
{
	const char *path = getenv("ETW_MODULE") ?: MODULE_FILE;
	char gid[32];
	int filter;

	self->fail = -1;
	self->mod.image = NULL;
	self->filter.set = false;
	if (geteuid())
		SKIP(return, "loading a module needs root");
	filter = fail_nth_filter_present();
	if (!filter)
		SKIP(return, "no fault-injection stack filter before 6.3 on x86-64");
	ASSERT_EQ(1, filter) TH_LOG("no fault-injection stack filter");
	ASSERT_EQ(0, fail_nth_read_knob("/sys/module/etw/parameters/control_gid",
					gid, sizeof(gid)))
		TH_LOG("etw is not loaded");
	snprintf(self->mod.params, sizeof(self->mod.params), "control_gid=%s",
		 gid);
	self->mod.image = read_module(path, &self->mod.len);
	ASSERT_NE(NULL, self->mod.image) TH_LOG("%s: %s", path, strerror(errno));
	ASSERT_EQ(0, fail_nth_filter_set(&self->filter, "do_one_initcall"));
	self->fail = fail_nth_open();
	ASSERT_LE(0, self->fail);
	ASSERT_EQ(0, fail_nth_setup(true));
}

FIXTURE_TEARDOWN(load)
{
	if (self->fail >= 0)
		close(self->fail);
	fail_nth_filter_restore(&self->filter);
	if (self->mod.image && !exists("/sys/module/etw"))
		EXPECT_EQ(0, load(&self->mod));
	free(self->mod.image);
}

TEST_F_TIMEOUT(load, every_site_of_init, 600)
{
	int nth, ret = -1, failures = 0;
	struct ctx c;

	ASSERT_EQ(0, unload());
	for (nth = 1; nth <= MAX_NTH; nth++) {
		bool fired;

		ASSERT_EQ(0, fail_nth_set(self->fail, nth));
		ret = load(&self->mod);
		fired = fail_nth_fired(self->fail);
		if (!fired) {
			EXPECT_EQ(0, ret);
			break;
		}
		if (!ret) {
			/* An optional step failed; the load succeeded whole. */
			ASSERT_EQ(0, unload());
			continue;
		}
		failures++;
		EXPECT_EQ(-ENOMEM, ret) TH_LOG("fault site %d", nth);
		EXPECT_FALSE(exists("/sys/module/etw")) TH_LOG("fault site %d", nth);
		EXPECT_FALSE(exists("/dev/etw")) TH_LOG("fault site %d", nth);
	}
	EXPECT_LE(nth, MAX_NTH);
	EXPECT_LT(0, failures) TH_LOG("no injected fault failed the load");
	TH_LOG("FAULT load: %d fault sites, %d failed the load", nth - 1,
	       failures);
	/* The module the loop left works. */
	ASSERT_EQ(0, ctx_setup(&c));
	ctx_teardown(&c);
}

/* --- results that cannot be copied out ------------------------------------ */

/*
 * The argument struct in a read-only page: the kernel reads it, and the
 * copy of the result back fails with EFAULT every time, not only when
 * fail-nth happens to land on it.  A call whose caller never learns the id
 * it created must not leave the object behind: REGISTER unregisters, and
 * START must stop the session it started.
 */
static void *read_only_copy(const void *p, size_t n)
{
	void *m = mmap(NULL, 8192, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (m == MAP_FAILED)
		return NULL;
	memcpy(m, p, n);
	mprotect(m, 8192, PROT_READ);
	return m;
}

TEST(start_result_not_writable)
{
	struct ctx c;
	struct snap *before = calloc(1, sizeof(*before));
	struct snap *after = calloc(1, sizeof(*after));
	struct etw_session_args a, *ro;
	const char *diff;

	ASSERT_EQ(0, ctx_setup(&c));
	raw_session_init(&a, 0);
	strcpy(a.name, c.name2);
	a.config.buffer_kb = 4;
	a.config.mode = ETW_MODE_REAL_TIME;
	ro = read_only_copy(&a, sizeof(a));
	ASSERT_NE(NULL, ro);
	ASSERT_EQ(0, snapshot(&c, before));
	EXPECT_EQ(-EFAULT, etw_ioctl(c.fd, ETW_IOC_START, ro));
	ASSERT_EQ(0, snapshot(&c, after));
	diff = snap_diff(before, after);
	EXPECT_TRUE(diff == NULL) {
		TH_LOG("START returned EFAULT and changed %s", diff);
	}
	munmap(ro, 8192);
	ctx_teardown(&c);
	free(before);
	free(after);
}

TEST(register_result_not_writable)
{
	struct ctx c;
	struct snap *before = calloc(1, sizeof(*before));
	struct snap *after = calloc(1, sizeof(*after));
	struct etw_register_args r = { .size = sizeof(r) }, *ro;
	const char *diff;

	ASSERT_EQ(0, ctx_setup(&c));
	r.guid = c.g;
	ro = read_only_copy(&r, sizeof(r));
	ASSERT_NE(NULL, ro);
	ASSERT_EQ(0, snapshot(&c, before));
	EXPECT_EQ(-EFAULT, etw_ioctl(c.fd, ETW_IOC_REGISTER, ro));
	ASSERT_EQ(0, snapshot(&c, after));
	diff = snap_diff(before, after);
	EXPECT_TRUE(diff == NULL) {
		TH_LOG("REGISTER returned EFAULT and changed %s", diff);
	}
	EXPECT_EQ(0, drain_notifications(c.fd));
	munmap(ro, 8192);
	ctx_teardown(&c);
	free(before);
	free(after);
}

TEST_HARNESS_MAIN
