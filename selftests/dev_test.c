// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/etw basics: open, the null ioctl, ETW_IOC_GET_INFO and its struct
 * versioning, unknown commands.
 */
#include <stdio.h>
#include <sys/syscall.h>

#include "kselftest_harness.h"
#include "etw_raw.h"

static int try_unload(void)
{
	return syscall(SYS_delete_module, "etw", O_NONBLOCK) ? -errno : 0;
}

FIXTURE(dev) {
	int fd;
};

FIXTURE_SETUP(dev)
{
	self->fd = etw_open();
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(dev)
{
	close(self->fd);
}

TEST_F(dev, null_ioctl_succeeds)
{
	EXPECT_EQ(0, etw_ioctl(self->fd, ETW_IOC_NULL, NULL));
}

TEST_F(dev, unknown_ioctl_is_enotty)
{
	EXPECT_EQ(-ENOTTY, etw_ioctl(self->fd, _IO(ETW_IOC_MAGIC, 0xff), NULL));
}

TEST_F(dev, get_info_reports_limits)
{
	struct etw_info info = { .size = sizeof(info) };

	ASSERT_EQ(0, etw_ioctl(self->fd, ETW_IOC_GET_INFO, &info));
	EXPECT_EQ(sizeof(info), info.size);
	EXPECT_EQ(ETW_ABI_VERSION, info.abi_version);
	EXPECT_EQ(64, info.max_global_sessions);
	EXPECT_EQ(4, info.max_private_sessions);
	EXPECT_EQ(8, info.max_sessions_per_provider);
	EXPECT_EQ(0xffff, info.max_event_size);
	EXPECT_EQ(128, info.max_data_descriptors);
	EXPECT_EQ(1 /* CLOCK_MONOTONIC */, info.clock_id);
}

TEST_F(dev, get_info_rejects_short_size)
{
	struct etw_info info = { .size = ETW_INFO_SIZE_VER0 - 1 };

	EXPECT_EQ(-EINVAL, etw_ioctl(self->fd, ETW_IOC_GET_INFO, &info));
}

TEST_F(dev, get_info_accepts_zeroed_larger_struct)
{
	struct {
		struct etw_info info;
		__u64 future[4];
	} big = { .info.size = sizeof(big) };

	ASSERT_EQ(0, etw_ioctl(self->fd, ETW_IOC_GET_INFO, &big));
	EXPECT_EQ(sizeof(struct etw_info), big.info.size);
}

TEST_F(dev, get_info_rejects_nonzero_unknown_tail)
{
	struct {
		struct etw_info info;
		__u64 future;
	} big = { .info.size = sizeof(big), .future = 1 };

	EXPECT_EQ(-E2BIG, etw_ioctl(self->fd, ETW_IOC_GET_INFO, &big));
}

TEST_F(dev, get_info_rejects_bad_pointers)
{
	EXPECT_EQ(-EFAULT, etw_ioctl(self->fd, ETW_IOC_GET_INFO, NULL));
	EXPECT_EQ(-EFAULT, etw_ioctl(self->fd, ETW_IOC_GET_INFO,
				     (void *)0xffffffffff600000UL));
}

TEST(rmmod_refused_while_a_file_is_open)
{
	int fd = etw_open();

	ASSERT_LE(0, fd);
	EXPECT_EQ(-EWOULDBLOCK, try_unload());
	close(fd);
}

TEST(rmmod_refused_while_a_session_exists)
{
	struct etw_session_args a;
	int fd = etw_open();

	ASSERT_LE(0, fd);
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	snprintf(a.name, sizeof(a.name), "dev-test-pin");
	a.config.mode = ETW_MODE_BUFFERING;
	ASSERT_EQ(0, etw_ioctl(fd, ETW_IOC_START, &a));
	close(fd);
	/* The session outlives the file, and pins the module. */
	EXPECT_EQ(-EWOULDBLOCK, try_unload());
	fd = etw_open();
	ASSERT_LE(0, fd);
	EXPECT_EQ(0, etw_ioctl(fd, ETW_IOC_STOP, &a));
	close(fd);
}

TEST_HARNESS_MAIN
