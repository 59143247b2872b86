// SPDX-License-Identifier: GPL-2.0
/*
 * Event routing through the raw ABI: which session receives which event.
 * A matrix of providers x sessions x levels x keywords is checked against
 * an oracle written here from ETW's documented rules (not from the
 * kernel's code); then event-ID, event-name and PID filters,
 * EventWriteEx's exclude mask, the classic one-session rule, enables made
 * before registration, re-enables, all-or-nothing delivery and private
 * sessions.
 */
#include <sys/mman.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "etw_raw.h"

#define NSESS		4
#define BUF_KB		64
#define BUF_BYTES	(BUF_KB * 1024)
#define FAMILY		0x7e57a000

FIXTURE(route) {
	int fd;
	__u32 id[NSESS];
	int cfd[NSESS];
};

FIXTURE_SETUP(route)
{
	char name[32];
	int i;

	self->fd = etw_open();
	ASSERT_LE(0, self->fd);
	for (i = 0; i < NSESS; i++) {
		snprintf(name, sizeof(name), "route-%d", i);
		ASSERT_EQ(0, raw_start(self->fd, name, ETW_MODE_REAL_TIME,
				       BUF_KB, 8, &self->id[i]));
		self->cfd[i] = raw_consumer(self->fd, self->id[i]);
		ASSERT_LE(0, self->cfd[i]);
	}
}

FIXTURE_TEARDOWN(route)
{
	int i;

	for (i = 0; i < NSESS; i++) {
		close(self->cfd[i]);
		raw_session_op(self->fd, ETW_IOC_STOP, self->id[i], NULL);
	}
	close(self->fd);
}

/* Gather what session @s received from @guid (of process @pid, or any). */
static struct raw_seen seen_in(struct __test_metadata *_metadata,
			       FIXTURE_DATA(route) *self, int s,
			       const struct etw_guid *guid, __u32 pid)
{
	struct raw_seen c = { .guid = *guid, .pid = pid };

	EXPECT_EQ(0, raw_flush_seen(self->fd, self->id[s], self->cfd[s],
				    BUF_BYTES, &c));
	return c;
}

/* --- the matrix ---------------------------------------------------------- */

enum { P_MAN0, P_MAN1, P_CLASSIC0, P_CLASSIC1, P_UNENABLED, NPROV };

static const int prov_classic[NPROV] = {
	[P_CLASSIC0] = 1, [P_CLASSIC1] = 1,
};

struct matrix_enable {
	int sess;
	int prov;
	__u8 level;
	__u64 any;
	__u64 all;
	__u32 props;
};

/* Classic providers have one enable each: a second would replace it. */
static const struct matrix_enable matrix[] = {
	{ 0, P_MAN0, 0, 0, 0, 0 },
	{ 0, P_MAN1, 2, 0x100000000ull, 0, 0 },
	{ 1, P_MAN0, 3, 0x2, 0, 0 },
	{ 1, P_MAN1, 4, 0x3, 0x1, 0 },
	{ 2, P_MAN0, 5, ~0ull, 0x100000000ull, ETW_ENABLE_IGNORE_KEYWORD_0 },
	{ 2, P_MAN1, 0, 0, 0, ETW_ENABLE_IGNORE_KEYWORD_0 },
	{ 2, P_CLASSIC0, 4, 0xffffffff00000002ull, 0x1, 0 },
	{ 3, P_MAN1, 1, 0x8000000000000000ull, 0x8000000000000000ull, 0 },
	{ 3, P_CLASSIC1, 0, 0, 0, 0 },
};

static const __u8 ev_levels[] = { 0, 1, 2, 3, 4, 5, 255 };
static const __u64 ev_keywords[] = {
	0, 0x1, 0x2, 0x3, 0x100000000ull, 0x100000001ull,
	0x8000000000000000ull, ~0ull,
};
#define NKW	(sizeof(ev_keywords) / sizeof(ev_keywords[0]))
#define NEVENTS	(sizeof(ev_levels) * NKW)

/*
 * ETW's predicate (reference section 2): event level 0 always passes and
 * session level 0 means every level; keyword 0 passes unless the session
 * set IGNORE_KEYWORD_0; otherwise the keyword must share a bit with
 * MatchAny and hold all of MatchAll.  MatchAny 0 means "all" only for
 * manifest providers; classic providers use the low 32 bits of MatchAny
 * and no MatchAll.
 */
static int oracle_passes(const struct matrix_enable *e, int classic,
			 __u8 level, __u64 kw)
{
	__u64 any, all;

	if (level && e->level && level > e->level)
		return 0;
	if (!kw)
		return !(e->props & ETW_ENABLE_IGNORE_KEYWORD_0);
	if (classic) {
		any = e->any & 0xffffffffull;
		all = 0;
	} else {
		any = e->any ? e->any : ~0ull;
		all = e->all;
	}
	return (kw & any) && (kw & all) == all;
}

/* Event ids (0..NEVENTS-1) session @s should get from provider @p. */
static __u64 oracle_ids(int s, int p)
{
	__u64 ids = 0;
	unsigned int i, l, k;

	for (i = 0; i < sizeof(matrix) / sizeof(matrix[0]); i++) {
		if (matrix[i].sess != s || matrix[i].prov != p)
			continue;
		for (l = 0; l < sizeof(ev_levels); l++)
			for (k = 0; k < NKW; k++)
				if (oracle_passes(&matrix[i], prov_classic[p],
						  ev_levels[l], ev_keywords[k]))
					ids |= 1ull << (l * NKW + k);
	}
	return ids;
}

static void matrix_seen_fn(const struct etw_event_header *h, void *ctx)
{
	struct raw_seen *c = ctx;
	int p;

	for (p = 0; p < NPROV; p++)
		raw_seen_fn(h, &c[p]);
}

TEST_F(route, matrix_matches_oracle)
{
	struct etw_guid guid[NPROV];
	__u32 reg[NPROV];
	unsigned int i, l, k;
	int p, s;

	for (p = 0; p < NPROV; p++) {
		__u32 flags = prov_classic[p] ? ETW_REGISTER_CLASSIC : 0;

		guid[p] = raw_guid(FAMILY + 1, p);
		ASSERT_EQ(0, raw_register(self->fd, &guid[p], flags, p,
					  &reg[p], NULL));
	}
	for (i = 0; i < sizeof(matrix) / sizeof(matrix[0]); i++) {
		const struct matrix_enable *m = &matrix[i];
		struct etw_enable_args e;

		raw_enable_init(&e, self->id[m->sess], &guid[m->prov],
				m->level, m->any, m->all);
		e.properties = m->props;
		ASSERT_EQ(0, etw_ioctl(self->fd, ETW_IOC_ENABLE, &e));
	}
	for (p = 0; p < NPROV; p++)
		for (l = 0; l < sizeof(ev_levels); l++)
			for (k = 0; k < NKW; k++)
				ASSERT_EQ(0, raw_write(self->fd, reg[p],
						       l * NKW + k,
						       ev_levels[l],
						       ev_keywords[k]));
	for (s = 0; s < NSESS; s++) {
		struct raw_seen c[NPROV];

		/* One drain per session, split by provider. */
		for (p = 0; p < NPROV; p++)
			c[p] = (struct raw_seen){ .guid = guid[p] };
		ASSERT_EQ(0, raw_session_op(self->fd, ETW_IOC_FLUSH,
					    self->id[s], NULL));
		ASSERT_LE(0, raw_drain(self->cfd[s], BUF_BYTES, matrix_seen_fn,
				       c));
		for (p = 0; p < NPROV; p++) {
			__u64 want = oracle_ids(s, p);

			EXPECT_EQ(want, c[p].ids)
				TH_LOG("session %d provider %d", s, p);
			EXPECT_EQ(__builtin_popcountll(want), c[p].n)
				TH_LOG("session %d provider %d", s, p);
		}
	}
}

/* --- event-ID filters ---------------------------------------------------- */

/* Enable session 0 with ids {3, 5}, write ids 1..6: the ids received. */
static __u64 ids_through_filter(struct __test_metadata *_metadata,
				FIXTURE_DATA(route) *self, __u32 filter_in)
{
	static const __u16 ids[] = { 5, 3 };
	struct etw_guid g = raw_guid(FAMILY + 2, filter_in);
	struct etw_enable_args e;
	__u32 reg = 0;
	__u16 id;

	raw_enable_init(&e, self->id[0], &g, 0, 0, 0);
	e.event_id_count = 2;
	e.event_ids_ptr = (uintptr_t)ids;
	e.event_ids_filter_in = filter_in;
	EXPECT_EQ(0, etw_ioctl(self->fd, ETW_IOC_ENABLE, &e));
	EXPECT_EQ(0, raw_register(self->fd, &g, 0, 0, &reg, NULL));
	for (id = 1; id <= 6; id++)
		EXPECT_EQ(0, raw_write(self->fd, reg, id, 0, 0));
	return seen_in(_metadata, self, 0, &g, 0).ids;
}

TEST_F(route, event_id_filter_in_passes_only_listed_ids)
{
	EXPECT_EQ((1u << 3) | (1u << 5),
		  ids_through_filter(_metadata, self, 1));
}

TEST_F(route, event_id_filter_out_drops_listed_ids)
{
	EXPECT_EQ((1u << 1) | (1u << 2) | (1u << 4) | (1u << 6),
		  ids_through_filter(_metadata, self, 0));
}

/* --- event-name filters ------------------------------------------------- */

/* The names go at ETW_EVENT_NAME_FILTER_NAMES, into @room. */
#define NAMES_OF(b)	((char *)(b) + ETW_EVENT_NAME_FILTER_NAMES)

struct name_filter_block {
	struct etw_event_name_filter f;
	char room[64];
};

/*
 * Session 0 enables with EVENT_NAME's block @f (names "Alpha", "Beta");
 * the events written (id, level, keyword, name) and the ids received.
 */
static __u64 ids_through_names(struct __test_metadata *_metadata,
			       FIXTURE_DATA(route) *self, __u32 family,
			       const struct etw_event_name_filter *hdr)
{
	static const struct {
		__u16 id;
		__u8 level;
		__u64 keyword;
		const char *name;
	} events[] = {
		{ 1, 4, 0x1, "Alpha" },
		{ 2, 4, 0x1, "Gamma" },
		{ 3, 4, 0x1, "Beta" },
		{ 4, 4, 0x1, NULL },		/* no metadata: not filtered */
		{ 5, 5, 0x1, "Gamma" },		/* above the filter's level */
		{ 6, 4, 0x2, "Gamma" },		/* outside its keywords */
		{ 7, 4, 0x1, "alpha" },		/* names are case-sensitive */
	};
	struct etw_guid g = raw_guid(FAMILY + 3, family);
	struct name_filter_block b = { .f = *hdr };
	struct etw_enable_args e;
	__u32 reg = 0;
	size_t i;

	memcpy(NAMES_OF(&b), "Alpha\0Beta", 11);
	b.f.name_count = 2;
	raw_enable_init(&e, self->id[0], &g, 0, 0, 0);
	e.names_ptr = (uintptr_t)&b;
	e.names_size = ETW_EVENT_NAME_FILTER_NAMES + 11;
	EXPECT_EQ(0, etw_ioctl(self->fd, ETW_IOC_ENABLE, &e));
	EXPECT_EQ(0, raw_register(self->fd, &g, 0, 0, &reg, NULL));
	for (i = 0; i < ARRAY_SIZE(events); i++)
		EXPECT_EQ(0, raw_tlg_write(self->fd, reg, events[i].id,
				       events[i].level, events[i].keyword,
				       events[i].name));
	return seen_in(_metadata, self, 0, &g, 0).ids;
}

/* The filter selects level <= 4, keyword 0x1, as its block says. */
TEST_F(route, event_name_filter_in_passes_only_listed_names)
{
	struct etw_event_name_filter f = { .level = 4, .match_any = 0x1,
					   .filter_in = 1 };

	EXPECT_EQ((1u << 1) | (1u << 3) | (1u << 4) | (1u << 5) | (1u << 6),
		  ids_through_names(_metadata, self, 1, &f));
}

TEST_F(route, event_name_filter_out_drops_listed_names)
{
	struct etw_event_name_filter f = { .level = 4, .match_any = 0x1,
					   .filter_in = 0 };

	EXPECT_EQ((1u << 2) | (1u << 4) | (1u << 5) | (1u << 6) | (1u << 7),
		  ids_through_names(_metadata, self, 2, &f));
}

/* A second session without the filter gets every event. */
TEST_F(route, event_name_filter_is_one_sessions)
{
	struct name_filter_block b = {
		.f = { .filter_in = 1, .name_count = 1 } };
	struct etw_guid g = raw_guid(FAMILY + 3, 3);
	struct etw_enable_args e;
	__u32 reg = 0;

	memcpy(NAMES_OF(&b), "Alpha", 6);
	raw_enable_init(&e, self->id[0], &g, 0, 0, 0);
	e.names_ptr = (uintptr_t)&b;
	e.names_size = ETW_EVENT_NAME_FILTER_NAMES + 6;
	ASSERT_EQ(0, etw_ioctl(self->fd, ETW_IOC_ENABLE, &e));
	ASSERT_EQ(0, raw_enable(self->fd, self->id[1], &g, 0, 0, 0));
	ASSERT_EQ(0, raw_register(self->fd, &g, 0, 0, &reg, NULL));
	ASSERT_EQ(0, raw_tlg_write(self->fd, reg, 1, 4, 0, "Alpha"));
	ASSERT_EQ(0, raw_tlg_write(self->fd, reg, 2, 4, 0, "Beta"));
	EXPECT_EQ(1u << 1, seen_in(_metadata, self, 0, &g, 0).ids);
	EXPECT_EQ((1u << 1) | (1u << 2), seen_in(_metadata, self, 1, &g, 0).ids);
}

/* The blocks the kernel refuses (EINVAL), and one it takes. */
TEST_F(route, event_name_filter_blocks)
{
	static const struct {
		const char *what;
		__u16 count;
		__u8 filter_in;
		const char *names;
		__u32 names_len;
		int err;
	} cases[] = {
		{ "no name", 0, 1, "a", 2, -EINVAL },
		{ "empty name", 1, 1, "", 1, -EINVAL },
		{ "name without NUL", 1, 1, "ab", 2, -EINVAL },
		{ "fewer names than the count", 2, 1, "a", 2, -EINVAL },
		{ "filter_in above 1", 1, 2, "a", 2, -EINVAL },
		{ "padding after the names", 1, 1, "a\0\0\0", 4, 0 },
		{ "two names", 2, 0, "a\0b", 4, 0 },
	};
	struct etw_guid g = raw_guid(FAMILY + 3, 4);
	struct name_filter_block b;
	struct etw_enable_args e;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		memset(&b, 0, sizeof(b));
		b.f.name_count = cases[i].count;
		b.f.filter_in = cases[i].filter_in;
		memcpy(NAMES_OF(&b), cases[i].names, cases[i].names_len);
		raw_enable_init(&e, self->id[0], &g, 0, 0, 0);
		e.names_ptr = (uintptr_t)&b;
		e.names_size = ETW_EVENT_NAME_FILTER_NAMES + cases[i].names_len;
		EXPECT_EQ(cases[i].err, etw_ioctl(self->fd, ETW_IOC_ENABLE, &e))
			TH_LOG("%s", cases[i].what);
	}
	raw_enable_init(&e, self->id[0], &g, 0, 0, 0);
	e.names_ptr = (uintptr_t)&b;
	e.names_size = ETW_MAX_EVENT_NAME_FILTER + 1;
	EXPECT_EQ(-EINVAL, etw_ioctl(self->fd, ETW_IOC_ENABLE, &e));
	e.names_size = ETW_EVENT_NAME_FILTER_NAMES - 1;
	EXPECT_EQ(-EINVAL, etw_ioctl(self->fd, ETW_IOC_ENABLE, &e));
}

/* --- PID filters --------------------------------------------------------- */

/* One provider's events, split by the process that wrote them. */
struct pid_tally {
	struct etw_guid guid;
	__u32 child, parent;
	long from_child, from_parent, other;
};

static void pid_tally_fn(const struct etw_event_header *h, void *ctx)
{
	struct pid_tally *t = ctx;

	if (!raw_guid_eq(&h->provider_id, &t->guid))
		return;
	if (h->process_id == t->child)
		t->from_child++;
	else if (h->process_id == t->parent)
		t->from_parent++;
	else
		t->other++;
}

static struct pid_tally pid_filter_tally(struct __test_metadata *_metadata,
					 FIXTURE_DATA(route) *self, int s)
{
	struct etw_guid g = raw_guid(FAMILY + 3, 0);
	struct pid_tally t = { .guid = g, .parent = getpid() };
	int go[2], done[2], i;
	struct etw_enable_args e;
	__u32 reg = 0, pids[2];
	pid_t pid;

	if (pipe(go) || pipe(done))
		return t;
	pid = fork();
	if (pid < 0)
		return t;
	if (!pid) {
		int fd = etw_open();

		if (fd < 0 || !raw_wait_byte(go[0]) ||
		    raw_register(fd, &g, 0, 0, &reg, NULL))
			_exit(2);
		for (i = 0; i < 3; i++)
			if (raw_write(fd, reg, 1, 0, 0))
				_exit(3);
		_exit(0);
	}
	t.child = pid;
	pids[0] = pid;
	pids[1] = getpid();
	for (i = 0; i < 2; i++) {
		raw_enable_init(&e, self->id[i], &g, 0, 0, 0);
		e.pid_count = 1;
		e.pids_ptr = (uintptr_t)&pids[i];
		EXPECT_EQ(0, etw_ioctl(self->fd, ETW_IOC_ENABLE, &e));
	}
	EXPECT_EQ(0, raw_register(self->fd, &g, 0, 0, &reg, NULL));
	for (i = 0; i < 5; i++)
		EXPECT_EQ(0, raw_write(self->fd, reg, 1, 0, 0));
	raw_post_byte(go[1]);
	EXPECT_EQ(0, etw_wait_child(pid));
	EXPECT_EQ(0, raw_session_op(self->fd, ETW_IOC_FLUSH, self->id[s],
				    NULL));
	EXPECT_LE(0, raw_drain(self->cfd[s], BUF_BYTES, pid_tally_fn, &t));
	return t;
}

TEST_F(route, pid_filter_on_child_takes_only_child_events)
{
	struct pid_tally t = pid_filter_tally(_metadata, self, 0);

	EXPECT_EQ(3, t.from_child);
	EXPECT_EQ(0, t.from_parent);
	EXPECT_EQ(0, t.other);
}

TEST_F(route, pid_filter_on_parent_takes_only_parent_events)
{
	struct pid_tally t = pid_filter_tally(_metadata, self, 1);

	EXPECT_EQ(0, t.from_child);
	EXPECT_EQ(5, t.from_parent);
	EXPECT_EQ(0, t.other);
}

/* --- EventWriteEx's filter ----------------------------------------------- */

TEST_F(route, exclude_mask_bit_is_enable_slot)
{
	struct etw_guid g = raw_guid(FAMILY + 4, 0);
	__u32 reg, mask;
	int s;

	/* A fresh GUID: sessions 0, 1, 2 take slots 0, 1, 2 in that order. */
	for (s = 0; s < 3; s++)
		ASSERT_EQ(0, raw_enable(self->fd, self->id[s], &g, 0, 0, 0));
	ASSERT_EQ(0, raw_register(self->fd, &g, 0, 0, &reg, NULL));
	for (mask = 0; mask < 8; mask++)
		ASSERT_EQ(0, raw_write_ex(self->fd, reg, 1, 0, 0, mask, mask));
	for (s = 0; s < 3; s++) {
		struct raw_seen c = seen_in(_metadata, self, s, &g, 0);
		__u64 want = 0;

		for (mask = 0; mask < 8; mask++)
			if (!(mask & (1u << s)))
				want |= 1ull << mask;
		EXPECT_EQ(want, c.tags) TH_LOG("session %d", s);
		EXPECT_EQ(4, c.n);
	}
}

/* --- classic providers --------------------------------------------------- */

TEST_F(route, classic_second_enable_replaces_first_session)
{
	struct etw_guid g = raw_guid(FAMILY + 5, 0);
	__u32 reg = 0;

	ASSERT_EQ(0, raw_register(self->fd, &g, ETW_REGISTER_CLASSIC, 0, &reg,
				  NULL));
	ASSERT_EQ(0, raw_enable(self->fd, self->id[0], &g, 0, 0xffffffff, 0));
	ASSERT_EQ(0, raw_write_ex(self->fd, reg, 1, 0, 1, 1, 0));
	ASSERT_EQ(0, raw_enable(self->fd, self->id[1], &g, 0, 0xffffffff, 0));
	ASSERT_EQ(0, raw_write_ex(self->fd, reg, 1, 0, 1, 2, 0));
	EXPECT_EQ(1u << 1, seen_in(_metadata, self, 0, &g, 0).tags);
	EXPECT_EQ(1u << 2, seen_in(_metadata, self, 1, &g, 0).tags);
}

TEST_F(route, classic_registered_after_enables_follows_newest)
{
	struct etw_guid g = raw_guid(FAMILY + 6, 0);
	__u32 reg = 0;

	ASSERT_EQ(0, raw_enable(self->fd, self->id[0], &g, 0, 0xffffffff, 0));
	ASSERT_EQ(0, raw_enable(self->fd, self->id[1], &g, 0, 0xffffffff, 0));
	ASSERT_EQ(0, raw_register(self->fd, &g, ETW_REGISTER_CLASSIC, 0, &reg,
				  NULL));
	ASSERT_EQ(0, raw_write(self->fd, reg, 1, 0, 1));
	EXPECT_EQ(0, seen_in(_metadata, self, 0, &g, 0).n);
	EXPECT_EQ(1, seen_in(_metadata, self, 1, &g, 0).n);
}

/* --- enables and re-enables ---------------------------------------------- */

TEST_F(route, enable_before_registration_applies_at_registration)
{
	struct etw_guid g = raw_guid(FAMILY + 7, 0);
	__u32 reg = 0;

	ASSERT_EQ(0, raw_enable(self->fd, self->id[0], &g, 2, 0x1, 0));
	ASSERT_EQ(0, raw_register(self->fd, &g, 0, 0, &reg, NULL));
	ASSERT_EQ(0, raw_write_ex(self->fd, reg, 1, 2, 0x1, 1, 0));
	ASSERT_EQ(0, raw_write_ex(self->fd, reg, 1, 3, 0x1, 2, 0));
	ASSERT_EQ(0, raw_write_ex(self->fd, reg, 1, 1, 0x2, 3, 0));
	EXPECT_EQ(1u << 1, seen_in(_metadata, self, 0, &g, 0).tags);
}

TEST_F(route, reenable_replaces_whole_filter_set)
{
	static const __u16 only_id = 7;
	struct etw_guid g = raw_guid(FAMILY + 8, 0);
	struct etw_enable_args e;
	__u32 reg, other_pid = 1;

	raw_enable_init(&e, self->id[0], &g, 5, 0, 0);
	e.event_id_count = 1;
	e.event_ids_ptr = (uintptr_t)&only_id;
	e.event_ids_filter_in = 1;
	e.pid_count = 1;
	e.pids_ptr = (uintptr_t)&other_pid;
	ASSERT_EQ(0, etw_ioctl(self->fd, ETW_IOC_ENABLE, &e));
	ASSERT_EQ(0, raw_register(self->fd, &g, 0, 0, &reg, NULL));
	/* The PID filter names another process: nothing passes. */
	ASSERT_EQ(0, raw_write_ex(self->fd, reg, 7, 1, 0, 4, 0));
	/* Level 1 and no filters at all now. */
	ASSERT_EQ(0, raw_enable(self->fd, self->id[0], &g, 1, 0, 0));
	ASSERT_EQ(0, raw_write_ex(self->fd, reg, 8, 1, 0, 1, 0));
	ASSERT_EQ(0, raw_write_ex(self->fd, reg, 7, 2, 0, 2, 0));
	ASSERT_EQ(0, raw_write_ex(self->fd, reg, 9, 1, 0, 3, 0));
	EXPECT_EQ((1u << 1) | (1u << 3),
		  seen_in(_metadata, self, 0, &g, 0).tags);
}

/* --- all-or-nothing delivery --------------------------------------------- */

#define LOSS_EVENTS	200

FIXTURE(loss) {
	int fd;
	__u32 tiny, other;
	int cfd;
};

FIXTURE_VARIANT(loss) {
	__u32 tiny_mode;
	__u32 other_mode;
	int other_loses;
};

FIXTURE_VARIANT_ADD(loss, neither_independent) {
	.tiny_mode = 0, .other_mode = 0, .other_loses = 1,
};

FIXTURE_VARIANT_ADD(loss, full_session_independent) {
	.tiny_mode = ETW_MODE_INDEPENDENT, .other_mode = 0, .other_loses = 0,
};

FIXTURE_VARIANT_ADD(loss, other_session_independent) {
	.tiny_mode = 0, .other_mode = ETW_MODE_INDEPENDENT, .other_loses = 0,
};

FIXTURE_SETUP(loss)
{
	self->fd = etw_open();
	ASSERT_LE(0, self->fd);
	/* Two 4 KiB buffers, nobody reading: it fills after ~90 events. */
	ASSERT_EQ(0, raw_start(self->fd, "loss-tiny",
			       ETW_MODE_NO_PER_PROCESSOR | variant->tiny_mode,
			       4, 2, &self->tiny));
	ASSERT_EQ(0, raw_start(self->fd, "loss-other",
			       ETW_MODE_REAL_TIME | variant->other_mode,
			       BUF_KB, 8, &self->other));
	self->cfd = raw_consumer(self->fd, self->other);
	ASSERT_LE(0, self->cfd);
}

FIXTURE_TEARDOWN(loss)
{
	close(self->cfd);
	raw_session_op(self->fd, ETW_IOC_STOP, self->tiny, NULL);
	raw_session_op(self->fd, ETW_IOC_STOP, self->other, NULL);
	close(self->fd);
}

TEST_F(loss, full_session_loss_reaches_others_unless_independent)
{
	struct etw_guid g = raw_guid(FAMILY + 9, 0);
	struct raw_seen c = { .guid = g };
	struct etw_session_args tiny, other;
	long nobufs = 0;
	__u32 reg = 0;
	int i, ret;

	ASSERT_EQ(0, raw_enable(self->fd, self->tiny, &g, 0, 0, 0));
	ASSERT_EQ(0, raw_enable(self->fd, self->other, &g, 0, 0, 0));
	ASSERT_EQ(0, raw_register(self->fd, &g, 0, 0, &reg, NULL));
	for (i = 0; i < LOSS_EVENTS; i++) {
		ret = raw_write(self->fd, reg, 1, 0, 0);
		if (ret == -ENOBUFS)
			nobufs++;
		else
			ASSERT_EQ(0, ret);
	}
	ASSERT_LT(0, nobufs);
	ASSERT_EQ(0, raw_flush_seen(self->fd, self->other, self->cfd,
				    BUF_BYTES, &c));
	ASSERT_EQ(0, raw_session_op(self->fd, ETW_IOC_FLUSH, self->tiny, NULL));
	ASSERT_EQ(0, raw_session_op(self->fd, ETW_IOC_QUERY, self->tiny,
				    &tiny));
	ASSERT_EQ(0, raw_session_op(self->fd, ETW_IOC_QUERY, self->other,
				    &other));
	EXPECT_EQ(nobufs, tiny.stats.events_lost);
	EXPECT_EQ(LOSS_EVENTS - nobufs, tiny.stats.events_written);
	if (variant->other_loses) {
		EXPECT_EQ(nobufs, other.stats.events_lost);
		EXPECT_EQ(LOSS_EVENTS - nobufs, c.n);
	} else {
		EXPECT_EQ(0, other.stats.events_lost);
		EXPECT_EQ(LOSS_EVENTS, c.n);
	}
	EXPECT_EQ(c.n, other.stats.events_written);
}

/*
 * A payload on a page that is not resident makes the kernel fault it in
 * and retry the write: the full session counts the event lost once, not
 * once per attempt.
 */
TEST_F(loss, retried_write_counts_its_loss_once)
{
	struct etw_guid g = raw_guid(FAMILY + 10, 0);
	struct etw_session_args before, after;
	struct etw_data_descriptor d = { .size = 16 };
	struct etw_write_args w;
	__u32 reg = 0;
	void *page;
	int i, ret = 0;

	ASSERT_EQ(0, raw_enable(self->fd, self->tiny, &g, 0, 0, 0));
	ASSERT_EQ(0, raw_enable(self->fd, self->other, &g, 0, 0, 0));
	ASSERT_EQ(0, raw_register(self->fd, &g, 0, 0, &reg, NULL));
	for (i = 0; i < LOSS_EVENTS && ret != -ENOBUFS; i++)
		ret = raw_write(self->fd, reg, 1, 0, 0);
	ASSERT_EQ(-ENOBUFS, ret);
	ASSERT_EQ(0, raw_session_op(self->fd, ETW_IOC_QUERY, self->tiny,
				    &before));
	page = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, page);
	d.ptr = (uintptr_t)page;
	raw_write_init(&w, reg, 1, 0, 0);
	w.data_count = 1;
	w.data_ptr = (uintptr_t)&d;
	EXPECT_EQ(-ENOBUFS, etw_ioctl(self->fd, ETW_IOC_WRITE, &w));
	munmap(page, 4096);
	ASSERT_EQ(0, raw_session_op(self->fd, ETW_IOC_QUERY, self->tiny,
				    &after));
	EXPECT_EQ(before.stats.events_lost + 1, after.stats.events_lost);
}

/*
 * Read every buffer waiting on @cfd (@kb KiB each); return how many, and
 * add their events_lost fields to *@lost.
 */
static int read_buffers_lost(int cfd, __u32 kb, __u64 *lost)
{
	static char buf[4 * 1024];
	const struct etw_buffer_header *bh = (const void *)buf;
	int n = 0;

	if (kb * 1024 != sizeof(buf))
		return -1;
	while (read(cfd, buf, sizeof(buf)) == sizeof(buf)) {
		*lost += bh->events_lost;
		n++;
	}
	return n;
}

/* A buffer reports the events lost since the previous seal, once. */
TEST(buffer_headers_count_each_lost_event_once)
{
	struct etw_guid g = raw_guid(FAMILY + 14, 0);
	struct etw_session_args q;
	__u64 lost = 0, later = 0;
	long nobufs = 0;
	__u32 id, reg;
	int fd = etw_open(), cfd, i, ret;

	ASSERT_LE(0, fd);
	/* Two 4 KiB buffers on one stream, a consumer that does not read yet. */
	ASSERT_EQ(0, raw_start(fd, "loss-headers", ETW_MODE_REAL_TIME |
			       ETW_MODE_NO_PER_PROCESSOR, 4, 2, &id));
	cfd = raw_consumer(fd, id);
	ASSERT_LE(0, cfd);
	ASSERT_EQ(0, raw_enable(fd, id, &g, 0, 0, 0));
	ASSERT_EQ(0, raw_register(fd, &g, 0, 0, &reg, NULL));
	for (i = 0; i < LOSS_EVENTS; i++) {
		ret = raw_write(fd, reg, 1, 0, 0);
		if (ret == -ENOBUFS)
			nobufs++;
		else
			ASSERT_EQ(0, ret);
	}
	ASSERT_LT(0, nobufs);
	EXPECT_EQ(2, read_buffers_lost(cfd, 4, &lost));
	/* The losses ride on the next buffer sealed... */
	ASSERT_EQ(0, raw_write(fd, reg, 1, 0, 0));
	ASSERT_EQ(0, raw_session_op(fd, ETW_IOC_FLUSH, id, NULL));
	EXPECT_EQ(1, read_buffers_lost(cfd, 4, &lost));
	EXPECT_EQ(nobufs, lost);
	/* ...and on no later one. */
	ASSERT_EQ(0, raw_write(fd, reg, 1, 0, 0));
	ASSERT_EQ(0, raw_session_op(fd, ETW_IOC_FLUSH, id, NULL));
	EXPECT_EQ(1, read_buffers_lost(cfd, 4, &later));
	EXPECT_EQ(0, later);
	ASSERT_EQ(0, raw_session_op(fd, ETW_IOC_QUERY, id, &q));
	EXPECT_EQ(nobufs, q.stats.events_lost);
	close(cfd);
	raw_session_op(fd, ETW_IOC_STOP, id, NULL);
	close(fd);
}

/* --- private sessions ---------------------------------------------------- */

FIXTURE(priv) {
	int fd;
	__u32 id;
	int cfd;
};

FIXTURE_SETUP(priv)
{
	self->fd = etw_open();
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, raw_start(self->fd, "priv", ETW_MODE_PRIVATE, 16, 8,
			       &self->id));
	self->cfd = raw_consumer(self->fd, self->id);
	ASSERT_LE(0, self->cfd);
}

FIXTURE_TEARDOWN(priv)
{
	close(self->cfd);
	close(self->fd);	/* stops the private session */
}

/*
 * A private session runs inside its process: no PID filter
 * (EVENT_FILTER_DESCRIPTOR, EVENT_FILTER_TYPE_PID: "only valid for a
 * kernel mode logger session") and no provider group (provider-traits:
 * groups are for global sessions); both EINVAL, the enable unchanged.
 */
TEST_F(priv, pid_filter_and_group_are_einval)
{
	struct etw_guid g = raw_guid(FAMILY + 10, 1);
	struct etw_enable_args e;
	__u32 pid = getpid();

	raw_enable_init(&e, self->id, &g, 0, 0, 0);
	e.pid_count = 1;
	e.pids_ptr = (uintptr_t)&pid;
	EXPECT_EQ(-1, ioctl(self->fd, ETW_IOC_ENABLE, &e));
	EXPECT_EQ(EINVAL, errno);
	raw_enable_init(&e, self->id, &g, 0, 0, 0);
	e.properties = ETW_ENABLE_PROVIDER_GROUP;
	EXPECT_EQ(-1, ioctl(self->fd, ETW_IOC_ENABLE, &e));
	EXPECT_EQ(EINVAL, errno);
	raw_enable_init(&e, self->id, &g, 0, 0, 0);
	EXPECT_EQ(0, ioctl(self->fd, ETW_IOC_ENABLE, &e));
}

TEST_F(priv, only_owner_process_registrations_reach_it)
{
	struct etw_guid g = raw_guid(FAMILY + 10, 0);
	struct pid_tally t = { .guid = g, .parent = getpid() };
	int i;
	__u32 reg = 0;
	pid_t pid;

	ASSERT_EQ(0, raw_enable(self->fd, self->id, &g, 0, 0, 0));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		int fd = etw_open();

		if (fd < 0 || raw_register(fd, &g, 0, 0, &reg, NULL))
			_exit(2);
		for (i = 0; i < 3; i++)
			if (raw_write(fd, reg, 1, 0, 0))
				_exit(3);
		_exit(0);
	}
	t.child = pid;
	ASSERT_EQ(0, etw_wait_child(pid));
	ASSERT_EQ(0, raw_register(self->fd, &g, 0, 0, &reg, NULL));
	for (i = 0; i < 2; i++)
		ASSERT_EQ(0, raw_write(self->fd, reg, 1, 0, 0));
	ASSERT_EQ(0, raw_session_op(self->fd, ETW_IOC_FLUSH, self->id, NULL));
	ASSERT_LE(0, raw_drain(self->cfd, 16 * 1024, pid_tally_fn, &t));
	EXPECT_EQ(2, t.from_parent);
	EXPECT_EQ(0, t.from_child);
	EXPECT_EQ(0, t.other);
}

TEST_F(priv, records_carry_private_session_flag)
{
	struct etw_guid g = raw_guid(FAMILY + 11, 0);
	const struct etw_event_header *h;
	static char buf[16 * 1024];
	__u32 reg = 0;

	ASSERT_EQ(0, raw_register(self->fd, &g, 0, 0, &reg, NULL));
	ASSERT_EQ(0, raw_enable(self->fd, self->id, &g, 0, 0, 0));
	ASSERT_EQ(0, raw_write(self->fd, reg, 1, 0, 0));
	ASSERT_EQ(0, raw_session_op(self->fd, ETW_IOC_FLUSH, self->id, NULL));
	ASSERT_EQ(sizeof(buf), read(self->cfd, buf, sizeof(buf)));
	h = (const void *)(buf + ETW_BUFFER_HEADER_SIZE);
	EXPECT_TRUE(raw_guid_eq(&g, &h->provider_id));
	EXPECT_EQ(getpid(), h->process_id);
	EXPECT_EQ(ETW_EVENT_FLAG_PRIVATE_SESSION, h->flags);
}

/* What a consumer of a 16 KiB-buffer session saw of @g, after a FLUSH. */
static __u64 private_tags(struct __test_metadata *_metadata, int fd,
			  __u32 id, int cfd, const struct etw_guid *g)
{
	struct raw_seen c = { .guid = *g };

	EXPECT_EQ(0, raw_flush_seen(fd, id, cfd, 16 * 1024, &c));
	return c.tags;
}

/*
 * EventWriteEx's bits 16-19 name the writer's private sessions, one bit
 * each, apart from the global sessions' bits 0-7.
 */
TEST_F(priv, exclude_bits_16_up_are_the_owners_private_sessions)
{
	struct etw_guid g = raw_guid(FAMILY + 15, 0);
	__u32 second, global, reg = 0;
	int cfd2, gcfd;

	ASSERT_EQ(0, raw_start(self->fd, "priv-2", ETW_MODE_PRIVATE, 16, 8,
			       &second));
	cfd2 = raw_consumer(self->fd, second);
	ASSERT_LE(0, cfd2);
	ASSERT_EQ(0, raw_start(self->fd, "priv-global", ETW_MODE_REAL_TIME,
			       16, 8, &global));
	gcfd = raw_consumer(self->fd, global);
	ASSERT_LE(0, gcfd);
	/* A fresh GUID: the global session takes slot 0, bit 0. */
	ASSERT_EQ(0, raw_enable(self->fd, global, &g, 0, 0, 0));
	ASSERT_EQ(0, raw_enable(self->fd, self->id, &g, 0, 0, 0));
	ASSERT_EQ(0, raw_enable(self->fd, second, &g, 0, 0, 0));
	ASSERT_EQ(0, raw_register(self->fd, &g, 0, 0, &reg, NULL));
	ASSERT_EQ(0, raw_write_ex(self->fd, reg, 1, 0, 0, 1, 0));
	ASSERT_EQ(0, raw_write_ex(self->fd, reg, 1, 0, 0, 2, 1ull << 16));
	ASSERT_EQ(0, raw_write_ex(self->fd, reg, 1, 0, 0, 3, 1ull << 17));
	ASSERT_EQ(0, raw_write_ex(self->fd, reg, 1, 0, 0, 4, 1ull << 0));
	EXPECT_EQ(0x1a, private_tags(_metadata, self->fd, self->id, self->cfd,
				     &g));
	EXPECT_EQ(0x16, private_tags(_metadata, self->fd, second, cfd2, &g));
	EXPECT_EQ(0x0e, private_tags(_metadata, self->fd, global, gcfd, &g));
	close(gcfd);
	raw_session_op(self->fd, ETW_IOC_STOP, global, NULL);
	close(cfd2);
}

TEST_F(priv, cannot_enable_groups)
{
	struct etw_guid g = raw_guid(FAMILY + 12, 0);

	EXPECT_EQ(-EINVAL, raw_control(self->fd, self->id, &g,
				       ETW_CONTROL_ENABLE,
				       ETW_ENABLE_PROVIDER_GROUP));
}

/* Does LIST_SESSIONS on @fd name session @id: 1, 0, or -errno. */
static int lists_session(int fd, __u32 id)
{
	__u32 ids[ETW_MAX_GLOBAL_SESSIONS + ETW_MAX_PRIVATE_SESSIONS];
	struct etw_list_args l = { .size = sizeof(l),
				   .count = sizeof(ids) / sizeof(ids[0]),
				   .ids_ptr = (uintptr_t)ids };
	__u32 i;
	int ret = etw_ioctl(fd, ETW_IOC_LIST_SESSIONS, &l);

	if (ret)
		return ret;
	for (i = 0; i < l.count && i < sizeof(ids) / sizeof(ids[0]); i++)
		if (ids[i] == id)
			return 1;
	return 0;
}

TEST_F(priv, other_process_does_not_list_it)
{
	pid_t pid;

	ASSERT_EQ(1, lists_session(self->fd, self->id));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		int fd = etw_open();

		_exit(fd < 0 ? 2 : lists_session(fd, self->id));
	}
	EXPECT_EQ(0, etw_wait_child(pid));
}

/* Another process (root, even) does not find a private session at all. */
FIXTURE(priv_other) {
	int fd;
	__u32 id;
};

FIXTURE_VARIANT(priv_other) {
	int op;
};

enum { OP_QUERY, OP_FLUSH, OP_STOP, OP_CONSUME, OP_ENABLE };

FIXTURE_VARIANT_ADD(priv_other, query) { .op = OP_QUERY };
FIXTURE_VARIANT_ADD(priv_other, flush) { .op = OP_FLUSH };
FIXTURE_VARIANT_ADD(priv_other, stop) { .op = OP_STOP };
FIXTURE_VARIANT_ADD(priv_other, consume) { .op = OP_CONSUME };
FIXTURE_VARIANT_ADD(priv_other, enable) { .op = OP_ENABLE };

FIXTURE_SETUP(priv_other)
{
	self->fd = etw_open();
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, raw_start(self->fd, "priv-other", ETW_MODE_PRIVATE, 4, 0,
			       &self->id));
}

FIXTURE_TEARDOWN(priv_other)
{
	close(self->fd);
}

static int priv_other_op(int fd, int op, __u32 id)
{
	struct etw_guid g = raw_guid(FAMILY + 13, 0);

	switch (op) {
	case OP_QUERY:
		return raw_session_op(fd, ETW_IOC_QUERY, id, NULL);
	case OP_FLUSH:
		return raw_session_op(fd, ETW_IOC_FLUSH, id, NULL);
	case OP_STOP:
		return raw_session_op(fd, ETW_IOC_STOP, id, NULL);
	case OP_CONSUME:
		return raw_consumer(fd, id);
	default:
		return raw_enable(fd, id, &g, 0, 0, 0);
	}
}

TEST_F(priv_other, another_process_gets_enoent)
{
	pid_t pid = fork();

	ASSERT_LE(0, pid);
	if (!pid) {
		int fd = etw_open();

		_exit(fd < 0 ? 100 : -priv_other_op(fd, variant->op, self->id));
	}
	EXPECT_EQ(ENOENT, etw_wait_child(pid));
	/* Still there for its owner. */
	EXPECT_EQ(0, raw_session_op(self->fd, ETW_IOC_QUERY, self->id, NULL));
}

TEST_HARNESS_MAIN
