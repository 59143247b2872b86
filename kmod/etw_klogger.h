/* SPDX-License-Identifier: GPL-2.0 */
/*
 * etw_klogger.h - what the kernel logger's event sources share
 *
 * etw_klogger.c owns the running logger (struct etw_klogger: its start,
 * UPDATE and stop, its tracepoints and rundown) and the record format
 * (etw_klogger_emit() writes the SYSTEM_TRACE_HEADER); the files beside it
 * that add event sources build their MOF class in a scratch area and call
 * etw_klogger_emit().  The locking rules are etw_klogger.c's.
 */
#ifndef _ETW_KLOGGER_H
#define _ETW_KLOGGER_H

#include <linux/limits.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/types.h>

#include "etw_internal.h"

struct pt_regs;

#define ETW_KLOGGER_MAX_CHARS	1024	/* of a command line or file name */

/*
 * Bytes of the largest record, header included: a process with the
 * longest command line (etw_klogger.c checks it); other sources' records
 * are smaller.
 */
#define ETW_KLOGGER_MAX_RECORD	2168
/* Process keys remembered to report each process's End once. */
#define ETW_KLOGGER_ENDED	64

#define ETW_KLOGGER_KSTACK_SKIP	32	/* the sampler's own frames, at most */
#define ETW_KLOGGER_KSTACK	64	/* kernel frames recorded, at most */
#define ETW_KLOGGER_USTACK	64	/* user frames recorded, at most */
/* Room for one stack's frames as captured. */
#define ETW_KLOGGER_STACK_ROOM \
	(ETW_KLOGGER_KSTACK_SKIP + ETW_KLOGGER_KSTACK + ETW_KLOGGER_USTACK)

/**
 * struct etw_klogger_scratch - where one record is built
 * @text: a command line's bytes, or a file's path (d_path() fills it from
 *	the end)
 * @rec: the record, header first
 * @frames: a system call's stack (etw_klogger_syscall.c)
 */
struct etw_klogger_scratch {
	char text[PATH_MAX];
	u8 rec[ALIGN(ETW_KLOGGER_MAX_RECORD, 8)] __aligned(8);
	unsigned long frames[ETW_KLOGGER_STACK_ROOM];
};

/**
 * struct etw_klogger_frames - one stack's frames as captured
 * @f: the addresses
 */
struct etw_klogger_frames {
	unsigned long f[ETW_KLOGGER_STACK_ROOM];
};

/* The logger's events that may be followed by their stack. */
#define ETW_KSTACK_SAMPLE	BIT(0)	/* SampledProfile */
#define ETW_KSTACK_SYSCALL_ENTER BIT(1)	/* SysCallEnter */
#define ETW_KSTACK_SYSCALL_EXIT	BIT(2)	/* SysCallExit */
#define ETW_KSTACK_CSWITCH	BIT(3)	/* CSwitch */
#define ETW_KSTACK_READY	BIT(4)	/* ReadyThread */

/**
 * struct etw_klogger - the running kernel logger
 * @s: its session (the session table's reference keeps it)
 * @flags: its ETW_KFLAG_* bits (probes read them with READ_ONCE())
 * @next: the flags an UPDATE prepared, until its commit or abort
 * @pcpu: the probes' scratch areas
 * @sched_frames: the scheduler's probes' stacks: they run with interrupts
 *	off, so neither nests in the other, but either may interrupt a probe
 *	amid its scratch area's frames
 * @rundown: the rundown's scratch area
 * @ended_lock: protects @ended and @ended_next
 * @ended: the keys of the latest processes whose End was recorded
 * @ended_next: the slot of @ended to fill next
 * @stacks: the events whose records are followed by their stack
 *	(TraceStackTracingInfo); etw_klogger_lock()
 * @nstacks: entries at @stacks
 * @stack_kinds: the ETW_KSTACK_* events among @stacks (probes read them
 *	with READ_ONCE())
 */
struct etw_klogger {
	struct etw_session *s;
	u32 flags;
	u32 next;
	struct etw_klogger_scratch __percpu *pcpu;
	struct etw_klogger_frames __percpu *sched_frames;
	struct etw_klogger_scratch *rundown;
	raw_spinlock_t ended_lock;	/* @ended, @ended_next */
	u64 ended[ETW_KLOGGER_ENDED];
	unsigned int ended_next;
	struct etw_classic_event_id *stacks;
	u32 nstacks;
	u32 stack_kinds;
};

/* SystemTraceControlGuid: the kernel logger's records are reported under it. */
extern const struct etw_guid etw_klogger_guid;

u64 etw_klogger_emit(struct etw_klogger *k, u8 *rec, u32 len, u8 group,
		     u8 type, u16 version);
struct etw_buffer;
struct etw_perfinfo_header *etw_klogger_perfinfo_reserve(struct etw_klogger *k,
							 u16 hook, u16 version,
							 u32 len,
							 struct etw_buffer **b);
void etw_klogger_perfinfo_commit(struct etw_klogger *k, struct etw_buffer *b,
				 const struct etw_perfinfo_header *h);
/* Event types of PerfInfoGuid: SampledProfile, SysCallEnter, SysCallExit. */
#define ETW_TYPE_SAMPLE		46
#define ETW_TYPE_SYSCALL_ENTER	51
#define ETW_TYPE_SYSCALL_EXIT	52
/* Event types of ThreadGuid: CSwitch, ReadyThread. */
#define ETW_TYPE_CSWITCH	36
#define ETW_TYPE_READY		50

/**
 * struct etw_cswitch_old - what a CSwitch says of the outgoing thread
 * @state: OldThreadState (Windows' KTHREAD_STATE)
 * @reason: OldThreadWaitReason (KWAIT_REASON)
 * @mode: OldThreadWaitMode (KPROCESSOR_MODE)
 */
struct etw_cswitch_old {
	u8 state;
	u8 reason;
	u8 mode;
};

/* etw_klogger_sched.c: CSWITCH and DISPATCHER, the scheduler's probes. */
void etw_klogger_switch(void *data, bool preempt, struct task_struct *prev,
			struct task_struct *next, unsigned int prev_state);
void etw_klogger_waking(void *data, struct task_struct *p);
#if IS_ENABLED(CONFIG_KUNIT)
u8 etw_klogger_sched_priority(int prio, unsigned int policy, bool idle);
void etw_klogger_old_state(struct etw_cswitch_old *o, bool preempt,
			   unsigned int prev_state, unsigned int now_state,
			   bool kthread);
#endif

struct etw_klogger *etw_klogger_running(struct etw_session *s);

/* SYSCALL's probes (etw_klogger_syscall.c) */
void etw_klogger_syscall_enter(void *data, struct pt_regs *regs, long id);
void etw_klogger_syscall_exit(void *data, struct pt_regs *regs, long ret);

/* PROFILE's sampler (etw_klogger_profile.c) */
int etw_klogger_profile_start(struct etw_klogger *k);
void etw_klogger_profile_stop(struct etw_klogger *k);

/* PAGE_FAULTS' counters (etw_klogger_faults.c), which need perf events */
#if IS_ENABLED(CONFIG_PERF_EVENTS)
int etw_klogger_faults_start(struct etw_klogger *k);
void etw_klogger_faults_stop(struct etw_klogger *k);
#else
static inline int etw_klogger_faults_start(struct etw_klogger *k)
{
	return -EOPNOTSUPP;
}

static inline void etw_klogger_faults_stop(struct etw_klogger *k)
{
}
#endif

/* the stacks of the logger's records (etw_klogger_stacks.c) */
void etw_klogger_put_stack(struct etw_klogger *k, struct pt_regs *regs,
			   u64 ts, unsigned long *frames);
void etw_klogger_put_waker_stack(struct etw_klogger *k, u64 ts,
				 unsigned long *frames);
void etw_klogger_put_next_stack(struct etw_klogger *k, u64 ts,
				struct task_struct *next,
				unsigned long *frames);

#endif /* _ETW_KLOGGER_H */
