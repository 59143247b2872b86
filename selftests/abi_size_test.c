// SPDX-License-Identifier: GPL-2.0
/*
 * The ABI can grow: every size-first ioctl, table-driven, at its first
 * published size (ETW_*_SIZE_VER0), at this header's size, larger with a
 * zero tail (a newer caller: accepted) and with a non-zero one (-E2BIG),
 * below VER0 (-EINVAL) and past a page (-E2BIG); a command number that
 * encodes a larger size reaches the same handler.  LIST_PROVIDERS pages
 * past ETW_LIST_PROVIDERS_MAX registrations and writes entries of the
 * caller's size.
 */
#include <sys/ioctl.h>

#include "kselftest_harness.h"
#include "ioc_table.h"

#define FAMILY		0xab15a000
#define PAGE		4096u
#define ARGS_BYTES	(2 * PAGE)

/* @cmd as a header whose struct has @size bytes would number it. */
static unsigned long cmd_sized(unsigned long cmd, __u32 size)
{
	return (cmd & ~((unsigned long)_IOC_SIZEMASK << _IOC_SIZESHIFT)) |
	       ((unsigned long)size << _IOC_SIZESHIFT);
}

FIXTURE(abi) {
	struct ioc_ctx c;
	__u8 args[ARGS_BYTES];
};

FIXTURE_SETUP(abi)
{
	self->c.family = FAMILY + 1;
	self->c.tag = "abi";
	self->c.fd = etw_open();
	ASSERT_LE(0, self->c.fd);
	ASSERT_EQ(0, raw_start(self->c.fd, "abi-size", ETW_MODE_REAL_TIME, 4,
			       0, &self->c.id));
	self->c.guid = raw_guid(FAMILY, 0);
	ASSERT_EQ(0, raw_register(self->c.fd, &self->c.guid, 0, 0,
				  &self->c.reg, NULL));
	/* Enabled, so that writes copy their data. */
	ASSERT_EQ(0, raw_enable(self->c.fd, self->c.id, &self->c.guid, 0, 0,
				0));
	self->c.cfd = raw_consumer(self->c.fd, self->c.id);
	ASSERT_LE(0, self->c.cfd);
}

FIXTURE_TEARDOWN(abi)
{
	close(self->c.cfd);
	raw_session_op(self->c.fd, ETW_IOC_STOP, self->c.id, NULL);
	close(self->c.fd);
}

/* Valid arguments for @i with @size in the size field, the rest zero. */
static void *args_for(FIXTURE_DATA(abi) *self, const struct ioc *i,
		      __u32 size)
{
	return ioc_args(&self->c, i, self->args, sizeof(self->args), size);
}

/* Check one call's result; failures name the ioctl and the case. */
static void expect_call(struct __test_metadata *_metadata, struct ioc_ctx *c,
			const struct ioc *i, unsigned long cmd, void *a,
			int want, __u32 size)
{
	int got = ioc_call(c, i, cmd, a);

	EXPECT_EQ(want, got) TH_LOG("%s at %u bytes", i->name, size);
}

TEST_F(abi, ver0_size_is_accepted)
{
	unsigned int k;

	for (k = 0; k < NIOCS; k++) {
		const struct ioc *i = &iocs[k];
		__u8 *a = args_for(self, i, i->ver0);

		expect_call(_metadata, &self->c, i, i->cmd, a, 0, i->ver0);
		if (i->out)
			EXPECT_EQ(i->ver0, *(__u32 *)a) TH_LOG("%s", i->name);
	}
}

TEST_F(abi, struct_size_is_accepted)
{
	unsigned int k;

	for (k = 0; k < NIOCS; k++) {
		const struct ioc *i = &iocs[k];
		__u8 *a = args_for(self, i, i->ksize);

		EXPECT_LE(i->ver0, i->ksize) TH_LOG("%s", i->name);
		expect_call(_metadata, &self->c, i, i->cmd, a, 0, i->ksize);
		if (i->out)
			EXPECT_EQ(i->ksize, *(__u32 *)a) TH_LOG("%s", i->name);
	}
}

TEST_F(abi, larger_size_with_zero_tail_is_accepted)
{
	static const __u8 zero[8];
	unsigned int k;

	for (k = 0; k < NIOCS; k++) {
		const struct ioc *i = &iocs[k];
		__u8 *a = args_for(self, i, i->ksize + 8);

		expect_call(_metadata, &self->c, i, i->cmd, a, 0,
			    i->ksize + 8);
		/* What the kernel knows comes back; the tail stays zero. */
		if (i->out)
			EXPECT_EQ(i->ksize, *(__u32 *)a) TH_LOG("%s", i->name);
		EXPECT_EQ(0, memcmp(a + i->ksize, zero, sizeof(zero)))
			TH_LOG("%s", i->name);
	}
}

TEST_F(abi, larger_size_with_nonzero_tail_is_e2big)
{
	unsigned int k;

	for (k = 0; k < NIOCS; k++) {
		const struct ioc *i = &iocs[k];
		__u8 *a = args_for(self, i, i->ksize + 8);

		a[i->ksize + 7] = 1;
		expect_call(_metadata, &self->c, i, i->cmd, a, -E2BIG,
			    i->ksize + 8);
	}
}

TEST_F(abi, size_below_ver0_is_einval)
{
	unsigned int k;

	for (k = 0; k < NIOCS; k++) {
		const struct ioc *i = &iocs[k];

		expect_call(_metadata, &self->c, i, i->cmd,
			    args_for(self, i, i->ver0 - 1), -EINVAL,
			    i->ver0 - 1);
		expect_call(_metadata, &self->c, i, i->cmd,
			    args_for(self, i, 0), -EINVAL, 0);
	}
}

TEST_F(abi, size_past_a_page_is_e2big)
{
	unsigned int k;

	for (k = 0; k < NIOCS; k++) {
		const struct ioc *i = &iocs[k];

		expect_call(_metadata, &self->c, i, i->cmd,
			    args_for(self, i, PAGE + 8), -E2BIG, PAGE + 8);
	}
}

/* A caller built against a newer header: its command encodes its size. */
TEST_F(abi, command_number_with_a_larger_size_reaches_the_handler)
{
	unsigned int k;

	for (k = 0; k < NIOCS; k++) {
		const struct ioc *i = &iocs[k];
		__u32 size = i->ksize + 8;

		expect_call(_metadata, &self->c, i, cmd_sized(i->cmd, size),
			    args_for(self, i, size), 0, size);
		expect_call(_metadata, &self->c, i, cmd_sized(i->cmd, size),
			    args_for(self, i, i->ver0 - 1), -EINVAL,
			    i->ver0 - 1);
	}
}

/* Only the size bits are ignored: another direction is another command. */
TEST_F(abi, command_number_with_another_direction_is_enotty)
{
	unsigned long cmd = _IOC(_IOC_NONE, ETW_IOC_MAGIC,
				 _IOC_NR(ETW_IOC_GET_INFO),
				 sizeof(struct etw_info));
	struct etw_info info = { .size = sizeof(info) };

	EXPECT_EQ(-ENOTTY, etw_ioctl(self->c.fd, cmd, &info));
}

TEST_F(abi, reserved_and_flags_are_checked)
{
	struct etw_ack_args ack = { .size = sizeof(ack), .flags = 1 };
	struct etw_consumer_stats_args st = { .size = sizeof(st), .flags = 1 };
	struct etw_list_providers_args l = {
		.size = sizeof(l), .info_size = sizeof(struct etw_provider_info),
		.flags = 2,
	};
	struct etw_session_args s;

	EXPECT_EQ(-EINVAL, etw_ioctl(self->c.fd, ETW_IOC_ACK, &ack));
	EXPECT_EQ(-EINVAL, etw_ioctl(self->c.cfd, ETW_IOC_CONSUMER_STATS, &st));
	EXPECT_EQ(-EINVAL, etw_ioctl(self->c.fd, ETW_IOC_LIST_PROVIDERS, &l));
	l.flags = 0;
	l.info_size = ETW_PROVIDER_INFO_SIZE_VER0 - 1;
	EXPECT_EQ(-EINVAL, etw_ioctl(self->c.fd, ETW_IOC_LIST_PROVIDERS, &l));
	l.info_size = PAGE + 1;
	EXPECT_EQ(-EINVAL, etw_ioctl(self->c.fd, ETW_IOC_LIST_PROVIDERS, &l));
	/* The config's room is read by update (and start), and checked. */
	raw_session_init(&s, self->c.id);
	s.config.reserved2[1] = 1;
	EXPECT_EQ(-EINVAL, etw_ioctl(self->c.fd, ETW_IOC_UPDATE, &s));
	raw_session_init(&s, 0);
	snprintf(s.name, sizeof(s.name), "abi-room-%d", getpid());
	s.config.mode = ETW_MODE_PRIVATE;
	s.config.reserved2[0] = 1;
	EXPECT_EQ(-EINVAL, etw_ioctl(self->c.fd, ETW_IOC_START, &s));
}

TEST_F(abi, stats_room_comes_back_zero)
{
	struct etw_consumer_stats_args st;
	struct etw_session_args s;
	unsigned int j;

	memset(&st, 0, sizeof(st));
	st.size = sizeof(st);
	/* Output only: whatever the caller left there is overwritten. */
	raw_session_init(&s, self->c.id);
	memset(&s.stats, 0xa5, sizeof(s.stats));
	ASSERT_EQ(0, etw_ioctl(self->c.fd, ETW_IOC_QUERY, &s));
	ASSERT_EQ(0, etw_ioctl(self->c.cfd, ETW_IOC_CONSUMER_STATS, &st));
	EXPECT_EQ(0, s.stats.reserved);
	EXPECT_EQ(0, st.stats.reserved);
	for (j = 0; j < sizeof(s.stats.reserved2) / 8; j++) {
		EXPECT_EQ(0, s.stats.reserved2[j]);
		EXPECT_EQ(0, st.stats.reserved2[j]);
	}
	EXPECT_EQ(1, st.stats.consumers);
	EXPECT_EQ(1, s.stats.consumers);
}

/* --- LIST_PROVIDERS: entries of the caller's size, pages ------------------ */

#define NFILES		5
#define PER_FILE	1000	/* 5000 in all: more than one page of 4096 */

struct listing {
	__u8 *seen;	/* per registration of ours: times listed */
	__u32 total;	/* the last call's @total */
	__u32 calls;
	__u32 max_count;
	int bad;	/* entries with a non-zero tail */
};

/* Registration @n of this test: family FAMILY + 2, data3 = n. */
static void list_all(int fd, __u32 info_size, __u32 count,
		     struct listing *r)
{
	__u8 *buf = calloc(count, info_size);
	struct etw_list_providers_args a;
	__u32 start = 0, k, j;

	memset(r->seen, 0, NFILES * PER_FILE);
	r->calls = 0;
	r->max_count = 0;
	r->bad = 0;
	for (;;) {
		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		a.count = count;
		a.info_ptr = (uintptr_t)buf;
		a.info_size = info_size;
		a.start = start;
		memset(buf, 0xa5, (size_t)count * info_size);
		if (etw_ioctl(fd, ETW_IOC_LIST_PROVIDERS, &a))
			break;
		r->calls++;
		r->total = a.total;
		if (a.count > r->max_count)
			r->max_count = a.count;
		for (k = 0; k < a.count; k++) {
			const __u8 *e = buf + (size_t)k * info_size;
			const struct etw_provider_info *p = (const void *)e;
			struct etw_guid g = raw_guid(FAMILY + 2, p->guid.data3);

			for (j = sizeof(*p); j < info_size; j++)
				r->bad += e[j] != 0;
			if (raw_guid_eq(&p->guid, &g) &&
			    p->pid == (__u32)getpid() &&
			    p->guid.data3 < NFILES * PER_FILE)
				r->seen[p->guid.data3]++;
		}
		start += a.count;
		if (!a.count || start >= a.total)
			break;
	}
	free(buf);
}

TEST(list_providers_pages_past_one_call)
{
	struct listing r = { .seen = calloc(NFILES * PER_FILE, 1) };
	int fds[NFILES], f, n, once, fd;
	__u32 reg;

	ASSERT_NE(NULL, r.seen);
	for (f = 0; f < NFILES; f++) {
		fds[f] = etw_open();
		ASSERT_LE(0, fds[f]);
		for (n = 0; n < PER_FILE; n++) {
			struct etw_guid g = raw_guid(FAMILY + 2,
						     f * PER_FILE + n);

			ASSERT_EQ(0, raw_register(fds[f], &g, 0, 0, &reg,
						  NULL));
		}
	}
	fd = etw_open();
	ASSERT_LE(0, fd);

	/* Room for more than one call returns: at most 4096 per call. */
	list_all(fd, sizeof(struct etw_provider_info), 8192, &r);
	EXPECT_LE(NFILES * PER_FILE, r.total);
	EXPECT_EQ(ETW_LIST_PROVIDERS_MAX, r.max_count);
	EXPECT_LE(2, r.calls);
	for (n = 0, once = 0; n < NFILES * PER_FILE; n++)
		once += r.seen[n] == 1;
	EXPECT_EQ(NFILES * PER_FILE, once);

	/* Small pages, larger entries (zeroed past what the kernel knows). */
	list_all(fd, sizeof(struct etw_provider_info) + 24, 1000, &r);
	EXPECT_EQ(0, r.bad);
	EXPECT_LE(5, r.calls);
	for (n = 0, once = 0; n < NFILES * PER_FILE; n++)
		once += r.seen[n] == 1;
	EXPECT_EQ(NFILES * PER_FILE, once);

	/* The first published entry size. */
	list_all(fd, ETW_PROVIDER_INFO_SIZE_VER0, 4096, &r);
	for (n = 0, once = 0; n < NFILES * PER_FILE; n++)
		once += r.seen[n] == 1;
	EXPECT_EQ(NFILES * PER_FILE, once);

	for (f = 0; f < NFILES; f++)
		close(fds[f]);
	close(fd);
	free(r.seen);
}

TEST(list_providers_start_past_the_end_writes_nothing)
{
	struct etw_provider_info info;
	struct etw_list_providers_args a = {
		.size = sizeof(a), .count = 1, .info_ptr = (uintptr_t)&info,
		.info_size = sizeof(info), .start = 0xffffffff,
	};
	int fd = etw_open();

	ASSERT_LE(0, fd);
	memset(&info, 0xa5, sizeof(info));
	ASSERT_EQ(0, etw_ioctl(fd, ETW_IOC_LIST_PROVIDERS, &a));
	EXPECT_EQ(0, a.count);
	EXPECT_EQ(0xa5, ((__u8 *)&info)[0]);
	close(fd);
}

TEST_HARNESS_MAIN
