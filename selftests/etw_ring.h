/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A thread's staging ring through the raw ABI (ETW_IOC_BATCH_OPEN,
 * Documentation/abi.rst "Batched writes"), written as a batched writer
 * does: for selftests/batch_test.c and the soak's batched writers.
 */
#ifndef _ETW_RING_H
#define _ETW_RING_H

#include <sys/mman.h>

#include "etw_raw.h"

/* A thread's mapped staging ring. */
struct ring {
	int rfd;
	struct etw_batch_ctl *ctl;
	char *data;
	__u32 size;
	__u32 ctl_size;
	__u32 clock;
};

static inline int ring_open_clock(int fd, __u32 size, __u32 clock, struct ring *r)
{
	struct etw_batch_args a = { .size = sizeof(a), .flags = O_CLOEXEC,
				    .ring_size = size, .clock = clock };
	void *m;

	memset(r, 0, sizeof(*r));
	r->rfd = ioctl(fd, ETW_IOC_BATCH_OPEN, &a);
	if (r->rfd < 0)
		return -errno;
	r->size = a.ring_size;
	r->ctl_size = a.ctl_size;
	r->clock = a.clock;
	m = mmap(NULL, a.ctl_size + a.ring_size, PROT_READ | PROT_WRITE,
		 MAP_SHARED, r->rfd, 0);
	if (m == MAP_FAILED)
		return -errno;
	r->ctl = m;
	r->data = (char *)m + a.ctl_size;
	return 0;
}

static inline int ring_open(int fd, __u32 size, struct ring *r)
{
	return ring_open_clock(fd, size, ETW_BATCH_CLOCK_MONOTONIC, r);
}

static inline void ring_close(struct ring *r)
{
	munmap(r->ctl, r->ctl_size + r->size);
	close(r->rfd);
}

/* Put @len raw bytes at the head (the caller keeps them 8-aligned). */
static inline void stage_bytes(struct ring *r, const void *rec, __u32 len)
{
	__u64 head = r->ctl->head;

	memcpy(r->data + (head & (r->size - 1)), rec, len);
	/* Pairs with the kernel's acquire load of head in its drain. */
	__atomic_store_n(&r->ctl->head, head + RAW_ALIGN8(len),
			 __ATOMIC_RELEASE);
}

/*
 * Stage event @id at @level whose payload is a struct raw_payload carrying
 * @tag, after a wrap marker where it does not fit before the ring's end.
 * The caller sees to the room (a drain).
 */
static inline void stage_ev_level(struct ring *r, __u32 reg_id, __u16 id,
				  __u8 level, __u64 ts, __u32 tag)
{
	struct {
		struct etw_staged_event se;
		struct raw_payload p;
	} rec;
	__u64 head = r->ctl->head;
	__u32 room = r->size - (head & (r->size - 1));

	if (room < sizeof(rec)) {
		*(__u32 *)(r->data + (head & (r->size - 1))) = ETW_STAGED_WRAP;
		__atomic_store_n(&r->ctl->head, head + room, __ATOMIC_RELEASE);
	}
	memset(&rec, 0, sizeof(rec));
	rec.se.size = sizeof(rec);
	rec.se.reg_id = reg_id;
	rec.se.timestamp = ts;
	rec.se.descriptor.id = id;
	rec.se.descriptor.level = level;
	rec.se.activity_id.data1 = tag;
	rec.p.tag = tag;
	rec.p.pid = getpid();
	stage_bytes(r, &rec, sizeof(rec));
}

/* stage_ev_level() at level 4. */
static inline void stage_ev(struct ring *r, __u32 reg_id, __u16 id,
			    __u64 ts, __u32 tag)
{
	stage_ev_level(r, reg_id, id, 4, ts, tag);
}

static inline int ring_drain(struct ring *r)
{
	return ioctl(r->rfd, ETW_IOC_BATCH_DRAIN) ? -errno : 0;
}

#endif /* _ETW_RING_H */
