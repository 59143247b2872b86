// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel logger's scheduler events (kmod/etw_klogger_sched.c) through
 * bare ioctls: a thread blocked on a pipe switches out Waiting with
 * UserRequest in UserMode, is readied by its writer and switches in again;
 * a busy thread sharing its CPU switches out Ready with WrPreempted; an
 * exiting thread switches out Terminated; a new thread is readied by its
 * creator; each record's header and payload checked field by field
 * against Documentation/abi.rst's layouts, the thread ids exact.  Each
 * flag gives its own records only, none gives none; UPDATE turns CSWITCH
 * on and off; a consumer waiting in poll() is woken by buffers that only
 * the scheduler's probes filled (their wakeups are deferred).  Then
 * libetw's StartTrace and ControlTrace UPDATE take both flags, and etwctl
 * records them into a file and dumps them by name.  With ReadyThread in
 * the stack list (ETW_IOC_STACK_EVENTS) each ReadyThread is followed by
 * the waker's stack, with CSwitch each switch by the incoming thread's
 * (kmod/etw_klogger_stacks.c); without a list there are no stacks; a
 * member of control_gid sees no kernel frame and no other user's frame.
 */
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>

#include "evntrace.h"
#include "kselftest_harness.h"
#include "etw_raw.h"

#define KLOG		ETW_KERNEL_LOGGER_NAME
#define BUF_KB		64
#define MAX_BUFFERS	512
#define SCHED_FLAGS	(ETW_KFLAG_CSWITCH | ETW_KFLAG_DISPATCHER)

/* Hook types and the classes' version (Windows' CSwitch, ReadyThread). */
#define T_CSWITCH	36
#define T_READY		50
#define V_SCHED		2

#define PERFINFO64	0xc011
#define HOOK_STACK	(ETW_GROUP_STACKWALK << 8 | 32)
#define MAX_FRAMES	192
#define KERNEL_HALF	0xffff800000000000ull	/* kernel addresses from here */

/* KTHREAD_STATE, KWAIT_REASON and KPROCESSOR_MODE (the CSwitch class). */
#define S_READY		1
#define S_TERMINATED	4
#define S_WAITING	5
#define W_USER_REQUEST	6
#define W_TERMINATED	22
#define W_PREEMPTED	32
#define M_KERNEL	0
#define M_USER		1

/* The niceness the tested threads take, and its Windows priority. */
#define TEST_NICE	5
#define TEST_PRIORITY	7	/* 8 - 5 / 3 */

/* One scheduler record, decoded. */
struct srec {
	struct etw_system_header h;
	/* CSwitch */
	__u32 new_tid, old_tid;
	__s8 new_prio, old_prio, reason, mode, state;
	/* ReadyThread */
	__u32 ready_tid;
	__s8 flag;
};

/* One StackWalk_Event. */
struct stack {
	__u64 event_ts;
	__u32 pid, tid;
	__u32 n;
	__u64 f[MAX_FRAMES];
};

struct srecs {
	struct srec *r;
	size_t n, cap;
	struct stack *st;
	size_t nst, capst;
	size_t other;	/* records of other groups or types */
	int bad;	/* records that failed a layout check */
};

static __u32 le32(const __u8 *p)
{
	__u32 v;

	memcpy(&v, p, 4);
	return v;
}

/* CSwitch: 24 bytes; PreviousCState, SpareByte, the ideal processor,
 * NewThreadWaitTime and Reserved are 0 (Documentation/abi.rst).
 */
static int parse_cswitch(struct srec *k, const __u8 *d, __u32 len)
{
	if (len != 24 || d[10] || d[11] || d[15] || le32(d + 16) ||
	    le32(d + 20))
		return -1;
	k->new_tid = le32(d);
	k->old_tid = le32(d + 4);
	k->new_prio = (__s8)d[8];
	k->old_prio = (__s8)d[9];
	k->reason = (__s8)d[12];
	k->mode = (__s8)d[13];
	k->state = (__s8)d[14];
	return k->new_prio < 0 || k->new_prio > 31 || k->old_prio < 0 ||
	       k->old_prio > 31 ? -1 : 0;
}

/* ReadyThread: 8 bytes; AdjustReason, AdjustIncrement, Reserved 0. */
static int parse_ready(struct srec *k, const __u8 *d, __u32 len)
{
	if (len != 8 || d[4] || d[5] || d[7] || (d[6] & ~1))
		return -1;
	k->ready_tid = le32(d);
	k->flag = (__s8)d[6];
	return 0;
}

static int parse_srec(struct srec *k, const __u8 *d, __u32 len)
{
	const struct etw_system_header *h = &k->h;

	if (h->header_type != ETW_SYSTEM_HEADER_TYPE ||
	    h->flags != ETW_SYSTEM_HEADER_FLAGS || h->kernel_time ||
	    h->user_time || !h->timestamp || h->version != V_SCHED)
		return -1;
	if (h->hook_id == (ETW_GROUP_THREAD << 8 | T_CSWITCH))
		return parse_cswitch(k, d, len);
	return parse_ready(k, d, len);
}

/* StackWalk_Event: 32 bytes, then the frames. */
static int parse_stack(const __u8 *rec, struct stack *st)
{
	struct etw_perfinfo_header h;

	memcpy(&h, rec, sizeof(h));
	if (h.version != 2 || h.size < 32 || (h.size - 32) % 8 ||
	    (h.size - 32) / 8 > MAX_FRAMES || !h.timestamp)
		return -1;
	memcpy(&st->event_ts, rec + 16, 8);
	memcpy(&st->pid, rec + 24, 4);
	memcpy(&st->tid, rec + 28, 4);
	st->n = (h.size - 32) / 8;
	memcpy(st->f, rec + 32, 8 * st->n);
	return 0;
}

static int add_stack(const __u8 *rec, struct srecs *out)
{
	struct stack *st;

	if (out->nst == out->capst) {
		out->capst = out->capst ? 2 * out->capst : 1024;
		st = realloc(out->st, out->capst * sizeof(*st));
		if (!st)
			return -1;
		out->st = st;
	}
	out->bad += parse_stack(rec, &out->st[out->nst++]) != 0;
	return 0;
}

/* Every record of one buffer: CSwitch, ReadyThread and stacks kept. */
static int walk(const __u8 *buf, struct srecs *out)
{
	const struct etw_buffer_header *bh = (const void *)buf;
	__u32 off = ETW_BUFFER_HEADER_SIZE, size = 0;
	struct etw_system_header h;
	__u16 type;

	while (off + 8 <= bh->offset) {
		memcpy(&type, buf + off + 2, 2);
		if (type != ETW_SYSTEM_HEADER_TYPE_64 && type != PERFINFO64 &&
		    type != ETW_EVENT_HEADER_TYPE_64)
			return -1;
		memcpy(&size, buf + off + (type == ETW_EVENT_HEADER_TYPE_64 ?
					   0 : 4), 2);
		size &= 0xffff;
		if (size < 32 || off + size > bh->offset)
			return -1;
		memcpy(&h, buf + off, sizeof(h));
		if (type == PERFINFO64 && h.hook_id == HOOK_STACK) {
			if (add_stack(buf + off, out))
				return -1;
		} else if (type == ETW_SYSTEM_HEADER_TYPE_64 &&
		    (h.hook_id == (ETW_GROUP_THREAD << 8 | T_CSWITCH) ||
		     h.hook_id == (ETW_GROUP_THREAD << 8 | T_READY))) {
			struct srec *k;

			if (out->n == out->cap) {
				out->cap = out->cap ? 2 * out->cap : 4096;
				out->r = realloc(out->r, out->cap * sizeof(*k));
				if (!out->r)
					return -1;
			}
			k = &out->r[out->n++];
			memset(k, 0, sizeof(*k));
			k->h = h;
			out->bad += parse_srec(k, buf + off + 32,
					       size - 32) != 0;
		} else {
			out->other++;
		}
		off += RAW_ALIGN8(size);
	}
	return off == bh->offset ? 0 : -1;
}

/* Start a kernel logger with @flags; the consumer's fd in *cfd. */
static int klog_start(int fd, __u32 flags, __u32 flush_ms, __u32 *id,
		      int *cfd)
{
	return raw_klog_start(fd, BUF_KB, MAX_BUFFERS, flush_ms, flags, id,
			      cfd);
}

/* Read what the consumer has (every record after a STOP); 0 or -1. */
static int klog_read(int cfd, struct srecs *out)
{
	__u8 *buf = malloc(BUF_KB * 1024);
	ssize_t r;
	int ret = 0;

	while (buf && (r = read(cfd, buf, BUF_KB * 1024)) != 0) {
		if (r < 0 && errno == EAGAIN)
			break;
		if (r != BUF_KB * 1024 || walk(buf, out)) {
			ksft_print_msg("read: %zd, %zu records\n", r, out->n);
			ret = -1;
			break;
		}
	}
	free(buf);
	return buf ? ret : -1;
}

/* Stop it and read every record. */
static int klog_stop(int fd, __u32 id, int cfd, struct srecs *out)
{
	int ret = raw_session_op(fd, ETW_IOC_STOP, id, NULL) ? -1 :
		  klog_read(cfd, out);

	close(cfd);
	return ret;
}

static pid_t gettid_(void)
{
	return (pid_t)syscall(SYS_gettid);
}

/* A count of /proc/self/task/@tid/status ("voluntary_ctxt_switches"). */
static long task_switches(pid_t tid, const char *field)
{
	char path[64], line[128];
	size_t n = strlen(field);
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/status", tid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, field, n) && line[n] == ':')
			v = strtol(line + n + 1, NULL, 10);
	fclose(f);
	return v;
}

/* --- a thread that blocks on a pipe -------------------------------------- */

/*
 * It takes TEST_NICE, notes its voluntary switches, then reads a byte;
 * the test waits until that count grew (the read switched it out), then
 * writes the byte.
 */
struct sleeper {
	pthread_t t;
	int pipe[2];
	_Atomic pid_t tid;
	_Atomic long switches;
	pid_t waker;
};

/*
 * The read and the write go through syscall(), whose stub keeps the frame
 * pointer: a user stack taken in the call starts at take_byte()'s or
 * post_byte()'s frame and holds a return address into their callers,
 * each in a section of its own.
 */
#define SLEEPER_SECTION	"etw_sched_sleeper"
#define WAKER_SECTION	"etw_sched_waker"
extern const char __start_etw_sched_sleeper[], __stop_etw_sched_sleeper[];
extern const char __start_etw_sched_waker[], __stop_etw_sched_waker[];

__attribute__((noinline))
static int take_byte(int fd)
{
	char c;
	long r = syscall(SYS_read, fd, &c, 1);

	__asm__ volatile("" ::: "memory");
	return r == 1;
}

__attribute__((noinline, section(SLEEPER_SECTION)))
static int wait_for_byte(int fd)
{
	int r = take_byte(fd);

	__asm__ volatile("" ::: "memory");
	return r;
}

__attribute__((noinline))
static void post_byte(int fd)
{
	char c = 1;

	if (syscall(SYS_write, fd, &c, 1) != 1)
		_exit(99);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline, section(WAKER_SECTION)))
static void wake_sleeper(int fd)
{
	post_byte(fd);
	__asm__ volatile("" ::: "memory");
}

static void *sleeper_fn(void *arg)
{
	struct sleeper *s = arg;
	pid_t tid = gettid_();

	if (setpriority(PRIO_PROCESS, tid, TEST_NICE))
		return (void *)1;
	s->switches = task_switches(tid, "voluntary_ctxt_switches");
	s->tid = tid;
	return wait_for_byte(s->pipe[0]) ? NULL : (void *)1;
}

/* Run a sleeper through one sleep and wakeup; its tid, or 0. */
static pid_t sleep_and_wake(struct sleeper *s)
{
	void *ret;
	int i;

	memset(s, 0, sizeof(*s));
	if (pipe(s->pipe) || pthread_create(&s->t, NULL, sleeper_fn, s))
		return 0;
	for (i = 0; i < 100000 && (!s->tid ||
	     task_switches(s->tid, "voluntary_ctxt_switches") <= s->switches);
	     i++)
		usleep(100);
	s->waker = gettid_();
	wake_sleeper(s->pipe[1]);
	pthread_join(s->t, &ret);
	close(s->pipe[0]);
	close(s->pipe[1]);
	return ret || s->switches < 0 ? 0 : s->tid;
}

/* The first CSwitch after @from switching @tid out (@out) or in. */
static const struct srec *find_switch(const struct srecs *rs, pid_t tid,
				      bool out, __u64 from)
{
	const struct srec *best = NULL;
	size_t i;

	for (i = 0; i < rs->n; i++) {
		const struct srec *k = &rs->r[i];

		if (k->h.hook_id != (ETW_GROUP_THREAD << 8 | T_CSWITCH) ||
		    (out ? k->old_tid : k->new_tid) != (__u32)tid ||
		    k->h.timestamp < from)
			continue;
		if (!best || k->h.timestamp < best->h.timestamp)
			best = k;
	}
	return best;
}

/* The first ReadyThread of @tid after @from, by any waker. */
static const struct srec *find_ready(const struct srecs *rs, pid_t tid,
				     __u64 from)
{
	const struct srec *best = NULL;
	size_t i;

	for (i = 0; i < rs->n; i++) {
		const struct srec *k = &rs->r[i];

		if (k->h.hook_id != (ETW_GROUP_THREAD << 8 | T_READY) ||
		    k->ready_tid != (__u32)tid || k->h.timestamp < from)
			continue;
		if (!best || k->h.timestamp < best->h.timestamp)
			best = k;
	}
	return best;
}

/* Any record naming @tid: switched in or out, or readied. */
static size_t count_tid(const struct srecs *rs, pid_t tid, __u16 type)
{
	size_t i, n = 0;

	for (i = 0; i < rs->n; i++) {
		const struct srec *k = &rs->r[i];

		if (k->h.hook_id != (ETW_GROUP_THREAD << 8 | type))
			continue;
		n += type == T_CSWITCH ?
		     k->old_tid == (__u32)tid || k->new_tid == (__u32)tid :
		     k->ready_tid == (__u32)tid;
	}
	return n;
}

/* CSwitch records stamped before @on or after @off. */
static size_t count_switches_outside(const struct srecs *rs, __u64 on,
				     __u64 off)
{
	size_t i, n = 0;

	for (i = 0; i < rs->n; i++)
		n += rs->r[i].h.hook_id == (ETW_GROUP_THREAD << 8 | T_CSWITCH) &&
		     (rs->r[i].h.timestamp < on || rs->r[i].h.timestamp > off);
	return n;
}

static size_t count_type(const struct srecs *rs, __u16 type)
{
	size_t i, n = 0;

	for (i = 0; i < rs->n; i++)
		n += rs->r[i].h.hook_id == (ETW_GROUP_THREAD << 8 | type);
	return n;
}

FIXTURE(ksched) {
	int fd;
	__u32 id;
	int cfd;
	struct srecs rs;
};

FIXTURE_SETUP(ksched)
{
	self->fd = etw_open();
	ASSERT_GE(self->fd, 0);
	self->cfd = -1;
	memset(&self->rs, 0, sizeof(self->rs));
}

FIXTURE_TEARDOWN(ksched)
{
	if (self->cfd >= 0)
		raw_session_op(self->fd, ETW_IOC_STOP, self->id, NULL);
	free(self->rs.r);
	free(self->rs.st);
	close(self->fd);
}

static int stop(FIXTURE_DATA(ksched) *self)
{
	int cfd = self->cfd;

	self->cfd = -1;
	return klog_stop(self->fd, self->id, cfd, &self->rs);
}

/*
 * A thread reading an empty pipe switches out Waiting, UserRequest,
 * UserMode, with its priority; the writer readies it (the ReadyThread's
 * header names the writer); it then switches in.
 */
TEST_F(ksched, pipe_sleep_waits_is_readied_and_runs)
{
	const struct srec *out, *ready, *in, *k;
	struct sleeper s;
	pid_t tid;

	ASSERT_EQ(0, klog_start(self->fd, SCHED_FLAGS, 0, &self->id,
				&self->cfd));
	tid = sleep_and_wake(&s);
	ASSERT_NE(0, tid);
	ASSERT_EQ(0, stop(self));
	EXPECT_EQ(0, self->rs.bad);
	EXPECT_EQ(0, self->rs.other);
	EXPECT_EQ(0, self->rs.nst);

	/*
	 * The writer's wakeup: its last (the first was the creator's, of a
	 * new thread); then the switch in after it, and the last switch out
	 * before that, the sleep in read().
	 */
	ready = NULL;
	for (k = find_ready(&self->rs, tid, 0); k;
	     k = find_ready(&self->rs, tid, k->h.timestamp + 1))
		if (k->h.thread_id == (__u32)s.waker)
			ready = k;
	ASSERT_NE(NULL, ready);
	EXPECT_EQ((__u32)getpid(), ready->h.process_id);
	EXPECT_EQ(0, ready->flag);
	EXPECT_EQ(ETW_GROUP_THREAD << 8 | T_READY, ready->h.hook_id);
	EXPECT_EQ(32 + 8, ready->h.size);

	in = find_switch(&self->rs, tid, false, ready->h.timestamp);
	ASSERT_NE(NULL, in);
	EXPECT_EQ((__u32)tid, in->new_tid);
	EXPECT_EQ(TEST_PRIORITY, in->new_prio);
	EXPECT_NE((__u32)tid, in->old_tid);

	out = NULL;
	for (k = find_switch(&self->rs, tid, true, 0);
	     k && k->h.timestamp < in->h.timestamp;
	     k = find_switch(&self->rs, tid, true, k->h.timestamp + 1))
		out = k;
	ASSERT_NE(NULL, out);
	EXPECT_EQ((__u32)tid, out->old_tid);
	EXPECT_EQ(S_WAITING, out->state);
	EXPECT_EQ(W_USER_REQUEST, out->reason);
	EXPECT_EQ(M_USER, out->mode);
	EXPECT_EQ(TEST_PRIORITY, out->old_prio);
	EXPECT_NE((__u32)tid, out->new_tid);
	/* Recorded in the thread that switched out. */
	EXPECT_EQ((__u32)tid, out->h.thread_id);
	EXPECT_EQ((__u32)getpid(), out->h.process_id);
	EXPECT_EQ(32 + 24, out->h.size);
}

/* --- stacks --------------------------------------------------------------- */

/* ThreadGuid: the class of CSwitch and ReadyThread. */
static const struct etw_guid thread_guid = { 0x3d6fa8d1, 0xfe05, 0x11d0,
	{ 0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c } };

/* Make the logger's stack list ThreadGuid's events @type and @type2. */
static int stack_list(int fd, __u32 id, __u8 type, __u8 type2)
{
	struct etw_classic_event_id e[2] = {
		{ .guid = thread_guid, .type = type },
		{ .guid = thread_guid, .type = type2 },
	};
	struct etw_stack_events_args a = {
		.size = sizeof(a), .flags = ETW_STACK_EVENTS_SET,
		.logger_id = id, .count = 2, .ids_ptr = (uintptr_t)e,
	};

	return etw_ioctl(fd, ETW_IOC_STACK_EVENTS, &a);
}

/* The stack of @tid's event stamped @ts, or NULL. */
static const struct stack *stack_of(const struct srecs *rs, __u64 ts,
				    pid_t tid)
{
	size_t i;

	for (i = 0; i < rs->nst; i++)
		if (rs->st[i].event_ts == ts && rs->st[i].tid == (__u32)tid)
			return &rs->st[i];
	return NULL;
}

/* The stacks of thread @tid. */
static size_t stacks_of(const struct srecs *rs, pid_t tid)
{
	size_t i, n = 0;

	for (i = 0; i < rs->nst; i++)
		n += rs->st[i].tid == (__u32)tid;
	return n;
}

/* The kernel frames leading @st; -1 when one follows a user frame. */
static int kernel_frames(const struct stack *st)
{
	__u32 n, i;

	for (n = 0; n < st->n && st->f[n] >= KERNEL_HALF; n++)
		;
	for (i = n; i < st->n; i++)
		if (st->f[i] >= KERNEL_HALF || !st->f[i])
			return -1;
	return (int)n;
}

static bool frame_in(const struct stack *st, const char *start,
		     const char *stop)
{
	__u32 i;

	for (i = 0; i < st->n; i++)
		if (st->f[i] >= (uintptr_t)start && st->f[i] < (uintptr_t)stop)
			return true;
	return false;
}

/*
 * @waker's last ReadyThread of @tid: the write that ended its sleep (the
 * first is its creation's, by the same thread).
 */
static const struct srec *last_wakeup_by(const struct srecs *rs, pid_t tid,
					 pid_t waker)
{
	const struct srec *k, *last = NULL;

	for (k = find_ready(rs, tid, 0); k;
	     k = find_ready(rs, tid, k->h.timestamp + 1))
		if (k->h.thread_id == (__u32)waker)
			last = k;
	return last;
}

/*
 * Does the running kernel let the module walk a waiting thread's kernel
 * stack (6.12 on, abi.rst): a CSwitch stack then has kernel frames.
 */
static bool walks_waiting_stacks(void)
{
	struct utsname u;
	int major, minor;

	return !uname(&u) && sscanf(u.release, "%d.%d", &major, &minor) == 2 &&
	       (major > 6 || (major == 6 && minor >= 12));
}

static int pin_to(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

/*
 * With ReadyThread in the stack list, the write that readies a sleeping
 * reader is followed by the writer's stack (what WPA's CPU Usage
 * (Precise) table shows as the Ready Thread Stack): the wakeup's kernel
 * frames, then the writer's user frames, which reach wake_sleeper().
 * CSwitch records get none.
 */
TEST_F(ksched, ready_thread_is_followed_by_the_wakers_stack)
{
	const struct srec *ready;
	const struct stack *st;
	struct sleeper s;
	size_t i, cswitch_stacks = 0;
	pid_t tid;

	ASSERT_EQ(0, klog_start(self->fd, SCHED_FLAGS, 0, &self->id,
				&self->cfd));
	ASSERT_EQ(0, stack_list(self->fd, self->id, T_READY, T_READY));
	tid = sleep_and_wake(&s);
	ASSERT_NE(0, tid);
	ASSERT_EQ(0, stop(self));
	EXPECT_EQ(0, self->rs.bad);

	ready = last_wakeup_by(&self->rs, tid, s.waker);
	ASSERT_NE(NULL, ready);
	st = stack_of(&self->rs, ready->h.timestamp, s.waker);
	ASSERT_NE(NULL, st);
	EXPECT_EQ((__u32)getpid(), st->pid);
	EXPECT_LT(0, kernel_frames(st));
	EXPECT_TRUE(frame_in(st, __start_etw_sched_waker,
			     __stop_etw_sched_waker));
	for (i = 0; i < self->rs.n; i++)
		if (self->rs.r[i].h.hook_id == (ETW_GROUP_THREAD << 8 | T_CSWITCH))
			cswitch_stacks += !!stack_of(&self->rs,
						     self->rs.r[i].h.timestamp,
						     self->rs.r[i].new_tid);
	EXPECT_EQ(0, cswitch_stacks);
}

/*
 * With CSwitch in the stack list, each switch to a thread is followed by
 * that thread's stack (WPA's New Thread Stack): where it waited, kernel
 * frames first (from 6.12 on).  The sleeper and its waker share CPU 0, so the switch
 * into the sleeper comes from a thread of its own process, and its user
 * frames are walked: they reach wait_for_byte().  From a thread of
 * another address space its user part is its instruction pointer alone.
 * A switch to the idle task has no stack.
 */
TEST_F(ksched, cswitch_is_followed_by_the_incoming_threads_stack)
{
	const struct srec *ready, *in;
	const struct stack *st;
	int round, walked = 0, kf;
	struct sleeper s;
	pid_t tid;

	ASSERT_EQ(0, pin_to(0));
	for (round = 0; round < 5 && !walked; round++) {
		free(self->rs.r);
		free(self->rs.st);
		memset(&self->rs, 0, sizeof(self->rs));
		ASSERT_EQ(0, klog_start(self->fd, SCHED_FLAGS, 0, &self->id,
					&self->cfd));
		ASSERT_EQ(0, stack_list(self->fd, self->id, T_CSWITCH,
						 T_CSWITCH));
		tid = sleep_and_wake(&s);
		ASSERT_NE(0, tid);
		ASSERT_EQ(0, stop(self));
		EXPECT_EQ(0, self->rs.bad);
		ready = last_wakeup_by(&self->rs, tid, s.waker);
		ASSERT_NE(NULL, ready);
		in = find_switch(&self->rs, tid, false, ready->h.timestamp);
		ASSERT_NE(NULL, in);
		st = stack_of(&self->rs, in->h.timestamp, tid);
		ASSERT_NE(NULL, st);
		EXPECT_EQ((__u32)getpid(), st->pid);
		kf = kernel_frames(st);
		if (walks_waiting_stacks()) {
			EXPECT_LT(0, kf);
		} else {
			EXPECT_EQ(0, kf);
		}
		/* A switch to the idle task has none. */
		EXPECT_EQ(0, stacks_of(&self->rs, 0));
		if (in->old_tid == (__u32)s.waker) {
			EXPECT_TRUE(frame_in(st, __start_etw_sched_sleeper,
					     __stop_etw_sched_sleeper));
			walked++;
		} else if (kf > 0) {
			EXPECT_EQ((__u32)kf + 1, st->n);
		}
	}
	EXPECT_EQ(1, walked);
}

/*
 * As a member of control_gid (no capability, abi.rst's "Who may do
 * what"): the logger with both stacks gives no kernel address (kernel
 * frames are zero), its own threads' user frames as they are, and only
 * zeros for other users' threads.  Returns 0, or the step that failed.
 */
static int member_stacks(void)
{
	struct srecs rs = { 0 };
	const struct srec *ready;
	const struct stack *st;
	int fd, cfd, ret = 0;
	struct sleeper s;
	size_t i, k;
	pid_t tid;
	__u32 id;

	if (raw_become_member())
		return 101;
	fd = etw_open();
	if (fd < 0 || klog_start(fd, SCHED_FLAGS, 0, &id, &cfd))
		return 102;
	if (stack_list(fd, id, T_CSWITCH, T_READY))
		ret = 103;
	tid = sleep_and_wake(&s);
	if (klog_stop(fd, id, cfd, &rs) || rs.bad)
		return 104;
	ready = tid ? last_wakeup_by(&rs, tid, s.waker) : NULL;
	st = ready ? stack_of(&rs, ready->h.timestamp, s.waker) : NULL;
	if (!ret && (!st || !frame_in(st, __start_etw_sched_waker,
				      __stop_etw_sched_waker)))
		ret = 105;
	for (i = 0; i < rs.nst && !ret; i++)
		for (k = 0; k < rs.st[i].n; k++)
			if (rs.st[i].f[k] >= KERNEL_HALF ||
			    (rs.st[i].pid != (__u32)getpid() && rs.st[i].f[k]))
				ret = 106;
	free(rs.r);
	free(rs.st);
	close(fd);
	return ret;
}

TEST(member_sees_no_kernel_frame_and_only_its_own_stacks)
{
	char gid[16];
	pid_t pid;

	snprintf(gid, sizeof(gid), "%d", RAW_CONTROL_GROUP);
	ASSERT_EQ(0, raw_write_str(RAW_CONTROL_GID, gid));
	pid = fork();
	if (!pid)
		_exit(member_stacks());
	EXPECT_EQ(0, etw_wait_child(pid));
	raw_write_str(RAW_CONTROL_GID, "-1");
}

/* Two busy threads pinned to one CPU: switched out Ready, WrPreempted. */
struct spinner {
	pthread_t t;
	int cpu;
	_Atomic pid_t tid;
	_Atomic int *stop;
};

static void *spinner_fn(void *arg)
{
	struct spinner *sp = arg;
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(sp->cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) ||
	    setpriority(PRIO_PROCESS, gettid_(), TEST_NICE))
		return (void *)1;
	sp->tid = gettid_();
	while (!*sp->stop)
		;
	return NULL;
}

TEST_F(ksched, busy_thread_sharing_its_cpu_is_preempted)
{
	struct spinner sp[2];
	_Atomic int halt = 0;
	const struct srec *k, *last;
	int i, n, cpu = sched_getcpu();
	void *ret;

	ASSERT_LE(0, cpu);
	for (i = 0; i < 2; i++) {
		memset(&sp[i], 0, sizeof(sp[i]));
		sp[i].cpu = cpu;
		sp[i].stop = &halt;
	}
	ASSERT_EQ(0, klog_start(self->fd, ETW_KFLAG_CSWITCH, 0, &self->id,
				&self->cfd));
	for (i = 0; i < 2; i++)
		ASSERT_EQ(0, pthread_create(&sp[i].t, NULL, spinner_fn, &sp[i]));
	/* Until each was switched out involuntarily twice. */
	for (n = 0; n < 100000; n++) {
		if (sp[0].tid && sp[1].tid &&
		    task_switches(sp[0].tid, "nonvoluntary_ctxt_switches") > 1 &&
		    task_switches(sp[1].tid, "nonvoluntary_ctxt_switches") > 1)
			break;
		usleep(100);
	}
	halt = 1;
	for (i = 0; i < 2; i++) {
		pthread_join(sp[i].t, &ret);
		EXPECT_EQ(NULL, ret);
	}
	ASSERT_EQ(0, stop(self));
	EXPECT_EQ(0, self->rs.bad);
	/* Each one's last switch out while runnable: it spun at nice 5. */
	for (i = 0; i < 2; i++) {
		last = NULL;
		for (k = find_switch(&self->rs, sp[i].tid, true, 0); k;
		     k = find_switch(&self->rs, sp[i].tid, true,
				     k->h.timestamp + 1))
			if (k->state == S_READY)
				last = k;
		k = last;
		ASSERT_NE(NULL, k) TH_LOG("spinner %d", i);
		EXPECT_EQ((__u32)sp[i].tid, k->old_tid);
		EXPECT_EQ(S_READY, k->state);
		EXPECT_EQ(W_PREEMPTED, k->reason);
		EXPECT_EQ(M_KERNEL, k->mode);
		EXPECT_EQ(TEST_PRIORITY, k->old_prio);
	}
	/* No DISPATCHER, no ReadyThread. */
	EXPECT_EQ(0, count_type(&self->rs, T_READY));
}

static void *exit_fn(void *arg)
{
	*(_Atomic pid_t *)arg = gettid_();
	return NULL;
}

/*
 * A thread's last switch is Terminated, WrTerminated; a new thread is
 * readied first by its creator (sched_wakeup_new).
 */
TEST_F(ksched, new_thread_is_readied_by_its_creator_and_ends_terminated)
{
	_Atomic pid_t tid = 0;
	const struct srec *k, *last = NULL;
	pthread_t t;

	ASSERT_EQ(0, klog_start(self->fd, SCHED_FLAGS, 0, &self->id,
				&self->cfd));
	ASSERT_EQ(0, pthread_create(&t, NULL, exit_fn, (void *)&tid));
	pthread_join(t, NULL);
	ASSERT_NE(0, tid);
	ASSERT_EQ(0, raw_wait_thread_gone(tid));
	ASSERT_EQ(0, stop(self));
	EXPECT_EQ(0, self->rs.bad);

	k = find_ready(&self->rs, tid, 0);
	ASSERT_NE(NULL, k);
	EXPECT_EQ((__u32)gettid_(), k->h.thread_id);
	EXPECT_EQ((__u32)getpid(), k->h.process_id);
	for (k = find_switch(&self->rs, tid, true, 0); k;
	     k = find_switch(&self->rs, tid, true, k->h.timestamp + 1))
		last = k;
	ASSERT_NE(NULL, last);
	EXPECT_EQ(S_TERMINATED, last->state);
	EXPECT_EQ(W_TERMINATED, last->reason);
	EXPECT_EQ(M_KERNEL, last->mode);
}

/* Each flag gives its own records only; other flags and none give none. */
TEST_F(ksched, flags_choose_the_records)
{
	static const struct {
		__u32 flags;
		bool cswitch, ready;
	} cases[] = {
		{ ETW_KFLAG_CSWITCH, true, false },
		{ ETW_KFLAG_DISPATCHER, false, true },
		{ SCHED_FLAGS, true, true },
		{ ETW_KFLAG_PROCESS | ETW_KFLAG_THREAD, false, false },
		{ 0, false, false },
	};
	struct sleeper s;
	size_t i;
	pid_t tid;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ASSERT_EQ(0, klog_start(self->fd, cases[i].flags, 0, &self->id,
					&self->cfd));
		tid = sleep_and_wake(&s);
		ASSERT_NE(0, tid);
		memset(&self->rs, 0, sizeof(self->rs));
		ASSERT_EQ(0, stop(self));
		EXPECT_EQ(0, self->rs.bad);
		EXPECT_EQ(cases[i].cswitch, count_tid(&self->rs, tid,
						      T_CSWITCH) > 0)
			TH_LOG("flags 0x%x", cases[i].flags);
		EXPECT_EQ(cases[i].ready, count_tid(&self->rs, tid, T_READY) > 0)
			TH_LOG("flags 0x%x", cases[i].flags);
		if (!cases[i].cswitch)
			EXPECT_EQ(0, count_type(&self->rs, T_CSWITCH));
		if (!cases[i].ready)
			EXPECT_EQ(0, count_type(&self->rs, T_READY));
		free(self->rs.r);
		self->rs.r = NULL;
	}
}

/*
 * UPDATE turns CSWITCH on (the next sleeper's switches are recorded) and
 * off: no CSwitch is stamped before the first UPDATE or after the second
 * returned (it waits for the probes in flight), and the sleepers before
 * and after give none then.  The one before may still be switched after
 * the first: pthread_join() returns before an exiting thread's last
 * switches, so it is checked by time, not by its id.
 */
TEST_F(ksched, update_turns_cswitch_on_and_off)
{
	struct etw_session_args q;
	pid_t before, during, after;
	struct sleeper s;
	__u64 on, off;

	ASSERT_EQ(0, klog_start(self->fd, ETW_KFLAG_PROCESS, 0, &self->id,
				&self->cfd));
	before = sleep_and_wake(&s);
	on = raw_now_ns();
	ASSERT_EQ(0, raw_klog_set_flags(self->fd, self->id,
					ETW_KFLAG_PROCESS | ETW_KFLAG_CSWITCH));
	ASSERT_EQ(0, raw_session_op(self->fd, ETW_IOC_QUERY, self->id, &q));
	EXPECT_EQ(ETW_KFLAG_PROCESS | ETW_KFLAG_CSWITCH, q.config.enable_flags);
	during = sleep_and_wake(&s);
	ASSERT_EQ(0, raw_klog_set_flags(self->fd, self->id, ETW_KFLAG_PROCESS));
	off = raw_now_ns();
	after = sleep_and_wake(&s);
	ASSERT_NE(0, before);
	ASSERT_NE(0, during);
	ASSERT_NE(0, after);
	ASSERT_EQ(0, stop(self));
	EXPECT_EQ(0, self->rs.bad);
	EXPECT_EQ(0, count_switches_outside(&self->rs, on, off));
	EXPECT_LT(0, count_tid(&self->rs, during, T_CSWITCH));
	EXPECT_EQ(0, count_tid(&self->rs, after, T_CSWITCH));
	EXPECT_EQ(0, count_type(&self->rs, T_READY));
}

/*
 * A consumer waiting in poll() is woken when a buffer fills, though only
 * the scheduler's probes (interrupts off, runqueue locks held) fill and
 * deliver buffers: their wakeups go through the session's irq_work.  The
 * flush timer is an hour, so that it delivers nothing meanwhile.
 */
struct pinger {
	pthread_t t;
	int ping[2], pong[2];
	_Atomic int *stop;
};

static void *ponger_fn(void *arg)
{
	struct pinger *p = arg;

	while (raw_wait_byte(p->ping[0]))
		raw_post_byte(p->pong[1]);
	return NULL;
}

static void *pinger_fn(void *arg)
{
	struct pinger *p = arg;
	pthread_t t;

	if (pthread_create(&t, NULL, ponger_fn, p))
		return (void *)1;
	while (!*p->stop) {
		raw_post_byte(p->ping[1]);
		raw_wait_byte(p->pong[0]);
	}
	close(p->ping[1]);
	pthread_join(t, NULL);
	return NULL;
}

TEST_F(ksched, poll_is_woken_by_buffers_the_scheduler_delivers)
{
	struct pollfd pfd;
	struct pinger p;
	_Atomic int halt = 0;
	void *ret;

	memset(&p, 0, sizeof(p));
	p.stop = &halt;
	ASSERT_EQ(0, pipe(p.ping));
	ASSERT_EQ(0, pipe(p.pong));
	ASSERT_EQ(0, klog_start(self->fd, ETW_KFLAG_CSWITCH, 3600 * 1000,
				&self->id, &self->cfd));
	ASSERT_EQ(0, pthread_create(&p.t, NULL, pinger_fn, &p));
	pfd.fd = self->cfd;
	pfd.events = POLLIN;
	EXPECT_EQ(1, poll(&pfd, 1, -1));
	EXPECT_EQ(POLLIN, pfd.revents);
	halt = 1;
	pthread_join(p.t, &ret);
	EXPECT_EQ(NULL, ret);
	ASSERT_EQ(0, stop(self));
	EXPECT_EQ(0, self->rs.bad);
	EXPECT_LT(0, count_type(&self->rs, T_CSWITCH));
	close(p.ping[0]);
	close(p.pong[0]);
	close(p.pong[1]);
}

/* --- through libetw ------------------------------------------------------ */

/*
 * StartTrace takes EVENT_TRACE_FLAG_CSWITCH and _DISPATCHER for the kernel
 * logger, and ControlTrace UPDATE turns them on and off (EnableFlags is
 * the new set); QUERY reports each set.
 */
TEST(libetw_start_and_update_take_the_flags)
{
	ULONG room = sizeof(EVENT_TRACE_PROPERTIES) + 2048;
	EVENT_TRACE_PROPERTIES *p = calloc(1, room);
	CONTROLTRACE_ID id;

	ASSERT_NE(NULL, p);
	p->Wnode.BufferSize = room;
	p->Wnode.Flags = WNODE_FLAG_TRACED_GUID;
	p->LogFileMode = EVENT_TRACE_REAL_TIME_MODE;
	p->EnableFlags = EVENT_TRACE_FLAG_CSWITCH;
	p->MaximumBuffers = MAX_BUFFERS;
	p->LoggerNameOffset = sizeof(*p);
	ASSERT_EQ(ERROR_SUCCESS, StartTraceA(&id, KERNEL_LOGGER_NAMEA, p));
	ASSERT_EQ(ERROR_SUCCESS, ControlTraceA(0, KERNEL_LOGGER_NAMEA, p,
					       EVENT_TRACE_CONTROL_QUERY));
	EXPECT_EQ((ULONG)EVENT_TRACE_FLAG_CSWITCH, p->EnableFlags);

	p->EnableFlags = EVENT_TRACE_FLAG_CSWITCH | EVENT_TRACE_FLAG_DISPATCHER;
	EXPECT_EQ(ERROR_SUCCESS, ControlTraceA(id, NULL, p,
					       EVENT_TRACE_CONTROL_UPDATE));
	p->EnableFlags = 0;
	ASSERT_EQ(ERROR_SUCCESS, ControlTraceA(0, KERNEL_LOGGER_NAMEA, p,
					       EVENT_TRACE_CONTROL_QUERY));
	EXPECT_EQ((ULONG)(EVENT_TRACE_FLAG_CSWITCH |
			  EVENT_TRACE_FLAG_DISPATCHER), p->EnableFlags);

	p->EnableFlags = EVENT_TRACE_FLAG_DISPATCHER;
	EXPECT_EQ(ERROR_SUCCESS, ControlTraceA(id, NULL, p,
					       EVENT_TRACE_CONTROL_UPDATE));
	p->EnableFlags = 0;
	ASSERT_EQ(ERROR_SUCCESS, ControlTraceA(0, KERNEL_LOGGER_NAMEA, p,
					       EVENT_TRACE_CONTROL_QUERY));
	EXPECT_EQ((ULONG)EVENT_TRACE_FLAG_DISPATCHER, p->EnableFlags);

	p->EnableFlags = 0;
	EXPECT_EQ(ERROR_SUCCESS, ControlTraceA(id, NULL, p,
					       EVENT_TRACE_CONTROL_UPDATE));
	ASSERT_EQ(ERROR_SUCCESS, ControlTraceA(0, KERNEL_LOGGER_NAMEA, p,
					       EVENT_TRACE_CONTROL_QUERY));
	EXPECT_EQ(0, p->EnableFlags);
	EXPECT_EQ(ERROR_SUCCESS, ControlTraceA(0, KERNEL_LOGGER_NAMEA, p,
					       EVENT_TRACE_CONTROL_STOP));
	free(p);
}

/* --- through etwctl ------------------------------------------------------ */

/* Run @cmd with sh; its output in @out (NUL-terminated); its status. */
static int run(const char *cmd, char *out, size_t room)
{
	FILE *f = popen(cmd, "r");
	size_t n = 0, r;

	if (!f)
		return -1;
	while (n + 1 < room && (r = fread(out + n, 1, room - 1 - n, f)) > 0)
		n += r;
	out[n] = 0;
	while (fread(&r, 1, sizeof(r), f) > 0)
		;
	return pclose(f);
}

/*
 * etwctl start -on PROC_THREAD+CSWITCH+DISPATCHER writes both into a file,
 * and etwctl dump decodes them by name, with the sleeper's thread id.
 */
TEST(etwctl_records_and_dumps_cswitch_and_readythread)
{
	static const char etl[] = "/tmp/klogger_sched_test.etl";
	size_t room = 64 << 20;
	char *out = malloc(room), cmd[256], want[64];
	struct sleeper s;
	pid_t tid;

	ASSERT_NE(NULL, out);
	unlink(etl);
	ASSERT_EQ(0, run("/etw/ctl/etwctl start \"" KLOG "\" -f "
			 "/tmp/klogger_sched_test.etl -on "
			 "PROC_THREAD+CSWITCH+DISPATCHER 2>&1", out, room))
		TH_LOG("%s", out);
	tid = sleep_and_wake(&s);
	ASSERT_EQ(0, run("/etw/ctl/etwctl stop \"" KLOG "\" 2>&1", out, room))
		TH_LOG("%s", out);
	ASSERT_NE(0, tid);
	snprintf(cmd, sizeof(cmd), "/etw/ctl/etwctl dump %s", etl);
	ASSERT_EQ(0, run(cmd, out, room));
	/* The ids in hex: the classes' Format("x"). */
	snprintf(want, sizeof(want), " OldThreadId=\"0x%X\" ", tid);
	EXPECT_NE(NULL, strstr(out, want));
	snprintf(want, sizeof(want), " TThreadId=\"0x%X\" ", tid);
	EXPECT_NE(NULL, strstr(out, want));
	EXPECT_NE(NULL, strstr(out, " op=CSwitch task=Thread "));
	EXPECT_NE(NULL, strstr(out, " op=ReadyThread task=Thread "));
	unlink(etl);
	free(out);
}

TEST_HARNESS_MAIN
