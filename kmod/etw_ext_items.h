/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The extended data items enable properties ask for (etw_ext_items.c), and
 * the extended item header shared with the write path.
 */
#ifndef _ETW_EXT_ITEMS_H
#define _ETW_EXT_ITEMS_H

#include <linux/string.h>
#include <linux/types.h>
#include <linux/etw.h>

#include "etw_internal.h"

#define ETW_EXT_HDR		sizeof(struct etw_ext_item)
/*
 * In etw_ext_items_target()'s result: the stack item's frames are zeros.  A
 * bit no item uses, within the 16 bits the write path keeps per target.
 */
#define ETW_EXT_ITEMS_STACK_HIDDEN	BIT(15)
static_assert(!(ETW_ENABLE_EXT_PROPS & ETW_EXT_ITEMS_STACK_HIDDEN));
static_assert(ETW_ENABLE_EXT_PROPS < ETW_EXT_ITEMS_STACK_HIDDEN);

/**
 * struct etw_ext_items - what one write gathered for the sessions that asked
 * @desc: the event's descriptor, for the stack filters
 * @name: the event's TraceLogging name, or NULL, for the stack name filter
 * @user: written by a user provider: its user-mode stack is captured
 * @stacked: @frames holds the stack
 * @nframes: entries of @frames in use
 * @key: the global sessions' event key, 0 until one asks for it
 * @frames: return addresses, innermost first
 *
 * One per CPU and context level (task, softirq, hardirq): a write holds
 * it with preemption disabled, and only a write from a deeper level can
 * interrupt it.  Nothing is allocated, and the writer's stack stays small.
 */
struct etw_ext_items {
	const struct etw_event_descriptor *desc;
	const char *name;
	bool user;
	bool stacked;
	u32 nframes;
	u64 key;
	unsigned long frames[ETW_MAX_STACK_DEPTH];
};

static inline u32 etw_ext_items_size(u32 data)
{
	return ETW_EXT_HDR + ALIGN(data, 8);
}

/* Append one extended item's header at @p; returns where its data goes. */
static inline void *etw_put_ext_item(void *p, u16 type, u32 size, bool last)
{
	struct etw_ext_item *it = p;

	it->item_size = etw_ext_items_size(size);
	it->ext_type = type;
	it->linkage = last ? 0 : ETW_EXT_LINKAGE;
	it->data_size = size;
	/* Zero the alignment tail: no stale bytes reach consumers. */
	memset(p + ETW_EXT_HDR + size, 0, ALIGN(size, 8) - size);
	return p + ETW_EXT_HDR;
}

struct etw_ext_items *etw_ext_items_get(const struct etw_event_descriptor *desc,
					const char *name, bool user);
u32 etw_ext_items_target(struct etw_ext_items *x,
			 const struct etw_route_entry *e, u16 *xlen);
void *etw_ext_items_put(const struct etw_ext_items *x, u32 ext,
			struct etw_session *s, void *p, bool last);
unsigned int etw_stack_user_regs(struct pt_regs *regs, unsigned long *out,
				 unsigned int max);

#endif /* _ETW_EXT_ITEMS_H */
