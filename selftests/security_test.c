// SPDX-License-Identifier: GPL-2.0
/*
 * What an unprivileged user, a container or a failed allocation must not
 * be able to do to etw.ko: each test reproduces one defect an outside
 * review found and checks the fixed behaviour.  Kernel reports (KASAN,
 * lockdep, warnings) fail the run through the console-log scan.
 */
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdbool.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <grp.h>

#include "kselftest_harness.h"
#include "etw_raw.h"
#include "etw_fail_nth.h"

#define CONTROL_GID	"/sys/module/etw/parameters/control_gid"
#define USER_UID	1000	/* the VM's user "etw" */
#define CONTROL_GROUP	1001	/* the VM's group "etwctl" */
#define EXEC_WRITER_ENV	"ETW_SECURITY_EXEC_WRITER"
#define TRAIT_GROUP	1

static int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, s, strlen(s));
	close(fd);
	return n == (ssize_t)strlen(s) ? 0 : -EIO;
}

/* Wait for @pid; its exit status, or -1 when it did not exit normally. */
static int wait_exit(pid_t pid)
{
	int status;

	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/* Become uid/gid 1000; dumpable again, so that /proc/self stays ours. */
static int drop_to_user(void)
{
	if (setgroups(0, NULL) || setresgid(USER_UID, USER_UID, USER_UID) ||
	    setresuid(USER_UID, USER_UID, USER_UID))
		return -1;
	return prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
}

/* --- passing a file descriptor between processes ------------------------ */

static int send_fd(int sock, int fd)
{
	char data = 0, cbuf[CMSG_SPACE(sizeof(int))] = { 0 };
	struct iovec iov = { .iov_base = &data, .iov_len = 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
			      .msg_control = cbuf,
			      .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *c = CMSG_FIRSTHDR(&msg);

	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	return sendmsg(sock, &msg, 0) == 1 ? 0 : -1;
}

static int recv_fd(int sock)
{
	char data, cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { .iov_base = &data, .iov_len = 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
			      .msg_control = cbuf,
			      .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *c;
	int fd;

	if (recvmsg(sock, &msg, 0) != 1)
		return -1;
	c = CMSG_FIRSTHDR(&msg);
	if (!c || c->cmsg_type != SCM_RIGHTS)
		return -1;
	memcpy(&fd, CMSG_DATA(c), sizeof(int));
	return fd;
}

/* --- the exec'd program of the execve test ------------------------------- */

/*
 * Runs instead of the tests when the environment says so: the program
 * image a process execs into.  It registers the GUID it is given on a
 * fresh /dev/etw file, as any program would, writes one event, posts a
 * byte and lives on until its hold pipe closes.
 */
__attribute__((constructor)) static void exec_writer(void)
{
	const char *v = getenv(EXEC_WRITER_ENV);
	int fd, ready, hold;
	struct etw_guid g;
	__u32 reg;

	if (!v)
		return;
	if (sscanf(v, "%x %d %d", &g.data1, &ready, &hold) != 3)
		_exit(2);
	g = raw_guid(g.data1, 0);
	/* raw_guid() mixes in getpid(): the same process, the same GUID. */
	fd = etw_open();
	if (fd < 0 || raw_register(fd, &g, 0, 0, &reg, NULL))
		_exit(3);
	if (raw_write(fd, reg, 1, 4, 0))
		_exit(4);
	raw_post_byte(ready);
	raw_wait_byte(hold);
	_exit(0);
}

/* Tests that run long under TCG get a fixture, for a longer timeout. */
FIXTURE(slow) {};
FIXTURE_SETUP(slow) {}
FIXTURE_TEARDOWN(slow) {}

/* --- 1. SET_DISALLOW racing STOP ----------------------------------------- */

struct disallow_race {
	int fd;
	volatile __u32 id;
	volatile bool stop;
	long bad;
};

static void *disallow_thread(void *arg)
{
	struct disallow_race *r = arg;
	struct etw_guid g = raw_guid(0x5ec1, 1);
	struct etw_disallow_args d = { .size = sizeof(d), .count = 1,
				       .guids_ptr = (uintptr_t)&g };

	while (!r->stop) {
		int ret;

		d.logger_id = r->id;
		ret = etw_ioctl(r->fd, ETW_IOC_SET_DISALLOW, &d);
		if (ret && ret != -ENOENT)
			r->bad++;
	}
	return NULL;
}

/*
 * A private session stops while another thread sets its disallow list: the
 * list must be freed once (KASAN reported a double free here).
 */
TEST_F_TIMEOUT(slow, disallow_races_stop, 300)
{
	struct disallow_race r = { .fd = etw_open() };
	pthread_t t;
	int i;

	ASSERT_LE(0, r.fd);
	ASSERT_EQ(0, pthread_create(&t, NULL, disallow_thread, &r));
	for (i = 0; i < 500; i++) {
		__u32 id;

		ASSERT_EQ(0, raw_start(r.fd, "race", ETW_MODE_PRIVATE, 4, 0, &id));
		r.id = id;
		ASSERT_EQ(0, raw_session_op(r.fd, ETW_IOC_STOP, id, NULL));
	}
	r.stop = true;
	pthread_join(t, NULL);
	EXPECT_EQ(0, r.bad);
	close(r.fd);
}

/* --- 2. control_gid and user namespaces ---------------------------------- */

/* In a child: start (and stop) a global session; its errno. */
static int try_global_start(void)
{
	int fd = etw_open(), ret;
	__u32 id;

	if (fd < 0)
		return 100;
	ret = raw_start(fd, "gid", ETW_MODE_REAL_TIME, 4, 0, &id);
	if (!ret)
		raw_session_op(fd, ETW_IOC_STOP, id, NULL);
	return -ret;
}

/*
 * uid 1000 as a member of the control group (a supplementary group), in
 * the initial user namespace or, with @userns, after entering a new one:
 * there it is still a member, but the group no longer counts.
 */
static int start_as_member(bool userns)
{
	gid_t g = CONTROL_GROUP;
	char map[64];
	pid_t pid = fork();

	if (!pid) {
		if (setgroups(1, &g) || setresgid(USER_UID, USER_UID, USER_UID) ||
		    setresuid(USER_UID, USER_UID, USER_UID) ||
		    prctl(PR_SET_DUMPABLE, 1, 0, 0, 0))
			_exit(101);
		if (userns) {
			snprintf(map, sizeof(map), "0 %d 1", USER_UID);
			if (unshare(CLONE_NEWUSER) ||
			    write_file("/proc/self/uid_map", map))
				_exit(102);
			if (getgroups(1, &g) != 1 || g == CONTROL_GROUP)
				_exit(103);	/* unmapped in there: overflow gid */
		}
		_exit(try_global_start());
	}
	return wait_exit(pid);
}

/* A user who maps the control group onto their own gid in a new userns. */
static int start_from_own_userns(void)
{
	char map[64];
	pid_t pid = fork();

	if (!pid) {
		if (drop_to_user() || unshare(CLONE_NEWUSER))
			_exit(101);
		snprintf(map, sizeof(map), "0 %d 1", USER_UID);
		if (write_file("/proc/self/uid_map", map) ||
		    write_file("/proc/self/setgroups", "deny"))
			_exit(102);
		snprintf(map, sizeof(map), "%d %d 1", CONTROL_GROUP, USER_UID);
		if (write_file("/proc/self/gid_map", map) ||
		    setresgid(CONTROL_GROUP, CONTROL_GROUP, CONTROL_GROUP))
			_exit(103);
		_exit(try_global_start());
	}
	return wait_exit(pid);
}

TEST(control_gid_not_from_user_namespace)
{
	char v[16];

	snprintf(v, sizeof(v), "%d", CONTROL_GROUP);
	ASSERT_EQ(0, write_file(CONTROL_GID, v));
	/* The group works for its real members... */
	EXPECT_EQ(0, start_as_member(false));
	/* ...not for the same members in a user namespace... */
	EXPECT_EQ(EPERM, start_as_member(true));
	/* ...and not for a gid mapped onto it from an owned namespace. */
	EXPECT_EQ(EPERM, start_from_own_userns());
	write_file(CONTROL_GID, "-1");
}

/* Private sessions need no privilege, also inside a user namespace. */
TEST(private_session_in_user_namespace)
{
	pid_t pid = fork();

	if (!pid) {
		char map[64];
		int fd;
		__u32 id;

		if (drop_to_user() || unshare(CLONE_NEWUSER))
			_exit(101);
		snprintf(map, sizeof(map), "0 %d 1", USER_UID);
		if (write_file("/proc/self/uid_map", map))
			_exit(102);
		fd = etw_open();
		if (fd < 0 || raw_start(fd, "userns", ETW_MODE_PRIVATE, 4, 0, &id))
			_exit(103);
		_exit(-raw_session_op(fd, ETW_IOC_STOP, id, NULL));
	}
	EXPECT_EQ(0, wait_exit(pid));
}

/* --- 4. private sessions end at execve ----------------------------------- */

/*
 * A child starts a private session on a file it keeps across exec and
 * hands the session's consumer to the test.  Then either it writes an
 * event itself and exits (@exec false: the positive control), or it execs
 * a program that registers the same GUID, writes, and lives on (@exec
 * true); with @fail_probe, the allocation of etw.ko's exec probe fails in
 * that execve (fail-nth, armed in the child; the caller limits faults to
 * the probe).  Returns how many of the GUID's events the consumer read,
 * or -1; *@ended_alive: the session ended while the exec'd program still
 * ran.
 */
static long events_seen_by_private_session(bool exec, bool fail_probe,
					   bool *ended_alive)
{
	struct raw_seen seen = { 0 };
	int sv[2], ready[2], hold[2], cfd;
	long n;
	pid_t pid;

	*ended_alive = false;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) ||
	    pipe(ready) || pipe(hold))
		return -1;
	pid = fork();
	if (!pid) {
		/* No O_CLOEXEC: the file and its session survive exec. */
		int fd = open(ETW_DEV, O_RDWR);
		struct etw_guid g = raw_guid(0xe8ec, 0);
		char env[64];
		__u32 id, reg;

		close(ready[0]);
		close(hold[1]);
		if (fd < 0 || raw_start(fd, "exec", ETW_MODE_PRIVATE, 4, 0, &id) ||
		    raw_enable(fd, id, &g, 0, 0, 0))
			_exit(101);
		cfd = raw_consumer(fd, id);
		if (cfd < 0 || send_fd(sv[1], cfd))
			_exit(102);
		close(cfd);
		if (!exec) {
			if (raw_register(fd, &g, 0, 0, &reg, NULL) ||
			    raw_write(fd, reg, 1, 4, 0))
				_exit(103);
			_exit(0);
		}
		snprintf(env, sizeof(env), "%x %d %d", g.data1, ready[1],
			 hold[0]);
		setenv(EXEC_WRITER_ENV, env, 1);
		if (fail_probe) {
			int nth = fail_nth_open();

			if (nth < 0 || fail_nth_set(nth, 1))
				_exit(105);
		}
		execl("/proc/self/exe", "security_test", NULL);
		_exit(104);
	}
	close(sv[1]);
	close(ready[1]);
	close(hold[0]);
	cfd = recv_fd(sv[0]);
	close(sv[0]);
	seen.guid = raw_guid(0xe8ec, 0);
	seen.guid.data2 = (__u16)pid;
	seen.guid.data4[7] = (__u8)(pid >> 16);
	if (exec && cfd >= 0 && raw_wait_byte(ready[0])) {
		/* The exec'd program wrote and still runs. */
		char buf[4096];

		/* Read what there is; then end of file, not EAGAIN. */
		n = raw_drain(cfd, sizeof(buf), raw_seen_fn, &seen);
		*ended_alive = n >= 0 && read(cfd, buf, sizeof(buf)) == 0;
	}
	close(hold[1]);
	close(ready[0]);
	if (wait_exit(pid) != 0 || cfd < 0)
		return -1;
	/* The child is gone: its session stopped; read to end of file. */
	n = raw_drain(cfd, 4096, raw_seen_fn, &seen);
	close(cfd);
	return n < 0 ? -1 : seen.n;
}

TEST(private_session_ends_at_exec)
{
	bool ended_alive;

	EXPECT_EQ(1, events_seen_by_private_session(false, false, &ended_alive));
	EXPECT_EQ(0, events_seen_by_private_session(true, false, &ended_alive));
	EXPECT_TRUE(ended_alive);
}

/*
 * When execve's clean-up cannot run (the exec probe's GFP_ATOMIC
 * allocation fails: the old image's objects stay until their file
 * closes), the old image's private session still reaches nothing of the
 * new image: a session and a registration match only within one image
 * (etw_enable_would_reach()'s owner_exec_id).
 */
TEST(old_image_session_reaches_nothing_when_exec_cleanup_fails)
{
	struct fail_nth_filter filter;
	bool ended_alive = true;
	int present;

	if (geteuid())
		SKIP(return, "fault injection needs root");
	present = fail_nth_filter_present();
	if (!present)
		SKIP(return, "no fault-injection stack filter before 6.3 on x86-64");
	ASSERT_EQ(1, present) TH_LOG("no fault-injection stack filter");
	ASSERT_EQ(0, fail_nth_setup(true));
	ASSERT_EQ(0, fail_nth_filter_set(&filter, "etw_exec_probe"));
	EXPECT_EQ(0, events_seen_by_private_session(true, true, &ended_alive));
	fail_nth_filter_restore(&filter);
	/* The probe's work did not run: the session outlived the exec. */
	EXPECT_FALSE(ended_alive);
}

/* Registrations of @guid by process @pid, as LIST_PROVIDERS shows them. */
static int registrations_of(const struct etw_guid *guid, pid_t pid)
{
	static struct etw_provider_info info[256];
	struct etw_list_providers_args a = {
		.size = sizeof(a), .count = 256, .info_ptr = (uintptr_t)info,
		.info_size = sizeof(info[0]),
	};
	int fd = etw_open(), n = 0, ret;
	__u32 i;

	if (fd < 0)
		return -1;
	ret = etw_ioctl(fd, ETW_IOC_LIST_PROVIDERS, &a);
	close(fd);
	if (ret)
		return -1;
	for (i = 0; i < a.count && i < 256; i++)
		n += raw_guid_eq(&info[i].guid, guid) &&
		     info[i].pid == (__u32)pid;
	return n;
}

#define EXEC_READY_FD	9	/* where the exec'd shell finds the pipe */

/*
 * A child registers @g on a file without O_CLOEXEC, posts the file's fd,
 * waits on @go, then execs a shell that posts again once it runs, on
 * EXEC_READY_FD, and sleeps with the file still open.
 */
static void register_and_exec(const struct etw_guid *g, int ready, int go)
{
	int fd = open(ETW_DEV, O_RDWR);
	__u32 reg;
	char c = (char)fd;

	if (fd < 0 || raw_register(fd, g, 0, 0, &reg, NULL) ||
	    dup2(ready, EXEC_READY_FD) != EXEC_READY_FD ||
	    write(ready, &c, 1) != 1 || read(go, &c, 1) != 1)
		_exit(101);
	execl("/bin/sh", "sh", "-c", "echo >&9; exec sleep 30", (char *)NULL);
	_exit(102);
}

/*
 * execve() ends the old image's registrations even when their file stays
 * open in the new program: once the new image runs, none is listed.
 */
TEST(registrations_end_at_exec_with_their_file_kept)
{
	struct etw_guid g = raw_guid(0xe8ed, 0);
	int ready[2], go[2];
	char c, path[64], link[64] = "";
	pid_t pid;

	ASSERT_EQ(0, pipe(ready));
	ASSERT_EQ(0, pipe(go));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		register_and_exec(&g, ready[1], go[0]);
	ASSERT_EQ(1, read(ready[0], &c, 1));
	EXPECT_EQ(1, registrations_of(&g, pid));
	ASSERT_EQ(1, write(go[1], "x", 1));
	ASSERT_EQ(1, read(ready[0], path, 1));	/* the shell runs */
	snprintf(path, sizeof(path), "/proc/%d/fd/%d", pid, c);
	EXPECT_LT(0, readlink(path, link, sizeof(link) - 1));
	EXPECT_STREQ(ETW_DEV, link);
	EXPECT_EQ(0, registrations_of(&g, pid));
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	close(ready[0]);
	close(ready[1]);
	close(go[0]);
	close(go[1]);
}

/* --- 6 and 7. unprivileged enables and global enables -------------------- */

struct global_fixture {
	int fd;
	int cfd;
	__u32 id;
	__u32 buf_bytes;
};

static int global_start(struct global_fixture *gs, const char *name)
{
	struct etw_session_args a;
	int ret;

	gs->fd = etw_open();
	if (gs->fd < 0)
		return -errno;
	ret = raw_start(gs->fd, name, ETW_MODE_REAL_TIME, 4, 0, &gs->id);
	if (ret)
		return ret;
	ret = raw_session_op(gs->fd, ETW_IOC_QUERY, gs->id, &a);
	gs->buf_bytes = a.config.buffer_kb * 1024;
	gs->cfd = raw_consumer(gs->fd, gs->id);
	return ret ?: (gs->cfd < 0 ? gs->cfd : 0);
}

static void global_stop(struct global_fixture *gs)
{
	raw_session_op(gs->fd, ETW_IOC_STOP, gs->id, NULL);
	close(gs->cfd);
	close(gs->fd);
}

/* Events of @g that one write by a fresh manifest registration delivers. */
static long global_receives(struct global_fixture *gs,
			    const struct etw_guid *g)
{
	struct raw_seen seen = { .guid = *g };
	int fd = etw_open();
	__u32 reg;
	long ret = -1;

	if (fd >= 0 && !raw_register(fd, g, 0, 0, &reg, NULL) &&
	    !raw_write(fd, reg, 1, 4, 0x1) &&
	    !raw_flush_seen(gs->fd, gs->id, gs->cfd, gs->buf_bytes, &seen))
		ret = seen.n;
	close(fd);
	return ret;
}

/*
 * As uid 1000: register @g classic, start a private session and enable
 * @g from it, then exit (ending both).
 */
static int unpriv_classic_enable(const struct etw_guid *g)
{
	pid_t pid = fork();

	if (!pid) {
		int fd;
		__u32 id, reg;

		if (drop_to_user())
			_exit(101);
		fd = etw_open();
		if (fd < 0 || raw_register(fd, g, ETW_REGISTER_CLASSIC, 0, &reg,
					   NULL))
			_exit(102);
		if (raw_start(fd, "classic", ETW_MODE_PRIVATE, 4, 0, &id))
			_exit(103);
		_exit(-raw_enable(fd, id, g, 0, 0x1, 0));
	}
	return wait_exit(pid);
}

TEST(classic_private_enable_keeps_global_enable)
{
	struct global_fixture gs;
	struct etw_guid g = raw_guid(0xc1a5, 0);

	ASSERT_EQ(0, global_start(&gs, "classic-global"));
	ASSERT_EQ(0, raw_enable(gs.fd, gs.id, &g, 0, 0x1, 0));
	ASSERT_EQ(1, global_receives(&gs, &g));
	EXPECT_EQ(0, unpriv_classic_enable(&g));
	EXPECT_EQ(1, global_receives(&gs, &g));
	global_stop(&gs);
}

/*
 * As uid 1000: register @g classic and, with @private, enable it from a
 * private session (level 5, MatchAny 0xffffffff); post on @ready[1], then
 * hold both until @hold[1] is closed.
 */
static pid_t unpriv_classic_hold(const struct etw_guid *g, bool private,
				 const int *ready, const int *hold)
{
	pid_t pid = fork();

	if (!pid) {
		int fd;
		__u32 id, reg;

		close(ready[0]);
		close(hold[1]);
		if (drop_to_user())
			_exit(101);
		fd = etw_open();
		if (fd < 0 || raw_register(fd, g, ETW_REGISTER_CLASSIC, 0, &reg,
					   NULL))
			_exit(102);
		if (private &&
		    (raw_start(fd, "classic-hold", ETW_MODE_PRIVATE, 4, 0, &id) ||
		     raw_enable(fd, id, g, 5, 0xffffffff, 0)))
			_exit(103);
		raw_post_byte(ready[1]);
		raw_wait_byte(hold[0]);
		_exit(0);
	}
	return pid;
}

/* Events of one write (level 4, keyword 0x1) of @reg that @gs receives. */
static long global_receives_write(struct global_fixture *gs, int fd,
				  __u32 reg, const struct etw_guid *g)
{
	struct raw_seen seen = { .guid = *g };

	if (raw_write(fd, reg, 1, 4, 0x1) ||
	    raw_flush_seen(gs->fd, gs->id, gs->cfd, gs->buf_bytes, &seen))
		return -1;
	return seen.n;
}

FIXTURE(classic_other_user) {};
FIXTURE_VARIANT(classic_other_user) { bool private; };
FIXTURE_VARIANT_ADD(classic_other_user, registers) { .private = false };
FIXTURE_VARIANT_ADD(classic_other_user, registers_and_enables) {
	.private = true,
};
FIXTURE_SETUP(classic_other_user) {}
FIXTURE_TEARDOWN(classic_other_user) {}

/*
 * Root's global session enables G at level 0, MatchAny 0 ("everything")
 * and receives a keyword-0x1 event of root's manifest registration; uid
 * 1000 registering G classic must not change that.
 */
TEST_F(classic_other_user, keeps_global_keyword_rules)
{
	struct etw_guid g = raw_guid(0xc1a6, variant->private);
	struct global_fixture gs;
	int fd = etw_open(), ready[2], hold[2];
	__u32 reg;
	pid_t pid;

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, pipe(ready));
	ASSERT_EQ(0, pipe(hold));
	ASSERT_EQ(0, global_start(&gs, "classic-rules"));
	ASSERT_EQ(0, raw_enable(gs.fd, gs.id, &g, 0, 0, 0));
	ASSERT_EQ(0, raw_register(fd, &g, 0, 0, &reg, NULL));
	ASSERT_EQ(1, global_receives_write(&gs, fd, reg, &g));
	pid = unpriv_classic_hold(&g, variant->private, ready, hold);
	close(ready[1]);
	close(hold[0]);
	ASSERT_TRUE(raw_wait_byte(ready[0]));
	EXPECT_EQ(1, global_receives_write(&gs, fd, reg, &g));
	close(hold[1]);
	EXPECT_EQ(0, wait_exit(pid));
	close(ready[0]);
	global_stop(&gs);
	close(fd);
}

/*
 * In a child: four private sessions enabling @g; posts on @ready[1], then
 * holds them until @hold[1] is closed.
 */
static pid_t four_private_enables(const struct etw_guid *g, const int *ready,
				  const int *hold)
{
	pid_t pid = fork();

	if (!pid) {
		int fd = etw_open(), i;
		__u32 id;

		close(ready[0]);
		close(hold[1]);
		for (i = 0; i < ETW_MAX_PRIVATE_SESSIONS; i++) {
			char name[16];

			snprintf(name, sizeof(name), "slot%d", i);
			if (fd < 0 || raw_start(fd, name, ETW_MODE_PRIVATE, 4, 0,
						&id) ||
			    raw_enable(fd, id, g, 0, 0, 0))
				_exit(101);
		}
		raw_post_byte(ready[1]);
		raw_wait_byte(hold[0]);
		_exit(0);
	}
	return pid;
}

TEST(private_enables_leave_global_slots)
{
	struct etw_guid g = raw_guid(0x5107, 0);
	int ready[2], hold[2], fd = etw_open(), i;
	__u32 ids[ETW_MAX_SESSIONS_PER_PROVIDER];
	pid_t kids[2];

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, pipe(ready));
	ASSERT_EQ(0, pipe(hold));
	for (i = 0; i < 2; i++)
		kids[i] = four_private_enables(&g, ready, hold);
	for (i = 0; i < 2; i++)
		ASSERT_TRUE(raw_wait_byte(ready[0]));
	for (i = 0; i < ETW_MAX_SESSIONS_PER_PROVIDER; i++) {
		char name[16];

		snprintf(name, sizeof(name), "slots%d", i);
		ASSERT_EQ(0, raw_start(fd, name, ETW_MODE_REAL_TIME, 4, 0,
				       &ids[i]));
		EXPECT_EQ(0, raw_enable(fd, ids[i], &g, 0, 0, 0));
	}
	close(hold[1]);
	for (i = 0; i < 2; i++)
		EXPECT_EQ(0, wait_exit(kids[i]));
	for (i = 0; i < ETW_MAX_SESSIONS_PER_PROVIDER; i++)
		raw_session_op(fd, ETW_IOC_STOP, ids[i], NULL);
	close(fd);
}

TEST_F_TIMEOUT(slow, private_session_enable_limit, 300)
{
	int fd = etw_open();
	__u32 id, i;

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, raw_start(fd, "many", ETW_MODE_PRIVATE, 4, 0, &id));
	for (i = 0; i < 1024; i++) {
		struct etw_guid g = raw_guid(0x3a11, (__u16)i);

		ASSERT_EQ(0, raw_enable(fd, id, &g, 0, 0, 0));
	}
	{
		struct etw_guid g = raw_guid(0x3a11, 1024);

		EXPECT_EQ(-EDQUOT, raw_enable(fd, id, &g, 0, 0, 0));
	}
	close(fd);
}

/* --- 8. notifications reach only what an enable reaches ------------------ */

static int notifications_waiting(int fd)
{
	struct etw_notification n[4];
	ssize_t r;
	int count = 0;

	while ((r = read(fd, n, sizeof(n))) > 0) {
		const char *p = (const char *)n;

		while (p < (const char *)n + r) {
			count++;
			p += ((const struct etw_notification *)p)->size;
		}
	}
	return count;
}

TEST(private_enable_notifies_only_its_process)
{
	struct etw_guid g = raw_guid(0x7e11, 0);
	int fd = open(ETW_DEV, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	int ready[2], go[2], result[2];
	__u32 id, reg;
	pid_t pid;

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, pipe(ready));
	ASSERT_EQ(0, pipe(go));
	ASSERT_EQ(0, pipe(result));
	pid = fork();
	if (!pid) {
		int cfd = open(ETW_DEV, O_RDWR | O_NONBLOCK | O_CLOEXEC);
		char n;
		__u32 creg;

		if (cfd < 0 || raw_register(cfd, &g, 0, 0, &creg, NULL))
			_exit(101);
		raw_post_byte(ready[1]);
		raw_wait_byte(go[0]);
		n = (char)notifications_waiting(cfd);
		_exit(write(result[1], &n, 1) == 1 ? 0 : 102);
	}
	ASSERT_TRUE(raw_wait_byte(ready[0]));
	ASSERT_EQ(0, raw_register(fd, &g, 0, 0, &reg, NULL));
	ASSERT_EQ(0, raw_start(fd, "notify", ETW_MODE_PRIVATE, 4, 0, &id));
	ASSERT_EQ(0, raw_enable(fd, id, &g, 4, 0x3, 0));
	/* The enabling process's registration is told... */
	EXPECT_EQ(1, notifications_waiting(fd));
	/* ...an identical enable again changes nothing and says nothing... */
	ASSERT_EQ(0, raw_enable(fd, id, &g, 4, 0x3, 0));
	EXPECT_EQ(0, notifications_waiting(fd));
	/* ...a capture-state request reaches it... */
	ASSERT_EQ(0, raw_control(fd, id, &g, ETW_CONTROL_CAPTURE_STATE, 0));
	EXPECT_EQ(1, notifications_waiting(fd));
	raw_post_byte(go[1]);
	/* ...and another process's registration of the GUID hears nothing. */
	{
		char n = -1;

		EXPECT_EQ(1, read(result[0], &n, 1));
		EXPECT_EQ(0, n);
	}
	EXPECT_EQ(0, wait_exit(pid));
	close(fd);
}

/* A full queue keeps each registration's newest state. */
TEST_F_TIMEOUT(slow, full_notification_queue_keeps_newest_state, 300)
{
	struct global_fixture gs;
	struct etw_guid g = raw_guid(0xf011, 0);
	int fd = open(ETW_DEV, O_RDWR | O_NONBLOCK | O_CLOEXEC), i;
	struct etw_notification n, last = { 0 };
	int count = 0;
	__u32 reg;

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, global_start(&gs, "full-queue"));
	ASSERT_EQ(0, raw_register(fd, &g, 0, 0, &reg, NULL));
	/* 5002 state changes, none read: more than the queue holds. */
	for (i = 0; i < 5002; i++)
		ASSERT_EQ(0, raw_enable(gs.fd, gs.id, &g, 1 + i % 5, 0, 0));
	while (read(fd, &n, sizeof(n)) == sizeof(n)) {
		last = n;
		count++;
	}
	EXPECT_EQ(4096, count);
	EXPECT_EQ(ETW_CONTROL_ENABLE, last.control_code);
	EXPECT_EQ(1 + 5001 % 5, last.level);
	global_stop(&gs);
	close(fd);
}

/* --- a faulted notification read racing UNREGISTER ---------------------- */

#define HAMMER_BYTES	(64 << 20)

struct faulting_reader {
	int fd;
	void *bad;		/* PROT_NONE: every copy to it faults */
	pid_t tid;
	sem_t go;
	sem_t done;
	bool stop;
	ssize_t ret;
	int err;
};

static void *faulting_reader_thread(void *arg)
{
	struct faulting_reader *r = arg;

	r->tid = syscall(SYS_gettid);
	sem_post(&r->done);
	for (;;) {
		sem_wait(&r->go);
		if (__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE))
			return NULL;
		r->ret = read(r->fd, r->bad, 4096);
		r->err = errno;
		sem_post(&r->done);
	}
}

struct mmap_hammer {
	void *p;
	bool stop;
};

/*
 * mprotect() of a large populated mapping holds the mmap lock for writing
 * a while, over and over: a fault in a copy to user memory waits for it.
 */
static void *mmap_hammer_thread(void *arg)
{
	struct mmap_hammer *h = arg;
	unsigned int i = 0;

	while (!__atomic_load_n(&h->stop, __ATOMIC_ACQUIRE))
		mprotect(h->p, HAMMER_BYTES,
			 i++ & 1 ? PROT_READ : PROT_READ | PROT_WRITE);
	return NULL;
}

/* The state letter (R, S, D, ...) of this process's thread @tid, or 0. */
static char thread_state(pid_t tid)
{
	char path[64], buf[512], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : 0;
}

/* Wait for the RCU callbacks of what was unregistered (in all likelihood). */
static void private_session_churn(int fd)
{
	__u32 id;
	int i;

	/* STOP waits for an RCU grace period. */
	for (i = 0; i < 2; i++)
		if (!raw_start(fd, "churn", ETW_MODE_PRIVATE, 4, 0, &id))
			raw_session_op(fd, ETW_IOC_STOP, id, NULL);
}

/*
 * As uid 1000: a read() of a notification into memory that faults while
 * the mmap lock is held elsewhere, and UNREGISTER of its registration
 * meanwhile.  The notification must go with the registration, not come
 * back pointing at it; when the read faulted and nothing unregistered, it
 * is put back whole.
 */
TEST_F_TIMEOUT(slow, faulted_notification_read_races_unregister, 300)
{
	struct etw_guid g = raw_guid(0xfa17, 0);
	struct faulting_reader r = { 0 };
	struct mmap_hammer h = { 0 };
	struct etw_notification n;
	unsigned int i, raced = 0;
	pthread_t rt, ht;
	__u32 id, reg;
	ssize_t got;

	ASSERT_EQ(0, drop_to_user());
	r.fd = open(ETW_DEV, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	ASSERT_LE(0, r.fd);
	ASSERT_EQ(0, raw_start(r.fd, "fault-read", ETW_MODE_PRIVATE, 4, 0, &id));
	ASSERT_EQ(0, raw_enable(r.fd, id, &g, 4, 0x5, 0));
	r.bad = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	h.p = mmap(NULL, HAMMER_BYTES, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	ASSERT_NE(MAP_FAILED, r.bad);
	ASSERT_NE(MAP_FAILED, h.p);
	ASSERT_EQ(0, sem_init(&r.go, 0, 0));
	ASSERT_EQ(0, sem_init(&r.done, 0, 0));
	ASSERT_EQ(0, pthread_create(&rt, NULL, faulting_reader_thread, &r));
	sem_wait(&r.done);
	ASSERT_EQ(0, pthread_create(&ht, NULL, mmap_hammer_thread, &h));
	for (i = 0; i < 3000 && raced < 20; i++) {
		bool in_copy = false;

		/* Its one notification (ENABLE) is the file's (i + 1)th. */
		ASSERT_EQ(0, raw_register(r.fd, &g, 0, 0xc0de + i, &reg, NULL));
		sem_post(&r.go);
		while (sem_trywait(&r.done)) {
			/* Asleep in read(): only its copy's fault waits. */
			if (thread_state(r.tid) == 'D') {
				in_copy = true;
				ASSERT_EQ(0, raw_unregister(r.fd, reg));
				sem_wait(&r.done);
				break;
			}
		}
		ASSERT_EQ(-1, r.ret);
		ASSERT_EQ(EFAULT, r.err);
		if (in_copy) {
			raced++;
			private_session_churn(r.fd);
			/* Gone with its registration. */
			got = read(r.fd, &n, sizeof(n));
			ASSERT_EQ(-1, got);
			ASSERT_EQ(EAGAIN, errno);
			continue;
		}
		/* Put back whole: the next read gets it. */
		memset(&n, 0xcc, sizeof(n));
		got = read(r.fd, &n, sizeof(n));
		ASSERT_EQ((ssize_t)sizeof(n), got);
		EXPECT_EQ(sizeof(n), n.size);
		EXPECT_EQ(reg, n.reg_id);
		EXPECT_EQ(0xc0de + i, n.cookie);
		EXPECT_EQ(i + 1, n.seq);
		EXPECT_EQ(ETW_CONTROL_ENABLE, n.control_code);
		EXPECT_EQ(4, n.level);
		EXPECT_EQ(0x5, n.match_any);
		EXPECT_EQ(0, n.match_all);
		EXPECT_EQ(0, n.filter_size);
		ASSERT_EQ(0, raw_unregister(r.fd, reg));
	}
	__atomic_store_n(&h.stop, true, __ATOMIC_RELEASE);
	__atomic_store_n(&r.stop, true, __ATOMIC_RELEASE);
	sem_post(&r.go);
	pthread_join(ht, NULL);
	pthread_join(rt, NULL);
	/* The race was run, and nothing is left over. */
	EXPECT_LT(0, raced);
	EXPECT_EQ(-1, read(r.fd, &n, sizeof(n)));
	EXPECT_EQ(EAGAIN, errno);
	TH_LOG("%u of %u reads faulted with UNREGISTER in between", raced, i);
	close(r.fd);
}

/* --- 9. concurrent reads of one consumer --------------------------------- */

struct reader {
	int cfd;
	__u32 buf_bytes;
	__u64 seqs[64];
	int n;
};

static void *reader_thread(void *arg)
{
	struct reader *r = arg;
	char *buf = malloc(r->buf_bytes);

	while (buf && r->n < 64 && read(r->cfd, buf, r->buf_bytes) ==
	       (ssize_t)r->buf_bytes)
		r->seqs[r->n++] = ((struct etw_buffer_header *)buf)->sequence_number;
	free(buf);
	return NULL;
}

TEST(concurrent_consumer_reads_take_each_buffer_once)
{
	struct reader r[2];
	struct global_fixture gs;
	struct etw_session_args a;
	struct etw_guid g = raw_guid(0xc0c0, 0);
	__u64 seqs[128];
	pthread_t t[2];
	int fd = etw_open(), i, j, n = 0;
	__u32 reg;

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, global_start(&gs, "two-readers"));
	ASSERT_EQ(0, raw_enable(gs.fd, gs.id, &g, 0, 0, 0));
	ASSERT_EQ(0, raw_register(fd, &g, 0, 0, &reg, NULL));
	/* Several buffers' worth (4 KiB buffers, 88-byte records). */
	for (i = 0; i < 400; i++)
		ASSERT_EQ(0, raw_write(fd, reg, 1, 4, 0));
	ASSERT_EQ(0, raw_session_op(gs.fd, ETW_IOC_FLUSH, gs.id, &a));
	for (i = 0; i < 2; i++) {
		r[i] = (struct reader){ .cfd = gs.cfd, .buf_bytes = gs.buf_bytes };
		ASSERT_EQ(0, pthread_create(&t[i], NULL, reader_thread, &r[i]));
	}
	for (i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	EXPECT_LT(1, a.stats.buffers_written);
	EXPECT_EQ(a.stats.buffers_written, (__u64)(r[0].n + r[1].n));
	for (i = 0; i < 2; i++)
		for (j = 0; j < r[i].n; j++)
			seqs[n++] = r[i].seqs[j];
	/* Every buffer read once: no sequence number twice. */
	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			EXPECT_NE(seqs[i], seqs[j]);
	global_stop(&gs);
	close(fd);
}

/* --- 12. many small buffers ---------------------------------------------- */

TEST(start_bounds_buffer_count)
{
	struct etw_session_args a;
	int fd = etw_open();
	__u32 id;

	ASSERT_LE(0, fd);
	/* 4 KiB buffers up to 256 MiB would be 65536: capped, no warning. */
	ASSERT_EQ(0, raw_start(fd, "small-buffers", ETW_MODE_REAL_TIME, 4,
			       65536, &id));
	ASSERT_EQ(0, raw_session_op(fd, ETW_IOC_QUERY, id, &a));
	EXPECT_EQ(ETW_MAX_BUFFERS, a.config.max_buffers);
	raw_session_op(fd, ETW_IOC_STOP, id, NULL);

	raw_session_init(&a, 0);
	snprintf(a.name, sizeof(a.name), "too-many-%d", getpid());
	a.config.buffer_kb = 4;
	a.config.min_buffers = ETW_MAX_BUFFERS + 1;
	a.config.mode = ETW_MODE_REAL_TIME;
	EXPECT_EQ(-EINVAL, etw_ioctl(fd, ETW_IOC_START, &a));
	close(fd);
}

/* --- 13. PID namespaces -------------------------------------------------- */

/* The pid LIST_PROVIDERS gave for @g, or -1 when it is not listed. */
static long provider_pid(const struct etw_provider_info *info, __u32 n,
			 const struct etw_guid *g)
{
	__u32 i;

	for (i = 0; i < n && i < 64; i++)
		if (raw_guid_eq(&info[i].guid, g))
			return info[i].pid;
	return -1;
}

/*
 * In a new PID namespace, as its init (pid 1): the PID filter names the
 * process as the controller sees it, QUERY and LIST_PROVIDERS report pids
 * in the caller's namespace, and a private session's records carry them.
 */
static int pidns_checks(void)
{
	struct etw_guid g = raw_guid(0x9105, 0);
	struct etw_provider_info info[64];
	struct etw_list_providers_args l = { .size = sizeof(l), .count = 64,
					     .info_ptr = (uintptr_t)info,
					     .info_size = sizeof(info[0]) };
	struct raw_seen seen = { .guid = g };
	struct etw_session_args a;
	struct etw_enable_args e;
	__u32 pid = getpid(), id, pid_id, reg;
	int fd = etw_open(), cfd;

	if (pid != 1 || fd < 0)
		return 101;
	if (raw_register(fd, &g, 0, 0, &reg, NULL))
		return 102;
	/* A global session filtering on this process's own pid number. */
	if (raw_start(fd, "pidns", ETW_MODE_REAL_TIME, 4, 0, &pid_id))
		return 103;
	raw_enable_init(&e, pid_id, &g, 0, 0, 0);
	e.pid_count = 1;
	e.pids_ptr = (uintptr_t)&pid;
	if (etw_ioctl(fd, ETW_IOC_ENABLE, &e))
		return 104;
	cfd = raw_consumer(fd, pid_id);
	if (cfd < 0 || raw_write(fd, reg, 1, 4, 0) ||
	    raw_flush_seen(fd, pid_id, cfd, 4096, &seen))
		return 105;
	if (seen.n != 1)
		return 106;
	raw_session_op(fd, ETW_IOC_STOP, pid_id, NULL);
	close(cfd);
	if (etw_ioctl(fd, ETW_IOC_LIST_PROVIDERS, &l) ||
	    provider_pid(info, l.count, &g) != 1)
		return 107;
	if (raw_start(fd, "pidns-private", ETW_MODE_PRIVATE, 4, 0, &id) ||
	    raw_session_op(fd, ETW_IOC_QUERY, id, &a) || a.owner_pid != 1)
		return 108;
	seen.pid = 1;
	if (raw_enable(fd, id, &g, 0, 0, 0) || raw_write(fd, reg, 1, 4, 0))
		return 109;
	cfd = raw_consumer(fd, id);
	if (cfd < 0 || raw_flush_seen(fd, id, cfd, 4096, &seen) || seen.n != 1)
		return 110;
	return 0;
}

TEST(pid_namespace_views)
{
	pid_t pid = fork();

	if (!pid) {
		pid_t inner;

		if (unshare(CLONE_NEWPID))
			_exit(100);
		inner = fork();
		if (!inner)
			_exit(pidns_checks());
		_exit(wait_exit(inner));
	}
	EXPECT_EQ(0, wait_exit(pid));
}

/* --- LIST_PROVIDERS shows global sessions only to those controlling them */

/* The LIST_PROVIDERS entry of @g registered by process @pid, or -errno. */
static int listed_entry(const struct etw_guid *g, pid_t pid,
			struct etw_provider_info *out)
{
	struct etw_provider_info *info = calloc(1024, sizeof(*info));
	struct etw_list_providers_args l = { .size = sizeof(l), .count = 1024,
					     .info_ptr = (uintptr_t)info,
					     .info_size = sizeof(*info) };
	int fd = etw_open(), ret = -ENOENT;
	__u32 i;

	if (fd < 0 || !info) {
		free(info);
		return -ENOMEM;
	}
	if (etw_ioctl(fd, ETW_IOC_LIST_PROVIDERS, &l))
		ret = -errno;
	for (i = 0; ret == -ENOENT && i < l.count; i++)
		if (raw_guid_eq(&info[i].guid, g) && info[i].pid == (__u32)pid) {
			*out = info[i];
			ret = 0;
		}
	close(fd);
	free(info);
	return ret;
}

/* What a listing child saw: the ioctl's result and the entry. */
struct listed {
	int ret;
	__u32 private_id;
	struct etw_provider_info info;
};

/* In a child with @ngroups groups @groups as uid 1000: list @pid's @g. */
static int list_as_user(const struct etw_guid *g, pid_t pid, int ngroups,
			const gid_t *groups, struct listed *out)
{
	int p[2];
	pid_t child;

	if (pipe(p))
		return -1;
	child = fork();
	if (!child) {
		struct listed l = { 0 };

		if (setgroups(ngroups, groups) ||
		    setresgid(USER_UID, USER_UID, USER_UID) ||
		    setresuid(USER_UID, USER_UID, USER_UID))
			_exit(101);
		l.ret = listed_entry(g, pid, &l.info);
		_exit(write(p[1], &l, sizeof(l)) == sizeof(l) ? 0 : 102);
	}
	close(p[1]);
	if (read(p[0], out, sizeof(*out)) != sizeof(*out))
		out->ret = -EIO;
	close(p[0]);
	return wait_exit(child);
}

static void expect_session(struct __test_metadata *_metadata,
			   const struct etw_provider_session *ps, __u32 id,
			   __u8 level, __u32 properties, __u64 any)
{
	EXPECT_EQ(id, ps->logger_id);
	EXPECT_EQ(level, ps->level);
	EXPECT_EQ(properties, ps->properties);
	EXPECT_EQ(any, ps->match_any);
	EXPECT_EQ(0, ps->match_all);
}

/*
 * A global session (level 5, keywords 0xf0, SID) and a private one of the
 * registering uid-1000 process (level 3, keywords 0x3) enable one GUID.
 * The process's own listing shows the combined state and its private
 * session only; root and a member of control_gid also see the global one.
 */
TEST(list_providers_shows_global_sessions_to_controllers_only)
{
	static const struct etw_provider_session none;
	struct etw_guid g = raw_guid(0x1157, 0);
	struct global_fixture gs;
	struct etw_enable_args e;
	struct etw_provider_info root;
	struct listed own, member, other;
	gid_t control = CONTROL_GROUP;
	int ready[2], go[2];
	char v[16];
	pid_t pid;

	ASSERT_EQ(0, global_start(&gs, "list-global"));
	raw_enable_init(&e, gs.id, &g, 5, 0xf0, 0);
	e.properties = ETW_ENABLE_SID;
	ASSERT_EQ(0, etw_ioctl(gs.fd, ETW_IOC_ENABLE, &e));
	ASSERT_EQ(0, pipe(ready));
	ASSERT_EQ(0, pipe(go));
	pid = fork();
	if (!pid) {
		struct listed l = { 0 };
		int fd;
		__u32 reg;

		close(ready[0]);
		if (drop_to_user())
			_exit(101);
		fd = etw_open();
		if (fd < 0 || raw_register(fd, &g, 0, 0, &reg, NULL) ||
		    raw_start(fd, "list-private", ETW_MODE_PRIVATE, 4, 0,
			      &l.private_id) ||
		    raw_enable(fd, l.private_id, &g, 3, 0x3, 0))
			_exit(102);
		l.ret = listed_entry(&g, getpid(), &l.info);
		if (write(ready[1], &l, sizeof(l)) != sizeof(l))
			_exit(103);
		raw_wait_byte(go[0]);
		_exit(0);
	}
	close(ready[1]);
	ASSERT_EQ((ssize_t)sizeof(own), read(ready[0], &own, sizeof(own)));
	ASSERT_EQ(0, listed_entry(&g, pid, &root));
	snprintf(v, sizeof(v), "%d", CONTROL_GROUP);
	ASSERT_EQ(0, write_file(CONTROL_GID, v));
	EXPECT_EQ(0, list_as_user(&g, pid, 1, &control, &member));
	EXPECT_EQ(0, list_as_user(&g, pid, 0, NULL, &other));
	write_file(CONTROL_GID, "-1");
	raw_post_byte(go[1]);
	EXPECT_EQ(0, wait_exit(pid));
	global_stop(&gs);

	/* The process itself: combined state, its private session alone. */
	ASSERT_EQ(0, own.ret);
	EXPECT_EQ(1, own.info.enabled);
	EXPECT_EQ(5, own.info.level);
	EXPECT_EQ(0xf3, own.info.match_any);
	EXPECT_EQ(0, own.info.match_all);
	EXPECT_EQ(0, own.info.session_mask);
	ASSERT_EQ(1, own.info.session_count);
	expect_session(_metadata, &own.info.sessions[0], own.private_id, 3, 0,
		       0x3);
	EXPECT_EQ(0, memcmp(&none, &own.info.sessions[1], sizeof(none)));
	/* Root: both, the global one first. */
	EXPECT_EQ(1, root.enabled);
	EXPECT_EQ(5, root.level);
	EXPECT_EQ(0xf3, root.match_any);
	EXPECT_EQ(1ULL << (gs.id - 1), root.session_mask);
	ASSERT_EQ(2, root.session_count);
	expect_session(_metadata, &root.sessions[0], gs.id, 5, ETW_ENABLE_SID,
		       0xf0);
	expect_session(_metadata, &root.sessions[1], own.private_id, 3, 0,
		       0x3);
	/* A member of control_gid: what root sees. */
	ASSERT_EQ(0, member.ret);
	EXPECT_EQ(0, memcmp(&root, &member.info, sizeof(root)));
	/* Another uid-1000 process: not listed at all. */
	EXPECT_EQ(-ENOENT, other.ret);
}

/* --- 15. name probing ---------------------------------------------------- */

TEST(unprivileged_cannot_probe_global_names)
{
	struct global_fixture gs;
	pid_t pid;

	ASSERT_EQ(0, global_start(&gs, "probe"));
	pid = fork();
	if (!pid) {
		struct etw_session_args a;
		int fd, exists, missing, id_exists, id_missing;

		if (drop_to_user())
			_exit(101);
		fd = etw_open();
		raw_session_init(&a, 0);
		snprintf(a.name, sizeof(a.name), "probe-%d", getppid());
		exists = etw_ioctl(fd, ETW_IOC_QUERY, &a);
		raw_session_init(&a, 0);
		snprintf(a.name, sizeof(a.name), "no-such-%d", getppid());
		missing = etw_ioctl(fd, ETW_IOC_QUERY, &a);
		id_exists = raw_session_op(fd, ETW_IOC_QUERY, gs.id, NULL);
		id_missing = raw_session_op(fd, ETW_IOC_QUERY,
					    gs.id == 64 ? 63 : 64, NULL);
		_exit(exists == -EPERM && missing == -EPERM &&
		      id_exists == -EPERM && id_missing == -EPERM ? 0 : 102);
	}
	EXPECT_EQ(0, wait_exit(pid));
	global_stop(&gs);
}

/* --- 3, 5 and 14. failed allocations change nothing ---------------------- */

static __u16 group_traits(__u8 *buf, const struct etw_guid *group)
{
	static const char name[] = "Faulty";
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

/* The length of @g's provider name as LIST_PROVIDERS shows it, or -1. */
static int provider_name_len(int fd, const struct etw_guid *g)
{
	struct etw_provider_info info[64];
	struct etw_list_providers_args l = { .size = sizeof(l), .count = 64,
					     .info_ptr = (uintptr_t)info,
					     .info_size = sizeof(info[0]) };
	__u32 i;

	if (etw_ioctl(fd, ETW_IOC_LIST_PROVIDERS, &l))
		return -1;
	for (i = 0; i < l.count && i < 64; i++)
		if (raw_guid_eq(&info[i].guid, g))
			return strnlen(info[i].name, sizeof(info[i].name));
	return -1;
}

/*
 * SET_TRAITS joining an enabled group, failed at every allocation and
 * copy in turn (a fresh registration each time): a failure leaves the
 * registration outside the group and disabled; where a failed step was
 * optional the call succeeds whole.  Once it succeeds, events flow and the
 * blob is still valid (one freed on the error path shows in KASAN on
 * write).
 */
TEST_F_TIMEOUT(slow, set_traits_fails_cleanly, 300)
{
	struct etw_guid grp = raw_guid(0x6f00, 0), g = raw_guid(0x6f00, 1);
	struct global_fixture gs;
	struct raw_seen seen = { .guid = g };
	struct etw_enable_state *map;
	__u8 blob[64];
	__u16 len = group_traits(blob, &grp);
	int fd = etw_open(), nth, ret = -1, fail = fail_nth_open(), failures = 0;
	__u32 reg, index;

	ASSERT_LE(0, fd);
	ASSERT_LE(0, fail);
	ASSERT_EQ(0, fail_nth_setup(true));
	ASSERT_EQ(0, global_start(&gs, "traits-fault"));
	ASSERT_EQ(0, raw_control(gs.fd, gs.id, &grp, ETW_CONTROL_ENABLE,
				 ETW_ENABLE_PROVIDER_GROUP));
	map = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, ETW_MMAP_ENABLE);
	ASSERT_NE(MAP_FAILED, map);
	for (nth = 1; nth < 200; nth++) {
		struct etw_traits_args t = { .size = sizeof(t),
					     .traits_ptr = (uintptr_t)blob,
					     .traits_len = len };
		bool fired;

		ASSERT_EQ(0, raw_register(fd, &g, 0, 0, &reg, &index));
		t.reg_id = reg;
		ASSERT_EQ(0, fail_nth_set(fail, nth));
		ret = etw_ioctl(fd, ETW_IOC_SET_TRAITS, &t);
		fired = fail_nth_fired(fail);
		if (!fired)
			break;
		if (ret) {
			failures++;
			ASSERT_TRUE(ret == -ENOMEM || ret == -EFAULT) {
				TH_LOG("fault site %d: %d", nth, ret);
			}
			EXPECT_EQ(0, map[index].enabled);
			/* Nothing published: no name, no group. */
			EXPECT_EQ(0, provider_name_len(fd, &g));
		} else {
			EXPECT_EQ(1, map[index].enabled);
		}
		ASSERT_EQ(0, raw_unregister(fd, reg));
	}
	ASSERT_EQ(0, ret);
	TH_LOG("%d fault sites, %d failed the call", nth - 1, failures);
	EXPECT_LT(1, failures);
	EXPECT_EQ(1, map[index].enabled);
	ASSERT_EQ(0, raw_write(fd, reg, 1, 4, 0));
	ASSERT_EQ(0, raw_flush_seen(gs.fd, gs.id, gs.cfd, gs.buf_bytes, &seen));
	EXPECT_EQ(1, seen.n);
	EXPECT_EQ(0, raw_unregister(fd, reg));
	munmap(map, 4096);
	global_stop(&gs);
	close(fail);
	close(fd);
}

/*
 * REGISTER of an enabled GUID, failed at every step in turn: a failure
 * leaves no enable-area entry set and no registration listed.
 */
TEST_F_TIMEOUT(slow, register_fails_cleanly, 300)
{
	struct etw_guid g = raw_guid(0x6f01, 0);
	struct etw_provider_info info[64];
	struct etw_list_providers_args l = {
		.size = sizeof(l), .info_size = sizeof(info[0]) };
	struct global_fixture gs;
	struct etw_enable_state *map;
	int fd = etw_open(), nth, ret = -1, fail = fail_nth_open(), failures = 0;
	__u32 reg = 0, index = 0;

	ASSERT_LE(0, fd);
	ASSERT_LE(0, fail);
	ASSERT_EQ(0, fail_nth_setup(true));
	ASSERT_EQ(0, global_start(&gs, "register-fault"));
	ASSERT_EQ(0, raw_enable(gs.fd, gs.id, &g, 0, 0, 0));
	map = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, ETW_MMAP_ENABLE);
	ASSERT_NE(MAP_FAILED, map);
	for (nth = 1; nth < 200; nth++) {
		bool fired;

		ASSERT_EQ(0, fail_nth_set(fail, nth));
		ret = raw_register(fd, &g, 0, 0, &reg, &index);
		fired = fail_nth_fired(fail);
		if (!fired)
			break;
		if (!ret) {
			EXPECT_EQ(1, map[index].enabled);
			ASSERT_EQ(0, raw_unregister(fd, reg));
			continue;
		}
		failures++;
		ASSERT_TRUE(ret == -ENOMEM || ret == -EFAULT) {
			TH_LOG("fault site %d: %d", nth, ret);
		}
		/* Registration ids are handed out lowest first: index 0. */
		EXPECT_EQ(0, map[0].enabled);
		l.count = 64;
		l.info_ptr = (uintptr_t)info;
		ASSERT_EQ(0, etw_ioctl(fd, ETW_IOC_LIST_PROVIDERS, &l));
		EXPECT_EQ(-1, provider_pid(info, l.count, &g));
	}
	ASSERT_EQ(0, ret);
	TH_LOG("%d fault sites, %d failed the call", nth - 1, failures);
	EXPECT_LT(1, failures);
	EXPECT_EQ(0, index);
	EXPECT_EQ(1, map[0].enabled);
	munmap(map, 4096);
	global_stop(&gs);
	close(fail);
	close(fd);
}

TEST_HARNESS_MAIN
