// SPDX-License-Identifier: GPL-2.0
/*
 * etw_kapi.c - the in-kernel provider API: other modules as providers.
 *
 * An in-kernel provider registers a GUID like a process does; sessions
 * enable it with the same rules (private sessions never reach it).  It may
 * write from any context but NMI, including an interrupt that arrives
 * while a process-context write is in progress on the same CPU: space is
 * reserved with a compare-and-swap on the buffer's state (see
 * etw_buffer.c) and each writer fills only its own reservation.  An
 * optional callback learns about enable changes from a workqueue.
 */
#include <linux/etw_kapi.h>
#include <linux/slab.h>

#include "compat.h"
#include "etw_internal.h"

/**
 * struct etw_kprovider - an in-kernel provider
 * @reg: its registration
 * @cb: enable callback, or NULL
 * @ctx: passed to @cb
 * @work: runs @cb
 * @lock: protects @control, @combined and @capture
 * @control: the newest control code not yet passed to @cb, or
 *	%ETW_CONTROL_NONE
 * @combined: the state that goes with it
 * @capture: a capture-state request waits
 */
struct etw_kprovider {
	struct etw_reg reg;
	etw_kprovider_cb_t cb;
	void *ctx;
	struct work_struct work;
	spinlock_t lock;	/* the three fields below; taken in the worker */
	int control;
	struct etw_combined combined;
	bool capture;
};

static void etw_kprovider_work(struct work_struct *work)
{
	struct etw_kprovider *kp = container_of(work, struct etw_kprovider, work);
	struct etw_combined c;
	bool capture;
	int control;

	spin_lock(&kp->lock);
	control = kp->control;
	c = kp->combined;
	capture = kp->capture;
	kp->control = ETW_CONTROL_NONE;
	kp->capture = false;
	spin_unlock(&kp->lock);
	if (control != ETW_CONTROL_NONE)
		kp->cb(kp->ctx, control, c.level, c.match_any, c.match_all);
	if (capture)
		kp->cb(kp->ctx, ETW_CONTROL_CAPTURE_STATE, c.level, c.match_any,
		       c.match_all);
}

/* etw_reg.notify: hand the change to the worker (etw_mutex held). */
static void etw_kprovider_notify(struct etw_reg *reg, u32 control,
				 const struct etw_combined *c)
{
	struct etw_kprovider *kp = container_of(reg, struct etw_kprovider, reg);

	spin_lock(&kp->lock);
	if (control == ETW_CONTROL_CAPTURE_STATE)
		kp->capture = true;
	else
		kp->control = control;
	kp->combined = *c;
	spin_unlock(&kp->lock);
	schedule_work(&kp->work);
}

/**
 * etw_kprovider_register() - register an in-kernel provider
 * @guid: the provider GUID
 * @cb: called from a workqueue when the provider's enable state changes
 *	or a session requests a state capture; may be NULL
 * @ctx: passed to @cb
 *
 * Context: process context, may sleep.
 * Return: the provider, or an ERR_PTR (-ENOMEM).
 */
struct etw_kprovider *etw_kprovider_register(const struct etw_guid *guid,
					     etw_kprovider_cb_t cb, void *ctx)
{
	struct etw_kprovider *kp;
	int ret;

	kp = kzalloc(sizeof(*kp), GFP_KERNEL);
	if (!kp)
		return ERR_PTR(-ENOMEM);
	kp->cb = cb;
	kp->ctx = ctx;
	kp->control = ETW_CONTROL_NONE;
	spin_lock_init(&kp->lock);
	INIT_WORK(&kp->work, etw_kprovider_work);
	kp->reg.guid = *guid;
	if (cb)
		kp->reg.notify = etw_kprovider_notify;
	ret = etw_register_kernel(&kp->reg);
	if (ret) {
		kfree(kp);
		return ERR_PTR(ret);
	}
	return kp;
}
EXPORT_SYMBOL_GPL(etw_kprovider_register);

/**
 * etw_kprovider_unregister() - unregister an in-kernel provider
 * @kp: the provider
 *
 * No callback runs after this returns.
 *
 * Context: process context, may sleep.
 */
void etw_kprovider_unregister(struct etw_kprovider *kp)
{
	etw_unregister_kernel(&kp->reg);
	synchronize_rcu();
	cancel_work_sync(&kp->work);
	kfree(kp->reg.traits);
	kfree(kp);
}
EXPORT_SYMBOL_GPL(etw_kprovider_unregister);

/**
 * etw_kprovider_enabled() - the provider-side enable check
 * @kp: the provider
 * @level: the event's level
 * @keyword: the event's keyword
 *
 * Context: any.
 * Return: true when some session may take such an event.
 */
bool etw_kprovider_enabled(const struct etw_kprovider *kp, u8 level,
			   u64 keyword)
{
	const struct etw_enable_state *es = &kp->reg.state;
	struct etw_level_kw lk;

	if (!READ_ONCE(es->enabled))
		return false;
	lk.level = READ_ONCE(es->level);
	lk.ignore_keyword0 = false;
	lk.match_any = READ_ONCE(es->match_any);
	lk.match_all = READ_ONCE(es->match_all);
	return etw_level_kw_match(&lk, level, keyword);
}
EXPORT_SYMBOL_GPL(etw_kprovider_enabled);

/**
 * etw_kprovider_write() - write an event
 * @kp: the provider
 * @desc: the event descriptor
 * @activity: activity GUID, or NULL for none
 * @related: related activity GUID, or NULL
 * @count: entries in @data
 * @data: descriptors whose ptr fields are kernel addresses
 *
 * Context: any context but NMI.
 * Return: 0; -E2BIG, -EINVAL, -EMSGSIZE or -ENOBUFS as for ETW_IOC_WRITE.
 */
int etw_kprovider_write(struct etw_kprovider *kp,
			const struct etw_event_descriptor *desc,
			const struct etw_guid *activity,
			const struct etw_guid *related, u32 count,
			const struct etw_data_descriptor *data)
{
	static const struct etw_guid no_activity;

	return etw_write_kernel(&kp->reg, desc, activity ?: &no_activity,
				related, count, data);
}
EXPORT_SYMBOL_GPL(etw_kprovider_write);
