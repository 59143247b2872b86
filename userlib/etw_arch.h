/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * What libetw does differently per processor architecture, all of it
 * here: the CPU's counter that batched writes stage times in, the cycle
 * counter the ETL writer measures the processor's speed with, the
 * inline copy and system call of the write path.  Not installed.
 *
 * ETW_ARCH_COUNTER is defined where there is a counter user space reads
 * without a system call that the kernel can convert to CLOCK_MONOTONIC
 * (ETW_BATCH_CLOCK_TSC in uapi/linux/etw.h): the TSC on x86-64, the
 * virtual count CNTVCT_EL0 on arm64.  ETW_ARCH_CYCLES is defined where
 * user space can count processor cycles (x86's TSC; arm64's cycle
 * counter is the kernel's).  The write path's system call is inline on
 * x86-64 and arm64, libc's ioctl() elsewhere.
 */
#ifndef _ETW_ARCH_H
#define _ETW_ARCH_H

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__)

#define ETW_ARCH_COUNTER	1
#define ETW_ARCH_CYCLES		1

/* The TSC. */
static __always_inline uint64_t etw_arch_counter(void)
{
	return __builtin_ia32_rdtsc();
}

/*
 * etw_arch_counter() stored at @t: the halves rdtsc gives, each stored
 * as it is (a shift and an or less).
 */
static __always_inline void etw_arch_counter_stamp(void *t)
{
	uint32_t lo, hi;

	__asm__ volatile("rdtsc" : "=a" (lo), "=d" (hi));
	memcpy(t, &lo, sizeof(lo));
	memcpy((uint8_t *)t + sizeof(lo), &hi, sizeof(hi));
}

static __always_inline uint64_t etw_arch_cycles(void)
{
	return __builtin_ia32_rdtsc();
}

/*
 * Copy @len bytes: a rep movsq and a rep movsb, inline, so that the
 * write path makes no call (a call costs the registers it must keep).
 */
static __always_inline void etw_arch_copy(void *dst, const void *src,
					  uint32_t len)
{
	unsigned long n = len / 8;

	__asm__ volatile("rep movsq\n\t"
			 "mov %[rest], %%ecx\n\t"
			 "rep movsb"
			 : "+c" (n), "+D" (dst), "+S" (src)
			 : [rest] "r" (len % 8)
			 : "memory");
}

/*
 * ioctl() as the write path makes it: the system call itself, as
 * Windows' ntdll makes its own, without the call into libc's wrapper and
 * its errno store.  Return: 0 or a negative errno.
 */
static __always_inline long etw_arch_ioctl(int fd, unsigned long cmd,
					   void *arg)
{
	long ret;

	/* The kernel reads *@arg: the "memory" clobber keeps the stores. */
	__asm__ volatile("syscall"
			 : "=a" (ret)
			 : "0" ((long)SYS_ioctl), "D" ((long)fd), "S" (cmd),
			   "d" (arg)
			 : "rcx", "r11", "memory");
	return ret;
}

#else /* !__x86_64__ */

#if defined(__aarch64__)
#define ETW_ARCH_COUNTER	1

/*
 * CNTVCT_EL0, as the kernel's vDSO reads it: the isb keeps the read
 * from being taken before the instructions ahead of it.
 */
static __always_inline uint64_t etw_arch_counter(void)
{
	uint64_t v;

	__asm__ volatile("isb\n\tmrs %0, cntvct_el0" : "=r" (v) : : "memory");
	return v;
}

static __always_inline void etw_arch_counter_stamp(void *t)
{
	uint64_t now = etw_arch_counter();

	memcpy(t, &now, sizeof(now));
}

/*
 * ioctl() as the write path makes it, as on x86-64: the svc itself.  A
 * stack walk of the event then starts in libetw, not in libc's wrapper,
 * whose caller's return address is only in the link register (a leaf
 * saves no frame record).  Return: 0 or a negative errno.
 */
static __always_inline long etw_arch_ioctl(int fd, unsigned long cmd,
					   void *arg)
{
	register long x8 __asm__("x8") = SYS_ioctl;
	register long x0 __asm__("x0") = fd;
	register unsigned long x1 __asm__("x1") = cmd;
	register void *x2 __asm__("x2") = arg;

	/* The kernel reads *@arg: the "memory" clobber keeps the stores. */
	__asm__ volatile("svc #0"
			 : "+r" (x0)
			 : "r" (x8), "r" (x1), "r" (x2)
			 : "memory");
	return x0;
}
#else
static __always_inline long etw_arch_ioctl(int fd, unsigned long cmd,
					   void *arg)
{
	return ioctl(fd, cmd, arg) ? -errno : 0;
}
#endif

static __always_inline void etw_arch_copy(void *dst, const void *src,
					  uint32_t len)
{
	memcpy(dst, src, len);
}

#endif /* __x86_64__ */

#endif /* _ETW_ARCH_H */
