// SPDX-License-Identifier: GPL-2.0
/*
 * etw_consumer.c - consumer files (ETW_IOC_CONSUME): attach, read, detach.
 *
 * Delivered buffers sit on session.delivered in delivery order.  Each
 * consumer reads them in that order through a cursor (the next delivery
 * number); a buffer goes back to the free list once it was read and no
 * consumer still has to read it.  Buffers delivered while no consumer is
 * open stay as a backlog for the first consumer that comes; a session
 * that stops with none open counts its backlog lost.
 */
#include <linux/anon_inodes.h>
#include <linux/poll.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "compat.h"
#include "etw_buffer.h"
#include "etw_internal.h"

/* Give a buffer nobody needs back to the free list. */
static void etw_buffer_recycle(struct etw_session *s, struct etw_buffer *b)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&s->lock, flags);
	list_add_tail(&b->node, &s->free);
	s->nfree++;
	raw_spin_unlock_irqrestore(&s->lock, flags);
}

/**
 * etw_consumer_discard_unread() - at stop, drop what no consumer can read
 * @s: the stopped session
 *
 * With no consumer open, the delivered backlog is lost: its buffers count
 * as realtime_buffers_lost and their events move from events_written to
 * events_lost.
 *
 * Context: process context.
 */
void etw_consumer_discard_unread(struct etw_session *s)
{
	struct etw_buffer *b, *tmp;
	unsigned long flags;
	LIST_HEAD(gone);

	raw_spin_lock_irqsave(&s->lock, flags);
	if (s->nconsumers) {
		raw_spin_unlock_irqrestore(&s->lock, flags);
		return;
	}
	list_for_each_entry_safe(b, tmp, &s->delivered, node) {
		struct etw_buffer_header *h = b->data;

		list_move_tail(&b->node, &gone);
		atomic64_inc(&s->rt_buffers_lost);
		atomic64_dec(&s->buffers_written);
		atomic64_sub(h->events, &s->events_written);
		atomic64_add(h->events, &s->events_lost);
	}
	raw_spin_unlock_irqrestore(&s->lock, flags);
	list_for_each_entry_safe(b, tmp, &gone, node) {
		list_del(&b->node);
		etw_buffer_recycle(s, b);
	}
}
EXPORT_SYMBOL_IF_KUNIT(etw_consumer_discard_unread);

/**
 * etw_consumer_attach() - a consumer opens: it will read the backlog first
 * @s: the session
 *
 * Context: any.
 * Return: the consumer's cursor.
 */
u64 etw_consumer_attach(struct etw_session *s)
{
	struct etw_buffer *b;
	unsigned long flags;
	u64 cursor;

	raw_spin_lock_irqsave(&s->lock, flags);
	list_for_each_entry(b, &s->delivered, node)
		b->pending++;
	b = list_first_entry_or_null(&s->delivered, struct etw_buffer, node);
	cursor = b ? b->dseq : s->dseq + 1;
	s->nconsumers++;
	raw_spin_unlock_irqrestore(&s->lock, flags);
	return cursor;
}
EXPORT_SYMBOL_IF_KUNIT(etw_consumer_attach);

/* Drop one consumer's claim on @b; true when the buffer can be recycled. */
static bool etw_buffer_unclaim_locked(struct etw_session *s,
				      struct etw_buffer *b)
{
	lockdep_assert_held(&s->lock);
	b->pending--;
	if (b->pending || !b->read_once)
		return false;
	list_del(&b->node);
	return true;
}

/**
 * etw_consumer_detach() - a consumer closes
 * @s: the session
 * @cursor: its cursor
 *
 * Context: process context.
 */
void etw_consumer_detach(struct etw_session *s, u64 cursor)
{
	struct etw_buffer *b, *tmp;
	unsigned long flags;
	LIST_HEAD(gone);

	raw_spin_lock_irqsave(&s->lock, flags);
	list_for_each_entry_safe(b, tmp, &s->delivered, node) {
		if (b->dseq < cursor)
			continue;
		if (etw_buffer_unclaim_locked(s, b))
			list_add_tail(&b->node, &gone);
	}
	s->nconsumers--;
	raw_spin_unlock_irqrestore(&s->lock, flags);
	list_for_each_entry_safe(b, tmp, &gone, node) {
		list_del(&b->node);
		etw_buffer_recycle(s, b);
	}
}
EXPORT_SYMBOL_IF_KUNIT(etw_consumer_detach);

static struct etw_buffer *etw_next_locked(struct etw_session *s, u64 cursor)
{
	struct etw_buffer *b;

	lockdep_assert_held(&s->lock);
	list_for_each_entry(b, &s->delivered, node)
		if (b->dseq >= cursor)
			return b;
	return NULL;
}

/**
 * etw_consumer_readable() - has a consumer something to read
 * @s: the session
 * @cursor: the consumer's cursor
 *
 * Context: any.
 * Return: true when a buffer waits or the session ended (end of file).
 */
bool etw_consumer_readable(struct etw_session *s, u64 cursor)
{
	unsigned long flags;
	bool ret;

	raw_spin_lock_irqsave(&s->lock, flags);
	ret = etw_next_locked(s, cursor) || s->ended;
	raw_spin_unlock_irqrestore(&s->lock, flags);
	return ret;
}

/**
 * etw_consumer_read() - copy the next delivered buffer to a consumer
 * @s: the session
 * @cursor: the consumer's cursor, advanced past the buffer read
 * @ubuf: user buffer
 * @len: its size, at least the session's buffer size
 *
 * Context: process context; the caller serialises reads of one cursor.
 * Return: bytes copied (the whole buffer), 0 at end of an ended session,
 * -EAGAIN when nothing waits, -EINVAL for a short @len, -EFAULT.
 */
ssize_t etw_consumer_read(struct etw_session *s, u64 *cursor,
			  char __user *ubuf, size_t len)
{
	struct etw_buffer *b;
	unsigned long flags;
	bool recycle;

	if (len < s->buf_bytes)
		return -EINVAL;
	raw_spin_lock_irqsave(&s->lock, flags);
	b = etw_next_locked(s, *cursor);
	if (!b) {
		bool ended = s->ended;

		raw_spin_unlock_irqrestore(&s->lock, flags);
		return ended ? 0 : -EAGAIN;
	}
	raw_spin_unlock_irqrestore(&s->lock, flags);

	/* Our pending claim keeps @b on the delivered list meanwhile. */
	if (copy_to_user(ubuf, b->data, s->buf_bytes))
		return -EFAULT;

	raw_spin_lock_irqsave(&s->lock, flags);
	b->read_once = true;
	WRITE_ONCE(*cursor, b->dseq + 1);
	recycle = etw_buffer_unclaim_locked(s, b);
	raw_spin_unlock_irqrestore(&s->lock, flags);
	if (recycle)
		etw_buffer_recycle(s, b);
	return s->buf_bytes;
}
EXPORT_SYMBOL_IF_KUNIT(etw_consumer_read);

/**
 * struct etw_consumer - one consumer file
 * @session: the session it reads
 * @read_lock: serialises read(): two threads, or a parent and a forked
 *	child, share one cursor, and each buffer may be claimed once
 * @cursor: the next delivery number to read; protected by @read_lock,
 *	read locklessly by poll() (a stale value only makes poll early or
 *	late by one buffer; read() decides)
 */
struct etw_consumer {
	struct etw_session *session;
	struct mutex read_lock;	/* serialises read(), see above */
	u64 cursor;
};

static ssize_t etw_consumer_fop_read(struct file *file, char __user *buf,
				     size_t len, loff_t *ppos)
{
	struct etw_consumer *c = file->private_data;
	struct etw_session *s = c->session;
	ssize_t ret;

	if (mutex_lock_interruptible(&c->read_lock))
		return -ERESTARTSYS;
	for (;;) {
		ret = etw_consumer_read(s, &c->cursor, buf, len);
		if (ret != -EAGAIN || (file->f_flags & O_NONBLOCK))
			break;
		if (wait_event_interruptible(s->cwait,
					     etw_consumer_readable(s, c->cursor))) {
			ret = -ERESTARTSYS;
			break;
		}
	}
	mutex_unlock(&c->read_lock);
	return ret;
}

static __poll_t etw_consumer_fop_poll(struct file *file, poll_table *wait)
{
	struct etw_consumer *c = file->private_data;

	poll_wait(file, &c->session->cwait, wait);
	/* Readable: a buffer waits, or the session ended (read gives 0). */
	return etw_consumer_readable(c->session, READ_ONCE(c->cursor)) ?
	       EPOLLIN | EPOLLRDNORM : 0;
}

/*
 * ETW_IOC_CONSUMER_STATS is the one command; as on /dev/etw, the size its
 * number encodes does not matter.
 */
static long etw_consumer_ioctl(struct etw_session *s, unsigned int cmd,
			       void __user *uarg)
{
	struct etw_consumer_stats_args a;
	u32 usize;
	int ret;

	if (ETW_IOC_ANYSIZE(cmd) != ETW_IOC_ANYSIZE(ETW_IOC_CONSUMER_STATS))
		return -ENOTTY;
	ret = etw_args_in(&a, sizeof(a), ETW_CONSUMER_STATS_ARGS_SIZE_VER0,
			  uarg, &usize);
	if (ret)
		return ret;
	if (a.flags)
		return -EINVAL;
	etw_session_stats_fill(s, &a.stats);
	return etw_args_out(uarg, &a, sizeof(a), usize);
}

static long etw_consumer_fop_ioctl(struct file *file, unsigned int cmd,
				   unsigned long arg)
{
	struct etw_consumer *c = file->private_data;

	return etw_consumer_ioctl(c->session, cmd, (void __user *)arg);
}

static int etw_consumer_fop_release(struct inode *inode, struct file *file)
{
	struct etw_consumer *c = file->private_data;

	etw_consumer_detach(c->session, c->cursor);
	etw_session_put(c->session);
	kfree(c);
	return 0;
}

static const struct file_operations etw_consumer_fops = {
	.owner = THIS_MODULE,
	.read = etw_consumer_fop_read,
	.poll = etw_consumer_fop_poll,
	.unlocked_ioctl = etw_consumer_fop_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.release = etw_consumer_fop_release,
	.llseek = noop_llseek,
};

/**
 * etw_consumer_open() - ETW_IOC_CONSUME
 * @f: the caller's file
 * @logger_id: the session
 * @flags: O_CLOEXEC and O_NONBLOCK only
 *
 * The caller's own rights must cover what the session's records may show
 * (etw_viewer_covers()): controlling a session is not enough to read it.
 * Checked here only, as for any file: the descriptor, passed on, reads
 * with the opener's rights.
 *
 * Context: process context; takes etw_mutex.
 * Return: a new file descriptor, -EINVAL, -ENOENT, -EPERM (no privilege
 * for a global session, or rights that do not cover its records), -ENOMEM
 * or -EMFILE.
 */
int etw_consumer_open(struct etw_file *f, u32 logger_id, u32 flags)
{
	struct etw_viewer reader;
	struct etw_consumer *c;
	struct etw_session *s;
	int ret;

	if (flags & ~(O_CLOEXEC | O_NONBLOCK))
		return -EINVAL;
	s = etw_session_find(f, logger_id);
	if (IS_ERR(s))
		return PTR_ERR(s);
	etw_viewer_init(&reader);
	if (!etw_viewer_covers(&s->viewer, &reader)) {
		ret = -EPERM;
		goto out_put_session;
	}
	c = kzalloc(sizeof(*c), GFP_KERNEL_ACCOUNT);
	if (!c) {
		ret = -ENOMEM;
		goto out_put_session;
	}
	c->session = s;
	mutex_init(&c->read_lock);
	c->cursor = etw_consumer_attach(s);
	ret = anon_inode_getfd("etw-consumer", &etw_consumer_fops, c,
			       O_RDONLY | flags);
	if (ret < 0)
		goto out_detach;
	return ret;

out_detach:
	etw_consumer_detach(s, c->cursor);
	kfree(c);
out_put_session:
	etw_session_put(s);
	return ret;
}
