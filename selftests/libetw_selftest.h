/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the libetw selftests: sessions started and read
 * through the raw ABI, so libetw is checked against the kernel alone.
 * Define LIBETW_TEST_TAG (a session-name prefix) before including.
 */
#ifndef _LIBETW_SELFTEST_H
#define _LIBETW_SELFTEST_H

#define REC_MAX		32
#define REC_BYTES	4096
#define WAIT_MS		5000

/* --- raw controller and consumer ------------------------------------------ */

struct ctl {
	int fd;		/* the controller's own /dev/etw file */
	__u32 id;
	int cfd;	/* consumer */
};

static inline int ctl_start(struct ctl *c, const char *tag,
			    __u32 max_buffers, __u32 mode)
{
	struct etw_session_args a;
	struct etw_consume_args ca = { .size = sizeof(ca),
				       .flags = O_NONBLOCK | O_CLOEXEC };
	int ret;

	c->fd = etw_open();
	if (c->fd < 0)
		return -errno;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	snprintf(a.name, sizeof(a.name), LIBETW_TEST_TAG "-%s-%d", tag, getpid());
	a.config.buffer_kb = 4;
	a.config.max_buffers = max_buffers;
	a.config.mode = ETW_MODE_REAL_TIME | ETW_MODE_NO_PER_PROCESSOR | mode;
	ret = etw_ioctl(c->fd, ETW_IOC_START, &a);
	if (ret)
		return ret;
	c->id = a.logger_id;
	ca.logger_id = c->id;
	c->cfd = ioctl(c->fd, ETW_IOC_CONSUME, &ca);
	return c->cfd < 0 ? -errno : 0;
}

static void ctl_stop(struct ctl *c)
{
	struct etw_session_args a = { .size = sizeof(a), .logger_id = c->id };

	if (c->fd < 0)
		return;
	etw_ioctl(c->fd, ETW_IOC_STOP, &a);
	close(c->cfd);
	close(c->fd);
	c->fd = -1;
}

struct enable_opts {
	__u8 level;
	__u64 any;
	__u64 all;
	__u32 timeout_ms;
	const GUID *source;
	const void *filter;
	__u32 filter_size;
};

static int ctl_enable_opts(struct ctl *c, const GUID *g, __u32 code,
			   const struct enable_opts *o)
{
	struct etw_enable_args e;

	memset(&e, 0, sizeof(e));
	e.size = sizeof(e);
	e.logger_id = c->id;
	e.control_code = code;
	e.level = o->level;
	memcpy(&e.guid, g, sizeof(e.guid));
	if (o->source)
		memcpy(&e.source_id, o->source, sizeof(e.source_id));
	e.match_any = o->any;
	e.match_all = o->all;
	e.timeout_ms = o->timeout_ms;
	e.filter_data_ptr = (uintptr_t)o->filter;
	e.filter_data_size = o->filter_size;
	return etw_ioctl(c->fd, ETW_IOC_ENABLE, &e);
}

/*
 * Register @guids[0] as a classic provider and @guids[1] as a manifest
 * one on @fd (raw ioctls, so no notifications are read), and enable each
 * that registered in @c.  Return: 0, or the first enable's error.
 */
static inline int ctl_classic_and_manifest(struct ctl *c, int fd,
					   const GUID guids[2],
					   struct etw_register_args a[2])
{
	int k, ret = 0;

	for (k = 0; k < 2; k++) {
		memset(&a[k], 0, sizeof(a[k]));
		a[k].size = sizeof(a[k]);
		memcpy(&a[k].guid, &guids[k], sizeof(guids[k]));
		a[k].flags = k ? 0 : ETW_REGISTER_CLASSIC;
		if (!etw_ioctl(fd, ETW_IOC_REGISTER, &a[k]) && !ret)
			ret = ctl_enable_opts(c, &guids[k], ETW_CONTROL_ENABLE,
					      &(struct enable_opts){ 0 });
	}
	return ret;
}

/* Enable and wait until libetw has run the callback. */
static int ctl_enable(struct ctl *c, const GUID *g, __u32 code, __u8 level,
		      __u64 any, __u64 all)
{
	struct enable_opts o = { .level = level, .any = any, .all = all,
				 .timeout_ms = WAIT_MS };

	return ctl_enable_opts(c, g, code, &o);
}

struct rec {
	__u32 len;
	unsigned char b[REC_BYTES];
};

/* Flush and read back every record of provider @g, oldest first. */
static inline int ctl_collect(struct ctl *c, const GUID *g, struct rec *out,
			      int max)
{
	static unsigned char buf[4096];
	struct etw_session_args a = { .size = sizeof(a), .logger_id = c->id };
	int n = 0;

	if (etw_ioctl(c->fd, ETW_IOC_FLUSH, &a))
		return -1;
	while (read(c->cfd, buf, sizeof(buf)) > 0) {
		const struct etw_buffer_header *bh = (const void *)buf;
		__u32 off = ETW_BUFFER_HEADER_SIZE;

		/* Classic records are shorter; both have the GUID at 24. */
		while (off + offsetof(struct etw_event_header, descriptor) <=
		       bh->offset) {
			const struct etw_event_header *h =
				(const void *)(buf + off);

			if (!memcmp(&h->provider_id, g, sizeof(*g)) &&
			    n < max) {
				out[n].len = h->size;
				memcpy(out[n].b, h, h->size);
				n++;
			}
			off += (h->size + 7) & ~7u;
		}
	}
	return n;
}

static inline const struct etw_event_header *rec_hdr(const struct rec *r)
{
	return (const void *)r->b;
}

#endif /* _LIBETW_SELFTEST_H */
