/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel-version differences, and only those.  Supported: 6.1 to 6.12.
 */
#ifndef _ETW_COMPAT_H
#define _ETW_COMPAT_H

#include <linux/module.h>
#include <linux/version.h>

#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 1, 0)
#error "etw needs Linux 6.1 or later"
#endif

#if IS_ENABLED(CONFIG_KUNIT)
#include <kunit/visibility.h>
#else
#define VISIBLE_IF_KUNIT static
#define EXPORT_SYMBOL_IF_KUNIT(symbol)
#endif

/* The namespace became a string literal in 6.13. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 13, 0)
#define ETW_IMPORT_KUNIT_NS() MODULE_IMPORT_NS("EXPORTED_FOR_KUNIT_TESTING")
#else
#define ETW_IMPORT_KUNIT_NS() MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING)
#endif

#endif /* _ETW_COMPAT_H */
