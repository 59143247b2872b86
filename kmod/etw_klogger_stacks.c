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
 * types 46, 51 and 52) get their stack; the other entries are kept and
 * reported back but take no stack.
 *
 * A stack is Windows' StackWalk_Event: a PERFINFO_TRACE_HEADER of hook
 * StackWalk (group 0x18) type 32, version 2, then EventTimeStamp (the
 * event's timestamp, by which consumers join the two), StackProcess and
 * StackThread (the sampled task's process and thread; 0 and 0 for the
 * idle task), and the frames innermost first: the kernel frames from the
 * interrupted instruction out (the sampler's own frames left out; a
 * system call, whose registers are the user's, has none), then the user
 * frames from the user instruction pointer out.  Kernel frames
 * are zero where the session's starter may not see kernel addresses,
 * user frames where it could not read the process's /proc/PID/maps
 * (struct etw_viewer): as many frames, all zero.
 *
 * The frames are captured in the caller's area, one per CPU allocated
 * when the sampler or the logger starts: nothing is allocated per event.
 * The kernel stack is stack_trace_save()'s (it walks from the interrupt
 * through the interrupted frames); the user stack etw_stack_user()'s,
 * through frame pointers with page faults disabled.  A 32-bit process's
 * frames have another layout: its user instruction pointer alone.
 */
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

/* PerfInfoGuid: SampledProfile's event class. */
static const struct etw_guid etw_perfinfo_guid = { 0xce1dbfb4, 0x137e, 0x4da6,
	{ 0x87, 0xb0, 0x3f, 0x59, 0xaa, 0x10, 0x2c, 0xbc } };

/* StackWalk_Event's fixed part, header first; the frames follow. */
struct etw_stack_rec {
	struct etw_perfinfo_header h;
	__le64 event_ts;
	__le32 process_id;
	__le32 thread_id;
} __packed;

static_assert(sizeof(struct etw_stack_rec) == 32);

/* Does the user part of the current task have 32-bit frames. */
static bool etw_stack_compat(void)
{
#if defined(CONFIG_X86_64)
	return !user_64bit_mode(task_pt_regs(current));
#elif defined(CONFIG_ARM64)
	return compat_user_mode(task_pt_regs(current));
#else
	return false;
#endif
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
	n = min_t(u32, n - i, ETW_KLOGGER_KSTACK);
	memmove(f, f + i, n * sizeof(*f));
	return n;
}

static u32 etw_stack_user_part(unsigned long *f)
{
	u32 n;

	if (!current->mm || (current->flags & PF_KTHREAD))
		return 0;
	if (etw_stack_compat()) {
		f[0] = instruction_pointer(task_pt_regs(current));
		return 1;
	}
	pagefault_disable();
	n = etw_stack_user(f, ETW_KLOGGER_USTACK);
	pagefault_enable();
	return n;
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
 * A stack the session has no buffer for counts in its events_lost.
 *
 * Context: the current task's, preemption disabled: the sampler's hard
 * interrupt or a system call's tracepoint; not NMI.
 */
void etw_klogger_put_stack(struct etw_klogger *k, struct pt_regs *regs,
			   u64 ts, unsigned long *frames)
{
	struct etw_session *s = k->s;
	u32 nk = 0, nu, len, i;
	struct etw_stack_rec *r;
	struct etw_buffer *b;
	bool kshown, ushown;
	__le64 *out;
	u16 hook = ETW_GROUP_STACKWALK << 8 | ETW_TYPE_STACK;

	if (!user_mode(regs))
		nk = etw_stack_kernel(frames, regs);
	nu = etw_stack_user_part(frames + nk);
	len = sizeof(*r) + (nk + nu) * sizeof(u64);
	r = (void *)etw_klogger_perfinfo_reserve(k, hook, ETW_STACK_VERSION,
						 len, &b);
	if (!r)
		return;
	r->event_ts = cpu_to_le64(ts);
	r->process_id = cpu_to_le32(task_tgid_nr(current));
	r->thread_id = cpu_to_le32(task_pid_nr(current));
	kshown = s->viewer.kaddr;
	ushown = nu && etw_viewer_may_read(&s->viewer, current, current->mm);
	out = (__le64 *)(r + 1);
	for (i = 0; i < nk + nu; i++)
		out[i] = cpu_to_le64((i < nk ? kshown : ushown) ? frames[i] : 0);
	etw_klogger_perfinfo_commit(k, b, &r->h);
}

/* The ETW_KSTACK_* bit of a list entry, 0 for an event without stacks. */
static u32 etw_stack_kind(const struct etw_classic_event_id *id)
{
	if (memcmp(&id->guid, &etw_perfinfo_guid, sizeof(id->guid)))
		return 0;
	switch (id->type) {
	case ETW_TYPE_SAMPLE:
		return ETW_KSTACK_SAMPLE;
	case ETW_TYPE_SYSCALL_ENTER:
		return ETW_KSTACK_SYSCALL_ENTER;
	case ETW_TYPE_SYSCALL_EXIT:
		return ETW_KSTACK_SYSCALL_EXIT;
	default:
		return 0;
	}
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
