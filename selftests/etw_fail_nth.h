/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Failing the n-th allocation or user copy of one system call through
 * /proc/thread-self/fail-nth, with the debugfs knobs that make it reach
 * every allocation.
 */
#ifndef _ETW_FAIL_NTH_H
#define _ETW_FAIL_NTH_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/utsname.h>

#include "etw_raw.h"

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif

#define FAIL_NTH_DEBUGFS	"/sys/kernel/debug"

/* Write @val to @path; 0 or -errno. */
static inline int fail_nth_write_file(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	n = n < 0 ? -errno : n == (ssize_t)strlen(val) ? 0 : -EIO;
	close(fd);
	return (int)n;
}

/*
 * Make fail-nth reach the allocations an ioctl makes: failslab and
 * fail_page_alloc skip allocations that may sleep unless ignore-gfp-wait
 * is N; verbose 0 keeps injected failures off the console (a stack trace
 * there fails the run's console scan).  fail_page_alloc also skips single
 * pages while its min-order is above 0 (1 by default); @order0 sets it
 * to 0.  Return: 0, or -errno of the first knob that could not be set
 * (no fault injection in this kernel).
 */
static inline int fail_nth_setup(bool order0)
{
	static const struct {
		bool order0;	/* written only with @order0 */
		const char *path;
		const char *val;
	} knobs[] = {
		{ false, FAIL_NTH_DEBUGFS "/failslab/ignore-gfp-wait", "N" },
		{ false, FAIL_NTH_DEBUGFS "/failslab/verbose", "0" },
		{ false, FAIL_NTH_DEBUGFS "/fail_page_alloc/ignore-gfp-wait",
		  "N" },
		{ true, FAIL_NTH_DEBUGFS "/fail_page_alloc/min-order", "0" },
		{ false, FAIL_NTH_DEBUGFS "/fail_page_alloc/verbose", "0" },
		{ false, FAIL_NTH_DEBUGFS "/fail_usercopy/verbose", "0" },
	};
	unsigned int i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(knobs); i++) {
		if (knobs[i].order0 && !order0)
			continue;
		ret = fail_nth_write_file(knobs[i].path, knobs[i].val);
		if (ret)
			return ret;
	}
	return 0;
}

/* The kernel's defaults, for the next test program. */
static inline void fail_nth_restore(void)
{
	fail_nth_write_file(FAIL_NTH_DEBUGFS "/failslab/ignore-gfp-wait", "Y");
	fail_nth_write_file(FAIL_NTH_DEBUGFS "/failslab/verbose", "2");
	fail_nth_write_file(FAIL_NTH_DEBUGFS "/fail_page_alloc/ignore-gfp-wait",
			    "Y");
	fail_nth_write_file(FAIL_NTH_DEBUGFS "/fail_page_alloc/verbose", "2");
	fail_nth_write_file(FAIL_NTH_DEBUGFS "/fail_usercopy/verbose", "2");
}

/*
 * This thread's fail-nth file, opened once: opening it later would itself
 * be an allocation that the pending failure could hit.
 */
static inline int fail_nth_open(void)
{
	return open("/proc/thread-self/fail-nth", O_RDWR | O_CLOEXEC);
}

/* Fail the @n-th fault-injection point this thread reaches from now on. */
static inline int fail_nth_set(int fd, unsigned int n)
{
	char buf[16];
	int len = snprintf(buf, sizeof(buf), "%u", n);

	return pwrite(fd, buf, len, 0) == len ? 0 : -errno;
}

/*
 * Whether the failure armed by fail_nth_set() was injected, and
 * disarm it.  Reading the file is a user copy too: when one point was
 * left, the read itself fails (EFAULT) and uses it up.
 * Return: 1 when it was injected, 0 when the call ended first.
 */
static inline int fail_nth_fired(int fd)
{
	char buf[16] = "";
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
	int fired = n > 0 && atoi(buf) == 0;

	fail_nth_set(fd, 0);
	return fired;
}

/* --- the stack filter: faults only under one kernel function ------------ */

#define FAIL_NTH_ATTRS	3

static const char *const fail_nth_attr[FAIL_NTH_ATTRS] = {
	"failslab", "fail_page_alloc", "fail_usercopy",
};

/* Each attribute's require-start and require-end, to restore. */
struct fail_nth_filter {
	char saved[FAIL_NTH_ATTRS][2][32];
	bool set;
};

static inline void fail_nth_attr_path(char *buf, size_t size, int i, int end)
{
	snprintf(buf, size, FAIL_NTH_DEBUGFS "/%s/require-%s", fail_nth_attr[i],
		 end ? "end" : "start");
}

/*
 * Whether this kernel has the stack filter
 * (CONFIG_FAULT_INJECTION_STACKTRACE_FILTER): x86-64 has it from 6.3 on.
 * Return: 1 with it, 0 without it where that is expected, -1 without it
 * where it should be there.
 */
static inline int fail_nth_filter_present(void)
{
	struct utsname u;
	int major = 0, minor = 0;
	char knob[96];

	fail_nth_attr_path(knob, sizeof(knob), 0, 0);
	if (!access(knob, F_OK))
		return 1;
	if (uname(&u) || sscanf(u.release, "%d.%d", &major, &minor) != 2)
		return -1;
	return !strcmp(u.machine, "x86_64") &&
	       (major < 6 || (major == 6 && minor < 3)) ? 0 : -1;
}

/*
 * The kernel text of @name, from /proc/kallsyms (root sees the
 * addresses): its address up to the next symbol's.  Return: 0, or
 * -ENOENT (no such symbol, or addresses hidden).
 */
static inline int fail_nth_kernel_text(const char *name, unsigned long *start,
				       unsigned long *end)
{
	unsigned long addr, found = 0, next = ~0UL;
	char type, sym[128];
	FILE *f;
	int pass;

	for (pass = 0; pass < 2; pass++) {
		f = fopen("/proc/kallsyms", "re");
		if (!f)
			return -ENOENT;
		while (fscanf(f, "%lx %c %127s%*[^\n]", &addr, &type, sym) == 3) {
			if (!pass && !found && !strcmp(sym, name))
				found = addr;
			else if (pass && addr > found && addr < next)
				next = addr;
		}
		fclose(f);
		if (!found)
			return -ENOENT;
	}
	*start = found;
	*end = next;
	return 0;
}

static inline int fail_nth_read_knob(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -EIO;
	buf[n] = 0;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

/*
 * Only faults with kernel function @name on the stack fire from now on
 * (each attribute's require-start and require-end), until
 * fail_nth_filter_restore().  Return: 0, or -errno.
 */
static inline int fail_nth_filter_set(struct fail_nth_filter *f,
				      const char *name)
{
	unsigned long range[2];
	char knob[96], v[32];
	int i, end, ret;

	f->set = false;
	ret = fail_nth_kernel_text(name, &range[0], &range[1]);
	if (ret)
		return ret;
	for (i = 0; i < FAIL_NTH_ATTRS; i++)
		for (end = 0; end < 2; end++) {
			fail_nth_attr_path(knob, sizeof(knob), i, end);
			ret = fail_nth_read_knob(knob, f->saved[i][end],
						 sizeof(f->saved[i][end]));
			if (ret)
				return ret;
		}
	f->set = true;
	for (i = 0; i < FAIL_NTH_ATTRS; i++)
		for (end = 0; end < 2; end++) {
			fail_nth_attr_path(knob, sizeof(knob), i, end);
			snprintf(v, sizeof(v), "%lu", range[end]);
			ret = fail_nth_write_file(knob, v);
			if (ret)
				return ret;
		}
	return 0;
}

static inline void fail_nth_filter_restore(struct fail_nth_filter *f)
{
	char knob[96];
	int i, end;

	for (i = 0; f->set && i < FAIL_NTH_ATTRS; i++)
		for (end = 0; end < 2; end++) {
			fail_nth_attr_path(knob, sizeof(knob), i, end);
			fail_nth_write_file(knob, f->saved[i][end]);
		}
	f->set = false;
}

#endif /* _ETW_FAIL_NTH_H */
