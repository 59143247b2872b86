/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the provider files of etw.ko share among themselves; the rest of
 * the module uses the providers section of etw_internal.h.
 *
 * etw_provider.c: the GUID table; registrations (user and in-kernel),
 *	their traits and the groups they join
 * etw_route.c: which enables reach a registration, the route built
 *	from them, the combined state published in the enable area
 * etw_change.c: control operations, prepared in full, then published
 * etw_enable.c: enables: built, kept in their GUID's tables, changed
 *	by ENABLE, removed when their session stops
 * etw_provider_list.c: ETW_IOC_LIST_PROVIDERS
 *
 * Every GUID that is registered, enabled, or named as a group has an
 * etw_guid_entry.  A registration's route is rebuilt from its GUID's
 * enables and its group's enables whenever one of them changes; then its
 * combined state is written to the enable area, then the provider is
 * notified.
 *
 * Rules (Documentation/abi.rst, "Providers"):
 * - up to 8 global sessions enable a GUID; a 9th gets -ENOSPC.  Private
 *   sessions' enables are kept apart and never take one of those slots;
 * - a private session reaches only registrations made by the program
 *   image that started it (same process, no execve() since) and cannot
 *   enable groups;
 * - a classic registration's own route holds one session, the newest
 *   enable that reaches it, with classic keyword rules; every other
 *   registration of the GUID keeps all its enables and its own rules, so
 *   that no registration changes what a session receives of another's
 *   events, and nothing an unprivileged caller does removes a global
 *   enable;
 * - a PID filter is applied when routes are built (at enable and at
 *   registration), also for group enables; an event-ID filter applies on
 *   every event, but not through groups;
 * - joining a group: the first member's uid owns the group while it has
 *   members; other uids need etw_may_control().
 *
 * All of this but building an enable (etw_enable_alloc()) runs under
 * etw_mutex.  Nothing here reads or writes user memory: etw_dev.c copies
 * every argument in and every result out.
 */
#ifndef _ETW_PROVIDER_H
#define _ETW_PROVIDER_H

#include <linux/hashtable.h>

#include "etw_internal.h"

/* the GUID table (etw_provider.c) */
#define ETW_GUID_HASH_BITS	8
extern DECLARE_HASHTABLE(etw_guids, ETW_GUID_HASH_BITS);

struct etw_guid_entry *etw_guid_entry_find(const struct etw_guid *guid);
struct etw_guid_entry *etw_guid_entry_get(const struct etw_guid *guid);
void etw_guid_entry_put(struct etw_guid_entry *g);

/* reach rules, routes, the enable area (etw_route.c) */
bool etw_enable_would_reach(const struct etw_enable *e,
			    const struct etw_reg *reg, bool group);
bool etw_enable_reaches(const struct etw_enable *e, const struct etw_reg *reg);
bool etw_group_enable_reaches(const struct etw_enable *e,
			      const struct etw_reg *reg);
u64 etw_enable_bit(const struct etw_enable *e);
const struct etw_enable *etw_newest_reaching(const struct etw_guid_entry *g,
					     const struct etw_reg *reg);
unsigned int etw_direct_enables(const struct etw_reg *reg,
				const struct etw_enable **out);
struct etw_route *etw_route_build(const struct etw_reg *reg, gfp_t gfp);
struct etw_enable_state *etw_reg_state(struct etw_reg *reg);
void etw_state_publish(struct etw_reg *reg, const struct etw_combined *c);
void etw_route_combine(const struct etw_route *r, struct etw_combined *c);

/* control operations (etw_change.c) */
/* When an etw_change notifies its registration. */
enum etw_notify_rule {
	ETW_NOTIFY_ON_CHANGE,	/* the combined state changed */
	ETW_NOTIFY_REACHED,	/* the operation's session reaches it */
	ETW_NOTIFY_CAPTURE,	/* a capture-state request; route kept */
};

/**
 * struct etw_op - what one control operation changes
 * @changes: struct etw_change, in preparation order
 * @source: the controller's SourceId for notifications
 * @gfp: allocation flags
 * @w: the files an enabling controller waits for, or NULL
 */
struct etw_op {
	struct list_head changes;
	const struct etw_guid *source;
	gfp_t gfp;
	struct etw_waits *w;
};

void etw_op_init(struct etw_op *op, const struct etw_guid *source,
		 gfp_t gfp, struct etw_waits *w);
int etw_op_add(struct etw_op *op, struct etw_reg *reg,
	       enum etw_notify_rule rule);
void etw_op_abort(struct etw_op *op);
void etw_op_commit(struct etw_op *op);
int etw_op_finish(struct etw_op *op);
void etw_reg_update_nofail(struct etw_reg *reg, enum etw_notify_rule rule);

#endif /* _ETW_PROVIDER_H */
