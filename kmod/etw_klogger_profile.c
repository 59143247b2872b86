// SPDX-License-Identifier: GPL-2.0
/*
 * etw_klogger_profile.c - the kernel logger's PROFILE flag: a CPU sample
 * (SampledProfile) on every online CPU at each sampling interval.
 *
 * Each sample is Windows' record: a PERFINFO_TRACE_HEADER (struct
 * etw_perfinfo_header: no thread or process in it) of hook PerfInfo
 * (group 0x0f) type 46, version 2, then InstructionPointer (8 bytes),
 * ThreadId, Count (u16, 1) and Reserved (u16, 0).  The instruction is the
 * interrupted one, in kernel or user mode; the thread is the interrupted
 * task's id, 0 for a CPU's idle task as Windows names its idle thread.
 * The address follows the session's viewer (struct etw_viewer): a kernel
 * address only where its starter may see kernel addresses, a user one
 * only where it could read the process's /proc/PID/maps, 0 otherwise.
 *
 * The source: one pinned hrtimer per online CPU, whose callback runs in
 * hard interrupt context and takes the interrupted registers from
 * get_irq_regs().  Not perf events: the cpu-clock event's overflow
 * handler runs from an HRTIMER_MODE_HARD timer, where (on PREEMPT_RT) a
 * buffer delivery could not take the consumers' wait queue lock, perf
 * throttles it to its own sample rate and it shares the PMU bookkeeping
 * with every perf user; a plain hrtimer costs one timer per CPU and
 * nothing else.  On PREEMPT_RT a plain hrtimer expires in softirq
 * context, where get_irq_regs() has no registers: such a kernel records
 * no samples.  Never NMI: the buffer code is not NMI-safe.
 *
 * The timers run only while a kernel logger with PROFILE runs: armed
 * when it starts with the flag or an UPDATE prepares it (samples are
 * recorded once the flag is on, see etw_klogger.c), cancelled and waited
 * for when the flag goes off and before the logger is freed.  A dynamic
 * CPU hotplug state arms a CPU's timer when it comes online and cancels
 * it on the CPU as it goes offline, so a timer never migrates.
 *
 * With SampledProfile in the logger's stack list (TraceStackTracingInfo,
 * etw_klogger_stacks.c) each sample is followed by its StackWalk_Event,
 * captured in the CPU's own area of the sampler.
 *
 * The interval is one system-wide setting (Windows' profile interval is
 * the HAL's, not a session's): ETW_IOC_PROFILE_INTERVAL sets and queries
 * it, in 100 ns units, clamped to Windows' bounds; a running sampler
 * restarts every CPU's timer with it.
 *
 * A sample interrupts whatever runs on its CPU, possibly a kernel logger
 * probe or a writer between its reservation and its commit: it is built
 * on the callback's stack, never in the probes' scratch areas, and
 * reserved with etw_buffer_reserve(), whose per-CPU streams take nested
 * writers (etw_buffer.c).  Locking: etw_klogger_lock() serialises start,
 * stop and interval changes; the hotplug callbacks run under the CPU
 * hotplug lock, which nests inside it.
 */
#include <linux/cpuhotplug.h>
#include <linux/cpumask.h>
#include <linux/hrtimer.h>
#include <linux/percpu.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <asm/irq_regs.h>

#include "compat.h"
#include "etw_buffer.h"
#include "etw_internal.h"
#include "etw_klogger.h"

#define ETW_SAMPLE_VERSION	2
#define ETW_100NS		100

/* SampledProfile, header first. */
struct etw_sample_rec {
	struct etw_perfinfo_header h;
	__le64 ip;
	__le32 thread_id;
	__le16 count;
	__le16 reserved;
} __packed;

static_assert(sizeof(struct etw_perfinfo_header) == 16);
static_assert(sizeof(struct etw_sample_rec) == 32);

/**
 * struct etw_profile_cpu - one CPU's sampling timer
 * @timer: the timer, pinned to the CPU
 * @armed: the CPU's hotplug callback armed it and has not cancelled it
 * @frames: where the timer captures a sample's stack
 */
struct etw_profile_cpu {
	struct hrtimer timer;
	bool armed;
	unsigned long frames[ETW_KLOGGER_STACK_ROOM];
};

/**
 * struct etw_profile - the running sampler
 * @k: the kernel logger it records in
 * @state: its CPU hotplug state
 * @cpus: the timers
 */
struct etw_profile {
	struct etw_klogger *k;
	int state;
	struct etw_profile_cpu __percpu *cpus;
};

/* The interval, 100 ns units: read by the timers, set under the lock. */
static u32 etw_profile_interval = ETW_PROFILE_INTERVAL_DEFAULT;
/* The running sampler (etw_klogger_lock()); the hotplug callbacks' too. */
static struct etw_profile *etw_profile_cur;

static ktime_t etw_profile_period(void)
{
	return ns_to_ktime((u64)READ_ONCE(etw_profile_interval) * ETW_100NS);
}

/* The sampled address, or 0 where the session's starter may not see it. */
static u64 etw_profile_ip(const struct etw_session *s, struct pt_regs *regs)
{
	if (!user_mode(regs))
		return s->viewer.kaddr ? instruction_pointer(regs) : 0;
	return etw_viewer_may_read(&s->viewer, current, current->mm) ?
	       instruction_pointer(regs) : 0;
}

/*
 * One SampledProfile record of the interrupted context @regs.
 * Return: its timestamp, 0 when it was lost.
 */
static u64 etw_profile_sample(struct etw_klogger *k, struct pt_regs *regs)
{
	struct etw_sample_rec *r;
	struct etw_buffer *b;
	u64 ts;

	r = (void *)etw_klogger_perfinfo_reserve(k, ETW_GROUP_PERFINFO << 8 |
						 ETW_TYPE_SAMPLE,
						 ETW_SAMPLE_VERSION,
						 sizeof(*r), &b);
	if (!r)
		return 0;
	r->ip = cpu_to_le64(etw_profile_ip(k->s, regs));
	r->thread_id = cpu_to_le32(task_pid_nr(current));
	r->count = cpu_to_le16(1);
	r->reserved = 0;
	ts = r->h.timestamp;
	/* The buffer may be delivered once committed: @r is not read after. */
	etw_klogger_perfinfo_commit(k, b, &r->h);
	return ts;
}

/* Hard interrupt context, on the timer's CPU. */
static enum hrtimer_restart etw_profile_tick(struct hrtimer *t)
{
	struct etw_profile_cpu *pc = container_of(t, struct etw_profile_cpu,
						  timer);
	struct etw_klogger *k = READ_ONCE(etw_profile_cur)->k;
	struct pt_regs *regs = get_irq_regs();
	u64 ts;

	if (regs && (READ_ONCE(k->flags) & ETW_KFLAG_PROFILE)) {
		ts = etw_profile_sample(k, regs);
		/* A lost sample's stack would name nothing. */
		if (ts && (READ_ONCE(k->stack_kinds) & ETW_KSTACK_SAMPLE))
			etw_klogger_put_stack(k, regs, ts, pc->frames);
	}
	hrtimer_forward_now(t, etw_profile_period());
	return HRTIMER_RESTART;
}

/* Runs on @cpu as it comes online (or when the state is set up). */
static int etw_profile_online(unsigned int cpu)
{
	struct etw_profile_cpu *pc = per_cpu_ptr(etw_profile_cur->cpus, cpu);

	hrtimer_start(&pc->timer, etw_profile_period(),
		      HRTIMER_MODE_REL_PINNED);
	WRITE_ONCE(pc->armed, true);
	return 0;
}

/* Runs on @cpu as it goes offline (or when the state is removed). */
static int etw_profile_offline(unsigned int cpu)
{
	struct etw_profile_cpu *pc = per_cpu_ptr(etw_profile_cur->cpus, cpu);

	WRITE_ONCE(pc->armed, false);
	hrtimer_cancel(&pc->timer);
	return 0;
}

/**
 * etw_klogger_profile_start() - arm the sampling timers of a kernel logger
 * @k: the logger; its samples are recorded while its flags have
 *	%ETW_KFLAG_PROFILE
 *
 * Context: process context, may sleep; etw_klogger_lock() held, no
 * sampler running.
 * Return: 0; -ENOMEM; the CPU hotplug state's error (-ENOSPC: no dynamic
 * state left).
 */
int etw_klogger_profile_start(struct etw_klogger *k)
{
	struct etw_profile *p;
	unsigned int cpu;
	int ret;

	if (WARN_ON_ONCE(etw_profile_cur))
		return -EBUSY;
	p = kzalloc(sizeof(*p), GFP_KERNEL_ACCOUNT);
	if (!p)
		return -ENOMEM;
	p->k = k;
	p->cpus = alloc_percpu_gfp(struct etw_profile_cpu, GFP_KERNEL_ACCOUNT);
	if (!p->cpus) {
		kfree(p);
		return -ENOMEM;
	}
	for_each_possible_cpu(cpu) {
		struct hrtimer *t = &per_cpu_ptr(p->cpus, cpu)->timer;

		hrtimer_init(t, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED);
		t->function = etw_profile_tick;
	}
	etw_profile_cur = p;
	ret = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "etw/klogger_profile:online",
				etw_profile_online, etw_profile_offline);
	if (ret < 0) {
		etw_profile_cur = NULL;
		free_percpu(p->cpus);
		kfree(p);
		return ret;
	}
	p->state = ret;
	return 0;
}

/**
 * etw_klogger_profile_stop() - cancel the sampling timers and wait for them
 * @k: the logger they sample for; nothing happens when none runs for it
 *
 * No sample of @k is in flight once this returns.
 *
 * Context: process context, may sleep; etw_klogger_lock() held.
 */
void etw_klogger_profile_stop(struct etw_klogger *k)
{
	struct etw_profile *p = etw_profile_cur;

	if (!p || p->k != k)
		return;
	/* Each online CPU's teardown cancels its timer (hrtimer_cancel()). */
	cpuhp_remove_state(p->state);
	etw_profile_cur = NULL;
	free_percpu(p->cpus);
	kfree(p);
}

/* In an IPI on each CPU: its timer's next sample one new period away. */
static void etw_profile_restart(void *info)
{
	struct etw_profile_cpu *pc = this_cpu_ptr(etw_profile_cur->cpus);

	if (READ_ONCE(pc->armed))
		hrtimer_start(&pc->timer, etw_profile_period(),
			      HRTIMER_MODE_REL_PINNED);
}

/**
 * etw_klogger_profile_interval() - ETW_IOC_PROFILE_INTERVAL
 * @a: the arguments; @a->interval is the interval after the call
 *
 * Setting needs etw_may_control() (Windows: SeSystemProfilePrivilege) and
 * clamps the interval to %ETW_PROFILE_INTERVAL_MIN ..
 * %ETW_PROFILE_INTERVAL_MAX, as Windows does; a query needs nothing and
 * gives 0 for a source other than the timer, as Windows does.
 *
 * Context: process context, may sleep; takes etw_klogger_lock().
 * Return: 0; -EINVAL for unknown flags; -EPERM to set without privilege;
 * -EOPNOTSUPP to set a source other than %ETW_PROFILE_SOURCE_TIME.
 */
int etw_klogger_profile_interval(struct etw_profile_interval_args *a)
{
	if (a->flags & ~ETW_PROFILE_INTERVAL_SET)
		return -EINVAL;
	if (!(a->flags & ETW_PROFILE_INTERVAL_SET)) {
		a->interval = a->source == ETW_PROFILE_SOURCE_TIME ?
			      READ_ONCE(etw_profile_interval) : 0;
		return 0;
	}
	if (!etw_may_control())
		return -EPERM;
	if (a->source != ETW_PROFILE_SOURCE_TIME)
		return -EOPNOTSUPP;
	a->interval = clamp(a->interval, ETW_PROFILE_INTERVAL_MIN,
			    ETW_PROFILE_INTERVAL_MAX);
	etw_klogger_lock();
	WRITE_ONCE(etw_profile_interval, a->interval);
	if (etw_profile_cur) {
		/* No CPU comes or goes meanwhile: each has its timer armed. */
		cpus_read_lock();
		on_each_cpu(etw_profile_restart, NULL, 1);
		cpus_read_unlock();
	}
	etw_klogger_unlock();
	return 0;
}
