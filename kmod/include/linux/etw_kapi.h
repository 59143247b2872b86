/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The in-kernel provider API of etw.ko (kmod/etw_kapi.c).
 */
#ifndef _LINUX_ETW_KAPI_H
#define _LINUX_ETW_KAPI_H

#include <linux/types.h>
#include <linux/etw.h>

struct etw_kprovider;

/* @control is ETW_CONTROL_*; the rest is the combined enable state. */
typedef void (*etw_kprovider_cb_t)(void *ctx, u32 control, u8 level,
				   u64 match_any, u64 match_all);

struct etw_kprovider *etw_kprovider_register(const struct etw_guid *guid,
					     etw_kprovider_cb_t cb, void *ctx);
void etw_kprovider_unregister(struct etw_kprovider *kp);
bool etw_kprovider_enabled(const struct etw_kprovider *kp, u8 level,
			   u64 keyword);
int etw_kprovider_write(struct etw_kprovider *kp,
			const struct etw_event_descriptor *desc,
			const struct etw_guid *activity,
			const struct etw_guid *related, u32 count,
			const struct etw_data_descriptor *data);

#endif /* _LINUX_ETW_KAPI_H */
