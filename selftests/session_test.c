// SPDX-License-Identifier: GPL-2.0
/*
 * Sessions, providers and the write path through the raw ABI: start and
 * stop, limits, enable and the mapped enable state, writing an event and
 * reading it back from a consumer file, privilege boundaries.
 */
#include <poll.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "etw_raw.h"

static const struct etw_guid prov_guid = {
	0x11223344, 0x5566, 0x7788, { 1, 2, 3, 4, 5, 6, 7, 8 } };

static int reg_provider(int fd, __u32 *reg_id, __u32 *index)
{
	return raw_register(fd, &prov_guid, 0, 0, reg_id, index);
}

static int enable(int fd, __u32 id, __u32 code, __u8 level, __u64 any)
{
	struct etw_enable_args e;

	raw_enable_init(&e, id, &prov_guid, level, any, 0);
	e.control_code = code;
	return etw_ioctl(fd, ETW_IOC_ENABLE, &e);
}

/* An event of @len bytes at @data, with an activity ID. */
static int write_event(int fd, __u32 reg_id, __u16 event_id, __u8 level,
		       __u64 keyword, const void *data, __u32 len)
{
	struct etw_data_descriptor d = { .ptr = (uintptr_t)data, .size = len };
	struct etw_write_args w;

	raw_write_init(&w, reg_id, event_id, level, keyword);
	w.activity_id.data1 = 0xac;
	w.data_count = len ? 1 : 0;
	w.data_ptr = (uintptr_t)&d;
	return etw_ioctl(fd, ETW_IOC_WRITE, &w);
}

/* What count_event() counts: prov_guid's events @id carrying @payload. */
struct event_count {
	__u16 id;
	const char *payload;
	int n;
};

static void count_event(const struct etw_event_header *h, void *ctx)
{
	struct event_count *c = ctx;
	size_t len = strlen(c->payload);

	if (raw_guid_eq(&h->provider_id, &prov_guid) &&
	    h->descriptor.id == c->id && h->size == sizeof(*h) + len &&
	    !memcmp(h + 1, c->payload, len))
		c->n++;
}

FIXTURE(sess) {
	int fd;
	__u32 id;
};

FIXTURE_SETUP(sess)
{
	self->fd = etw_open();
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, raw_start(self->fd, "selftest-session",
			       ETW_MODE_REAL_TIME, 4, 0, &self->id));
}

FIXTURE_TEARDOWN(sess)
{
	raw_session_op(self->fd, ETW_IOC_STOP, self->id, NULL);
	close(self->fd);
}

TEST_F(sess, duplicate_name_is_eexist_case_insensitively)
{
	EXPECT_EQ(-EEXIST, raw_start(self->fd, "SELFTEST-Session",
				     ETW_MODE_REAL_TIME, 4, 0, NULL));
}

TEST_F(sess, query_reports_adjusted_config)
{
	char name[ETW_MAX_NAME_LEN + 1];
	struct etw_session_args a;

	ASSERT_EQ(0, raw_session_op(self->fd, ETW_IOC_QUERY, self->id, &a));
	snprintf(name, sizeof(name), "selftest-session-%d", getpid());
	EXPECT_STREQ(name, a.name);
	EXPECT_EQ(4, a.config.buffer_kb);
	EXPECT_LE(2, a.config.min_buffers);
	EXPECT_EQ(1000, a.config.flush_timer_ms);
	EXPECT_EQ(a.stats.buffers, a.stats.free_buffers);
}

/*
 * Buffer counts as ETW_IOC_START adjusts them.  The minimum always becomes
 * S, two per buffer stream (per CPU, or 2 with NO_PER_PROCESSOR); the
 * maximum becomes S plus @spare, or @want_max when that is non-zero.
 */
static const struct buffers_case {
	__u32 mode, min, max;
	__u32 spare, want_max;
} buffers_cases[] = {
	{ .mode = ETW_MODE_REAL_TIME, .spare = 20 },		/* default */
	{ .mode = ETW_MODE_REAL_TIME, .max = 1, .spare = 0 },	/* to min */
	{ .mode = ETW_MODE_REAL_TIME, .max = 100, .want_max = 100 },
	{ .mode = ETW_MODE_REAL_TIME, .min = 1, .spare = 20 },
	{ .mode = ETW_MODE_BUFFERING, .spare = 0 },		/* the ring */
	{ .mode = ETW_MODE_BUFFERING, .max = 50, .spare = 0 },
	{ .mode = ETW_MODE_NO_PER_PROCESSOR, .spare = 20 },
};

TEST(start_adjusts_buffer_counts)
{
	__u32 per_cpu = 2 * (__u32)sysconf(_SC_NPROCESSORS_CONF);
	int fd = etw_open();
	unsigned int i;

	ASSERT_LE(0, fd);
	for (i = 0; i < ARRAY_SIZE(buffers_cases); i++) {
		const struct buffers_case *t = &buffers_cases[i];
		__u32 s = (t->mode & ETW_MODE_NO_PER_PROCESSOR) ? 2 : per_cpu;
		struct etw_session_args a, q;

		raw_session_init(&a, 0);
		snprintf(a.name, sizeof(a.name), "selftest-buffers-%u", i);
		a.config.buffer_kb = 4;
		a.config.mode = t->mode;
		a.config.min_buffers = t->min;
		a.config.max_buffers = t->max;
		ASSERT_EQ(0, etw_ioctl(fd, ETW_IOC_START, &a));
		EXPECT_EQ(s, a.config.min_buffers);
		EXPECT_EQ(t->want_max ?: s + t->spare, a.config.max_buffers) {
			TH_LOG("case %u", i);
		}
		/* Every buffer is allocated at start. */
		ASSERT_EQ(0, raw_session_op(fd, ETW_IOC_QUERY, a.logger_id,
					    &q));
		EXPECT_EQ(a.config.max_buffers, q.stats.buffers);
		EXPECT_EQ(0, raw_session_op(fd, ETW_IOC_STOP, a.logger_id,
					    NULL));
	}
	close(fd);
}

/* UPDATE of max_buffers, from a session with S + 20 buffers. */
static const struct update_buffers_case {
	__u32 mode;
	int add;		/* to the current maximum; 0 sends 0 */
	int err;
	int want_add;		/* buffers the session then has, over S + 20 */
} update_buffers_cases[] = {
	{ ETW_MODE_REAL_TIME, 10, 0, 10 },
	{ ETW_MODE_REAL_TIME, 0, 0, 0 },		/* 0: unchanged */
	{ ETW_MODE_REAL_TIME, -1, -EINVAL, 0 },		/* cannot shrink */
	{ ETW_MODE_BUFFERING, 1, -EINVAL, 0 },		/* fixed ring */
	{ ETW_MODE_PRIVATE, 1, -EINVAL, 0 },
};

TEST(update_raises_max_buffers)
{
	int fd = etw_open();
	unsigned int i;

	ASSERT_LE(0, fd);
	for (i = 0; i < ARRAY_SIZE(update_buffers_cases); i++) {
		const struct update_buffers_case *t = &update_buffers_cases[i];
		struct etw_session_args a, q;
		__u32 id, max;

		ASSERT_EQ(0, raw_start(fd, "selftest-update", t->mode, 4, 0,
				       &id));
		ASSERT_EQ(0, raw_session_op(fd, ETW_IOC_QUERY, id, &q));
		max = q.config.max_buffers;
		/* A flight recorder's ring is its minimum, the others add 20. */
		ASSERT_EQ(q.config.min_buffers +
			  (t->mode & ETW_MODE_BUFFERING ? 0 : 20), max);

		raw_session_init(&a, id);
		a.config.max_buffers = t->add ? max + t->add : 0;
		EXPECT_EQ(t->err, etw_ioctl(fd, ETW_IOC_UPDATE, &a)) {
			TH_LOG("case %u", i);
		}
		ASSERT_EQ(0, raw_session_op(fd, ETW_IOC_QUERY, id, &q));
		EXPECT_EQ(max + t->want_add, q.config.max_buffers);
		EXPECT_EQ(max + t->want_add, q.stats.buffers);
		EXPECT_EQ(q.stats.buffers, q.stats.free_buffers);
		EXPECT_EQ(0, raw_session_op(fd, ETW_IOC_STOP, id, NULL));
	}
	close(fd);
}

TEST_F(sess, stop_twice_is_enoent)
{
	EXPECT_EQ(0, raw_session_op(self->fd, ETW_IOC_STOP, self->id, NULL));
	EXPECT_EQ(-ENOENT, raw_session_op(self->fd, ETW_IOC_STOP, self->id,
					  NULL));
}

TEST_F(sess, enable_state_is_mapped)
{
	struct etw_enable_state *map;
	__u32 reg, index;

	ASSERT_EQ(0, reg_provider(self->fd, &reg, &index));
	map = mmap(NULL, 4096 * 8, PROT_READ, MAP_SHARED, self->fd, 0);
	ASSERT_NE(MAP_FAILED, map);
	EXPECT_EQ(0, map[index].enabled);
	ASSERT_EQ(0, enable(self->fd, self->id, ETW_CONTROL_ENABLE, 4, 0x30));
	EXPECT_EQ(1, map[index].enabled);
	EXPECT_EQ(4, map[index].level);
	EXPECT_EQ(0x30, map[index].match_any);
	ASSERT_EQ(0, enable(self->fd, self->id, ETW_CONTROL_DISABLE, 0, 0));
	EXPECT_EQ(0, map[index].enabled);
	munmap(map, 4096 * 8);
}

TEST_F(sess, writable_mapping_is_refused)
{
	EXPECT_EQ(MAP_FAILED, mmap(NULL, 4096, PROT_READ | PROT_WRITE,
				   MAP_SHARED, self->fd, 0));
	EXPECT_EQ(EPERM, errno);
}

TEST_F(sess, event_reaches_consumer)
{
	static unsigned char buf[4096];
	struct event_count hello = { .id = 7, .payload = "hello" };
	struct etw_session_args a;
	__u32 reg;
	int cfd;
	ssize_t r;

	ASSERT_EQ(0, reg_provider(self->fd, &reg, NULL));
	ASSERT_EQ(0, enable(self->fd, self->id, ETW_CONTROL_ENABLE, 4, 0));
	cfd = raw_consumer(self->fd, self->id);
	ASSERT_LE(0, cfd);
	EXPECT_EQ(0, write_event(self->fd, reg, 7, 4, 0x1, "hello", 5));
	EXPECT_EQ(0, write_event(self->fd, reg, 7, 5, 0x1, "hello", 5));
	ASSERT_EQ(0, raw_session_op(self->fd, ETW_IOC_FLUSH, self->id, &a));
	while ((r = read(cfd, buf, sizeof(buf))) > 0) {
		const struct etw_buffer_header *bh = (const void *)buf;

		EXPECT_EQ(4096, r);
		EXPECT_EQ(4096, bh->buffer_size);
		EXPECT_EQ(bh->offset, bh->saved_offset);
		EXPECT_EQ(self->id, bh->logger_id);
		EXPECT_EQ(0xff, buf[bh->offset]);
		EXPECT_LE(0, raw_walk_buffer(buf, count_event, &hello));
	}
	EXPECT_EQ(1, hello.n);	/* level 5 is above the session's 4 */
	ASSERT_EQ(0, raw_session_op(self->fd, ETW_IOC_QUERY, self->id, &a));
	EXPECT_EQ(1, a.stats.events_written);
	EXPECT_EQ(0, a.stats.events_lost);
	close(cfd);
}

TEST_F(sess, consumer_sees_eof_after_stop)
{
	static unsigned char buf[4096];
	int cfd = raw_consumer(self->fd, self->id);

	ASSERT_LE(0, cfd);
	ASSERT_EQ(0, raw_session_op(self->fd, ETW_IOC_STOP, self->id, NULL));
	EXPECT_EQ(0, read(cfd, buf, sizeof(buf)));
	close(cfd);
}

TEST_F(sess, short_consumer_read_is_einval)
{
	char buf[64];
	int cfd = raw_consumer(self->fd, self->id);

	ASSERT_LE(0, cfd);
	EXPECT_EQ(-1, read(cfd, buf, sizeof(buf)));
	EXPECT_EQ(EINVAL, errno);
	close(cfd);
}

TEST_F(sess, ninth_session_on_provider_is_enospc)
{
	__u32 ids[8];
	char name[32];
	int i;

	ASSERT_EQ(0, enable(self->fd, self->id, ETW_CONTROL_ENABLE, 0, 0));
	for (i = 0; i < 7; i++) {
		snprintf(name, sizeof(name), "selftest-extra-%d", i);
		ASSERT_EQ(0, raw_start(self->fd, name, ETW_MODE_REAL_TIME, 4, 0,
				       &ids[i]));
		ASSERT_EQ(0, enable(self->fd, ids[i], ETW_CONTROL_ENABLE, 0, 0));
	}
	ASSERT_EQ(0, raw_start(self->fd, "selftest-ninth",
			       ETW_MODE_REAL_TIME, 4, 0, &ids[7]));
	EXPECT_EQ(-ENOSPC, enable(self->fd, ids[7], ETW_CONTROL_ENABLE, 0, 0));
	for (i = 0; i < 8; i++)
		raw_session_op(self->fd, ETW_IOC_STOP, ids[i], NULL);
}

TEST_F(sess, unprivileged_cannot_control_global_session)
{
	pid_t pid = fork();

	ASSERT_LE(0, pid);
	if (!pid) {
		int fd;

		if (setgid(1000) || setuid(1000))
			_exit(2);
		fd = etw_open();
		if (fd < 0)
			_exit(3);
		if (raw_session_op(fd, ETW_IOC_QUERY, self->id, NULL) != -EPERM)
			_exit(4);
		if (raw_session_op(fd, ETW_IOC_STOP, self->id, NULL) != -EPERM)
			_exit(5);
		if (raw_start(fd, "selftest-user", ETW_MODE_REAL_TIME, 4, 0,
			      NULL) != -EPERM)
			_exit(6);
		if (raw_consumer(fd, self->id) != -EPERM)
			_exit(7);
		_exit(0);
	}
	EXPECT_EQ(0, etw_wait_child(pid));
}

TEST_F(sess, write_with_unknown_flag_is_einval)
{
	struct etw_write_args w;
	__u32 reg;

	ASSERT_EQ(0, reg_provider(self->fd, &reg, NULL));
	raw_write_init(&w, reg, 0, 0, 0);
	w.flags = 0x80000000;
	EXPECT_EQ(-EINVAL, etw_ioctl(self->fd, ETW_IOC_WRITE, &w));
}

TEST_F(sess, write_to_unknown_registration_is_ebadf)
{
	EXPECT_EQ(-EBADF, write_event(self->fd, 999, 1, 0, 0, "x", 1));
}

TEST_F(sess, too_many_descriptors_is_einval)
{
	struct etw_write_args w;
	__u32 reg;

	ASSERT_EQ(0, reg_provider(self->fd, &reg, NULL));
	raw_write_init(&w, reg, 0, 0, 0);
	w.data_count = ETW_MAX_DATA_DESCRIPTORS + 1;
	EXPECT_EQ(-EINVAL, etw_ioctl(self->fd, ETW_IOC_WRITE, &w));
}

TEST_F(sess, oversize_event_is_e2big)
{
	static char big[ETW_MAX_EVENT_SIZE];
	__u32 reg;

	ASSERT_EQ(0, reg_provider(self->fd, &reg, NULL));
	ASSERT_EQ(0, enable(self->fd, self->id, ETW_CONTROL_ENABLE, 0, 0));
	EXPECT_EQ(-E2BIG, write_event(self->fd, reg, 1, 0, 0, big,
				      ETW_MAX_EVENT_SIZE - 80 + 1));
	/* Fits the 64 KiB limit but not the session's 4 KiB buffers. */
	EXPECT_EQ(-EMSGSIZE, write_event(self->fd, reg, 1, 0, 0, big, 8000));
}

/*
 * Sizes that only overflow 32 bits with the header added: the payload's
 * own limit catches them (a wrapped record size would reserve 64 bytes and
 * copy 4 GiB into them).
 */
TEST_F(sess, payload_wrapping_the_record_size_is_e2big)
{
	static char small[8];
	__u32 reg;

	ASSERT_EQ(0, reg_provider(self->fd, &reg, NULL));
	ASSERT_EQ(0, enable(self->fd, self->id, ETW_CONTROL_ENABLE, 0, 0));
	EXPECT_EQ(-E2BIG, write_event(self->fd, reg, 1, 0, 0, small,
				      0xfffffff0));
}

TEST_F(sess, unmapped_payload_is_efault)
{
	__u32 reg;

	ASSERT_EQ(0, reg_provider(self->fd, &reg, NULL));
	ASSERT_EQ(0, enable(self->fd, self->id, ETW_CONTROL_ENABLE, 0, 0));
	EXPECT_EQ(-EFAULT, write_event(self->fd, reg, 1, 0, 0,
				       (void *)16, 8));
}

TEST_F(sess, consumer_stats_outlive_the_session)
{
	struct etw_consumer_stats_args st;
	struct etw_session_args stop;
	__u32 reg;
	int cfd, i, lost = 0;

	ASSERT_EQ(0, reg_provider(self->fd, &reg, NULL));
	ASSERT_EQ(0, enable(self->fd, self->id, ETW_CONTROL_ENABLE, 0, 0));
	cfd = raw_consumer(self->fd, self->id);
	ASSERT_LE(0, cfd);
	/* Nobody reads: the buffers fill and writes start to be lost. */
	for (i = 0; i < 20000 && !lost; i++)
		lost = write_event(self->fd, reg, 1, 0, 0, "x", 1) == -ENOBUFS;
	EXPECT_TRUE(lost);
	ASSERT_EQ(0, raw_session_op(self->fd, ETW_IOC_STOP, self->id, &stop));
	RAW_POISON(&st);
	st.size = sizeof(st);
	st.flags = 0;
	ASSERT_EQ(0, ioctl(cfd, ETW_IOC_CONSUMER_STATS, &st));
	EXPECT_EQ(sizeof(st), st.size);
	EXPECT_LT(0, st.stats.events_lost);
	EXPECT_EQ(stop.stats.events_lost, st.stats.events_lost);
	EXPECT_EQ(stop.stats.events_written, st.stats.events_written);
	EXPECT_EQ(-1, ioctl(cfd, ETW_IOC_NULL, NULL));
	EXPECT_EQ(ENOTTY, errno);
	close(cfd);
}

TEST_F(sess, provider_list_carries_traits_name)
{
	static const char traits[] = "\x11\x00Selftest.Named";	/* 17 bytes */
	struct etw_traits_args t = { .size = sizeof(t) };
	struct etw_list_providers_args l;
	static struct etw_provider_info info[64];
	__u32 reg, i, found = 0;

	ASSERT_EQ(0, reg_provider(self->fd, &reg, NULL));
	t.reg_id = reg;
	t.traits_ptr = (uintptr_t)traits;
	t.traits_len = 17;
	ASSERT_EQ(0, etw_ioctl(self->fd, ETW_IOC_SET_TRAITS, &t));
	RAW_POISON(&l);
	RAW_POISON(&info);
	l.size = sizeof(l);
	l.count = 64;
	l.info_ptr = (uintptr_t)info;
	l.info_size = sizeof(info[0]);
	l.start = 0;
	l.flags = 0;
	ASSERT_EQ(0, etw_ioctl(self->fd, ETW_IOC_LIST_PROVIDERS, &l));
	for (i = 0; i < l.count && i < 64; i++)
		if (info[i].pid == (__u32)getpid() &&
		    !memcmp(&info[i].guid, &prov_guid, sizeof(prov_guid)))
			found += !strcmp(info[i].name, "Selftest.Named");
	EXPECT_EQ(1, found);
}

TEST(sixty_fifth_global_session_is_enospc)
{
	int fd = etw_open(), i, started = 0, ret = 0;
	__u32 ids[64];
	char name[32];

	ASSERT_LE(0, fd);
	for (i = 0; i < 64; i++) {
		snprintf(name, sizeof(name), "selftest-limit-%d", i);
		ret = raw_start(fd, name, 0, 4, 0, &ids[i]);
		if (ret)
			break;
		started++;
	}
	EXPECT_EQ(64, started);
	EXPECT_EQ(-ENOSPC, raw_start(fd, "selftest-limit-65", 0, 4, 0, NULL));
	for (i = 0; i < started; i++)
		raw_session_op(fd, ETW_IOC_STOP, ids[i], NULL);
	close(fd);
}

TEST(fifth_private_session_is_enospc)
{
	int fd = etw_open(), i;
	char name[32];

	ASSERT_LE(0, fd);
	for (i = 0; i < 4; i++) {
		snprintf(name, sizeof(name), "private-%d", i);
		ASSERT_EQ(0, raw_start(fd, name, ETW_MODE_PRIVATE, 4, 0, NULL));
	}
	EXPECT_EQ(-ENOSPC, raw_start(fd, "private-4", ETW_MODE_PRIVATE, 4, 0,
				     NULL));
	close(fd);	/* stops them */
	fd = etw_open();
	EXPECT_EQ(0, raw_start(fd, "private-0", ETW_MODE_PRIVATE, 4, 0, NULL));
	close(fd);
}

TEST_HARNESS_MAIN
