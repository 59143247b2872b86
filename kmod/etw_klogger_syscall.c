// SPDX-License-Identifier: GPL-2.0
/*
 * etw_klogger_syscall.c - the kernel logger's SYSCALL flag: a SysCallEnter
 * record as each system call starts and a SysCallExit record as it
 * returns, in every task.
 *
 * Each is Windows' record: a PERFINFO_TRACE_HEADER (struct
 * etw_perfinfo_header: no thread or process in it; consumers take the
 * thread from the CPU's context switches, as on Windows) of hook PerfInfo
 * (group 0x0f) type 51 or 52, version 2, then SysCallEnter's
 * SysCallAddress (8 bytes) or SysCallExit's SysCallNtStatus (u32).
 * Windows' SysCallAddress is the address of the kernel routine called; a
 * module cannot see Linux's system call table, so it holds the call's
 * number instead, in the calling task's table (a 32-bit task's numbers
 * are its own).  SysCallNtStatus is the low 32 bits of the return value:
 * a failed call's negative errno.  Both are 0 where the session's starter
 * could not read the task's /proc/PID/maps (struct etw_viewer), as a user
 * address of a CPU sample is.
 *
 * The sources are the raw syscall tracepoints sys_enter and sys_exit,
 * shared with IMAGE_LOAD's probes (etw_klogger.c), which route every
 * system call of every task through the kernel's syscall-trace slow path
 * while either flag is on.  The probes run in the calling task; with
 * SysCallEnter or SysCallExit in the logger's stack list
 * (etw_klogger_stacks.c) each record is followed by its StackWalk_Event,
 * the task's user stack, captured in this CPU's scratch area, which no
 * interrupt uses.
 */
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/ptrace.h>
#include <linux/sched.h>

#include "etw_buffer.h"
#include "etw_internal.h"
#include "etw_klogger.h"

#define ETW_SYSCALL_VERSION	2

/* SysCallEnter, header first. */
struct etw_syscall_enter_rec {
	struct etw_perfinfo_header h;
	__le64 address;
} __packed;

/* SysCallExit, header first: 20 bytes, padded to 24 in the buffer. */
struct etw_syscall_exit_rec {
	struct etw_perfinfo_header h;
	__le32 status;
} __packed;

static_assert(sizeof(struct etw_syscall_enter_rec) == 24);
static_assert(sizeof(struct etw_syscall_exit_rec) == 20);

static bool etw_syscall_on(const struct etw_klogger *k)
{
	return READ_ONCE(k->flags) & ETW_KFLAG_SYSCALL;
}

/* May the session's starter see what the current task's calls are. */
static bool etw_syscall_shown(const struct etw_klogger *k)
{
	return etw_viewer_may_read(&k->s->viewer, current, current->mm);
}

/*
 * One record of @type: its @len bytes of payload are @value's first ones,
 * little-endian; then its stack when @kind is in the logger's stack list.
 */
static void etw_syscall_put(struct etw_klogger *k, u8 type, u32 len,
			    u64 value, u32 kind, struct pt_regs *regs)
{
	__le64 v = cpu_to_le64(etw_syscall_shown(k) ? value : 0);
	struct etw_perfinfo_header *h;
	struct etw_buffer *b;
	u64 ts;

	preempt_disable();
	h = etw_klogger_perfinfo_reserve(k, ETW_GROUP_PERFINFO << 8 | type,
					 ETW_SYSCALL_VERSION,
					 sizeof(*h) + len, &b);
	if (h) {
		memcpy(h + 1, &v, len);
		ts = h->timestamp;
		etw_klogger_perfinfo_commit(k, b, h);
		if (READ_ONCE(k->stack_kinds) & kind)
			etw_klogger_put_stack(k, regs, ts,
					      this_cpu_ptr(k->pcpu)->frames);
	}
	preempt_enable();
}

/**
 * etw_klogger_syscall_enter() - the sys_enter probe: SysCallEnter
 * @data: the logger
 * @regs: the task's user registers
 * @id: the system call's number
 *
 * Context: the calling task, as the tracepoint calls it.
 */
void etw_klogger_syscall_enter(void *data, struct pt_regs *regs, long id)
{
	struct etw_klogger *k = data;

	if (etw_syscall_on(k))
		etw_syscall_put(k, ETW_TYPE_SYSCALL_ENTER,
				sizeof_field(struct etw_syscall_enter_rec,
					     address),
				(u64)id, ETW_KSTACK_SYSCALL_ENTER, regs);
}

/**
 * etw_klogger_syscall_exit() - the sys_exit probe: SysCallExit
 * @data: the logger
 * @regs: the task's user registers
 * @ret: the system call's return value
 *
 * Context: the calling task, as the tracepoint calls it.
 */
void etw_klogger_syscall_exit(void *data, struct pt_regs *regs, long ret)
{
	struct etw_klogger *k = data;

	if (etw_syscall_on(k))
		etw_syscall_put(k, ETW_TYPE_SYSCALL_EXIT,
				sizeof_field(struct etw_syscall_exit_rec,
					     status),
				(u32)ret, ETW_KSTACK_SYSCALL_EXIT, regs);
}
