// SPDX-License-Identifier: GPL-2.0
/*
 * etw_session.c - the session table and session control.
 *
 * Global sessions (logger ids 1..64) need etw_may_control() for every
 * operation and outlive the process that started them.  Private sessions
 * (ETW_MODE_PRIVATE, logger ids above 64) need no privilege, are visible
 * only to their process, at most ETW_MAX_PRIVATE_SESSIONS per process,
 * and stop when the /dev/etw file that started them is closed.
 * Consumer files are in etw_consumer.c, the buffers in etw_buffer.c.
 */
#include <linux/idr.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/timekeeping.h>

#include "compat.h"
#include "etw_buffer.h"
#include "etw_internal.h"
#include "etw_trace.h"

#define ETW_DEFAULT_BUFFER_KB		64
#define ETW_DEFAULT_SPARE_BUFFERS	20
#define ETW_DEFAULT_RT_FLUSH_MS		1000
/* Anyone may start private sessions: their timers run no more often. */
#define ETW_MIN_PRIVATE_FLUSH_MS	100
#define ETW_MAX_SESSION_BYTES		(256UL << 20)
#define ETW_MAX_PRIVATE_BYTES		(32UL << 20)
#define ETW_FIRST_PRIVATE_ID		(ETW_MAX_GLOBAL_SESSIONS + 1)
#define ETW_KNOWN_MODES			(ETW_MODE_REAL_TIME | ETW_MODE_BUFFERING | \
					 ETW_MODE_PRIVATE | ETW_MODE_INDEPENDENT | \
					 ETW_MODE_NO_PER_PROCESSOR | \
					 ETW_MODE_SYSTEM_LOGGER)

/* Protected by etw_mutex. */
static struct etw_session *etw_globals[ETW_MAX_GLOBAL_SESSIONS];
static LIST_HEAD(etw_privates);
static DEFINE_IDA(etw_private_ids);

static void etw_session_free(struct kref *ref)
{
	struct etw_session *s = container_of(ref, struct etw_session, ref);

	etw_buffers_free(s);
	kfree(s->streams);
	kfree(s->disallow);
	put_pid(s->owner_tgid);
	kfree(s);
	module_put(THIS_MODULE);
}

/**
 * etw_session_put() - drop a session reference
 * @s: the session
 *
 * Context: process context, may sleep (the last reference frees the
 * buffers).
 */
void etw_session_put(struct etw_session *s)
{
	kref_put(&s->ref, etw_session_free);
}

/**
 * etw_session_stats_fill() - a session's statistics
 * @s: the session
 * @st: out
 *
 * Context: any.
 */
void etw_session_stats_fill(struct etw_session *s,
			    struct etw_session_stats *st)
{
	unsigned long flags;

	memset(st, 0, sizeof(*st));
	raw_spin_lock_irqsave(&s->lock, flags);
	st->buffers = s->nbuffers;
	st->free_buffers = s->nfree;
	st->consumers = s->nconsumers;
	raw_spin_unlock_irqrestore(&s->lock, flags);
	st->events_lost = atomic64_read(&s->events_lost);
	st->buffers_written = atomic64_read(&s->buffers_written);
	st->realtime_buffers_lost = atomic64_read(&s->rt_buffers_lost);
	st->events_written = atomic64_read(&s->events_written);
	st->buffers_overwritten = atomic64_read(&s->buffers_overwritten);
	st->events_overwritten = atomic64_read(&s->events_overwritten);
}
EXPORT_SYMBOL_IF_KUNIT(etw_session_stats_fill);

/* A private session belongs to the program image that started it. */
static bool etw_session_visible(const struct etw_session *s)
{
	if (etw_session_is_private(s))
		return s->owner_tgid == task_tgid(current) &&
		       s->owner_exec_id == READ_ONCE(current->self_exec_id);
	return true;
}

static struct etw_session *etw_find_locked(u32 logger_id, const char *name,
					   bool globals)
{
	struct etw_session *s;
	int i;

	lockdep_assert_held(&etw_mutex);
	list_for_each_entry(s, &etw_privates, node) {
		if (!etw_session_is_private(s) || !etw_session_visible(s))
			continue;
		if (name[0] ? !strcasecmp(s->name, name) : s->logger_id == logger_id)
			return s;
	}
	for (i = 0; globals && i < ETW_MAX_GLOBAL_SESSIONS; i++) {
		s = etw_globals[i];
		if (!s)
			continue;
		if (name[0] ? !strcasecmp(s->name, name) : s->logger_id == logger_id)
			return s;
	}
	return NULL;
}

/*
 * Find a session the caller may control; returns a reference.  A caller
 * without privilege gets -EPERM for every name that is not one of its
 * private sessions and every global logger id, whether such a global
 * session exists or not: the error must not tell.
 */
static struct etw_session *etw_lookup(u32 logger_id, const char *name, int *err)
{
	bool control = etw_may_control();
	struct etw_session *s;

	mutex_lock(&etw_mutex);
	s = etw_find_locked(logger_id, name, control);
	if (s)
		kref_get(&s->ref);
	mutex_unlock(&etw_mutex);
	if (s)
		*err = 0;
	else if (!control && (name[0] || logger_id - 1 < ETW_MAX_GLOBAL_SESSIONS))
		*err = -EPERM;
	else
		*err = -ENOENT;
	return s;
}

/**
 * etw_session_find() - a session by logger id, for the caller
 * @f: the caller's file
 * @logger_id: the session
 *
 * Context: process context; takes etw_mutex.
 * Return: a referenced session, or an ERR_PTR: -ENOENT when it does not
 * exist or is another process's private session, -EPERM for a global
 * session without privilege.
 */
struct etw_session *etw_session_find(struct etw_file *f, u32 logger_id)
{
	struct etw_session *s;
	int err;

	s = etw_lookup(logger_id, "", &err);
	return s ?: ERR_PTR(err);
}

static int etw_config_check(struct etw_session_config *c, bool private)
{
	u64 bytes, limit = private ? ETW_MAX_PRIVATE_BYTES : ETW_MAX_SESSION_BYTES;
	u32 streams;

	if (c->reserved || (c->mode & ~ETW_KNOWN_MODES))
		return -EINVAL;
	if ((c->mode & ETW_MODE_BUFFERING) && (c->mode & ETW_MODE_REAL_TIME))
		return -EINVAL;
	if ((c->mode & ETW_MODE_PRIVATE) &&
	    (c->mode & (ETW_MODE_INDEPENDENT | ETW_MODE_REAL_TIME)))
		return -EINVAL;
	if (!c->buffer_kb)
		c->buffer_kb = ETW_DEFAULT_BUFFER_KB;
	if (c->buffer_kb > ETW_MAX_BUFFER_KB)
		return -EINVAL;
	c->buffer_kb = max_t(u32, c->buffer_kb, ETW_MIN_BUFFER_KB);
	streams = (c->mode & ETW_MODE_NO_PER_PROCESSOR) ? 1 : nr_cpu_ids;
	c->min_buffers = max(c->min_buffers, 2 * streams);
	/*
	 * ETW's default maximum: the buffers a writer fills while the
	 * consumer or file logger catches up.
	 */
	if (!c->max_buffers)
		c->max_buffers = c->min_buffers + ETW_DEFAULT_SPARE_BUFFERS;
	if (c->mode & ETW_MODE_BUFFERING)
		c->max_buffers = c->min_buffers;
	c->max_buffers = max(c->max_buffers, c->min_buffers);
	bytes = (u64)c->buffer_kb * 1024;
	if (bytes * c->min_buffers > limit || c->min_buffers > ETW_MAX_BUFFERS)
		return -EINVAL;
	c->max_buffers = min_t(u64, c->max_buffers,
			       min_t(u64, div64_u64(limit, bytes), ETW_MAX_BUFFERS));
	if (!c->flush_timer_ms && (c->mode & ETW_MODE_REAL_TIME))
		c->flush_timer_ms = ETW_DEFAULT_RT_FLUSH_MS;
	if (c->mode & ETW_MODE_BUFFERING)
		c->flush_timer_ms = 0;
	if (private && c->flush_timer_ms)
		c->flush_timer_ms = max_t(u32, c->flush_timer_ms,
					  ETW_MIN_PRIVATE_FLUSH_MS);
	return 0;
}

static void etw_flush_work(struct work_struct *work)
{
	struct etw_session *s = container_of(to_delayed_work(work),
					     struct etw_session, flush_work);
	u32 ms = READ_ONCE(s->cfg.flush_timer_ms);

	/* Staged events are due too. */
	etw_batch_drain_session(s);
	etw_buffers_seal_all(s, true);
	if (ms && !READ_ONCE(s->stopped))
		schedule_delayed_work(&s->flush_work, msecs_to_jiffies(ms));
}

/**
 * etw_session_init() - set up a zeroed session and allocate its streams
 * and buffers
 * @s: the session, zero-filled and not yet visible to anyone
 * @name: its name (truncated to ETW_MAX_NAME_LEN characters)
 * @cfg: its configuration, as etw_config_check() completed it
 *
 * The session holds one reference and is in no table.  The KUnit helper
 * etw_test_session() builds its sessions with this too, so that they are
 * the sessions ETW_IOC_START makes.
 *
 * Context: process context, may sleep.
 * Return: 0, or -ENOMEM with nothing left allocated but @s itself.
 */
int etw_session_init(struct etw_session *s, const char *name,
		     const struct etw_session_config *cfg)
{
	unsigned int i;

	kref_init(&s->ref);
	strscpy(s->name, name, sizeof(s->name));
	s->cfg = *cfg;
	s->buf_bytes = cfg->buffer_kb * 1024;
	s->owner_uid = current_uid();
	etw_viewer_init(&s->viewer);
	INIT_LIST_HEAD(&s->node);
	raw_spin_lock_init(&s->lock);
	INIT_LIST_HEAD(&s->free);
	INIT_LIST_HEAD(&s->retained);
	INIT_LIST_HEAD(&s->delivered);
	init_waitqueue_head(&s->cwait);
	INIT_DELAYED_WORK(&s->flush_work, etw_flush_work);
	s->nstreams = (s->cfg.mode & ETW_MODE_NO_PER_PROCESSOR) ? 1 : nr_cpu_ids;
	s->streams = kcalloc(s->nstreams, sizeof(*s->streams), GFP_KERNEL_ACCOUNT);
	if (!s->streams)
		return -ENOMEM;
	for (i = 0; i < s->nstreams; i++) {
		raw_spin_lock_init(&s->streams[i].lock);
		s->streams[i].cpu = i;
	}
	if (etw_buffers_alloc(s)) {
		kfree(s->streams);
		s->streams = NULL;
		return -ENOMEM;
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(etw_session_init);

static struct etw_session *etw_session_alloc(const struct etw_session_args *a)
{
	struct etw_session *s;

	s = kzalloc(sizeof(*s), GFP_KERNEL_ACCOUNT);
	if (!s)
		return NULL;
	if (etw_session_init(s, a->name, &a->config)) {
		kfree(s);
		return NULL;
	}
	return s;
}

static int etw_private_count(void)
{
	struct etw_session *s;
	int n = 0;

	list_for_each_entry(s, &etw_privates, node)
		n += s->owner_tgid == task_tgid(current);
	return n;
}

/* Give @s a logger id and make it findable. */
static int etw_session_insert(struct etw_file *f, struct etw_session *s)
{
	int i, id;

	lockdep_assert_held(&etw_mutex);
	if (etw_session_is_private(s)) {
		struct etw_session *o;

		list_for_each_entry(o, &etw_privates, node)
			if (o->owner_tgid == task_tgid(current) &&
			    !strcasecmp(o->name, s->name))
				return -EEXIST;
		if (etw_private_count() >= ETW_MAX_PRIVATE_SESSIONS)
			return -ENOSPC;
		id = ida_alloc_range(&etw_private_ids, ETW_FIRST_PRIVATE_ID,
				     U16_MAX - 1, GFP_KERNEL);
		if (id < 0)
			return id == -ENOSPC ? -ENOSPC : id;
		s->logger_id = id;
		s->owner_file = f;
		s->owner_tgid = get_pid(task_tgid(current));
		s->owner_exec_id = READ_ONCE(current->self_exec_id);
		list_add_tail(&s->node, &etw_privates);
		return 0;
	}
	for (i = 0; i < ETW_MAX_GLOBAL_SESSIONS; i++)
		if (etw_globals[i] &&
		    (!strcasecmp(etw_globals[i]->name, s->name) ||
		     (s->kernel_logger && etw_globals[i]->kernel_logger)))
			return -EEXIST;
	for (i = 0; i < ETW_MAX_GLOBAL_SESSIONS; i++) {
		if (!etw_globals[i]) {
			etw_globals[i] = s;
			s->logger_id = i + 1;
			return 0;
		}
	}
	return -ENOSPC;
}

static void etw_session_fill(struct etw_session *s, struct etw_session_args *a)
{
	a->logger_id = s->logger_id;
	strscpy(a->name, s->name, sizeof(a->name));
	a->config = s->cfg;
	etw_session_stats_fill(s, &a->stats);
	/* In the caller's PID namespace; 0 when not visible there. */
	a->owner_pid = s->owner_tgid ? pid_vnr(s->owner_tgid) : 0;
	a->owner_uid = from_kuid_munged(current_user_ns(), s->owner_uid);
	a->start_time_ns = s->start_ns;
}

static int etw_name_check(const struct etw_session_args *a)
{
	size_t len = strnlen(a->name, sizeof(a->name));

	if (len == sizeof(a->name))
		return -ENAMETOOLONG;
	return memchr_inv(a->name + len, 0, sizeof(a->name) - len) ? -EINVAL : 0;
}

static void etw_session_stop_locked(struct etw_session *s);

/**
 * etw_session_start() - ETW_IOC_START
 * @f: the caller's file (owner of a private session)
 * @a: the arguments; filled in with the started session
 *
 * A kernel logger (etw_klogger_check()) is hooked and run down once it is
 * in the table, before the call returns; when that fails it is stopped.
 *
 * Context: process context, may sleep; takes etw_klogger_lock() for a
 * kernel logger, then etw_mutex.
 * Return: 0, -EINVAL (bad name, flags or properties), -ENAMETOOLONG,
 * -EPERM (global without privilege), -EEXIST (name in use, or a kernel
 * logger runs), -ENOSPC (64 global or 4 private sessions), -ENOMEM,
 * -EOPNOTSUPP (the kernel lacks a tracepoint the kernel logger needs).
 */
int etw_session_start(struct etw_file *f, struct etw_session_args *a)
{
	bool private = a->config.mode & ETW_MODE_PRIVATE;
	struct etw_session *s;
	int ret, klog;

	if (a->flags || a->reserved || !a->name[0])
		return -EINVAL;
	ret = etw_name_check(a);
	if (ret)
		return ret;
	klog = etw_klogger_check(a->name, &a->config);
	if (klog < 0)
		return klog;
	ret = etw_config_check(&a->config, private);
	if (ret)
		return ret;
	if (!private && !etw_may_control())
		return -EPERM;
	s = etw_session_alloc(a);
	if (!s)
		return -ENOMEM;
	s->kernel_logger = klog;

	if (klog)
		etw_klogger_lock();
	mutex_lock(&etw_mutex);
	ret = etw_session_insert(f, s);
	if (ret) {
		mutex_unlock(&etw_mutex);
		if (klog)
			etw_klogger_unlock();
		etw_buffers_free(s);
		kfree(s->streams);
		kfree(s);
		return ret;
	}
	__module_get(THIS_MODULE);
	s->start_ns = ktime_get_ns();
	if (s->cfg.flush_timer_ms)
		schedule_delayed_work(&s->flush_work,
				      msecs_to_jiffies(s->cfg.flush_timer_ms));
	trace_etw_session_start(s);
	etw_session_fill(s, a);
	mutex_unlock(&etw_mutex);
	if (!klog)
		return 0;
	ret = etw_klogger_begin(s);
	if (ret) {
		mutex_lock(&etw_mutex);
		etw_session_stop_locked(s);
		mutex_unlock(&etw_mutex);
		etw_session_put(s);	/* the table's reference */
	}
	etw_klogger_unlock();
	return ret;
}

/* Stop @s: unroute it, seal and hand out its buffers, unlist it. */
static void etw_session_stop_locked(struct etw_session *s)
{
	unsigned long flags;

	lockdep_assert_held(&etw_mutex);
	WRITE_ONCE(s->stopped, true);
	etw_provider_session_gone(s);
	cancel_delayed_work_sync(&s->flush_work);
	etw_buffers_seal_all(s, true);
	etw_buffers_release_retained(s);
	etw_consumer_discard_unread(s);
	/* Only now may consumers see end of file: every buffer is queued. */
	raw_spin_lock_irqsave(&s->lock, flags);
	s->ended = true;
	raw_spin_unlock_irqrestore(&s->lock, flags);
	wake_up_interruptible(&s->cwait);
	trace_etw_session_stop(s);
	if (etw_session_is_private(s)) {
		list_del_init(&s->node);
		ida_free(&etw_private_ids, s->logger_id);
	} else {
		etw_globals[s->logger_id - 1] = NULL;
	}
}

/*
 * The maximum buffer count @max asks for, within the session's memory
 * limit; 0 when it cannot change.  It can only grow (the buffers are
 * allocated), and not for a flight recorder (its ring is the minimum) or
 * a private session (ETW lets those change only the file and the timer).
 */
static u32 etw_update_max_buffers(struct etw_session *s, u32 max)
{
	u64 limit = min_t(u64, div64_u64(ETW_MAX_SESSION_BYTES, s->buf_bytes),
			  ETW_MAX_BUFFERS);

	lockdep_assert_held(&etw_mutex);
	if (!max || max == s->cfg.max_buffers)
		return s->cfg.max_buffers;
	if (max < s->cfg.max_buffers || etw_session_is_private(s) ||
	    (s->cfg.mode & ETW_MODE_BUFFERING))
		return 0;
	return max_t(u64, s->cfg.max_buffers, min_t(u64, max, limit));
}

/*
 * Apply an UPDATE's @c (with ETW_UPDATE_ENABLE_FLAGS in @flags, the kernel
 * logger's new flags, which etw_klogger_update_prepare() has hooked).
 * Everything that can fail comes first: a failed update changes nothing.
 */
static int etw_session_update(struct etw_session *s,
			      const struct etw_session_config *c, u32 flags)
{
	struct etw_session_config *cur = &s->cfg;
	u32 mode_change = c->mode ^ cur->mode;
	u32 max = etw_update_max_buffers(s, c->max_buffers);
	bool set_flags = flags & ETW_UPDATE_ENABLE_FLAGS;
	u32 flush;
	int ret;

	if (c->reserved || c->reserved3 || (set_flags && !s->kernel_logger) ||
	    (!set_flags && c->enable_flags &&
	     c->enable_flags != cur->enable_flags) ||
	    (c->buffer_kb && c->buffer_kb != cur->buffer_kb) ||
	    (c->min_buffers && c->min_buffers != cur->min_buffers) || !max)
		return -EINVAL;
	if (c->mode && (mode_change & ~ETW_MODE_REAL_TIME))
		return -EINVAL;
	if (c->mode && etw_session_is_private(s) && mode_change)
		return -EINVAL;
	if (c->mode && (c->mode & ETW_MODE_REAL_TIME) &&
	    (cur->mode & ETW_MODE_BUFFERING))
		return -EINVAL;
	/* First what can fail, so that a failed update changes nothing. */
	if (max > cur->max_buffers) {
		ret = etw_buffers_grow(s, max - cur->max_buffers);
		if (ret)
			return ret;
		cur->max_buffers = max;
	}
	/* The probes' own copy changes at the commit, after etw_mutex. */
	if (set_flags)
		cur->enable_flags = c->enable_flags;
	/* Writers read the mode without etw_mutex. */
	if (c->mode)
		WRITE_ONCE(cur->mode, c->mode);
	flush = c->flush_timer_ms;
	/* Real time on: the default timer, as at START, if it has none. */
	if (!flush && !cur->flush_timer_ms && (cur->mode & ETW_MODE_REAL_TIME))
		flush = ETW_DEFAULT_RT_FLUSH_MS;
	if (flush && etw_session_is_private(s))
		flush = max_t(u32, flush, ETW_MIN_PRIVATE_FLUSH_MS);
	if (flush && !(cur->mode & ETW_MODE_BUFFERING)) {
		WRITE_ONCE(cur->flush_timer_ms, flush);
		mod_delayed_work(system_wq, &s->flush_work,
				 msecs_to_jiffies(flush));
	}
	return 0;
}

/**
 * etw_session_control() - stop, query, update or flush a session
 * @f: the caller's file
 * @cmd: ETW_IOC_STOP, _QUERY, _UPDATE or _FLUSH
 * @a: the arguments, naming the session; filled in on return
 *
 * An UPDATE with %ETW_UPDATE_ENABLE_FLAGS changes a kernel logger's flags
 * in two steps around the rest of the update: the tracepoints the new
 * flags add are hooked first (etw_klogger_update_prepare()), and unhooked
 * again when the update fails; once it succeeded, the flags take effect,
 * those turned on run down and those turned off are unhooked
 * (etw_klogger_update_commit()).
 *
 * Context: process context, may sleep; takes etw_mutex (and, to stop or
 * update the kernel logger, etw_klogger_lock() first).
 * Return: 0, -ENOENT, -EPERM, -EINVAL (update of something that cannot
 * change, %ETW_UPDATE_ENABLE_FLAGS for another session or with an unknown
 * flag, non-zero reserved fields), -ENOMEM (update: the added buffers, the
 * probes' registration), -EOPNOTSUPP (update: the kernel lacks a
 * tracepoint the new flags need).
 */
int etw_session_control(struct etw_file *f, unsigned int cmd,
			struct etw_session_args *a)
{
	bool set_flags = cmd == ETW_IOC_UPDATE &&
			 a->flags == ETW_UPDATE_ENABLE_FLAGS;
	struct etw_session *s;
	bool klog;
	int ret;

	if ((a->flags && !set_flags) || a->reserved ||
	    memchr_inv(a->pad, 0, sizeof(a->pad)))
		return -EINVAL;
	ret = etw_name_check(a);
	if (ret)
		return ret;
	s = etw_lookup(a->logger_id, a->name, &ret);
	if (!s)
		return ret;
	/*
	 * What threads staged before a flush is in the session; at a stop,
	 * unrouting the session drains the files it reached (etw_change.c).
	 */
	if (cmd == ETW_IOC_FLUSH)
		etw_batch_drain_session(s);
	/*
	 * The kernel logger's rundowns read memory: not under etw_mutex.  Its
	 * probes are hooked before etw_mutex too, as at start.
	 */
	klog = (cmd == ETW_IOC_STOP || set_flags) && s->kernel_logger;
	if (klog) {
		etw_klogger_lock();
		if (cmd == ETW_IOC_STOP)
			etw_klogger_end(s);
		else
			ret = etw_klogger_update_prepare(s,
							 a->config.enable_flags);
		if (ret) {
			etw_klogger_unlock();
			etw_session_put(s);
			return ret;
		}
	}

	mutex_lock(&etw_mutex);
	if (s->stopped) {
		ret = -ENOENT;
		goto out_unlock;
	}
	switch (cmd) {
	case ETW_IOC_STOP:
		etw_session_stop_locked(s);
		etw_session_fill(s, a);
		mutex_unlock(&etw_mutex);
		if (klog)
			etw_klogger_unlock();
		etw_session_put(s);	/* the table's reference */
		etw_session_put(s);
		return 0;
	case ETW_IOC_UPDATE:
		ret = etw_session_update(s, &a->config, a->flags);
		break;
	case ETW_IOC_FLUSH:
		etw_buffers_seal_all(s, true);
		etw_buffers_release_retained(s);
		break;
	default:
		break;
	}
	if (!ret)
		etw_session_fill(s, a);
out_unlock:
	mutex_unlock(&etw_mutex);
	if (klog && set_flags && !ret)
		etw_klogger_update_commit(s);
	else if (klog && set_flags)
		etw_klogger_update_abort(s);
	if (klog)
		etw_klogger_unlock();
	etw_session_put(s);
	return ret;
}

/**
 * etw_session_list() - logger ids of the sessions visible to the caller
 * @f: the caller's file
 * @ids: out: up to @count ids
 * @count: in: room in @ids; out: sessions visible
 *
 * Context: process context; takes etw_mutex.
 * Return: 0.
 */
int etw_session_list(struct etw_file *f, u32 *ids, u32 *count)
{
	bool control = etw_may_control();
	struct etw_session *s;
	u32 n = 0;
	int i;

	mutex_lock(&etw_mutex);
	for (i = 0; control && i < ETW_MAX_GLOBAL_SESSIONS; i++) {
		if (!etw_globals[i])
			continue;
		if (n < *count)
			ids[n] = etw_globals[i]->logger_id;
		n++;
	}
	list_for_each_entry(s, &etw_privates, node) {
		if (!etw_session_visible(s))
			continue;
		if (n < *count)
			ids[n] = s->logger_id;
		n++;
	}
	mutex_unlock(&etw_mutex);
	*count = n;
	return 0;
}

/**
 * etw_session_set_disallow() - ETW_IOC_SET_DISALLOW
 * @f: the caller's file
 * @logger_id: the session
 * @guids: the list (kmalloc'ed; ownership passes), or NULL
 * @count: entries
 *
 * Context: process context; takes etw_mutex.
 * Return: 0, -ENOENT, -EPERM, -ENOMEM (the list is unchanged).
 */
int etw_session_set_disallow(struct etw_file *f, u32 logger_id,
			     struct etw_guid *guids, u32 count)
{
	struct etw_session *s;
	int ret;

	s = etw_lookup(logger_id, "", &ret);
	if (!s) {
		kfree(guids);
		return ret;
	}
	mutex_lock(&etw_mutex);
	if (s->stopped) {
		/* @guids is freed below, with the list it would have replaced. */
		ret = -ENOENT;
	} else {
		/* Routes copy what they need: only etw_mutex holders read it. */
		swap(s->disallow, guids);
		swap(s->ndisallow, count);
		ret = etw_provider_regroup(s);
		if (ret) {
			swap(s->disallow, guids);
			swap(s->ndisallow, count);
		}
	}
	mutex_unlock(&etw_mutex);
	kfree(guids);
	etw_session_put(s);
	return ret;
}

/**
 * etw_session_get_disallow() - ETW_IOC_GET_DISALLOW
 * @logger_id: the session
 * @guids: out: room for %ETW_MAX_DISALLOW GUIDs
 * @count: out: the GUIDs on the list
 *
 * Context: process context; takes etw_mutex.
 * Return: 0, -ENOENT, -EPERM.
 */
int etw_session_get_disallow(u32 logger_id, struct etw_guid *guids,
			     u32 *count)
{
	struct etw_session *s;
	int ret;

	s = etw_lookup(logger_id, "", &ret);
	if (!s)
		return ret;
	mutex_lock(&etw_mutex);
	*count = s->ndisallow;
	memcpy(guids, s->disallow, s->ndisallow * sizeof(*guids));
	mutex_unlock(&etw_mutex);
	etw_session_put(s);
	return 0;
}

/**
 * etw_sessions_release_file() - stop the private sessions a file started
 * @f: the closing file
 *
 * Context: process context; etw_mutex held.
 */
void etw_sessions_release_file(struct etw_file *f)
{
	struct etw_session *s, *tmp;

	lockdep_assert_held(&etw_mutex);
	list_for_each_entry_safe(s, tmp, &etw_privates, node) {
		if (s->owner_file != f)
			continue;
		etw_session_stop_locked(s);
		s->owner_file = NULL;
		etw_session_put(s);
	}
}

/**
 * etw_sessions_end_image() - execve(): stop the private sessions the old
 *	program image started on a file
 * @f: a file the exec'ing process holds
 *
 * Context: process context, in the process after execve(); etw_mutex held.
 */
void etw_sessions_end_image(struct etw_file *f)
{
	u64 exec_id = READ_ONCE(current->self_exec_id);
	struct etw_session *s, *tmp;

	lockdep_assert_held(&etw_mutex);
	list_for_each_entry_safe(s, tmp, &etw_privates, node) {
		if (s->owner_file != f || s->owner_tgid != task_tgid(current) ||
		    s->owner_exec_id == exec_id)
			continue;
		etw_session_stop_locked(s);
		s->owner_file = NULL;
		etw_session_put(s);
	}
}
