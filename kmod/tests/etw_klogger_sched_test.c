// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of etw_klogger_sched.c's tables: the Windows state, wait
 * reason and wait mode a CSwitch gives the outgoing thread, and the
 * Windows priority of a Linux one (Documentation/abi.rst lists both).
 * The values are Windows' KTHREAD_STATE, KWAIT_REASON and KPROCESSOR_MODE
 * as the CSwitch class documents them (learn.microsoft.com, "CSwitch
 * class").
 */
#include <kunit/test.h>
#include <linux/sched.h>
#include <linux/string.h>

#include "../compat.h"
#include "../etw_klogger.h"

/**
 * struct etw_so_case - one outgoing thread
 * @name: case description
 * @preempt: sched_switch's preempt
 * @prev_state: sched_switch's prev_state
 * @now_state: the thread's state when the probe runs
 * @kthread: a kernel thread
 * @state: expected OldThreadState
 * @reason: expected OldThreadWaitReason
 * @mode: expected OldThreadWaitMode
 */
struct etw_so_case {
	const char *name;
	bool preempt;
	unsigned int prev_state;
	unsigned int now_state;
	bool kthread;
	u8 state;
	u8 reason;
	u8 mode;
};

static const struct etw_so_case etw_so_cases[] = {
	{ "preempted in the kernel: Ready, WrPreempted", true, TASK_RUNNING,
	  TASK_RUNNING, false, 1, 32, 0 },
	{ "preempted while going to sleep is still preempted", true,
	  TASK_INTERRUPTIBLE, TASK_INTERRUPTIBLE, false, 1, 32, 0 },
	{ "schedule() while runnable: Ready, WrPreempted", false, TASK_RUNNING,
	  TASK_RUNNING, false, 1, 32, 0 },
	{ "kernel thread at a preemption point: Ready, WrPreempted", false,
	  TASK_RUNNING, TASK_RUNNING, true, 1, 32, 0 },
	{ "sleep a signal cut short: Ready, WrPreempted", false,
	  TASK_INTERRUPTIBLE, TASK_RUNNING, false, 1, 32, 0 },
	{ "dead: Terminated, WrTerminated", false, TASK_DEAD, TASK_DEAD,
	  false, 4, 22, 0 },
	{ "stopped: Waiting, Suspended", false, __TASK_STOPPED,
	  __TASK_STOPPED, false, 5, 5, 0 },
	{ "traced: Waiting, Suspended", false, __TASK_TRACED, __TASK_TRACED,
	  false, 5, 5, 0 },
	{ "parked kernel thread: Waiting, Suspended", false, TASK_PARKED,
	  TASK_PARKED, true, 5, 5, 0 },
	{ "frozen: Waiting, Suspended", false, TASK_FROZEN, TASK_FROZEN,
	  false, 5, 5, 0 },
	{ "user interruptible sleep: Waiting, UserRequest, UserMode", false,
	  TASK_INTERRUPTIBLE, TASK_INTERRUPTIBLE, false, 5, 6, 1 },
	{ "freezable futex wait: Waiting, UserRequest, UserMode", false,
	  TASK_INTERRUPTIBLE | TASK_FREEZABLE,
	  TASK_INTERRUPTIBLE | TASK_FREEZABLE, false, 5, 6, 1 },
	{ "woken between schedule() and the probe (TASK_WAKING)", false,
	  TASK_INTERRUPTIBLE, TASK_WAKING, false, 5, 6, 1 },
	{ "kernel thread interruptible sleep: Waiting, Executive", false,
	  TASK_INTERRUPTIBLE, TASK_INTERRUPTIBLE, true, 5, 0, 0 },
	{ "idle kernel thread (TASK_IDLE): Waiting, WrQueue", false, TASK_IDLE,
	  TASK_IDLE, true, 5, 15, 0 },
	{ "uninterruptible sleep: Waiting, Executive", false,
	  TASK_UNINTERRUPTIBLE, TASK_UNINTERRUPTIBLE, false, 5, 0, 0 },
	{ "killable sleep: Waiting, Executive", false, TASK_KILLABLE,
	  TASK_KILLABLE, false, 5, 0, 0 },
};

static void etw_so_desc(const struct etw_so_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(etw_so, etw_so_cases, etw_so_desc);

static void etw_klogger_old_state_test(struct kunit *test)
{
	const struct etw_so_case *c = test->param_value;
	struct etw_cswitch_old o;

	memset(&o, 0xaa, sizeof(o));
	etw_klogger_old_state(&o, c->preempt, c->prev_state, c->now_state,
			      c->kthread);
	KUNIT_EXPECT_EQ(test, o.state, c->state);
	KUNIT_EXPECT_EQ(test, o.reason, c->reason);
	KUNIT_EXPECT_EQ(test, o.mode, c->mode);
}

/**
 * struct etw_sp_case - one Linux priority
 * @name: case description
 * @prio: task_struct.prio
 * @policy: SCHED_*
 * @idle: the idle task
 * @want: the Windows priority
 */
struct etw_sp_case {
	const char *name;
	int prio;
	unsigned int policy;
	bool idle;
	u8 want;
};

static const struct etw_sp_case etw_sp_cases[] = {
	{ "idle task is 0", MAX_PRIO - 20, SCHED_NORMAL, true, 0 },
	{ "nice 0 is 8", MAX_PRIO - 20, SCHED_NORMAL, false, 8 },
	{ "nice -20 is 14", MAX_RT_PRIO, SCHED_NORMAL, false, 14 },
	{ "nice 19 is 2", MAX_PRIO - 1, SCHED_NORMAL, false, 2 },
	{ "nice 5 is 7", MAX_PRIO - 15, SCHED_BATCH, false, 7 },
	{ "SCHED_IDLE is 1", MAX_PRIO - 20, SCHED_IDLE, false, 1 },
	{ "real-time 1 is 16", MAX_RT_PRIO - 2, SCHED_FIFO, false, 16 },
	{ "real-time 50 is 23", MAX_RT_PRIO - 51, SCHED_RR, false, 23 },
	{ "real-time 99 is 31", 0, SCHED_FIFO, false, 31 },
	{ "boosted to prio 99 (real-time 0) is 16", MAX_RT_PRIO - 1,
	  SCHED_NORMAL, false, 16 },
	{ "deadline is 31", -1, SCHED_DEADLINE, false, 31 },
};

static void etw_sp_desc(const struct etw_sp_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(etw_sp, etw_sp_cases, etw_sp_desc);

static void etw_klogger_sched_priority_test(struct kunit *test)
{
	const struct etw_sp_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, etw_klogger_sched_priority(c->prio, c->policy,
							 c->idle), c->want);
}

static struct kunit_case etw_klogger_sched_cases[] = {
	KUNIT_CASE_PARAM(etw_klogger_old_state_test, etw_so_gen_params),
	KUNIT_CASE_PARAM(etw_klogger_sched_priority_test, etw_sp_gen_params),
	{}
};

static struct kunit_suite etw_klogger_sched_suite = {
	.name = "etw_klogger_sched",
	.test_cases = etw_klogger_sched_cases,
};
kunit_test_suite(etw_klogger_sched_suite);
