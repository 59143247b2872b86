// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the in-kernel provider API (etw_kapi.c) and the write
 * path behind it (etw_write.c): enable state and callback, the record as
 * it lands in a buffer, filtering, losses, sessions that take an event
 * all or nothing, and a write from hard-irq context while a reservation
 * of the interrupted code is open on the same CPU; the extended items
 * enable properties add, the kernel stack among them, what a session's
 * starter may see of it (struct etw_viewer) and who may read that.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/cred.h>
#include <linux/etw_kapi.h>
#include <linux/irq_work.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "../compat.h"
#include "etw_test_util.h"

#define ETW_WT_MAX_SESSIONS	2

/**
 * struct etw_wt - one test's state
 * @kp: the provider, unregistered at exit
 * @guid: its GUID
 * @s: sessions enabled for it, disabled at exit
 * @ns: entries in @s
 * @cb_done: completed by the enable callback
 * @cb_control: what the callback saw
 * @cb_level: what the callback saw
 * @cb_any: what the callback saw
 */
struct etw_wt {
	struct etw_kprovider *kp;
	struct etw_guid guid;
	struct etw_session *s[ETW_WT_MAX_SESSIONS];
	unsigned int ns;
	struct completion cb_done;
	u32 cb_control;
	u8 cb_level;
	u64 cb_any;
};

static void etw_wt_cb(void *ctx, u32 control, u8 level, u64 match_any,
		      u64 match_all)
{
	struct etw_wt *wt = ctx;

	wt->cb_control = control;
	wt->cb_level = level;
	wt->cb_any = match_any;
	complete(&wt->cb_done);
}

static int etw_wt_init(struct kunit *test)
{
	struct etw_wt *wt;

	test->priv = NULL;
	wt = kunit_kzalloc(test, sizeof(*wt), GFP_KERNEL);
	if (!wt)
		return -ENOMEM;
	init_completion(&wt->cb_done);
	etw_test_guid(&wt->guid);
	wt->kp = etw_kprovider_register(&wt->guid, etw_wt_cb, wt);
	if (IS_ERR(wt->kp))
		return PTR_ERR(wt->kp);
	test->priv = wt;
	return 0;
}

static void etw_wt_exit(struct kunit *test)
{
	struct etw_wt *wt = test->priv;
	unsigned int i;

	if (!wt)
		return;
	for (i = 0; i < wt->ns; i++)
		etw_test_control(wt->s[i], &wt->guid, false,
				 ETW_CONTROL_DISABLE, NULL);
	etw_kprovider_unregister(wt->kp);
}

/*
 * A session of @mode enabled for the test's provider at level 4, with the
 * ETW_ENABLE_* @props.
 */
static struct etw_session *etw_wt_session_props(struct kunit *test, u32 mode,
						u32 nbuffers, u64 any,
						u32 props)
{
	struct etw_wt *wt = test->priv;
	struct etw_session *s = etw_test_session(test, mode, nbuffers);
	struct etw_enable *e;

	KUNIT_ASSERT_LT(test, wt->ns, ETW_WT_MAX_SESSIONS);
	e = kzalloc(sizeof(*e), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, e);
	e->level = 4;
	e->match_any = any;
	e->properties = props;
	KUNIT_ASSERT_EQ(test, etw_test_control(s, &wt->guid, false,
					       ETW_CONTROL_ENABLE, e), 0);
	wt->s[wt->ns++] = s;
	return s;
}

/* A session of @mode enabled for the test's provider at level 4. */
static struct etw_session *etw_wt_session(struct kunit *test, u32 mode,
					  u32 nbuffers, u64 any)
{
	return etw_wt_session_props(test, mode, nbuffers, any, 0);
}

static const struct etw_event_descriptor etw_wt_desc = {
	.id = 42, .version = 1, .level = 4, .opcode = 7, .task = 9,
	.keyword = 0x1,
};

static int etw_wt_write(struct etw_kprovider *kp,
			const struct etw_event_descriptor *d,
			const void *payload, u32 len)
{
	struct etw_data_descriptor data = {
		.ptr = (uintptr_t)payload,
		.size = len,
	};

	return etw_kprovider_write(kp, d, NULL, NULL, len ? 1 : 0, &data);
}

static struct etw_session_stats etw_wt_stats(struct etw_session *s)
{
	struct etw_session_stats st;

	etw_session_stats_fill(s, &st);
	return st;
}

static void etw_write_disabled_test(struct kunit *test)
{
	struct etw_wt *wt = test->priv;
	static const u32 payload = 1;

	KUNIT_EXPECT_FALSE(test, etw_kprovider_enabled(wt->kp, 4, 0x1));
	KUNIT_EXPECT_EQ(test, etw_wt_write(wt->kp, &etw_wt_desc, &payload,
					   sizeof(payload)), 0);
}

struct etw_en_case {
	const char *name;
	u8 level;
	u64 keyword;
	bool expect;
};

static const struct etw_en_case etw_en_cases[] = {
	{ "level and keyword match", 4, 0x1, true },
	{ "level 0 passes", 0, 0x1, true },
	{ "level above the session's", 5, 0x1, false },
	{ "keyword outside MatchAny", 4, 0x2, false },
	{ "keyword 0 passes", 4, 0, true },
};

static void etw_en_desc(const struct etw_en_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}
KUNIT_ARRAY_PARAM(etw_en, etw_en_cases, etw_en_desc);

static void etw_write_enabled_test(struct kunit *test)
{
	const struct etw_en_case *c = test->param_value;
	struct etw_wt *wt = test->priv;

	etw_wt_session(test, ETW_MODE_NO_PER_PROCESSOR, 4, 0x1);
	KUNIT_EXPECT_EQ(test, etw_kprovider_enabled(wt->kp, c->level,
						    c->keyword), c->expect);
}

/* A keyword in MatchAny without every MatchAll bit is not enabled. */
static void etw_write_enabled_match_all_test(struct kunit *test)
{
	struct etw_wt *wt = test->priv;
	struct etw_session *s;
	struct etw_enable *e;

	KUNIT_ASSERT_LT(test, wt->ns, ETW_WT_MAX_SESSIONS);
	s = etw_test_session(test, ETW_MODE_NO_PER_PROCESSOR, 4);
	e = kzalloc(sizeof(*e), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, e);
	e->level = 4;
	e->match_any = 0x3;
	e->match_all = 0x3;
	KUNIT_ASSERT_EQ(test, etw_test_control(s, &wt->guid, false,
					       ETW_CONTROL_ENABLE, e), 0);
	wt->s[wt->ns++] = s;
	KUNIT_EXPECT_FALSE(test, etw_kprovider_enabled(wt->kp, 4, 0x1));
	KUNIT_EXPECT_TRUE(test, etw_kprovider_enabled(wt->kp, 4, 0x3));
}

static void etw_write_callback_test(struct kunit *test)
{
	struct etw_wt *wt = test->priv;

	etw_wt_session(test, ETW_MODE_NO_PER_PROCESSOR, 4, 0x5);
	KUNIT_ASSERT_GT(test, wait_for_completion_timeout(&wt->cb_done, HZ * 5),
			0UL);
	KUNIT_EXPECT_EQ(test, wt->cb_control, ETW_CONTROL_ENABLE);
	KUNIT_EXPECT_EQ(test, wt->cb_level, 4);
	KUNIT_EXPECT_EQ(test, wt->cb_any, 0x5ULL);
}

static void etw_write_record_test(struct kunit *test)
{
	static const u8 payload[13] = "hello, world";
	struct etw_wt *wt = test->priv;
	struct etw_session *s;
	const struct etw_event_header *h;
	struct etw_buffer *b;
	u32 size = sizeof(*h) + sizeof(payload);
	u64 before = ktime_get_ns();

	s = etw_wt_session(test, ETW_MODE_NO_PER_PROCESSOR, 4, 0x1);
	KUNIT_ASSERT_EQ(test, etw_wt_write(wt->kp, &etw_wt_desc, payload,
					   sizeof(payload)), 0);
	etw_buffers_seal_all(s, false);
	b = etw_test_delivered(s, 0);
	KUNIT_ASSERT_NOT_NULL(test, b);
	KUNIT_EXPECT_EQ(test, ((struct etw_buffer_header *)b->data)->offset,
			ETW_BUFFER_HEADER_SIZE + ALIGN(size, 8));
	h = b->data + ETW_BUFFER_HEADER_SIZE;
	KUNIT_EXPECT_EQ(test, h->size, size);
	KUNIT_EXPECT_EQ(test, h->header_type, ETW_EVENT_HEADER_TYPE_64);
	KUNIT_EXPECT_EQ(test, h->flags, 0);
	KUNIT_EXPECT_EQ(test, h->thread_id, task_pid_nr(current));
	KUNIT_EXPECT_GE(test, h->timestamp, before);
	KUNIT_EXPECT_MEMEQ(test, &h->provider_id, &wt->guid, sizeof(wt->guid));
	KUNIT_EXPECT_MEMEQ(test, &h->descriptor, &etw_wt_desc,
			   sizeof(etw_wt_desc));
	KUNIT_EXPECT_NULL(test, memchr_inv(&h->activity_id, 0,
					   sizeof(h->activity_id)));
	KUNIT_EXPECT_MEMEQ(test, h + 1, payload, sizeof(payload));
	/* The alignment tail is zeroed, not left as 0xff. */
	KUNIT_EXPECT_NULL(test, memchr_inv((u8 *)(h + 1) + sizeof(payload), 0,
					   ALIGN(size, 8) - size));
}

static void etw_write_filtered_test(struct kunit *test)
{
	struct etw_event_descriptor d = etw_wt_desc;
	struct etw_wt *wt = test->priv;
	struct etw_session *s;

	s = etw_wt_session(test, ETW_MODE_NO_PER_PROCESSOR, 4, 0x1);
	d.level = 5;
	KUNIT_EXPECT_EQ(test, etw_wt_write(wt->kp, &d, NULL, 0), 0);
	KUNIT_EXPECT_NULL(test, s->streams[0].cur);
	KUNIT_EXPECT_EQ(test, etw_wt_stats(s).events_lost, 0);
}

static void etw_write_too_big_test(struct kunit *test)
{
	struct etw_wt *wt = test->priv;
	struct etw_session *s;
	void *payload;

	s = etw_wt_session(test, ETW_MODE_NO_PER_PROCESSOR, 4, 0x1);
	payload = kunit_kzalloc(test, s->buf_bytes, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, payload);
	KUNIT_EXPECT_EQ(test, etw_wt_write(wt->kp, &etw_wt_desc, payload,
					   s->buf_bytes), -EMSGSIZE);
	KUNIT_EXPECT_EQ(test, etw_wt_stats(s).events_lost, 1);
}

static void etw_write_no_buffer_test(struct kunit *test)
{
	struct etw_wt *wt = test->priv;
	struct etw_session *s;
	u32 len;
	void *payload;
	int i;

	s = etw_wt_session(test, ETW_MODE_NO_PER_PROCESSOR, 2, 0x1);
	/* Each record fills a buffer on its own. */
	len = s->buf_bytes - ETW_BUFFER_HEADER_SIZE -
	      sizeof(struct etw_event_header);
	payload = kunit_kzalloc(test, len, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, payload);
	for (i = 0; i < 2; i++)
		KUNIT_EXPECT_EQ(test, etw_wt_write(wt->kp, &etw_wt_desc,
						   payload, len), 0);
	KUNIT_EXPECT_EQ(test, etw_wt_write(wt->kp, &etw_wt_desc, payload, len),
			-ENOBUFS);
	KUNIT_EXPECT_EQ(test, etw_wt_stats(s).events_lost, 1);
	KUNIT_EXPECT_EQ(test, etw_wt_stats(s).events_written, 2);
}

/* Session A is out of buffers; does session B still get the event? */
struct etw_all_case {
	const char *name;
	u32 mode;
	u64 b_written;
	u64 b_lost;
};

static const struct etw_all_case etw_all_cases[] = {
	{ "dependent sessions lose it together", 0, 0, 1 },
	{ "an independent session keeps it", ETW_MODE_INDEPENDENT, 1, 0 },
};

static void etw_all_desc(const struct etw_all_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}
KUNIT_ARRAY_PARAM(etw_all, etw_all_cases, etw_all_desc);

static void etw_write_all_or_nothing_test(struct kunit *test)
{
	const struct etw_all_case *c = test->param_value;
	u32 mode = ETW_MODE_NO_PER_PROCESSOR | c->mode;
	struct etw_wt *wt = test->priv;
	struct etw_session *a, *b;
	struct etw_session_stats st;
	struct etw_buffer *buf;
	u32 off;
	u64 ts;
	int i;

	a = etw_wt_session(test, mode, 2, 0x1);
	b = etw_wt_session(test, mode, 4, 0x1);
	/* Use up A: both its buffers hold a record that fills them. */
	for (i = 0; i < 2; i++) {
		ts = 0;
		buf = etw_buffer_reserve(a, &a->streams[0], a->buf_bytes -
					 ETW_BUFFER_HEADER_SIZE, &off, &ts);
		KUNIT_ASSERT_NOT_NULL(test, buf);
		etw_buffer_commit(a, buf);
	}
	KUNIT_EXPECT_EQ(test, etw_wt_write(wt->kp, &etw_wt_desc, NULL, 0),
			-ENOBUFS);
	etw_buffers_seal_all(b, false);
	st = etw_wt_stats(b);
	KUNIT_EXPECT_EQ(test, st.events_written, c->b_written);
	KUNIT_EXPECT_EQ(test, st.events_lost, c->b_lost);
	KUNIT_EXPECT_EQ(test, etw_wt_stats(a).events_lost, 1);
}

/* --- a write from hard-irq context --------------------------------------- */

struct etw_wt_irq {
	struct irq_work work;
	struct etw_kprovider *kp;
	int ret;
	int cpu;
	bool hardirq;
	bool done;
};

static const u64 etw_wt_irq_payload = 0x1122334455667788ULL;

static void etw_wt_irq_fn(struct irq_work *work)
{
	struct etw_wt_irq *iw = container_of(work, struct etw_wt_irq, work);

	iw->cpu = smp_processor_id();
	iw->hardirq = in_hardirq();
	iw->ret = etw_wt_write(iw->kp, &etw_wt_desc, &etw_wt_irq_payload,
			       sizeof(etw_wt_irq_payload));
	/* Pairs with smp_load_acquire() in etw_write_from_irq_test(). */
	smp_store_release(&iw->done, true);
}

#define ETW_WT_OPEN	128	/* the interrupted writer's reservation */

static void etw_write_from_irq_test(struct kunit *test)
{
	struct etw_wt *wt = test->priv;
	const struct etw_event_header *h;
	struct etw_wt_irq *iw;
	struct etw_session *s;
	struct etw_buffer *b, *d;
	u32 off, cpu;
	u64 ts = 0;

	iw = kunit_kzalloc(test, sizeof(*iw), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, iw);
	init_irq_work(&iw->work, etw_wt_irq_fn);
	iw->kp = wt->kp;
	s = etw_wt_session(test, 0, 2 * nr_cpu_ids, 0x1);

	preempt_disable();
	cpu = smp_processor_id();
	b = etw_buffer_reserve(s, etw_session_stream(s), ETW_WT_OPEN, &off,
			       &ts);
	if (b) {
		memset(b->data + off, 0xab, ETW_WT_OPEN / 2);
		irq_work_queue(&iw->work);
		/* Pairs with smp_store_release() in etw_wt_irq_fn(). */
		while (!smp_load_acquire(&iw->done))
			cpu_relax();
		memset(b->data + off + ETW_WT_OPEN / 2, 0xab, ETW_WT_OPEN / 2);
		etw_buffer_commit(s, b);
	}
	preempt_enable();
	irq_work_sync(&iw->work);
	KUNIT_ASSERT_NOT_NULL(test, b);

	KUNIT_EXPECT_EQ(test, iw->cpu, cpu);
	KUNIT_EXPECT_TRUE(test, iw->hardirq);
	KUNIT_EXPECT_EQ(test, iw->ret, 0);
	etw_buffers_seal_all(s, false);
	KUNIT_ASSERT_EQ(test, etw_test_ndelivered(s), 1);
	d = etw_test_delivered(s, 0);
	KUNIT_ASSERT_PTR_EQ(test, d, b);
	KUNIT_EXPECT_EQ(test, ((struct etw_buffer_header *)b->data)->events, 2);
	KUNIT_EXPECT_NULL(test, memchr_inv(b->data + off, 0xab, ETW_WT_OPEN));
	h = b->data + off + ETW_WT_OPEN;
	KUNIT_EXPECT_EQ(test, h->size, sizeof(*h) + sizeof(etw_wt_irq_payload));
	KUNIT_EXPECT_MEMEQ(test, &h->provider_id, &wt->guid, sizeof(wt->guid));
	KUNIT_EXPECT_GE(test, h->timestamp, ts);
	KUNIT_EXPECT_MEMEQ(test, h + 1, &etw_wt_irq_payload,
			   sizeof(etw_wt_irq_payload));
}

/* --- extended items ------------------------------------------------------ */

/* The return address into the caller of the function that wrote. */
static unsigned long etw_wt_stack_ret;

static noinline int etw_wt_stack_writer(struct etw_kprovider *kp)
{
	etw_wt_stack_ret = (unsigned long)__builtin_return_address(0);
	return etw_wt_write(kp, &etw_wt_desc, NULL, 0);
}

/* The first record of @s's first delivered buffer. */
static const struct etw_event_header *etw_wt_first(struct kunit *test,
						   struct etw_session *s)
{
	struct etw_buffer *b;

	etw_buffers_seal_all(s, false);
	b = etw_test_delivered(s, 0);
	KUNIT_ASSERT_NOT_NULL(test, b);
	return b->data + ETW_BUFFER_HEADER_SIZE;
}

static void etw_write_kernel_stack_test(struct kunit *test)
{
	struct etw_wt *wt = test->priv;
	const struct etw_event_header *h;
	const struct etw_ext_item *it;
	const u64 *st;
	u32 i, n;
	bool found = false;

	etw_wt_session_props(test, ETW_MODE_NO_PER_PROCESSOR, 4, 0x1,
			     ETW_ENABLE_STACK_TRACE);
	KUNIT_ASSERT_EQ(test, etw_wt_stack_writer(wt->kp), 0);
	h = etw_wt_first(test, wt->s[0]);
	KUNIT_EXPECT_EQ(test, h->flags, ETW_EVENT_FLAG_EXTENDED_INFO);
	it = (const void *)(h + 1);
	KUNIT_ASSERT_EQ(test, it->ext_type, ETW_EXT_STACK_TRACE64);
	KUNIT_EXPECT_EQ(test, it->linkage, 0);
	KUNIT_EXPECT_EQ(test, it->item_size, sizeof(*it) + it->data_size);
	KUNIT_EXPECT_EQ(test, h->size, sizeof(*h) + it->item_size);
	KUNIT_ASSERT_EQ(test, (it->data_size - 8) % 8, 0);
	n = (it->data_size - 8) / 8;
	KUNIT_EXPECT_GT(test, n, 0);
	KUNIT_EXPECT_LE(test, n, ETW_MAX_STACK_DEPTH);
	st = (const u64 *)(it + 1);
	KUNIT_EXPECT_EQ(test, st[0], 0);	/* MatchId */
	for (i = 0; i < n; i++)
		found |= st[1 + i] == etw_wt_stack_ret;
	KUNIT_EXPECT_TRUE(test, found);
}

/* The frames of the STACK_TRACE64 item of @s's first record; @n: how many. */
static const u64 *etw_wt_stack(struct kunit *test, struct etw_session *s,
			       u32 *n)
{
	const struct etw_event_header *h = etw_wt_first(test, s);
	const struct etw_ext_item *it = (const void *)(h + 1);

	KUNIT_ASSERT_EQ(test, it->ext_type, ETW_EXT_STACK_TRACE64);
	*n = (it->data_size - 8) / 8;
	return (const u64 *)(it + 1) + 1;
}

/*
 * One write, two sessions: the one whose starter may see kernel addresses
 * gets the frames, the other as many zeros.
 */
static void etw_write_kernel_stack_hidden_test(struct kunit *test)
{
	struct etw_wt *wt = test->priv;
	struct etw_session *shown, *hidden;
	const u64 *a, *b;
	bool found = false;
	u32 i, na, nb;

	shown = etw_wt_session_props(test, ETW_MODE_NO_PER_PROCESSOR, 4, 0x1,
				     ETW_ENABLE_STACK_TRACE);
	hidden = etw_wt_session_props(test, ETW_MODE_NO_PER_PROCESSOR, 4, 0x1,
				      ETW_ENABLE_STACK_TRACE);
	KUNIT_ASSERT_TRUE(test, shown->viewer.kaddr);
	hidden->viewer.kaddr = false;
	KUNIT_ASSERT_EQ(test, etw_wt_stack_writer(wt->kp), 0);
	a = etw_wt_stack(test, shown, &na);
	b = etw_wt_stack(test, hidden, &nb);
	KUNIT_EXPECT_GT(test, na, 0);
	KUNIT_EXPECT_EQ(test, nb, na);
	for (i = 0; i < na; i++)
		found |= a[i] == etw_wt_stack_ret;
	KUNIT_EXPECT_TRUE(test, found);
	for (i = 0; i < nb; i++)
		KUNIT_EXPECT_EQ(test, b[i], 0);
}

/* What etw_viewer_init() makes of the starter's capabilities. */
struct etw_viewer_case {
	const char *name;
	int cap;	/* the one capability kept, or -1 */
	bool kaddr;
	bool all_tasks;
};

static const struct etw_viewer_case etw_viewer_cases[] = {
	{ "no capability", -1, false, false },
	{ "CAP_SYSLOG", CAP_SYSLOG, true, false },
	{ "CAP_PERFMON", CAP_PERFMON, true, false },
	{ "CAP_SYS_ADMIN", CAP_SYS_ADMIN, true, false },
	{ "CAP_SYS_PTRACE", CAP_SYS_PTRACE, false, true },
	{ "CAP_NET_ADMIN", CAP_NET_ADMIN, false, false },
};

static void etw_viewer_desc(const struct etw_viewer_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}
KUNIT_ARRAY_PARAM(etw_viewer, etw_viewer_cases, etw_viewer_desc);

static void etw_write_viewer_init_test(struct kunit *test)
{
	const struct etw_viewer_case *c = test->param_value;
	const struct cred *old;
	struct etw_viewer v;
	struct cred *cred;

	cred = prepare_creds();
	KUNIT_ASSERT_NOT_NULL(test, cred);
	cap_clear(cred->cap_effective);
	if (c->cap >= 0)
		cap_raise(cred->cap_effective, c->cap);
	cred->fsuid = KUIDT_INIT(1000);
	cred->fsgid = KGIDT_INIT(1001);
	old = override_creds(cred);
	etw_viewer_init(&v);
	revert_creds(old);
	put_cred(cred);
	KUNIT_EXPECT_EQ(test, v.kaddr, c->kaddr);
	KUNIT_EXPECT_EQ(test, v.all_tasks, c->all_tasks);
	KUNIT_EXPECT_EQ(test, __kuid_val(v.fsuid), 1000);
	KUNIT_EXPECT_EQ(test, __kgid_val(v.fsgid), 1001);
}

/* etw_viewer_may_read() of this kernel thread (root, no address space). */
struct etw_may_read_case {
	const char *name;
	struct etw_viewer v;
	bool expect;
};

static const struct etw_may_read_case etw_may_read_cases[] = {
	{ "same uid and gid", { KUIDT_INIT(0), KGIDT_INIT(0), false, false },
	  true },
	{ "another uid", { KUIDT_INIT(1000), KGIDT_INIT(0), false, false },
	  false },
	{ "another gid", { KUIDT_INIT(0), KGIDT_INIT(1001), false, false },
	  false },
	{ "another user with CAP_SYS_PTRACE",
	  { KUIDT_INIT(1000), KGIDT_INIT(1001), false, true }, true },
	{ "another user with kernel addresses",
	  { KUIDT_INIT(1000), KGIDT_INIT(1001), true, false }, false },
};

static void etw_may_read_desc(const struct etw_may_read_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}
KUNIT_ARRAY_PARAM(etw_may_read, etw_may_read_cases, etw_may_read_desc);

static void etw_write_viewer_may_read_test(struct kunit *test)
{
	const struct etw_may_read_case *c = test->param_value;

	KUNIT_ASSERT_TRUE(test, uid_eq(current_uid(), GLOBAL_ROOT_UID));
	KUNIT_EXPECT_EQ(test, etw_viewer_may_read(&c->v, current, NULL),
			c->expect);
}

/* etw_viewer_covers(): may a reader consume what a session's starter saw. */
#define ETW_V(uid, gid, kaddr, all) \
	{ KUIDT_INIT(uid), KGIDT_INIT(gid), kaddr, all }
#define ETW_V_ROOT	ETW_V(0, 0, true, true)
#define ETW_V_MEMBER	ETW_V(1000, 1000, false, false)

struct etw_covers_case {
	const char *name;
	struct etw_viewer session;
	struct etw_viewer reader;
	bool expect;
};

static const struct etw_covers_case etw_covers_cases[] = {
	{ "root's session, root", ETW_V_ROOT, ETW_V_ROOT, true },
	{ "root's session, member", ETW_V_ROOT, ETW_V_MEMBER, false },
	{ "root's session, uid 0 without capabilities", ETW_V_ROOT,
	  ETW_V(0, 0, false, false), false },
	{ "root's session, kernel addresses only", ETW_V_ROOT,
	  ETW_V(0, 0, true, false), false },
	{ "root's session, CAP_SYS_PTRACE only", ETW_V_ROOT,
	  ETW_V(0, 0, false, true), false },
	{ "member's session, same member", ETW_V_MEMBER, ETW_V_MEMBER, true },
	{ "member's session, root", ETW_V_MEMBER, ETW_V_ROOT, true },
	{ "member's session, another uid", ETW_V_MEMBER,
	  ETW_V(1001, 1000, false, false), false },
	{ "member's session, another gid", ETW_V_MEMBER,
	  ETW_V(1000, 1001, false, false), false },
	{ "member's session, another user with CAP_SYS_PTRACE", ETW_V_MEMBER,
	  ETW_V(1001, 1001, false, true), true },
	{ "member's session, another user with kernel addresses",
	  ETW_V_MEMBER, ETW_V(1001, 1001, true, false), false },
	{ "kernel addresses, same user without", ETW_V(1000, 1000, true, false),
	  ETW_V_MEMBER, false },
	{ "kernel addresses, same user with", ETW_V(1000, 1000, true, false),
	  ETW_V(1000, 1000, true, false), true },
	{ "kernel addresses, another user with", ETW_V(1000, 1000, true, false),
	  ETW_V(1001, 1001, true, false), false },
	{ "CAP_SYS_PTRACE, same user without", ETW_V(1000, 1000, false, true),
	  ETW_V_MEMBER, false },
	{ "CAP_SYS_PTRACE, another user with", ETW_V(1000, 1000, false, true),
	  ETW_V(1001, 1001, false, true), true },
};

static void etw_covers_desc(const struct etw_covers_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}
KUNIT_ARRAY_PARAM(etw_covers, etw_covers_cases, etw_covers_desc);

static void etw_write_viewer_covers_test(struct kunit *test)
{
	const struct etw_covers_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, etw_viewer_covers(&c->session, &c->reader),
			c->expect);
}

static void etw_wt_irq_all_fn(struct irq_work *work)
{
	struct etw_wt_irq *iw = container_of(work, struct etw_wt_irq, work);

	iw->hardirq = in_hardirq();
	iw->ret = etw_wt_write(iw->kp, &etw_wt_desc, &etw_wt_irq_payload,
			       sizeof(etw_wt_irq_payload));
}

/* Every item, in type order, from hard-irq context. */
static void etw_write_ext_from_irq_test(struct kunit *test)
{
	static const u16 types[] = {
		ETW_EXT_SID, ETW_EXT_TS_ID, ETW_EXT_STACK_TRACE64,
		ETW_EXT_EVENT_KEY, ETW_EXT_PROCESS_START_KEY,
	};
	struct etw_wt *wt = test->priv;
	const struct etw_event_header *h;
	const struct etw_ext_item *it;
	struct etw_wt_irq *iw;
	u32 i, len = 0;

	iw = kunit_kzalloc(test, sizeof(*iw), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, iw);
	init_irq_work(&iw->work, etw_wt_irq_all_fn);
	iw->kp = wt->kp;
	etw_wt_session_props(test, ETW_MODE_NO_PER_PROCESSOR, 4, 0x1,
			     ETW_ENABLE_EXT_PROPS);
	irq_work_queue(&iw->work);
	irq_work_sync(&iw->work);
	KUNIT_EXPECT_TRUE(test, iw->hardirq);
	KUNIT_ASSERT_EQ(test, iw->ret, 0);
	h = etw_wt_first(test, wt->s[0]);
	it = (const void *)(h + 1);
	for (i = 0; i < ARRAY_SIZE(types); i++) {
		KUNIT_EXPECT_EQ(test, it->ext_type, types[i]);
		KUNIT_EXPECT_EQ(test, it->linkage,
				i + 1 < ARRAY_SIZE(types) ? ETW_EXT_LINKAGE : 0);
		len += it->item_size;
		it = (const void *)it + it->item_size;
	}
	KUNIT_EXPECT_EQ(test, h->size, sizeof(*h) + len +
			sizeof(etw_wt_irq_payload));
	KUNIT_EXPECT_MEMEQ(test, it, &etw_wt_irq_payload,
			   sizeof(etw_wt_irq_payload));
}

static struct kunit_case etw_write_cases[] = {
	KUNIT_CASE(etw_write_disabled_test),
	KUNIT_CASE_PARAM(etw_write_enabled_test, etw_en_gen_params),
	KUNIT_CASE(etw_write_enabled_match_all_test),
	KUNIT_CASE(etw_write_callback_test),
	KUNIT_CASE(etw_write_record_test),
	KUNIT_CASE(etw_write_filtered_test),
	KUNIT_CASE(etw_write_too_big_test),
	KUNIT_CASE(etw_write_no_buffer_test),
	KUNIT_CASE_PARAM(etw_write_all_or_nothing_test, etw_all_gen_params),
	KUNIT_CASE(etw_write_from_irq_test),
	KUNIT_CASE(etw_write_kernel_stack_test),
	KUNIT_CASE(etw_write_kernel_stack_hidden_test),
	KUNIT_CASE_PARAM(etw_write_viewer_init_test, etw_viewer_gen_params),
	KUNIT_CASE_PARAM(etw_write_viewer_may_read_test,
			 etw_may_read_gen_params),
	KUNIT_CASE_PARAM(etw_write_viewer_covers_test, etw_covers_gen_params),
	KUNIT_CASE(etw_write_ext_from_irq_test),
	{}
};

static struct kunit_suite etw_write_suite = {
	.name = "etw_write",
	.init = etw_wt_init,
	.exit = etw_wt_exit,
	.test_cases = etw_write_cases,
};
kunit_test_suite(etw_write_suite);
