// SPDX-License-Identifier: GPL-2.0
/*
 * What another process, another program image or an unprivileged caller
 * must not be able to do with a thread's staging ring
 * (Documentation/abi.rst, "Who may do what" and "Batched writes"): map
 * it, drain it, stage in it once its image is gone, or have it drained
 * by a flush it may not make.  The attacker is the VM's user "etw" (uid
 * 1000) where it need not be root.
 */
#include <grp.h>
#include <poll.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include "kselftest_harness.h"
#include "etw_raw.h"
#include "etw_ring.h"

#define USER_UID	1000	/* the VM's user "etw" */
#define FAMILY		0xba5ec000
#define BUF_KB		16
#define EXEC_ENV	"ETW_BATCH_SECURITY_EXEC"
#define TAG_BEFORE	1	/* staged by the ring's own image */
#define TAG_INJECTED	2	/* staged by anyone else */

/* Become uid/gid 1000; dumpable again, so that /proc/self stays ours. */
static int drop_to_user(void)
{
	if (setgroups(0, NULL) || setresgid(USER_UID, USER_UID, USER_UID) ||
	    setresuid(USER_UID, USER_UID, USER_UID))
		return -1;
	return prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
}

/* A global session enabling one provider, registered with a ring. */
struct rig {
	int fd;
	int cfd;
	__u32 id;
	__u32 reg;
	struct etw_guid guid;
	struct ring r;
	struct raw_seen seen;
};

static int rig_open(struct rig *g, const char *name, __u16 n)
{
	memset(g, 0, sizeof(*g));
	g->fd = etw_open();
	g->guid = raw_guid(FAMILY, n);
	g->seen.guid = g->guid;
	if (g->fd < 0 || raw_start(g->fd, name, 0, BUF_KB, 0, &g->id))
		return -1;
	g->cfd = raw_consumer(g->fd, g->id);
	if (g->cfd < 0 || raw_register(g->fd, &g->guid, 0, 0, &g->reg, NULL) ||
	    raw_enable(g->fd, g->id, &g->guid, 0, 0, 0))
		return -1;
	return ring_open(g->fd, 0, &g->r);
}

static void rig_close(struct rig *g)
{
	ring_close(&g->r);
	close(g->cfd);
	raw_session_op(g->fd, ETW_IOC_STOP, g->id, NULL);
	close(g->fd);
}

/* The session's events of the provider, as tags; -1 on error. */
static long rig_seen(struct rig *g)
{
	if (raw_flush_seen(g->fd, g->id, g->cfd, BUF_KB * 1024, &g->seen))
		return -1;
	return g->seen.n;
}

/* Stage TAG_INJECTED into a ring mapped at @m (@ctl_size, @size). */
static void inject(void *m, __u32 ctl_size, __u32 size, __u32 reg)
{
	struct ring r = { .ctl = m, .data = (char *)m + ctl_size,
			  .size = size, .ctl_size = ctl_size };

	stage_ev(&r, reg, TAG_INJECTED, raw_now_ns(), TAG_INJECTED);
}

/* --- mapping and draining another's ring --------------------------------- */

TEST(forked_user_cannot_map_the_ring)
{
	struct rig g;
	pid_t pid;

	ASSERT_EQ(0, rig_open(&g, "bsec-map", 0));
	stage_ev(&g.r, g.reg, TAG_BEFORE, raw_now_ns(), TAG_BEFORE);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		size_t len = g.r.ctl_size + g.r.size;
		void *m;

		if (drop_to_user())
			_exit(10);
		m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED,
			 g.r.rfd, 0);
		if (m != MAP_FAILED) {
			/* What the review did: read and stage. */
			inject(m, g.r.ctl_size, g.r.size, g.reg);
			_exit(11);
		}
		_exit(errno == EPERM ? 0 : 12);
	}
	EXPECT_EQ(0, etw_wait_child(pid));
	ASSERT_EQ(0, ring_drain(&g.r));
	EXPECT_EQ(1, rig_seen(&g));
	EXPECT_EQ(1ull << TAG_BEFORE, g.seen.tags);
	rig_close(&g);
}

TEST(madv_dofork_is_einval_and_the_child_has_no_mapping)
{
	struct rig g;
	pid_t pid;
	int ret;

	ASSERT_EQ(0, rig_open(&g, "bsec-dofork", 0));
	ret = madvise(g.r.ctl, g.r.ctl_size + g.r.size, MADV_DOFORK);
	if (ret && errno == ENOSYS) {
		rig_close(&g);
		SKIP(return, "no madvise() (CONFIG_ADVISE_SYSCALLS)");
	}
	EXPECT_EQ(-1, ret);
	EXPECT_EQ(EINVAL, errno);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		unsigned char vec;

		if (mincore(g.r.ctl, getpagesize(), &vec) != -1)
			_exit(1);
		_exit(errno == ENOMEM ? 0 : 2);
	}
	EXPECT_EQ(0, etw_wait_child(pid));
	rig_close(&g);
}

/* What makes MADV_DOFORK fail (VM_IO) keeps the pages from being pinned. */
TEST(ring_pages_cannot_be_read_through_proc_mem)
{
	int mfd = open("/proc/self/mem", O_RDONLY | O_CLOEXEC);
	struct rig g;
	__u64 head;

	ASSERT_LE(0, mfd);
	ASSERT_EQ(0, rig_open(&g, "bsec-mem", 0));
	EXPECT_EQ(-1, pread(mfd, &head, sizeof(head), (uintptr_t)&g.r.ctl->head));
	EXPECT_EQ(EIO, errno);
	rig_close(&g);
	close(mfd);
}

/*
 * The exec'd program: "map FD LEN": map and drain the ring it inherited
 * (exit 0 when both are EPERM); "wait READY HOLD": say it runs, then wait
 * for HOLD's end of file.
 */
__attribute__((constructor)) static void exec_main(void)
{
	const char *v = getenv(EXEC_ENV);
	int a, b, ret = 0;
	char c;

	if (!v)
		return;
	if (sscanf(v, "map %d %d", &a, &b) == 2) {
		if (mmap(NULL, b, PROT_READ | PROT_WRITE, MAP_SHARED, a, 0) !=
		    MAP_FAILED || errno != EPERM)
			ret |= 1;
		if (ioctl(a, ETW_IOC_BATCH_DRAIN) != -1 || errno != EPERM)
			ret |= 2;
		_exit(ret);
	}
	if (sscanf(v, "wait %d %d", &a, &b) != 2)
		_exit(100);
	raw_post_byte(a);
	while (read(b, &c, 1) > 0)
		;
	_exit(0);
}

TEST(new_image_cannot_map_or_drain_the_old_ring)
{
	struct rig g;
	pid_t pid;

	ASSERT_EQ(0, rig_open(&g, "bsec-exec-map", 0));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		char env[64];

		/* The ring's descriptor survives the exec. */
		if (fcntl(g.r.rfd, F_SETFD, 0))
			_exit(101);
		snprintf(env, sizeof(env), "map %d %u", g.r.rfd,
			 g.r.ctl_size + g.r.size);
		setenv(EXEC_ENV, env, 1);
		execl("/proc/self/exe", "batch_security_test", NULL);
		_exit(102);
	}
	EXPECT_EQ(0, etw_wait_child(pid));
	rig_close(&g);
}

/* --- exec ends the rings, whoever holds the files ------------------------ */

struct helper_arg {
	struct rig *g;
	int go;		/* read: the owner has exec'd */
	int done;	/* write: the helper staged */
	int hold;	/* read: end of file when the test is done */
};

/*
 * A process sharing the owner's memory (CLONE_VM), so that it keeps the
 * ring's mapping when the owner execs, and a copy of its files: it stages
 * as uid 1000 once the owner's image is gone.
 */
static int helper_main(void *p)
{
	struct helper_arg *h = p;
	char c;

	if (syscall(SYS_setgroups, 0, NULL) ||
	    syscall(SYS_setresgid, USER_UID, USER_UID, USER_UID) ||
	    syscall(SYS_setresuid, USER_UID, USER_UID, USER_UID))
		syscall(SYS_exit, 1);
	if (read(h->go, &c, 1) != 1)
		syscall(SYS_exit, 2);
	inject(h->g->r.ctl, h->g->r.ctl_size, h->g->r.size, h->g->reg);
	if (write(h->done, &c, 1) != 1)
		syscall(SYS_exit, 3);
	while (read(h->hold, &c, 1) > 0)
		;
	syscall(SYS_exit, 0);
	return 0;
}

TEST(exec_ends_the_ring_whoever_holds_the_file)
{
	int go[2], done[2], ready[2], hold[2];
	struct rig test;
	pid_t pid;

	/* The test's own session sees the owner's provider. */
	memset(&test, 0, sizeof(test));
	test.fd = etw_open();
	ASSERT_LE(0, test.fd);
	test.guid = raw_guid(FAMILY, 1);
	test.seen.guid = test.guid;
	ASSERT_EQ(0, raw_start(test.fd, "bsec-exec", 0, BUF_KB, 0, &test.id));
	test.cfd = raw_consumer(test.fd, test.id);
	ASSERT_LE(0, test.cfd);
	ASSERT_EQ(0, raw_enable(test.fd, test.id, &test.guid, 0, 0, 0));
	ASSERT_EQ(0, pipe2(go, O_CLOEXEC));
	ASSERT_EQ(0, pipe2(done, O_CLOEXEC));
	ASSERT_EQ(0, pipe2(ready, O_CLOEXEC));
	ASSERT_EQ(0, pipe2(hold, O_CLOEXEC));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		static char stack[64 * 1024] __attribute__((aligned(16)));
		static struct helper_arg h;
		struct rig g = test;
		char env[64];

		/* The helper gets a copy of these files: only its ends. */
		close(go[1]);
		close(done[0]);
		close(ready[0]);
		close(hold[1]);
		/* As libetw does: every file O_CLOEXEC. */
		g.fd = etw_open();
		if (g.fd < 0 ||
		    raw_register(g.fd, &g.guid, 0, 0, &g.reg, NULL) ||
		    ring_open(g.fd, 0, &g.r))
			_exit(101);
		h = (struct helper_arg){ &g, go[0], done[1], hold[0] };
		if (clone(helper_main, stack + sizeof(stack),
			  CLONE_VM | SIGCHLD, &h) < 0)
			_exit(102);
		stage_ev(&g.r, g.reg, TAG_BEFORE, raw_now_ns(), TAG_BEFORE);
		/* Only the new image's pipes survive. */
		if (fcntl(ready[1], F_SETFD, 0) || fcntl(hold[0], F_SETFD, 0))
			_exit(103);
		snprintf(env, sizeof(env), "wait %d %d", ready[1], hold[0]);
		setenv(EXEC_ENV, env, 1);
		execl("/proc/self/exe", "batch_security_test", NULL);
		_exit(104);
	}
	close(go[0]);
	close(done[1]);
	close(ready[1]);
	close(hold[0]);
	ASSERT_TRUE(raw_wait_byte(ready[0]));
	/* The owner runs its new image; the helper stages now. */
	raw_post_byte(go[1]);
	ASSERT_TRUE(raw_wait_byte(done[0]));
	/* A global flush drains every ring there is. */
	EXPECT_EQ(1, rig_seen(&test));
	EXPECT_EQ(1ull << TAG_BEFORE, test.seen.tags);
	close(hold[1]);
	EXPECT_EQ(0, etw_wait_child(pid));
	close(go[1]);
	close(done[0]);
	close(ready[0]);
	close(test.cfd);
	raw_session_op(test.fd, ETW_IOC_STOP, test.id, NULL);
	close(test.fd);
}

/* --- drains for flushes the caller may not make -------------------------- */

/* In a child as uid 1000: @cmd on @g's global session; 0 when EPERM. */
static int user_session_op(struct rig *g, unsigned long cmd)
{
	pid_t pid = fork();

	if (!pid) {
		int fd;

		if (drop_to_user())
			_exit(10);
		fd = etw_open();
		if (fd < 0)
			_exit(11);
		_exit(raw_session_op(fd, cmd, g->id, NULL) == -EPERM ? 0 : 12);
	}
	return pid < 0 ? -1 : etw_wait_child(pid);
}

/* The test's own ring keeps what it staged: nobody drained it. */
static void expect_undrained_then_routed(struct __test_metadata *_metadata,
					 struct rig *g)
{
	EXPECT_EQ(RAW_ALIGN8(sizeof(struct etw_staged_event) +
			     sizeof(struct raw_payload)), g->r.ctl->head);
	EXPECT_EQ(0, g->r.ctl->tail);
	ASSERT_EQ(0, ring_drain(&g->r));
	EXPECT_EQ(g->r.ctl->head, g->r.ctl->tail);
	EXPECT_EQ(1, rig_seen(g));
}

TEST(unprivileged_flush_of_a_global_session_drains_nothing)
{
	struct rig g;

	ASSERT_EQ(0, rig_open(&g, "bsec-flush", 0));
	stage_ev(&g.r, g.reg, TAG_BEFORE, raw_now_ns(), TAG_BEFORE);
	EXPECT_EQ(0, user_session_op(&g, ETW_IOC_FLUSH));
	expect_undrained_then_routed(_metadata, &g);
	rig_close(&g);
}

TEST(unprivileged_stop_of_a_global_session_drains_nothing)
{
	struct rig g;

	ASSERT_EQ(0, rig_open(&g, "bsec-stop", 0));
	stage_ev(&g.r, g.reg, TAG_BEFORE, raw_now_ns(), TAG_BEFORE);
	EXPECT_EQ(0, user_session_op(&g, ETW_IOC_STOP));
	expect_undrained_then_routed(_metadata, &g);
	rig_close(&g);
}

/*
 * As uid 1000: a private session with an event of its own, flushed by
 * FLUSH (@timer false) or by a 100 ms flush timer, read back.  Exit 0
 * when its event arrived.
 */
static int user_private_flush(bool timer)
{
	pid_t pid = fork();

	if (!pid) {
		struct etw_guid pg = raw_guid(FAMILY + 1, 0);
		struct raw_seen seen = { .guid = pg };
		struct pollfd p = { .events = POLLIN };
		struct etw_session_args a;
		__u32 reg;
		int fd;

		if (drop_to_user())
			_exit(10);
		fd = etw_open();
		raw_session_init(&a, 0);
		snprintf(a.name, sizeof(a.name), "bsec-priv-%d", getpid());
		a.config.buffer_kb = 4;
		a.config.mode = ETW_MODE_PRIVATE | ETW_MODE_NO_PER_PROCESSOR;
		a.config.flush_timer_ms = timer ? 100 : 0;
		if (fd < 0 || etw_ioctl(fd, ETW_IOC_START, &a))
			_exit(11);
		p.fd = raw_consumer(fd, a.logger_id);
		if (p.fd < 0 || raw_register(fd, &pg, 0, 0, &reg, NULL) ||
		    raw_enable(fd, a.logger_id, &pg, 0, 0, 0) ||
		    raw_write(fd, reg, 1, 4, 0))
			_exit(12);
		if (!timer && raw_session_op(fd, ETW_IOC_FLUSH, a.logger_id,
					     NULL))
			_exit(13);
		/* The timer has run once the buffer is there. */
		if (poll(&p, 1, 20000) != 1 ||
		    raw_drain(p.fd, 4096, raw_seen_fn, &seen) != 1)
			_exit(14);
		_exit(0);
	}
	return pid < 0 ? -1 : etw_wait_child(pid);
}

TEST(private_flush_drains_only_its_own_process)
{
	struct rig g;

	ASSERT_EQ(0, rig_open(&g, "bsec-pflush", 0));
	stage_ev(&g.r, g.reg, TAG_BEFORE, raw_now_ns(), TAG_BEFORE);
	EXPECT_EQ(0, user_private_flush(false));
	expect_undrained_then_routed(_metadata, &g);
	rig_close(&g);
}

TEST(private_flush_timer_drains_only_its_own_process)
{
	struct rig g;

	ASSERT_EQ(0, rig_open(&g, "bsec-ptimer", 0));
	stage_ev(&g.r, g.reg, TAG_BEFORE, raw_now_ns(), TAG_BEFORE);
	EXPECT_EQ(0, user_private_flush(true));
	expect_undrained_then_routed(_metadata, &g);
	rig_close(&g);
}

/* A private session's flush timer, asked for and got, at START and UPDATE. */
static const struct {
	__u32 asked, got;
} timer_floor[] = {
	{ 1, 100 }, { 99, 100 }, { 100, 100 }, { 101, 101 }, { 5000, 5000 },
};

TEST(private_flush_timer_has_a_floor)
{
	struct etw_session_args a, q;
	unsigned int i;
	int fd = etw_open();

	ASSERT_LE(0, fd);
	for (i = 0; i < sizeof(timer_floor) / sizeof(timer_floor[0]); i++) {
		raw_session_init(&a, 0);
		snprintf(a.name, sizeof(a.name), "bsec-floor-%d", getpid());
		a.config.mode = ETW_MODE_PRIVATE;
		a.config.flush_timer_ms = timer_floor[i].asked;
		ASSERT_EQ(0, etw_ioctl(fd, ETW_IOC_START, &a));
		EXPECT_EQ(timer_floor[i].got, a.config.flush_timer_ms);
		raw_session_init(&q, a.logger_id);
		q.config.flush_timer_ms = timer_floor[i].asked;
		ASSERT_EQ(0, etw_ioctl(fd, ETW_IOC_UPDATE, &q));
		EXPECT_EQ(timer_floor[i].got, q.config.flush_timer_ms);
		ASSERT_EQ(0, raw_session_op(fd, ETW_IOC_STOP, a.logger_id,
					    NULL));
	}
	close(fd);
}

TEST_HARNESS_MAIN
