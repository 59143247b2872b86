/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Internal declarations shared by the files of etw.ko.
 *
 * Objects
 * -------
 * etw_file        one open /dev/etw: its provider registrations, the enable
 *                 area it maps, its notification queue, its private sessions.
 * etw_reg         one registration of a provider GUID (user or in-kernel).
 * etw_guid_entry  everything known about one GUID: the sessions enabling it
 *                 as a provider and as a provider group, its registrations
 *                 and its group members.  Exists while any of those does.
 * etw_enable      one session's enable of one GUID (level, keywords, filters).
 * etw_route       per registration, the RCU-published list of sessions its
 *                 events go to, with each session's filter, built from the
 *                 enables of its GUID and of its group.
 * etw_session     a global or private session: per-CPU streams of buffers,
 *                 the sealed buffers waiting for consumers, statistics.
 *
 * Locking
 * -------
 * etw_mutex        Serialises every control operation: the session table,
 *                  the GUID table and all etw_guid_entry/etw_enable contents,
 *                  registration lists, disallow lists, route publication
 *                  and enable-area updates.  Never held across a user copy.
 * RCU              Protects the write path's lookups: etw_file.regs (a flat
 *                  array indexed by registration id) and etw_reg.route.
 *                  Writers run the whole reserve, copy,
 *                  commit sequence inside one RCU read section (with
 *                  preemption off), so synchronize_rcu() after unpublishing
 *                  a session's routes means no writer still uses it.
 * etw_stream       Per-CPU streams take no lock: only their CPU reserves
 *                  in them (preemption off; interrupts may nest), with a
 *                  cmpxchg on the current buffer's state, and any CPU
 *                  seals them with a cmpxchg on etw_stream.cur, then on the
 *                  state (see etw_buffer.c).
 * etw_stream.lock  Raw, irq-safe: ETW_MODE_NO_PER_PROCESSOR streams only;
 *                  serialises reservations so that timestamps stay in
 *                  order across CPUs.  Never held to copy or commit.
 * etw_session.lock Raw, irq-safe: the free, retained and delivered buffer
 *                  lists and the consumer list.  Nests inside
 *                  etw_stream.lock, hence raw too.
 * etw_file.nlock   The notification queue and its sequence numbers.
 * etw_klogger_mutex  Serialises kernel logger starts, updates and stops,
 *                  their probes' registration and their rundowns
 *                  (etw_klogger.c); never taken by a probe.  The
 *                  logger's ended_lock is a leaf.
 * etw_batch.lock   A staging ring's drains (etw_batch.c); the rings'
 *                  lists are etw_file.batch_mutex's and etw_batch_mutex's,
 *                  the owners hash etw_batch_lock's, never held with it.
 * etw_consumer.read_lock  One consumer file's reads (etw_consumer.c).
 *
 * Order: etw_klogger_mutex -> etw_mutex -> etw_file.batch_mutex ->
 * etw_batch.lock -> etw_stream.lock -> etw_session.lock;
 * etw_batch_mutex -> etw_batch.lock; etw_klogger_mutex -> mmap_lock (a
 * rundown) -> etw_stream.lock; etw_klogger_mutex -> cpu_hotplug_lock (the
 * CPU sampler's hotplug state); etw_consumer.read_lock -> etw_session.lock.
 * etw_batch_lock, etw_file.nlock and etw_ack_wq are leaves.
 */
#ifndef _ETW_INTERNAL_H
#define _ETW_INTERNAL_H

#include <linux/fs.h>
#include <linux/bits.h>
#include <linux/kref.h>
#include <linux/irq_work.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/nospec.h>
#include <linux/pid.h>
#include <linux/rcupdate.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/uidgid.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/etw.h>

#include "etw_filter.h"

struct etw_session;
struct etw_stream;
struct etw_notify_node;

extern const struct file_operations etw_fops;
extern struct mutex etw_mutex;
extern wait_queue_head_t etw_ack_wq;

/* --- files --------------------------------------------------------------- */

/**
 * struct etw_file - one open /dev/etw
 * @ref: the open file and every waiter on its notifications
 * @regs: %ETW_MAX_REGISTRATIONS slots, registration id - 1 -> etw_reg;
 *	changed under etw_mutex, read under RCU (see etw_file_reg())
 * @nregs: registrations on this file; protected by etw_mutex
 * @enable_map: what user space maps at %ETW_MMAP_ENABLE; written under
 *	etw_mutex
 * @nlock: protects @notifications, @reading, @nqueued, @nbytes, @seq,
 *	@read_seq, @acked_seq and each registration's @nqueued
 * @notifications: queued struct etw_notify_node, oldest first
 * @reading: the nodes read() took off @notifications and is copying out;
 *	the reader owns them, unregistering only detaches them
 * @nqueued: entries in @notifications
 * @nbytes: bytes of the entries in @notifications
 * @seq: last sequence number handed out
 * @read_seq: highest sequence number read()
 * @acked_seq: every notification up to this one is handled
 * @nwait: read() and poll() wait here for notifications
 * @released: the file was closed; protected by etw_mutex
 * @batch_mutex: protects @batches
 * @batches: staging rings opened on it (etw_batch.c)
 */
struct etw_file {
	struct kref ref;
	struct etw_reg __rcu **regs;
	unsigned int nregs;
	struct etw_enable_state *enable_map;
	spinlock_t nlock;	/* the notification queue, see above */
	struct list_head notifications;
	struct list_head reading;
	unsigned int nqueued;
	size_t nbytes;
	u64 seq;
	u64 read_seq;
	u64 acked_seq;
	wait_queue_head_t nwait;
	bool released;
	struct mutex batch_mutex;	/* @batches */
	struct list_head batches;
};

/* What user space maps at %ETW_MMAP_ENABLE: one entry per registration. */
#define ETW_ENABLE_MAP_SIZE \
	PAGE_ALIGN(ETW_MAX_REGISTRATIONS * sizeof(struct etw_enable_state))

/* A command without the argument size its number encodes. */
#define ETW_IOC_ANYSIZE(cmd)	((cmd) & ~(_IOC_SIZEMASK << _IOC_SIZESHIFT))

/* etw_file.c */
struct etw_file *etw_file_alloc(void);
void etw_file_put(struct etw_file *f);
int etw_args_in(void *k, size_t ksize, size_t min, const void __user *u,
		u32 *usize);
int etw_args_out(void __user *u, void *k, size_t ksize, u32 usize);

/**
 * etw_file_reg() - look up a registration by id
 * @f: the file
 * @id: the registration id (1-based), as passed by user space
 *
 * Context: RCU read section or etw_mutex held.
 * Return: the registration, or NULL.
 */
static inline struct etw_reg *etw_file_reg(struct etw_file *f, u32 id)
{
	if (id - 1 >= ETW_MAX_REGISTRATIONS)
		return NULL;
	id = array_index_nospec(id - 1, ETW_MAX_REGISTRATIONS);
	return rcu_dereference_check(f->regs[id],
				     lockdep_is_held(&etw_mutex));
}

/* --- providers ----------------------------------------------------------- */

/* Route entries: a GUID's global sessions, its group's, the owner's private. */
#define ETW_MAX_ROUTE \
	(2 * ETW_MAX_SESSIONS_PER_PROVIDER + ETW_MAX_PRIVATE_SESSIONS)

/* Enables one private session may hold. */
#define ETW_MAX_PRIVATE_ENABLES	1024

/* A PID filter entry for a process the controller cannot see. */
#define ETW_PID_NONE		U32_MAX

/* The provider name in a traits blob follows its 16-bit size. */
#define ETW_TRAITS_NAME_OFFSET	2

/* Beside the ETW_CONTROL_* codes: no notification is due. */
#define ETW_CONTROL_NONE	(-1)

/* The properties that add extended data items to records. */
#define ETW_ENABLE_EXT_PROPS \
	(ETW_ENABLE_SID | ETW_ENABLE_TS_ID | ETW_ENABLE_STACK_TRACE | \
	 ETW_ENABLE_PROCESS_START_KEY | ETW_ENABLE_EVENT_KEY | \
	 ETW_ENABLE_SOURCE_CONTAINER_TRACKING)

/* In etw_route.ext: an entry has a payload filter (not an item). */
#define ETW_ROUTE_PAYLOAD	BIT(31)
static_assert(!(ETW_ENABLE_EXT_PROPS & ETW_ROUTE_PAYLOAD));

/**
 * struct etw_route - where one registration's events go
 * @rcu: freed after a grace period
 * @count: entries in @e
 * @ext: OR of the entries' @ext, and %ETW_ROUTE_PAYLOAD when an entry has
 *	a payload filter: zero keeps writes on the one-session fast path and
 *	off the extended-data path (etw_ext_items.c)
 * @names: an entry has an event-name or stack name filter: a TraceLogging
 *	event's name is read
 * @payload: an entry has a payload filter: the payload is read before the
 *	event is routed
 * @payload_bytes: how much of it the payload filters read (the largest
 *	etw_payload_filter_extent() of the entries)
 * @payload_firsts: the entries whose payload filter no entry before holds
 *	(one bit per entry): each stands for those that hold the same, whose
 *	instance bits are its @e.payload_mask
 * @inprivate: the instance bits of the entries with
 *	%ETW_ENABLE_EXCLUDE_INPRIVATE: added to the exclude mask of an event
 *	written with %ETW_WRITE_INPRIVATE
 * @every: a filter an event passes only if it passes every entry's level,
 *	keyword and event-ID filters (see etw_route_every()): one test then
 *	stands for those of each entry
 * @e: one entry per target session
 */
struct etw_route {
	struct rcu_head rcu;
	unsigned int count;
	u32 ext;
	bool names;
	bool payload;
	u32 payload_bytes;
	u32 payload_firsts;
	u64 inprivate;
	struct etw_level_kw every;
	struct etw_route_entry {
		struct etw_session *session;
		struct etw_level_kw lk;
		const struct etw_id_filter *ids;
		u64 instance_bit;
		u32 ext;
		u8 session_level;	/* as passed; @lk.level is it normalised */
		u8 stack_lk_filter;	/* ETW_STACK_LK_* */
		const struct etw_id_filter *stack_ids;
		struct etw_level_kw stack_lk;
		const struct etw_name_filter *names;
		const struct etw_name_filter *stack_names;
		const struct etw_payload_set *payload;
		u64 payload_mask;	/* etw_route_payload_share() */
		bool exclude_inprivate;
	} e[];
};

/**
 * struct etw_reg - one provider registration
 * @id: registration id on its file (1-based); 0 for in-kernel providers
 * @file: the file it belongs to, NULL for in-kernel providers
 * @tgid: the registering process, NULL for in-kernel providers
 * @exec_id: the registering program image (task self_exec_id): after
 *	execve() the registration is dead to the process
 * @exe_name: the file name of that image's executable, for
 *	EVENT_FILTER_TYPE_EXECUTABLE_NAME; NULL for in-kernel providers and
 *	processes without one
 * @guid: provider GUID
 * @cookie: returned in notifications
 * @classic: registered with RegisterTraceGuids semantics
 * @guid_entry: the GUID's entry; protected by etw_mutex
 * @gnode: on @guid_entry's registration list; protected by etw_mutex
 * @group: the group's entry when the traits name one; protected by etw_mutex
 * @mnode: on @group's member list; protected by etw_mutex
 * @traits: the traits blob, set once; read by writers under RCU
 * @traits_len: bytes of @traits
 * @route: published route, NULL when no session takes the events
 * @state: in-kernel providers' combined state (user ones use the file's
 *	enable area)
 * @nqueued: notifications queued for it; protected by its file's nlock
 * @notify: in-kernel providers: told about enable changes (etw_mutex
 *	held); NULL when the provider wants no callback.  User registrations
 *	are notified through their file's queue instead
 * @rcu: freed after a grace period
 */
struct etw_reg {
	u32 id;
	struct etw_file *file;
	struct pid *tgid;
	u64 exec_id;
	const char *exe_name;
	struct etw_guid guid;
	u64 cookie;
	bool classic;
	struct etw_guid_entry *guid_entry;
	struct list_head gnode;
	struct etw_guid_entry *group;
	struct list_head mnode;
	const u8 *traits;
	u16 traits_len;
	struct etw_route __rcu *route;
	struct etw_enable_state state;
	unsigned int nqueued;
	void (*notify)(struct etw_reg *reg, u32 control,
		       const struct etw_combined *c);
	struct rcu_head rcu;
};

/**
 * struct etw_enable - one session's enable of one GUID
 * @session: the session
 * @slot: index in the GUID's table; its bit in EventWriteEx's filter
 * @level: level as passed (0 = all)
 * @properties: ETW_ENABLE_* bits
 * @match_any: MatchAnyKeyword as passed
 * @match_all: MatchAllKeyword as passed
 * @stamp: enable order, for the classic one-session rule
 * @source_id: passed to providers
 * @ids: event-ID filter or NULL
 * @stack_ids: EVENT_FILTER_TYPE_STACKWALK's event-ID filter or NULL
 * @stack_lk_filter: EVENT_FILTER_TYPE_STACKWALK_LEVEL_KW: ETW_STACK_LK_*
 * @stack_lk: its level and keywords, normalised
 * @npids: entries in @pids
 * @pids: PID filter
 * @exe: executable-name filter or NULL
 * @names: event-name filter or NULL
 * @stack_names: EVENT_FILTER_TYPE_STACKWALK_NAME's filter or NULL
 * @payload: EVENT_FILTER_TYPE_PAYLOAD's filter or NULL
 * @filter_size: bytes of @filter_data
 * @filter_data: schematized filter data for providers, or NULL
 * @pnode: private sessions' enables: on the GUID's @private_enables
 * @gone: on a list of unlinked enables freed after an RCU grace period
 */
struct etw_enable {
	struct etw_session *session;
	u8 slot;
	u8 level;
	u32 properties;
	u64 match_any;
	u64 match_all;
	u64 stamp;
	struct etw_guid source_id;
	struct etw_id_filter *ids;
	struct etw_id_filter *stack_ids;
	u8 stack_lk_filter;
	struct etw_level_kw stack_lk;
	u32 npids;
	u32 pids[ETW_MAX_PID_FILTER];
	struct etw_exe_filter *exe;
	struct etw_name_filter *names;
	struct etw_name_filter *stack_names;
	struct etw_payload_set *payload;
	u32 filter_size;
	u8 *filter_data;
	struct list_head pnode;
	struct list_head gone;
};

/**
 * struct etw_guid_entry - what is known about one GUID
 * @node: in the GUID hash table
 * @guid: the GUID
 * @enables: global sessions enabling it as a provider
 * @group_enables: global sessions enabling it as a provider group
 * @private_enables: private sessions enabling it (struct etw_enable.pnode);
 *	these never take one of the eight slots
 * @regs: registrations of it
 * @members: registrations whose traits name it as their group
 * @group_owner: uid of the first member; others need the same uid or
 *	privilege to join (see etw_group_may_join())
 *
 * All fields are protected by etw_mutex.
 */
struct etw_guid_entry {
	struct hlist_node node;
	struct etw_guid guid;
	struct etw_enable *enables[ETW_MAX_SESSIONS_PER_PROVIDER];
	struct etw_enable *group_enables[ETW_MAX_SESSIONS_PER_PROVIDER];
	struct list_head private_enables;
	struct list_head regs;
	struct list_head members;
	kuid_t group_owner;
};

/**
 * etw_reg_is_current() - was a registration made by the calling program
 * @reg: a user registration
 *
 * A fork child, or the same process after execve(), may not use it.
 *
 * Context: any.
 * Return: true when the caller's process and program image made @reg.
 */
static inline bool etw_reg_is_current(const struct etw_reg *reg)
{
	return reg->tgid == task_tgid(current) &&
	       reg->exec_id == READ_ONCE(current->self_exec_id);
}

/**
 * struct etw_waits - the notifications an enabling controller waits for
 * @files: the files, referenced
 * @seqs: the sequence number to wait for on each
 * @n: entries used
 * @cap: entries allocated
 */
struct etw_waits {
	struct etw_file **files;
	u64 *seqs;
	unsigned int n;
	unsigned int cap;
};

void etw_providers_init(void);
int etw_register(struct etw_file *f, struct etw_register_args *a);
int etw_unregister(struct etw_file *f, u32 reg_id);
void etw_providers_release_file(struct etw_file *f);
void etw_providers_end_image(struct etw_file *f);
int etw_register_kernel(struct etw_reg *reg);
void etw_unregister_kernel(struct etw_reg *reg);
void etw_unregister_reg(struct etw_reg *reg);
int etw_set_traits(struct etw_file *f, u32 reg_id, u8 *blob, u16 len);
int etw_set_traits_reg(struct etw_reg *reg, u8 *blob, u16 len);
/**
 * struct etw_enable_filters - ENABLE's filters in kernel memory
 * @ids: event ids, @nids of them (at most %ETW_MAX_EVENT_ID_FILTER)
 * @nids: entries in @ids
 * @ids_in: @ids lists the events let in (else the events kept out)
 * @stack_ids: the stack filter's event ids, @nstack_ids of them
 * @nstack_ids: entries in @stack_ids
 * @stack_ids_in: @stack_ids lists the events whose stacks are captured
 * @pids: process ids, @npids of them
 * @npids: entries in @pids
 * @exe: the executable-name filter, or NULL; etw_enable_alloc() takes it
 * @names: the event-name filter, or NULL; etw_enable_alloc() takes it
 * @stack_names: the stack name filter, or NULL; etw_enable_alloc() takes it
 * @payload: the payload filter, or NULL; etw_enable_alloc() takes it
 * @data: the schematized filter (kmalloc()ed, EVENT_FILTER_HEADER first),
 *	or NULL; etw_enable_alloc() takes it
 * @data_size: bytes at @data
 *
 * etw_dev.c copies them in and checks their format; etw_enable.c builds
 * the enable from them and never reads user memory.
 */
struct etw_enable_filters {
	u16 ids[ETW_MAX_EVENT_ID_FILTER];
	u32 nids;
	bool ids_in;
	u16 stack_ids[ETW_MAX_EVENT_ID_FILTER];
	u32 nstack_ids;
	bool stack_ids_in;
	u32 pids[ETW_MAX_PID_FILTER];
	u32 npids;
	struct etw_exe_filter *exe;
	struct etw_name_filter *names;
	struct etw_name_filter *stack_names;
	struct etw_payload_set *payload;
	void *data;
	u32 data_size;
};

void etw_enable_filters_release(struct etw_enable_filters *in);
struct etw_enable *etw_enable_alloc(const struct etw_enable_args *a,
				    struct etw_enable_filters *in);
int etw_enable(struct etw_session *s, struct etw_enable_args *a,
	       struct etw_enable *e, struct etw_waits *w);
void etw_provider_session_gone(struct etw_session *s);
int etw_provider_regroup(struct etw_session *s);
int etw_list_providers(struct etw_provider_info *info, u32 start,
		       u32 *count, bool all, u32 flags);
int etw_traits_parse(const u8 *blob, u32 len, struct etw_guid *group);

/* --- notifications ------------------------------------------------------- */

struct etw_notify_node *etw_notify_alloc(const struct etw_reg *reg, u32 control,
					 const struct etw_combined *c,
					 const struct etw_guid *source,
					 u32 fsize, u32 fcount, gfp_t gfp);
u8 *etw_notify_filter(struct etw_notify_node *nn);
void etw_notify_free(struct etw_notify_node *nn);
u64 etw_notify_queue(struct etw_reg *reg, struct etw_notify_node *nn);
void etw_notify_drop_reg(struct etw_file *f, struct etw_reg *reg);
ssize_t etw_notify_read(struct etw_file *f, char __user *buf, size_t len,
			bool nonblock);
void etw_notify_ack(struct etw_file *f, u64 seq);
int etw_waits_grow(struct etw_waits *w, unsigned int cap);
void etw_waits_add(struct etw_waits *w, struct etw_file *f, u64 seq);
void etw_waits_release(struct etw_waits *w);
long etw_notify_wait(const struct etw_waits *w, u32 timeout_ms);
void etw_notify_release(struct etw_file *f);

/* --- sessions (their buffers and streams: etw_buffer.h) ------------------ */

/**
 * struct etw_viewer - what a session's records may show its starter
 * @fsuid: the starter's fsuid
 * @fsgid: the starter's fsgid
 * @kaddr: it had CAP_SYSLOG, CAP_PERFMON or CAP_SYS_ADMIN in the initial
 *	user namespace: kernel stacks are recorded, else zeroed
 * @all_tasks: it had CAP_SYS_PTRACE in the initial user namespace: every
 *	process's command line, mappings and user stack are recorded
 *
 * Taken when the session starts (etw_viewer_init()): events are recorded
 * later, in other tasks' contexts.  A consumer's, taken at ETW_IOC_CONSUME,
 * must cover the session's (etw_viewer_covers()).
 */
struct etw_viewer {
	kuid_t fsuid;
	kgid_t fsgid;
	bool kaddr;
	bool all_tasks;
};

/**
 * struct etw_session - a tracing session
 * @ref: the session table, each consumer, each control operation in flight
 * @logger_id: 1..64 for global sessions, above for private ones
 * @name: unique case-insensitively among global sessions (private: within
 *	the owning process)
 * @cfg: properties, after adjustment; @cfg.flush_timer_ms may be updated
 *	under etw_mutex
 * @owner_file: private sessions: the /dev/etw file that started it
 * @owner_tgid: private sessions: the owning process
 * @owner_exec_id: private sessions: the owner's program image (task
 *	self_exec_id); only registrations of the same image are reached
 * @owner_uid: who started it
 * @viewer: what its starter may see: the kernel addresses and other
 *	processes' command lines, mappings and stacks its records carry
 * @start_ns: session clock at start
 * @stopped: no longer routed to; set under etw_mutex
 * @kernel_logger: the kernel logger (etw_klogger.c); set at start
 * @ended: stopped and every last buffer delivered: consumers reach end of
 *	file once they have read them; protected by @lock
 * @disallow: GUIDs excluded from group enables; protected by etw_mutex
 * @ndisallow: entries in @disallow
 * @nenables: GUIDs this session enables; protected by etw_mutex
 * @node: private sessions: on etw_privates (etw_session.c); protected by
 *	etw_mutex
 * @buf_bytes: bytes per buffer
 * @nstreams: entries in @streams
 * @streams: the streams
 * @lock: protects @free, @retained, @delivered, @consumers, @nbuffers,
 *	@nfree, @dseq, @nconsumers
 * @free: unused buffers
 * @retained: buffering mode: sealed buffers kept until a flush
 * @delivered: sealed buffers for consumers, oldest first
 * @chunks: the allocations holding the buffers, for freeing; grows under
 *	etw_mutex
 * @nbuffers: buffers allocated
 * @nfree: entries on @free
 * @nconsumers: open consumer files
 * @dseq: delivery numbers handed out
 * @seq: buffer sequence numbers handed out
 * @cwait: consumers wait here
 * @wake_work: wakes @cwait for a delivery made with interrupts off
 *	(etw_buffer.c)
 * @flush_work: the flush timer
 * @events_lost: statistics, see struct etw_session_stats
 * @events_written: statistics
 * @buffers_written: statistics
 * @rt_buffers_lost: statistics
 * @buffers_overwritten: statistics
 * @events_overwritten: statistics
 * @event_keys: a private session's last EVENT_KEY (it numbers its own
 *	events; see etw_ext_items.c)
 */
struct etw_session {
	struct kref ref;
	u16 logger_id;
	char name[ETW_MAX_NAME_LEN + 1];
	struct etw_session_config cfg;
	struct etw_file *owner_file;
	struct pid *owner_tgid;
	u64 owner_exec_id;
	kuid_t owner_uid;
	struct etw_viewer viewer;
	u64 start_ns;
	bool stopped;
	bool kernel_logger;
	bool ended;
	struct etw_guid *disallow;
	u32 ndisallow;
	u32 nenables;
	struct list_head node;
	u32 buf_bytes;
	unsigned int nstreams;
	struct etw_stream *streams;
	raw_spinlock_t lock;
	struct list_head free;
	struct list_head retained;
	struct list_head delivered;
	struct list_head chunks;
	u32 nbuffers;
	u32 nfree;
	u32 nconsumers;
	u64 dseq;
	atomic64_t seq;
	wait_queue_head_t cwait;
	struct irq_work wake_work;
	struct delayed_work flush_work;
	atomic64_t events_lost;
	atomic64_t events_written;
	atomic64_t buffers_written;
	atomic64_t rt_buffers_lost;
	atomic64_t buffers_overwritten;
	atomic64_t events_overwritten;
	atomic64_t event_keys;
};

static inline bool etw_session_is_private(const struct etw_session *s)
{
	return READ_ONCE(s->cfg.mode) & ETW_MODE_PRIVATE;
}

static inline bool etw_session_independent(const struct etw_session *s)
{
	return READ_ONCE(s->cfg.mode) & ETW_MODE_INDEPENDENT;
}

bool etw_may_control(void);
void etw_viewer_init(struct etw_viewer *v);
bool etw_viewer_may_read(const struct etw_viewer *v, struct task_struct *t,
			 struct mm_struct *mm);
bool etw_viewer_covers(const struct etw_viewer *session,
		       const struct etw_viewer *reader);
struct tracepoint *etw_tracepoint_find(const char *name);
int etw_session_init(struct etw_session *s, const char *name,
		     const struct etw_session_config *cfg);
int etw_session_start(struct etw_file *f, struct etw_session_args *a);
int etw_session_control(struct etw_file *f, unsigned int cmd,
			struct etw_session_args *a);
int etw_session_list(struct etw_file *f, u32 *ids, u32 *count);
struct etw_session *etw_session_find(struct etw_file *f, u32 logger_id);
void etw_session_put(struct etw_session *s);
int etw_session_set_disallow(struct etw_file *f, u32 logger_id,
			     struct etw_guid *guids, u32 count);
int etw_session_get_disallow(u32 logger_id, struct etw_guid *guids,
			     u32 *count);
void etw_session_stats_fill(struct etw_session *s,
			    struct etw_session_stats *st);
void etw_sessions_release_file(struct etw_file *f);
void etw_sessions_end_image(struct etw_file *f);

/* execve() (etw_exec.c) */
int etw_exec_init(void);
void etw_exec_exit(void);
void etw_exec_file_opened(void);
void etw_exec_file_closed(void);

/* the kernel logger (etw_klogger.c) */
int etw_klogger_check(const char *name, const struct etw_session_config *c);
void etw_klogger_lock(void);
void etw_klogger_unlock(void);
int etw_klogger_begin(struct etw_session *s);
void etw_klogger_end(struct etw_session *s);
int etw_klogger_update_prepare(struct etw_session *s, u32 flags);
void etw_klogger_update_abort(struct etw_session *s);
void etw_klogger_update_commit(struct etw_session *s);
int etw_klogger_profile_interval(struct etw_profile_interval_args *a);
int etw_klogger_stack_events(struct etw_file *f,
			     struct etw_stack_events_args *a,
			     struct etw_classic_event_id *ids);
#if IS_ENABLED(CONFIG_KUNIT)
u32 etw_klogger_utf16(u8 *out, u32 max, const char *s, u32 len);
#endif

/* consumer files (etw_consumer.c) */
int etw_consumer_open(struct etw_file *f, u32 logger_id, u32 flags);
ssize_t etw_consumer_read(struct etw_session *s, u64 *cursor,
			  char __user *ubuf, size_t len);
bool etw_consumer_readable(struct etw_session *s, u64 cursor);
u64 etw_consumer_attach(struct etw_session *s);
void etw_consumer_detach(struct etw_session *s, u64 cursor);
void etw_consumer_discard_unread(struct etw_session *s);

/**
 * struct etw_writer - who staged an event (etw_batch.c)
 * @tid: thread id, in the initial pid namespace
 * @pid: process id, in the initial pid namespace
 * @vtid: thread id as the thread sees it (for its private sessions)
 * @vpid: process id as the thread sees it
 */
struct etw_writer {
	u32 tid;
	u32 pid;
	u32 vtid;
	u32 vpid;
};

/* staging rings (etw_batch.c) */
int etw_batch_init(void);
void etw_batch_exit(void);
int etw_batch_open(struct etw_file *f, u32 flags, u32 *ring_size,
		   u32 *ctl_size, u32 *clock, struct file **filep);
void etw_batch_drain_current(struct etw_file *f);
void etw_batch_drain_file(struct etw_file *f);
void etw_batch_drain_session(const struct etw_session *s);
#if IS_ENABLED(CONFIG_KUNIT)
u32 etw_batch_rate(u64 ns, u64 ticks);
#endif

/* the write path (etw_write.c) */
int etw_write_staged(struct etw_reg *reg, const struct etw_route *route,
		     const struct etw_event_descriptor *desc,
		     const struct etw_guid *activity, u16 flags,
		     const void *payload, u32 len, const struct etw_writer *w,
		     u64 ts);
long etw_write_user(struct etw_file *f, const void __user *uarg);
int etw_write_payload_scratch(void);
void etw_write_exit(void);
int etw_write_kernel(struct etw_reg *reg, const struct etw_event_descriptor *d,
		     const struct etw_guid *activity,
		     const struct etw_guid *related, u32 count,
		     const struct etw_data_descriptor *data);

#endif /* _ETW_INTERNAL_H */
