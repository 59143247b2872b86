/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stacks.h: the stacks of a Windows kernel trace joined to the events
 * they belong to.  The NT Kernel Logger writes a stack as records of its
 * own after the event: StackWalk_Event (the frames), or with stack
 * caching a reference to a key (StackKeyKernel, StackKeyUser) whose
 * frames a KeyCreate, KeyDelete or KeyRundown record gives, often at the
 * end of the trace.  So the keys' definitions are read in a pass of their
 * own, and the stack records are joined to their events in the pass that
 * shows them, from a window of the records around each (stacks.c).
 */
#ifndef _ETWCTL_STACKS_H
#define _ETWCTL_STACKS_H

#include <stdbool.h>
#include <stdint.h>

#include "etw_etl.h"

struct etwctl_stacks;

/**
 * struct etwctl_stack - the stack of one event
 * @item: a STACK_TRACE64 extended item's bytes: MatchId 0, then the
 *	frames as 64-bit addresses, kernel frames before user frames; valid
 *	until the set is next called
 * @size: bytes at @item
 * @pid: the process the stack was walked in (StackProcess)
 * @tid: its thread (StackThread)
 */
struct etwctl_stack {
	const uint8_t *item;
	uint16_t size;
	uint32_t pid;
	uint32_t tid;
};

struct etwctl_stacks *etwctl_stacks_new(void);
void etwctl_stacks_free(struct etwctl_stacks *s);
bool etwctl_stacks_is_stack(const struct etw_etl_event *ev);
int etwctl_stacks_define(struct etwctl_stacks *s,
			 const struct etw_etl_event *ev);
void etwctl_stacks_seal(struct etwctl_stacks *s);
bool etwctl_stacks_want(const struct etwctl_stacks *s);
int etwctl_stacks_ahead(struct etwctl_stacks *s,
			const struct etw_etl_event *ev);
void etwctl_stacks_step(struct etwctl_stacks *s,
			const struct etw_etl_event *ev);
bool etwctl_stacks_find(struct etwctl_stacks *s,
			const struct etw_etl_event *ev,
			struct etwctl_stack *out);
uint64_t etwctl_stacks_unresolved(const struct etwctl_stacks *s);

#endif /* _ETWCTL_STACKS_H */
