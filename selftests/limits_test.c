// SPDX-License-Identifier: GPL-2.0
/*
 * Argument checking and limits of every ioctl through the raw ABI: struct
 * sizes (too small, larger with a non-zero or a zero tail), reserved and
 * padding fields, unknown flags, bad user addresses (NULL, unmapped,
 * kernel), the registration, descriptor and record size limits, and who
 * may do what (unprivileged users, the control_gid parameter).
 */
#include <grp.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "ioc_table.h"

#define FAMILY		0x11a17000
#define CONTROL_GID	"/sys/module/etw/parameters/control_gid"
/* Kernel text with nokaslr: mapped, and never a user address. */
#define KERNEL_ADDR	0xffffffff81000000ull

/*
 * The ioctls these tests loop over; abi_size_test checks the sizes of the
 * others, and bad_argument_address_is_efault checks unregister and ack.
 */
static const enum ioc_index lim_iocs[] = {
	IX_GET_INFO, IX_REGISTER, IX_SET_TRAITS, IX_WRITE, IX_LIST_PROVIDERS,
	IX_START, IX_STOP, IX_QUERY, IX_UPDATE, IX_FLUSH, IX_LIST_SESSIONS,
	IX_ENABLE, IX_SET_DISALLOW, IX_CONSUME,
};
#define NLIM	(sizeof(lim_iocs) / sizeof(lim_iocs[0]))

FIXTURE(lim) {
	struct ioc_ctx c;
	__u8 args[8192];
};

FIXTURE_SETUP(lim)
{
	self->c.family = FAMILY + 1;
	self->c.tag = "limits";
	self->c.fd = etw_open();
	ASSERT_LE(0, self->c.fd);
	ASSERT_EQ(0, raw_start(self->c.fd, "limits", ETW_MODE_REAL_TIME, 4, 0,
			       &self->c.id));
	self->c.guid = raw_guid(FAMILY, 0);
	ASSERT_EQ(0, raw_register(self->c.fd, &self->c.guid, 0, 0,
				  &self->c.reg, NULL));
	/* Enabled, so that writes copy their data. */
	ASSERT_EQ(0, raw_enable(self->c.fd, self->c.id, &self->c.guid, 0, 0,
				0));
}

FIXTURE_TEARDOWN(lim)
{
	raw_session_op(self->c.fd, ETW_IOC_STOP, self->c.id, NULL);
	close(self->c.fd);
}

/* Valid arguments for @i at @size bytes, the rest of the buffer zero. */
static void *args_for(FIXTURE_DATA(lim) *self, const struct ioc *i,
		      __u32 size)
{
	return ioc_args(&self->c, i, self->args, sizeof(self->args), size);
}

/* Check one call on @c's file; failures name the ioctl and the case. */
static void expect_call(struct __test_metadata *_metadata, struct ioc_ctx *c,
			const struct ioc *i, void *a, int want,
			const char *what)
{
	int got = ioc_call(c, i, i->cmd, a);

	EXPECT_EQ(want, got) TH_LOG("%s: %s", i->name, what);
}

TEST_F(lim, size_below_minimum_is_einval)
{
	unsigned int k;

	for (k = 0; k < NLIM; k++) {
		const struct ioc *i = &iocs[lim_iocs[k]];

		expect_call(_metadata, &self->c, i,
			    args_for(self, i, i->ver0 - 1), -EINVAL, "size");
	}
}

TEST_F(lim, larger_size_with_nonzero_tail_is_e2big)
{
	unsigned int k;

	for (k = 0; k < NLIM; k++) {
		const struct ioc *i = &iocs[lim_iocs[k]];
		__u8 *a = args_for(self, i, i->ksize + 8);

		a[i->ksize + 3] = 1;
		expect_call(_metadata, &self->c, i, a, -E2BIG, "size");
	}
}

TEST_F(lim, larger_size_with_zero_tail_is_accepted)
{
	unsigned int k;

	for (k = 0; k < NLIM; k++) {
		const struct ioc *i = &iocs[lim_iocs[k]];

		expect_call(_metadata, &self->c, i,
			    args_for(self, i, i->ksize + 8), 0, "size");
	}
}

TEST_F(lim, exact_size_is_accepted)
{
	unsigned int k;

	for (k = 0; k < NLIM; k++) {
		const struct ioc *i = &iocs[lim_iocs[k]];

		expect_call(_metadata, &self->c, i,
			    args_for(self, i, i->ksize), 0, "size");
	}
}

/* --- bad addresses ------------------------------------------------------- */

/* An address with nothing mapped at it. */
static void *unmapped_addr(void)
{
	void *p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1,
		       0);

	munmap(p, 4096);
	return p;
}

static void *bad_addr(int kind)
{
	switch (kind) {
	case 0:
		return NULL;
	case 1:
		return unmapped_addr();
	default:
		return (void *)(uintptr_t)KERNEL_ADDR;
	}
}

static const char *const addr_kind[] = { "NULL", "unmapped", "kernel" };

TEST_F(lim, bad_argument_address_is_efault)
{
	static const unsigned long plain[] = {
		ETW_IOC_UNREGISTER, ETW_IOC_ACK,
	};
	unsigned int k, kind;

	for (kind = 0; kind < 3; kind++) {
		for (k = 0; k < NLIM; k++)
			expect_call(_metadata, &self->c, &iocs[lim_iocs[k]],
				    bad_addr(kind), -EFAULT, addr_kind[kind]);
		for (k = 0; k < 2; k++)
			EXPECT_EQ(-EFAULT, etw_ioctl(self->c.fd, plain[k],
						     bad_addr(kind)))
				TH_LOG("%lx %s", plain[k], addr_kind[kind]);
	}
}

/* A pointer inside valid arguments: which field, and the count it needs. */
struct embedded {
	const char *name;
	enum ioc_index ioc;
	void (*point)(void *a, __u64 addr);
};

static void pt_traits(void *a, __u64 addr)
{
	((struct etw_traits_args *)a)->traits_ptr = addr;
}

static void pt_write_array(void *a, __u64 addr)
{
	((struct etw_write_args *)a)->data_ptr = addr;
}

static void pt_write_data(void *a, __u64 addr)
{
	static struct etw_data_descriptor d;

	d.ptr = addr;
	d.size = 8;
	((struct etw_write_args *)a)->data_ptr = (uintptr_t)&d;
}

static void pt_list_providers(void *a, __u64 addr)
{
	((struct etw_list_providers_args *)a)->count = 1;
	((struct etw_list_providers_args *)a)->info_ptr = addr;
}

static void pt_list(void *a, __u64 addr)
{
	((struct etw_list_args *)a)->count = 1;
	((struct etw_list_args *)a)->ids_ptr = addr;
}

static void pt_event_ids(void *a, __u64 addr)
{
	((struct etw_enable_args *)a)->event_id_count = 1;
	((struct etw_enable_args *)a)->event_ids_ptr = addr;
}

static void pt_pids(void *a, __u64 addr)
{
	((struct etw_enable_args *)a)->pid_count = 1;
	((struct etw_enable_args *)a)->pids_ptr = addr;
}

static void pt_filter(void *a, __u64 addr)
{
	((struct etw_enable_args *)a)->filter_data_size = 24;
	((struct etw_enable_args *)a)->filter_data_ptr = addr;
}

static void pt_disallow(void *a, __u64 addr)
{
	((struct etw_disallow_args *)a)->count = 1;
	((struct etw_disallow_args *)a)->guids_ptr = addr;
}

static const struct embedded embedded[] = {
	{ "traits_ptr", IX_SET_TRAITS, pt_traits },
	{ "write data_ptr", IX_WRITE, pt_write_array },
	{ "write descriptor ptr", IX_WRITE, pt_write_data },
	{ "list_providers info_ptr", IX_LIST_PROVIDERS, pt_list_providers },
	{ "list_sessions ids_ptr", IX_LIST_SESSIONS, pt_list },
	{ "enable event_ids_ptr", IX_ENABLE, pt_event_ids },
	{ "enable pids_ptr", IX_ENABLE, pt_pids },
	{ "enable filter_data_ptr", IX_ENABLE, pt_filter },
	{ "disallow guids_ptr", IX_SET_DISALLOW, pt_disallow },
};

TEST_F(lim, bad_embedded_address_is_efault)
{
	unsigned int k, kind;
	char what[64];

	for (k = 0; k < sizeof(embedded) / sizeof(embedded[0]); k++) {
		const struct embedded *e = &embedded[k];
		const struct ioc *i = &iocs[e->ioc];

		for (kind = 0; kind < 3; kind++) {
			void *a = args_for(self, i, i->ksize);

			e->point(a, (uintptr_t)bad_addr(kind));
			snprintf(what, sizeof(what), "%s, %s address", e->name,
				 addr_kind[kind]);
			expect_call(_metadata, &self->c, i, a, -EFAULT, what);
		}
	}
}

/* --- reserved fields and unknown flags ----------------------------------- */

struct bad_field {
	const char *name;
	enum ioc_index ioc;
	void (*spoil)(void *a);
};

static void sp_register_flags(void *a)
{
	((struct etw_register_args *)a)->flags = 0x2;
}

static void sp_traits_flags(void *a)
{
	((struct etw_traits_args *)a)->flags = 1;
}

static void sp_write_flags(void *a)
{
	((struct etw_write_args *)a)->flags = 0x100;
}

static void sp_write_desc_reserved(void *a)
{
	static struct etw_data_descriptor d = {
		.ptr = (uintptr_t)ioc_payload, .size = 8, .reserved1 = 1 };

	((struct etw_write_args *)a)->flags = ETW_WRITE_DESC_TYPES;
	((struct etw_write_args *)a)->data_ptr = (uintptr_t)&d;
}

static void sp_write_desc_reserved2(void *a)
{
	static struct etw_data_descriptor d = {
		.ptr = (uintptr_t)ioc_payload, .size = 8, .reserved2 = 1 };

	((struct etw_write_args *)a)->flags = ETW_WRITE_DESC_TYPES;
	((struct etw_write_args *)a)->data_ptr = (uintptr_t)&d;
}

static void sp_write_desc_type(void *a)
{
	static struct etw_data_descriptor d = {
		.ptr = (uintptr_t)ioc_payload, .size = 8, .type = 4 };

	((struct etw_write_args *)a)->flags = ETW_WRITE_DESC_TYPES;
	((struct etw_write_args *)a)->data_ptr = (uintptr_t)&d;
}

static void sp_session_flags(void *a)
{
	((struct etw_session_args *)a)->flags = 1;
}

static void sp_session_reserved(void *a)
{
	((struct etw_session_args *)a)->reserved = 1;
}

static void sp_session_pad0(void *a)
{
	((struct etw_session_args *)a)->pad[0] = 1;
}

static void sp_session_pad6(void *a)
{
	((struct etw_session_args *)a)->pad[6] = 1;
}

static void sp_config_reserved(void *a)
{
	((struct etw_session_args *)a)->config.reserved = 1;
}

static void sp_config_mode(void *a)
{
	((struct etw_session_args *)a)->config.mode |= 0x1;
}

static void sp_enable_reserved0(void *a)
{
	((struct etw_enable_args *)a)->reserved[0] = 1;
}

static void sp_enable_reserved2(void *a)
{
	((struct etw_enable_args *)a)->reserved[2] = 1;
}

static void sp_enable_reserved1(void *a)
{
	((struct etw_enable_args *)a)->reserved1 = 1;
}

static void sp_enable_reserved2_field(void *a)
{
	((struct etw_enable_args *)a)->reserved2 = 1;
}

static void sp_enable_reserved3(void *a)
{
	((struct etw_enable_args *)a)->reserved3 = 1;
}

static void sp_enable_reserved4(void *a)
{
	((struct etw_enable_args *)a)->reserved4[5] = 1;
}

static void sp_enable_exe_too_long(void *a)
{
	static const char names[ETW_MAX_EXE_FILTER + 1] = "app";

	((struct etw_enable_args *)a)->exe_names_ptr = (uintptr_t)names;
	((struct etw_enable_args *)a)->exe_names_size = sizeof(names);
}

static void sp_enable_exe_nul(void *a)
{
	static const char names[] = "app\0";

	((struct etw_enable_args *)a)->exe_names_ptr = (uintptr_t)names;
	((struct etw_enable_args *)a)->exe_names_size = sizeof(names);
}

static void sp_enable_properties(void *a)
{
	((struct etw_enable_args *)a)->properties = 0x1000;	/* defined nowhere */
}

static void sp_enable_control(void *a)
{
	((struct etw_enable_args *)a)->control_code = 3;
}

static void sp_enable_filter_in(void *a)
{
	static const __u16 id = 1;

	((struct etw_enable_args *)a)->event_id_count = 1;
	((struct etw_enable_args *)a)->event_ids_ptr = (uintptr_t)&id;
	((struct etw_enable_args *)a)->event_ids_filter_in = 2;
}

static void sp_enable_filter_in_no_ids(void *a)
{
	((struct etw_enable_args *)a)->event_ids_filter_in = 1;
}

static void sp_disallow_reserved(void *a)
{
	((struct etw_disallow_args *)a)->reserved = 1;
}

static void sp_consume_reserved(void *a)
{
	((struct etw_consume_args *)a)->reserved = 1;
}

static void sp_consume_flags(void *a)
{
	((struct etw_consume_args *)a)->flags |= O_APPEND;
}

static const struct bad_field bad_fields[] = {
	{ "register unknown flag", IX_REGISTER, sp_register_flags },
	{ "traits flags", IX_SET_TRAITS, sp_traits_flags },
	{ "write unknown flag", IX_WRITE, sp_write_flags },
	{ "write descriptor reserved1", IX_WRITE, sp_write_desc_reserved },
	{ "write descriptor reserved2", IX_WRITE, sp_write_desc_reserved2 },
	{ "write descriptor unknown type", IX_WRITE, sp_write_desc_type },
	{ "start flags", IX_START, sp_session_flags },
	{ "start reserved", IX_START, sp_session_reserved },
	{ "start pad[0]", IX_START, sp_session_pad0 },
	{ "start pad[6]", IX_START, sp_session_pad6 },
	{ "start config.reserved", IX_START, sp_config_reserved },
	{ "start unknown mode", IX_START, sp_config_mode },
	{ "query flags", IX_QUERY, sp_session_flags },
	{ "query reserved", IX_QUERY, sp_session_reserved },
	{ "query pad[6]", IX_QUERY, sp_session_pad6 },
	{ "update config.reserved", IX_UPDATE, sp_config_reserved },
	{ "flush pad[0]", IX_FLUSH, sp_session_pad0 },
	{ "enable reserved[0]", IX_ENABLE, sp_enable_reserved0 },
	{ "enable reserved3", IX_ENABLE, sp_enable_reserved3 },
	{ "enable reserved4[5]", IX_ENABLE, sp_enable_reserved4 },
	{ "enable image names past the limit", IX_ENABLE,
	  sp_enable_exe_too_long },
	{ "enable image names with a NUL", IX_ENABLE, sp_enable_exe_nul },
	{ "enable reserved[2]", IX_ENABLE, sp_enable_reserved2 },
	{ "enable reserved1", IX_ENABLE, sp_enable_reserved1 },
	{ "enable reserved2", IX_ENABLE, sp_enable_reserved2_field },
	{ "enable unknown property", IX_ENABLE, sp_enable_properties },
	{ "enable unknown control code", IX_ENABLE, sp_enable_control },
	{ "enable event_ids_filter_in 2", IX_ENABLE, sp_enable_filter_in },
	{ "enable filter_in without ids", IX_ENABLE,
	  sp_enable_filter_in_no_ids },
	{ "disallow reserved", IX_SET_DISALLOW, sp_disallow_reserved },
	{ "consume reserved", IX_CONSUME, sp_consume_reserved },
	{ "consume unknown flag", IX_CONSUME, sp_consume_flags },
};

TEST_F(lim, nonzero_reserved_or_unknown_flag_is_einval)
{
	unsigned int k;

	for (k = 0; k < sizeof(bad_fields) / sizeof(bad_fields[0]); k++) {
		const struct ioc *i = &iocs[bad_fields[k].ioc];
		void *a = args_for(self, i, i->ksize);

		bad_fields[k].spoil(a);
		expect_call(_metadata, &self->c, i, a, -EINVAL,
			    bad_fields[k].name);
	}
}

/* --- limits -------------------------------------------------------------- */

TEST(registration_past_limit_is_emfile)
{
	struct etw_guid g = raw_guid(FAMILY + 2, 0);
	int fd = etw_open(), i, ret = 0;
	__u32 reg;

	ASSERT_LE(0, fd);
	for (i = 0; i < ETW_MAX_REGISTRATIONS && !ret; i++)
		ret = raw_register(fd, &g, 0, 0, &reg, NULL);
	EXPECT_EQ(0, ret);
	EXPECT_EQ(ETW_MAX_REGISTRATIONS, i);
	EXPECT_EQ(-EMFILE, raw_register(fd, &g, 0, 0, &reg, NULL));
	/* One slot freed: one more fits. */
	EXPECT_EQ(0, raw_unregister(fd, 5));
	EXPECT_EQ(0, raw_register(fd, &g, 0, 0, &reg, NULL));
	close(fd);
}

/* Write @n one-byte descriptors. */
static int write_descriptors(int fd, __u32 reg, __u32 n)
{
	static struct etw_data_descriptor d[ETW_MAX_DATA_DESCRIPTORS + 1];
	struct etw_write_args w;
	__u32 i;

	for (i = 0; i < n; i++) {
		d[i].ptr = (uintptr_t)ioc_payload;
		d[i].size = 1;
	}
	raw_write_init(&w, reg, 1, 0, 0);
	w.data_count = n;
	w.data_ptr = (uintptr_t)d;
	return etw_ioctl(fd, ETW_IOC_WRITE, &w);
}

TEST_F(lim, max_descriptors_accepted)
{
	EXPECT_EQ(0, write_descriptors(self->c.fd, self->c.reg,
				       ETW_MAX_DATA_DESCRIPTORS));
}

TEST_F(lim, one_descriptor_too_many_is_einval)
{
	EXPECT_EQ(-EINVAL, write_descriptors(self->c.fd, self->c.reg,
					     ETW_MAX_DATA_DESCRIPTORS + 1));
}

/*
 * A record of exactly @size bytes (header included) in a session of @kb KiB
 * buffers; *@got is the size of the first record delivered, 0 for none.
 */
static int write_record_in(int fd, __u32 kb, __u32 size, __u16 *got)
{
	static char big[ETW_MAX_EVENT_SIZE + 1];
	static char buf[128 * 1024];
	struct etw_guid g = raw_guid(FAMILY + 3, 0);
	struct etw_data_descriptor d = { .ptr = (uintptr_t)big,
		.size = size - sizeof(struct etw_event_header) };
	struct etw_write_args w;
	__u32 id, reg = 0;
	int cfd, ret;

	*got = 0;
	ret = raw_start(fd, "limits-big", ETW_MODE_REAL_TIME, kb, 4, &id);
	if (ret)
		return ret;
	cfd = raw_consumer(fd, id);
	raw_register(fd, &g, 0, 0, &reg, NULL);
	raw_enable(fd, id, &g, 0, 0, 0);
	raw_write_init(&w, reg, 1, 0, 0);
	w.data_count = 1;
	w.data_ptr = (uintptr_t)&d;
	ret = etw_ioctl(fd, ETW_IOC_WRITE, &w);
	raw_session_op(fd, ETW_IOC_FLUSH, id, NULL);
	if (read(cfd, buf, sizeof(buf)) == kb * 1024)
		*got = ((struct etw_event_header *)
			(buf + ETW_BUFFER_HEADER_SIZE))->size;
	close(cfd);
	raw_session_op(fd, ETW_IOC_STOP, id, NULL);
	return ret;
}

static int write_record_of(int fd, __u32 size, __u16 *got)
{
	return write_record_in(fd, 128, size, got);
}

TEST_F(lim, record_of_max_event_size_is_written)
{
	__u16 got;

	EXPECT_EQ(0, write_record_of(self->c.fd, ETW_MAX_EVENT_SIZE, &got));
	EXPECT_EQ(ETW_MAX_EVENT_SIZE, got);
}

TEST_F(lim, record_one_byte_over_max_is_e2big)
{
	__u16 got;

	EXPECT_EQ(-E2BIG, write_record_of(self->c.fd, ETW_MAX_EVENT_SIZE + 1,
					  &got));
	EXPECT_EQ(0, got);
}

/* The largest record a buffer holds fills it after its header exactly. */
TEST_F(lim, record_filling_a_buffer_exactly_is_written)
{
	const __u32 fill = ETW_MIN_BUFFER_KB * 1024 - ETW_BUFFER_HEADER_SIZE;
	__u16 got;

	EXPECT_EQ(0, write_record_in(self->c.fd, ETW_MIN_BUFFER_KB, fill,
				     &got));
	EXPECT_EQ(fill, got);
}

TEST_F(lim, record_one_byte_over_a_buffer_is_emsgsize)
{
	const __u32 fill = ETW_MIN_BUFFER_KB * 1024 - ETW_BUFFER_HEADER_SIZE;
	__u16 got;

	EXPECT_EQ(-EMSGSIZE, write_record_in(self->c.fd, ETW_MIN_BUFFER_KB,
					     fill + 1, &got));
	EXPECT_EQ(0, got);
}

/* --- privileges ---------------------------------------------------------- */

enum {
	UP_REGISTER, UP_PRIVATE_START, UP_GLOBAL_START, UP_QUERY, UP_ENABLE,
	UP_CONSUME, UP_DISALLOW, UP_FLUSH,
};

FIXTURE(unpriv) {
	int fd;
	__u32 id;
};

FIXTURE_VARIANT(unpriv) {
	int op;
	int err;
};

FIXTURE_VARIANT_ADD(unpriv, register_ok) { .op = UP_REGISTER, .err = 0 };
FIXTURE_VARIANT_ADD(unpriv, private_start_ok) {
	.op = UP_PRIVATE_START, .err = 0 };
FIXTURE_VARIANT_ADD(unpriv, global_start_eperm) {
	.op = UP_GLOBAL_START, .err = EPERM };
FIXTURE_VARIANT_ADD(unpriv, query_eperm) { .op = UP_QUERY, .err = EPERM };
FIXTURE_VARIANT_ADD(unpriv, enable_eperm) { .op = UP_ENABLE, .err = EPERM };
FIXTURE_VARIANT_ADD(unpriv, consume_eperm) { .op = UP_CONSUME, .err = EPERM };
FIXTURE_VARIANT_ADD(unpriv, disallow_eperm) {
	.op = UP_DISALLOW, .err = EPERM };

FIXTURE_SETUP(unpriv)
{
	self->fd = etw_open();
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, raw_start(self->fd, "unpriv", ETW_MODE_REAL_TIME, 4, 0,
			       &self->id));
}

FIXTURE_TEARDOWN(unpriv)
{
	raw_session_op(self->fd, ETW_IOC_STOP, self->id, NULL);
	close(self->fd);
}

/* Run @op on a fresh file as the current (unprivileged) user. */
static int unpriv_op(int op, __u32 id)
{
	struct etw_guid g = raw_guid(FAMILY + 4, 0);
	struct etw_disallow_args d = { .size = sizeof(d), .logger_id = id };
	int fd = etw_open(), ret;
	__u32 reg;

	if (fd < 0)
		return -errno;
	switch (op) {
	case UP_REGISTER:
		return raw_register(fd, &g, 0, 0, &reg, NULL);
	case UP_PRIVATE_START:
		return raw_start(fd, "unpriv-private", ETW_MODE_PRIVATE, 4, 0,
				 NULL);
	case UP_GLOBAL_START:
		/* A global session outlives its starter: stop it again. */
		ret = raw_start(fd, "unpriv-global", ETW_MODE_REAL_TIME, 4, 0,
				&id);
		return ret ?: raw_session_op(fd, ETW_IOC_STOP, id, NULL);
	case UP_QUERY:
		return raw_session_op(fd, ETW_IOC_QUERY, id, NULL);
	case UP_ENABLE:
		return raw_enable(fd, id, &g, 0, 0, 0);
	case UP_CONSUME:
		ret = raw_consumer(fd, id);
		return ret < 0 ? ret : 0;
	case UP_FLUSH:
		return raw_session_op(fd, ETW_IOC_FLUSH, id, NULL);
	default:
		return etw_ioctl(fd, ETW_IOC_SET_DISALLOW, &d);
	}
}

/* Fork, drop to uid/gid @uid (with @groups), run @op: its errno. */
static int as_uid(uid_t uid, int op, __u32 id, const gid_t *groups,
		  int ngroups)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (!pid) {
		if (setgroups(ngroups, groups) || setgid(uid) || setuid(uid))
			_exit(200);
		_exit(-unpriv_op(op, id));
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

static int as_user(int op, __u32 id, const gid_t *groups, int ngroups)
{
	return as_uid(1000, op, id, groups, ngroups);
}

TEST_F(unpriv, uid_1000)
{
	EXPECT_EQ(variant->err, as_user(variant->op, self->id, NULL, 0));
}

/* control_gid lets a group's members control global sessions. */
static int set_control_gid(const char *v)
{
	int fd = open(CONTROL_GID, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, v, strlen(v));
	close(fd);
	return n == (ssize_t)strlen(v) ? 0 : -EIO;
}

FIXTURE(gid) {
	int fd;
	__u32 id;
	__u32 member_id;	/* a session a member started, or 0 */
};

FIXTURE_SETUP(gid)
{
	self->fd = etw_open();
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, raw_start(self->fd, "gid", ETW_MODE_REAL_TIME, 4, 0,
			       &self->id));
	self->member_id = 0;
	ASSERT_EQ(0, set_control_gid("1001"));
}

FIXTURE_TEARDOWN(gid)
{
	set_control_gid("-1");
	if (self->member_id)
		raw_session_op(self->fd, ETW_IOC_STOP, self->member_id, NULL);
	raw_session_op(self->fd, ETW_IOC_STOP, self->id, NULL);
	close(self->fd);
}

TEST_F(gid, control_group_member_may_control_global_sessions)
{
	static const gid_t control = 1001;
	static const int ops[] = { UP_QUERY, UP_ENABLE, UP_FLUSH,
				   UP_DISALLOW };
	unsigned int k;

	for (k = 0; k < sizeof(ops) / sizeof(ops[0]); k++)
		EXPECT_EQ(0, as_user(ops[k], self->id, &control, 1))
			TH_LOG("op %d", ops[k]);
}

/*
 * Reading a session needs rights covering what its records may show:
 * root's show kernel addresses and every process's layout.
 */
TEST_F(gid, control_group_member_may_not_consume_roots_session)
{
	static const gid_t control = 1001;

	EXPECT_EQ(EPERM, as_user(UP_CONSUME, self->id, &control, 1));
}

TEST_F(gid, root_may_consume_its_session)
{
	int cfd = raw_consumer(self->fd, self->id);

	EXPECT_LE(0, cfd);
	close(cfd);
}

/*
 * As uid/gid @uid in control_gid: start a global session, consume it,
 * leave it running and pass its logger id on @out.  0, or which step
 * failed.
 */
static int member_start(uid_t uid, int out)
{
	gid_t control = 1001;
	__u32 id;
	int fd, cfd;

	if (setgroups(1, &control) || setgid(uid) || setuid(uid))
		return 101;
	fd = etw_open();
	if (fd < 0 ||
	    raw_start(fd, "gid-member", ETW_MODE_REAL_TIME, 4, 0, &id))
		return 102;
	cfd = raw_consumer(fd, id);
	if (cfd < 0)
		return 200 + (-cfd & 0x3f);
	close(cfd);
	return write(out, &id, sizeof(id)) == sizeof(id) ? 0 : 103;
}

/* A session a member started as @uid; its logger id, or 0. */
static __u32 start_as_member(struct __test_metadata *_metadata, uid_t uid)
{
	__u32 id = 0;
	int p[2];
	pid_t pid;

	if (pipe(p))
		return 0;
	pid = fork();
	if (!pid) {
		close(p[0]);
		_exit(member_start(uid, p[1]));
	}
	close(p[1]);
	EXPECT_EQ(0, etw_wait_child(pid));
	if (read(p[0], &id, sizeof(id)) != sizeof(id))
		id = 0;
	close(p[0]);
	return id;
}

TEST_F(gid, control_group_member_may_consume_its_session)
{
	self->member_id = start_as_member(_metadata, 1000);
	EXPECT_NE(0, self->member_id);
}

TEST_F(gid, control_group_member_may_consume_same_users_session)
{
	static const gid_t control = 1001;

	self->member_id = start_as_member(_metadata, 1000);
	ASSERT_NE(0, self->member_id);
	EXPECT_EQ(0, as_user(UP_CONSUME, self->member_id, &control, 1));
}

TEST_F(gid, control_group_member_may_not_consume_other_users_session)
{
	static const gid_t control = 1001;

	self->member_id = start_as_member(_metadata, 1000);
	ASSERT_NE(0, self->member_id);
	EXPECT_EQ(EPERM, as_uid(1002, UP_CONSUME, self->member_id, &control,
				1));
}

TEST_F(gid, root_may_consume_members_session)
{
	int cfd;

	self->member_id = start_as_member(_metadata, 1000);
	ASSERT_NE(0, self->member_id);
	cfd = raw_consumer(self->fd, self->member_id);
	EXPECT_LE(0, cfd);
	close(cfd);
}

TEST_F(gid, control_group_member_may_start_global_session)
{
	static const gid_t control = 1001;

	EXPECT_EQ(0, as_user(UP_GLOBAL_START, 0, &control, 1));
}

TEST_F(gid, non_member_is_still_eperm)
{
	EXPECT_EQ(EPERM, as_user(UP_QUERY, self->id, NULL, 0));
}

TEST_HARNESS_MAIN
