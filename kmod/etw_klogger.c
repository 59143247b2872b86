// SPDX-License-Identifier: GPL-2.0
/*
 * etw_klogger.c - the kernel system provider: what the NT Kernel Logger
 * records of processes, threads and images.
 *
 * One global session at a time is the kernel logger (its name is
 * ETW_KERNEL_LOGGER_NAME or its mode has ETW_MODE_SYSTEM_LOGGER).  Its
 * enable_flags (EnableFlags) choose the events, recorded as Windows' kernel
 * logger records them: a SYSTEM_TRACE_HEADER (struct etw_system_header)
 * with the hook's group and type, then the MOF class's fields with 8-byte
 * pointers (Documentation/abi.rst lists them):
 *
 * PROCESS     Process_V4 TypeGroup1, version 4: Start at fork() of a new
 *             process and again at each execve() (the new program image;
 *             one ProcessId may thus start several times, its
 *             UniqueProcessKey stays), End when its last thread exits.
 * THREAD      Thread_V3 TypeGroup1, version 3: Start at every clone(),
 *             End at every task exit.
 * IMAGE_LOAD  Image_Load, version 3: Load for each executable file mapping
 *             of a new program image (execve()), for each mmap() with
 *             PROT_EXEC of a file and each file mapping mprotect() makes
 *             executable; Unload for each executable file mapping that
 *             munmap(), a MAP_FIXED mmap(), mprotect() or the address
 *             space's end (exit, execve()) removes; mremap() gives both.
 * CSWITCH     CSwitch, version 2: each context switch (sched_switch);
 *             etw_klogger_sched.c.
 * DISPATCHER  ReadyThread, version 2: each wakeup (sched_waking, in the
 *             waker) and each new task's first (sched_wakeup_new);
 *             etw_klogger_sched.c.
 * PROFILE     SampledProfile, version 2: a CPU sample of every online CPU
 *             each sampling interval (etw_klogger_profile.c).
 * SYSCALL     SysCallEnter and SysCallExit, version 2: each system call's
 *             start and return (etw_klogger_syscall.c).
 * PAGE_FAULTS PageFault_TypeGroup1, version 2: each page fault resolved
 *             (etw_klogger_faults.c).
 *
 * PROCESS, THREAD and IMAGE_LOAD also give a rundown: DCStart events for
 * every process, thread and executable file mapping when the session
 * starts, DCEnd events when it stops.  An UPDATE may change the flags of
 * a running logger (etw_klogger_update_prepare() and its commit or
 * abort): the flags it turns on get their tracepoints and a DCStart
 * rundown, those it turns off lose theirs, and those it keeps are not
 * touched.
 *
 * A process's command line and its mappings (ImageBase, ImageSize,
 * DefaultBase, FileName) are recorded only where the session's starter
 * could read /proc/PID/maps (etw_viewer_may_read()); elsewhere the line is
 * empty and the Image fields zero.  The checks use the credentials that
 * started the session, whichever task the probe runs in.
 *
 * Sources: the sched_process_fork, _exec and _exit tracepoints, the raw
 * syscall tracepoints sys_enter (munmap, mmap, mprotect, mremap) and
 * sys_exit (mmap, mremap), and mmap_lock_acquire_returned (an address
 * space's teardown, exit_mmap(), takes its lock), sched_switch,
 * sched_waking and sched_wakeup_new, sys_enter and sys_exit again for
 * SYSCALL (a probe of its own each), found with
 * for_each_kernel_tracepoint() (most are not exported to modules) and
 * registered only while a kernel logger with the matching flags runs: with
 * none, etw adds no probe and costs nothing.  While IMAGE_LOAD or SYSCALL
 * is on, the syscall tracepoints route every system call of every task
 * through the kernel's syscall-trace slow path (TIF_SYSCALL_TRACEPOINT),
 * as perf and ftrace do; Documentation/performance.rst has the figure.
 *
 * Probes run in the traced task with preemption disabled and build each
 * record in this CPU's scratch area, allocated when the logger starts:
 * nothing is allocated per event.  Records and losses are reported as
 * writes are (etw_record_written(), etw_record_lost(): the etw:etw_write and
 * etw:etw_lost tracepoints), under SystemTraceControlGuid with the hook id
 * as event id; an event the session has no room for is counted in its
 * events_lost.  The scheduler's probes (etw_klogger_sched.c) run with
 * interrupts off under a runqueue lock or a pi_lock: their records are
 * built on the stack (a wakeup may come from an interrupt that stopped
 * another probe amid this CPU's scratch area), and the buffers wake
 * consumers only through an irq_work then (etw_buffer.c).  The rundown
 * runs in the controller's process context (it sleeps to read other
 * processes' memory) with its own scratch area.
 *
 * Locking: etw_klogger_mutex serialises starting, updating and stopping
 * the kernel logger, its probes and its rundowns; it nests outside
 * etw_mutex (the session start, update and stop) and outside mmap_lock (the
 * rundown), and is never taken by a probe.  A probe reads its struct
 * etw_klogger through the tracepoint's data pointer; it is freed only after
 * the probes are unregistered and tracepoint_synchronize_unregister()
 * returned.  Probes read the flags once each (READ_ONCE()): an UPDATE
 * changes them while probes run, and waits for the probes in flight
 * before it returns.
 */
#include <linux/compat.h>
#include <linux/cred.h>
#include <linux/mman.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/pid_namespace.h>
#include <linux/ptrace.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/tracepoint.h>
#include <linux/uaccess.h>
#include <linux/unistd.h>
#include <asm/syscall.h>

#include "compat.h"
#include "etw_buffer.h"
#include "etw_internal.h"
#include "etw_klogger.h"

#define ETW_KFLAGS_KNOWN \
	(ETW_KFLAG_PROCESS | ETW_KFLAG_THREAD | ETW_KFLAG_IMAGE_LOAD | \
	 ETW_KFLAG_CSWITCH | ETW_KFLAG_DISPATCHER | ETW_KFLAG_PROFILE | \
	 ETW_KFLAG_SYSCALL | ETW_KFLAG_PAGE_FAULTS)
/* The flags that give a rundown. */
#define ETW_KFLAGS_RUNDOWN \
	(ETW_KFLAG_PROCESS | ETW_KFLAG_THREAD | ETW_KFLAG_IMAGE_LOAD)

/* Event types (hook types) and class versions. */
#define ETW_TYPE_START		1
#define ETW_TYPE_END		2
#define ETW_TYPE_DC_START	3
#define ETW_TYPE_DC_END		4
#define ETW_TYPE_LOAD		10
#define ETW_TYPE_UNLOAD		2
#define ETW_PROCESS_VERSION	4
#define ETW_THREAD_VERSION	3
#define ETW_IMAGE_VERSION	3

#define ETW_UNIX_USER_AUTHORITY	22	/* S-1-22-1-<uid> */
#define ETW_START_KEY_PID_BITS	22
/* Windows' BasePriority of a normal thread, PagePriority, IoPriority. */
#define ETW_NORMAL_PRIORITY	8
#define ETW_NORMAL_PAGE_PRIO	5
#define ETW_NORMAL_IO_PRIO	2

/*
 * Process_V4 TypeGroup1's fixed part; UserSID, ImageFileName (ANSI),
 * CommandLine, PackageFullName and ApplicationId (UTF-16) follow.
 */
struct etw_process_rec {
	__le64 unique_process_key;
	__le32 process_id;
	__le32 parent_id;
	__le32 session_id;
	__le32 exit_status;
	__le64 directory_table_base;
	__le32 flags;
} __packed;

/*
 * The UserSID field: a TOKEN_USER (the SID's address, attributes, with
 * 8-byte pointers) and the SID S-1-22-1-<uid>.  The address is the SID's
 * offset from the field, never a kernel address.
 */
struct etw_token_sid {
	__le64 sid_ptr;
	__le32 attributes;
	__le32 pad;
	u8 revision;
	u8 count;
	u8 authority[6];
	__le32 sub[2];
} __packed;

/* Thread_V3 TypeGroup1. */
struct etw_thread_rec {
	__le32 process_id;
	__le32 thread_id;
	__le64 stack_base;
	__le64 stack_limit;
	__le64 user_stack_base;
	__le64 user_stack_limit;
	__le64 affinity;
	__le64 win32_start_addr;
	__le64 teb_base;
	__le32 sub_process_tag;
	u8 base_priority;
	u8 page_priority;
	u8 io_priority;
	u8 thread_flags;
} __packed;

/* Image_Load's fixed part; FileName (UTF-16) follows. */
struct etw_image_rec {
	__le64 image_base;
	__le64 image_size;
	__le32 process_id;
	__le32 image_checksum;
	__le32 time_date_stamp;
	__le32 reserved0;
	__le64 default_base;
	__le32 reserved1;
	__le32 reserved2;
	__le32 reserved3;
	__le32 reserved4;
} __packed;

static_assert(sizeof(struct etw_system_header) == 32);
static_assert(sizeof(struct etw_process_rec) == 36);
static_assert(sizeof(struct etw_token_sid) == 32);
static_assert(sizeof(struct etw_thread_rec) == 72);
static_assert(sizeof(struct etw_image_rec) == 56);
static_assert(ETW_KLOGGER_MAX_RECORD ==
	      sizeof(struct etw_system_header) + sizeof(struct etw_process_rec) +
	      sizeof(struct etw_token_sid) + TASK_COMM_LEN +
	      2 * ETW_KLOGGER_MAX_CHARS + 2 * 2);

/* The tracepoints used, by name, and which flags need each. */
enum {
	ETW_TP_FORK,
	ETW_TP_EXEC,
	ETW_TP_EXIT,
	ETW_TP_SYS_ENTER,
	ETW_TP_SYS_EXIT,
	ETW_TP_MM_LOCKED,
	ETW_TP_SWITCH,
	ETW_TP_WAKING,
	ETW_TP_WAKEUP_NEW,
	ETW_TP_SYSCALL_ENTER,
	ETW_TP_SYSCALL_EXIT,
	ETW_TP_COUNT,
};

struct etw_klogger_tp {
	const char *name;
	u32 flags;
	void *probe;
	struct tracepoint *tp;
};

/*
 * SystemTraceControlGuid, the kernel logger's provider: its records are
 * reported under it (etw:etw_write, etw:etw_lost).
 */
const struct etw_guid etw_klogger_guid = { 0x9e814aad, 0x3204, 0x11d2,
	{ 0x9a, 0x82, 0x00, 0x60, 0x08, 0xa8, 0x69, 0x39 } };

static DEFINE_MUTEX(etw_klogger_mutex);
static struct etw_klogger *etw_klogger_cur;	/* etw_klogger_mutex */

/* --- building records ---------------------------------------------------- */

/* The continuation bytes a UTF-8 lead byte announces (4: invalid). */
static u32 etw_utf8_lead(u8 c, u32 *cp)
{
	if (c < 0x80) {
		*cp = c;
		return 0;
	}
	if (c < 0xc2 || c >= 0xf5)
		return 4;
	if (c < 0xe0) {
		*cp = c & 0x1f;
		return 1;
	}
	if (c < 0xf0) {
		*cp = c & 0x0f;
		return 2;
	}
	*cp = c & 0x07;
	return 3;
}

/**
 * etw_klogger_utf16() - UTF-8 bytes as NUL-terminated UTF-16LE
 * @out: where the units go
 * @max: units of room at @out, the NUL included (at least 1)
 * @s: the bytes; a NUL among them becomes a space (command lines)
 * @len: bytes at @s
 *
 * A malformed sequence becomes U+FFFD; what does not fit is cut at a
 * character boundary.
 *
 * Context: any.
 * Return: bytes written, the NUL included.
 */
VISIBLE_IF_KUNIT u32 etw_klogger_utf16(u8 *out, u32 max, const char *s, u32 len)
{
	u32 i = 0, n = 0, cp, need, k;
	u8 c;

	while (i < len) {
		c = s[i];
		need = etw_utf8_lead(c, &cp);
		for (k = 1; k <= need && need < 4; k++) {
			if (i + k >= len || (s[i + k] & 0xc0) != 0x80)
				break;
			cp = cp << 6 | (s[i + k] & 0x3f);
		}
		if (need == 4 || k <= need ||
		    (need == 2 && (cp < 0x800 || (cp >= 0xd800 && cp < 0xe000))) ||
		    (need == 3 && (cp < 0x10000 || cp > 0x10ffff))) {
			cp = 0xfffd;
			k = 1;
		}
		if (!cp)
			cp = ' ';
		if (n + (cp > 0xffff ? 2 : 1) >= max)
			break;
		if (cp > 0xffff) {
			cp -= 0x10000;
			put_unaligned_le16(0xd800 | cp >> 10, out + 2 * n++);
			cp = 0xdc00 | (cp & 0x3ff);
		}
		put_unaligned_le16(cp, out + 2 * n++);
		i += k;
	}
	put_unaligned_le16(0, out + 2 * n);
	return 2 * (n + 1);
}
EXPORT_SYMBOL_IF_KUNIT(etw_klogger_utf16);

/* PROCESS_START_KEY's formula (etw_ext_items.c), for any task. */
static u64 etw_klogger_process_key(struct task_struct *p)
{
	const struct task_struct *leader = READ_ONCE(p->group_leader);
	u64 start = READ_ONCE(leader->start_boottime);

	return (start & ~(BIT_ULL(ETW_START_KEY_PID_BITS) - 1)) |
	       (u32)task_tgid_nr(p);
}

/* The exit status a shell would report: the code, or 128 + the signal. */
static u32 etw_klogger_exit_status(const struct task_struct *p)
{
	int code = READ_ONCE(p->exit_code);

	return code & 0x7f ? 128 + (code & 0x7f) : (code >> 8) & 0xff;
}

/**
 * etw_klogger_process() - build a Process_V4 TypeGroup1 payload
 * @out: where it goes (room for %ETW_KLOGGER_MAX_RECORD less the header)
 * @p: the process (any of its threads)
 * @cmd: its command line's bytes, NUL-separated arguments
 * @cmd_len: bytes at @cmd
 * @end: an End event: ExitStatus is set
 *
 * Context: any; RCU read section.
 * Return: the payload's bytes.
 */
static u32 etw_klogger_process(u8 *out, struct task_struct *p, const char *cmd,
			       u32 cmd_len, bool end)
{
	struct etw_process_rec *r = (void *)out;
	struct etw_token_sid *sid = (void *)(r + 1);
	char comm[TASK_COMM_LEN];
	u8 *q = (u8 *)(sid + 1);
	u32 n, uid;

	r->unique_process_key = cpu_to_le64(etw_klogger_process_key(p));
	r->process_id = cpu_to_le32(task_tgid_nr(p));
	r->parent_id = cpu_to_le32(task_tgid_nr(rcu_dereference(p->real_parent)));
	r->session_id = cpu_to_le32(pid_nr(task_session(p)));
	r->exit_status = cpu_to_le32(end ? etw_klogger_exit_status(p) : 0);
	r->directory_table_base = 0;
	r->flags = 0;
	sid->sid_ptr = cpu_to_le64(offsetof(struct etw_token_sid, revision));
	sid->attributes = 0;
	sid->pad = 0;
	sid->revision = 1;
	sid->count = 2;
	memset(sid->authority, 0, sizeof(sid->authority));
	sid->authority[5] = ETW_UNIX_USER_AUTHORITY;
	sid->sub[0] = cpu_to_le32(1);
	uid = from_kuid_munged(&init_user_ns, task_euid(p));
	sid->sub[1] = cpu_to_le32(uid);
	get_task_comm(comm, p);
	n = strnlen(comm, sizeof(comm) - 1);
	memcpy(q, comm, n);
	q[n] = 0;
	q += n + 1;
	while (cmd_len && !cmd[cmd_len - 1])
		cmd_len--;
	q += etw_klogger_utf16(q, ETW_KLOGGER_MAX_CHARS, cmd, cmd_len);
	/* PackageFullName and ApplicationId: empty. */
	memset(q, 0, 4);
	return q + 4 - out;
}

/* BasePriority from the nice value: 8 at 0, 14 at -20, 2 at 19. */
static u8 etw_klogger_priority(const struct task_struct *p)
{
	return ETW_NORMAL_PRIORITY - task_nice(p) / 3;
}

/**
 * etw_klogger_thread() - build a Thread_V3 TypeGroup1 payload
 * @out: where it goes
 * @t: the thread
 *
 * Kernel stack addresses are not given (zero); Affinity is the first 64
 * CPUs of the thread's mask.
 *
 * Context: any.
 * Return: the payload's bytes.
 */
static u32 etw_klogger_thread(u8 *out, struct task_struct *t)
{
	struct etw_thread_rec *r = (void *)out;

	memset(r, 0, sizeof(*r));
	r->process_id = cpu_to_le32(task_tgid_nr(t));
	r->thread_id = cpu_to_le32(task_pid_nr(t));
	r->affinity = cpu_to_le64(cpumask_bits(t->cpus_ptr)[0]);
	r->base_priority = etw_klogger_priority(t);
	r->page_priority = ETW_NORMAL_PAGE_PRIO;
	r->io_priority = ETW_NORMAL_IO_PRIO;
	return sizeof(*r);
}

/**
 * etw_klogger_image() - build an Image_Load payload
 * @out: where it goes
 * @pid: the process
 * @base: ImageBase: the mapping's start
 * @size: ImageSize: its bytes
 * @file_base: DefaultBase: where the file's offset 0 would be mapped
 *	(ImageBase less the mapping's file offset), for symbolisers
 * @path: the file's path, as d_path() returned it, or an ERR_PTR
 * @shown: the viewer may see the mapping: else only @pid is recorded
 *
 * Context: any.
 * Return: the payload's bytes.
 */
static u32 etw_klogger_image(u8 *out, u32 pid, u64 base, u64 size,
			     u64 file_base, const char *path, bool shown)
{
	struct etw_image_rec *r = (void *)out;

	memset(r, 0, sizeof(*r));
	r->process_id = cpu_to_le32(pid);
	if (shown) {
		r->image_base = cpu_to_le64(base);
		r->image_size = cpu_to_le64(size);
		r->default_base = cpu_to_le64(file_base);
	}
	if (IS_ERR(path) || !shown)
		path = "";
	return sizeof(*r) + etw_klogger_utf16(out + sizeof(*r),
					      ETW_KLOGGER_MAX_CHARS, path,
					      strlen(path));
}

/**
 * etw_klogger_emit() - record one built event in the kernel logger
 * @k: the logger
 * @rec: the record: the payload after room for the header
 * @len: payload bytes
 * @group: the hook's group (ETW_GROUP_*)
 * @type: the hook's type
 * @version: the class version
 *
 * Reported as writes are (etw_record_written(), etw_record_lost()), under
 * SystemTraceControlGuid and the hook id.
 *
 * Context: any but NMI; takes care of preemption itself.
 * Return: the record's timestamp, by which its stack names it; 0 when it
 * was lost.
 */
u64 etw_klogger_emit(struct etw_klogger *k, u8 *rec, u32 len, u8 group,
		     u8 type, u16 version)
{
	struct etw_system_header *h = (void *)rec;
	u32 rec_len = sizeof(*h) + len, alen = ALIGN(rec_len, 8), off;
	struct etw_session *s = k->s;
	struct etw_buffer *b;
	u64 ts = 0;

	h->version = version;
	h->header_type = ETW_SYSTEM_HEADER_TYPE;
	h->flags = ETW_SYSTEM_HEADER_FLAGS;
	h->size = rec_len;
	h->hook_id = group << 8 | type;
	h->thread_id = task_pid_nr(current);
	h->process_id = task_tgid_nr(current);
	h->kernel_time = 0;
	h->user_time = 0;
	memset(rec + rec_len, 0, alen - rec_len);
	preempt_disable();
	if (alen > s->buf_bytes - ETW_BUFFER_HEADER_SIZE) {
		etw_record_lost(s, &etw_klogger_guid, h->hook_id, -EMSGSIZE);
	} else {
		b = etw_buffer_reserve(s, etw_session_stream(s), alen, &off,
				       &ts);
		if (b) {
			h->timestamp = ts;
			memcpy(b->data + off, rec, alen);
			etw_record_written(s, &etw_klogger_guid, h->hook_id,
					   h->size);
			etw_buffer_commit(s, b);
		} else {
			etw_record_lost(s, &etw_klogger_guid, h->hook_id,
					-ENOBUFS);
		}
	}
	preempt_enable();
	return ts;
}

/**
 * etw_klogger_perfinfo_reserve() - room for a PERFINFO record in the logger
 * @k: the logger
 * @hook: the hook's group and type
 * @version: the class version
 * @len: the record's bytes, header included
 * @b: where the buffer goes, for etw_klogger_perfinfo_commit()
 *
 * Writes the record's header, its timestamp the reservation's, and zeroes
 * the padding to 8 bytes after it; the caller writes the rest and
 * commits.  A record the session has no room for is counted lost, as
 * etw_klogger_emit() counts it.
 *
 * Context: any but NMI; preemption disabled.
 * Return: the record, or NULL when it was lost.
 */
struct etw_perfinfo_header *etw_klogger_perfinfo_reserve(struct etw_klogger *k,
							 u16 hook, u16 version,
							 u32 len,
							 struct etw_buffer **b)
{
	struct etw_session *s = k->s;
	struct etw_perfinfo_header *h;
	u32 alen = ALIGN(len, 8), off;
	u64 ts = 0;

	*b = etw_buffer_reserve(s, etw_session_stream(s), alen, &off, &ts);
	if (!*b) {
		etw_record_lost(s, &etw_klogger_guid, hook, -ENOBUFS);
		return NULL;
	}
	h = (*b)->data + off;
	memset((u8 *)h + len, 0, alen - len);
	h->version = version;
	h->header_type = ETW_PERFINFO_HEADER_TYPE;
	h->flags = ETW_SYSTEM_HEADER_FLAGS;
	h->size = len;
	h->hook_id = hook;
	h->timestamp = ts;
	return h;
}

/**
 * etw_klogger_perfinfo_commit() - a record etw_klogger_perfinfo_reserve()
 *	made is complete
 * @k: the logger
 * @b: its buffer
 * @h: the record
 *
 * Reported as writes are (etw_record_written()).
 *
 * Context: as the reservation's, which preceded.
 */
void etw_klogger_perfinfo_commit(struct etw_klogger *k, struct etw_buffer *b,
				 const struct etw_perfinfo_header *h)
{
	etw_record_written(k->s, &etw_klogger_guid, h->hook_id, h->size);
	etw_buffer_commit(k->s, b);
}

/* --- probes -------------------------------------------------------------- */

/*
 * An image event of @type the probe could not build, the address space's
 * lock being taken: counted lost, as writes count.
 */
static void etw_klogger_lost(struct etw_klogger *k, u8 type)
{
	preempt_disable();
	etw_record_lost(k->s, &etw_klogger_guid, ETW_GROUP_IMAGE << 8 | type,
			-EBUSY);
	preempt_enable();
}

/* May the logger's starter see @t's command line and mappings. */
static bool etw_klogger_shown(const struct etw_klogger *k, struct task_struct *t,
			      struct mm_struct *mm)
{
	return etw_viewer_may_read(&k->s->viewer, t, mm);
}

/*
 * The current process's command line, from its own memory without
 * faulting: the arguments are resident at fork() and right after execve(),
 * which wrote them.  Empty when they cannot be read.
 */
static u32 etw_klogger_own_cmdline(char *buf)
{
	struct mm_struct *mm = current->mm;
	unsigned long start, end;

	if (!mm || (current->flags & PF_KTHREAD))
		return 0;
	spin_lock(&mm->arg_lock);
	start = mm->arg_start;
	end = mm->arg_end;
	spin_unlock(&mm->arg_lock);
	end = min(end, start + ETW_KLOGGER_MAX_CHARS);
	if (end <= start ||
	    copy_from_user_nofault(buf, (const void __user *)start, end - start))
		return 0;
	return end - start;
}

static void etw_klogger_put_process(struct etw_klogger *k,
				    struct etw_klogger_scratch *x,
				    struct task_struct *p, u32 cmd_len, u8 type)
{
	u32 len;

	rcu_read_lock();
	len = etw_klogger_process(x->rec + sizeof(struct etw_system_header), p,
				  x->text, cmd_len, type == ETW_TYPE_END);
	rcu_read_unlock();
	etw_klogger_emit(k, x->rec, len, ETW_GROUP_PROCESS, type,
			 ETW_PROCESS_VERSION);
}

static void etw_klogger_put_thread(struct etw_klogger *k,
				   struct etw_klogger_scratch *x,
				   struct task_struct *t, u8 type)
{
	u32 len = etw_klogger_thread(x->rec + sizeof(struct etw_system_header), t);

	etw_klogger_emit(k, x->rec, len, ETW_GROUP_THREAD, type,
			 ETW_THREAD_VERSION);
}

/*
 * An Image event for [@start, @end) of @file, whose offset 0 would be
 * mapped at @file_base.
 */
static void etw_klogger_put_file(struct etw_klogger *k,
				 struct etw_klogger_scratch *x, u32 pid,
				 struct file *file, unsigned long start,
				 unsigned long end, u64 file_base, u8 type,
				 bool shown)
{
	const char *path = shown ? d_path(&file->f_path, x->text,
					  sizeof(x->text)) : "";
	u32 len = etw_klogger_image(x->rec + sizeof(struct etw_system_header),
				    pid, start, end - start, file_base, path,
				    shown);

	etw_klogger_emit(k, x->rec, len, ETW_GROUP_IMAGE, type,
			 ETW_IMAGE_VERSION);
}

static void etw_klogger_put_vma(struct etw_klogger *k,
				struct etw_klogger_scratch *x, u32 pid,
				struct vm_area_struct *vma, unsigned long start,
				unsigned long end, u8 type, bool shown)
{
	etw_klogger_put_file(k, x, pid, vma->vm_file, start, end,
			     vma->vm_start - (vma->vm_pgoff << PAGE_SHIFT),
			     type, shown);
}

static bool etw_klogger_is_image(const struct vm_area_struct *vma)
{
	return vma->vm_file && (vma->vm_flags & VM_EXEC);
}

/*
 * The executable file mappings of @mm, @p's, in [@start, @end), each cut
 * to the range; @mm's mmap_lock is held.
 */
static void etw_klogger_put_images(struct etw_klogger *k,
				   struct etw_klogger_scratch *x,
				   struct task_struct *p, struct mm_struct *mm,
				   unsigned long start, unsigned long end,
				   u8 type)
{
	VMA_ITERATOR(vmi, mm, start);
	bool shown = etw_klogger_shown(k, p, mm);
	u32 pid = task_tgid_nr(p);
	struct vm_area_struct *vma;

	for_each_vma_range(vmi, vma, end)
		if (etw_klogger_is_image(vma))
			etw_klogger_put_vma(k, x, pid, vma,
					    max(vma->vm_start, start),
					    min(vma->vm_end, end), type, shown);
}

static void etw_klogger_fork(void *data, struct task_struct *parent,
			     struct task_struct *child)
{
	struct etw_klogger *k = data;
	struct etw_klogger_scratch *x = this_cpu_ptr(k->pcpu);
	u32 flags = READ_ONCE(k->flags);

	/* The child's line is the parent's, and so are its credentials. */
	if ((flags & ETW_KFLAG_PROCESS) && thread_group_leader(child))
		etw_klogger_put_process(k, x, child,
					etw_klogger_shown(k, current, current->mm) ?
					etw_klogger_own_cmdline(x->text) : 0,
					ETW_TYPE_START);
	if (flags & ETW_KFLAG_THREAD)
		etw_klogger_put_thread(k, x, child, ETW_TYPE_START);
}

static void etw_klogger_exec(void *data, struct task_struct *p, pid_t old_pid,
			     struct linux_binprm *bprm)
{
	struct etw_klogger *k = data;
	struct etw_klogger_scratch *x = this_cpu_ptr(k->pcpu);
	struct mm_struct *mm = p->mm;
	u32 flags = READ_ONCE(k->flags);

	if (p != current || !mm)
		return;
	if (flags & ETW_KFLAG_PROCESS)
		etw_klogger_put_process(k, x, p,
					etw_klogger_shown(k, p, mm) ?
					etw_klogger_own_cmdline(x->text) : 0,
					ETW_TYPE_START);
	if (!(flags & ETW_KFLAG_IMAGE_LOAD))
		return;
	/* Nobody else knows the new mm yet: the lock is free. */
	if (!mmap_read_trylock(mm)) {
		etw_klogger_lost(k, ETW_TYPE_LOAD);
		return;
	}
	etw_klogger_put_images(k, x, p, mm, 0, ULONG_MAX, ETW_TYPE_LOAD);
	mmap_read_unlock(mm);
}

/*
 * Threads exit concurrently: each one that reaches the tracepoint after
 * the last one left signal->live at zero finds its process dead.  The
 * first of them records the End; the others find the process's key among
 * the latest ones recorded.
 */
static bool etw_klogger_end_once(struct etw_klogger *k, u64 key)
{
	unsigned long flags;
	bool first = true;
	unsigned int i;

	raw_spin_lock_irqsave(&k->ended_lock, flags);
	for (i = 0; i < ETW_KLOGGER_ENDED && first; i++)
		first = k->ended[i] != key;
	if (first) {
		k->ended[k->ended_next] = key;
		k->ended_next = (k->ended_next + 1) % ETW_KLOGGER_ENDED;
	}
	raw_spin_unlock_irqrestore(&k->ended_lock, flags);
	return first;
}

static void etw_klogger_exit(void *data, struct task_struct *p)
{
	struct etw_klogger *k = data;
	struct etw_klogger_scratch *x = this_cpu_ptr(k->pcpu);
	u32 flags = READ_ONCE(k->flags);

	if (flags & ETW_KFLAG_THREAD)
		etw_klogger_put_thread(k, x, p, ETW_TYPE_END);
	/* The last thread out ends the process (its mm is gone: no line). */
	if ((flags & ETW_KFLAG_PROCESS) && !atomic_read(&p->signal->live) &&
	    etw_klogger_end_once(k, etw_klogger_process_key(p)))
		etw_klogger_put_process(k, x, p, 0, ETW_TYPE_END);
}

/*
 * The image probes' tracepoints are IMAGE_LOAD's alone, but an UPDATE
 * registers them before the flag is on, and the flag goes off before
 * they are unregistered.
 */
static bool etw_klogger_images_on(const struct etw_klogger *k)
{
	return READ_ONCE(k->flags) & ETW_KFLAG_IMAGE_LOAD;
}

/*
 * The address space's teardown: exit_mmap() takes its lock for reading
 * once its last user is gone, and every image in it unloads.  Its process
 * is the task that let the last user go when that task is exiting (its mm
 * already cleared) or in execve() (the mm it replaced).  A teardown in any
 * other task (a kernel thread, a task that held the mm for a moment, a
 * failed fork()) names no process and reports nothing.
 */
static void etw_klogger_mm_locked(void *data, struct mm_struct *mm,
				  const char *memcg_path, bool write,
				  bool success)
{
	struct etw_klogger *k = data;
	struct mm_struct *own = current->mm;

	if (write || !success || atomic_read(&mm->mm_users) ||
	    (current->flags & PF_KTHREAD) || !etw_klogger_images_on(k))
		return;
	if (own ? own == mm || !current->in_execve :
		  !(current->flags & PF_EXITING))
		return;
	etw_klogger_put_images(k, this_cpu_ptr(k->pcpu), current, mm, 0,
			       ULONG_MAX, ETW_TYPE_UNLOAD);
}

/* A native (not compat) system call's arguments, or false. */
static bool etw_klogger_args(struct pt_regs *regs, unsigned long *args)
{
	if (in_compat_syscall() || !current->mm)
		return false;
	syscall_get_arguments(current, regs, args);
	return true;
}

/*
 * The pages [@start, @start + @len) name, as munmap(), mprotect() and a
 * fixed mmap() round them; false for a range they refuse.
 */
static bool etw_klogger_range(unsigned long start, unsigned long len,
			      unsigned long *end)
{
	if (offset_in_page(start) || !len || len > TASK_SIZE ||
	    start > TASK_SIZE - PAGE_ALIGN(len))
		return false;
	*end = start + PAGE_ALIGN(len);
	return true;
}

/*
 * The syscall tracepoints' probes may run preemptible (they are faultable
 * from 6.13 on): the per-CPU scratch area needs preemption off.  They
 * cannot sleep for the mmap_lock: an event a contended lock hides is
 * counted lost.
 */
static void etw_klogger_unload_range(struct etw_klogger *k, unsigned long start,
				     unsigned long end)
{
	struct mm_struct *mm = current->mm;

	if (!mmap_read_trylock(mm)) {
		etw_klogger_lost(k, ETW_TYPE_UNLOAD);
		return;
	}
	preempt_disable();
	etw_klogger_put_images(k, this_cpu_ptr(k->pcpu), current, mm, start,
			       end, ETW_TYPE_UNLOAD);
	preempt_enable();
	mmap_read_unlock(mm);
}

/*
 * mprotect() changes the mappings from @start on, one after another, and
 * stops at the first hole or at a mapping that may not get @prot: a file
 * mapping gaining execute permission loads, one losing it unloads.
 */
static void etw_klogger_protect(struct etw_klogger *k, unsigned long start,
				unsigned long end, unsigned long prot)
{
	VMA_ITERATOR(vmi, current->mm, start);
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;
	unsigned long at = start, want;
	bool rier, was, will, shown;

	rier = (current->personality & READ_IMPLIES_EXEC) && (prot & PROT_READ);
	if (!mmap_read_trylock(mm)) {
		/* What it would have been for a mapping that changes. */
		etw_klogger_lost(k, rier || (prot & PROT_EXEC) ?
				 ETW_TYPE_LOAD : ETW_TYPE_UNLOAD);
		return;
	}
	shown = etw_klogger_shown(k, current, mm);
	preempt_disable();
	for_each_vma_range(vmi, vma, end) {
		want = calc_vm_prot_bits(prot, 0);
		if (rier && (vma->vm_flags & VM_MAYEXEC))
			want |= VM_EXEC;
		if (vma->vm_start > at ||
		    (want & ~(vma->vm_flags >> 4) & VM_ACCESS_FLAGS))
			break;
		at = vma->vm_end;
		was = vma->vm_flags & VM_EXEC;
		will = want & VM_EXEC;
		if (vma->vm_file && was != will)
			etw_klogger_put_vma(k, this_cpu_ptr(k->pcpu),
					    task_tgid_nr(current), vma,
					    max(vma->vm_start, start),
					    min(vma->vm_end, end),
					    will ? ETW_TYPE_LOAD : ETW_TYPE_UNLOAD,
					    shown);
	}
	preempt_enable();
	mmap_read_unlock(mm);
}

/*
 * Before a call that removes mappings or changes their protection, while
 * they are still there: munmap(), mmap() with MAP_FIXED and mremap() with
 * MREMAP_FIXED (the mappings they replace), mprotect().  A call refused
 * before it changed anything may thus have reported a change.
 */
static void etw_klogger_sys_enter(void *data, struct pt_regs *regs, long id)
{
	struct etw_klogger *k = data;
	unsigned long args[6], end;

	if ((id != __NR_munmap && id != __NR_mmap && id != __NR_mremap &&
	     id != __NR_mprotect && id != __NR_pkey_mprotect) ||
	    !etw_klogger_images_on(k) || !etw_klogger_args(regs, args))
		return;
	switch (id) {
	case __NR_munmap:
		if (etw_klogger_range(args[0], args[1], &end))
			etw_klogger_unload_range(k, args[0], end);
		break;
	case __NR_mmap:
		if ((args[3] & (MAP_FIXED | MAP_FIXED_NOREPLACE)) == MAP_FIXED &&
		    etw_klogger_range(args[0], args[1], &end))
			etw_klogger_unload_range(k, args[0], end);
		break;
	case __NR_mremap:
		if ((args[3] & MREMAP_FIXED) &&
		    etw_klogger_range(args[4], args[2], &end))
			etw_klogger_unload_range(k, args[4], end);
		break;
	default:
		if (!(args[2] & ~(PROT_READ | PROT_WRITE | PROT_EXEC |
				  PROT_SEM)) &&
		    etw_klogger_range(args[0], args[1], &end))
			etw_klogger_protect(k, args[0], end, args[2]);
	}
}

/*
 * A successful mremap() of an image moved it (the old range unloads, the
 * new one loads) or resized it in place (its tail loads or unloads).  The
 * old range keeps the file offset of its start.  With a zero old length
 * (a copy of a shared mapping) or MREMAP_DONTUNMAP the old range stays.
 */
static void etw_klogger_remapped(struct etw_klogger *k,
				 struct vm_area_struct *vma,
				 const unsigned long *args, unsigned long to)
{
	struct etw_klogger_scratch *x = this_cpu_ptr(k->pcpu);
	unsigned long from = args[0], old_end = from + PAGE_ALIGN(args[1]);
	unsigned long new_end = to + PAGE_ALIGN(args[2]);
	u64 file_base = vma->vm_start - (vma->vm_pgoff << PAGE_SHIFT);
	u32 pid = task_tgid_nr(current);
	struct file *file = vma->vm_file;
	bool shown = etw_klogger_shown(k, current, current->mm);

	if (to == from) {
		if (new_end > old_end)
			etw_klogger_put_vma(k, x, pid, vma, old_end, new_end,
					    ETW_TYPE_LOAD, shown);
		else if (new_end < old_end)
			etw_klogger_put_file(k, x, pid, file, new_end, old_end,
					     file_base, ETW_TYPE_UNLOAD, shown);
		return;
	}
	if (old_end != from && !(args[3] & MREMAP_DONTUNMAP))
		etw_klogger_put_file(k, x, pid, file, from, old_end,
				     file_base - to + from, ETW_TYPE_UNLOAD,
				     shown);
	etw_klogger_put_vma(k, x, pid, vma, to, min(vma->vm_end, new_end),
			    ETW_TYPE_LOAD, shown);
}

/* After a successful mmap() with PROT_EXEC of a file or mremap(). */
static void etw_klogger_sys_exit(void *data, struct pt_regs *regs, long ret)
{
	struct etw_klogger *k = data;
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;
	unsigned long args[6];
	long id = syscall_get_nr(current, regs);

	if ((id != __NR_mmap && id != __NR_mremap) ||
	    IS_ERR_VALUE((unsigned long)ret) || !etw_klogger_images_on(k) ||
	    !etw_klogger_args(regs, args) ||
	    (id == __NR_mmap && !(args[2] & PROT_EXEC)))
		return;
	if (!mmap_read_trylock(mm)) {
		etw_klogger_lost(k, ETW_TYPE_LOAD);
		return;
	}
	vma = vma_lookup(mm, ret);
	preempt_disable();
	if (vma && etw_klogger_is_image(vma)) {
		if (id == __NR_mremap)
			etw_klogger_remapped(k, vma, args, ret);
		else
			etw_klogger_put_vma(k, this_cpu_ptr(k->pcpu),
					    task_tgid_nr(current), vma, ret,
					    min(vma->vm_end,
						ret + PAGE_ALIGN(args[1])),
					    ETW_TYPE_LOAD,
					    etw_klogger_shown(k, current, mm));
	}
	preempt_enable();
	mmap_read_unlock(mm);
}

static struct etw_klogger_tp etw_klogger_tps[ETW_TP_COUNT] = {
	[ETW_TP_FORK] = { "sched_process_fork",
			  ETW_KFLAG_PROCESS | ETW_KFLAG_THREAD, etw_klogger_fork },
	[ETW_TP_EXEC] = { "sched_process_exec",
			  ETW_KFLAG_PROCESS | ETW_KFLAG_IMAGE_LOAD,
			  etw_klogger_exec },
	[ETW_TP_EXIT] = { "sched_process_exit",
			  ETW_KFLAG_PROCESS | ETW_KFLAG_THREAD, etw_klogger_exit },
	[ETW_TP_SYS_ENTER] = { "sys_enter", ETW_KFLAG_IMAGE_LOAD,
			       etw_klogger_sys_enter },
	[ETW_TP_SYS_EXIT] = { "sys_exit", ETW_KFLAG_IMAGE_LOAD,
			      etw_klogger_sys_exit },
	[ETW_TP_MM_LOCKED] = { "mmap_lock_acquire_returned",
			       ETW_KFLAG_IMAGE_LOAD, etw_klogger_mm_locked },
	[ETW_TP_SWITCH] = { "sched_switch", ETW_KFLAG_CSWITCH,
			    etw_klogger_switch },
	[ETW_TP_WAKING] = { "sched_waking", ETW_KFLAG_DISPATCHER,
			    etw_klogger_waking },
	[ETW_TP_WAKEUP_NEW] = { "sched_wakeup_new", ETW_KFLAG_DISPATCHER,
				etw_klogger_waking },
	[ETW_TP_SYSCALL_ENTER] = { "sys_enter", ETW_KFLAG_SYSCALL,
				   etw_klogger_syscall_enter },
	[ETW_TP_SYSCALL_EXIT] = { "sys_exit", ETW_KFLAG_SYSCALL,
				  etw_klogger_syscall_exit },
};

static void etw_klogger_find(struct tracepoint *tp, void *priv)
{
	unsigned int i;

	for (i = 0; i < ETW_TP_COUNT; i++)
		if (!strcmp(tp->name, etw_klogger_tps[i].name))
			etw_klogger_tps[i].tp = tp;
}

/* The tracepoints (a bit per ETW_TP_*) that @flags need. */
static u32 etw_klogger_tps_for(u32 flags)
{
	unsigned int i;
	u32 tps = 0;

	for (i = 0; i < ETW_TP_COUNT; i++)
		if (etw_klogger_tps[i].flags & flags)
			tps |= BIT(i);
	return tps;
}

/*
 * Unhook the tracepoints in @tps and wait for the probes in flight: none
 * runs with @k on them once this returns.
 */
static void etw_klogger_unregister(struct etw_klogger *k, u32 tps)
{
	unsigned int i;

	for (i = 0; i < ETW_TP_COUNT; i++)
		if (tps & BIT(i))
			tracepoint_probe_unregister(etw_klogger_tps[i].tp,
						    etw_klogger_tps[i].probe, k);
	tracepoint_synchronize_unregister();
}

/* Hook the tracepoints in @tps, all or none. */
static int etw_klogger_register(struct etw_klogger *k, u32 tps)
{
	unsigned int i;
	int ret;

	for_each_kernel_tracepoint(etw_klogger_find, NULL);
	for (i = 0; i < ETW_TP_COUNT; i++) {
		if (!(tps & BIT(i)))
			continue;
		ret = etw_klogger_tps[i].tp ?
		      tracepoint_probe_register(etw_klogger_tps[i].tp,
						etw_klogger_tps[i].probe, k) :
		      -EOPNOTSUPP;
		if (ret) {
			etw_klogger_unregister(k, tps & (BIT(i) - 1));
			return ret;
		}
	}
	return 0;
}

/* --- rundown ------------------------------------------------------------- */

/*
 * Another process's command line; empty when it cannot be read or the
 * logger's starter may not see it.
 */
static u32 etw_klogger_cmdline(struct etw_klogger *k, struct task_struct *p,
			       struct mm_struct *mm, char *buf)
{
	unsigned long start, end;
	int n;

	if (!etw_klogger_shown(k, p, mm))
		return 0;
	spin_lock(&mm->arg_lock);
	start = mm->arg_start;
	end = mm->arg_end;
	spin_unlock(&mm->arg_lock);
	end = min(end, start + ETW_KLOGGER_MAX_CHARS);
	if (end <= start)
		return 0;
	n = access_process_vm(p, start, buf, end - start, 0);
	return max(n, 0);
}

static void etw_klogger_rundown_task(struct etw_klogger *k, struct task_struct *p,
				     u32 flags, bool end)
{
	struct etw_klogger_scratch *x = k->rundown;
	u8 type = end ? ETW_TYPE_DC_END : ETW_TYPE_DC_START;
	struct mm_struct *mm = get_task_mm(p);
	struct task_struct *t;

	if (flags & ETW_KFLAG_PROCESS)
		etw_klogger_put_process(k, x, p,
					mm ? etw_klogger_cmdline(k, p, mm, x->text) : 0,
					type);
	if (flags & ETW_KFLAG_THREAD) {
		rcu_read_lock();
		for_each_thread(p, t)
			etw_klogger_put_thread(k, x, t, type);
		rcu_read_unlock();
	}
	if (!mm)
		return;
	if ((flags & ETW_KFLAG_IMAGE_LOAD) && !mmap_read_lock_killable(mm)) {
		etw_klogger_put_images(k, x, p, mm, 0, ULONG_MAX, type);
		mmap_read_unlock(mm);
	}
	mmput(mm);
}

/* Every process, its threads and images as @flags ask, in pid order. */
static void etw_klogger_rundown(struct etw_klogger *k, u32 flags, bool end)
{
	struct task_struct *p;
	struct pid *pid;
	int nr;

	if (!(flags & ETW_KFLAGS_RUNDOWN))
		return;

	for (nr = 1; ; nr++) {
		rcu_read_lock();
		pid = find_ge_pid(nr, &init_pid_ns);
		if (!pid) {
			rcu_read_unlock();
			break;
		}
		nr = pid_nr(pid);
		p = pid_task(pid, PIDTYPE_TGID);
		if (p)
			get_task_struct(p);
		rcu_read_unlock();
		if (!p)
			continue;
		etw_klogger_rundown_task(k, p, flags, end);
		put_task_struct(p);
		cond_resched();
	}
}

/* --- the logger ---------------------------------------------------------- */

/**
 * etw_klogger_check() - are a session's kernel-logger settings valid
 * @name: the session name
 * @c: its configuration
 *
 * Context: any.
 * Return: 1 for a kernel logger, 0 for another session, -EINVAL for
 * enable_flags on another session, unknown flags, or a private kernel
 * logger.
 */
int etw_klogger_check(const char *name, const struct etw_session_config *c)
{
	bool klog = !strcasecmp(name, ETW_KERNEL_LOGGER_NAME) ||
		    (c->mode & ETW_MODE_SYSTEM_LOGGER);

	if (c->reserved3 || (c->enable_flags & ~ETW_KFLAGS_KNOWN))
		return -EINVAL;
	if (!klog)
		return c->enable_flags ? -EINVAL : 0;
	return (c->mode & ETW_MODE_PRIVATE) ? -EINVAL : 1;
}

/**
 * etw_klogger_lock() - serialise kernel logger starts and stops
 *
 * Context: process context; not under etw_mutex.
 */
void etw_klogger_lock(void)
{
	mutex_lock(&etw_klogger_mutex);
}

/**
 * etw_klogger_unlock() - release etw_klogger_lock()
 */
void etw_klogger_unlock(void)
{
	mutex_unlock(&etw_klogger_mutex);
}

static void etw_klogger_free(struct etw_klogger *k)
{
	kfree(k->stacks);
	free_percpu(k->sched_frames);
	free_percpu(k->pcpu);
	kfree(k->rundown);
	kfree(k);
}

/**
 * etw_klogger_running() - the running kernel logger of a session
 * @s: the session
 *
 * Context: etw_klogger_lock() held.
 * Return: its logger, or NULL when @s is not the running kernel logger.
 */
struct etw_klogger *etw_klogger_running(struct etw_session *s)
{
	lockdep_assert_held(&etw_klogger_mutex);
	return etw_klogger_cur && etw_klogger_cur->s == s ? etw_klogger_cur :
	       NULL;
}

/*
 * Start the sources of @flags that are not tracepoints (the PROFILE
 * sampler, the PAGE_FAULTS counters): all of them or, on an error, none.
 */
static int etw_klogger_sources_start(struct etw_klogger *k, u32 flags)
{
	int ret = 0;

	if (flags & ETW_KFLAG_PROFILE)
		ret = etw_klogger_profile_start(k);
	if (!ret && (flags & ETW_KFLAG_PAGE_FAULTS)) {
		ret = etw_klogger_faults_start(k);
		if (ret && (flags & ETW_KFLAG_PROFILE))
			etw_klogger_profile_stop(k);
	}
	return ret;
}

/* Stop the sources of @flags; none records once this returns. */
static void etw_klogger_sources_stop(struct etw_klogger *k, u32 flags)
{
	if (flags & ETW_KFLAG_PAGE_FAULTS)
		etw_klogger_faults_stop(k);
	if (flags & ETW_KFLAG_PROFILE)
		etw_klogger_profile_stop(k);
}

/**
 * etw_klogger_begin() - a kernel logger started: hook the kernel, run down
 * @s: the session, in the session table
 *
 * Context: process context, may sleep; etw_klogger_lock() held, etw_mutex
 * not.
 * Return: 0; -ENOMEM; -EOPNOTSUPP when the kernel lacks a tracepoint the
 * flags need, or the registration's error; PROFILE: the sampler's
 * (etw_klogger_profile_start()); PAGE_FAULTS: the counters'
 * (etw_klogger_faults_start()).
 */
int etw_klogger_begin(struct etw_session *s)
{
	struct etw_klogger *k;
	int ret;

	lockdep_assert_held(&etw_klogger_mutex);
	k = kzalloc(sizeof(*k), GFP_KERNEL_ACCOUNT);
	if (!k)
		return -ENOMEM;
	k->s = s;
	k->flags = s->cfg.enable_flags;
	raw_spin_lock_init(&k->ended_lock);
	k->pcpu = alloc_percpu_gfp(struct etw_klogger_scratch,
				   GFP_KERNEL_ACCOUNT);
	k->sched_frames = alloc_percpu_gfp(struct etw_klogger_frames,
					   GFP_KERNEL_ACCOUNT);
	k->rundown = kmalloc(sizeof(*k->rundown), GFP_KERNEL_ACCOUNT);
	if (!k->pcpu || !k->sched_frames || !k->rundown) {
		etw_klogger_free(k);
		return -ENOMEM;
	}
	ret = etw_klogger_register(k, etw_klogger_tps_for(k->flags));
	if (!ret) {
		ret = etw_klogger_sources_start(k, k->flags);
		if (ret)
			etw_klogger_unregister(k, etw_klogger_tps_for(k->flags));
	}
	if (ret) {
		etw_klogger_free(k);
		return ret;
	}
	etw_klogger_cur = k;
	if (k->flags)
		etw_klogger_rundown(k, k->flags, false);
	return 0;
}

/**
 * etw_klogger_end() - a kernel logger stops: run down, unhook
 * @s: the session
 *
 * Nothing happens unless @s is the running kernel logger.
 *
 * Context: process context, may sleep; etw_klogger_lock() held, etw_mutex
 * not.
 */
void etw_klogger_end(struct etw_session *s)
{
	struct etw_klogger *k = etw_klogger_cur;

	lockdep_assert_held(&etw_klogger_mutex);
	if (!k || k->s != s)
		return;
	if (k->flags)
		etw_klogger_rundown(k, k->flags, true);
	etw_klogger_unregister(k, etw_klogger_tps_for(k->flags));
	etw_klogger_sources_stop(k, k->flags);
	etw_klogger_cur = NULL;
	etw_klogger_free(k);
}

/**
 * etw_klogger_update_prepare() - an UPDATE's new flags: hook what they add
 * @s: the session updated, a kernel logger
 * @flags: its new ETW_KFLAG_* bits
 *
 * Registers the tracepoints @flags need that the logger's flags do not;
 * their probes record nothing until etw_klogger_update_commit().  Each
 * successful prepare is followed by a commit or an abort, under the same
 * etw_klogger_lock().
 *
 * Context: process context, may sleep; etw_klogger_lock() held, etw_mutex
 * not.
 * Return: 0; -EINVAL for a flag not in %ETW_KFLAGS_KNOWN; -ENOENT when
 * @s is not the running kernel logger (it is stopping); -EOPNOTSUPP when
 * the kernel lacks a tracepoint @flags need, -ENOMEM or the registration's
 * error, PROFILE's sampler's (etw_klogger_profile_start()) or PAGE_FAULTS'
 * counters' (etw_klogger_faults_start()): then nothing changed.
 */
int etw_klogger_update_prepare(struct etw_session *s, u32 flags)
{
	struct etw_klogger *k = etw_klogger_cur;
	u32 add;
	int ret;

	lockdep_assert_held(&etw_klogger_mutex);
	if (flags & ~ETW_KFLAGS_KNOWN)
		return -EINVAL;
	if (!k || k->s != s)
		return -ENOENT;
	add = etw_klogger_tps_for(flags) & ~etw_klogger_tps_for(k->flags);
	ret = etw_klogger_register(k, add);
	if (!ret) {
		ret = etw_klogger_sources_start(k, flags & ~k->flags);
		if (ret)
			etw_klogger_unregister(k, add);
	}
	if (ret)
		return ret;
	k->next = flags;
	return 0;
}

/**
 * etw_klogger_update_abort() - undo etw_klogger_update_prepare()
 * @s: the session it prepared
 *
 * Context: process context, may sleep; etw_klogger_lock() held since the
 * prepare, etw_mutex not.
 */
void etw_klogger_update_abort(struct etw_session *s)
{
	struct etw_klogger *k = etw_klogger_cur;

	lockdep_assert_held(&etw_klogger_mutex);
	if (WARN_ON_ONCE(!k || k->s != s))
		return;
	etw_klogger_unregister(k, etw_klogger_tps_for(k->next) &
				  ~etw_klogger_tps_for(k->flags));
	etw_klogger_sources_stop(k, k->next & ~k->flags);
}

/**
 * etw_klogger_update_commit() - the prepared flags take effect
 * @s: the session etw_klogger_update_prepare() prepared
 *
 * The flags turned off record nothing once this returns (the probes in
 * flight are waited for) and their tracepoints no other flag needs are
 * unhooked; those turned on run down (DCStart) as at start.  Flags that
 * stay on keep their probes throughout.  Nothing fails.
 *
 * Context: process context, may sleep; etw_klogger_lock() held since the
 * prepare, etw_mutex not.
 */
void etw_klogger_update_commit(struct etw_session *s)
{
	struct etw_klogger *k = etw_klogger_cur;
	u32 old, on;

	lockdep_assert_held(&etw_klogger_mutex);
	if (WARN_ON_ONCE(!k || k->s != s))
		return;
	old = k->flags;
	on = k->next & ~old;
	WRITE_ONCE(k->flags, k->next);
	if (old & ~k->next)
		etw_klogger_unregister(k, etw_klogger_tps_for(old) &
					  ~etw_klogger_tps_for(k->next));
	etw_klogger_sources_stop(k, old & ~k->next);
	if (on)
		etw_klogger_rundown(k, on, false);
}
