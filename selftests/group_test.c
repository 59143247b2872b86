// SPDX-License-Identifier: GPL-2.0
/*
 * Provider traits, provider groups and the record layout through the raw
 * ABI: ETW_IOC_SET_TRAITS validation, traits copied into events, group
 * enables and the disallow list, the group-join permission rule, extended
 * data items from ETW_WRITE_RELATED_ACTIVITY and ETW_WRITE_DESC_TYPES, and
 * an EVENT_HEADER checked byte by byte.
 */
#include <sys/syscall.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "etw_raw.h"

#define BUF_KB		64
#define BUF_BYTES	(BUF_KB * 1024)
#define FAMILY		0x6a0b0000

/* Register @guid with traits naming @group (none when NULL). */
static int register_member(int fd, const struct etw_guid *guid,
			   const struct etw_guid *group, __u32 *reg)
{
	__u8 blob[64];
	int ret = raw_register(fd, guid, 0, 0, reg, NULL);

	if (ret)
		return ret;
	return raw_set_traits(fd, *reg, blob,
			      raw_traits_blob(blob, "Member", group));
}

static int enable_group(int fd, __u32 id, const struct etw_guid *group)
{
	return raw_control(fd, id, group, ETW_CONTROL_ENABLE,
			   ETW_ENABLE_PROVIDER_GROUP);
}

FIXTURE(grp) {
	int fd;
	__u32 id;
	int cfd;
	__u8 buf[BUF_BYTES];
};

FIXTURE_SETUP(grp)
{
	self->fd = etw_open();
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, raw_start(self->fd, "group", ETW_MODE_REAL_TIME, BUF_KB,
			       8, &self->id));
	self->cfd = raw_consumer(self->fd, self->id);
	ASSERT_LE(0, self->cfd);
}

FIXTURE_TEARDOWN(grp)
{
	close(self->cfd);
	raw_session_op(self->fd, ETW_IOC_STOP, self->id, NULL);
	close(self->fd);
}

/* Flush and read the one buffer expected; return its first record. */
static const __u8 *first_record(struct __test_metadata *_metadata,
				FIXTURE_DATA(grp) *self)
{
	const struct etw_buffer_header *bh = (const void *)self->buf;

	EXPECT_EQ(0, raw_session_op(self->fd, ETW_IOC_FLUSH, self->id, NULL));
	EXPECT_EQ(BUF_BYTES, read(self->cfd, self->buf, BUF_BYTES));
	EXPECT_LE(1, bh->events);
	return self->buf + ETW_BUFFER_HEADER_SIZE;
}

/* Check one extended item at @p; return the byte after it. */
static const __u8 *check_ext(struct __test_metadata *_metadata, const __u8 *p,
			     __u16 type, const void *data, __u16 size,
			     int last)
{
	const struct etw_ext_item *it = (const void *)p;
	unsigned int i;

	EXPECT_EQ(type, it->ext_type);
	EXPECT_EQ(sizeof(*it) + RAW_ALIGN8(size), it->item_size);
	EXPECT_EQ(size, it->data_size);
	EXPECT_EQ(last ? 0 : ETW_EXT_LINKAGE, it->linkage);
	EXPECT_EQ(0, memcmp(p + sizeof(*it), data, size));
	for (i = size; i < RAW_ALIGN8(size); i++)
		EXPECT_EQ(0, p[sizeof(*it) + i]);
	return p + it->item_size;
}

/* --- traits -------------------------------------------------------------- */

TEST_F(grp, valid_traits_are_accepted)
{
	struct etw_guid g = raw_guid(FAMILY + 1, 0);
	struct etw_guid group = raw_guid(FAMILY + 1, 1);
	__u8 blob[64];
	__u32 reg;

	ASSERT_EQ(0, raw_register(self->fd, &g, 0, 0, &reg, NULL));
	EXPECT_EQ(0, raw_set_traits(self->fd, reg, blob,
				    raw_traits_blob(blob, "Valid", &group)));
}

TEST_F(grp, second_set_traits_is_eexist)
{
	struct etw_guid g = raw_guid(FAMILY + 2, 0);
	__u8 blob[64];
	__u32 reg, len;

	ASSERT_EQ(0, raw_register(self->fd, &g, 0, 0, &reg, NULL));
	len = raw_traits_blob(blob, "Twice", NULL);
	ASSERT_EQ(0, raw_set_traits(self->fd, reg, blob, len));
	EXPECT_EQ(-EEXIST, raw_set_traits(self->fd, reg, blob, len));
}

TEST_F(grp, traits_are_copied_into_every_event)
{
	struct etw_guid g = raw_guid(FAMILY + 3, 0);
	const struct etw_event_header *h;
	const __u8 *rec, *p;
	__u8 blob[64];
	__u16 len;
	__u32 reg;
	int i;

	ASSERT_EQ(0, raw_register(self->fd, &g, 0, 0, &reg, NULL));
	len = raw_traits_blob(blob, "Copied", NULL);	/* 9 bytes: padded */
	ASSERT_EQ(0, raw_set_traits(self->fd, reg, blob, len));
	ASSERT_EQ(0, raw_enable(self->fd, self->id, &g, 0, 0, 0));
	for (i = 0; i < 2; i++)
		ASSERT_EQ(0, raw_write_ex(self->fd, reg, 1, 0, 0, i, 0));
	rec = first_record(_metadata, self);
	for (i = 0; i < 2; i++) {
		const struct raw_payload *pl;

		h = (const void *)rec;
		EXPECT_TRUE(raw_guid_eq(&g, &h->provider_id));
		EXPECT_EQ(ETW_EVENT_FLAG_EXTENDED_INFO, h->flags);
		p = check_ext(_metadata, rec + sizeof(*h), ETW_EXT_PROV_TRAITS,
			      blob, len, 1);
		pl = (const void *)p;
		EXPECT_EQ(i, pl->tag);
		EXPECT_EQ(p + sizeof(*pl) - rec, h->size);
		rec += RAW_ALIGN8(h->size);
	}
}

/* Malformed blobs: each is refused with EBADMSG. */
FIXTURE(bad_traits) {
	int fd;
	__u32 reg;
};

FIXTURE_VARIANT(bad_traits) {
	__u8 blob[16];
	__u32 len;
};

FIXTURE_VARIANT_ADD(bad_traits, shorter_than_three) {
	.blob = { 2, 0 }, .len = 2,
};

FIXTURE_VARIANT_ADD(bad_traits, own_size_larger) {
	.blob = { 5, 0, 'a', 0 }, .len = 4,
};

FIXTURE_VARIANT_ADD(bad_traits, own_size_smaller) {
	.blob = { 4, 0, 'a', 'b', 0 }, .len = 5,
};

FIXTURE_VARIANT_ADD(bad_traits, name_not_terminated) {
	.blob = { 5, 0, 'a', 'b', 'c' }, .len = 5,
};

FIXTURE_VARIANT_ADD(bad_traits, trait_size_below_three) {
	.blob = { 7, 0, 'a', 0, 2, 0, 1 }, .len = 7,
};

FIXTURE_VARIANT_ADD(bad_traits, trait_overruns_blob) {
	.blob = { 8, 0, 'a', 0, 9, 0, 1, 0 }, .len = 8,
};

FIXTURE_VARIANT_ADD(bad_traits, one_trailing_byte) {
	.blob = { 5, 0, 'a', 0, 3 }, .len = 5,
};

FIXTURE_VARIANT_ADD(bad_traits, longer_than_max) {
	.blob = { 0, 0, 'a', 0 }, .len = ETW_MAX_TRAITS_SIZE + 1,
};

FIXTURE_SETUP(bad_traits)
{
	struct etw_guid g = raw_guid(FAMILY + 4, 0);

	self->fd = etw_open();
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, raw_register(self->fd, &g, 0, 0, &self->reg, NULL));
}

FIXTURE_TEARDOWN(bad_traits)
{
	close(self->fd);
}

TEST_F(bad_traits, is_ebadmsg)
{
	__u8 *blob = calloc(1, ETW_MAX_TRAITS_SIZE + 1);
	__u8 ok[64];

	ASSERT_NE(NULL, blob);
	memcpy(blob, variant->blob, sizeof(variant->blob));
	EXPECT_EQ(-EBADMSG, raw_set_traits(self->fd, self->reg, blob,
					   variant->len));
	/* Nothing was set: a valid blob is still accepted. */
	EXPECT_EQ(0, raw_set_traits(self->fd, self->reg, ok,
				    raw_traits_blob(ok, "Ok", NULL)));
	free(blob);
}

/* --- groups -------------------------------------------------------------- */

/* Write one event from each registration; how many reached the session. */
static void write_each_and_tally(struct __test_metadata *_metadata,
				 FIXTURE_DATA(grp) *self, const __u32 *reg,
				 struct raw_seen *c, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		EXPECT_EQ(0, raw_write(self->fd, reg[i], 1, 0, 0));
		c[i].n = 0;
	}
	EXPECT_EQ(0, raw_session_op(self->fd, ETW_IOC_FLUSH, self->id, NULL));
	for (;;) {
		ssize_t r = read(self->cfd, self->buf, BUF_BYTES);

		if (r <= 0)
			break;
		for (i = 0; i < n; i++)
			EXPECT_LE(0, raw_walk_buffer(self->buf, raw_seen_fn,
						     &c[i]));
	}
}

TEST_F(grp, group_enable_reaches_members_only)
{
	struct etw_guid group = raw_guid(FAMILY + 5, 0);
	struct etw_guid m1 = raw_guid(FAMILY + 5, 1);
	struct etw_guid m2 = raw_guid(FAMILY + 5, 2);
	struct etw_guid loner = raw_guid(FAMILY + 5, 3);
	struct raw_seen c[4] = { { .guid = m1 }, { .guid = m2 },
				 { .guid = loner }, { .guid = group } };
	__u32 reg[4];

	ASSERT_EQ(0, register_member(self->fd, &m1, &group, &reg[0]));
	ASSERT_EQ(0, enable_group(self->fd, self->id, &group));
	/* A member joining after the enable is reached too. */
	ASSERT_EQ(0, register_member(self->fd, &m2, &group, &reg[1]));
	ASSERT_EQ(0, register_member(self->fd, &loner, NULL, &reg[2]));
	/* The group GUID as a provider of its own is not a member. */
	ASSERT_EQ(0, raw_register(self->fd, &group, 0, 0, &reg[3], NULL));
	write_each_and_tally(_metadata, self, reg, c, 4);
	EXPECT_EQ(1, c[0].n);
	EXPECT_EQ(1, c[1].n);
	EXPECT_EQ(0, c[2].n);
	EXPECT_EQ(0, c[3].n);
}

TEST_F(grp, disallow_list_excludes_member_and_can_change)
{
	struct etw_guid group = raw_guid(FAMILY + 6, 0);
	struct etw_guid m[2] = { raw_guid(FAMILY + 6, 1),
				 raw_guid(FAMILY + 6, 2) };
	struct raw_seen c[2] = { { .guid = m[0] }, { .guid = m[1] } };
	__u32 reg[2];

	ASSERT_EQ(0, register_member(self->fd, &m[0], &group, &reg[0]));
	ASSERT_EQ(0, register_member(self->fd, &m[1], &group, &reg[1]));
	/* Set before the group enable. */
	ASSERT_EQ(0, raw_set_disallow(self->fd, self->id, &m[0], 1));
	ASSERT_EQ(0, enable_group(self->fd, self->id, &group));
	write_each_and_tally(_metadata, self, reg, c, 2);
	EXPECT_EQ(0, c[0].n);
	EXPECT_EQ(1, c[1].n);
	/* Changed while enabled. */
	ASSERT_EQ(0, raw_set_disallow(self->fd, self->id, &m[1], 1));
	write_each_and_tally(_metadata, self, reg, c, 2);
	EXPECT_EQ(1, c[0].n);
	EXPECT_EQ(0, c[1].n);
	/* Cleared. */
	ASSERT_EQ(0, raw_set_disallow(self->fd, self->id, NULL, 0));
	write_each_and_tally(_metadata, self, reg, c, 2);
	EXPECT_EQ(1, c[0].n);
	EXPECT_EQ(1, c[1].n);
}

TEST_F(grp, event_id_filter_does_not_apply_through_group)
{
	static const __u16 only = 1;
	struct etw_guid group = raw_guid(FAMILY + 7, 0);
	struct etw_guid m = raw_guid(FAMILY + 7, 1);
	struct raw_seen c = { .guid = m };
	struct etw_enable_args e;
	__u32 reg;

	ASSERT_EQ(0, register_member(self->fd, &m, &group, &reg));
	raw_enable_init(&e, self->id, &group, 0, 0, 0);
	e.properties = ETW_ENABLE_PROVIDER_GROUP;
	e.event_id_count = 1;
	e.event_ids_ptr = (uintptr_t)&only;
	e.event_ids_filter_in = 1;
	ASSERT_EQ(0, etw_ioctl(self->fd, ETW_IOC_ENABLE, &e));
	ASSERT_EQ(0, raw_write(self->fd, reg, 1, 0, 0));
	ASSERT_EQ(0, raw_write(self->fd, reg, 2, 0, 0));
	ASSERT_EQ(0, raw_flush_seen(self->fd, self->id, self->cfd, BUF_BYTES,
				    &c));
	EXPECT_EQ((1u << 1) | (1u << 2), c.ids);
}

/* --- the group-join permission rule -------------------------------------- */

/*
 * A process that, as @uid, registers a member of @group, reports the
 * result (an errno, 0 for success) on @res and, when @hold, keeps the
 * registration until a byte arrives on @release.
 */
static pid_t join_as(uid_t uid, const struct etw_guid *group, int res,
		     int release, int hold)
{
	pid_t pid = fork();

	if (!pid) {
		struct etw_guid g = raw_guid(FAMILY + 8, 1 + uid % 64);
		unsigned char err;
		__u32 reg;
		int fd;

		if (uid && (setgid(uid) || setuid(uid)))
			_exit(2);
		fd = etw_open();
		if (fd < 0)
			_exit(3);
		err = -register_member(fd, &g, group, &reg);
		if (write(res, &err, 1) != 1)
			_exit(4);
		if (hold)
			raw_wait_byte(release);
		_exit(0);
	}
	return pid;
}

static int join_result(int res)
{
	unsigned char err;

	return read(res, &err, 1) == 1 ? err : -1;
}

/* @first joins a new group and holds it; then @second tries. */
static int second_join(struct __test_metadata *_metadata, uid_t first,
		       uid_t second)
{
	struct etw_guid group = raw_guid(FAMILY + 8, 0);
	int res[2], rel[2], ret;
	pid_t a, b;

	ASSERT_EQ(0, pipe(res));
	ASSERT_EQ(0, pipe(rel));
	a = join_as(first, &group, res[1], rel[0], 1);
	ASSERT_LE(0, a);
	EXPECT_EQ(0, join_result(res[0]));
	b = join_as(second, &group, res[1], rel[0], 0);
	ASSERT_LE(0, b);
	ret = join_result(res[0]);
	raw_post_byte(rel[1]);
	EXPECT_EQ(0, etw_wait_child(b));
	EXPECT_EQ(0, etw_wait_child(a));
	return ret;
}

TEST(different_uid_joining_group_is_eacces)
{
	EXPECT_EQ(EACCES, second_join(_metadata, 0, 1000));
}

TEST(same_uid_joining_group_is_allowed)
{
	EXPECT_EQ(0, second_join(_metadata, 1000, 1000));
}

TEST(root_joining_users_group_is_allowed)
{
	EXPECT_EQ(0, second_join(_metadata, 1000, 0));
}

/* --- extended items and descriptor types --------------------------------- */

static const struct etw_guid related = {
	0xa1b2c3d4, 0x1111, 0x2222, { 9, 8, 7, 6, 5, 4, 3, 2 } };

TEST_F(grp, related_activity_becomes_ext_item_1)
{
	struct etw_guid g = raw_guid(FAMILY + 9, 0);
	const struct etw_event_header *h;
	struct etw_write_args w;
	const __u8 *rec;
	__u32 reg;

	ASSERT_EQ(0, raw_register(self->fd, &g, 0, 0, &reg, NULL));
	ASSERT_EQ(0, raw_enable(self->fd, self->id, &g, 0, 0, 0));
	raw_write_init(&w, reg, 1, 0, 0);
	w.flags = ETW_WRITE_RELATED_ACTIVITY;
	w.related_activity_id = related;
	ASSERT_EQ(0, etw_ioctl(self->fd, ETW_IOC_WRITE, &w));
	rec = first_record(_metadata, self);
	h = (const void *)rec;
	EXPECT_EQ(ETW_EVENT_FLAG_EXTENDED_INFO, h->flags);
	EXPECT_EQ(sizeof(*h) + 8 + 16, h->size);
	check_ext(_metadata, rec + sizeof(*h), ETW_EXT_RELATED_ACTIVITYID,
		  &related, sizeof(related), 1);
}

/* Write with ETW_WRITE_DESC_TYPES: @n descriptors, payload "PAYLOAD!". */
static int write_typed(int fd, __u32 reg, struct etw_data_descriptor *d,
		       __u32 n, __u32 flags)
{
	struct etw_write_args w;

	raw_write_init(&w, reg, 1, 0, 0);
	w.flags = ETW_WRITE_DESC_TYPES | flags;
	w.related_activity_id = related;
	w.data_count = n;
	w.data_ptr = (uintptr_t)d;
	return etw_ioctl(fd, ETW_IOC_WRITE, &w);
}

static const char schema[] = "schema-bytes";	/* 13 with the NUL */
static const char payload[] = "PAYLOAD";	/* 8 with the NUL */

TEST_F(grp, event_metadata_descriptor_becomes_ext_item_b)
{
	struct etw_guid g = raw_guid(FAMILY + 10, 0);
	struct etw_data_descriptor d[2] = {
		{ .ptr = (uintptr_t)schema, .size = sizeof(schema),
		  .type = ETW_DATA_TYPE_EVENT_METADATA },
		{ .ptr = (uintptr_t)payload, .size = sizeof(payload) },
	};
	const struct etw_event_header *h;
	const __u8 *rec, *p;
	__u32 reg;

	ASSERT_EQ(0, raw_register(self->fd, &g, 0, 0, &reg, NULL));
	ASSERT_EQ(0, raw_enable(self->fd, self->id, &g, 0, 0, 0));
	ASSERT_EQ(0, write_typed(self->fd, reg, d, 2, 0));
	rec = first_record(_metadata, self);
	h = (const void *)rec;
	p = check_ext(_metadata, rec + sizeof(*h), ETW_EXT_EVENT_SCHEMA_TL,
		      schema, sizeof(schema), 1);
	EXPECT_EQ(0, memcmp(p, payload, sizeof(payload)));
	EXPECT_EQ(p + sizeof(payload) - rec, h->size);
}

TEST_F(grp, provider_metadata_descriptor_becomes_ext_item_c)
{
	struct etw_guid g = raw_guid(FAMILY + 11, 0);
	struct etw_data_descriptor d[2];
	const struct etw_event_header *h;
	const __u8 *rec, *p;
	__u8 blob[64];
	__u32 reg;

	memset(d, 0, sizeof(d));
	d[0].ptr = (uintptr_t)blob;
	d[0].size = raw_traits_blob(blob, "FromDescriptor", NULL);
	d[0].type = ETW_DATA_TYPE_PROVIDER_METADATA;
	d[1].ptr = (uintptr_t)payload;
	d[1].size = sizeof(payload);
	ASSERT_EQ(0, raw_register(self->fd, &g, 0, 0, &reg, NULL));
	ASSERT_EQ(0, raw_enable(self->fd, self->id, &g, 0, 0, 0));
	ASSERT_EQ(0, write_typed(self->fd, reg, d, 2, 0));
	rec = first_record(_metadata, self);
	h = (const void *)rec;
	p = check_ext(_metadata, rec + sizeof(*h), ETW_EXT_PROV_TRAITS,
		      blob, d[0].size, 1);
	EXPECT_EQ(0, memcmp(p, payload, sizeof(payload)));
	EXPECT_EQ(p + sizeof(payload) - rec, h->size);
}

TEST_F(grp, set_traits_win_over_provider_metadata_descriptor)
{
	struct etw_guid g = raw_guid(FAMILY + 12, 0);
	struct etw_data_descriptor d[2];
	__u8 blob[64], set[64];
	const __u8 *rec;
	__u16 set_len;
	__u32 reg;

	memset(d, 0, sizeof(d));
	d[0].ptr = (uintptr_t)blob;
	d[0].size = raw_traits_blob(blob, "FromDescriptor", NULL);
	d[0].type = ETW_DATA_TYPE_PROVIDER_METADATA;
	d[1].ptr = (uintptr_t)payload;
	d[1].size = sizeof(payload);
	ASSERT_EQ(0, raw_register(self->fd, &g, 0, 0, &reg, NULL));
	set_len = raw_traits_blob(set, "Set", NULL);
	ASSERT_EQ(0, raw_set_traits(self->fd, reg, set, set_len));
	ASSERT_EQ(0, raw_enable(self->fd, self->id, &g, 0, 0, 0));
	ASSERT_EQ(0, write_typed(self->fd, reg, d, 2, 0));
	rec = first_record(_metadata, self);
	check_ext(_metadata, rec + sizeof(struct etw_event_header),
		  ETW_EXT_PROV_TRAITS, set, set_len, 1);
}

TEST_F(grp, ext_items_are_linked_in_order)
{
	struct etw_guid g = raw_guid(FAMILY + 13, 0);
	struct etw_data_descriptor d[2] = {
		{ .ptr = (uintptr_t)schema, .size = sizeof(schema),
		  .type = ETW_DATA_TYPE_EVENT_METADATA },
		{ .ptr = (uintptr_t)payload, .size = sizeof(payload) },
	};
	const struct etw_event_header *h;
	const __u8 *rec, *p;
	__u8 set[64];
	__u16 set_len;
	__u32 reg;

	ASSERT_EQ(0, raw_register(self->fd, &g, 0, 0, &reg, NULL));
	set_len = raw_traits_blob(set, "Linked", NULL);
	ASSERT_EQ(0, raw_set_traits(self->fd, reg, set, set_len));
	ASSERT_EQ(0, raw_enable(self->fd, self->id, &g, 0, 0, 0));
	ASSERT_EQ(0, write_typed(self->fd, reg, d, 2,
				 ETW_WRITE_RELATED_ACTIVITY));
	rec = first_record(_metadata, self);
	h = (const void *)rec;
	p = check_ext(_metadata, rec + sizeof(*h), ETW_EXT_RELATED_ACTIVITYID,
		      &related, sizeof(related), 0);
	p = check_ext(_metadata, p, ETW_EXT_PROV_TRAITS, set, set_len, 0);
	p = check_ext(_metadata, p, ETW_EXT_EVENT_SCHEMA_TL, schema,
		      sizeof(schema), 1);
	EXPECT_EQ(0, memcmp(p, payload, sizeof(payload)));
	EXPECT_EQ(p + sizeof(payload) - rec, h->size);
}

/* --- the record, byte by byte -------------------------------------------- */

static __u64 le(const __u8 *p, int n)
{
	__u64 v = 0;

	while (n--)
		v = v << 8 | p[n];
	return v;
}

TEST_F(grp, record_layout_byte_by_byte)
{
	static const __u8 three[3] = { 0xa1, 0xa2, 0xa3 };
	struct etw_guid g = raw_guid(FAMILY + 14, 0);
	struct etw_data_descriptor d = { .ptr = (uintptr_t)three, .size = 3 };
	const struct etw_buffer_header *bh = (const void *)self->buf;
	struct etw_write_args w;
	const __u8 *r;
	__u64 before, after, ts;
	__u32 reg;
	int i;

	ASSERT_EQ(0, raw_register(self->fd, &g, 0, 0, &reg, NULL));
	ASSERT_EQ(0, raw_enable(self->fd, self->id, &g, 0, 0, 0));
	raw_write_init(&w, reg, 0x1234, 0x44, 0x0102030405060708ull);
	w.descriptor.version = 0x56;
	w.descriptor.channel = 0x78;
	w.descriptor.opcode = 0x9a;
	w.descriptor.task = 0xbcde;
	w.activity_id = related;
	w.data_count = 1;
	w.data_ptr = (uintptr_t)&d;
	before = raw_now_ns();
	ASSERT_EQ(0, etw_ioctl(self->fd, ETW_IOC_WRITE, &w));
	after = raw_now_ns();
	/* A second record shows where the first one's padding ends. */
	ASSERT_EQ(0, etw_ioctl(self->fd, ETW_IOC_WRITE, &w));
	r = first_record(_metadata, self);

	EXPECT_EQ(2, bh->events);
	EXPECT_EQ(ETW_BUFFER_HEADER_SIZE + 2 * 88, bh->offset);
	EXPECT_EQ(83, le(r + 0, 2));			/* Size */
	EXPECT_EQ(0xc013, le(r + 2, 2));		/* HeaderType */
	EXPECT_EQ(0, le(r + 4, 2));			/* Flags */
	EXPECT_EQ(0, le(r + 6, 2));			/* EventProperty */
	EXPECT_EQ(syscall(SYS_gettid), le(r + 8, 4));	/* ThreadId */
	EXPECT_EQ(getpid(), le(r + 12, 4));		/* ProcessId */
	ts = le(r + 16, 8);				/* TimeStamp */
	EXPECT_LE(before, ts);
	EXPECT_GE(after, ts);
	EXPECT_EQ(0, memcmp(r + 24, &g, 16));		/* ProviderId */
	EXPECT_EQ(0x1234, le(r + 40, 2));		/* Id */
	EXPECT_EQ(0x56, r[42]);				/* Version */
	EXPECT_EQ(0x78, r[43]);				/* Channel */
	EXPECT_EQ(0x44, r[44]);				/* Level */
	EXPECT_EQ(0x9a, r[45]);				/* Opcode */
	EXPECT_EQ(0xbcde, le(r + 46, 2));		/* Task */
	EXPECT_EQ(0x0102030405060708ull, le(r + 48, 8));/* Keyword */
	EXPECT_EQ(0, le(r + 56, 8));			/* ProcessorTime */
	EXPECT_EQ(0, memcmp(r + 64, &related, 16));	/* ActivityId */
	EXPECT_EQ(0, memcmp(r + 80, three, 3));		/* payload */
	for (i = 83; i < 88; i++)			/* zero padding */
		EXPECT_EQ(0, r[i]);
	EXPECT_EQ(83, le(r + 88, 2));			/* next record */
	EXPECT_EQ(0xc013, le(r + 90, 2));
	EXPECT_EQ(0xff, r[176]);			/* unused tail */
}

TEST_HARNESS_MAIN
