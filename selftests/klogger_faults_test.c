// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel logger's MEMORY_PAGE_FAULTS flag (kmod/etw_klogger_faults.c)
 * through bare ioctls: writing to each page of a fresh anonymous mapping
 * gives one PageFault record per page, in this thread, TransitionFault
 * (a minor fault), with the written address and an instruction of the
 * writing function, in Windows' layout (Documentation/abi.rst, "Page
 * faults"), and nothing lost; PROCESS alone gives none; UPDATE turns them
 * on and off; a control_gid member sees its own faults and only zeros for
 * root's, and no kernel address.  Then etwctl records them into a file
 * and dumps them by name.
 */
#include <sys/mman.h>
#include <sys/syscall.h>

#include "kselftest_harness.h"
#include "etw_raw.h"

#define KLOG		ETW_KERNEL_LOGGER_NAME
#define BUF_KB		64
#define MAX_BUFFERS	512
#define PAGES		64
#define PAGE		4096
#define OFFSET		8	/* where in each page the test writes */
#define T_TRANSITION	10
#define T_HARD		14
#define KERNEL_HALF	0xffff800000000000ull	/* kernel addresses from here */

/* One PageFault record. */
struct fault {
	__u32 tid, pid;
	__u8 type;
	__u64 ts, va, pc;
};

struct faults {
	struct fault *f;
	size_t n, cap;
	int bad;	/* records that failed the layout check */
};

/* The writes, in a section of their own: their instructions are in it. */
#define TOUCH_SECTION	"etw_fault_touch"
extern const char __start_etw_fault_touch[], __stop_etw_fault_touch[];

static int in_touch(__u64 pc)
{
	return pc >= (uintptr_t)__start_etw_fault_touch &&
	       pc < (uintptr_t)__stop_etw_fault_touch;
}

__attribute__((noinline, section(TOUCH_SECTION)))
static void touch_pages(volatile char *p, size_t pages)
{
	size_t i;

	for (i = 0; i < pages; i++)
		p[i * PAGE + OFFSET] = 1;
}

/*
 * A fresh private anonymous mapping of @pages pages, without huge pages
 * (EINVAL: the kernel has none; ENOSYS: nor madvise()).
 */
static char *fresh_pages(size_t pages)
{
	char *p = mmap(NULL, pages * PAGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	if (madvise(p, pages * PAGE, MADV_NOHUGEPAGE) && errno != EINVAL &&
	    errno != ENOSYS) {
		munmap(p, pages * PAGE);
		return NULL;
	}
	return p;
}

/* SYSTEM_TRACE_HEADER, version 2, then 16 bytes. */
static int parse_fault(const __u8 *rec, struct fault *f)
{
	struct etw_system_header h;

	memcpy(&h, rec, sizeof(h));
	f->tid = h.thread_id;
	f->pid = h.process_id;
	f->type = h.hook_id & 0xff;
	f->ts = h.timestamp;
	memcpy(&f->va, rec + 32, 8);
	memcpy(&f->pc, rec + 40, 8);
	return h.version == 2 && h.size == 48 && h.flags ==
	       ETW_SYSTEM_HEADER_FLAGS && !h.kernel_time && !h.user_time &&
	       h.timestamp && (f->type == T_TRANSITION || f->type == T_HARD) ?
	       0 : -1;
}

/* Every record of one buffer, the faults kept; 0 or -1. */
static int walk(const __u8 *buf, struct faults *out)
{
	const struct etw_buffer_header *bh = (const void *)buf;
	__u32 off = ETW_BUFFER_HEADER_SIZE, size = 0;
	__u16 type, hook;

	while (off + 8 <= bh->offset) {
		memcpy(&type, buf + off + 2, 2);
		if (type == ETW_SYSTEM_HEADER_TYPE_64 || type == 0xc011)
			memcpy(&size, buf + off + 4, 2);
		else if (type == ETW_EVENT_HEADER_TYPE_64)
			memcpy(&size, buf + off, 2);
		else
			return -1;
		size &= 0xffff;
		if (size < 16 || off + size > bh->offset)
			return -1;
		memcpy(&hook, buf + off + 6, 2);
		if (type == ETW_SYSTEM_HEADER_TYPE_64 &&
		    hook >> 8 == ETW_GROUP_MEMORY) {
			if (out->n == out->cap) {
				struct fault *f;

				out->cap = out->cap ? 2 * out->cap : 4096;
				f = realloc(out->f, out->cap * sizeof(*f));
				if (!f)
					return -1;
				out->f = f;
			}
			out->bad += parse_fault(buf + off, &out->f[out->n++]);
		}
		off += RAW_ALIGN8(size);
	}
	return off == bh->offset ? 0 : -1;
}

static int klog_start(int fd, __u32 flags, __u32 *id, int *cfd)
{
	return raw_klog_start(fd, BUF_KB, MAX_BUFFERS, 0, flags, id, cfd);
}

/* Stop the logger and read every buffer; its events_lost in *@lost. */
static int klog_stop(int fd, __u32 id, int cfd, struct faults *out,
		     __u64 *lost)
{
	__u8 *buf = malloc(BUF_KB * 1024);
	struct etw_session_args a;
	ssize_t r;
	int ret = 0;

	memset(&a, 0, sizeof(a));
	if (!buf || raw_session_op(fd, ETW_IOC_STOP, id, &a))
		ret = -1;
	while (!ret && (r = read(cfd, buf, BUF_KB * 1024)) != 0)
		if (r != BUF_KB * 1024 || walk(buf, out))
			ret = -1;
	if (lost)
		*lost = a.stats.events_lost;
	free(buf);
	close(cfd);
	return ret;
}

static pid_t gettid_(void)
{
	return (pid_t)syscall(SYS_gettid);
}

/* The faults of thread @tid at addresses in @p's @pages pages. */
static size_t faults_in(const struct faults *fs, pid_t tid, const char *p,
			size_t pages)
{
	size_t i, n = 0;

	for (i = 0; i < fs->n; i++)
		n += fs->f[i].tid == (__u32)tid &&
		     fs->f[i].va >= (uintptr_t)p &&
		     fs->f[i].va < (uintptr_t)p + pages * PAGE;
	return n;
}

/*
 * Each page's fault exactly once, at the written address, TransitionFault
 * (a minor fault: the PageFault_TypeGroup1 class page's type 10), from
 * an instruction of touch_pages(), named by this thread and process.
 */
static int check_touched(const struct faults *fs, pid_t tid, const char *p,
			 size_t pages)
{
	unsigned char seen[PAGES] = { 0 };
	size_t i, page;

	for (i = 0; i < fs->n; i++) {
		const struct fault *f = &fs->f[i];

		if (f->tid != (__u32)tid || f->va < (uintptr_t)p ||
		    f->va >= (uintptr_t)p + pages * PAGE)
			continue;
		page = (f->va - (uintptr_t)p) / PAGE;
		if (f->va != (uintptr_t)p + page * PAGE + OFFSET ||
		    f->type != T_TRANSITION || !in_touch(f->pc) ||
		    f->pid != (__u32)getpid() || seen[page]++)
			return -1;
	}
	for (page = 0; page < pages; page++)
		if (!seen[page])
			return -1;
	return 0;
}

FIXTURE(faults) {
	int fd;
	__u32 id;
	int cfd;
	struct faults fs;
	char *p;
};

FIXTURE_SETUP(faults)
{
	self->fd = etw_open();
	ASSERT_GE(self->fd, 0);
	self->cfd = -1;
	memset(&self->fs, 0, sizeof(self->fs));
	self->p = fresh_pages(PAGES);
	ASSERT_NE(NULL, self->p);
}

FIXTURE_TEARDOWN(faults)
{
	if (self->cfd >= 0)
		raw_session_op(self->fd, ETW_IOC_STOP, self->id, NULL);
	free(self->fs.f);
	munmap(self->p, PAGES * PAGE);
	close(self->fd);
}

static int stop(FIXTURE_DATA(faults) *self, __u64 *lost)
{
	int cfd = self->cfd;

	self->cfd = -1;
	return klog_stop(self->fd, self->id, cfd, &self->fs, lost);
}

TEST_F(faults, each_fresh_page_faults_once)
{
	__u64 lost = 1;

	ASSERT_EQ(0, klog_start(self->fd, ETW_KFLAG_PAGE_FAULTS, &self->id,
				&self->cfd));
	touch_pages(self->p, PAGES);
	/* Written again: present now, no fault. */
	touch_pages(self->p, PAGES);
	ASSERT_EQ(0, stop(self, &lost));
	EXPECT_EQ(0, self->fs.bad);
	EXPECT_EQ(0, lost);
	EXPECT_EQ(PAGES, faults_in(&self->fs, gettid_(), self->p, PAGES));
	EXPECT_EQ(0, check_touched(&self->fs, gettid_(), self->p, PAGES));
}

TEST_F(faults, process_alone_records_no_fault)
{
	ASSERT_EQ(0, klog_start(self->fd, ETW_KFLAG_PROCESS, &self->id,
				&self->cfd));
	touch_pages(self->p, PAGES);
	ASSERT_EQ(0, stop(self, NULL));
	EXPECT_EQ(0, self->fs.n);
}

/*
 * UPDATE turns the faults on and off (ControlTrace's
 * EVENT_TRACE_CONTROL_UPDATE changes the kernel logger's EnableFlags):
 * of three thirds of the pages written before, during and after, only
 * the middle one's are recorded.
 */
TEST_F(faults, update_turns_faults_on_and_off)
{
	const size_t third = PAGES / 3;
	char *mid = self->p + third * PAGE;
	pid_t tid = gettid_();

	ASSERT_EQ(0, klog_start(self->fd, ETW_KFLAG_PROCESS, &self->id,
				&self->cfd));
	touch_pages(self->p, third);
	ASSERT_EQ(0, raw_klog_set_flags(self->fd, self->id,
					ETW_KFLAG_PROCESS |
					ETW_KFLAG_PAGE_FAULTS));
	touch_pages(mid, third);
	ASSERT_EQ(0, raw_klog_set_flags(self->fd, self->id, ETW_KFLAG_PROCESS));
	touch_pages(mid + third * PAGE, third);
	ASSERT_EQ(0, stop(self, NULL));
	EXPECT_EQ(0, self->fs.bad);
	EXPECT_EQ(0, faults_in(&self->fs, tid, self->p, third));
	EXPECT_EQ(third, faults_in(&self->fs, tid, mid, third));
	EXPECT_EQ(0, check_touched(&self->fs, tid, mid, third));
	EXPECT_EQ(0, faults_in(&self->fs, tid, mid + third * PAGE, third));
}

/*
 * As a member of control_gid: a kernel logger with the flag while root,
 * the parent (thread @root), writes its pages (@go tells it to, @done
 * that it did).  The member's own faults as they are, root's with both
 * addresses zero, no kernel address anywhere (abi.rst, "Who may do
 * what").  Returns 0, or the step that failed.
 */
static int member_faults(int go, int done, pid_t root)
{
	struct faults fs = { 0 };
	char *p = fresh_pages(PAGES);
	int fd, cfd, ret = 0;
	size_t i, roots = 0;
	__u32 id;

	if (!p || raw_become_member())
		return 101;
	fd = etw_open();
	if (fd < 0 || klog_start(fd, ETW_KFLAG_PAGE_FAULTS, &id, &cfd))
		return 102;
	touch_pages(p, PAGES);
	raw_post_byte(go);
	if (!raw_wait_byte(done))
		ret = 103;
	if (klog_stop(fd, id, cfd, &fs, NULL) || fs.bad)
		return ret ? ret : 104;
	if (!ret && check_touched(&fs, gettid_(), p, PAGES))
		ret = 105;
	for (i = 0; i < fs.n && !ret; i++) {
		if (fs.f[i].pc >= KERNEL_HALF)
			ret = 106;
		if (fs.f[i].tid != (__u32)root)
			continue;
		roots++;
		if (fs.f[i].va || fs.f[i].pc)
			ret = 107;
	}
	if (!ret && roots < PAGES)
		ret = 108;
	free(fs.f);
	close(fd);
	return ret;
}

TEST_F(faults, member_sees_its_own_faults_and_zeros_for_roots)
{
	pid_t pid, root = gettid_();
	int go[2], done[2];
	char gid[16];

	snprintf(gid, sizeof(gid), "%d", RAW_CONTROL_GROUP);
	ASSERT_EQ(0, raw_write_str(RAW_CONTROL_GID, gid));
	ASSERT_EQ(0, pipe(go));
	ASSERT_EQ(0, pipe(done));
	pid = fork();
	if (!pid)
		_exit(member_faults(go[1], done[0], root));
	if (raw_wait_byte(go[0]))
		touch_pages(self->p, PAGES);
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
 * etwctl start -on ALL_FAULTS writes the faults into a file and etwctl
 * dump decodes them by class and property name: a written page's
 * address among them.
 */
TEST_F(faults, etwctl_records_and_dumps_faults)
{
	static const char etl[] = "/tmp/klogger_faults_test.etl";
	size_t room = 64 << 20;
	char *out = malloc(room), cmd[256], want[64];

	ASSERT_NE(NULL, out);
	unlink(etl);
	ASSERT_EQ(0, run("/etw/ctl/etwctl start \"" KLOG "\" -f "
			 "/tmp/klogger_faults_test.etl -on ALL_FAULTS 2>&1",
			 out, room))
		TH_LOG("%s", out);
	touch_pages(self->p, PAGES);
	ASSERT_EQ(0, run("/etw/ctl/etwctl stop \"" KLOG "\" 2>&1", out, room))
		TH_LOG("%s", out);
	snprintf(cmd, sizeof(cmd), "/etw/ctl/etwctl dump %s", etl);
	ASSERT_EQ(0, run(cmd, out, room));
	snprintf(want, sizeof(want), " VirtualAddress=\"0x%llX\"",
		 (unsigned long long)(uintptr_t)(self->p + 5 * PAGE + OFFSET));
	EXPECT_NE(NULL, strstr(out, want));
	EXPECT_NE(NULL, strstr(out, " op=TransitionFault task=PageFault "));
	EXPECT_NE(NULL, strstr(out, " ProgramCounter=\"0x"));
	unlink(etl);
	free(out);
}

TEST_HARNESS_MAIN
