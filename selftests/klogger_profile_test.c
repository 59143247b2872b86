// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel logger's PROFILE flag (kmod/etw_klogger_profile.c): a thread
 * spinning in a function of its own gives SampledProfile records whose
 * InstructionPointer lies in that function and whose ThreadId is the
 * thread's; an idle CPU gives samples of thread 0 at kernel addresses;
 * every record has Windows' PERFINFO layout (Documentation/abi.rst); an
 * UPDATE turns the sampler on and off; the sampling interval is set and
 * queried through ETW_IOC_PROFILE_INTERVAL and through libetw's
 * TraceSetInformation / TraceQueryInformation, clamped to Windows'
 * bounds, with the errors of each; a running sampler picks a new
 * interval up; a storm of samples into two small buffers nobody reads
 * counts what it loses in events_lost, and the buffers hold whole
 * records only.  With SampledProfile in the kernel logger's stack list
 * (ETW_IOC_STACK_EVENTS, TraceSetInformation's TraceStackTracingInfo)
 * each sample is followed by its StackWalk_Event, which names it and
 * holds the spinning function's caller.  A starter without the right to
 * see kernel addresses gets them zero.
 */
#include <grp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/syscall.h>

#include "evntrace.h"
#include "kselftest_harness.h"
#include "etw_raw.h"

#define KLOG		ETW_KERNEL_LOGGER_NAME
#define BUF_KB		64
#define MAX_BUFFERS	256
#define USER_UID	1000	/* the VM's user "etw" */
#define HOOK_SAMPLE	(ETW_GROUP_PERFINFO << 8 | 46)
#define HOOK_STACK	(ETW_GROUP_STACKWALK << 8 | 32)
#define MAX_FRAMES	192
#define PERFINFO64	0xc011
#define SPIN_MS		300
#define KERNEL_HALF	0xffff800000000000ull

/* One SampledProfile record, decoded. */
struct sample {
	__u64 ts;
	__u64 ip;
	__u32 tid;
};

/* One StackWalk_Event, decoded. */
struct stack {
	__u64 event_ts;
	__u32 pid, tid;
	__u32 n;
	__u64 f[MAX_FRAMES];
};

struct samples {
	struct sample *s;
	size_t n, cap;
	struct stack *st;
	size_t nst, capst;
	size_t others;	/* records of other kinds */
	int bad;	/* SampledProfile records that failed the layout check */
};

/*
 * The function the spinning thread runs, in a section of its own: its
 * bounds are the linker's __start_ and __stop_ symbols of the section.
 */
#define SPIN_SECTION	"etw_profile_spin"
#define CALLER_SECTION	"etw_profile_caller"
extern const char __start_etw_profile_spin[], __stop_etw_profile_spin[];
extern const char __start_etw_profile_caller[], __stop_etw_profile_caller[];

static atomic_bool spin_stop;

/*
 * Its count on the stack; a leaf, which keeps a frame record only with
 * -mno-omit-leaf-frame-pointer (the Makefile's): arm64's GCC omits it
 * otherwise, and the walk then misses spin_caller().
 */
__attribute__((noinline, section(SPIN_SECTION)))
static void spin_here(void)
{
	volatile unsigned long spins = 0;

	while (!atomic_load_explicit(&spin_stop, memory_order_relaxed))
		spins++;
}

/* spin_here()'s caller: its return address is in the stacks. */
__attribute__((noinline, section(CALLER_SECTION)))
static void spin_caller(void)
{
	spin_here();
	__asm__ volatile("" ::: "memory");
}

static void *spinner(void *arg)
{
	*(pid_t *)arg = (pid_t)syscall(SYS_gettid);
	spin_caller();
	return NULL;
}

/* Spin a thread in spin_here() for about @ms; its id in *@tid. */
static int spin_for(unsigned int ms, pid_t *tid)
{
	pthread_t th;

	atomic_store(&spin_stop, false);
	if (pthread_create(&th, NULL, spinner, tid))
		return -1;
	raw_sleep_ms(ms);
	atomic_store(&spin_stop, true);
	return pthread_join(th, NULL) ? -1 : 0;
}

static int in_spin(__u64 ip)
{
	return ip >= (uintptr_t)__start_etw_profile_spin &&
	       ip < (uintptr_t)__stop_etw_profile_spin;
}

static int in_caller(__u64 ip)
{
	return ip >= (uintptr_t)__start_etw_profile_caller &&
	       ip < (uintptr_t)__stop_etw_profile_caller;
}

/* StackWalk_Event: EventTimeStamp, StackProcess, StackThread, frames. */
static int parse_stack(const __u8 *rec, struct stack *st)
{
	struct etw_perfinfo_header h;

	memcpy(&h, rec, sizeof(h));
	if (h.version != 2 || h.hook_id != HOOK_STACK || h.size < 32 ||
	    (h.size - 32) % 8 || (h.size - 32) / 8 > MAX_FRAMES ||
	    h.flags != ETW_SYSTEM_HEADER_FLAGS || !h.timestamp)
		return -1;
	memcpy(&st->event_ts, rec + 16, 8);
	memcpy(&st->pid, rec + 24, 4);
	memcpy(&st->tid, rec + 28, 4);
	st->n = (h.size - 32) / 8;
	memcpy(st->f, rec + 32, 8 * st->n);
	return st->event_ts <= h.timestamp ? 0 : -1;
}

/* The stack that names sample @s, or NULL. */
static const struct stack *stack_of(const struct samples *ss,
				    const struct sample *s)
{
	size_t i;

	for (i = 0; i < ss->nst; i++)
		if (ss->st[i].event_ts == s->ts && ss->st[i].tid == s->tid)
			return &ss->st[i];
	return NULL;
}

/* PERFINFO_TRACE_HEADER, then IP, ThreadId, Count 1, Reserved 0. */
static int parse_sample(const __u8 *rec, struct sample *s)
{
	struct etw_perfinfo_header h;
	__u16 count, reserved;

	memcpy(&h, rec, sizeof(h));
	if (h.size != 32 || h.version != 2 || h.hook_id != HOOK_SAMPLE ||
	    h.flags != ETW_SYSTEM_HEADER_FLAGS || !h.timestamp)
		return -1;
	s->ts = h.timestamp;
	memcpy(&s->ip, rec + 16, 8);
	memcpy(&s->tid, rec + 24, 4);
	memcpy(&count, rec + 28, 2);
	memcpy(&reserved, rec + 30, 2);
	return count == 1 && reserved == 0 ? 0 : -1;
}

/* Every record of one buffer; whole records only, 0 or -1. */
static int walk(const __u8 *buf, struct samples *out)
{
	const struct etw_buffer_header *bh = (const void *)buf;
	__u32 off = ETW_BUFFER_HEADER_SIZE, size = 0;
	__u16 type;

	while (off + 8 <= bh->offset) {
		memcpy(&type, buf + off + 2, 2);
		if (type == PERFINFO64 || type == ETW_SYSTEM_HEADER_TYPE_64) {
			memcpy(&size, buf + off + 4, 2);
			size &= 0xffff;
		} else if (type == ETW_EVENT_HEADER_TYPE_64) {
			memcpy(&size, buf + off, 2);
			size &= 0xffff;
		} else {
			return -1;
		}
		if (size < 16 || off + size > bh->offset)
			return -1;
		if (type == PERFINFO64 && buf[off + 7] == ETW_GROUP_STACKWALK) {
			if (out->nst == out->capst) {
				out->capst = out->capst ? 2 * out->capst : 1024;
				out->st = realloc(out->st,
						  out->capst * sizeof(*out->st));
				if (!out->st)
					return -1;
			}
			out->bad += parse_stack(buf + off, &out->st[out->nst++]);
		} else if (type == PERFINFO64) {
			if (out->n == out->cap) {
				out->cap = out->cap ? 2 * out->cap : 1024;
				out->s = realloc(out->s,
						 out->cap * sizeof(*out->s));
				if (!out->s)
					return -1;
			}
			out->bad += parse_sample(buf + off, &out->s[out->n++]);
		} else if (type == ETW_SYSTEM_HEADER_TYPE_64) {
			out->others++;
		}
		off += RAW_ALIGN8(size);
	}
	return off == bh->offset ? 0 : -1;
}

static int klog_start(int fd, __u32 kb, __u32 max_buffers, __u32 mode,
		      __u32 flags, __u32 *id, int *cfd)
{
	struct etw_session_args a;
	int ret;

	raw_session_init(&a, 0);
	snprintf(a.name, sizeof(a.name), "%s", KLOG);
	a.config.buffer_kb = kb;
	a.config.max_buffers = max_buffers;
	a.config.mode = ETW_MODE_REAL_TIME | mode;
	a.config.enable_flags = flags;
	ret = etw_ioctl(fd, ETW_IOC_START, &a);
	if (ret)
		return ret;
	*id = a.logger_id;
	*cfd = raw_consumer(fd, a.logger_id);
	return *cfd < 0 ? *cfd : 0;
}

/* Stop the logger, read every buffer; its final statistics in *@st. */
static int klog_stop(int fd, __u32 id, int cfd, __u32 kb, struct samples *out,
		     struct etw_session_stats *st)
{
	__u8 *buf = malloc(kb * 1024);
	struct etw_session_args a;
	ssize_t r;
	int ret = 0;

	if (!buf || raw_session_op(fd, ETW_IOC_STOP, id, &a))
		ret = -1;
	while (!ret && (r = read(cfd, buf, kb * 1024)) != 0) {
		if (r != kb * 1024 || walk(buf, out))
			ret = -1;
	}
	if (st)
		*st = a.stats;
	close(cfd);
	free(buf);
	return ret;
}

static int klog_set_flags(int fd, __u32 id, __u32 flags)
{
	struct etw_session_args a;

	raw_session_init(&a, id);
	a.flags = ETW_UPDATE_ENABLE_FLAGS;
	a.config.enable_flags = flags;
	return etw_ioctl(fd, ETW_IOC_UPDATE, &a);
}

static int interval_op(int fd, __u32 flags, __u32 source, __u32 *interval)
{
	struct etw_profile_interval_args a = {
		.size = sizeof(a), .flags = flags, .source = source,
		.interval = *interval,
	};
	int ret = etw_ioctl(fd, ETW_IOC_PROFILE_INTERVAL, &a);

	if (!ret)
		*interval = a.interval;
	return ret;
}

static int set_interval(int fd, __u32 interval)
{
	return interval_op(fd, ETW_PROFILE_INTERVAL_SET,
			   ETW_PROFILE_SOURCE_TIME, &interval);
}

static __u32 get_interval(int fd)
{
	__u32 v = 0;

	return interval_op(fd, 0, ETW_PROFILE_SOURCE_TIME, &v) ? 0 : v;
}

FIXTURE(prof) {
	int fd;
	__u32 id;
	int cfd;
	struct samples ss;
};

FIXTURE_SETUP(prof)
{
	self->fd = etw_open();
	ASSERT_LE(0, self->fd);
	self->cfd = -1;
	memset(&self->ss, 0, sizeof(self->ss));
}

FIXTURE_TEARDOWN(prof)
{
	if (self->cfd >= 0)
		raw_session_op(self->fd, ETW_IOC_STOP, self->id, NULL);
	set_interval(self->fd, ETW_PROFILE_INTERVAL_DEFAULT);
	free(self->ss.s);
	free(self->ss.st);
	close(self->fd);
}

/* Windows' default: 10000 units of 100 ns, 1 ms (xperf -SetProfInt). */
TEST_F(prof, interval_is_one_millisecond_by_default)
{
	EXPECT_EQ(ETW_PROFILE_INTERVAL_DEFAULT, get_interval(self->fd));
	EXPECT_EQ(10000, ETW_PROFILE_INTERVAL_DEFAULT);
}

/*
 * The spinning thread's samples: in spin_here() with its thread id, and
 * nobody else's sample there; the idle CPU's: thread 0 in the kernel.
 */
TEST_F(prof, samples_name_the_spinning_function_and_thread)
{
	size_t i, here = 0, mine = 0, idle = 0;
	pid_t tid = 0;

	ASSERT_EQ(0, klog_start(self->fd, BUF_KB, MAX_BUFFERS, 0,
				ETW_KFLAG_PROFILE, &self->id, &self->cfd));
	ASSERT_EQ(0, spin_for(SPIN_MS, &tid));
	ASSERT_EQ(0, klog_stop(self->fd, self->id, self->cfd, BUF_KB,
			       &self->ss, NULL));
	self->cfd = -1;
	EXPECT_EQ(0, self->ss.bad);
	EXPECT_EQ(0, self->ss.others);
	for (i = 0; i < self->ss.n; i++) {
		const struct sample *s = &self->ss.s[i];

		if (in_spin(s->ip)) {
			here++;
			EXPECT_EQ((__u32)tid, s->tid);
		}
		mine += s->tid == (__u32)tid;
		if (!s->tid) {
			idle++;
			EXPECT_LE(KERNEL_HALF, s->ip);
		}
	}
	ksft_print_msg("%zu samples: %zu in spin_here(), %zu of its thread, %zu idle\n",
		       self->ss.n, here, mine, idle);
	EXPECT_LT(0, here);
	EXPECT_LE(here, mine);
	EXPECT_LT(0, idle);
}

/* No PROFILE, no sample. */
TEST_F(prof, no_flag_no_sample)
{
	pid_t tid;

	ASSERT_EQ(0, klog_start(self->fd, BUF_KB, MAX_BUFFERS, 0,
				ETW_KFLAG_PROCESS, &self->id, &self->cfd));
	ASSERT_EQ(0, spin_for(50, &tid));
	ASSERT_EQ(0, klog_stop(self->fd, self->id, self->cfd, BUF_KB,
			       &self->ss, NULL));
	self->cfd = -1;
	EXPECT_EQ(0, self->ss.n);
}

/*
 * UPDATE turns the sampler on (samples after the call began) and off (no
 * sample after it returned).
 */
TEST_F(prof, update_turns_sampling_on_and_off)
{
	__u64 before_on, after_off;
	size_t i, here = 0;
	pid_t tid;

	ASSERT_EQ(0, klog_start(self->fd, BUF_KB, MAX_BUFFERS, 0,
				ETW_KFLAG_PROCESS, &self->id, &self->cfd));
	ASSERT_EQ(0, spin_for(50, &tid));
	before_on = raw_now_ns();
	ASSERT_EQ(0, klog_set_flags(self->fd, self->id,
				    ETW_KFLAG_PROCESS | ETW_KFLAG_PROFILE));
	ASSERT_EQ(0, spin_for(SPIN_MS, &tid));
	ASSERT_EQ(0, klog_set_flags(self->fd, self->id, ETW_KFLAG_PROCESS));
	after_off = raw_now_ns();
	ASSERT_EQ(0, spin_for(100, &tid));
	ASSERT_EQ(0, klog_stop(self->fd, self->id, self->cfd, BUF_KB,
			       &self->ss, NULL));
	self->cfd = -1;
	EXPECT_EQ(0, self->ss.bad);
	for (i = 0; i < self->ss.n; i++) {
		EXPECT_LT(before_on, self->ss.s[i].ts);
		EXPECT_GT(after_off, self->ss.s[i].ts);
		here += in_spin(self->ss.s[i].ip);
	}
	EXPECT_LT(0, here);
}

/* Set and query; out of Windows' bounds (1221 .. 10000000) is clamped. */
TEST_F(prof, interval_set_query_and_clamped)
{
	__u32 v;

	EXPECT_EQ(0, set_interval(self->fd, 20000));
	EXPECT_EQ(20000, get_interval(self->fd));
	v = 1;
	EXPECT_EQ(0, interval_op(self->fd, ETW_PROFILE_INTERVAL_SET,
				 ETW_PROFILE_SOURCE_TIME, &v));
	EXPECT_EQ(1221, v);
	EXPECT_EQ(1221, get_interval(self->fd));
	v = 0xffffffff;
	EXPECT_EQ(0, interval_op(self->fd, ETW_PROFILE_INTERVAL_SET,
				 ETW_PROFILE_SOURCE_TIME, &v));
	EXPECT_EQ(10000000, v);
	EXPECT_EQ(10000000, get_interval(self->fd));
}

/*
 * Unknown flags: EINVAL; setting another source: EOPNOTSUPP, querying it:
 * interval 0; a size below the first published one: EINVAL.
 */
TEST_F(prof, interval_errors)
{
	struct etw_profile_interval_args a = { .size = 12 };
	__u32 v = 5000;

	EXPECT_EQ(-EINVAL, interval_op(self->fd, 0x2, 0, &v));
	EXPECT_EQ(-EOPNOTSUPP, interval_op(self->fd, ETW_PROFILE_INTERVAL_SET,
					   1, &v));
	v = 77;
	EXPECT_EQ(0, interval_op(self->fd, 0, 1, &v));
	EXPECT_EQ(0, v);
	EXPECT_EQ(-EINVAL, etw_ioctl(self->fd, ETW_IOC_PROFILE_INTERVAL, &a));
	EXPECT_EQ(ETW_PROFILE_INTERVAL_DEFAULT, get_interval(self->fd));
}

/* Without the right to control sessions: query yes, set EPERM. */
TEST_F(prof, interval_set_needs_privilege)
{
	pid_t pid = fork();

	if (!pid) {
		__u32 v = 5000;
		int fd;

		if (setgroups(0, NULL) || setresgid(USER_UID, USER_UID, USER_UID) ||
		    setresuid(USER_UID, USER_UID, USER_UID))
			_exit(100);
		fd = etw_open();
		if (fd < 0)
			_exit(101);
		if (get_interval(fd) != ETW_PROFILE_INTERVAL_DEFAULT)
			_exit(102);
		if (interval_op(fd, ETW_PROFILE_INTERVAL_SET, 0, &v) != -EPERM)
			_exit(103);
		v = 5000;
		if (TraceSetInformation(0, TraceSampledProfileIntervalInfo,
					&v, 8) != ERROR_PRIVILEGE_NOT_HELD)
			_exit(104);
		_exit(0);
	}
	EXPECT_EQ(0, etw_wait_child(pid));
	EXPECT_EQ(ETW_PROFILE_INTERVAL_DEFAULT, get_interval(self->fd));
}

/*
 * libetw: TraceSetInformation and TraceQueryInformation of
 * TraceSampledProfileIntervalInfo (TRACE_PROFILE_INTERVAL, any session
 * handle), and the codes of TraceSetInformation's page on Microsoft
 * Learn: ERROR_BAD_LENGTH below the structure's size,
 * ERROR_INVALID_PARAMETER for no buffer, ERROR_NOT_SUPPORTED.
 */
TEST_F(prof, libetw_interval_round_trip_and_codes)
{
	TRACE_PROFILE_INTERVAL t = { .Source = 0, .Interval = 25000 };
	ULONG ret_len = 0;

	EXPECT_EQ(ERROR_SUCCESS,
		  TraceSetInformation(0, TraceSampledProfileIntervalInfo, &t,
				      sizeof(t)));
	t.Interval = 0;
	EXPECT_EQ(ERROR_SUCCESS,
		  TraceQueryInformation(0, TraceSampledProfileIntervalInfo, &t,
					sizeof(t), &ret_len));
	EXPECT_EQ(25000, t.Interval);
	EXPECT_EQ(sizeof(t), ret_len);
	t.Interval = 100;
	EXPECT_EQ(ERROR_SUCCESS,
		  TraceSetInformation(0, TraceSampledProfileIntervalInfo, &t,
				      sizeof(t)));
	EXPECT_EQ(ERROR_SUCCESS,
		  TraceQueryInformation(0, TraceSampledProfileIntervalInfo, &t,
					sizeof(t), NULL));
	EXPECT_EQ(1221, t.Interval);
	EXPECT_EQ(ERROR_BAD_LENGTH,
		  TraceSetInformation(0, TraceSampledProfileIntervalInfo, &t,
				      4));
	EXPECT_EQ(ERROR_BAD_LENGTH,
		  TraceQueryInformation(0, TraceSampledProfileIntervalInfo, &t,
					4, NULL));
	EXPECT_EQ(ERROR_INVALID_PARAMETER,
		  TraceSetInformation(0, TraceSampledProfileIntervalInfo, NULL,
				      sizeof(t)));
	t.Source = 1;
	EXPECT_EQ(ERROR_NOT_SUPPORTED,
		  TraceSetInformation(0, TraceSampledProfileIntervalInfo, &t,
				      sizeof(t)));
	t.Interval = 5;
	EXPECT_EQ(ERROR_SUCCESS,
		  TraceQueryInformation(0, TraceSampledProfileIntervalInfo, &t,
					sizeof(t), NULL));
	EXPECT_EQ(0, t.Interval);
}

/*
 * A running sampler at 1 s picks up 0.1221 ms at once: the spinner, run
 * for far less than a second after the change, is sampled many times.
 */
TEST_F(prof, running_sampler_picks_up_a_new_interval)
{
	size_t i, here = 0;
	pid_t tid;

	ASSERT_EQ(0, set_interval(self->fd, ETW_PROFILE_INTERVAL_MAX));
	ASSERT_EQ(0, klog_start(self->fd, BUF_KB, MAX_BUFFERS, 0,
				ETW_KFLAG_PROFILE, &self->id, &self->cfd));
	ASSERT_EQ(0, set_interval(self->fd, ETW_PROFILE_INTERVAL_MIN));
	ASSERT_EQ(0, spin_for(100, &tid));
	ASSERT_EQ(0, klog_stop(self->fd, self->id, self->cfd, BUF_KB,
			       &self->ss, NULL));
	self->cfd = -1;
	for (i = 0; i < self->ss.n; i++)
		here += in_spin(self->ss.s[i].ip);
	EXPECT_LT(2, here);
}

/*
 * A storm: the shortest interval into one stream of two 4 KiB buffers
 * nobody reads until the stop.  What was not recorded is counted in
 * events_lost, every record counted written was delivered, and the
 * buffers hold whole, well-formed records only.
 */
TEST_F(prof, storm_counts_every_loss)
{
	struct etw_session_stats st;
	pid_t tid;

	ASSERT_EQ(0, set_interval(self->fd, ETW_PROFILE_INTERVAL_MIN));
	ASSERT_EQ(0, klog_start(self->fd, 4, 1, ETW_MODE_NO_PER_PROCESSOR,
				ETW_KFLAG_PROFILE, &self->id, &self->cfd));
	ASSERT_EQ(0, spin_for(SPIN_MS, &tid));
	ASSERT_EQ(0, klog_stop(self->fd, self->id, self->cfd, 4, &self->ss,
			       &st));
	self->cfd = -1;
	ksft_print_msg("storm: %zu samples delivered, %llu lost\n", self->ss.n,
		       (unsigned long long)st.events_lost);
	EXPECT_EQ(0, self->ss.bad);
	EXPECT_EQ(self->ss.n, st.events_written);
	EXPECT_LT(0, st.events_lost);
	EXPECT_LT(self->ss.n, st.events_lost);
}

/* --- stacks ------------------------------------------------------------- */

/* PerfInfoGuid, SampledProfile's class, and StackWalkGuid. */
static const struct etw_guid perfinfo = { 0xce1dbfb4, 0x137e, 0x4da6,
	{ 0x87, 0xb0, 0x3f, 0x59, 0xaa, 0x10, 0x2c, 0xbc } };
static const struct etw_guid process_guid = { 0x3d6fa8d0, 0xfe05, 0x11d0,
	{ 0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c } };

static int stack_events(int fd, __u32 flags, __u32 id,
			struct etw_classic_event_id *ids, __u32 *count)
{
	struct etw_stack_events_args a = {
		.size = sizeof(a), .flags = flags, .logger_id = id,
		.count = *count, .ids_ptr = (uintptr_t)ids,
	};
	int ret = etw_ioctl(fd, ETW_IOC_STACK_EVENTS, &a);

	*count = a.count;
	return ret;
}

static int stack_samples(int fd, __u32 id)
{
	struct etw_classic_event_id e = { .guid = perfinfo, .type = 46 };
	__u32 n = 1;

	return stack_events(fd, ETW_STACK_EVENTS_SET, id, &e, &n);
}

/*
 * Each sample after the list was set is followed by the StackWalk_Event
 * that names it (its timestamp and thread): the spinner's start at the sampled instruction,
 * in this process, and hold spin_caller(); the idle CPU's start at the
 * sampled kernel instruction.
 */
TEST_F(prof, samples_have_stacks_with_the_caller)
{
	size_t i, here = 0, with_caller = 0, idle = 0;
	const struct stack *st;
	pid_t tid = 0;
	__u64 listed;
	__u32 k;

	ASSERT_EQ(0, klog_start(self->fd, BUF_KB, MAX_BUFFERS, 0,
				ETW_KFLAG_PROFILE, &self->id, &self->cfd));
	ASSERT_EQ(0, stack_samples(self->fd, self->id));
	listed = raw_now_ns();
	ASSERT_EQ(0, spin_for(SPIN_MS, &tid));
	ASSERT_EQ(0, klog_stop(self->fd, self->id, self->cfd, BUF_KB,
			       &self->ss, NULL));
	self->cfd = -1;
	EXPECT_EQ(0, self->ss.bad);
	for (i = 0; i < self->ss.n; i++) {
		const struct sample *s = &self->ss.s[i];

		/* Those before the list was set have none. */
		if ((!in_spin(s->ip) && s->tid) || s->ts <= listed)
			continue;
		st = stack_of(&self->ss, s);
		ASSERT_NE(NULL, st) TH_LOG("sample %zu", i);
		ASSERT_LT(0, st->n);
		EXPECT_EQ(s->ip, st->f[0]);
		if (!s->tid) {
			idle++;
			EXPECT_EQ(0, st->pid);
			continue;
		}
		here++;
		EXPECT_EQ((__u32)getpid(), st->pid);
		for (k = 1; k < st->n && !in_caller(st->f[k]); k++)
			;
		with_caller += k < st->n;
	}
	ksft_print_msg("%zu samples in spin_here(), %zu stacks with its caller, %zu idle\n",
		       here, with_caller, idle);
	EXPECT_LT(0, here);
	EXPECT_LT(0, with_caller);
	EXPECT_LT(0, idle);
}

/* Without the list, no stack. */
TEST_F(prof, no_stack_list_no_stack)
{
	pid_t tid;

	ASSERT_EQ(0, klog_start(self->fd, BUF_KB, MAX_BUFFERS, 0,
				ETW_KFLAG_PROFILE, &self->id, &self->cfd));
	ASSERT_EQ(0, spin_for(50, &tid));
	ASSERT_EQ(0, klog_stop(self->fd, self->id, self->cfd, BUF_KB,
			       &self->ss, NULL));
	self->cfd = -1;
	EXPECT_LT(0, self->ss.n);
	EXPECT_EQ(0, self->ss.nst);
}

/*
 * The list is set, read back (a short room gets the count), cleared;
 * EINVAL for unknown flags, 257 entries, a reserved byte and a session
 * that is not the kernel logger; ENOENT for one that does not run.
 */
TEST_F(prof, stack_list_set_get_and_errors)
{
	struct etw_classic_event_id ids[3] = {
		{ .guid = perfinfo, .type = 46 },
		{ .guid = process_guid, .type = 1 },
	}, got[3];
	__u32 n = 2, other;

	ASSERT_EQ(0, klog_start(self->fd, BUF_KB, MAX_BUFFERS, 0,
				ETW_KFLAG_PROCESS, &self->id, &self->cfd));
	EXPECT_EQ(0, stack_events(self->fd, ETW_STACK_EVENTS_SET, self->id,
				  ids, &n));
	n = 3;
	memset(got, 0xa5, sizeof(got));
	EXPECT_EQ(0, stack_events(self->fd, 0, self->id, got, &n));
	EXPECT_EQ(2, n);
	EXPECT_EQ(0, memcmp(ids, got, 2 * sizeof(ids[0])));
	n = 1;
	EXPECT_EQ(0, stack_events(self->fd, 0, self->id, got, &n));
	EXPECT_EQ(2, n);
	n = 0;
	EXPECT_EQ(0, stack_events(self->fd, ETW_STACK_EVENTS_SET, self->id,
				  NULL, &n));
	n = 3;
	EXPECT_EQ(0, stack_events(self->fd, 0, self->id, got, &n));
	EXPECT_EQ(0, n);
	n = 1;
	EXPECT_EQ(-EINVAL, stack_events(self->fd, 0x2, self->id, ids, &n));
	n = ETW_MAX_STACK_EVENTS + 1;
	EXPECT_EQ(-EINVAL, stack_events(self->fd, ETW_STACK_EVENTS_SET,
					self->id, ids, &n));
	ids[2].guid = perfinfo;
	ids[2].reserved[6] = 1;
	n = 1;
	EXPECT_EQ(-EINVAL, stack_events(self->fd, ETW_STACK_EVENTS_SET,
					self->id, &ids[2], &n));
	ASSERT_EQ(0, raw_start(self->fd, "prof-other", ETW_MODE_REAL_TIME, 4,
			       0, &other));
	n = 1;
	EXPECT_EQ(-EINVAL, stack_events(self->fd, ETW_STACK_EVENTS_SET, other,
					ids, &n));
	EXPECT_EQ(0, raw_session_op(self->fd, ETW_IOC_STOP, other, NULL));
	n = 1;
	EXPECT_EQ(-ENOENT, stack_events(self->fd, ETW_STACK_EVENTS_SET, other,
					ids, &n));
}

/*
 * ETW_IOC_STACK_EVENTS grows as the other size-first ioctls: below its
 * first size EINVAL, a larger caller's zero tail accepted, a non-zero
 * one E2BIG (abi.rst, "Struct sizes").
 */
TEST_F(prof, stack_list_sizes)
{
	struct {
		struct etw_stack_events_args a;
		__u64 tail;
	} big;

	ASSERT_EQ(0, klog_start(self->fd, BUF_KB, MAX_BUFFERS, 0,
				ETW_KFLAG_PROFILE, &self->id, &self->cfd));
	memset(&big, 0, sizeof(big));
	big.a.size = ETW_STACK_EVENTS_ARGS_SIZE_VER0 - 1;
	big.a.logger_id = self->id;
	EXPECT_EQ(-EINVAL, etw_ioctl(self->fd, ETW_IOC_STACK_EVENTS, &big));
	big.a.size = sizeof(big);
	EXPECT_EQ(0, etw_ioctl(self->fd, ETW_IOC_STACK_EVENTS, &big));
	EXPECT_EQ(0, big.a.count);
	/* The reply set size to the bytes meaningful to both. */
	EXPECT_EQ(ETW_STACK_EVENTS_ARGS_SIZE_VER0, big.a.size);
	big.a.size = sizeof(big);
	big.tail = 1;
	EXPECT_EQ(-E2BIG, etw_ioctl(self->fd, ETW_IOC_STACK_EVENTS, &big));
}

/*
 * libetw: TraceSetInformation(TraceStackTracingInfo) with an array of
 * CLASSIC_EVENT_ID, read back by TraceQueryInformation; a length that is
 * not whole entries is ERROR_BAD_LENGTH, more than 256 entries (the
 * limit of TraceSetInformation's page) and another session
 * ERROR_INVALID_PARAMETER.
 */
TEST_F(prof, libetw_stack_tracing_info)
{
	CLASSIC_EVENT_ID ids[2], got[2];
	ULONG len = 0;
	__u32 other;

	memset(ids, 0, sizeof(ids));
	memcpy(&ids[0].EventGuid, &perfinfo, sizeof(GUID));
	ids[0].Type = 46;
	memcpy(&ids[1].EventGuid, &process_guid, sizeof(GUID));
	ids[1].Type = 1;
	ASSERT_EQ(0, klog_start(self->fd, BUF_KB, MAX_BUFFERS, 0,
				ETW_KFLAG_PROFILE, &self->id, &self->cfd));
	EXPECT_EQ(ERROR_SUCCESS,
		  TraceSetInformation(self->id, TraceStackTracingInfo, ids,
				      sizeof(ids)));
	EXPECT_EQ(ERROR_SUCCESS,
		  TraceQueryInformation(self->id, TraceStackTracingInfo, got,
					sizeof(got), &len));
	EXPECT_EQ(sizeof(ids), len);
	EXPECT_EQ(0, memcmp(ids, got, sizeof(ids)));
	EXPECT_EQ(ERROR_BAD_LENGTH,
		  TraceSetInformation(self->id, TraceStackTracingInfo, ids,
				      sizeof(ids) - 1));
	EXPECT_EQ(ERROR_INVALID_PARAMETER,
		  TraceSetInformation(self->id, TraceStackTracingInfo, ids,
				      257 * sizeof(ids[0])));
	ASSERT_EQ(0, raw_start(self->fd, "prof-libetw", ETW_MODE_REAL_TIME, 4,
			       0, &other));
	EXPECT_EQ(ERROR_INVALID_PARAMETER,
		  TraceSetInformation(other, TraceStackTracingInfo, ids,
				      sizeof(ids)));
	EXPECT_EQ(0, raw_session_op(self->fd, ETW_IOC_STOP, other, NULL));
	EXPECT_EQ(ERROR_SUCCESS,
		  TraceSetInformation(self->id, TraceStackTracingInfo, NULL, 0));
	EXPECT_EQ(ERROR_SUCCESS,
		  TraceQueryInformation(self->id, TraceStackTracingInfo, got,
					sizeof(got), &len));
	EXPECT_EQ(0, len);
}

#define CPU1_ONLINE	"/sys/devices/system/cpu/cpu1/online"

/* --- what a delegated controller's samples show -------------------------- */

/*
 * As a member of control_gid (uid 1000, no capability): a kernel logger
 * with PROFILE and stacks; its own spinner's samples and stacks show
 * their addresses, the idle CPU's kernel addresses are zero.  Returns
 * 0, or the step that failed.
 */
static int member_samples(void)
{
	size_t i, k, own = 0, idle = 0;
	struct samples ss = { 0 };
	const struct stack *st;
	int fd, cfd, ret = 0;
	pid_t tid = 0;
	__u32 id;

	if (raw_become_member())
		return 101;
	fd = etw_open();
	if (fd < 0 || klog_start(fd, BUF_KB, MAX_BUFFERS, 0, ETW_KFLAG_PROFILE,
				 &id, &cfd))
		return 102;
	if (stack_samples(fd, id) || spin_for(SPIN_MS, &tid) ||
	    klog_stop(fd, id, cfd, BUF_KB, &ss, NULL) || ss.bad)
		return 103;
	for (i = 0; i < ss.n && !ret; i++) {
		const struct sample *s = &ss.s[i];

		st = stack_of(&ss, s);
		if (s->tid == (__u32)tid && in_spin(s->ip)) {
			own++;
			if (st && st->f[0] != s->ip)
				ret = 104;
		} else if (!s->tid) {
			idle++;
			if (s->ip)
				ret = 105;
			for (k = 0; st && k < st->n; k++)
				if (st->f[k])
					ret = 106;
		}
	}
	if (!ret && (!own || !idle))
		ret = 107;
	free(ss.s);
	free(ss.st);
	close(fd);
	return ret;
}

/*
 * Kernel addresses only for a starter that may see them (abi.rst, "Who
 * may do what"): a member of control_gid without CAP_SYSLOG, CAP_PERFMON
 * or CAP_SYS_ADMIN gets the idle CPU's samples and stacks with zero
 * addresses, and its own process's as they are.
 */
TEST(member_sees_no_kernel_address)
{
	char gid[16];
	pid_t pid;

	snprintf(gid, sizeof(gid), "%d", RAW_CONTROL_GROUP);
	ASSERT_EQ(0, raw_write_str(RAW_CONTROL_GID, gid));
	pid = fork();
	if (!pid)
		_exit(member_samples());
	EXPECT_EQ(0, etw_wait_child(pid));
	raw_write_str(RAW_CONTROL_GID, "-1");
}

/*
 * A CPU that goes offline while the sampler runs stops sampling and one
 * that comes online starts; the records stay whole and the spinner is
 * sampled on the CPU left.
 */
TEST_F(prof, cpu_offline_and_online_while_sampling)
{
	size_t i, here = 0;
	pid_t tid;

	if (access(CPU1_ONLINE, W_OK))
		SKIP(return, "CPU 1 cannot go offline");
	ASSERT_EQ(0, klog_start(self->fd, BUF_KB, MAX_BUFFERS, 0,
				ETW_KFLAG_PROFILE, &self->id, &self->cfd));
	ASSERT_EQ(0, spin_for(50, &tid));
	ASSERT_EQ(0, raw_write_str(CPU1_ONLINE, "0"));
	EXPECT_EQ(0, spin_for(100, &tid));
	ASSERT_EQ(0, raw_write_str(CPU1_ONLINE, "1"));
	EXPECT_EQ(0, spin_for(50, &tid));
	ASSERT_EQ(0, klog_stop(self->fd, self->id, self->cfd, BUF_KB,
			       &self->ss, NULL));
	self->cfd = -1;
	EXPECT_EQ(0, self->ss.bad);
	for (i = 0; i < self->ss.n; i++)
		here += in_spin(self->ss.s[i].ip);
	EXPECT_LT(0, here);
}

TEST_HARNESS_MAIN
