// SPDX-License-Identifier: GPL-2.0
/*
 * etw_change.c - control operations as transactions.
 *
 * Every operation that can fail prepares all it changes first (each
 * affected registration's new route and notification, in a struct
 * etw_change), and publishes only once nothing can fail any more: a
 * failed operation changes nothing.  Stopping a session and unregistering
 * cannot fail; they allocate with __GFP_NOFAIL, one registration at a time.
 *
 * A registration is notified only when an operation reaches it: an
 * enable, disable or capture-state request by a session whose enable
 * reaches it, or a change of its combined state.
 */
#include <linux/slab.h>

#include "compat.h"
#include "etw_internal.h"
#include "etw_provider.h"

/**
 * struct etw_change - one registration's prepared update
 * @node: on the operation's list
 * @reg: the registration
 * @route: its new route (NULL: no session takes its events)
 * @keep_route: publish nothing, only notify
 * @c: the combined state that goes with @route
 * @control: the notification's control code, or %ETW_CONTROL_NONE
 * @nn: the prepared notification of a user registration
 */
struct etw_change {
	struct list_head node;
	struct etw_reg *reg;
	struct etw_route *route;
	bool keep_route;
	struct etw_combined c;
	int control;
	struct etw_notify_node *nn;
};

static const struct etw_guid etw_null_guid;

static bool etw_combined_eq(const struct etw_combined *a,
			    const struct etw_combined *b)
{
	if (a->enabled != b->enabled)
		return false;
	return !a->enabled || (a->level == b->level &&
			       a->match_any == b->match_any &&
			       a->match_all == b->match_all);
}

/*
 * Prepare @ch's notification, with the schematized filter data of the
 * enables in the registration's route chained as ETW chains them: each
 * EVENT_FILTER_HEADER gets the session's exclude bit as InstanceId and
 * NextOffset to the next block.
 */
static int etw_change_notify_prepare(struct etw_change *ch, struct etw_op *op)
{
	const struct etw_enable *direct[ETW_MAX_ROUTE];
	unsigned int i, n, count = 0;
	struct etw_filter_header *h, *prev = NULL;
	struct etw_notify_node *nn;
	u32 size = 0;
	u8 *buf;

	if (!ch->reg->file)
		return 0;
	n = etw_direct_enables(ch->reg, direct);
	for (i = 0; i < n; i++) {
		if (direct[i]->filter_size) {
			size += ALIGN(direct[i]->filter_size, 8);
			count++;
		}
	}
	nn = etw_notify_alloc(ch->reg, ch->control, &ch->c, op->source, size,
			      count, op->gfp);
	if (!nn)
		return -ENOMEM;
	buf = etw_notify_filter(nn);
	for (i = 0; i < n; i++) {
		if (!direct[i]->filter_size)
			continue;
		h = (struct etw_filter_header *)buf;
		memcpy(h, direct[i]->filter_data, direct[i]->filter_size);
		h->instance_id = etw_enable_bit(direct[i]);
		h->next_offset = 0;
		if (prev)
			prev->next_offset = (u8 *)h - (u8 *)prev;
		prev = h;
		buf += ALIGN(direct[i]->filter_size, 8);
	}
	ch->nn = nn;
	return 0;
}

static int etw_notify_control(enum etw_notify_rule rule,
			      const struct etw_combined *was,
			      const struct etw_combined *c)
{
	switch (rule) {
	case ETW_NOTIFY_CAPTURE:
		return c->enabled ? ETW_CONTROL_CAPTURE_STATE : ETW_CONTROL_NONE;
	case ETW_NOTIFY_ON_CHANGE:
		if (etw_combined_eq(was, c))
			return ETW_CONTROL_NONE;
		break;
	case ETW_NOTIFY_REACHED:
		if (!was->enabled && !c->enabled)
			return ETW_CONTROL_NONE;
		break;
	}
	return c->enabled ? ETW_CONTROL_ENABLE : ETW_CONTROL_DISABLE;
}

/**
 * etw_op_add() - prepare one registration's update in an operation
 * @op: the operation
 * @reg: the registration
 * @rule: when it is notified
 *
 * Prepares @reg's new route and notification and adds them to @op.
 * Nothing is published.
 *
 * Context: process context; etw_mutex held.
 * Return: 0, or -ENOMEM with @op as it was.
 */
int etw_op_add(struct etw_op *op, struct etw_reg *reg,
	       enum etw_notify_rule rule)
{
	struct etw_combined was;
	struct etw_change *ch;
	int ret;

	lockdep_assert_held(&etw_mutex);
	ch = kzalloc(sizeof(*ch), op->gfp);
	if (!ch)
		return -ENOMEM;
	ch->reg = reg;
	etw_route_combine(rcu_dereference_protected(reg->route,
						    lockdep_is_held(&etw_mutex)),
			  &was);
	if (rule == ETW_NOTIFY_CAPTURE) {
		ch->keep_route = true;
		ch->c = was;
	} else {
		ch->route = etw_route_build(reg, op->gfp);
		if (!ch->route) {
			kfree(ch);
			return -ENOMEM;
		}
		etw_route_combine(ch->route, &ch->c);
		if (!ch->route->count) {
			kfree(ch->route);
			ch->route = NULL;
		}
	}
	ch->control = etw_notify_control(rule, &was, &ch->c);
	if (ch->control != ETW_CONTROL_NONE) {
		ret = etw_change_notify_prepare(ch, op);
		if (ret) {
			kfree(ch->route);
			kfree(ch);
			return ret;
		}
	}
	list_add_tail(&ch->node, &op->changes);
	return 0;
}

/**
 * etw_op_init() - start an operation that changes nothing yet
 * @op: the operation
 * @source: the controller's SourceId, or NULL for none
 * @gfp: flags for everything it allocates
 * @w: the files an enabling controller waits for, or NULL
 *
 * Context: any.
 */
void etw_op_init(struct etw_op *op, const struct etw_guid *source,
		 gfp_t gfp, struct etw_waits *w)
{
	INIT_LIST_HEAD(&op->changes);
	op->source = source ?: &etw_null_guid;
	op->gfp = gfp;
	op->w = w;
}

/**
 * etw_op_abort() - drop everything an operation prepared
 * @op: the operation; nothing of it was published
 *
 * Context: process context; etw_mutex held.
 */
void etw_op_abort(struct etw_op *op)
{
	struct etw_change *ch, *tmp;

	list_for_each_entry_safe(ch, tmp, &op->changes, node) {
		kfree(ch->route);
		etw_notify_free(ch->nn);
		kfree(ch);
	}
	INIT_LIST_HEAD(&op->changes);
}

/* Make room to record every notification @op queues; may fail. */
static int etw_op_reserve_waits(struct etw_op *op)
{
	struct etw_waits *w = op->w;
	struct etw_change *ch;
	unsigned int n = 0;

	if (!w)
		return 0;
	list_for_each_entry(ch, &op->changes, node)
		n += !!ch->nn;
	if (w->n + n <= w->cap)
		return 0;
	return etw_waits_grow(w, w->n + n);
}

/*
 * What threads staged for registrations whose routes change is routed as
 * the routes were: their files' rings are drained first (etw_batch.c).
 */
static void etw_op_drain_staged(const struct etw_op *op)
{
	const struct etw_change *ch;

	list_for_each_entry(ch, &op->changes, node)
		if (!ch->keep_route && ch->reg->file)
			etw_batch_drain_file(ch->reg->file);
}

/**
 * etw_op_commit() - publish what an operation prepared; cannot fail
 * @op: the operation
 *
 * Context: process context; etw_mutex held.
 */
void etw_op_commit(struct etw_op *op)
{
	struct etw_change *ch, *tmp;

	etw_op_drain_staged(op);

	list_for_each_entry_safe(ch, tmp, &op->changes, node) {
		struct etw_reg *reg = ch->reg;

		if (!ch->keep_route) {
			struct etw_route *old;

			old = rcu_replace_pointer(reg->route, ch->route,
						  lockdep_is_held(&etw_mutex));
			if (old)
				kfree_rcu(old, rcu);
			etw_state_publish(reg, &ch->c);
		}
		if (ch->control != ETW_CONTROL_NONE) {
			if (reg->file) {
				u64 seq = etw_notify_queue(reg, ch->nn);

				if (seq && op->w)
					etw_waits_add(op->w, reg->file, seq);
			} else if (reg->notify) {
				reg->notify(reg, ch->control, &ch->c);
			}
		}
		kfree(ch);
	}
	INIT_LIST_HEAD(&op->changes);
}

/**
 * etw_op_finish() - make room for the waits, then publish an operation
 * @op: the operation
 *
 * Context: process context; etw_mutex held.
 * Return: 0, or -ENOMEM with nothing changed and @op aborted.
 */
int etw_op_finish(struct etw_op *op)
{
	int ret = etw_op_reserve_waits(op);

	if (ret) {
		etw_op_abort(op);
		return ret;
	}
	etw_op_commit(op);
	return 0;
}

/**
 * etw_reg_update_nofail() - update one registration; cannot fail
 * @reg: the registration
 * @rule: when it is notified
 *
 * For operations that cannot fail (session stop, unregistration):
 * __GFP_NOFAIL, one small allocation at a time.
 *
 * Context: process context; etw_mutex held.
 */
void etw_reg_update_nofail(struct etw_reg *reg, enum etw_notify_rule rule)
{
	struct etw_op op;

	etw_op_init(&op, NULL, GFP_KERNEL | __GFP_NOFAIL, NULL);
	if (!etw_op_add(&op, reg, rule))
		etw_op_commit(&op);
}
