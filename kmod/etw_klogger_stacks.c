// SPDX-License-Identifier: GPL-2.0
/*
 * etw_klogger_stacks.c - the stacks of the kernel logger's records:
 * TraceStackTracingInfo's list of events (ETW_IOC_STACK_EVENTS) and the
 * StackWalk_Event record that follows each such event.
 *
 * The list holds CLASSIC_EVENT_IDs (event class GUID and type), up to
 * ETW_MAX_STACK_EVENTS, and belongs to the running kernel logger: a SET
 * replaces it, and it goes with the logger.  Of the kernel logger's
 * events SampledProfile, SysCallEnter and SysCallExit (PerfInfoGuid,
 * types 46, 51 and 52), CSwitch and ReadyThread (ThreadGuid, types 36 and
 * 50) get their stack; the other entries are kept and reported back but
 * take no stack.
 *
 * A stack is Windows' StackWalk_Event: a PERFINFO_TRACE_HEADER of hook
 * StackWalk (group 0x18) type 32, version 2, then EventTimeStamp (the
 * event's timestamp, by which consumers join the two), StackProcess and
 * StackThread (the stack's task: 0 and 0 for the idle task), and the
 * frames innermost first, kernel frames, then user frames from the user
 * instruction pointer out.  Whose stack it is and where its kernel frames
 * start:
 *
 * SampledProfile  the sampled task, from the interrupted instruction out
 *                 (the sampler's own frames left out)
 * SysCallEnter,   the calling task; no kernel frames (the registers are
 * SysCallExit     the user's)
 * ReadyThread     the readying task, from the tracepoint out (this
 *                 module's frames left out); no user frames when the
 *                 wakeup comes from an interrupt
 * CSwitch         the incoming task, from where it waited (the
 *                 scheduler's functions left out; no kernel frames
 *                 before Linux 6.12, compat.h); its user frames are
 *                 walked only when it shares the outgoing task's address
 *                 space, else its user instruction pointer alone; none for
 *                 a switch to the idle task
 *
 * Kernel frames are zero where the session's starter may not see kernel
 * addresses, user frames where it could not read the process's
 * /proc/PID/maps (struct etw_viewer): as many frames, all zero.
 *
 * The frames are captured in the caller's area, one per CPU allocated
 * when the sampler or the logger starts: nothing is allocated per event.
 * The kernel stack is stack_trace_save()'s (from an interrupt it walks
 * through the interrupted frames) or, for another task,
 * stack_trace_save_tsk()'s; the user stack etw_stack_user_regs()'s,
 * through frame pointers with page faults disabled.  A 32-bit process's
 * frames have another layout: its user instruction pointer alone.
 */
#include <linux/module.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <linux/slab.h>
#include <linux/stacktrace.h>
#include <linux/uaccess.h>

#include "compat.h"
#include "etw_buffer.h"
#include "etw_ext_items.h"
#include "etw_internal.h"
#include "etw_klogger.h"

#define ETW_TYPE_STACK		32
#define ETW_STACK_VERSION	2

/* PerfInfoGuid: SampledProfile's and SysCallEnter/Exit's event class. */
static const struct etw_guid etw_perfinfo_guid = { 0xce1dbfb4, 0x137e, 0x4da6,
	{ 0x87, 0xb0, 0x3f, 0x59, 0xaa, 0x10, 0x2c, 0xbc } };
/* ThreadGuid: CSwitch's and ReadyThread's. */
static const struct etw_guid etw_thread_guid = { 0x3d6fa8d1, 0xfe05, 0x11d0,
	{ 0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c } };

/* StackWalk_Event's fixed part, header first; the frames follow. */
struct etw_stack_rec {
	struct etw_perfinfo_header h;
	__le64 event_ts;
	__le32 process_id;
	__le32 thread_id;
} __packed;

static_assert(sizeof(struct etw_stack_rec) == 32);

/* Are @regs, a task's user registers, those of 32-bit code. */
static bool etw_stack_compat(struct pt_regs *regs)
{
#if defined(CONFIG_X86_64)
	return !user_64bit_mode(regs);
#elif defined(CONFIG_ARM64)
	return compat_user_mode(regs);
#else
	return false;
#endif
}

/* Of the @n frames at @f, those from @from on, at most ETW_KLOGGER_KSTACK. */
static u32 etw_stack_keep(unsigned long *f, u32 n, u32 from)
{
	n = min_t(u32, n - from, ETW_KLOGGER_KSTACK);
	memmove(f, f + from, n * sizeof(*f));
	return n;
}

/*
 * The kernel frames from the interrupted instruction out: those of the
 * interrupt and the sampler above it dropped; the instruction alone when
 * the walk does not reach it.
 */
static u32 etw_stack_kernel(unsigned long *f, struct pt_regs *regs)
{
	unsigned long ip = instruction_pointer(regs);
	u32 n = stack_trace_save(f, ETW_KLOGGER_KSTACK_SKIP + ETW_KLOGGER_KSTACK,
				 0);
	u32 i;

	for (i = 0; i < n && f[i] != ip; i++)
		;
	if (i == n) {
		f[0] = ip;
		return 1;
	}
	return etw_stack_keep(f, n, i);
}

/* The kernel frames from the tracepoint out: this module's dropped. */
static u32 etw_stack_kernel_here(unsigned long *f)
{
	u32 n = stack_trace_save(f, ETW_KLOGGER_KSTACK_SKIP + ETW_KLOGGER_KSTACK,
				 0);
	u32 i;

	for (i = 0; i < n && within_module(f[i], THIS_MODULE); i++)
		;
	return etw_stack_keep(f, n, i);
}

/*
 * @t's user frames: walked where its memory is the current task's, else
 * (or for 32-bit code) its user instruction pointer alone.
 */
static u32 etw_stack_user_part(struct task_struct *t, unsigned long *f)
{
	struct pt_regs *regs;
	u32 n;

	if (!t->mm || (t->flags & PF_KTHREAD))
		return 0;
	regs = task_pt_regs(t);
	if (t->mm != current->mm || etw_stack_compat(regs)) {
		f[0] = instruction_pointer(regs);
		return 1;
	}
	pagefault_disable();
	n = etw_stack_user_regs(regs, f, ETW_KLOGGER_USTACK);
	pagefault_enable();
	return n;
}

/*
 * The StackWalk_Event of @t's @nk kernel frames and @nu user frames at
 * @f, for the event of timestamp @ts; those the session's starter may not
 * see are zeros.
 */
static void etw_stack_write(struct etw_klogger *k, u64 ts,
			    struct task_struct *t, const unsigned long *f,
			    u32 nk, u32 nu)
{
	u16 hook = ETW_GROUP_STACKWALK << 8 | ETW_TYPE_STACK;
	u32 len = sizeof(struct etw_stack_rec) + (nk + nu) * sizeof(u64), i;
	struct etw_session *s = k->s;
	struct etw_stack_rec *r;
	struct etw_buffer *b;
	bool kshown, ushown;
	__le64 *out;

	r = (void *)etw_klogger_perfinfo_reserve(k, hook, ETW_STACK_VERSION,
						 len, &b);
	if (!r)
		return;
	r->event_ts = cpu_to_le64(ts);
	r->process_id = cpu_to_le32(task_tgid_nr(t));
	r->thread_id = cpu_to_le32(task_pid_nr(t));
	kshown = s->viewer.kaddr;
	ushown = nu && etw_viewer_may_read(&s->viewer, t, t->mm);
	out = (__le64 *)(r + 1);
	for (i = 0; i < nk + nu; i++)
		out[i] = cpu_to_le64((i < nk ? kshown : ushown) ? f[i] : 0);
	etw_klogger_perfinfo_commit(k, b, &r->h);
}

/**
 * etw_klogger_put_stack() - record the stack of an event the logger wrote
 * @k: the logger
 * @regs: the registers the event saw: the sampler's interrupted ones, a
 *	system call's user ones
 * @ts: the event's timestamp
 * @frames: room for %ETW_KLOGGER_STACK_ROOM addresses, this CPU's own
 *	(nothing else on the CPU may use it until this returns)
 *
 * The stack is the current task's: the kernel frames from @regs out (none
 * for user registers), then the user frames.  A stack the session has no
 * buffer for counts in its events_lost.
 *
 * Context: the current task's, preemption disabled: the sampler's hard
 * interrupt or a system call's tracepoint; not NMI.
 */
void etw_klogger_put_stack(struct etw_klogger *k, struct pt_regs *regs,
			   u64 ts, unsigned long *frames)
{
	u32 nk = 0;

	if (!user_mode(regs))
		nk = etw_stack_kernel(frames, regs);
	etw_stack_write(k, ts, current, frames, nk,
			etw_stack_user_part(current, frames + nk));
}

/**
 * etw_klogger_put_waker_stack() - record the stack of a ReadyThread
 * @k: the logger
 * @ts: the ReadyThread's timestamp
 * @frames: as for etw_klogger_put_stack()
 *
 * The readying thread's stack, the current one's: the kernel frames from
 * the tracepoint out, then its user frames where it runs as itself (not
 * in an interrupt, whose task is just the one interrupted).
 *
 * Context: the waker, interrupts off; not NMI.
 */
void etw_klogger_put_waker_stack(struct etw_klogger *k, u64 ts,
				 unsigned long *frames)
{
	u32 nk = etw_stack_kernel_here(frames), nu = 0;

	if (in_task())
		nu = etw_stack_user_part(current, frames + nk);
	etw_stack_write(k, ts, current, frames, nk, nu);
}

/**
 * etw_klogger_put_next_stack() - record the stack of a CSwitch
 * @k: the logger
 * @ts: the CSwitch's timestamp
 * @next: the incoming thread, not the idle task
 * @frames: as for etw_klogger_put_stack()
 *
 * The incoming thread's stack, as Windows records it: where it waited
 * (its kernel frames, the scheduler's own left out by
 * stack_trace_save_tsk(), none before 6.12: compat.h) and its user
 * frames, walked when it shares the outgoing thread's address space,
 * else its user instruction pointer alone: a module cannot read another
 * address space here.
 *
 * Context: sched_switch: interrupts off, the runqueue lock held, @next not
 * running anywhere.
 */
void etw_klogger_put_next_stack(struct etw_klogger *k, u64 ts,
				struct task_struct *next,
				unsigned long *frames)
{
	u32 nk = etw_stack_save_tsk(next, frames, ETW_KLOGGER_KSTACK);

	etw_stack_write(k, ts, next, frames, nk,
			etw_stack_user_part(next, frames + nk));
}

/* The ETW_KSTACK_* bit of a list entry, 0 for an event without stacks. */
static u32 etw_stack_kind(const struct etw_classic_event_id *id)
{
	static const struct {
		const struct etw_guid *guid;
		u8 type;
		u32 kind;
	} kinds[] = {
		{ &etw_perfinfo_guid, ETW_TYPE_SAMPLE, ETW_KSTACK_SAMPLE },
		{ &etw_perfinfo_guid, ETW_TYPE_SYSCALL_ENTER,
		  ETW_KSTACK_SYSCALL_ENTER },
		{ &etw_perfinfo_guid, ETW_TYPE_SYSCALL_EXIT,
		  ETW_KSTACK_SYSCALL_EXIT },
		{ &etw_thread_guid, ETW_TYPE_CSWITCH, ETW_KSTACK_CSWITCH },
		{ &etw_thread_guid, ETW_TYPE_READY, ETW_KSTACK_READY },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(kinds); i++)
		if (id->type == kinds[i].type &&
		    !memcmp(&id->guid, kinds[i].guid, sizeof(id->guid)))
			return kinds[i].kind;
	return 0;
}

/* Replace @k's list with the @n entries at @ids. */
static int etw_stack_events_set(struct etw_klogger *k,
				const struct etw_classic_event_id *ids, u32 n)
{
	struct etw_classic_event_id *copy = NULL;
	u32 kinds = 0, i;

	for (i = 0; i < n; i++) {
		if (memchr_inv(ids[i].reserved, 0, sizeof(ids[i].reserved)))
			return -EINVAL;
		kinds |= etw_stack_kind(&ids[i]);
	}
	if (n) {
		copy = kmemdup(ids, n * sizeof(*ids), GFP_KERNEL_ACCOUNT);
		if (!copy)
			return -ENOMEM;
	}
	kfree(k->stacks);
	k->stacks = copy;
	k->nstacks = n;
	WRITE_ONCE(k->stack_kinds, kinds);
	return 0;
}

/**
 * etw_klogger_stack_events() - ETW_IOC_STACK_EVENTS
 * @f: the caller's file
 * @a: the arguments; a get sets @a->count to the list's entries
 * @ids: set: the @a->count entries; get: room for %ETW_MAX_STACK_EVENTS,
 *	receives the list
 *
 * Context: process context, may sleep; takes etw_klogger_lock().
 * Return: 0; -EINVAL for unknown flags, a count above
 * %ETW_MAX_STACK_EVENTS, a non-zero reserved byte or a session that is
 * not the kernel logger; -ENOENT when the session does not run (or is
 * stopping); -EPERM for a global session without privilege; -ENOMEM.
 */
int etw_klogger_stack_events(struct etw_file *f,
			     struct etw_stack_events_args *a,
			     struct etw_classic_event_id *ids)
{
	struct etw_session *s;
	struct etw_klogger *k;
	int ret = 0;

	if ((a->flags & ~ETW_STACK_EVENTS_SET) ||
	    a->count > ETW_MAX_STACK_EVENTS)
		return -EINVAL;
	s = etw_session_find(f, a->logger_id);
	if (IS_ERR(s))
		return PTR_ERR(s);
	etw_klogger_lock();
	k = etw_klogger_running(s);
	if (!k) {
		ret = s->kernel_logger ? -ENOENT : -EINVAL;
	} else if (a->flags & ETW_STACK_EVENTS_SET) {
		ret = etw_stack_events_set(k, ids, a->count);
	} else {
		if (k->nstacks)
			memcpy(ids, k->stacks, k->nstacks * sizeof(*ids));
		a->count = k->nstacks;
	}
	etw_klogger_unlock();
	etw_session_put(s);
	return ret;
}
