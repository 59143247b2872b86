// SPDX-License-Identifier: GPL-2.0
/*
 * What an unprivileged caller sees of others (Documentation/abi.rst, "Who
 * may do what"), through the raw ABI from a child running as the VM's user
 * "etw" (uid/gid 1000, no groups):
 *
 * - ETW_IOC_LIST_PROVIDERS lists only its own process's registrations;
 * - ETW_IOC_LIST_SESSIONS lists only its own (private) sessions.
 *
 * The parent (root) first makes registrations and sessions of its own, a
 * global and a private one, which the child must not see; root itself
 * sees them all (the check that the lists are not simply empty).
 */
#include "kselftest_harness.h"
#include "etw_child.h"

#define FAMILY		0x9a0e3000
#define MAX_INFO	4096
#define MAX_IDS		(ETW_MAX_GLOBAL_SESSIONS + ETW_MAX_PRIVATE_SESSIONS)

static struct etw_provider_info info[MAX_INFO];

/* LIST_PROVIDERS into info[]; the count, or -errno. */
static long list_providers(int fd)
{
	struct etw_list_providers_args l = {
		.size = sizeof(l), .count = MAX_INFO,
		.info_ptr = (uintptr_t)info, .info_size = sizeof(info[0]),
	};
	int ret = etw_ioctl(fd, ETW_IOC_LIST_PROVIDERS, &l);

	return ret ? ret : (long)l.count;
}

/* How many listed entries are of @guid. */
static int providers_of(long n, const struct etw_guid *guid)
{
	int k = 0;
	long i;

	for (i = 0; i < n && i < MAX_INFO; i++)
		k += raw_guid_eq(&info[i].guid, guid);
	return k;
}

/* LIST_SESSIONS into @ids; the count, or -errno. */
static long list_sessions(int fd, __u32 *ids)
{
	struct etw_list_args l = { .size = sizeof(l), .count = MAX_IDS,
				   .ids_ptr = (uintptr_t)ids };
	int ret = etw_ioctl(fd, ETW_IOC_LIST_SESSIONS, &l);

	return ret ? ret : (long)l.count;
}

static int has_id(long n, const __u32 *ids, __u32 id)
{
	long i;

	for (i = 0; i < n && i < MAX_IDS; i++)
		if (ids[i] == id)
			return 1;
	return 0;
}

FIXTURE(others) {
	int fd;
	__u32 reg;
	__u32 global_id;
	__u32 private_id;
	struct etw_guid root_guid;
};

FIXTURE_SETUP(others)
{
	self->fd = etw_open();
	ASSERT_LE(0, self->fd);
	self->root_guid = raw_guid(FAMILY, 1);
	ASSERT_EQ(0, raw_register(self->fd, &self->root_guid, 0, 0,
				  &self->reg, NULL));
	ASSERT_EQ(0, raw_start(self->fd, "list-visibility-global",
			       ETW_MODE_REAL_TIME, 4, 0, &self->global_id));
	ASSERT_EQ(0, raw_start(self->fd, "list-visibility-private",
			       ETW_MODE_PRIVATE, 4, 0, &self->private_id));
}

FIXTURE_TEARDOWN(others)
{
	raw_session_op(self->fd, ETW_IOC_STOP, self->global_id, NULL);
	close(self->fd);
}

TEST_F(others, root_lists_every_registration_and_session)
{
	__u32 ids[MAX_IDS];
	long n;

	n = list_providers(self->fd);
	ASSERT_LE(1, n);
	EXPECT_EQ(1, providers_of(n, &self->root_guid));
	n = list_sessions(self->fd, ids);
	ASSERT_LE(2, n);
	EXPECT_TRUE(has_id(n, ids, self->global_id));
	EXPECT_TRUE(has_id(n, ids, self->private_id));
}

/* session_mask has bit n for the global session with logger id n + 1. */
TEST_F(others, session_mask_names_the_enabling_global_session)
{
	struct etw_enable_args e;
	long i, n;

	raw_enable_init(&e, self->global_id, &self->root_guid, 4, 0, 0);
	ASSERT_EQ(0, etw_ioctl(self->fd, ETW_IOC_ENABLE, &e));
	n = list_providers(self->fd);
	ASSERT_LE(1, n);
	for (i = 0; i < n && i < MAX_INFO; i++)
		if (raw_guid_eq(&info[i].guid, &self->root_guid))
			break;
	ASSERT_GT(n, i);
	EXPECT_EQ(1ULL << (self->global_id - 1), info[i].session_mask);
}

/*
 * Child codes: 1 setup failed, 2 wrong count, 3 someone else's entry,
 * 4 own entry missing, 10+errno the list call failed.
 */
static int unpriv_list_providers(void *arg)
{
	const struct etw_guid *root_guid = arg;
	struct etw_guid mine = raw_guid(FAMILY, 2);
	int fd = etw_open();
	__u32 reg;
	long n, i;

	/* Two registrations in this process: one on each of two files. */
	if (fd < 0 || raw_register(fd, &mine, 0, 0, &reg, NULL))
		return 1;
	if (raw_register(etw_open(), &mine, 0, 0, &reg, NULL))
		return 1;
	n = list_providers(fd);
	if (n < 0)
		return 10 - n;
	if (n != 2)
		return 2;
	for (i = 0; i < n; i++)
		if (info[i].pid != (__u32)getpid() ||
		    raw_guid_eq(&info[i].guid, root_guid))
			return 3;
	return providers_of(n, &mine) == 2 ? 0 : 4;
}

TEST_F(others, unprivileged_list_providers_shows_only_own_process)
{
	EXPECT_EQ(0, child_run(unpriv_list_providers, &self->root_guid,
				       1));
}

/* Codes as above. */
static int unpriv_list_sessions(void *arg)
{
	__u32 ids[MAX_IDS], mine;
	int fd = etw_open();
	long n;

	(void)arg;
	if (fd < 0 || raw_start(fd, "list-visibility-own", ETW_MODE_PRIVATE, 4,
				0, &mine))
		return 1;
	n = list_sessions(fd, ids);
	if (n < 0)
		return 10 - n;
	if (n != 1)
		return 2;
	return ids[0] == mine ? 0 : 3;
}

TEST_F(others, unprivileged_list_sessions_shows_only_own_sessions)
{
	EXPECT_EQ(0, child_run(unpriv_list_sessions, NULL, 1));
}

/* With none of its own, the unprivileged list is empty (count 0). */
static int unpriv_list_sessions_empty(void *arg)
{
	__u32 ids[MAX_IDS];
	int fd = etw_open();
	long n;

	(void)arg;
	if (fd < 0)
		return 1;
	n = list_sessions(fd, ids);
	if (n < 0)
		return 10 - n;
	return n == 0 ? 0 : 2;
}

TEST_F(others, unprivileged_list_sessions_without_own_is_empty)
{
	EXPECT_EQ(0, child_run(unpriv_list_sessions_empty, NULL, 1));
}

TEST_HARNESS_MAIN
