// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel logger's SYSCALL flag (kmod/etw_klogger_syscall.c) through
 * bare ioctls: a known sequence of system calls on a pinned CPU gives its
 * SysCallEnter and SysCallExit records in order, each with the call's
 * number and its return value, in Windows' PERFINFO layout
 * (Documentation/abi.rst, "System calls"); without the flag there are
 * none; UPDATE turns them on and off; with SysCallEnter in the stack list
 * (ETW_IOC_STACK_EVENTS) each enter is followed by the caller's user
 * stack, and exits get none; a member of control_gid sees its own calls
 * and zeros for root's.  Then etwctl records them into a file and dumps
 * them by name.
 */
#include <sched.h>
#include <sys/syscall.h>

#include "kselftest_harness.h"
#include "etw_raw.h"

#define KLOG		ETW_KERNEL_LOGGER_NAME
#define BUF_KB		64
#define MAX_BUFFERS	512
#define PERFINFO64	0xc011
#define HOOK_ENTER	(ETW_GROUP_PERFINFO << 8 | 51)
#define HOOK_EXIT	(ETW_GROUP_PERFINFO << 8 | 52)
#define HOOK_STACK	(ETW_GROUP_STACKWALK << 8 | 32)
#define MAX_FRAMES	192
#define ROUNDS		5
#define TEST_CPU	0

/* One SysCallEnter (value: the number) or SysCallExit (the status). */
struct call {
	__u16 cpu;
	__u16 hook;
	__u64 ts;
	__u64 value;
	size_t seq;	/* read order, which sorting keeps among equals */
};

/* One StackWalk_Event. */
struct stack {
	__u64 event_ts;
	__u32 pid, tid;
	__u32 n;
	__u64 f[MAX_FRAMES];
};

struct calls {
	struct call *c;
	size_t n, cap;
	struct stack *st;
	size_t nst, capst;
	int bad;	/* records that failed the layout check */
};

/*
 * The marker calls in a section of their own, called from another: the
 * user stack of their system calls holds a return address into the
 * caller (glibc's syscall() keeps the frame pointer, so the walk goes
 * from the marker's frame out).
 */
#define CALLER_SECTION	"etw_syscall_caller"
extern const char __start_etw_syscall_caller[], __stop_etw_syscall_caller[];

static int in_caller(__u64 ip)
{
	return ip >= (uintptr_t)__start_etw_syscall_caller &&
	       ip < (uintptr_t)__stop_etw_syscall_caller;
}

/* getppid(), close(-1), getpid(): three calls of known results. */
__attribute__((noinline))
static void marker_calls(void)
{
	syscall(SYS_getppid);
	syscall(SYS_close, -1);
	syscall(SYS_getpid);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline, section(CALLER_SECTION)))
static void marker_rounds(void)
{
	int i;

	for (i = 0; i < ROUNDS; i++)
		marker_calls();
	__asm__ volatile("" ::: "memory");
}

static int pin_to(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

/* SysCallEnter: 24 bytes; SysCallExit: 20, its padding zero. */
static int parse_call(const __u8 *rec, __u16 cpu, struct call *c)
{
	struct etw_perfinfo_header h;
	__u32 status;

	memcpy(&h, rec, sizeof(h));
	c->cpu = cpu;
	c->hook = h.hook_id;
	c->ts = h.timestamp;
	if (h.version != 2 || h.flags != ETW_SYSTEM_HEADER_FLAGS ||
	    !h.timestamp)
		return -1;
	if (h.hook_id == HOOK_ENTER) {
		memcpy(&c->value, rec + 16, 8);
		return h.size == 24 ? 0 : -1;
	}
	memcpy(&status, rec + 16, 4);
	c->value = status;
	return h.size == 20 && !rec[20] && !rec[21] && !rec[22] && !rec[23] ?
	       0 : -1;
}

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

static int grow(void **p, size_t *cap, size_t n, size_t elem)
{
	void *q;

	if (n < *cap)
		return 0;
	*cap = *cap ? 2 * *cap : 4096;
	q = realloc(*p, *cap * elem);
	if (!q)
		return -1;
	*p = q;
	return 0;
}

/* Every record of one buffer; whole records only, 0 or -1. */
static int walk(const __u8 *buf, struct calls *out)
{
	const struct etw_buffer_header *bh = (const void *)buf;
	__u32 off = ETW_BUFFER_HEADER_SIZE, size = 0;
	__u16 type, hook;

	while (off + 8 <= bh->offset) {
		memcpy(&type, buf + off + 2, 2);
		if (type == PERFINFO64 || type == ETW_SYSTEM_HEADER_TYPE_64)
			memcpy(&size, buf + off + 4, 2);
		else if (type == ETW_EVENT_HEADER_TYPE_64)
			memcpy(&size, buf + off, 2);
		else
			return -1;
		size &= 0xffff;
		if (size < 16 || off + size > bh->offset)
			return -1;
		memcpy(&hook, buf + off + 6, 2);
		if (type == PERFINFO64 && hook == HOOK_STACK) {
			if (grow((void **)&out->st, &out->capst, out->nst,
				 sizeof(*out->st)))
				return -1;
			out->bad += parse_stack(buf + off, &out->st[out->nst++]);
		} else if (type == PERFINFO64 &&
			   (hook == HOOK_ENTER || hook == HOOK_EXIT)) {
			if (grow((void **)&out->c, &out->cap, out->n,
				 sizeof(*out->c)))
				return -1;
			out->c[out->n].seq = out->n;
			out->bad += parse_call(buf + off, bh->processor_index,
					       &out->c[out->n]);
			out->n++;
		}
		off += RAW_ALIGN8(size);
	}
	return off == bh->offset ? 0 : -1;
}

static int by_cpu_and_time(const void *a, const void *b)
{
	const struct call *x = a, *y = b;

	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int klog_start(int fd, __u32 flags, __u32 *id, int *cfd)
{
	return raw_klog_start(fd, BUF_KB, MAX_BUFFERS, 0, flags, id, cfd);
}

/*
 * Stop the logger and read every buffer, the calls sorted by CPU and
 * time; its final statistics in *@st.
 */
static int klog_stop(int fd, __u32 id, int cfd, struct calls *out,
		     struct etw_session_stats *st)
{
	__u8 *buf = malloc(BUF_KB * 1024);
	struct etw_session_args a;
	ssize_t r;
	int ret = 0;

	if (!buf || raw_session_op(fd, ETW_IOC_STOP, id, &a))
		ret = -1;
	while (!ret && (r = read(cfd, buf, BUF_KB * 1024)) != 0)
		if (r != BUF_KB * 1024 || walk(buf, out))
			ret = -1;
	if (st)
		*st = a.stats;
	free(buf);
	close(cfd);
	if (out->n)
		qsort(out->c, out->n, sizeof(*out->c), by_cpu_and_time);
	return ret;
}

/* PerfInfoGuid: the class of SysCallEnter and SysCallExit. */
static const struct etw_guid perfinfo = { 0xce1dbfb4, 0x137e, 0x4da6,
	{ 0x87, 0xb0, 0x3f, 0x59, 0xaa, 0x10, 0x2c, 0xbc } };

static int stack_enters(int fd, __u32 id)
{
	struct etw_classic_event_id e = { .guid = perfinfo, .type = 51 };
	struct etw_stack_events_args a = {
		.size = sizeof(a), .flags = ETW_STACK_EVENTS_SET,
		.logger_id = id, .count = 1, .ids_ptr = (uintptr_t)&e,
	};

	return etw_ioctl(fd, ETW_IOC_STACK_EVENTS, &a);
}

/*
 * The rounds of marker_calls() found on @cpu, whole and uninterrupted:
 * enter getppid, exit @ppid, enter close, exit -EBADF, enter getpid,
 * exit @pid.  The first one's getppid enter in *@first.
 */
static int rounds_found(const struct calls *cs, __u16 cpu, __u64 ppid,
			__u64 pid, const struct call **first)
{
	const __u64 want[6][2] = {
		{ HOOK_ENTER, SYS_getppid }, { HOOK_EXIT, ppid },
		{ HOOK_ENTER, SYS_close }, { HOOK_EXIT, (__u32)-EBADF },
		{ HOOK_ENTER, SYS_getpid }, { HOOK_EXIT, pid },
	};
	size_t i, k;
	int found = 0;

	for (i = 0; i + 6 <= cs->n; i++) {
		for (k = 0; k < 6; k++) {
			const struct call *c = &cs->c[i + k];

			if (c->cpu != cpu || c->hook != want[k][0] ||
			    c->value != want[k][1])
				break;
		}
		if (k == 6) {
			if (!found++ && first)
				*first = &cs->c[i];
			i += 5;
		}
	}
	return found;
}

FIXTURE(ksys)
{
	int fd;
	int cfd;
	__u32 id;
	struct calls cs;
};

FIXTURE_SETUP(ksys)
{
	memset(&self->cs, 0, sizeof(self->cs));
	self->cfd = -1;
	self->fd = etw_open();
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, pin_to(TEST_CPU));
}

FIXTURE_TEARDOWN(ksys)
{
	if (self->cfd >= 0) {
		raw_session_op(self->fd, ETW_IOC_STOP, self->id, NULL);
		close(self->cfd);
	}
	free(self->cs.c);
	free(self->cs.st);
	close(self->fd);
}

/*
 * Each call gives its enter and exit, in order on the caller's CPU: the
 * number in SysCallAddress, the return value's low 32 bits in
 * SysCallNtStatus (close(-1)'s -EBADF as 0xfffffff7); every record has
 * Windows' layout.
 */
TEST_F(ksys, calls_give_their_number_and_status)
{
	struct etw_session_stats st;

	ASSERT_EQ(0, klog_start(self->fd, ETW_KFLAG_SYSCALL, &self->id,
				&self->cfd));
	marker_rounds();
	ASSERT_EQ(0, klog_stop(self->fd, self->id, self->cfd, &self->cs,
			       &st));
	self->cfd = -1;
	EXPECT_EQ(0, self->cs.bad);
	EXPECT_EQ(0, st.events_lost);
	EXPECT_LE(1, rounds_found(&self->cs, TEST_CPU, getppid(), getpid(),
				  NULL));
	EXPECT_EQ(0, self->cs.nst);
}

/* Without the flag a kernel logger records no system call. */
TEST_F(ksys, other_flags_record_no_calls)
{
	ASSERT_EQ(0, klog_start(self->fd, ETW_KFLAG_PROCESS, &self->id,
				&self->cfd));
	marker_rounds();
	ASSERT_EQ(0, klog_stop(self->fd, self->id, self->cfd, &self->cs,
			       NULL));
	self->cfd = -1;
	EXPECT_EQ(0, self->cs.n);
}

/*
 * UPDATE turns SYSCALL on and off (abi.rst, "The kernel logger"): no
 * record is stamped before the UPDATE that turns it on or after the one
 * that turns it off returned; the calls in between are recorded.
 */
TEST_F(ksys, update_turns_calls_on_and_off)
{
	__u64 on, off;
	size_t i, early = 0, late = 0;

	ASSERT_EQ(0, klog_start(self->fd, ETW_KFLAG_PROCESS, &self->id,
				&self->cfd));
	marker_rounds();
	on = raw_now_ns();
	ASSERT_EQ(0, raw_klog_set_flags(self->fd, self->id,
					ETW_KFLAG_PROCESS | ETW_KFLAG_SYSCALL));
	marker_rounds();
	ASSERT_EQ(0, raw_klog_set_flags(self->fd, self->id, ETW_KFLAG_PROCESS));
	off = raw_now_ns();
	marker_rounds();
	ASSERT_EQ(0, klog_stop(self->fd, self->id, self->cfd, &self->cs,
			       NULL));
	self->cfd = -1;
	EXPECT_EQ(0, self->cs.bad);
	for (i = 0; i < self->cs.n; i++) {
		early += self->cs.c[i].ts < on;
		late += self->cs.c[i].ts > off;
	}
	EXPECT_EQ(0, early);
	EXPECT_EQ(0, late);
	EXPECT_LE(1, rounds_found(&self->cs, TEST_CPU, getppid(), getpid(),
				  NULL));
}

/* The stack that names the event stamped @ts, or NULL. */
static const struct stack *stack_at(const struct calls *cs, __u64 ts)
{
	size_t i;

	for (i = 0; i < cs->nst; i++)
		if (cs->st[i].event_ts == ts)
			return &cs->st[i];
	return NULL;
}

/*
 * With SysCallEnter in the stack list every enter after the list was set
 * is followed by its StackWalk_Event and every stack names an enter: the
 * marker's getppid's names this process and thread and holds a return
 * address into marker_rounds().
 */
TEST_F(ksys, enters_have_the_callers_stack)
{
	struct etw_session_stats st;
	const struct call *first = NULL;
	const struct stack *s;
	size_t i, named;
	__u64 listed;
	__u32 k;

	ASSERT_EQ(0, klog_start(self->fd, ETW_KFLAG_SYSCALL, &self->id,
				&self->cfd));
	ASSERT_EQ(0, stack_enters(self->fd, self->id));
	listed = raw_now_ns();
	marker_rounds();
	ASSERT_EQ(0, klog_stop(self->fd, self->id, self->cfd, &self->cs,
			       &st));
	self->cfd = -1;
	EXPECT_EQ(0, self->cs.bad);
	EXPECT_EQ(0, st.events_lost);
	ASSERT_LE(1, rounds_found(&self->cs, TEST_CPU, getppid(), getpid(),
				  &first));
	s = stack_at(&self->cs, first->ts);
	ASSERT_NE(NULL, s);
	EXPECT_EQ((__u32)getpid(), s->pid);
	EXPECT_EQ((__u32)syscall(SYS_gettid), s->tid);
	for (k = 0; k < s->n && !in_caller(s->f[k]); k++)
		;
	EXPECT_LT(k, s->n) TH_LOG("%u frames, first %#llx", s->n,
				  (unsigned long long)s->f[0]);
	for (i = 0; i < self->cs.n; i++) {
		const struct call *c = &self->cs.c[i];

		if (c->hook == HOOK_ENTER && c->ts > listed)
			EXPECT_NE(NULL, stack_at(&self->cs, c->ts));
	}
	for (named = 0, k = 0; k < self->cs.nst; k++)
		for (i = 0; i < self->cs.n; i++)
			if (self->cs.c[i].hook == HOOK_ENTER &&
			    self->cs.c[i].ts == self->cs.st[k].event_ts) {
				named++;
				break;
			}
	EXPECT_EQ(self->cs.nst, named);
}

/*
 * As a member of control_gid (uid 1000): a kernel logger with SYSCALL
 * while root, the parent (@root, whose own parent is @root_ppid), makes
 * its marker calls (@go tells it to, @done that it did).  Returns 0, or
 * the step that failed.
 */
static int member_calls(int go, int done, pid_t root, pid_t root_ppid)
{
	struct calls cs = { 0 };
	size_t i, zero = 0;
	int fd, cfd, ret = 0;
	__u32 id;

	if (raw_become_member())
		return 101;
	fd = etw_open();
	if (fd < 0 || klog_start(fd, ETW_KFLAG_SYSCALL, &id, &cfd))
		return 102;
	raw_post_byte(go);
	if (raw_wait_byte(done))
		marker_rounds();
	else
		ret = 103;
	if (klog_stop(fd, id, cfd, &cs, NULL) || cs.bad)
		return ret ? ret : 104;
	if (ret)
		return ret;
	/* Its own calls as they are: its getppid() gives root. */
	if (!rounds_found(&cs, TEST_CPU, root, getpid(), NULL))
		ret = 105;
	/* Root's getppid() (@root_ppid) is not seen, its calls are zero. */
	for (i = 0; i < cs.n; i++) {
		zero += cs.c[i].hook == HOOK_ENTER && !cs.c[i].value;
		if (i && cs.c[i].hook == HOOK_EXIT &&
		    cs.c[i].value == (__u64)root_ppid &&
		    cs.c[i - 1].hook == HOOK_ENTER &&
		    cs.c[i - 1].value == SYS_getppid)
			ret = 106;
	}
	if (!ret && zero < 3 * ROUNDS)
		ret = 107;
	free(cs.c);
	free(cs.st);
	close(fd);
	return ret;
}

/*
 * A starter without CAP_SYS_PTRACE sees the calls of the processes whose
 * /proc/PID/maps it could read (abi.rst, "Who may do what") and zeros for
 * the others': a member of control_gid gets its own calls' numbers and
 * results, and root's marker calls as zero.
 */
TEST(member_sees_only_its_own_calls)
{
	pid_t pid, root = getpid(), root_ppid = getppid();
	int go[2], done[2];
	char gid[16];

	snprintf(gid, sizeof(gid), "%d", RAW_CONTROL_GROUP);
	ASSERT_EQ(0, raw_write_str(RAW_CONTROL_GID, gid));
	ASSERT_EQ(0, pipe(go));
	ASSERT_EQ(0, pipe(done));
	ASSERT_EQ(0, pin_to(TEST_CPU));
	pid = fork();
	if (!pid)
		_exit(member_calls(go[1], done[0], root, root_ppid));
	if (raw_wait_byte(go[0]))
		marker_rounds();
	raw_post_byte(done[1]);
	EXPECT_EQ(0, etw_wait_child(pid));
	raw_write_str(RAW_CONTROL_GID, "-1");
}

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
 * etwctl start -on SYSCALL -stackwalk SyscallEnter writes the calls into
 * a file, and etwctl dump decodes them by name: close(-1)'s number and
 * its status in hex, the class's Format("x").
 */
TEST(etwctl_records_and_dumps_calls)
{
	static const char etl[] = "/tmp/klogger_syscall_test.etl";
	size_t room = 64 << 20;
	char *out = malloc(room), cmd[256], want[64];

	ASSERT_NE(NULL, out);
	unlink(etl);
	ASSERT_EQ(0, run("/etw/ctl/etwctl start \"" KLOG "\" -f "
			 "/tmp/klogger_syscall_test.etl -on SYSCALL "
			 "-stackwalk SyscallEnter 2>&1", out, room))
		TH_LOG("%s", out);
	marker_rounds();
	ASSERT_EQ(0, run("/etw/ctl/etwctl stop \"" KLOG "\" 2>&1", out, room))
		TH_LOG("%s", out);
	snprintf(cmd, sizeof(cmd), "/etw/ctl/etwctl dump %s", etl);
	ASSERT_EQ(0, run(cmd, out, room));
	snprintf(want, sizeof(want), " SysCallAddress=\"0x%X\"", SYS_close);
	EXPECT_NE(NULL, strstr(out, want));
	EXPECT_NE(NULL, strstr(out, " SysCallNtStatus=\"0xFFFFFFF7\""));
	EXPECT_NE(NULL, strstr(out, " op=SysClEnter task=PerfInfo "));
	EXPECT_NE(NULL, strstr(out, " op=SysClExit task=PerfInfo "));
	unlink(etl);
	free(out);
}

TEST_HARNESS_MAIN
