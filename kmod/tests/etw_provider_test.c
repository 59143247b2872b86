// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the provider files (etw_provider.c, etw_enable.c,
 * etw_route.c, etw_change.c): enable tables, the combined state, the
 * classic rules of a classic registration's own route, groups and
 * disallow lists, private sessions, and the routes built from all of them.
 *
 * Registrations are made on a real /dev/etw file, so that closing it at
 * the end of each test unregisters them whatever the test did.  Sessions
 * are built by hand and never enter the session table; every enable a test
 * makes is disabled again before they are freed.
 */
#include <kunit/test.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/pid.h>
#include <linux/slab.h>

#include "../compat.h"
#include "etw_test_util.h"

#define ETW_PT_MAX_ENABLES	32
#define ETW_PT_MAX_ROUTE	(2 * ETW_MAX_SESSIONS_PER_PROVIDER)

struct etw_pt_enabled {
	struct etw_session *s;
	struct etw_guid guid;
	bool group;
};

/**
 * struct etw_pt - one test's state
 * @file: the open /dev/etw
 * @f: its etw_file
 * @en: the enables made, disabled again at exit
 * @nen: entries in @en
 * @other: a process that is not the test's, for private sessions
 */
struct etw_pt {
	struct file *file;
	struct etw_file *f;
	struct etw_pt_enabled en[ETW_PT_MAX_ENABLES];
	unsigned int nen;
	struct pid *other;
};

static int etw_pt_init(struct kunit *test)
{
	struct etw_pt *pt;

	test->priv = NULL;
	pt = kunit_kzalloc(test, sizeof(*pt), GFP_KERNEL);
	if (!pt)
		return -ENOMEM;
	pt->file = filp_open("/dev/etw", O_RDWR, 0);
	if (IS_ERR(pt->file)) {
		kunit_err(test, "cannot open /dev/etw: %ld", PTR_ERR(pt->file));
		return PTR_ERR(pt->file);
	}
	pt->f = pt->file->private_data;
	test->priv = pt;
	return 0;
}

static void etw_pt_exit(struct kunit *test)
{
	struct etw_pt *pt = test->priv;
	unsigned int i;

	if (!pt)
		return;
	for (i = 0; i < pt->nen; i++)
		etw_test_control(pt->en[i].s, &pt->en[i].guid,
				 pt->en[i].group, ETW_CONTROL_DISABLE, NULL);
	filp_close(pt->file, NULL);
	/* The test's kthread defers the last fput; release now. */
	flush_delayed_fput();
	put_pid(pt->other);
}

/* A session without buffers: routes only look at its mode and owner. */
static struct etw_session *etw_pt_session(struct kunit *test, u32 mode)
{
	struct etw_session *s;

	s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, s);
	kref_init(&s->ref);
	s->logger_id = ETW_TEST_LOGGER_ID;
	s->cfg.mode = mode;
	return s;
}

/* A private session of the test's own process, or of another one. */
static struct etw_session *etw_pt_private(struct kunit *test, bool own)
{
	struct etw_pt *pt = test->priv;
	struct etw_session *s = etw_pt_session(test, ETW_MODE_PRIVATE);

	if (own) {
		s->owner_tgid = task_tgid(current);
		return s;
	}
	if (!pt->other)
		pt->other = find_get_pid(1);
	KUNIT_ASSERT_NOT_NULL(test, pt->other);
	KUNIT_ASSERT_PTR_NE(test, pt->other, task_tgid(current));
	s->owner_tgid = pt->other;
	return s;
}

struct etw_pt_lk {
	u8 level;
	u64 any;
	u64 all;
	u32 props;
};

/* Enable @g (or group @g) on @s; returns etw_enable()'s result. */
static int etw_pt_enable_ids(struct kunit *test, struct etw_session *s,
			     const struct etw_guid *g, bool group,
			     const struct etw_pt_lk *lk,
			     struct etw_id_filter *ids)
{
	struct etw_pt *pt = test->priv;
	struct etw_enable *e;
	int ret;

	KUNIT_ASSERT_LT(test, pt->nen, ETW_PT_MAX_ENABLES);
	e = kzalloc(sizeof(*e), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, e);
	e->level = lk->level;
	e->match_any = lk->any;
	e->match_all = lk->all;
	e->properties = (group ? ETW_ENABLE_PROVIDER_GROUP : 0) | lk->props;
	e->ids = ids;
	ret = etw_test_control(s, g, group, ETW_CONTROL_ENABLE, e);
	if (!ret) {
		pt->en[pt->nen].s = s;
		pt->en[pt->nen].guid = *g;
		pt->en[pt->nen].group = group;
		pt->nen++;
	}
	return ret;
}

static const struct etw_pt_lk etw_pt_lk5 = { .level = 5 };

static int etw_pt_enable(struct kunit *test, struct etw_session *s,
			 const struct etw_guid *g, bool group)
{
	return etw_pt_enable_ids(test, s, g, group, &etw_pt_lk5, NULL);
}

/* Enable @g with level and keywords @lk from a new session. */
static int etw_pt_enable_new(struct kunit *test, const struct etw_guid *g,
			     const struct etw_pt_lk *lk)
{
	return etw_pt_enable_ids(test, etw_pt_session(test, 0), g, false, lk,
				 NULL);
}

static int etw_pt_disable(struct etw_session *s, const struct etw_guid *g)
{
	return etw_test_control(s, g, false, ETW_CONTROL_DISABLE, NULL);
}

/* Register @g on the test's file; returns the registration id. */
static u32 etw_pt_register(struct kunit *test, const struct etw_guid *g,
			   bool classic)
{
	struct etw_pt *pt = test->priv;
	struct etw_register_args a = {
		.size = sizeof(a),
		.flags = classic ? ETW_REGISTER_CLASSIC : 0,
		.guid = *g,
	};

	KUNIT_ASSERT_EQ(test, etw_register(pt->f, &a), 0);
	return a.reg_id;
}

/* Make registration @id a member of group @grp through its traits. */
static void etw_pt_join(struct kunit *test, u32 id, const struct etw_guid *grp)
{
	struct etw_pt *pt = test->priv;
	u16 len = 2 + 2 + 3 + sizeof(*grp);
	u8 *blob;
	int ret;

	blob = kzalloc(len, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, blob);
	put_unaligned_le16(len, blob);
	blob[2] = 'm';		/* name "m" and its NUL */
	put_unaligned_le16(3 + sizeof(*grp), blob + 4);
	blob[6] = 1;		/* provider group trait */
	memcpy(blob + 7, grp, sizeof(*grp));
	ret = etw_set_traits(pt->f, id, blob, len);
	if (ret)
		kfree(blob);
	KUNIT_ASSERT_EQ(test, ret, 0);
}

/* A copy of registration @id's route entries; @n: how many. */
static struct etw_route_entry *etw_pt_route(struct kunit *test, u32 id,
					    unsigned int *n)
{
	struct etw_pt *pt = test->priv;
	struct etw_route_entry *out;
	const struct etw_route *r;
	const struct etw_reg *reg;

	out = kunit_kcalloc(test, ETW_PT_MAX_ROUTE, sizeof(*out), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, out);
	*n = 0;
	rcu_read_lock();
	reg = etw_file_reg(pt->f, id);
	r = reg ? rcu_dereference(reg->route) : NULL;
	if (r) {
		*n = min_t(unsigned int, r->count, ETW_PT_MAX_ROUTE);
		memcpy(out, r->e, *n * sizeof(*out));
	}
	rcu_read_unlock();
	return out;
}

/* The number of sessions registration @id's events go to. */
static unsigned int etw_pt_nroute(struct kunit *test, u32 id)
{
	unsigned int n;

	etw_pt_route(test, id, &n);
	return n;
}

/* The only session of registration @id's route, or NULL. */
static struct etw_session *etw_pt_sole(struct kunit *test, u32 id)
{
	struct etw_route_entry *e;
	unsigned int n;

	e = etw_pt_route(test, id, &n);
	return n == 1 ? e[0].session : NULL;
}

/* The route entry of @id for @s, or NULL. */
static const struct etw_route_entry *
etw_pt_entry(struct kunit *test, u32 id, const struct etw_session *s)
{
	struct etw_route_entry *e;
	unsigned int i, n;

	e = etw_pt_route(test, id, &n);
	for (i = 0; i < n; i++)
		if (e[i].session == s)
			return &e[i];
	return NULL;
}

static const struct etw_enable_state *etw_pt_state(struct kunit *test, u32 id)
{
	struct etw_pt *pt = test->priv;

	return &pt->f->enable_map[id - 1];
}

/* --- the combined state ------------------------------------------------- */

struct etw_comb_case {
	const char *name;
	unsigned int n;
	struct etw_pt_lk lk[3];
	struct etw_pt_lk expect;
	u8 session_level;	/* expected, as the sessions passed it */
};

static const struct etw_comb_case etw_comb_cases[] = {
	{ "one session", 1, { { 4, 0x1, 0x1 } }, { 4, 0x1, 0x1 }, 4 },
	{ "most verbose level wins", 3, { { 3, 0x1, 0 }, { 5, 0x1, 0 },
	  { 2, 0x1, 0 } }, { 5, 0x1, 0 }, 5 },
	{ "level 0 reads as 255", 2, { { 2, 0x1, 0 }, { 0, 0x1, 0 } },
	  { 255, 0x1, 0 }, 0 },
	{ "MatchAny is ORed", 3, { { 4, 0x1, 0 }, { 4, 0x6, 0 },
	  { 4, 0x10, 0 } }, { 4, 0x17, 0 }, 4 },
	{ "MatchAny 0 reads as all", 2, { { 4, 0x1, 0 }, { 4, 0, 0 } },
	  { 4, ~0ULL, 0 }, 4 },
	{ "MatchAll is ANDed", 3, { { 4, 0xff, 0x7 }, { 4, 0xff, 0x3 },
	  { 4, 0xff, 0x6 } }, { 4, 0xff, 0x2 }, 4 },
};

static void etw_comb_desc(const struct etw_comb_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}
KUNIT_ARRAY_PARAM(etw_comb, etw_comb_cases, etw_comb_desc);

/* A registration enabled by one new session per filter of @c. */
static u32 etw_comb_register(struct kunit *test, const struct etw_comb_case *c)
{
	struct etw_guid g;
	unsigned int i;
	u32 id;

	etw_test_guid(&g);
	id = etw_pt_register(test, &g, false);
	for (i = 0; i < c->n; i++)
		KUNIT_ASSERT_EQ(test, etw_pt_enable_new(test, &g, &c->lk[i]),
				0);
	return id;
}

static void etw_provider_combined_test(struct kunit *test)
{
	const struct etw_comb_case *c = test->param_value;
	const struct etw_enable_state *es;
	u32 id;

	id = etw_comb_register(test, c);
	es = etw_pt_state(test, id);
	KUNIT_EXPECT_EQ(test, es->enabled, 1);
	KUNIT_EXPECT_EQ(test, es->level, c->expect.level);
	KUNIT_EXPECT_EQ(test, es->session_level, c->session_level);
	KUNIT_EXPECT_EQ(test, es->match_any, c->expect.any);
	KUNIT_EXPECT_EQ(test, es->match_all, c->expect.all);
	KUNIT_EXPECT_EQ(test, es->seq % 2, 0);
}

/*
 * A route's @every filter: an event that passes it also passes every
 * entry's level and keyword filter, for each combination above (and an
 * entry equal to it passes what it passes).
 */
static void etw_provider_route_every_test(struct kunit *test)
{
	static const u8 levels[] = { 0, 1, 2, 3, 4, 5, 6, 255 };
	static const u64 keywords[] = {
		0, 0x1, 0x2, 0x3, 0x4, 0x6, 0x7, 0x10, 0xff, 1ULL << 63, ~0ULL,
	};
	const struct etw_comb_case *c = test->param_value;
	struct etw_pt *pt = test->priv;
	struct etw_route_entry *e;
	struct etw_level_kw every;
	unsigned int i, j, k, n;
	u32 id;

	id = etw_comb_register(test, c);
	e = etw_pt_route(test, id, &n);
	KUNIT_ASSERT_EQ(test, n, c->n);
	rcu_read_lock();
	every = rcu_dereference(etw_file_reg(pt->f, id)->route)->every;
	rcu_read_unlock();
	for (j = 0; j < ARRAY_SIZE(levels); j++) {
		for (k = 0; k < ARRAY_SIZE(keywords); k++) {
			bool all = true;

			for (i = 0; i < n; i++)
				all &= etw_level_kw_match(&e[i].lk, levels[j],
							  keywords[k]);
			if (etw_level_kw_match(&every, levels[j], keywords[k]))
				KUNIT_EXPECT_TRUE_MSG(test, all,
						      "level %u keyword %llx",
						      levels[j], keywords[k]);
			else if (n == 1)
				KUNIT_EXPECT_FALSE_MSG(test, all,
						       "level %u keyword %llx",
						       levels[j], keywords[k]);
		}
	}
}

/* An entry with an event-ID filter: the route's @every passes nothing. */
static void etw_provider_route_every_ids_test(struct kunit *test)
{
	static const struct etw_pt_lk open = { 0, 0, 0 };
	struct etw_session *s = etw_pt_session(test, 0);
	struct etw_pt *pt = test->priv;
	struct etw_level_kw every;
	struct etw_id_filter *ids;
	struct etw_guid g;
	u32 id;

	ids = kzalloc(struct_size(ids, ids, 1), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ids);
	ids->filter_in = true;
	ids->count = 1;
	ids->ids[0] = 7;
	etw_test_guid(&g);
	id = etw_pt_register(test, &g, false);
	KUNIT_ASSERT_EQ(test, etw_pt_enable_new(test, &g, &open), 0);
	KUNIT_ASSERT_EQ(test, etw_pt_enable_ids(test, s, &g, false, &open, ids),
			0);
	rcu_read_lock();
	every = rcu_dereference(etw_file_reg(pt->f, id)->route)->every;
	rcu_read_unlock();
	KUNIT_EXPECT_FALSE(test, etw_level_kw_match(&every, 0, 0));
	KUNIT_EXPECT_FALSE(test, etw_level_kw_match(&every, 0, ~0ULL));
	KUNIT_EXPECT_FALSE(test, etw_level_kw_match(&every, 5, 0x1));
}

static void etw_provider_disable_test(struct kunit *test)
{
	struct etw_session *s = etw_pt_session(test, 0);
	struct etw_guid g;
	u32 id;

	etw_test_guid(&g);
	id = etw_pt_register(test, &g, false);
	KUNIT_ASSERT_EQ(test, etw_pt_enable(test, s, &g, false), 0);
	KUNIT_EXPECT_EQ(test, etw_pt_nroute(test, id), 1);
	KUNIT_EXPECT_EQ(test, etw_pt_disable(s, &g), 0);
	KUNIT_EXPECT_EQ(test, etw_pt_nroute(test, id), 0);
	KUNIT_EXPECT_EQ(test, etw_pt_state(test, id)->enabled, 0);
	KUNIT_EXPECT_EQ(test, etw_pt_state(test, id)->level, 0);
}

/* --- the enable table ---------------------------------------------------- */

static void etw_provider_ninth_session_test(struct kunit *test)
{
	struct etw_guid g;
	int i;
	u32 id;

	etw_test_guid(&g);
	id = etw_pt_register(test, &g, false);
	for (i = 0; i < ETW_MAX_SESSIONS_PER_PROVIDER; i++)
		KUNIT_ASSERT_EQ(test, etw_pt_enable_new(test, &g, &etw_pt_lk5),
				0);
	KUNIT_EXPECT_EQ(test, etw_pt_enable_new(test, &g, &etw_pt_lk5),
			-ENOSPC);
	KUNIT_EXPECT_EQ(test, etw_pt_nroute(test, id),
			ETW_MAX_SESSIONS_PER_PROVIDER);
}

static void etw_provider_ninth_before_register_test(struct kunit *test)
{
	struct etw_guid g;
	int i;

	etw_test_guid(&g);
	for (i = 0; i < ETW_MAX_SESSIONS_PER_PROVIDER; i++)
		KUNIT_ASSERT_EQ(test, etw_pt_enable_new(test, &g, &etw_pt_lk5),
				0);
	KUNIT_EXPECT_EQ(test, etw_pt_enable_new(test, &g, &etw_pt_lk5),
			-ENOSPC);
}

static void etw_provider_reenable_same_slot_test(struct kunit *test)
{
	struct etw_session *s = etw_pt_session(test, 0);
	static const struct etw_pt_lk lk2 = { .level = 2 };
	const struct etw_route_entry *re;
	struct etw_guid g;
	u32 id;

	etw_test_guid(&g);
	id = etw_pt_register(test, &g, false);
	KUNIT_ASSERT_EQ(test, etw_pt_enable_new(test, &g, &etw_pt_lk5), 0);
	KUNIT_ASSERT_EQ(test, etw_pt_enable(test, s, &g, false), 0);
	KUNIT_ASSERT_EQ(test, etw_pt_enable_ids(test, s, &g, false, &lk2,
						NULL), 0);
	re = etw_pt_entry(test, id, s);
	KUNIT_ASSERT_NOT_NULL(test, re);
	KUNIT_EXPECT_EQ(test, re->lk.level, 2);
	KUNIT_EXPECT_EQ(test, re->instance_bit, BIT_ULL(1));
}

/* --- classic providers --------------------------------------------------- */

static void etw_provider_classic_newest_wins_test(struct kunit *test)
{
	struct etw_session *a = etw_pt_session(test, 0);
	struct etw_session *b = etw_pt_session(test, 0);
	struct etw_guid g;
	u32 id;

	etw_test_guid(&g);
	id = etw_pt_register(test, &g, true);
	KUNIT_ASSERT_EQ(test, etw_pt_enable(test, a, &g, false), 0);
	KUNIT_ASSERT_EQ(test, etw_pt_enable(test, b, &g, false), 0);
	KUNIT_EXPECT_PTR_EQ(test, etw_pt_sole(test, id), b);
}

static void etw_provider_classic_registers_late_test(struct kunit *test)
{
	struct etw_session *s[3];
	struct etw_guid g;
	u32 id, other;
	int i;

	etw_test_guid(&g);
	other = etw_pt_register(test, &g, false);
	for (i = 0; i < 3; i++) {
		s[i] = etw_pt_session(test, 0);
		KUNIT_ASSERT_EQ(test, etw_pt_enable(test, s[i], &g, false), 0);
	}
	KUNIT_EXPECT_EQ(test, etw_pt_nroute(test, other), 3);
	id = etw_pt_register(test, &g, true);
	KUNIT_EXPECT_PTR_EQ(test, etw_pt_sole(test, id), s[2]);
	/* Registering removes no enable: the other keeps its three. */
	KUNIT_EXPECT_EQ(test, etw_pt_nroute(test, other), 3);
}

/*
 * A second global session takes a classic registration from the first,
 * and only that registration: a manifest registration of the GUID keeps
 * both.  When the newest goes, the classic one is back with the first.
 */
static void etw_provider_classic_takes_own_route_only_test(struct kunit *test)
{
	struct etw_session *a = etw_pt_session(test, 0);
	struct etw_session *b = etw_pt_session(test, 0);
	struct etw_guid g;
	u32 man, cls;

	etw_test_guid(&g);
	man = etw_pt_register(test, &g, false);
	cls = etw_pt_register(test, &g, true);
	KUNIT_ASSERT_EQ(test, etw_pt_enable(test, a, &g, false), 0);
	KUNIT_ASSERT_EQ(test, etw_pt_enable(test, b, &g, false), 0);
	KUNIT_EXPECT_PTR_EQ(test, etw_pt_sole(test, cls), b);
	KUNIT_EXPECT_EQ(test, etw_pt_nroute(test, man), 2);
	KUNIT_EXPECT_NOT_NULL(test, etw_pt_entry(test, man, a));
	KUNIT_EXPECT_NOT_NULL(test, etw_pt_entry(test, man, b));
	KUNIT_ASSERT_EQ(test, etw_pt_disable(b, &g), 0);
	KUNIT_EXPECT_PTR_EQ(test, etw_pt_sole(test, cls), a);
	KUNIT_EXPECT_PTR_EQ(test, etw_pt_sole(test, man), a);
}

/*
 * The keyword rules of each registration's own route, with a manifest
 * and a classic registration of one GUID enabled by one session: the
 * classic registration's never change the manifest one's, whichever
 * registered first.
 */
struct etw_rules_case {
	const char *name;
	bool classic_first;
	struct etw_pt_lk enable;
	struct etw_level_kw manifest;
	struct etw_level_kw classic;
};

static const struct etw_rules_case etw_rules_cases[] = {
	{ "MatchAny 0, classic registers last", false, { 0, 0, 0 },
	  { 255, false, ~0ULL, 0 }, { 255, false, 0, 0 } },
	{ "MatchAny 0, classic registers first", true, { 0, 0, 0 },
	  { 255, false, ~0ULL, 0 }, { 255, false, 0, 0 } },
	{ "high MatchAny bits and MatchAll", false,
	  { 4, 0xf00000001ULL, 0x3 },
	  { 4, false, 0xf00000001ULL, 0x3 }, { 4, false, 0x1, 0 } },
	{ "IGNORE_KEYWORD_0", true,
	  { 5, 0xffffffffULL, 0, ETW_ENABLE_IGNORE_KEYWORD_0 },
	  { 5, true, 0xffffffffULL, 0 }, { 5, false, 0xffffffffULL, 0 } },
};

static void etw_rules_desc(const struct etw_rules_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}
KUNIT_ARRAY_PARAM(etw_rules, etw_rules_cases, etw_rules_desc);

static void etw_pt_expect_lk(struct kunit *test,
			     const struct etw_route_entry *re,
			     const struct etw_level_kw *want)
{
	KUNIT_ASSERT_NOT_NULL(test, re);
	KUNIT_EXPECT_EQ(test, re->lk.level, want->level);
	KUNIT_EXPECT_EQ(test, re->lk.ignore_keyword0, want->ignore_keyword0);
	KUNIT_EXPECT_EQ(test, re->lk.match_any, want->match_any);
	KUNIT_EXPECT_EQ(test, re->lk.match_all, want->match_all);
}

static void etw_provider_classic_rules_own_route_test(struct kunit *test)
{
	const struct etw_rules_case *c = test->param_value;
	struct etw_session *s = etw_pt_session(test, 0);
	struct etw_guid g;
	u32 man, cls = 0;

	etw_test_guid(&g);
	if (c->classic_first)
		cls = etw_pt_register(test, &g, true);
	man = etw_pt_register(test, &g, false);
	KUNIT_ASSERT_EQ(test, etw_pt_enable_ids(test, s, &g, false, &c->enable,
						NULL), 0);
	if (!c->classic_first)
		cls = etw_pt_register(test, &g, true);
	etw_pt_expect_lk(test, etw_pt_entry(test, man, s), &c->manifest);
	etw_pt_expect_lk(test, etw_pt_entry(test, cls, s), &c->classic);
	KUNIT_EXPECT_EQ(test, etw_pt_state(test, man)->match_any,
			c->manifest.match_any);
	KUNIT_EXPECT_EQ(test, etw_pt_state(test, man)->match_all,
			c->manifest.match_all);
}

static void etw_provider_classic_keywords_test(struct kunit *test)
{
	static const struct etw_pt_lk lk = { 4, 0xf00000001ULL, 0x3 };
	struct etw_session *s = etw_pt_session(test, 0);
	const struct etw_route_entry *re;
	struct etw_guid g;
	u32 id;

	etw_test_guid(&g);
	id = etw_pt_register(test, &g, true);
	KUNIT_ASSERT_EQ(test, etw_pt_enable_ids(test, s, &g, false, &lk, NULL),
			0);
	re = etw_pt_entry(test, id, s);
	KUNIT_ASSERT_NOT_NULL(test, re);
	KUNIT_EXPECT_EQ(test, re->lk.match_any, 0x1ULL);
	KUNIT_EXPECT_EQ(test, re->lk.match_all, 0ULL);
}

/* --- groups -------------------------------------------------------------- */

static void etw_provider_group_disallow_test(struct kunit *test)
{
	struct etw_session *s = etw_pt_session(test, 0);
	struct etw_guid grp, m1, m2;
	u32 id1, id2;

	etw_test_guid(&grp);
	etw_test_guid(&m1);
	etw_test_guid(&m2);
	id1 = etw_pt_register(test, &m1, false);
	id2 = etw_pt_register(test, &m2, false);
	etw_pt_join(test, id1, &grp);
	etw_pt_join(test, id2, &grp);
	s->disallow = kunit_kzalloc(test, sizeof(*s->disallow), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, s->disallow);
	s->disallow[0] = m2;
	s->ndisallow = 1;
	KUNIT_ASSERT_EQ(test, etw_pt_enable(test, s, &grp, true), 0);
	KUNIT_EXPECT_PTR_EQ(test, etw_pt_sole(test, id1), s);
	KUNIT_EXPECT_EQ(test, etw_pt_nroute(test, id2), 0);
	KUNIT_EXPECT_EQ(test, etw_pt_state(test, id1)->enabled, 1);
	KUNIT_EXPECT_EQ(test, etw_pt_state(test, id2)->enabled, 0);
}

static void etw_provider_group_joins_late_test(struct kunit *test)
{
	struct etw_session *s = etw_pt_session(test, 0);
	struct etw_guid grp, m;
	u32 id;

	etw_test_guid(&grp);
	etw_test_guid(&m);
	KUNIT_ASSERT_EQ(test, etw_pt_enable(test, s, &grp, true), 0);
	id = etw_pt_register(test, &m, false);
	KUNIT_EXPECT_EQ(test, etw_pt_nroute(test, id), 0);
	etw_pt_join(test, id, &grp);
	KUNIT_EXPECT_PTR_EQ(test, etw_pt_sole(test, id), s);
}

static void etw_provider_group_no_id_filter_test(struct kunit *test)
{
	struct etw_session *direct = etw_pt_session(test, 0);
	struct etw_session *group = etw_pt_session(test, 0);
	const struct etw_route_entry *re;
	struct etw_id_filter *ids[2];
	struct etw_guid grp, m;
	int i;
	u32 id;

	for (i = 0; i < 2; i++) {
		ids[i] = kzalloc(struct_size(ids[i], ids, 1), GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, ids[i]);
		ids[i]->filter_in = true;
		ids[i]->count = 1;
		ids[i]->ids[0] = 7;
	}
	etw_test_guid(&grp);
	etw_test_guid(&m);
	id = etw_pt_register(test, &m, false);
	etw_pt_join(test, id, &grp);
	KUNIT_ASSERT_EQ(test, etw_pt_enable_ids(test, direct, &m, false,
						&etw_pt_lk5, ids[0]), 0);
	KUNIT_ASSERT_EQ(test, etw_pt_enable_ids(test, group, &grp, true,
						&etw_pt_lk5, ids[1]), 0);
	re = etw_pt_entry(test, id, direct);
	KUNIT_ASSERT_NOT_NULL(test, re);
	KUNIT_EXPECT_PTR_EQ(test, re->ids, ids[0]);
	re = etw_pt_entry(test, id, group);
	KUNIT_ASSERT_NOT_NULL(test, re);
	KUNIT_EXPECT_NULL(test, re->ids);
}

/* --- private sessions and instance bits ---------------------------------- */

struct etw_priv_case {
	const char *name;
	bool own;
	unsigned int expect;
};

static const struct etw_priv_case etw_priv_cases[] = {
	{ "owner's registration is reached", true, 1 },
	{ "another process's is not", false, 0 },
};

static void etw_priv_desc(const struct etw_priv_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}
KUNIT_ARRAY_PARAM(etw_priv, etw_priv_cases, etw_priv_desc);

static void etw_provider_private_owner_test(struct kunit *test)
{
	const struct etw_priv_case *c = test->param_value;
	struct etw_session *s = etw_pt_private(test, c->own);
	struct etw_guid g;
	u32 id;

	etw_test_guid(&g);
	id = etw_pt_register(test, &g, false);
	KUNIT_ASSERT_EQ(test, etw_pt_enable(test, s, &g, false), 0);
	KUNIT_EXPECT_EQ(test, etw_pt_nroute(test, id), c->expect);
	KUNIT_EXPECT_EQ(test, etw_pt_state(test, id)->enabled, c->expect);
}

static void etw_provider_instance_bits_test(struct kunit *test)
{
	struct etw_session *direct[3], *group[2];
	const struct etw_route_entry *re;
	struct etw_guid grp, g;
	int i;
	u32 id;

	etw_test_guid(&grp);
	etw_test_guid(&g);
	id = etw_pt_register(test, &g, false);
	etw_pt_join(test, id, &grp);
	for (i = 0; i < 3; i++) {
		direct[i] = etw_pt_session(test, 0);
		KUNIT_ASSERT_EQ(test, etw_pt_enable(test, direct[i], &g, false),
				0);
	}
	for (i = 0; i < 2; i++) {
		group[i] = etw_pt_session(test, 0);
		KUNIT_ASSERT_EQ(test, etw_pt_enable(test, group[i], &grp, true),
				0);
	}
	for (i = 0; i < 3; i++) {
		re = etw_pt_entry(test, id, direct[i]);
		KUNIT_ASSERT_NOT_NULL(test, re);
		KUNIT_EXPECT_EQ(test, re->instance_bit, BIT_ULL(i));
	}
	for (i = 0; i < 2; i++) {
		re = etw_pt_entry(test, id, group[i]);
		KUNIT_ASSERT_NOT_NULL(test, re);
		KUNIT_EXPECT_EQ(test, re->instance_bit,
				BIT_ULL(ETW_MAX_SESSIONS_PER_PROVIDER + i));
	}
}

static void etw_provider_freed_slot_reused_test(struct kunit *test)
{
	struct etw_session *a = etw_pt_session(test, 0);
	struct etw_session *b = etw_pt_session(test, 0);
	struct etw_session *c = etw_pt_session(test, 0);
	const struct etw_route_entry *re;
	struct etw_guid g;
	u32 id;

	etw_test_guid(&g);
	id = etw_pt_register(test, &g, false);
	KUNIT_ASSERT_EQ(test, etw_pt_enable(test, a, &g, false), 0);
	KUNIT_ASSERT_EQ(test, etw_pt_enable(test, b, &g, false), 0);
	KUNIT_ASSERT_EQ(test, etw_pt_disable(a, &g), 0);
	KUNIT_ASSERT_EQ(test, etw_pt_enable(test, c, &g, false), 0);
	re = etw_pt_entry(test, id, c);
	KUNIT_ASSERT_NOT_NULL(test, re);
	KUNIT_EXPECT_EQ(test, re->instance_bit, BIT_ULL(0));
}

static struct kunit_case etw_provider_cases[] = {
	KUNIT_CASE_PARAM(etw_provider_combined_test, etw_comb_gen_params),
	KUNIT_CASE_PARAM(etw_provider_route_every_test, etw_comb_gen_params),
	KUNIT_CASE(etw_provider_route_every_ids_test),
	KUNIT_CASE(etw_provider_disable_test),
	KUNIT_CASE(etw_provider_ninth_session_test),
	KUNIT_CASE(etw_provider_ninth_before_register_test),
	KUNIT_CASE(etw_provider_reenable_same_slot_test),
	KUNIT_CASE(etw_provider_classic_newest_wins_test),
	KUNIT_CASE(etw_provider_classic_registers_late_test),
	KUNIT_CASE(etw_provider_classic_keywords_test),
	KUNIT_CASE(etw_provider_classic_takes_own_route_only_test),
	KUNIT_CASE_PARAM(etw_provider_classic_rules_own_route_test,
			 etw_rules_gen_params),
	KUNIT_CASE(etw_provider_group_disallow_test),
	KUNIT_CASE(etw_provider_group_joins_late_test),
	KUNIT_CASE(etw_provider_group_no_id_filter_test),
	KUNIT_CASE_PARAM(etw_provider_private_owner_test, etw_priv_gen_params),
	KUNIT_CASE(etw_provider_instance_bits_test),
	KUNIT_CASE(etw_provider_freed_slot_reused_test),
	{}
};

static struct kunit_suite etw_provider_suite = {
	.name = "etw_provider",
	.init = etw_pt_init,
	.exit = etw_pt_exit,
	.test_cases = etw_provider_cases,
};
kunit_test_suite(etw_provider_suite);
