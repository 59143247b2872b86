// SPDX-License-Identifier: GPL-2.0
/*
 * etw_write.c - the event write path.
 *
 * One write: look up the registration and its route (RCU), apply each
 * session's filters, reserve space in every target session's stream,
 * build the record once in the first target (copying user data straight
 * from user memory with page faults disabled), copy it to the others,
 * commit.  Nothing is allocated per event, and nothing on the stack is
 * zeroed that is written before use (the kernel may zero every automatic
 * variable, a measurable cost per event).
 *
 * A classic write (ETW_WRITE_CLASSIC) records an EVENT_TRACE_HEADER (or
 * EVENT_INSTANCE_GUID_HEADER) instead of an EVENT_HEADER, as Windows
 * does for TraceEvent: its thread, process and timestamp fields sit where
 * EVENT_HEADER's do, so everything after the build treats both alike.
 * A message (ETW_WRITE_MESSAGE, TraceMessage) records a
 * MESSAGE_TRACE_HEADER whose optional fields move the timestamp and the
 * ids, or leave them out; ts_off and ids_off say where they are.
 *
 * Sessions without ETW_MODE_INDEPENDENT get an event all together or not
 * at all: when one of them cannot take it, the reservations already made
 * in the others are cancelled and every one of them counts it lost.
 *
 * A user page that is not resident aborts the attempt (the reservations
 * are cancelled); the pages are faulted in with preemption enabled and
 * the write is retried.  Losses are therefore counted only once an attempt
 * has ended without a fault, so a retried event is counted once.
 *
 * Extended items that sessions asked for with enable properties
 * (etw_ext_items.c) come first in their copy of the record: the first
 * target's record is built with its items; a target whose items differ gets
 * the header, its own items, then the event's items and payload copied.
 * Routes that ask for none (etw_route.ext is 0) take a copy of the path in
 * which every item test folds away.
 */
#include <linux/fault-inject-usercopy.h>
#include <linux/instrumented.h>
#include <linux/percpu.h>
#include <linux/pagemap.h>
#include <linux/sched.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>

#include "compat.h"
#include "etw_buffer.h"
#include "etw_ext_items.h"
#include "etw_internal.h"
#include "etw_payload_filter.h"

/* Routes hold at most this many sessions (see etw_route_build()). */
#define ETW_MAX_TARGETS		ETW_MAX_ROUTE
#define ETW_FAULT_RETRIES	64

/* Process-context writers copy the descriptor array here. */
static DEFINE_PER_CPU(struct etw_data_descriptor[ETW_MAX_DATA_DESCRIPTORS],
		      etw_desc_scratch);

static_assert(offsetof(struct etw_classic_header, thread_id) ==
	      offsetof(struct etw_event_header, thread_id));
static_assert(offsetof(struct etw_classic_header, process_id) ==
	      offsetof(struct etw_event_header, process_id));
static_assert(offsetof(struct etw_classic_header, timestamp) ==
	      offsetof(struct etw_event_header, timestamp));
static_assert(sizeof(struct etw_classic_header) == 48);

/*
 * ETW_IOC_WRITE's arguments the general way, for what etw_write_user()
 * does not copy in one go (another size, or a fault); out of line, so
 * that the common case's frame does not grow.
 */
static noinline int etw_write_args_in(struct etw_write_args *a,
				      const void __user *uarg)
{
	u32 usize;

	return etw_args_in(a, sizeof(*a), ETW_WRITE_ARGS_SIZE_VER0, uarg,
			   &usize);
}

/*
 * Kept small: up to ETW_MAX_TARGETS of these live on the stack.  @ext and
 * @xlen are the ETW_ENABLE_* bits whose items the session's record carries
 * and their bytes (etw_ext_items_target()), set and read only on a route that
 * asks for items (see etw_t_ext_items()).
 */
struct etw_target {
	struct etw_session *s;
	struct etw_buffer *b;
	u32 off;
	u16 ext;
	u16 xlen;
	u64 ts;
};

/**
 * struct etw_write_mode - what one copy of the write path is for
 * @user: a user write: its pointers are user pointers, its ids and time
 *	the calling task's; else an in-kernel or staged write (etw_ev_tid())
 * @plain: the event is neither typed nor classic and has no related
 *	activity (see etw_write_user()): those fields are not read
 * @ext_items: some session of the route asked for extended data items
 *
 * The helpers of the write path take it by value and are always inlined:
 * where a write handler passes one of the constants below, each copy keeps
 * only its own branches, as lttng-modules specialises its ring buffer's
 * fast paths with one const config.  The general route (etw_route_event())
 * takes @user from the event: one copy serves user and kernel writes.
 */
struct etw_write_mode {
	bool user;
	bool plain;
	bool ext_items;
};

/* etw_write_kernel() */
static const struct etw_write_mode etw_mode_kernel = { 0 };
/* etw_write_staged() */
static const struct etw_write_mode etw_mode_staged = { .plain = true };
/* etw_write_user() of an event with typed descriptors or classic */
static const struct etw_write_mode etw_mode_user = { .user = true };
/* etw_write_user() of any other */
static const struct etw_write_mode etw_mode_user_plain = {
	.user = true,
	.plain = true,
};

/*
 * A target's items: none without @m.ext_items.  The write path is inlined
 * into copies without, where these fold to 0 and the path is the one of
 * routes without items.
 */
static __always_inline u32 etw_t_ext_items(const struct etw_target *t,
					   struct etw_write_mode m)
{
	return m.ext_items ? t->ext : 0;
}

static __always_inline u32 etw_t_xlen(const struct etw_target *t,
				      struct etw_write_mode m)
{
	return m.ext_items ? t->xlen : 0;
}

/* What one event is made of, after the descriptors were classified. */
struct etw_event {
	struct etw_reg *reg;
	const struct etw_event_descriptor *desc;
	const struct etw_guid *activity;
	const struct etw_guid *related;
	const struct etw_data_descriptor *data;
	u32 count;
	bool user;
	bool types;
	u16 flags;
	u16 classic;
	/* classic only: where the timestamp and the thread id go; 0: nowhere */
	u8 ts_off;
	u8 ids_off;
	u64 exclude;
	const u8 *traits;
	u32 traits_len;
	const struct etw_data_descriptor *schema;
	const char *name;
	/* on a route with a payload filter, the payload in one piece; or NULL */
	const u8 *pl;
	u32 pl_len;
	const struct etw_data_descriptor *traits_desc;
	u64 ts_override;
	bool has_ts;
	u32 ext_len;
	u32 rec_len;
	/* where the copy faulted, for the retry */
	u64 fault_ptr;
	u32 fault_len;
	/* staged events (etw_write_staged()): their writer and time; else 0 */
	const struct etw_writer *w;
	u64 staged_ts;
};

/*
 * The writer's ids: a staged event's were taken when its ring was opened
 * (it may be routed in another task); a user write is never staged.
 */
static __always_inline u32 etw_ev_tid(const struct etw_event *ev,
				      struct etw_write_mode m)
{
	return !m.user && ev->w ? ev->w->tid : task_pid_nr(current);
}

static __always_inline u32 etw_ev_pid(const struct etw_event *ev,
				      struct etw_write_mode m)
{
	return !m.user && ev->w ? ev->w->pid : task_tgid_nr(current);
}

/* The event's time: a staged event's was taken when it was staged. */
static __always_inline u64 etw_ev_now(const struct etw_event *ev,
				      struct etw_write_mode m)
{
	return !m.user && ev->staged_ts ? ev->staged_ts : ktime_get_ns();
}

/* ETW_WRITE_DESC_TYPES: find the extended items among the descriptors. */
static int etw_classify(struct etw_event *ev, u64 *payload)
{
	u32 i;

	for (i = 0; i < ev->count; i++) {
		const struct etw_data_descriptor *d = &ev->data[i];

		if (d->reserved1 || d->reserved2)
			return -EINVAL;
		switch (d->type) {
		case ETW_DATA_TYPE_PAYLOAD:
			*payload += d->size;
			break;
		case ETW_DATA_TYPE_EVENT_METADATA:
			if (ev->schema)
				return -EINVAL;
			ev->schema = d;
			break;
		case ETW_DATA_TYPE_PROVIDER_METADATA:
			/* Traits set on the registration take precedence. */
			if (!ev->traits && !ev->traits_desc)
				ev->traits_desc = d;
			break;
		case ETW_DATA_TYPE_TIMESTAMP:
			if (d->size != sizeof(u64))
				return -EINVAL;
			ev->has_ts = true;
			break;
		default:
			return -EINVAL;
		}
		if (d->size > ETW_MAX_EVENT_SIZE)
			return -E2BIG;
	}
	return 0;
}

/* A message's fields: set the offsets, return the header's length. */
static noinline u32 etw_message_layout(struct etw_event *ev)
{
	u16 f = ev->desc->task;
	u32 len = sizeof(struct etw_message_header);

	ev->ts_off = 0;
	ev->ids_off = 0;
	if (f & ETW_MESSAGE_SEQUENCE)
		len += sizeof(u32);
	if (f & ETW_MESSAGE_COMPONENTID)
		len += sizeof(u32);
	else if (f & ETW_MESSAGE_GUID)
		len += sizeof(struct etw_guid);
	if (f & ETW_MESSAGE_TIMESTAMP) {
		ev->ts_off = len;
		len += sizeof(u64);
	}
	if (f & ETW_MESSAGE_SYSTEMINFO) {
		ev->ids_off = len;
		len += 2 * sizeof(u32);
	}
	return len;
}

/*
 * Size the record (its payload, its extended items).  @m.plain: the
 * caller knows the event is neither typed nor classic and has no related
 * activity (see etw_write_user()).
 */
static __always_inline int etw_event_size(struct etw_event *ev,
					  struct etw_write_mode m)
{
	/* At most 128 sizes of 32 bits: the sum cannot overflow. */
	u64 payload = 0;
	u32 i, ext = 0;
	int ret;

	/* Pairs with smp_store_release() in etw_traits_publish(). */
	ev->traits = smp_load_acquire(&ev->reg->traits);
	/* @traits_len is read only where @traits is set. */
	if (ev->traits) {
		ev->traits_len = ev->reg->traits_len;
		ext += etw_ext_items_size(ev->traits_len);
	}
	if (!m.plain && ev->types) {
		/* In memory for the call; the sum below stays in a register. */
		u64 typed = 0;

		ret = etw_classify(ev, &typed);
		if (ret)
			return ret;
		payload = typed;
		/* Only typed descriptors carry these. */
		if (ev->traits_desc)
			ext += etw_ext_items_size(ev->traits_desc->size);
		if (ev->schema)
			ext += etw_ext_items_size(ev->schema->size);
	} else {
		for (i = 0; i < ev->count; i++)
			payload += ev->data[i].size;
	}
	if (payload > ETW_MAX_EVENT_SIZE)
		return -E2BIG;
	if (!m.plain && ev->related)
		ext += etw_ext_items_size(sizeof(struct etw_guid));
	ev->ext_len = ext;
	if (!m.plain && unlikely(ev->classic)) {
		if (ev->classic == ETW_INSTANCE_HEADER_TYPE_64 &&
		    payload < ETW_INSTANCE_FIELDS_SIZE)
			return -EINVAL;
		/* Classic records carry no extended items. */
		ev->ext_len = 0;
		if (ev->classic == ETW_MESSAGE_HEADER_TYPE) {
			ev->rec_len = etw_message_layout(ev) + payload;
		} else {
			ev->ts_off = offsetof(struct etw_classic_header,
					      timestamp);
			ev->ids_off = offsetof(struct etw_classic_header,
					       thread_id);
			ev->rec_len = sizeof(struct etw_classic_header) +
				      payload;
		}
		return ev->rec_len > ETW_MAX_EVENT_SIZE ? -E2BIG : 0;
	}
	ev->rec_len = sizeof(struct etw_event_header) + ext + payload;
	if (ev->rec_len > ETW_MAX_EVENT_SIZE)
		return -E2BIG;
	return 0;
}

/*
 * __copy_from_user() for the write path's copies (the arguments, the
 * descriptors, the payload), inline: rep movsq, then rep movsb for the
 * last len % 8 bytes, as copy_user_generic() brackets its copy.  Without
 * FSRM, copy_user_generic() calls rep_movs_alternative(), whose call and
 * choice of loop are about half the instructions of a copy of a few
 * words.  A fault ends the copy (exception table).  @src..@src+@len was
 * checked with access_ok().
 *
 * Return: 0, or not 0 when it faulted.
 */
static __always_inline unsigned long
etw_copy_from_user(void *dst, const void __user *src, unsigned long len)
{
#ifdef CONFIG_X86_64
	unsigned long left = len / 8;

	instrument_copy_from_user_before(dst, src, len);
	check_object_size(dst, len, false);
	stac();
	asm volatile("1:	rep movsq\n"
		     "	mov %[rest], %%ecx\n"
		     "2:	rep movsb\n"
		     "3:\n"
		     _ASM_EXTABLE_UA(1b, 3b)
		     _ASM_EXTABLE_UA(2b, 3b)
		     : "+c" (left), "+D" (dst), "+S" (src)
		     : [rest] "r" ((u32)len % 8)
		     : "memory");
	clac();
	instrument_copy_from_user_after(dst, src, len, left ? len : 0);
	return left;
#else
	return __copy_from_user_inatomic(dst, src, len);
#endif
}

/*
 * memcpy() for a payload in kernel memory, inline as etw_copy_from_user()
 * is: memcpy_orig()'s call and loop cost twice the instructions of a
 * short rep movsq.
 */
static __always_inline void etw_copy_kernel(void *dst, const void *src,
					    unsigned long len)
{
#ifdef CONFIG_X86_64
	unsigned long left = len / 8;

	instrument_read(src, len);
	instrument_write(dst, len);
	asm volatile("rep movsq\n"
		     "	mov %[rest], %%ecx\n"
		     "	rep movsb\n"
		     : "+c" (left), "+D" (dst), "+S" (src)
		     : [rest] "r" ((u32)len % 8)
		     : "memory");
#else
	memcpy(dst, src, len);
#endif
}

static __always_inline int etw_copy_in(struct etw_event *ev,
				       struct etw_write_mode m, void *dst,
				       u64 ptr, u32 len)
{
	if (!len)
		return 0;
	if (!m.user) {
		etw_copy_kernel(dst, (const void *)(uintptr_t)ptr, len);
		return 0;
	}
	/* The inatomic copy does not check the range: kernel memory stays out. */
	if (!access_ok(u64_to_user_ptr(ptr), len))
		return -EFAULT;
	if (etw_copy_from_user(dst, u64_to_user_ptr(ptr), len)) {
		ev->fault_ptr = ptr;
		ev->fault_len = len;
		return -EFAULT;
	}
	return 0;
}

/*
 * The name filters' view of the event name: the TraceLogging metadata's
 * first bytes, up to the longest name a filter lists.  Per CPU: a user
 * write holds preemption disabled from here until its route is done.
 */
#define ETW_NAME_READ	(sizeof(u16) + 4 + ETW_MAX_EVENT_NAME + 1)
static DEFINE_PER_CPU(char[ETW_NAME_READ], etw_name_scratch);

/*
 * A user write's event name, read when a name filter is on the route:
 * NULL without TraceLogging metadata (the filters ignore the event, as
 * Windows does for other providers).  A fault is retried as a payload's.
 */
static noinline int etw_event_name(struct etw_event *ev,
				   const struct etw_route *route)
{
	const struct etw_data_descriptor *d = ev->schema;
	char *buf;
	u32 len;
	int ret;

	ev->name = NULL;
	if (!route->names || !d)
		return 0;
	buf = this_cpu_ptr(etw_name_scratch);
	len = min_t(u32, d->size, ETW_NAME_READ);
	ret = etw_copy_in(ev, etw_mode_user, buf, d->ptr, len);
	if (!ret)
		ev->name = etw_tlg_event_name(buf, len);
	return ret;
}

/*
 * The payload filters' view of the payload, in one piece: per CPU and
 * interrupt context level (task, softirq, hardirq), as a write in an
 * interrupt may come while a task's on the same CPU is being routed.
 * Allocated by the first enable with a payload filter, before its route
 * is published, and kept until the module goes.
 */
#define ETW_PL_LEVELS	3
struct etw_pl_areas {
	u8 *level[ETW_PL_LEVELS];
};

static DEFINE_PER_CPU(struct etw_pl_areas, etw_pl_scratch);
static DEFINE_MUTEX(etw_pl_scratch_lock);
static bool etw_pl_scratch_ready;	/* protected by etw_pl_scratch_lock */

static void etw_pl_scratch_free(void)
{
	unsigned int cpu, i;

	for_each_possible_cpu(cpu)
		for (i = 0; i < ETW_PL_LEVELS; i++) {
			kvfree(per_cpu(etw_pl_scratch, cpu).level[i]);
			per_cpu(etw_pl_scratch, cpu).level[i] = NULL;
		}
}

/**
 * etw_write_payload_scratch() - make sure payload filters have their areas
 *
 * Called before an enable with a payload filter is published: the routes
 * that carry it are published after, with release semantics.
 *
 * Context: process context; may sleep.
 * Return: 0, or -ENOMEM (no area is kept then).
 */
int etw_write_payload_scratch(void)
{
	unsigned int cpu, i;
	int ret = 0;

	mutex_lock(&etw_pl_scratch_lock);
	if (etw_pl_scratch_ready)
		goto out_unlock;
	for_each_possible_cpu(cpu)
		for (i = 0; i < ETW_PL_LEVELS; i++) {
			u8 *p = kvmalloc_node(ETW_MAX_EVENT_SIZE, GFP_KERNEL,
					      cpu_to_node(cpu));

			if (!p) {
				etw_pl_scratch_free();
				ret = -ENOMEM;
				goto out_unlock;
			}
			per_cpu(etw_pl_scratch, cpu).level[i] = p;
		}
	etw_pl_scratch_ready = true;
out_unlock:
	mutex_unlock(&etw_pl_scratch_lock);
	return ret;
}

/**
 * etw_write_exit() - free what the write path allocated
 *
 * Context: module exit, after every write has ended.
 */
void etw_write_exit(void)
{
	etw_pl_scratch_free();
}

/*
 * The payload of a write on a route with a payload filter, in one piece:
 * a single descriptor of kernel memory as it is, else its first
 * @route->payload_bytes gathered into this CPU's area.  Classic records
 * have no payload filter (they name no event of a manifest).  A user
 * fault is retried as a payload's.
 */
static __always_inline int etw_event_payload(struct etw_event *ev,
					     const struct etw_route *route,
					     struct etw_write_mode m)
{
	u32 i, off = 0;
	u8 *buf;
	int ret;

	ev->pl = NULL;
	/*
	 * Acquire: pairs with the release that published @route, which
	 * etw_write_payload_scratch() preceded; the area is read after.
	 */
	if (!smp_load_acquire(&route->payload) || (!m.plain && ev->classic))
		return 0;
	if (!m.user && ev->count == 1 && (m.plain || !ev->types)) {
		ev->pl = (const u8 *)(uintptr_t)ev->data[0].ptr;
		ev->pl_len = ev->data[0].size;
		return 0;
	}
	buf = this_cpu_read(etw_pl_scratch.level[interrupt_context_level()]);
	/* Only what the filters read: the bytes past it change no answer. */
	for (i = 0; i < ev->count && off < route->payload_bytes; i++) {
		const struct etw_data_descriptor *d = &ev->data[i];
		u32 n = min(d->size, route->payload_bytes - off);

		if (!m.plain && ev->types && d->type != ETW_DATA_TYPE_PAYLOAD)
			continue;
		/* etw_event_size() checked the sum against the area's size. */
		ret = etw_copy_in(ev, m, buf + off, d->ptr, n);
		if (ret)
			return ret;
		off += n;
	}
	ev->pl = buf;
	ev->pl_len = off;
	return 0;
}

/*
 * Exclude the entries of @route whose payload filter the event fails,
 * before the loop over them: each distinct filter is tested once, for
 * the entries that hold it and are not excluded already
 * (etw_route_payload_share()).  The event's exclude mask is set again for
 * each attempt of a write.
 */
static __always_inline void etw_event_payload_exclude(struct etw_event *ev,
						      const struct etw_route *route)
{
	u32 firsts = route->payload_firsts;
	/* Locals: a store to @ev would have the loop load them again. */
	u16 id = ev->desc->id;
	u8 version = ev->desc->version;
	const u8 *pl = ev->pl;
	u32 len = ev->pl_len;
	u64 exclude = ev->exclude;

	if (!pl)
		return;
	while (firsts) {
		const struct etw_route_entry *e = &route->e[__ffs(firsts)];

		firsts &= firsts - 1;
		if ((e->payload_mask & ~exclude) &&
		    !etw_payload_filter_match(e->payload, id, version, pl, len))
			exclude |= e->payload_mask;
	}
	ev->exclude = exclude;
}

/*
 * Append the extended items at *@pp and advance it past them; fails only
 * on a user fault.  With @m.plain, the event's related activity and typed
 * descriptors are not set, and not read.
 */
static __always_inline int etw_build_ext_items(struct etw_event *ev,
					       struct etw_write_mode m,
					       void **pp)
{
	const struct etw_guid *related = m.plain ? NULL : ev->related;
	const struct etw_data_descriptor *traits_desc =
		m.plain ? NULL : ev->traits_desc;
	const struct etw_data_descriptor *schema = m.plain ? NULL : ev->schema;
	unsigned int nitems, item = 0;
	void *p = *pp;
	int ret;

	nitems = !!related + !!(ev->traits || traits_desc) + !!schema;
	if (related) {
		p = etw_put_ext_item(p, ETW_EXT_RELATED_ACTIVITYID,
				     sizeof(*related), ++item == nitems);
		memcpy(p, related, sizeof(*related));
		p += ALIGN(sizeof(*related), 8);
	}
	if (ev->traits) {
		p = etw_put_ext_item(p, ETW_EXT_PROV_TRAITS, ev->traits_len,
				     ++item == nitems);
		memcpy(p, ev->traits, ev->traits_len);
		p += ALIGN(ev->traits_len, 8);
	} else if (traits_desc) {
		const struct etw_data_descriptor *d = traits_desc;

		p = etw_put_ext_item(p, ETW_EXT_PROV_TRAITS, d->size,
				     ++item == nitems);
		ret = etw_copy_in(ev, m, p, d->ptr, d->size);
		if (ret)
			return ret;
		p += ALIGN(d->size, 8);
	}
	if (schema) {
		const struct etw_data_descriptor *d = schema;

		p = etw_put_ext_item(p, ETW_EXT_EVENT_SCHEMA_TL, d->size,
				     ++item == nitems);
		ret = etw_copy_in(ev, m, p, d->ptr, d->size);
		if (ret)
			return ret;
		p += ALIGN(d->size, 8);
	}
	*pp = p;
	return 0;
}

/* An EVENT_TRACE_HEADER at @rec; returns where the payload goes. */
static noinline void *etw_build_classic(struct etw_event *ev, void *rec,
					u64 ts)
{
	struct etw_classic_header *c = rec;

	/* Every field is set (the header has no holes): no memset first. */
	c->size = ev->rec_len;
	c->header_type = ev->classic;
	c->type = ev->desc->opcode;
	c->level = ev->desc->level;
	c->version = ev->desc->version;
	c->thread_id = task_pid_nr(current);
	c->process_id = task_tgid_nr(current);
	c->timestamp = ts;
	c->guid = *ev->activity;
	c->processor_time = 0;
	return rec + sizeof(*c);
}

/* A MESSAGE_TRACE_HEADER and its fields at @rec; returns the payload. */
static noinline void *etw_build_message(struct etw_event *ev, void *rec,
					u64 ts)
{
	struct etw_message_header *m = rec;
	u16 f = ev->desc->task;
	void *p = rec + sizeof(*m);

	m->size = ev->rec_len;
	m->header_type = ETW_MESSAGE_HEADER_TYPE;
	m->message_number = ev->desc->id;
	m->flags = f;
	if (f & ETW_MESSAGE_SEQUENCE) {
		put_unaligned(0U, (u32 *)p);
		p += sizeof(u32);
	}
	if (f & ETW_MESSAGE_COMPONENTID) {
		memcpy(p, ev->activity, sizeof(u32));
		p += sizeof(u32);
	} else if (f & ETW_MESSAGE_GUID) {
		memcpy(p, ev->activity, sizeof(*ev->activity));
		p += sizeof(*ev->activity);
	}
	if (ev->ts_off) {
		put_unaligned(ts, (u64 *)(rec + ev->ts_off));
		p += sizeof(u64);
	}
	if (ev->ids_off) {
		put_unaligned((u32)task_pid_nr(current), (u32 *)p);
		put_unaligned((u32)task_tgid_nr(current), (u32 *)(p + 4));
		p += 2 * sizeof(u32);
	}
	return p;
}

/*
 * Build @t's record at @rec, @alen bytes with its items; fails only on a
 * user fault.  The items @t asked for (@xd) come first, then the event's.
 */
static __always_inline int etw_build_record(struct etw_event *ev,
					    struct etw_write_mode m, void *rec,
					    const struct etw_target *t,
					    u32 alen,
					    const struct etw_ext_items *xd)
{
	struct etw_event_header *h = rec;
	void *p = rec + sizeof(*h);
	u64 ts = t->ts;
	u32 i;
	int ret;

	if (!m.plain && unlikely(ev->classic)) {
		if (ev->classic == ETW_MESSAGE_HEADER_TYPE)
			p = etw_build_message(ev, rec, ts);
		else
			p = etw_build_classic(ev, rec, ts);
		goto payload;
	}
	/* Every field is set (the header has no holes): no memset first. */
	h->size = ev->rec_len + etw_t_xlen(t, m);
	h->header_type = ETW_EVENT_HEADER_TYPE_64;
	h->flags = ev->flags | ((ev->ext_len || etw_t_ext_items(t, m)) ?
				ETW_EVENT_FLAG_EXTENDED_INFO : 0);
	h->event_property = 0;
	h->thread_id = etw_ev_tid(ev, m);
	h->process_id = etw_ev_pid(ev, m);
	h->timestamp = ts;
	h->provider_id = ev->reg->guid;
	h->descriptor = *ev->desc;
	h->processor_time = 0;
	h->activity_id = *ev->activity;

	if (unlikely(etw_t_ext_items(t, m)))
		p = etw_ext_items_put(xd, t->ext, t->s, p, !ev->ext_len);
	if (ev->ext_len) {
		ret = etw_build_ext_items(ev, m, &p);
		if (ret)
			return ret;
	}
payload:
	for (i = 0; i < ev->count; i++) {
		const struct etw_data_descriptor *d = &ev->data[i];

		if (!m.plain && ev->types && d->type == ETW_DATA_TYPE_TIMESTAMP) {
			ret = etw_copy_in(ev, m, &ev->ts_override, d->ptr,
					  8);
			if (ret)
				return ret;
			h->timestamp = ev->ts_override;
			continue;
		}
		if (!m.plain && ev->types && d->type != ETW_DATA_TYPE_PAYLOAD)
			continue;
		ret = etw_copy_in(ev, m, p, d->ptr, d->size);
		if (ret)
			return ret;
		p += d->size;
	}
	if (p != rec + alen)
		memset(p, 0, rec + alen - p);
	return 0;
}

/*
 * Inlined: a call per session is a measurable part of a write.  @every:
 * the event passes the route's @every filter, so it passes each entry's.
 */
static __always_inline bool etw_entry_takes(const struct etw_route_entry *e,
					    const struct etw_event *ev,
					    bool every, const char *name)
{
	if (ev->exclude & e->instance_bit)
		return false;
	if (!every) {
		if (!etw_level_kw_match(&e->lk, ev->desc->level,
					ev->desc->keyword))
			return false;
		if (name && e->names &&
		    !etw_name_filter_match(e->names, ev->desc->level,
					   ev->desc->keyword, name))
			return false;
		if (!etw_event_id_match(e->ids, ev->desc->id))
			return false;
	}
	return true;
}

/* A classic record's ids, as the owner of a private session sees them. */
static noinline void etw_classic_private(const struct etw_event *ev,
					 void *rec)
{
	if (ev->ids_off) {
		put_unaligned((u32)task_pid_vnr(current),
			      (u32 *)(rec + ev->ids_off));
		put_unaligned((u32)task_tgid_vnr(current),
			      (u32 *)(rec + ev->ids_off + 4));
	}
}

/* A record's ids, as the owner of a private session sees them. */
static noinline void etw_record_private(const struct etw_event *ev, bool user,
					struct etw_event_header *h)
{
	h->flags |= ETW_EVENT_FLAG_PRIVATE_SESSION;
	if (!user && ev->w) {
		h->process_id = ev->w->vpid;
		h->thread_id = ev->w->vtid;
	} else {
		h->process_id = task_tgid_vnr(current);
		h->thread_id = task_pid_vnr(current);
	}
}

/* Report, mark and commit one target's record; the first's goes last. */
static __always_inline void etw_target_commit(const struct etw_target *t,
					      const struct etw_event *ev,
					      struct etw_write_mode m)
{
	/* First: @t and @ev are in registers, so it costs a nop when off. */
	/* Every header type starts with its 16-bit size. */
	etw_record_written(t->s, &ev->reg->guid, ev->desc->id,
			   *(const u16 *)(t->b->data + t->off));
	if (etw_session_is_private(t->s)) {
		struct etw_event_header *h = t->b->data + t->off;

		/*
		 * A private session's owner is the writing process: its
		 * records carry the ids as the owner sees them.  Only an
		 * EVENT_HEADER has flags.
		 */
		if (!m.plain && unlikely(ev->classic))
			etw_classic_private(ev, h);
		else
			etw_record_private(ev, m.user, h);
	}
	etw_buffer_commit(t->s, t->b);
}

/* A copy's own timestamp, where its header keeps one. */
static __always_inline void etw_record_set_ts(const struct etw_event *ev,
					      void *rec, u64 ts)
{
	if (likely(!ev->classic))
		((struct etw_event_header *)rec)->timestamp = ts;
	else if (ev->ts_off)
		put_unaligned(ts, (u64 *)(rec + ev->ts_off));
}

/* @r's items; false when they would make the record too big. */
static noinline bool etw_target_ext_items(struct etw_target *r,
					  struct etw_ext_items *xd,
				      const struct etw_route_entry *e,
				      u32 rec_len)
{
	r->ext = etw_ext_items_target(xd, e, &r->xlen);
	return rec_len + r->xlen <= ETW_MAX_EVENT_SIZE;
}

/* A private session's event key: a record of its own, not a copy. */
static __always_inline bool etw_t_own_key(const struct etw_target *t)
{
	return (t->ext & ETW_ENABLE_EVENT_KEY) && etw_session_is_private(t->s);
}

/*
 * @t's record from @rec, the first target's (@t0), when they carry
 * different items or event keys: the header, @t's items, then the event's
 * items and payload (@alen bytes without items, header included).
 */
static noinline void etw_copy_xrecord(const struct etw_event *ev, void *h,
				      const void *rec,
				      const struct etw_target *t0,
				      const struct etw_target *t, u32 alen,
				      const struct etw_ext_items *xd)
{
	struct etw_event_header *hh = h;
	u32 hlen = sizeof(*hh);
	void *p;

	memcpy(h, rec, hlen);
	hh->size = ev->rec_len + t->xlen;
	hh->flags &= ~ETW_EVENT_FLAG_EXTENDED_INFO;
	if (ev->ext_len || t->ext)
		hh->flags |= ETW_EVENT_FLAG_EXTENDED_INFO;
	p = etw_ext_items_put(xd, t->ext, t->s, h + hlen, !ev->ext_len);
	memcpy(p, rec + hlen + t0->xlen, alen - hlen);
}

/*
 * Reserve @len bytes at @r->ts in @s for @r.  What fits the current buffer
 * fits an empty one: the size is checked only when the fast path fails.
 * Return: 0, -EMSGSIZE (larger than a buffer) or -ENOBUFS (none free).
 */
static __always_inline int etw_target_reserve(struct etw_target *r,
					      struct etw_session *s, u32 len)
{
	struct etw_stream *st = etw_session_stream(s);

	r->b = etw_buffer_reserve_fast(s, st, len, &r->off, &r->ts);
	if (likely(r->b))
		return 0;
	if (len > s->buf_bytes - ETW_BUFFER_HEADER_SIZE)
		return -EMSGSIZE;
	r->b = etw_buffer_reserve(s, st, len, &r->off, &r->ts);
	return r->b ? 0 : -ENOBUFS;
}

/* Route entries a write failed in, as a mask: one bit each. */
static_assert(ETW_MAX_TARGETS <= 32);

/* The route entry of @s (one that reserved, so it is there). */
static u32 etw_route_bit(const struct etw_route *route,
			 const struct etw_session *s)
{
	unsigned int i;

	for (i = 0; i < route->count; i++)
		if (route->e[i].session == s)
			return BIT(i);
	return 0;
}

/*
 * Count the event lost in the sessions of @failed, once it is known the
 * write will not be retried: a retry would count them again.
 */
static noinline void etw_count_lost(const struct etw_event *ev,
				    const struct etw_route *route,
				    u32 failed, int err)
{
	while (failed) {
		etw_record_lost(route->e[__ffs(failed)].session,
				&ev->reg->guid, ev->desc->id, err);
		failed &= failed - 1;
	}
}

/*
 * Route and record one classified event.  Called with preemption disabled
 * and inside an RCU read section that covers @route.  @xd: the items, with
 * @ext_items (a session of @route asked for extended data items); @t has
 * room for ETW_MAX_TARGETS.  Always inlined, into one copy for each value
 * of @ext_items; the event says whether it is a user write.
 */
static __always_inline int etw_route_event(struct etw_event *ev,
					   const struct etw_route *route,
					   bool ext_items,
					   struct etw_ext_items *xd,
					   struct etw_target *t)
{
	const struct etw_write_mode m = {
		.user = ev->user,
		.ext_items = ext_items,
	};
	/* etw_route_build() never makes more entries than ETW_MAX_TARGETS. */
	unsigned int count = min_t(u32, route->count, ETW_MAX_TARGETS);
	unsigned int i, n, nres = 0;
	int lost = 0, ret;
	bool group_failed = false;
	u32 failed = 0;
	u32 alen = ALIGN(ev->rec_len, 8);
	bool every = etw_level_kw_match(&route->every, ev->desc->level,
					ev->desc->keyword);
	/* A plain write has no TraceLogging name. */
	const char *name = m.plain ? NULL : ev->name;
	void *rec;
	u64 now = 0;

	/* Reservations are packed at the front of @t as they succeed. */
	for (i = 0; i < count; i++) {
		struct etw_target *r = &t[nres];
		struct etw_session *s = route->e[i].session;
		int err;

		if (!etw_entry_takes(&route->e[i], ev, every, name))
			continue;
		/* One clock read per event, and none for a filtered one. */
		if (!now)
			now = etw_ev_now(ev, m);
		r->ts = now;
		if (m.ext_items &&
		    !etw_target_ext_items(r, xd, &route->e[i], ev->rec_len)) {
			err = -E2BIG;
		} else {
			err = etw_target_reserve(r, s, alen + etw_t_xlen(r, m));
			if (!err) {
				r->s = s;
				nres++;
				continue;
			}
		}
		lost = lost ?: err;
		failed |= BIT(i);
		if (!etw_session_independent(s))
			group_failed = true;
	}
	if (group_failed) {
		/* The others lose it too; independent sessions keep theirs. */
		n = nres;
		nres = 0;
		for (i = 0; i < n; i++) {
			if (etw_session_independent(t[i].s)) {
				t[nres++] = t[i];
				continue;
			}
			failed |= etw_route_bit(route, t[i].s);
			etw_buffer_cancel(t[i].s, etw_session_stream(t[i].s),
					  t[i].b, t[i].off,
					  alen + etw_t_xlen(&t[i], m),
					  ev->rec_len + etw_t_xlen(&t[i], m),
					  false);
		}
	}
	if (!nres)
		goto count_lost;

	rec = t[0].b->data + t[0].off;
	ret = etw_build_record(ev, m, rec, &t[0],
			       alen + etw_t_xlen(&t[0], m), xd);
	if (ret) {
		/*
		 * A fault: the write is retried, so nothing is counted lost,
		 * not even where it failed (the retry will count those).
		 */
		for (i = 0; i < nres; i++)
			etw_buffer_cancel(t[i].s, etw_session_stream(t[i].s),
					  t[i].b, t[i].off,
					  alen + etw_t_xlen(&t[i], m),
					  ev->rec_len + etw_t_xlen(&t[i], m),
					  false);
		return ret;
	}
	for (i = 1; i < nres; i++) {
		void *h = t[i].b->data + t[i].off;

		if (!m.ext_items ||
		    (t[i].ext == t[0].ext && !etw_t_own_key(&t[i]) &&
		     !etw_t_own_key(&t[0])))
			etw_copy_record(h, rec, alen + etw_t_xlen(&t[i], m));
		else
			etw_copy_xrecord(ev, h, rec, &t[0], &t[i], alen, xd);
		if (!ev->has_ts)
			etw_record_set_ts(ev, h, t[i].ts);
		etw_target_commit(&t[i], ev, m);
	}
	/* Last: the others were copied from it. */
	etw_target_commit(&t[0], ev, m);
count_lost:
	if (unlikely(failed))
		etw_count_lost(ev, route, failed, lost);
	return lost;
}

/*
 * A route of one session without extended data items, the commonest:
 * etw_route_event() for one target, written out without its loops and
 * their state (a filtered event is not lost, a failed reservation is lost
 * in its one session, a fault is retried), and inlined into the write
 * handlers (a call fewer).
 */
static __always_inline int etw_route_event_one(struct etw_event *ev,
					       const struct etw_route *route,
					       struct etw_write_mode m)
{
	const struct etw_route_entry *e = &route->e[0];
	struct etw_target t __uninitialized;
	u32 alen;
	int ret;

	if (!etw_entry_takes(e, ev, etw_level_kw_match(&route->every,
						       ev->desc->level,
						       ev->desc->keyword),
			     m.plain ? NULL : ev->name))
		return 0;
	t.ts = etw_ev_now(ev, m);
	t.s = e->session;
	alen = ALIGN(ev->rec_len, 8);
	ret = etw_target_reserve(&t, t.s, alen);
	if (unlikely(ret)) {
		etw_count_lost(ev, route, BIT(0), ret);
		return ret;
	}
	ret = etw_build_record(ev, m, t.b->data + t.off, &t, alen, NULL);
	if (unlikely(ret)) {
		/* A fault: retried, so not lost. */
		etw_buffer_cancel(t.s, etw_session_stream(t.s), t.b, t.off,
				  alen, ev->rec_len, false);
		return ret;
	}
	etw_target_commit(&t, ev, m);
	return 0;
}

/* A route of several sessions without extended data items. */
static noinline int etw_route_event_plain(struct etw_event *ev,
					  const struct etw_route *route)
{
	struct etw_target t[ETW_MAX_TARGETS] __uninitialized;

	return etw_route_event(ev, route, false, NULL, t);
}

/* A route some session of which asked for extended data items. */
static noinline int etw_route_event_ext_items(struct etw_event *ev,
					      const struct etw_route *route)
{
	struct etw_target t[ETW_MAX_TARGETS] __uninitialized;

	return etw_route_event(ev, route, true,
			       etw_ext_items_get(ev->desc, ev->name, ev->user), t);
}

/*
 * The fields etw_write_user() sets only for writes that are not plain
 * (see etw_event_size()), as a plain write has them.
 */
static __always_inline void etw_event_plain(struct etw_event *ev)
{
	ev->related = NULL;
	ev->types = false;
	ev->classic = 0;
	ev->schema = NULL;
	ev->name = NULL;
	ev->pl = NULL;
	ev->traits_desc = NULL;
	ev->has_ts = false;
}

/*
 * A route with a payload filter: the payload in one piece, then the
 * route, in a copy of the path that reads it (a plain write's fields were
 * set by etw_event_plain()).
 */
static noinline int etw_route_payload(struct etw_event *ev,
				      const struct etw_route *route)
{
	u32 ext = route->ext & ~ETW_ROUTE_PAYLOAD;
	int ret;

	ret = etw_event_payload(ev, route, ev->user ? etw_mode_user :
						       etw_mode_kernel);
	if (ret)
		return ret;
	etw_event_payload_exclude(ev, route);
	if (route->count == 1 && !ext)
		return ev->user ? etw_route_event_one(ev, route, etw_mode_user) :
				  etw_route_event_one(ev, route,
						      etw_mode_kernel);
	if (ext && !ev->classic)
		return etw_route_event_ext_items(ev, route);
	return etw_route_event_plain(ev, route);
}

/*
 * A plain user write to one session whose entry has a payload filter and
 * asked for no items: the payload, then the one-session path, plain.
 */
static noinline int etw_route_payload_plain(struct etw_event *ev,
					    const struct etw_route *route)
{
	int ret = etw_event_payload(ev, route, etw_mode_user_plain);

	if (ret)
		return ret;
	/* The one entry's filter decides without a mask, as its level does. */
	if (!etw_payload_filter_match(route->e[0].payload, ev->desc->id,
				      ev->desc->version, ev->pl, ev->pl_len))
		return 0;
	return etw_route_event_one(ev, route, etw_mode_user_plain);
}

/*
 * Classic records carry no extended items.  @m: the caller's constant;
 * @m.user is set in @ev only for the paths that are not inlined.
 */
static __always_inline int etw_route(struct etw_event *ev,
				     const struct etw_route *route,
				     struct etw_write_mode m)
{
	if (likely(route->count == 1) && likely(!route->ext))
		return etw_route_event_one(ev, route, m);
	if (m.plain && m.user && route->count == 1 &&
	    route->ext == ETW_ROUTE_PAYLOAD)
		return etw_route_payload_plain(ev, route);
	/* The general path reads every field: set those left out. */
	ev->user = m.user;
	if (m.plain)
		etw_event_plain(ev);
	if (unlikely(route->ext & ETW_ROUTE_PAYLOAD))
		return etw_route_payload(ev, route);
	if (unlikely(route->ext) && !ev->classic)
		return etw_route_event_ext_items(ev, route);
	/*
	 * Several sessions, or a classic event (it carries no items) on a
	 * route that asked for items: the loop, where one target is rare.
	 */
	return etw_route_event_plain(ev, route);
}

/**
 * etw_write_kernel() - write an event from an in-kernel provider
 * @reg: the registration
 * @d: the event descriptor
 * @activity: activity GUID
 * @related: related activity GUID, or NULL
 * @count: entries in @data
 * @data: descriptors pointing at kernel memory
 *
 * Context: any context but NMI.
 * Return: 0, -E2BIG, -EINVAL, -EMSGSIZE or -ENOBUFS (see etw_write_args).
 */
int etw_write_kernel(struct etw_reg *reg, const struct etw_event_descriptor *d,
		     const struct etw_guid *activity,
		     const struct etw_guid *related, u32 count,
		     const struct etw_data_descriptor *data)
{
	struct etw_event ev = {
		.reg = reg, .desc = d, .activity = activity,
		.related = related, .data = data, .count = count,
	};
	const struct etw_route *route;
	int ret;

	if (count > ETW_MAX_DATA_DESCRIPTORS)
		return -EINVAL;
	preempt_disable();
	rcu_read_lock();
	route = rcu_dereference(reg->route);
	ret = 0;
	if (route) {
		ret = etw_event_size(&ev, etw_mode_kernel);
		if (!ret)
			ret = etw_route(&ev, route, etw_mode_kernel);
	}
	rcu_read_unlock();
	preempt_enable();
	return ret;
}

/**
 * etw_write_staged() - route one event a thread staged (etw_batch.c)
 * @reg: its registration
 * @route: @reg's route
 * @desc: its descriptor, as read (once) from the ring
 * @activity: its activity ID, as read (once) from the ring
 * @flags: ETW_EVENT_FLAG_STRING_ONLY or 0
 * @payload: the payload, in the ring (kernel memory), read once here
 * @len: bytes at @payload
 * @w: the staging thread
 * @ts: the record's time, not 0 and not after now
 *
 * A plain write (see etw_write_user()) of @w at @ts, with the filters,
 * delivery and loss accounting of the direct path.  Staged events carry no
 * extended data items sessions ask for: those describe the writer at the
 * time of the write, which has passed.
 *
 * Context: preemption disabled, RCU read section covering @reg and @route.
 * Return: 0 or a negative errno, as etw_write_kernel().
 */
int etw_write_staged(struct etw_reg *reg, const struct etw_route *route,
		     const struct etw_event_descriptor *desc,
		     const struct etw_guid *activity, u16 flags,
		     const void *payload, u32 len, const struct etw_writer *w,
		     u64 ts)
{
	struct etw_data_descriptor d __uninitialized;
	/* Not zeroed per event: a plain write reads only what is set. */
	struct etw_event ev __uninitialized;
	int ret;

	d.ptr = (uintptr_t)payload;
	d.size = len;
	ev.reg = reg;
	ev.desc = desc;
	ev.activity = activity;
	ev.data = &d;
	ev.count = 1;
	ev.flags = flags;
	ev.exclude = 0;
	ev.w = w;
	ev.staged_ts = ts;
	ret = etw_event_size(&ev, etw_mode_staged);
	if (ret)
		return ret;
	if (likely(route->count == 1) && likely(!route->payload))
		return etw_route_event_one(&ev, route, etw_mode_staged);
	/* The general path reads every field: set those left out. */
	ev.user = false;
	etw_event_plain(&ev);
	/* The payload is in one piece already, in the ring. */
	if (route->payload) {
		ev.pl = payload;
		ev.pl_len = len;
		etw_event_payload_exclude(&ev, route);
	}
	return etw_route_event_plain(&ev, route);
}

/* The header type CLASSIC or MESSAGE asks for; 0 for an EVENT_HEADER. */
static u16 etw_classic_type(u32 flags)
{
	if (flags & ETW_WRITE_MESSAGE)
		return ETW_MESSAGE_HEADER_TYPE;
	if (!(flags & ETW_WRITE_CLASSIC))
		return 0;
	return (flags & ETW_WRITE_INSTANCE) ? ETW_INSTANCE_HEADER_TYPE_64 :
					      ETW_CLASSIC_HEADER_TYPE_64;
}

static int etw_fault_in(u64 ptr, u32 len)
{
	if (fault_in_readable(u64_to_user_ptr(ptr), len))
		return -EFAULT;
	return 0;
}

/*
 * MESSAGE stands alone and names a GUID or a component id, not both;
 * INSTANCE needs CLASSIC, which takes nothing else.
 */
static bool etw_classic_args_bad(const struct etw_write_args *a)
{
	if (a->flags & ETW_WRITE_MESSAGE)
		return a->flags != ETW_WRITE_MESSAGE ||
		       ((a->descriptor.task & ETW_MESSAGE_GUID) &&
			(a->descriptor.task & ETW_MESSAGE_COMPONENTID));
	if (a->flags & ETW_WRITE_CLASSIC)
		return a->flags & ~(ETW_WRITE_CLASSIC | ETW_WRITE_INSTANCE);
	return true;	/* INSTANCE without CLASSIC */
}

/* ETW_IOC_WRITE's flags and counts (the descriptors' range: each attempt). */
static __always_inline int etw_write_args_check(const struct etw_write_args *a)
{
	if (a->flags & ~(ETW_WRITE_RELATED_ACTIVITY | ETW_WRITE_DESC_TYPES |
			 ETW_WRITE_STRING_ONLY | ETW_WRITE_CLASSIC |
			 ETW_WRITE_INSTANCE | ETW_WRITE_MESSAGE |
			 ETW_WRITE_DRAIN | ETW_WRITE_INPRIVATE))
		return -EINVAL;
	if (unlikely(a->flags & (ETW_WRITE_CLASSIC | ETW_WRITE_INSTANCE |
				 ETW_WRITE_MESSAGE)) &&
	    etw_classic_args_bad(a))
		return -EINVAL;
	if (a->data_count > ETW_MAX_DATA_DESCRIPTORS)
		return -EINVAL;
	if (a->data_count && !a->data_ptr)
		return -EFAULT;
	return 0;
}

/**
 * etw_write_user() - ETW_IOC_WRITE
 * @f: the file holding the registration
 * @uarg: the caller's struct etw_write_args
 *
 * Context: process context.
 * Return: 0 or a negative errno (see struct etw_write_args).
 */
long etw_write_user(struct etw_file *f, const void __user *uarg)
{
	/* Not zeroed per event: the copy fills it. */
	struct etw_write_args args __uninitialized;
	const struct etw_write_args *a = &args;
	struct etw_event ev __uninitialized;
	unsigned int tries = 0;
	u32 dlen;
	int ret;

	/*
	 * The common case, a caller of this ABI version, in one inline copy
	 * after the range check (etw_copy_from_user()).  Anything else, a
	 * fault included (a smaller struct may end before unmapped memory),
	 * takes the general path.  Checked and failed as __copy_from_user()
	 * would be.
	 */
	might_fault();
	if (!access_ok(uarg, sizeof(args)) || should_fail_usercopy() ||
	    etw_copy_from_user(&args, uarg, sizeof(args)) ||
	    args.size != sizeof(args)) {
		ret = etw_write_args_in(&args, uarg);
		if (ret)
			return ret;
	}
	ret = etw_write_args_check(a);
	if (ret)
		return ret;
	/* At most a page: access_ok() needs no overflow check. */
	dlen = a->data_count * sizeof(struct etw_data_descriptor);

	/*
	 * What the arguments say is set once; the rest for each attempt, and
	 * what only a write that is not plain reads in its branch below.
	 */
	ev.desc = &a->descriptor;
	ev.activity = &a->activity_id;
	ev.count = a->data_count;
	ev.flags = (a->flags & ETW_WRITE_STRING_ONLY) ?
		   ETW_EVENT_FLAG_STRING_ONLY : 0;
	for (;;) {
		const struct etw_route *route;
		struct etw_data_descriptor *scratch;

		ev.fault_len = 0;
		/* A payload filter's exclusions are the attempt's own. */
		ev.exclude = a->exclude_mask;

		preempt_disable();
		rcu_read_lock();
		ev.reg = etw_file_reg(f, a->reg_id);
		if (!ev.reg || !etw_reg_is_current(ev.reg)) {
			ret = -EBADF;
			goto out_unlock;
		}
		if (unlikely(a->flags & (ETW_WRITE_CLASSIC | ETW_WRITE_MESSAGE)) &&
		    !ev.reg->classic) {
			ret = -EINVAL;
			goto out_unlock;
		}
		route = rcu_dereference(ev.reg->route);
		ret = 0;
		if (!route)
			goto out_unlock;

		scratch = this_cpu_ptr(etw_desc_scratch);
		ev.data = scratch;
		pagefault_disable();
		if (!access_ok(u64_to_user_ptr(a->data_ptr), dlen)) {
			ret = -EFAULT;
		} else if (etw_copy_from_user(scratch,
					      u64_to_user_ptr(a->data_ptr),
					      dlen)) {
			ev.fault_ptr = a->data_ptr;
			ev.fault_len = dlen;
			ret = -EFAULT;
		} else if (likely(!(a->flags & (ETW_WRITE_DESC_TYPES |
						ETW_WRITE_RELATED_ACTIVITY |
						ETW_WRITE_CLASSIC |
						ETW_WRITE_MESSAGE |
						ETW_WRITE_DRAIN |
						ETW_WRITE_INPRIVATE)))) {
			/*
			 * The commonest: a copy in which those tests fold, and
			 * the fields they read are not set.
			 */
			ret = etw_event_size(&ev, etw_mode_user_plain);
			if (!ret)
				ret = etw_route(&ev, route, etw_mode_user_plain);
		} else {
			/* Not plain: the staged events go first. */
			if (a->flags & ETW_WRITE_DRAIN)
				etw_batch_drain_current(f);
			ev.related = (a->flags & ETW_WRITE_RELATED_ACTIVITY) ?
				     &a->related_activity_id : NULL;
			ev.types = a->flags & ETW_WRITE_DESC_TYPES;
			ev.classic = etw_classic_type(a->flags);
			ev.schema = NULL;
			ev.traits_desc = NULL;
			ev.has_ts = false;
			/* Sessions that exclude in-private events are excluded. */
			ev.exclude = a->exclude_mask |
				     ((a->flags & ETW_WRITE_INPRIVATE) ?
				      route->inprivate : 0);
			ret = etw_event_size(&ev, etw_mode_user);
			if (!ret)
				ret = etw_event_name(&ev, route);
			if (!ret)
				ret = etw_route(&ev, route, etw_mode_user);
		}
		pagefault_enable();
out_unlock:
		rcu_read_unlock();
		preempt_enable();
		if (ret != -EFAULT || !ev.fault_len)
			return ret;
		if (++tries > ETW_FAULT_RETRIES || etw_fault_in(ev.fault_ptr,
								ev.fault_len))
			return -EFAULT;
	}
}
