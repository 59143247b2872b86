// SPDX-License-Identifier: GPL-2.0
/*
 * etw_klogger_faults.c - the kernel logger's MEMORY_PAGE_FAULTS flag: a
 * PageFault record for each page fault the kernel resolved, in every
 * task.
 *
 * Each is Windows' PageFault_TypeGroup1 record, version 2, in the memory
 * group (0x02): a SYSTEM_TRACE_HEADER naming the faulting thread, then
 * VirtualAddress (the address that faulted) and ProgramCounter (the
 * instruction that faulted), 8 bytes each.  Linux tells a module only
 * whether a fault was major (it waited for I/O) or minor: a major fault
 * is HardPageFault (type 14), a minor one TransitionFault (10), Windows'
 * fault resolved from memory without I/O.  DemandZeroFault, CopyOnWrite
 * and GuardPageFault are not told apart from it, and a fault the kernel
 * could not resolve (AccessViolation, 15) is not seen.  The addresses
 * follow the session's viewer (struct etw_viewer): the address, and an
 * instruction of user mode, only where its starter could read the task's
 * /proc/PID/maps; an instruction of kernel mode (a system call copying
 * from user memory) only where it may see kernel addresses; 0 otherwise.
 *
 * The source: the kernel's software perf events page-faults-min and
 * page-faults-maj, which mm_account_fault() raises after a fault was
 * handled, one per online CPU each, counting every task there with a
 * period of 1: each fault overflows, and a software event overflowing
 * once per raise is never throttled.  Their handler runs in the faulting
 * task with preemption disabled, never in NMI; the record is built on its
 * stack (a fault may come from a probe amid its scratch area).  The
 * counters exist only while a kernel logger with the flag runs: a dynamic
 * CPU hotplug state creates a CPU's two as it comes online and releases
 * them as it goes.  Locking as etw_klogger_profile.c's: etw_klogger_lock()
 * serialises start and stop, the hotplug callbacks nest inside it.
 */
#include <linux/cpuhotplug.h>
#include <linux/percpu.h>
#include <linux/perf_event.h>
#include <linux/ptrace.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "etw_internal.h"
#include "etw_klogger.h"

#define ETW_FAULT_VERSION	2
#define ETW_TYPE_TRANSITION	10	/* TransitionFault */
#define ETW_TYPE_HARD		14	/* HardPageFault */

/* PageFault_TypeGroup1. */
struct etw_fault_rec {
	__le64 virtual_address;
	__le64 program_counter;
} __packed;

static_assert(sizeof(struct etw_fault_rec) == 16);

/* One CPU's counters. */
struct etw_fault_cpu {
	struct perf_event *minor;
	struct perf_event *major;
};

/**
 * struct etw_faults - the counters of the running kernel logger
 * @k: the logger they record for
 * @cpus: each CPU's counters, set by the hotplug callbacks
 * @state: the dynamic CPU hotplug state
 */
struct etw_faults {
	struct etw_klogger *k;
	struct etw_fault_cpu __percpu *cpus;
	int state;
};

/* The running counters; etw_klogger_lock(), read by the hotplug callbacks. */
static struct etw_faults *etw_faults_cur;

static void etw_fault_overflow(struct perf_event *event,
			       struct perf_sample_data *data,
			       struct pt_regs *regs)
{
	struct etw_klogger *k = event->overflow_handler_context;
	u8 rec[sizeof(struct etw_system_header) +
	       sizeof(struct etw_fault_rec)] __aligned(8);
	struct etw_fault_rec *r = (void *)(rec + sizeof(struct etw_system_header));
	const struct etw_viewer *v = &k->s->viewer;
	bool shown;

	static_assert(sizeof(rec) % 8 == 0);
	if (!(READ_ONCE(k->flags) & ETW_KFLAG_PAGE_FAULTS))
		return;
	shown = etw_viewer_may_read(v, current, current->mm);
	r->virtual_address = cpu_to_le64(shown ? data->addr : 0);
	r->program_counter = cpu_to_le64((user_mode(regs) ? shown : v->kaddr) ?
					 instruction_pointer(regs) : 0);
	etw_klogger_emit(k, rec, sizeof(*r), ETW_GROUP_MEMORY,
			 event->attr.config == PERF_COUNT_SW_PAGE_FAULTS_MAJ ?
			 ETW_TYPE_HARD : ETW_TYPE_TRANSITION, ETW_FAULT_VERSION);
}

static struct perf_event *etw_fault_counter(unsigned int cpu, u64 config)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = config,
		.sample_period = 1,
		.pinned = 1,
	};

	return perf_event_create_kernel_counter(&attr, cpu, NULL,
						etw_fault_overflow,
						etw_faults_cur->k);
}

static int etw_faults_offline(unsigned int cpu)
{
	struct etw_fault_cpu *fc = per_cpu_ptr(etw_faults_cur->cpus, cpu);

	if (fc->major)
		perf_event_release_kernel(fc->major);
	if (fc->minor)
		perf_event_release_kernel(fc->minor);
	fc->major = NULL;
	fc->minor = NULL;
	return 0;
}

static int etw_faults_online(unsigned int cpu)
{
	struct etw_fault_cpu *fc = per_cpu_ptr(etw_faults_cur->cpus, cpu);
	struct perf_event *e;

	e = etw_fault_counter(cpu, PERF_COUNT_SW_PAGE_FAULTS_MIN);
	if (IS_ERR(e))
		return PTR_ERR(e);
	fc->minor = e;
	e = etw_fault_counter(cpu, PERF_COUNT_SW_PAGE_FAULTS_MAJ);
	if (IS_ERR(e)) {
		etw_faults_offline(cpu);
		return PTR_ERR(e);
	}
	fc->major = e;
	return 0;
}

/**
 * etw_klogger_faults_start() - count the page faults of a kernel logger
 * @k: the logger; its faults are recorded while its flags have
 *	%ETW_KFLAG_PAGE_FAULTS
 *
 * Context: process context, may sleep; etw_klogger_lock() held, no
 * counters running.
 * Return: 0; -ENOMEM; a counter's error (perf_event_create_kernel_counter())
 * or the CPU hotplug state's (-ENOSPC: no dynamic state left).
 */
int etw_klogger_faults_start(struct etw_klogger *k)
{
	struct etw_faults *f;
	int ret;

	if (WARN_ON_ONCE(etw_faults_cur))
		return -EBUSY;
	f = kzalloc(sizeof(*f), GFP_KERNEL_ACCOUNT);
	if (!f)
		return -ENOMEM;
	f->k = k;
	f->cpus = alloc_percpu_gfp(struct etw_fault_cpu, GFP_KERNEL_ACCOUNT);
	if (!f->cpus) {
		kfree(f);
		return -ENOMEM;
	}
	etw_faults_cur = f;
	ret = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "etw/klogger_faults:online",
				etw_faults_online, etw_faults_offline);
	if (ret < 0) {
		etw_faults_cur = NULL;
		free_percpu(f->cpus);
		kfree(f);
		return ret;
	}
	f->state = ret;
	return 0;
}

/**
 * etw_klogger_faults_stop() - release the counters and wait for handlers
 * @k: the logger they count for; nothing happens when none run for it
 *
 * No handler of @k runs once this returns.
 *
 * Context: process context, may sleep; etw_klogger_lock() held.
 */
void etw_klogger_faults_stop(struct etw_klogger *k)
{
	struct etw_faults *f = etw_faults_cur;

	if (!f || f->k != k)
		return;
	/* Each online CPU's teardown releases its counters. */
	cpuhp_remove_state(f->state);
	/* A handler runs with preemption disabled: an RCU reader. */
	synchronize_rcu();
	etw_faults_cur = NULL;
	free_percpu(f->cpus);
	kfree(f);
}
