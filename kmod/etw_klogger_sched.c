// SPDX-License-Identifier: GPL-2.0
/*
 * etw_klogger_sched.c - the kernel logger's scheduler events: CSwitch
 * (CSWITCH) and ReadyThread (DISPATCHER), as Windows records them under
 * the Thread group, version 2 (Documentation/abi.rst has the layouts and
 * the tables below).
 *
 * CSwitch comes from sched_switch, in the switching CPU's outgoing thread.
 * The outgoing thread's Windows state, wait reason and wait mode follow
 * from the scheduler's view of it (etw_klogger_old_state()), its priority
 * and the incoming thread's from their effective Linux priority
 * (etw_klogger_sched_priority()).  Linux has no ideal processor, no
 * C-state at this point and no per-thread wait start: those fields are 0.
 *
 * ReadyThread comes from sched_waking, in the waker (the record's header
 * names the readying thread, as Windows' does), and from sched_wakeup_new
 * for a new task's first wakeup, in its parent.  sched_wakeup itself may
 * fire on the wakee's CPU, in whatever runs there (a wakeup queued to that
 * CPU's wake list): its header would not name the waker.
 *
 * Both tracepoints fire with interrupts off, sched_switch under the
 * runqueue lock, sched_waking and sched_wakeup_new under the wakee's
 * pi_lock: the records are built on the stack, and etw_klogger_emit()'s
 * buffer path only defers its wakeups there (etw_buffer.c).  With CSwitch
 * or ReadyThread in the stack list a stack follows its record: the
 * incoming thread's or the waker's (etw_klogger_stacks.c), captured in
 * this CPU's sched_frames, which only these probes use and, interrupts
 * being off, one at a time.  The prototypes are the same from 6.1 to
 * 6.12.
 */
#include <linux/hardirq.h>
#include <linux/sched.h>
#include <linux/sched/prio.h>

#include "compat.h"
#include "etw_klogger.h"

#define ETW_SCHED_VERSION	2

/* Windows' KTHREAD_STATE values used. */
#define ETW_KSTATE_READY	1
#define ETW_KSTATE_TERMINATED	4
#define ETW_KSTATE_WAITING	5

/* Windows' KWAIT_REASON values used. */
#define ETW_WAIT_EXECUTIVE	0
#define ETW_WAIT_SUSPENDED	5
#define ETW_WAIT_USER_REQUEST	6
#define ETW_WAIT_QUEUE		15	/* WrQueue */
#define ETW_WAIT_TERMINATED	22	/* WrTerminated */
#define ETW_WAIT_PREEMPTED	32	/* WrPreempted */

/* Windows' KPROCESSOR_MODE. */
#define ETW_MODE_KERNEL		0
#define ETW_MODE_USER		1

/* ReadyThread's Flag: readied from a DPC (here: an interrupt). */
#define ETW_READY_FROM_DPC	0x1

/* Windows' priorities: idle 0, the real-time class 16 to 31. */
#define ETW_PRIO_IDLE_TASK	0
#define ETW_PRIO_SCHED_IDLE	1
#define ETW_PRIO_NORMAL		8
#define ETW_PRIO_RT_LOW		16
#define ETW_PRIO_RT_HIGH	31

/* CSwitch, version 2. */
struct etw_cswitch_rec {
	__le32 new_thread_id;
	__le32 old_thread_id;
	s8 new_thread_priority;
	s8 old_thread_priority;
	u8 previous_cstate;
	s8 spare_byte;
	s8 old_thread_wait_reason;
	s8 old_thread_wait_mode;
	s8 old_thread_state;
	s8 old_thread_wait_ideal_processor;
	__le32 new_thread_wait_time;
	__le32 reserved;
} __packed;

/* ReadyThread, version 2. */
struct etw_ready_rec {
	__le32 t_thread_id;
	s8 adjust_reason;
	s8 adjust_increment;
	s8 flag;
	s8 reserved;
} __packed;

static_assert(sizeof(struct etw_cswitch_rec) == 24);
static_assert(sizeof(struct etw_ready_rec) == 8);

/**
 * etw_klogger_sched_priority() - a Linux priority as a Windows one (0-31)
 * @prio: the task's effective priority (task_struct.prio: a deadline
 *	task's is negative, a real-time one's below MAX_RT_PRIO)
 * @policy: its policy (SCHED_*)
 * @idle: it is a CPU's idle task
 *
 * The idle task is 0 (Windows' idle threads); SCHED_DEADLINE 31; real-time
 * priority 1 to 99 (MAX_RT_PRIO - 1 - @prio) is 16 to 31, 16 + (rt - 1) *
 * 15 / 98; SCHED_IDLE is 1; SCHED_OTHER and SCHED_BATCH are Thread's
 * BasePriority, 8 - nice / 3 (2 to 14).  @prio includes priority
 * inheritance: a boosted task reports its donor's class.
 *
 * Context: any.
 * Return: the priority.
 */
VISIBLE_IF_KUNIT u8 etw_klogger_sched_priority(int prio, unsigned int policy,
					       bool idle)
{
	int rt;

	if (idle)
		return ETW_PRIO_IDLE_TASK;
	if (prio < 0)
		return ETW_PRIO_RT_HIGH;
	if (prio < MAX_RT_PRIO) {
		rt = max(MAX_RT_PRIO - 1 - prio, 1);
		return ETW_PRIO_RT_LOW + (rt - 1) *
		       (ETW_PRIO_RT_HIGH - ETW_PRIO_RT_LOW) / (MAX_RT_PRIO - 2);
	}
	if (policy == SCHED_IDLE)
		return ETW_PRIO_SCHED_IDLE;
	return ETW_PRIO_NORMAL - PRIO_TO_NICE(prio) / 3;
}
EXPORT_SYMBOL_IF_KUNIT(etw_klogger_sched_priority);

/**
 * etw_klogger_old_state() - the outgoing thread's CSwitch fields
 * @o: out: its OldThreadState, OldThreadWaitReason and OldThreadWaitMode
 * @preempt: sched_switch's @preempt: preempted in the kernel
 * @prev_state: sched_switch's @prev_state: its state as schedule() read it
 * @now_state: its state now (a pending signal makes a sleep runnable
 *	again after 6.1's schedule() read @prev_state)
 * @kthread: it is a kernel thread
 *
 * In this order: still runnable: Ready, WrPreempted (preempted in the
 * kernel, or schedule() called runnable: preemption on the way back to
 * user mode, which sched_switch does not flag, a voluntary preemption
 * point, sched_yield(), a sleep a signal cut short); dead: Terminated,
 * WrTerminated; stopped, traced, parked or frozen: Waiting, Suspended; an
 * interruptible sleep of a user thread (pipes, futexes, poll(),
 * nanosleep(): what a signal ends, as it ends Windows' user-mode waits):
 * Waiting, UserRequest, UserMode; an idle kernel thread waiting for work
 * (TASK_IDLE): Waiting, WrQueue; any other sleep (uninterruptible, or a
 * kernel thread's): Waiting, Executive.  The wait mode is KernelMode but
 * for UserRequest.
 *
 * Context: any.
 */
VISIBLE_IF_KUNIT void etw_klogger_old_state(struct etw_cswitch_old *o,
					    bool preempt,
					    unsigned int prev_state,
					    unsigned int now_state,
					    bool kthread)
{
	o->mode = ETW_MODE_KERNEL;
	o->state = ETW_KSTATE_WAITING;
	if (preempt || prev_state == TASK_RUNNING ||
	    now_state == TASK_RUNNING) {
		o->state = ETW_KSTATE_READY;
		o->reason = ETW_WAIT_PREEMPTED;
	} else if (prev_state & TASK_DEAD) {
		o->state = ETW_KSTATE_TERMINATED;
		o->reason = ETW_WAIT_TERMINATED;
	} else if (prev_state & (__TASK_STOPPED | __TASK_TRACED | TASK_PARKED |
				 TASK_FROZEN)) {
		o->reason = ETW_WAIT_SUSPENDED;
	} else if ((prev_state & TASK_INTERRUPTIBLE) && !kthread) {
		o->reason = ETW_WAIT_USER_REQUEST;
		o->mode = ETW_MODE_USER;
	} else if ((prev_state & TASK_IDLE) == TASK_IDLE) {
		o->reason = ETW_WAIT_QUEUE;
	} else {
		o->reason = ETW_WAIT_EXECUTIVE;
	}
}
EXPORT_SYMBOL_IF_KUNIT(etw_klogger_old_state);

static u8 etw_klogger_task_priority(const struct task_struct *p)
{
	return etw_klogger_sched_priority(READ_ONCE(p->prio),
					  READ_ONCE(p->policy), is_idle_task(p));
}

/**
 * etw_klogger_switch() - sched_switch's probe: a CSwitch record
 * @data: the logger
 * @preempt: @prev was preempted
 * @prev: the outgoing thread, current
 * @next: the incoming thread
 * @prev_state: @prev's state as schedule() read it
 *
 * Context: interrupts off, @prev's runqueue lock held.
 */
void etw_klogger_switch(void *data, bool preempt, struct task_struct *prev,
			struct task_struct *next, unsigned int prev_state)
{
	struct etw_klogger *k = data;
	u8 rec[sizeof(struct etw_system_header) +
	       sizeof(struct etw_cswitch_rec)] __aligned(8);
	struct etw_cswitch_rec *r = (void *)(rec + sizeof(struct etw_system_header));
	struct etw_cswitch_old o;
	u64 ts;

	static_assert(sizeof(rec) % 8 == 0);
	if (!(READ_ONCE(k->flags) & ETW_KFLAG_CSWITCH))
		return;
	etw_klogger_old_state(&o, preempt, prev_state, READ_ONCE(prev->__state),
			      prev->flags & PF_KTHREAD);
	memset(r, 0, sizeof(*r));
	r->new_thread_id = cpu_to_le32(task_pid_nr(next));
	r->old_thread_id = cpu_to_le32(task_pid_nr(prev));
	r->new_thread_priority = etw_klogger_task_priority(next);
	r->old_thread_priority = etw_klogger_task_priority(prev);
	r->old_thread_wait_reason = o.reason;
	r->old_thread_wait_mode = o.mode;
	r->old_thread_state = o.state;
	ts = etw_klogger_emit(k, rec, sizeof(*r), ETW_GROUP_THREAD,
			      ETW_TYPE_CSWITCH, ETW_SCHED_VERSION);
	if (ts && (READ_ONCE(k->stack_kinds) & ETW_KSTACK_CSWITCH) &&
	    !is_idle_task(next))
		etw_klogger_put_next_stack(k, ts, next,
					   this_cpu_ptr(k->sched_frames)->f);
}

/**
 * etw_klogger_waking() - sched_waking's and sched_wakeup_new's probe: a
 *	ReadyThread record
 * @data: the logger
 * @p: the thread made ready
 *
 * Linux gives no wakeup boost: AdjustReason 0 (ignore the increment),
 * AdjustIncrement 0.  Flag 0x1 (readied from a DPC) when the waker is an
 * interrupt handler or a softirq; no kernel stack or address space is ever
 * swapped out (0x2, 0x4).
 *
 * Context: interrupts off, @p's pi_lock held.
 */
void etw_klogger_waking(void *data, struct task_struct *p)
{
	struct etw_klogger *k = data;
	u8 rec[sizeof(struct etw_system_header) +
	       sizeof(struct etw_ready_rec)] __aligned(8);
	struct etw_ready_rec *r = (void *)(rec + sizeof(struct etw_system_header));
	u64 ts;

	static_assert(sizeof(rec) % 8 == 0);
	if (!(READ_ONCE(k->flags) & ETW_KFLAG_DISPATCHER))
		return;
	memset(r, 0, sizeof(*r));
	r->t_thread_id = cpu_to_le32(task_pid_nr(p));
	if (in_hardirq() || in_serving_softirq())
		r->flag = ETW_READY_FROM_DPC;
	ts = etw_klogger_emit(k, rec, sizeof(*r), ETW_GROUP_THREAD,
			      ETW_TYPE_READY, ETW_SCHED_VERSION);
	if (ts && (READ_ONCE(k->stack_kinds) & ETW_KSTACK_READY))
		etw_klogger_put_waker_stack(k, ts,
					    this_cpu_ptr(k->sched_frames)->f);
}
