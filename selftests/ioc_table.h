/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The table of /dev/etw's size-first ioctls that abi_size_test and
 * limits_test loop over: each ioctl's struct size in this header, its
 * first published size, and a function that fills in valid arguments, so
 * that a test changes one thing (the size, a field, an address) and
 * expects that one error.
 */
#ifndef _ETW_IOC_TABLE_H
#define _ETW_IOC_TABLE_H

#include <stdbool.h>

#include "etw_raw.h"

/* What the fill functions need: a session, a registration, fresh GUIDs. */
struct ioc_ctx {
	int fd;
	int cfd;		/* a consumer of session @id */
	__u32 id;
	__u32 reg;
	struct etw_guid guid;
	__u32 family;		/* the fresh GUIDs' data1 */
	__u16 n;
	const char *tag;	/* the start of the sessions' names */
};

static __u8 ioc_traits[] = { 6, 0, 'i', 'o', 'c', 0 };
static const __u8 ioc_payload[8] = "payload";

static inline struct etw_guid ioc_fresh_guid(struct ioc_ctx *c)
{
	return raw_guid(c->family, ++c->n);
}

/* Valid arguments for each ioctl, size field excluded, on zeroed @a. */

/* All zero is valid for get_info, ack, consumer_stats and profile_interval. */
static inline void fill_zero(struct ioc_ctx *c, void *a)
{
}

static inline void fill_register(struct ioc_ctx *c, void *a)
{
	struct etw_register_args *r = a;

	r->guid = ioc_fresh_guid(c);
}

static inline void fill_unregister(struct ioc_ctx *c, void *a)
{
	struct etw_unregister_args *u = a;
	struct etw_guid g = ioc_fresh_guid(c);

	raw_register(c->fd, &g, 0, 0, &u->reg_id, NULL);
}

static inline void fill_traits(struct ioc_ctx *c, void *a)
{
	struct etw_traits_args *t = a;
	struct etw_guid g = ioc_fresh_guid(c);

	raw_register(c->fd, &g, 0, 0, &t->reg_id, NULL);
	t->traits_ptr = (uintptr_t)ioc_traits;
	t->traits_len = sizeof(ioc_traits);
}

static inline void fill_write(struct ioc_ctx *c, void *a)
{
	static struct etw_data_descriptor d = {
		.ptr = (uintptr_t)ioc_payload, .size = sizeof(ioc_payload) };
	struct etw_write_args *w = a;

	w->reg_id = c->reg;
	w->data_count = 1;
	w->data_ptr = (uintptr_t)&d;
}

static inline void fill_list_providers(struct ioc_ctx *c, void *a)
{
	static struct etw_provider_info info[4];
	struct etw_list_providers_args *l = a;

	l->count = 4;
	l->info_ptr = (uintptr_t)info;
	l->info_size = sizeof(info[0]);
}

static inline void fill_start(struct ioc_ctx *c, void *a)
{
	struct etw_session_args *s = a;

	/* Private: it ends with the file, whatever the test does. */
	snprintf(s->name, sizeof(s->name), "%s-%d-%u", c->tag, getpid(),
		 ++c->n);
	s->config.mode = ETW_MODE_PRIVATE;
	s->config.buffer_kb = 4;
}

static inline void fill_stop(struct ioc_ctx *c, void *a)
{
	struct etw_session_args *s = a;
	char name[32];

	snprintf(name, sizeof(name), "%s-stop-%u", c->tag, ++c->n);
	raw_start(c->fd, name, ETW_MODE_PRIVATE, 4, 0, &s->logger_id);
}

static inline void fill_session(struct ioc_ctx *c, void *a)
{
	struct etw_session_args *s = a;

	s->logger_id = c->id;
}

static inline void fill_list_sessions(struct ioc_ctx *c, void *a)
{
	static __u32 ids[4];
	struct etw_list_args *l = a;

	l->count = 4;
	l->ids_ptr = (uintptr_t)ids;
}

static inline void fill_enable(struct ioc_ctx *c, void *a)
{
	struct etw_enable_args *e = a;

	e->logger_id = c->id;
	e->control_code = ETW_CONTROL_ENABLE;
	e->guid = ioc_fresh_guid(c);
}

static inline void fill_disallow(struct ioc_ctx *c, void *a)
{
	struct etw_disallow_args *d = a;

	d->logger_id = c->id;
}

static inline void fill_consume(struct ioc_ctx *c, void *a)
{
	struct etw_consume_args *k = a;

	k->logger_id = c->id;
	k->flags = O_CLOEXEC;
}

struct ioc {
	const char *name;
	unsigned long cmd;
	__u32 ksize;	/* this header's struct size */
	__u32 ver0;	/* the first published size, the smallest accepted */
	bool out;	/* the kernel writes the struct back */
	bool consumer;	/* an ioctl of consumer files */
	void (*fill)(struct ioc_ctx *c, void *a);
};

enum ioc_index {
	IX_GET_INFO, IX_REGISTER, IX_UNREGISTER, IX_SET_TRAITS, IX_WRITE,
	IX_ACK, IX_LIST_PROVIDERS, IX_START, IX_STOP, IX_QUERY, IX_UPDATE,
	IX_FLUSH, IX_LIST_SESSIONS, IX_ENABLE, IX_SET_DISALLOW, IX_CONSUME,
	IX_GET_DISALLOW, IX_CONSUMER_STATS, IX_PROFILE_INTERVAL, NIOCS
};

#define IOC(n, c, type, v, o, f) \
	{ .name = n, .cmd = c, .ksize = sizeof(type), .ver0 = v, .out = o, \
	  .fill = f }

static const struct ioc iocs[NIOCS] = {
	[IX_GET_INFO] = IOC("get_info", ETW_IOC_GET_INFO, struct etw_info,
			    ETW_INFO_SIZE_VER0, true, fill_zero),
	[IX_REGISTER] = IOC("register", ETW_IOC_REGISTER,
			    struct etw_register_args,
			    ETW_REGISTER_ARGS_SIZE_VER0, true, fill_register),
	[IX_UNREGISTER] = IOC("unregister", ETW_IOC_UNREGISTER,
			      struct etw_unregister_args,
			      ETW_UNREGISTER_ARGS_SIZE_VER0, false,
			      fill_unregister),
	[IX_SET_TRAITS] = IOC("set_traits", ETW_IOC_SET_TRAITS,
			      struct etw_traits_args,
			      ETW_TRAITS_ARGS_SIZE_VER0, false, fill_traits),
	[IX_WRITE] = IOC("write", ETW_IOC_WRITE, struct etw_write_args,
			 ETW_WRITE_ARGS_SIZE_VER0, false, fill_write),
	/* Acknowledging sequence number 0 acknowledges nothing: valid. */
	[IX_ACK] = IOC("ack", ETW_IOC_ACK, struct etw_ack_args,
		       ETW_ACK_ARGS_SIZE_VER0, false, fill_zero),
	[IX_LIST_PROVIDERS] = IOC("list_providers", ETW_IOC_LIST_PROVIDERS,
				  struct etw_list_providers_args,
				  ETW_LIST_PROVIDERS_ARGS_SIZE_VER0, true,
				  fill_list_providers),
	[IX_START] = IOC("start", ETW_IOC_START, struct etw_session_args,
			 ETW_SESSION_ARGS_SIZE_VER0, true, fill_start),
	[IX_STOP] = IOC("stop", ETW_IOC_STOP, struct etw_session_args,
			ETW_SESSION_ARGS_SIZE_VER0, true, fill_stop),
	[IX_QUERY] = IOC("query", ETW_IOC_QUERY, struct etw_session_args,
			 ETW_SESSION_ARGS_SIZE_VER0, true, fill_session),
	[IX_UPDATE] = IOC("update", ETW_IOC_UPDATE, struct etw_session_args,
			  ETW_SESSION_ARGS_SIZE_VER0, true, fill_session),
	[IX_FLUSH] = IOC("flush", ETW_IOC_FLUSH, struct etw_session_args,
			 ETW_SESSION_ARGS_SIZE_VER0, true, fill_session),
	[IX_LIST_SESSIONS] = IOC("list_sessions", ETW_IOC_LIST_SESSIONS,
				 struct etw_list_args, ETW_LIST_ARGS_SIZE_VER0,
				 true, fill_list_sessions),
	[IX_ENABLE] = IOC("enable", ETW_IOC_ENABLE, struct etw_enable_args,
			  ETW_ENABLE_ARGS_SIZE_VER0, false, fill_enable),
	[IX_SET_DISALLOW] = IOC("set_disallow", ETW_IOC_SET_DISALLOW,
				struct etw_disallow_args,
				ETW_DISALLOW_ARGS_SIZE_VER0, false,
				fill_disallow),
	[IX_CONSUME] = IOC("consume", ETW_IOC_CONSUME,
			   struct etw_consume_args, ETW_CONSUME_ARGS_SIZE_VER0,
			   false, fill_consume),
	[IX_GET_DISALLOW] = IOC("get_disallow", ETW_IOC_GET_DISALLOW,
				struct etw_disallow_args,
				ETW_DISALLOW_ARGS_SIZE_VER0, true,
				fill_disallow),
	[IX_CONSUMER_STATS] = {
		.name = "consumer_stats", .cmd = ETW_IOC_CONSUMER_STATS,
		.ksize = sizeof(struct etw_consumer_stats_args),
		.ver0 = ETW_CONSUMER_STATS_ARGS_SIZE_VER0, .out = true,
		.consumer = true, .fill = fill_zero },
	/* All zero queries the timer's sampling interval. */
	[IX_PROFILE_INTERVAL] = IOC("profile_interval", ETW_IOC_PROFILE_INTERVAL,
				    struct etw_profile_interval_args,
				    ETW_PROFILE_INTERVAL_ARGS_SIZE_VER0, true,
				    fill_zero),
};

/* @buf (@len bytes) zeroed, valid arguments for @i, @size in its size field. */
static inline void *ioc_args(struct ioc_ctx *c, const struct ioc *i,
			     void *buf, size_t len, __u32 size)
{
	memset(buf, 0, len);
	i->fill(c, buf);
	*(__u32 *)buf = size;
	return buf;
}

/*
 * @i's ioctl, numbered @cmd, on @c's device file or its consumer, as 0 (a
 * new fd counts as success: it is closed) or -errno.
 */
static inline int ioc_call(struct ioc_ctx *c, const struct ioc *i,
			   unsigned long cmd, void *a)
{
	int r = ioctl(i->consumer ? c->cfd : c->fd, cmd, a);

	if (r < 0)
		return -errno;
	if (i->cmd == ETW_IOC_CONSUME)
		close(r);
	return 0;
}

#endif /* _ETW_IOC_TABLE_H */
