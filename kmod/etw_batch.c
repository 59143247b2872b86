// SPDX-License-Identifier: GPL-2.0
/*
 * etw_batch.c - batched writes: a thread's staging ring.
 *
 * ETW_IOC_BATCH_OPEN gives the calling thread a ring the kernel allocates
 * and the thread maps (struct etw_batch_ctl, then the ring).  The thread
 * stages events there without a system call (struct etw_staged_event,
 * its timestamp taken when it wrote) and publishes them by advancing
 * @head; the kernel drains the ring, routing each record as a plain write
 * of the thread (etw_write_staged()):
 *
 *  - on the thread's next ioctl on the /dev/etw file the ring belongs to
 *    (an ETW_IOC_WRITE only with ETW_WRITE_DRAIN: the direct write path
 *    of threads without a ring pays nothing), and on ETW_IOC_BATCH_DRAIN;
 *  - before ETW_IOC_UNREGISTER and when the /dev/etw file is released
 *    (every ring of the file: another thread's events of a registration
 *    being ended are routed first);
 *  - when a session is flushed, stopped or its flush timer fires (every
 *    ring: the session cannot know whose events it would take);
 *  - when the thread exits (sched_process_exit, before its files close)
 *    or execs (etw_exec.c), and when the ring's file is released.
 *
 * The thread can write the whole mapping at any time, also while the
 * kernel drains it.  The kernel therefore reads each record's size once,
 * then its header once (into a copy it validates), then its payload once
 * (straight into the first session's record); it keeps its own tail and
 * drop count and only publishes them.  A record whose size cannot be
 * right ends the drain: everything up to the published head is dropped,
 * as there is no way to find the next record.  A record with a bad
 * registration, flag or reserved field is skipped.  Both are counted in
 * etw_batch_ctl.dropped.  A timestamp after the drain started is taken as
 * the drain's start (a staged time may not run ahead of every other
 * writer's), and the reservation raises an older one to the buffer's
 * newest (see etw_buffer_claim()), so session buffers stay in order.
 *
 * Once the thread has exited, or its program image has been replaced,
 * what is still staged is dropped: its registrations were the old
 * image's.  The mapping is not inherited by fork(), and only the owning
 * process may drain through the ring's file.
 *
 * Locking: etw_batch_lock (a spinlock: the exit probe runs atomically)
 * protects the lists a ring is on: its file's @batches, the owners hash
 * and etw_batches; lookups walk them under RCU.  @lock serialises the
 * drains of one ring and protects @tail, @dropped and @gone.  Lock
 * order: etw_batch_lock, then a ring's @lock, then the write path's.
 * Rings are freed after an RCU grace period.
 */
#include <linux/anon_inodes.h>
#include <linux/file.h>
#include <linux/hashtable.h>
#include <linux/instrumented.h>
#include <linux/mm.h>
#include <linux/rculist.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/tracepoint.h>
#include <linux/vmalloc.h>

#include "compat.h"
#include "etw_filter.h"
#include "etw_internal.h"
#include "etw_trace.h"

#define ETW_BATCH_CTL_SIZE	PAGE_SIZE

static_assert(sizeof(struct etw_batch_ctl) <= ETW_BATCH_CTL_SIZE);
static_assert(sizeof(struct etw_staged_event) == ETW_STAGED_EVENT_SIZE);
static_assert(ETW_STAGED_EVENT_SIZE % 8 == 0);

/**
 * struct etw_batch - one thread's staging ring
 * @fnode: on @file's batches; etw_batch_lock
 * @onode: in etw_batch_owners while @owner runs; etw_batch_lock
 * @gnode: on etw_batches; etw_batch_lock
 * @file: the /dev/etw file whose registrations the records name; referenced
 * @owner: the thread; compared, never dereferenced
 * @tgid: its process, referenced
 * @exec_id: its program image when the ring was opened
 * @writer: its ids
 * @lock: serialises drains; protects @tail, @dropped, @gone
 * @tail: bytes consumed
 * @dropped: records refused
 * @gone: the thread exited or exec'd: what is staged is dropped
 * @size: bytes of the ring, a power of two
 * @area: the mapping: struct etw_batch_ctl's page, then the ring
 * @rcu: freed after a grace period
 */
struct etw_batch {
	struct list_head fnode;
	struct hlist_node onode;
	struct list_head gnode;
	struct etw_file *file;
	const struct task_struct *owner;
	struct pid *tgid;
	u64 exec_id;
	struct etw_writer writer;
	spinlock_t lock;	/* serialises drains; @tail, @dropped, @gone */
	u64 tail;
	u64 dropped;
	bool gone;
	u32 size;
	void *area;
	struct rcu_head rcu;
};

static DEFINE_SPINLOCK(etw_batch_lock);
static DEFINE_HASHTABLE(etw_batch_owners, 7);
static LIST_HEAD(etw_batches);
static struct tracepoint *etw_batch_exit_tp;

static struct etw_batch_ctl *etw_batch_ctl(const struct etw_batch *b)
{
	return b->area;
}

/* Was @reg made by the ring's thread, in the image that opened the ring? */
static bool etw_batch_reg_ok(const struct etw_batch *b,
			     const struct etw_reg *reg)
{
	return reg && reg->tgid == b->tgid && reg->exec_id == b->exec_id;
}

/* A run's most records: interrupts stay off for at most this many. */
#define ETW_BATCH_RUN_MAX	64

/*
 * Staged records of a one-session route without extended items are
 * written into the session's current buffer as a run: interrupts off, so
 * that no other writer reserves on this CPU's stream in between; one
 * writer reference held for the run; each record claimed with one
 * cmpxchg (a sealer on another CPU may still change the state); the
 * buffer's newest timestamp raised once at the end, when the commit also
 * delivers the buffer if it was sealed meanwhile.  A record the run
 * cannot take (another session, a full or sealed buffer, a route of
 * several sessions or with items) ends it and goes through
 * etw_write_staged(), which also counts losses.
 *
 * @route: the route whose records the run takes
 * @s: its one session
 * @b: the buffer, NULL when no run is open
 * @state: @b's state as last claimed
 * @first_ts: @b's newest timestamp when the run began
 * @last_ts: the newest timestamp of the run's records
 * @ids: the thread and process id as the records carry them
 * @flags: ETW_EVENT_FLAG_* every record of the run carries
 * @n: records in the run
 * @irqflags: interrupt state to restore
 */
struct etw_batch_run {
	const struct etw_route *route;
	struct etw_session *s;
	struct etw_buffer *b;
	u64 state;
	u64 first_ts;
	u64 last_ts;
	u64 ids;
	u16 flags;
	unsigned int n;
	unsigned long irqflags;
};

static void etw_batch_run_end(struct etw_batch_run *run)
{
	etw_buffer_raise_ts(run->b, run->first_ts, run->last_ts);
	etw_buffer_commit(run->s, run->b);
	local_irq_restore(run->irqflags);
	run->b = NULL;
}

/*
 * Can @route's records be written in runs?  One session, no items, no
 * traits (an item too), a per-CPU stream.
 */
static bool etw_batch_route_runs(const struct etw_route *route,
				 const struct etw_reg *reg)
{
	return route->count == 1 && !route->ext && !READ_ONCE(reg->traits) &&
	       !(READ_ONCE(route->e[0].session->cfg.mode) &
		 ETW_MODE_NO_PER_PROCESSOR);
}

/* Begin a run of @route in its session's current buffer, or fail. */
static noinline bool etw_batch_run_begin(struct etw_batch *b,
					 struct etw_batch_run *run,
					 const struct etw_route *route)
{
	struct etw_session *s = route->e[0].session;
	struct etw_stream *st;
	struct etw_buffer *buf;
	u64 old;

	local_irq_save(run->irqflags);
	st = etw_session_stream(s);
	buf = READ_ONCE(st->cur);
	if (!buf)
		goto out_restore;
	/*
	 * Dependent on @buf: ordered after the cmpxchg() that published it
	 * in etw_stream_install().  Acquire: ordered before the second read
	 * of @st->cur (see etw_buffer_reserve_fast()).
	 */
	old = atomic64_read_acquire(&buf->state);
	if ((old & ETW_BS_SEALED) || READ_ONCE(st->cur) != buf)
		goto out_restore;
	/* Fully ordered: pairs with the seal's cmpxchg (etw_stream_seal()). */
	if (!atomic64_try_cmpxchg(&buf->state, &old, old + ETW_BS_WR_ONE))
		goto out_restore;
	run->route = route;
	run->s = s;
	run->b = buf;
	run->state = old + ETW_BS_WR_ONE;
	run->first_ts = local64_read(&buf->last_ts);
	run->last_ts = run->first_ts;
	run->n = 0;
	if (etw_session_is_private(s)) {
		/* A private session's owner sees its own ids. */
		run->ids = b->writer.vtid | (u64)b->writer.vpid << 32;
		run->flags = ETW_EVENT_FLAG_PRIVATE_SESSION;
	} else {
		run->ids = b->writer.tid | (u64)b->writer.pid << 32;
		run->flags = 0;
	}
	return true;

out_restore:
	local_irq_restore(run->irqflags);
	return false;
}

/* Does @route's one entry take the event (etw_entry_takes())? */
static __always_inline bool etw_batch_takes(const struct etw_route *route,
					    u64 desc_lo, u64 keyword)
{
	const struct etw_route_entry *e = &route->e[0];
	u8 level = desc_lo >> 32;

	if (etw_level_kw_match(&route->every, level, keyword))
		return true;
	return etw_level_kw_match(&e->lk, level, keyword) &&
	       etw_event_id_match(e->ids, (u16)desc_lo);
}

/*
 * Copy a payload from the ring, once, and zero the record's padding (the
 * ring's is the thread's, not the record's).  On x86-64 a rep movsq.
 */
static __always_inline void etw_batch_copy(void *dst, const void *src,
					   u32 len)
{
	u32 rest = len % 8;

	if (rest)
		*(u64 *)(dst + len - rest) = 0;
#ifdef CONFIG_X86_64
	{
		unsigned long n = len / 8;

		instrument_read(src, len);
		instrument_write(dst, len);
		asm volatile("rep movsq\n"
			     "	mov %[rest], %%ecx\n"
			     "	rep movsb\n"
			     : "+c" (n), "+D" (dst), "+S" (src)
			     : [rest] "r" (rest)
			     : "memory");
	}
#else
	memcpy(dst, src, len);
#endif
}

/*
 * Write the record at @q (@size bytes, its descriptor @d0 @d1, its
 * time @ts, its flags @flags) into the open run.  False when the run's
 * buffer cannot take it.
 */
static __always_inline bool etw_batch_run_write(struct etw_batch_run *run,
						const struct etw_reg *reg,
						const u64 *q, u32 size, u64 d0,
						u64 d1, u64 ts, u64 flags)
{
	u32 plen = size - sizeof(struct etw_staged_event);
	u32 len = ALIGN(sizeof(struct etw_event_header) + plen, 8);
	u64 old = run->state, *h;

	if ((old & (ETW_BS_SEALED | ETW_BS_OFF_MASK)) * 8 + len >
	    run->s->buf_bytes)
		return false;
	/* Fully ordered: pairs with the seal's cmpxchg (etw_stream_seal()). */
	if (!atomic64_try_cmpxchg(&run->b->state, &old,
				  old + len / 8 + ETW_BS_EV_ONE))
		return false;
	run->state = old + len / 8 + ETW_BS_EV_ONE;
	run->n++;
	run->last_ts = max(ts, run->last_ts);
	/* struct etw_event_header, a word at a time. */
	h = run->b->data + (old & ETW_BS_OFF_MASK) * 8;
	h[0] = (sizeof(struct etw_event_header) + plen) |
	       (u64)ETW_EVENT_HEADER_TYPE_64 << 16 |
	       (u64)(run->flags | ((flags & ETW_STAGED_STRING_ONLY) ?
				   ETW_EVENT_FLAG_STRING_ONLY : 0)) << 32;
	h[1] = run->ids;
	h[2] = run->last_ts;
	memcpy(&h[3], &reg->guid, sizeof(reg->guid));
	h[5] = d0;
	h[6] = d1;
	h[7] = 0;
	/* The activity ID: read once, straight into the record. */
	h[8] = READ_ONCE(q[4]);
	h[9] = READ_ONCE(q[5]);
	etw_batch_copy(&h[10], &q[7], plen);
	trace_etw_write(run->s, reg, (const void *)&h[5], h);
	return true;
}

/* One record the general way: etw_write_staged() reads a header struct. */
static noinline void etw_batch_route_one(struct etw_batch *b,
					 struct etw_reg *reg,
					 const struct etw_route *route,
					 const u64 *q, u32 size, u64 d0,
					 u64 d1, u64 ts, u64 flags)
{
	struct etw_staged_event se;

	se.size = size;
	se.reg_id = reg->id;
	se.timestamp = ts;
	memcpy(&se.descriptor, &d0, sizeof(d0));
	memcpy((void *)&se.descriptor + sizeof(d0), &d1, sizeof(d1));
	/* The activity ID: read once, as the run reads it. */
	((u64 *)&se.activity_id)[0] = READ_ONCE(q[4]);
	((u64 *)&se.activity_id)[1] = READ_ONCE(q[5]);
	se.flags = lower_32_bits(flags);
	se.reserved = 0;
	etw_write_staged(reg, route, &se, &q[7], size - sizeof(se),
			 &b->writer, ts);
}

/*
 * Route the records from @tail to @head.  Returns the new tail; a record
 * that cannot be one ends the walk at @head (see the top of the file).
 * Each word of a record's header is read once (READ_ONCE()).
 */
static u64 etw_batch_route(struct etw_batch *b, u64 tail, u64 head)
{
	static_assert(offsetof(struct etw_staged_event, timestamp) == 8);
	static_assert(offsetof(struct etw_staged_event, descriptor) == 16);
	static_assert(offsetof(struct etw_staged_event, activity_id) == 32);
	static_assert(offsetof(struct etw_staged_event, flags) == 48);
	static_assert(sizeof(struct etw_event_header) == 80);
	const void *ring = b->area + ETW_BATCH_CTL_SIZE;
	struct etw_batch_run run __uninitialized;
	const struct etw_route *runs = NULL;
	struct etw_reg *reg = NULL;
	u32 mask = b->size - 1;
	u32 reg_id = 0;
	u64 now = ktime_get_ns();

	run.b = NULL;
	while (tail != head) {
		const u64 *q = ring + (tail & mask);
		u32 room = b->size - (tail & mask);
		const struct etw_route *route;
		u64 q0 = READ_ONCE(q[0]), flags, ts, d0, d1;
		u32 size = lower_32_bits(q0);

		if (size == ETW_STAGED_WRAP && room <= head - tail) {
			tail += room;
			continue;
		}
		if (size < sizeof(struct etw_staged_event) || size > room ||
		    size > head - tail) {
			b->dropped++;
			tail = head;
			break;
		}
		tail += ALIGN(size, 8);
		flags = READ_ONCE(q[6]);
		if (unlikely(b->gone || flags & ~(u64)ETW_STAGED_STRING_ONLY)) {
			b->dropped++;
			continue;
		}
		if (upper_32_bits(q0) != reg_id) {
			reg_id = upper_32_bits(q0);
			reg = etw_file_reg(b->file, reg_id);
			if (reg && !etw_batch_reg_ok(b, reg))
				reg = NULL;
		}
		if (unlikely(!reg)) {
			b->dropped++;
			continue;
		}
		route = rcu_dereference(reg->route);
		if (!route)
			continue;
		ts = clamp_val(READ_ONCE(q[1]), 1, now);
		d0 = READ_ONCE(q[2]);
		d1 = READ_ONCE(q[3]);
		if (route != runs)
			runs = etw_batch_route_runs(route, reg) ? route : NULL;
		if (route == runs) {
			if (!etw_batch_takes(route, d0, d1))
				continue;
			if (run.b && (run.route != route ||
				      run.n == ETW_BATCH_RUN_MAX))
				etw_batch_run_end(&run);
			if ((run.b || etw_batch_run_begin(b, &run, route)) &&
			    etw_batch_run_write(&run, reg, q, size, d0, d1, ts,
						flags))
				continue;
		}
		/* Its reservation must see the run's records and times. */
		if (run.b)
			etw_batch_run_end(&run);
		etw_batch_route_one(b, reg, route, q, size, d0, d1, ts, flags);
	}
	if (run.b)
		etw_batch_run_end(&run);
	return tail;
}

/* Route what @b's thread has published. */
static void etw_batch_drain_locked(struct etw_batch *b)
{
	struct etw_batch_ctl *ctl = etw_batch_ctl(b);
	u64 head, tail;

	lockdep_assert_held(&b->lock);
	/* Pairs with the thread's release store of @head after its records. */
	head = smp_load_acquire(&ctl->head);
	tail = b->tail;
	if (head != tail) {
		if (head - tail > b->size || head % 8) {
			b->dropped++;
			tail = head;
		} else {
			rcu_read_lock();
			tail = etw_batch_route(b, tail, head);
			rcu_read_unlock();
		}
		b->tail = tail;
		WRITE_ONCE(ctl->dropped, b->dropped);
		/*
		 * Pairs with the thread's acquire load of @tail before it
		 * reuses the room: the records were read before.
		 */
		smp_store_release(&ctl->tail, tail);
	}
}

static void etw_batch_drain(struct etw_batch *b)
{
	spin_lock(&b->lock);
	etw_batch_drain_locked(b);
	spin_unlock(&b->lock);
}

/**
 * etw_batch_drain_current() - drain the calling thread's ring on a file
 * @f: the /dev/etw file
 *
 * Context: process context, any preemption state.
 */
void etw_batch_drain_current(struct etw_file *f)
{
	struct etw_batch *b;

	rcu_read_lock();
	list_for_each_entry_rcu(b, &f->batches, fnode)
		if (b->owner == current)
			etw_batch_drain(b);
	rcu_read_unlock();
}

/**
 * etw_batch_drain_file() - drain every ring of a file
 * @f: the /dev/etw file
 *
 * Context: process context.
 */
void etw_batch_drain_file(struct etw_file *f)
{
	struct etw_batch *b;

	rcu_read_lock();
	list_for_each_entry_rcu(b, &f->batches, fnode)
		etw_batch_drain(b);
	rcu_read_unlock();
}

/**
 * etw_batch_drain_all() - drain every ring
 *
 * For a session's flush timer, flush and stop: it may take any ring's
 * events.
 *
 * Context: process context.
 */
void etw_batch_drain_all(void)
{
	struct etw_batch *b;

	rcu_read_lock();
	list_for_each_entry_rcu(b, &etw_batches, gnode)
		etw_batch_drain(b);
	rcu_read_unlock();
}

/* Drain @b a last time and drop what its thread stages after. */
static void etw_batch_end(struct etw_batch *b)
{
	spin_lock(&b->lock);
	etw_batch_drain_locked(b);
	b->gone = true;
	spin_unlock(&b->lock);
	spin_lock(&etw_batch_lock);
	if (!hlist_unhashed(&b->onode))
		hash_del_rcu(&b->onode);
	spin_unlock(&etw_batch_lock);
}

/**
 * etw_batch_end_image() - the calling thread replaced its program image
 * @f: a /dev/etw file it holds
 *
 * Its rings on @f are drained while the old image's registrations still
 * exist, then end.
 *
 * Context: process context, before the old image's registrations end.
 */
void etw_batch_end_image(struct etw_file *f)
{
	struct etw_batch *b;

	rcu_read_lock();
	list_for_each_entry_rcu(b, &f->batches, fnode)
		if (b->exec_id != READ_ONCE(current->self_exec_id) &&
		    b->tgid == task_tgid(current))
			etw_batch_end(b);
	rcu_read_unlock();
}

static void etw_batch_exit_probe(void *data, struct task_struct *p)
{
	struct etw_batch *b;

	if (p != current || list_empty(&etw_batches))
		return;
	rcu_read_lock();
	hash_for_each_possible_rcu(etw_batch_owners, b, onode,
				   (unsigned long)p)
		if (b->owner == p)
			etw_batch_end(b);
	rcu_read_unlock();
}

static void etw_batch_free_rcu(struct rcu_head *rcu)
{
	struct etw_batch *b = container_of(rcu, struct etw_batch, rcu);

	vfree(b->area);
	put_pid(b->tgid);
	etw_file_put(b->file);
	kfree(b);
}

static int etw_batch_release(struct inode *inode, struct file *file)
{
	struct etw_batch *b = file->private_data;

	etw_batch_end(b);
	spin_lock(&etw_batch_lock);
	list_del_rcu(&b->fnode);
	list_del_rcu(&b->gnode);
	spin_unlock(&etw_batch_lock);
	call_rcu(&b->rcu, etw_batch_free_rcu);
	return 0;
}

/* The whole area, shared and writable, at offset 0; never inherited. */
static int etw_batch_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct etw_batch *b = file->private_data;
	unsigned long off, len = vma->vm_end - vma->vm_start;
	int ret;

	if (vma->vm_pgoff || len != ETW_BATCH_CTL_SIZE + b->size ||
	    !(vma->vm_flags & VM_SHARED))
		return -EINVAL;
	etw_vma_set_flags(vma, VM_DONTCOPY | VM_DONTEXPAND | VM_DONTDUMP);
	for (off = 0; off < len; off += PAGE_SIZE) {
		ret = vm_insert_page(vma, vma->vm_start + off,
				     vmalloc_to_page(b->area + off));
		if (ret)
			return ret;
	}
	return 0;
}

static long etw_batch_ioctl(struct file *file, unsigned int cmd,
			    unsigned long arg)
{
	struct etw_batch *b = file->private_data;

	if (cmd != ETW_IOC_BATCH_DRAIN)
		return -ENOTTY;
	if (b->tgid != task_tgid(current))
		return -EPERM;
	etw_batch_drain(b);
	return 0;
}

static const struct file_operations etw_batch_fops = {
	.owner = THIS_MODULE,
	.release = etw_batch_release,
	.mmap = etw_batch_mmap,
	.unlocked_ioctl = etw_batch_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.llseek = noop_llseek,
};

static bool etw_batch_has_ring(struct etw_file *f)
{
	struct etw_batch *b;

	lockdep_assert_held(&etw_batch_lock);
	list_for_each_entry(b, &f->batches, fnode)
		if (b->owner == current && !b->gone)
			return true;
	return false;
}

static struct etw_batch *etw_batch_alloc(struct etw_file *f, u32 size)
{
	struct etw_batch *b;

	b = kzalloc(sizeof(*b), GFP_KERNEL_ACCOUNT);
	if (!b)
		return NULL;
	/* Charged to the opener (vmalloc_user() is not); pages map singly. */
	b->area = __vmalloc(ETW_BATCH_CTL_SIZE + size,
			    GFP_KERNEL_ACCOUNT | __GFP_ZERO);
	if (!b->area) {
		kfree(b);
		return NULL;
	}
	spin_lock_init(&b->lock);
	INIT_HLIST_NODE(&b->onode);
	b->size = size;
	etw_batch_ctl(b)->ring_size = size;
	b->owner = current;
	b->tgid = get_pid(task_tgid(current));
	b->exec_id = READ_ONCE(current->self_exec_id);
	b->writer.tid = task_pid_nr(current);
	b->writer.pid = task_tgid_nr(current);
	b->writer.vtid = task_pid_vnr(current);
	b->writer.vpid = task_tgid_vnr(current);
	kref_get(&f->ref);
	b->file = f;
	return b;
}

/**
 * etw_batch_open() - ETW_IOC_BATCH_OPEN
 * @f: the /dev/etw file
 * @flags: O_CLOEXEC or 0
 * @ring_size: in: bytes asked for, 0 for the default; out: bytes
 * @ctl_size: out: bytes before the ring in the mapping
 * @filep: out: the ring's file, to install at the returned descriptor
 *
 * Context: process context.
 * Return: an unused descriptor for *@filep, -EINVAL, -EBUSY (the thread
 * has a ring on @f), -ENOMEM or -EMFILE.
 */
int etw_batch_open(struct etw_file *f, u32 flags, u32 *ring_size,
		   u32 *ctl_size, struct file **filep)
{
	u32 size = *ring_size ?: ETW_BATCH_DEFAULT_RING;
	struct etw_batch *b;
	struct file *file;
	int fd, ret;

	if ((flags & ~O_CLOEXEC) || !is_power_of_2(size) ||
	    size < ETW_BATCH_MIN_RING || size > ETW_BATCH_MAX_RING)
		return -EINVAL;
	/* Only this thread adds a ring it owns: no other can race the test. */
	spin_lock(&etw_batch_lock);
	ret = etw_batch_has_ring(f) ? -EBUSY : 0;
	spin_unlock(&etw_batch_lock);
	if (ret)
		return ret;
	b = etw_batch_alloc(f, size);
	if (!b)
		return -ENOMEM;
	fd = get_unused_fd_flags(flags);
	if (fd < 0) {
		ret = fd;
		goto out_free;
	}
	file = anon_inode_getfile("etw-batch", &etw_batch_fops, b,
				  O_RDWR | flags);
	if (IS_ERR(file)) {
		ret = PTR_ERR(file);
		goto out_put_fd;
	}
	spin_lock(&etw_batch_lock);
	list_add_tail_rcu(&b->fnode, &f->batches);
	list_add_tail_rcu(&b->gnode, &etw_batches);
	hash_add_rcu(etw_batch_owners, &b->onode, (unsigned long)current);
	spin_unlock(&etw_batch_lock);
	*ring_size = size;
	*ctl_size = ETW_BATCH_CTL_SIZE;
	*filep = file;
	return fd;

out_put_fd:
	put_unused_fd(fd);
out_free:
	vfree(b->area);
	put_pid(b->tgid);
	etw_file_put(b->file);
	kfree(b);
	return ret;
}

static void etw_batch_find(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "sched_process_exit"))
		etw_batch_exit_tp = tp;
}

/**
 * etw_batch_init() - hook thread exit
 *
 * Context: module init.
 * Return: 0, or the tracepoint's registration error.  Without the
 * tracepoint a ring is drained at its file's release, not at exit.
 */
int etw_batch_init(void)
{
	for_each_kernel_tracepoint(etw_batch_find, NULL);
	if (!etw_batch_exit_tp)
		return 0;
	return tracepoint_probe_register(etw_batch_exit_tp,
					 etw_batch_exit_probe, NULL);
}

/**
 * etw_batch_exit() - unhook thread exit; no probe runs on return
 *
 * Context: module exit.
 */
void etw_batch_exit(void)
{
	if (!etw_batch_exit_tp)
		return;
	tracepoint_probe_unregister(etw_batch_exit_tp, etw_batch_exit_probe,
				    NULL);
	tracepoint_synchronize_unregister();
}
