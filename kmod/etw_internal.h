/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Internal declarations shared by the files of etw.ko.
 */
#ifndef _ETW_INTERNAL_H
#define _ETW_INTERNAL_H

#include <linux/fs.h>
#include <linux/etw.h>

extern const struct file_operations etw_fops;

bool etw_may_control(void);

#endif /* _ETW_INTERNAL_H */
