/* SPDX-License-Identifier: GPL-2.0 */
/*
 * icount_marker.h: the marker scripts/icount-plugin.c counts between.
 * A benchmark runs one before and one after a loop of operations; the
 * plugin writes the guest instructions run in between.
 */
#ifndef ETW_ICOUNT_MARKER_H
#define ETW_ICOUNT_MARKER_H

/* nopl 0x4b4d5445(%rax): a NOP no compiler emits. */
static __attribute__((noinline)) void icount_marker(void)
{
	__asm__ volatile(".byte 0x0f, 0x1f, 0x80, 0x45, 0x54, 0x4d, 0x4b"
			 ::: "memory");
}

#endif
