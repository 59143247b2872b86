// SPDX-License-Identifier: GPL-2.0
/*
 * ETW_IOC_START's limits through the raw ABI, as Documentation/abi.rst
 * states them, each checked in START's result and again with QUERY:
 *
 * - buffer_kb: 0 becomes 64, below 4 is raised to 4, above 16384 EINVAL;
 * - max_buffers is lowered so that the session holds at most 256 MiB
 *   (32 MiB for a private session), and every buffer is allocated;
 * - a name of 1024 bytes is accepted, a longer one is ENAMETOOLONG.
 *
 * Sessions are private where the rule allows (they end with their file).
 */
#include "kselftest_harness.h"
#include "etw_raw.h"

#define MIB		(1024u * 1024u)
#define PRIVATE_CAP	(32u * MIB)	/* abi.rst: 32 MiB for a private one */
#define GLOBAL_CAP	(256u * MIB)	/* abi.rst: at most 256 MiB */

/* Start with @c as given; on success @out is what QUERY then reports. */
static int start_query(int fd, const char *tag, const struct etw_session_config *c,
		       struct etw_session_args *started,
		       struct etw_session_args *out)
{
	struct etw_session_args a;
	int ret;

	raw_session_init(&a, 0);
	snprintf(a.name, sizeof(a.name), "session-start-%s-%d", tag, getpid());
	a.config = *c;
	ret = etw_ioctl(fd, ETW_IOC_START, &a);
	if (ret)
		return ret;
	*started = a;
	return raw_session_op(fd, ETW_IOC_QUERY, a.logger_id, out);
}

/*
 * One row of the rule: the config passed, and the errno or the config the
 * session gets.  One buffer stream: the minimum is 2 buffers and the
 * default maximum 22.  Private sessions unless @mode says otherwise; the
 * rows about buffer_kb's upper limit are global, whose memory cap (256
 * MiB) two such buffers do not reach, so that only the limit can refuse.
 */
struct start_case {
	const char *what;
	__u32 buffer_kb;
	__u32 max_buffers;
	__u32 mode;		/* besides NO_PER_PROCESSOR; 0: PRIVATE */
	int err;
	__u32 want_kb;
	__u32 want_max;
};

#define PRIV	(ETW_MODE_PRIVATE | ETW_MODE_NO_PER_PROCESSOR)
#define GLOBAL	ETW_MODE_REAL_TIME

static const struct start_case start_cases[] = {
	{ "buffer_kb 0 is the default 64", 0, 0, 0, 0, 64, 22 },
	{ "buffer_kb 1 is raised to 4", 1, 0, 0, 0, 4, 22 },
	{ "buffer_kb 3 is raised to 4", 3, 0, 0, 0, 4, 22 },
	{ "buffer_kb 4 is kept", 4, 0, 0, 0, 4, 22 },
	{ "buffer_kb 5 is kept, not rounded", 5, 0, 0, 0, 5, 22 },
	/* 2 x 16 MiB: exactly the private cap. */
	{ "buffer_kb 16384 is kept", 16384, 0, 0, 0, 16384, 2 },
	{ "buffer_kb 16385 is EINVAL", 16385, 2, GLOBAL, -EINVAL, 0, 0 },
	{ "buffer_kb 2^32-1 is EINVAL", 0xffffffffu, 2, GLOBAL, -EINVAL, 0, 0 },
	{ "max_buffers 1 is raised to the minimum", 4, 1, 0, 0, 4, 2 },
	{ "max_buffers is kept under the cap", 1024, 32, 0, 0, 1024, 32 },
	{ "max_buffers is lowered to 32 MiB", 1024, 33, 0, 0, 1024, 32 },
	{ "max_buffers 1000 is lowered to 32 MiB", 1024, 1000, 0, 0, 1024, 32 },
	{ "default max_buffers is lowered to 32 MiB", 4096, 0, 0, 0, 4096, 8 },
	{ "buffering mode: max_buffers is the minimum", 4, 50,
	  ETW_MODE_PRIVATE | ETW_MODE_BUFFERING, 0, 4, 2 },
	{ "buffering with real time is EINVAL", 4, 0,
	  ETW_MODE_BUFFERING | ETW_MODE_REAL_TIME, -EINVAL, 0, 0 },
};

TEST(start_adjusts_buffer_kb_and_max_buffers)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(start_cases); i++) {
		const struct start_case *t = &start_cases[i];
		struct etw_session_config c = {
			.buffer_kb = t->buffer_kb, .max_buffers = t->max_buffers,
			.mode = ETW_MODE_NO_PER_PROCESSOR |
				(t->mode ? t->mode : ETW_MODE_PRIVATE),
		};
		struct etw_session_args a = { .logger_id = 0 }, q;
		int fd = etw_open();

		ASSERT_LE(0, fd);
		EXPECT_EQ(t->err, start_query(fd, "kb", &c, &a, &q)) {
			TH_LOG("%s", t->what);
		}
		if (!t->err) {
			EXPECT_EQ(t->want_kb, a.config.buffer_kb) {
				TH_LOG("%s: START", t->what);
			}
			EXPECT_EQ(t->want_max, a.config.max_buffers) {
				TH_LOG("%s: START", t->what);
			}
			EXPECT_EQ(0, memcmp(&a.config, &q.config,
					    sizeof(a.config))) {
				TH_LOG("%s: QUERY differs from START", t->what);
			}
			EXPECT_EQ(2, q.config.min_buffers) {
				TH_LOG("%s", t->what);
			}
			/* Every buffer is allocated at start. */
			EXPECT_EQ(t->want_max, q.stats.buffers) {
				TH_LOG("%s", t->what);
			}
			EXPECT_GE(PRIVATE_CAP, (unsigned long long)
				  q.config.buffer_kb * 1024 * q.stats.buffers) {
				TH_LOG("%s", t->what);
			}
		}
		/* A global session that should not exist: stop it. */
		if (!t->err || a.logger_id)
			raw_session_op(fd, ETW_IOC_STOP, a.logger_id, NULL);
		close(fd);	/* stops a private session */
	}
}

/* A global session: 16 MiB buffers, at most 16 of them (256 MiB). */
TEST(global_max_buffers_is_lowered_to_256_mib)
{
	struct etw_session_config c = {
		.buffer_kb = 16384, .max_buffers = 1000,
		.mode = ETW_MODE_REAL_TIME | ETW_MODE_NO_PER_PROCESSOR,
	};
	struct etw_session_args a, q;
	int fd = etw_open();

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, start_query(fd, "global-cap", &c, &a, &q));
	EXPECT_EQ(16384, q.config.buffer_kb);
	EXPECT_EQ(GLOBAL_CAP / (16 * MIB), q.config.max_buffers);
	EXPECT_EQ(GLOBAL_CAP / (16 * MIB), q.stats.buffers);
	EXPECT_EQ(0, raw_session_op(fd, ETW_IOC_STOP, a.logger_id, NULL));
	close(fd);
}

/* --- the name ------------------------------------------------------------- */

/*
 * START a private session whose name is @len bytes (@len 1025: the whole
 * field, no NUL): this process's id in hex, then 'n's.
 */
static int start_named(int fd, size_t len, __u32 *id)
{
	struct etw_session_args a;
	char pid[9];
	int ret;

	raw_session_init(&a, 0);
	memset(a.name, 'n', len);
	snprintf(pid, sizeof(pid), "%08x", (unsigned int)getpid());
	memcpy(a.name, pid, 8);
	a.config.mode = PRIV;
	a.config.buffer_kb = 4;
	ret = etw_ioctl(fd, ETW_IOC_START, &a);
	if (!ret)
		*id = a.logger_id;
	return ret;
}

TEST(name_of_1024_bytes_is_accepted)
{
	struct etw_session_args q;
	int fd = etw_open();
	__u32 id;

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, start_named(fd, ETW_MAX_NAME_LEN, &id));
	ASSERT_EQ(0, raw_session_op(fd, ETW_IOC_QUERY, id, &q));
	EXPECT_EQ(ETW_MAX_NAME_LEN, strnlen(q.name, sizeof(q.name)));
	close(fd);
}

TEST(name_of_1025_bytes_is_enametoolong)
{
	int fd = etw_open();
	__u32 id;

	ASSERT_LE(0, fd);
	EXPECT_EQ(-ENAMETOOLONG, start_named(fd, ETW_MAX_NAME_LEN + 1, &id));
	close(fd);
}

TEST_HARNESS_MAIN
