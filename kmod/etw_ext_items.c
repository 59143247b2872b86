// SPDX-License-Identifier: GPL-2.0
/*
 * etw_ext_items.c - the extended data items enable properties ask for.
 *
 * A session that enabled a provider with EVENT_ENABLE_PROPERTY_SID, _TS_ID,
 * _STACK_TRACE, _PROCESS_START_KEY, _EVENT_KEY or _SOURCE_CONTAINER_TRACKING
 * gets, in each record of that provider, EVENT_HEADER_EXTENDED_DATA_ITEMs
 * in Windows' layouts:
 *
 * SID                the writer's effective uid as the Unix-user SID
 *                    S-1-22-1-<uid> (the convention Windows and Samba use).
 * TS_ID              the writer's session id (setsid()), in the initial pid
 *                    namespace like the header's ids.
 * STACK_TRACE64      MatchId 0 (both halves are never split) and at most
 *                    ETW_MAX_STACK_DEPTH return addresses, innermost first:
 *                    the writing thread's user stack for user providers
 *                    (walked through frame pointers: code built without them
 *                    ends the walk early), the kernel stack for in-kernel
 *                    providers (its first frames are etw's write path).
 *                    The frames are zeros where the session's starter may
 *                    not see them (struct etw_viewer): kernel addresses
 *                    without CAP_SYSLOG, CAP_PERFMON or CAP_SYS_ADMIN, a
 *                    process's user stack where /proc/PID/maps would be
 *                    refused to it.
 * EVENT_KEY          in global sessions a per-boot event sequence number,
 *                    the same in every global session's copy of one event;
 *                    a private session numbers the events it takes itself
 *                    (1, 2, ...), so that its keys do not count the events
 *                    of the system's other sessions.
 * PROCESS_START_KEY  the process's start time (CLOCK_BOOTTIME, kept in the
 *                    thread-group leader and across execve()) in 4 ms units
 *                    in the high 42 bits and its pid in the low 22 bits
 *                    (PID_MAX_LIMIT is 2^22): two processes with one key
 *                    would need one pid handed out twice within 4 ms.
 * CONTAINER_ID       (SOURCE_CONTAINER_TRACKING) for a user provider in a
 *                    pid namespace other than the initial one, the
 *                    namespace as a GUID: Data1 its inode number (as
 *                    /proc/PID/ns/pid and lsns show it), the rest zero;
 *                    no item for the initial namespace (the host) and for
 *                    in-kernel providers.
 *
 * The write path takes nothing from here unless a route asks (etw_route.ext),
 * then holds this CPU's struct etw_ext_items of its context level for the
 * write: the stack is captured and the global event key drawn once,
 * whatever the number of sessions.
 */
#include <linux/atomic.h>
#include <linux/compat.h>
#include <linux/cred.h>
#include <linux/percpu.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task_stack.h>
#include <linux/stacktrace.h>
#include <linux/uaccess.h>

#include "compat.h"
#include "etw_ext_items.h"

#define ETW_UNIX_USER_AUTHORITY	22	/* S-1-22-1-<uid> */
#define ETW_START_KEY_PID_BITS	22

/* A binary SID with two sub-authorities. */
struct etw_unix_sid {
	u8 revision;
	u8 count;
	u8 authority[6];
	__le32 sub[2];
};

static_assert(sizeof(struct etw_unix_sid) == 16);

/* STACK_TRACE64's fixed part. */
struct etw_stack64 {
	u64 match_id;
	u64 addr[];
};

#define ETW_EXT_ITEMS_LEVELS	3	/* task, softirq, hardirq */

static atomic64_t etw_event_keys = ATOMIC64_INIT(0);
static DEFINE_PER_CPU(struct etw_ext_items[ETW_EXT_ITEMS_LEVELS],
		      etw_ext_items_scratch);

/**
 * etw_ext_items_get() - this CPU's extended data for a write at this level
 * @desc: the event's descriptor
 * @name: its TraceLogging name, or NULL
 * @user: written by a user provider
 *
 * Context: preemption disabled; any context but NMI.
 * Return: the scratch, reset for the write.
 */
struct etw_ext_items *etw_ext_items_get(const struct etw_event_descriptor *desc,
					const char *name, bool user)
{
	unsigned int level = in_hardirq() ? 2 : in_serving_softirq() ? 1 : 0;
	struct etw_ext_items *x = this_cpu_ptr(&etw_ext_items_scratch[level]);

	x->desc = desc;
	x->name = name;
	x->user = user;
	x->stacked = false;
	x->key = 0;
	return x;
}

/**
 * etw_stack_user_regs() - a user stack from its registers
 * @regs: a task's user registers (64-bit frames); its memory must be the
 *	current task's
 * @out: where the addresses go, innermost first: the user instruction
 *	pointer, then each return address
 * @max: room at @out, at least 1
 *
 * Walked through frame pointers ({previous fp, return address} records,
 * each further up the stack).  The caller disabled page faults: a frame
 * that is not resident ends the walk.  Also the kernel logger's stacks,
 * from the timer interrupt and the scheduler (etw_klogger_stacks.c).
 *
 * Context: any but NMI; page faults disabled.
 * Return: the addresses at @out.
 */
unsigned int etw_stack_user_regs(struct pt_regs *regs, unsigned long *out,
				 unsigned int max)
{
	unsigned long fp, frame[2];
	unsigned int n = 0;

	out[n++] = instruction_pointer(regs);
	fp = frame_pointer(regs);
	while (n < max && fp && IS_ALIGNED(fp, sizeof(long))) {
		void __user *u = (void __user *)fp;

		if (!access_ok(u, sizeof(frame)) ||
		    __copy_from_user_inatomic(frame, u, sizeof(frame)) ||
		    !frame[1])
			break;
		out[n++] = frame[1];
		/* Callers' frames are higher up: anything else is a loop. */
		if (frame[0] <= fp)
			break;
		fp = frame[0];
	}
	return n;
}

/* The current task's user stack; a 32-bit one's instruction pointer. */
static unsigned int etw_stack_user(unsigned long *out, unsigned int max)
{
	struct pt_regs *regs = task_pt_regs(current);

	if (current->flags & PF_KTHREAD)
		return 0;
	/* A 32-bit process's frames have another layout. */
	if (in_compat_syscall()) {
		out[0] = instruction_pointer(regs);
		return 1;
	}
	return etw_stack_user_regs(regs, out, max);
}

static void etw_ext_items_stack(struct etw_ext_items *x)
{
	if (x->user)
		x->nframes = etw_stack_user(x->frames, ETW_MAX_STACK_DEPTH);
	else
		x->nframes = stack_trace_save(x->frames, ETW_MAX_STACK_DEPTH,
					      0);
	x->stacked = true;
}

/* Whether the starter of @s may see the frames @x captured. */
static bool etw_ext_items_stack_shown(const struct etw_ext_items *x,
				      const struct etw_session *s)
{
	if (!x->user)
		return s->viewer.kaddr;
	return etw_viewer_may_read(&s->viewer, current, current->mm);
}

static u32 etw_stack_size(const struct etw_ext_items *x)
{
	return sizeof(struct etw_stack64) + x->nframes * sizeof(u64);
}

static u32 etw_ext_items_len(const struct etw_ext_items *x, u32 ext)
{
	u32 len = 0;

	if (ext & ETW_ENABLE_SID)
		len += etw_ext_items_size(sizeof(struct etw_unix_sid));
	if (ext & ETW_ENABLE_TS_ID)
		len += etw_ext_items_size(sizeof(u32));
	if (ext & ETW_ENABLE_STACK_TRACE)
		len += etw_ext_items_size(etw_stack_size(x));
	if (ext & ETW_ENABLE_EVENT_KEY)
		len += etw_ext_items_size(sizeof(u64));
	if (ext & ETW_ENABLE_PROCESS_START_KEY)
		len += etw_ext_items_size(sizeof(u64));
	if (ext & ETW_ENABLE_SOURCE_CONTAINER_TRACKING)
		len += etw_ext_items_size(sizeof(struct etw_guid));
	return len;
}

/*
 * The stack filters (STACKWALK's ids, STACKWALK_LEVEL_KW's level and
 * keywords, STACKWALK_NAME's names): a session with several takes stacks
 * for the events all let in.  The name filter ignores unnamed events.
 */
static bool etw_ext_items_stack_wanted(const struct etw_ext_items *x,
				       const struct etw_route_entry *e)
{
	if (!etw_event_id_match(e->stack_ids, x->desc->id))
		return false;
	if (e->stack_names && x->name &&
	    !etw_name_filter_match(e->stack_names, x->desc->level,
				   x->desc->keyword, x->name))
		return false;
	if (e->stack_lk_filter == ETW_STACK_LK_NONE)
		return true;
	return etw_level_kw_match(&e->stack_lk, x->desc->level,
				  x->desc->keyword) ==
	       (e->stack_lk_filter == ETW_STACK_LK_IN);
}

/**
 * etw_ext_items_target() - the items one session gets for this event
 * @x: the write's extended data
 * @e: the session's route entry, which takes the event
 * @xlen: out: bytes of the items
 *
 * Captures the stack and draws the global event key the first time a
 * session needs them; a private session's key is drawn as its record is
 * written (etw_ext_items_put()).
 *
 * Context: the write path (preemption disabled; page faults disabled for
 * user providers); any context but NMI.
 * Return: the ETW_ENABLE_* bits whose items the session's record carries,
 * and %ETW_EXT_ITEMS_STACK_HIDDEN when its stack frames are zeros.
 */
u32 etw_ext_items_target(struct etw_ext_items *x,
			 const struct etw_route_entry *e, u16 *xlen)
{
	u32 ext = e->ext;

	if ((ext & ETW_ENABLE_STACK_TRACE) && !etw_ext_items_stack_wanted(x, e))
		ext &= ~ETW_ENABLE_STACK_TRACE;
	if ((ext & ETW_ENABLE_STACK_TRACE) && !x->stacked)
		etw_ext_items_stack(x);
	if ((ext & ETW_ENABLE_STACK_TRACE) &&
	    !etw_ext_items_stack_shown(x, e->session))
		ext |= ETW_EXT_ITEMS_STACK_HIDDEN;
	/* The host and in-kernel providers are in no container. */
	if ((ext & ETW_ENABLE_SOURCE_CONTAINER_TRACKING) &&
	    (!x->user || task_active_pid_ns(current) == &init_pid_ns))
		ext &= ~ETW_ENABLE_SOURCE_CONTAINER_TRACKING;
	if ((ext & ETW_ENABLE_EVENT_KEY) && !x->key &&
	    !etw_session_is_private(e->session))
		x->key = atomic64_inc_return(&etw_event_keys);
	*xlen = etw_ext_items_len(x, ext);
	return ext;
}

static void *etw_put_sid(void *p, bool last)
{
	struct etw_unix_sid *sid;
	uid_t uid = from_kuid_munged(&init_user_ns, current_euid());

	sid = etw_put_ext_item(p, ETW_EXT_SID, sizeof(*sid), last);
	sid->revision = 1;
	sid->count = ARRAY_SIZE(sid->sub);
	memset(sid->authority, 0, sizeof(sid->authority));
	sid->authority[5] = ETW_UNIX_USER_AUTHORITY;
	sid->sub[0] = cpu_to_le32(1);
	sid->sub[1] = cpu_to_le32(uid);
	return p + etw_ext_items_size(sizeof(*sid));
}

static void *etw_put_u64(void *p, u16 type, u64 v, bool last)
{
	put_unaligned(v, (u64 *)etw_put_ext_item(p, type, sizeof(v), last));
	return p + etw_ext_items_size(sizeof(v));
}

static void *etw_put_stack(const struct etw_ext_items *x, void *p, bool hidden,
			   bool last)
{
	struct etw_stack64 *st;
	u32 i;

	st = etw_put_ext_item(p, ETW_EXT_STACK_TRACE64, etw_stack_size(x), last);
	st->match_id = 0;
	for (i = 0; i < x->nframes; i++)
		st->addr[i] = hidden ? 0 : x->frames[i];
	return p + etw_ext_items_size(etw_stack_size(x));
}

static u64 etw_process_start_key(void)
{
	const struct task_struct *leader = READ_ONCE(current->group_leader);
	u64 start = READ_ONCE(leader->start_boottime);

	return (start & ~(BIT_ULL(ETW_START_KEY_PID_BITS) - 1)) |
	       (u32)task_tgid_nr(current);
}

/* The writer's pid namespace as a GUID (see the top of this file). */
static void *etw_put_container(void *p, bool last)
{
	struct etw_guid *g;

	g = etw_put_ext_item(p, ETW_EXT_CONTAINER_ID, sizeof(*g), last);
	memset(g, 0, sizeof(*g));
	g->data1 = task_active_pid_ns(current)->ns.inum;
	return p + etw_ext_items_size(sizeof(*g));
}

/**
 * etw_ext_items_put() - write a session's items
 * @x: the write's extended data, after etw_ext_items_target()
 * @ext: what etw_ext_items_target() returned for the session
 * @s: the session; a private one draws its event key here
 * @p: where the items go (8-byte aligned)
 * @last: no other item follows them
 *
 * Context: as etw_ext_items_target().
 * Return: the byte after the items.
 */
void *etw_ext_items_put(const struct etw_ext_items *x, u32 ext,
			struct etw_session *s, void *p, bool last)
{
	u32 left = ext & ~ETW_EXT_ITEMS_STACK_HIDDEN;

	/* In EVENT_HEADER_EXT_TYPE order; the last one carries @last. */
	if (ext & ETW_ENABLE_SID) {
		left &= ~ETW_ENABLE_SID;
		p = etw_put_sid(p, last && !left);
	}
	if (ext & ETW_ENABLE_TS_ID) {
		left &= ~ETW_ENABLE_TS_ID;
		put_unaligned((u32)pid_nr(task_session(current)),
			      (u32 *)etw_put_ext_item(p, ETW_EXT_TS_ID, sizeof(u32),
						 last && !left));
		p += etw_ext_items_size(sizeof(u32));
	}
	if (ext & ETW_ENABLE_STACK_TRACE) {
		left &= ~ETW_ENABLE_STACK_TRACE;
		p = etw_put_stack(x, p, ext & ETW_EXT_ITEMS_STACK_HIDDEN,
				  last && !left);
	}
	if (ext & ETW_ENABLE_EVENT_KEY) {
		left &= ~ETW_ENABLE_EVENT_KEY;
		p = etw_put_u64(p, ETW_EXT_EVENT_KEY,
				etw_session_is_private(s) ?
				atomic64_inc_return(&s->event_keys) : x->key,
				last && !left);
	}
	if (ext & ETW_ENABLE_PROCESS_START_KEY) {
		left &= ~ETW_ENABLE_PROCESS_START_KEY;
		p = etw_put_u64(p, ETW_EXT_PROCESS_START_KEY,
				etw_process_start_key(), last && !left);
	}
	if (ext & ETW_ENABLE_SOURCE_CONTAINER_TRACKING)
		p = etw_put_container(p, last);
	return p;
}
