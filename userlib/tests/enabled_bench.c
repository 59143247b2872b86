// SPDX-License-Identifier: GPL-2.0
/*
 * enabled_bench: the inline EventEnabled() check of a disabled handle, run
 * natively on the host CPU by `make bench` (Documentation/performance.rst).
 *
 * Under TCG every guest load costs a software TLB lookup, several times an
 * empty loop iteration, so the VM cannot say what the check costs on a
 * CPU.  This program runs the same inline code on the host.  Without
 * /dev/etw it cannot register, so the handle is one with no registration:
 * its EtwRegistrationEnabled entry points at libetw's never-enabled word
 * instead of a zero word in the mapped enable page, and the check is the
 * same two dependent loads and a branch (see <evntprov.h>).
 */
#include <stdio.h>
#include <time.h>

#include <windows.h>
#include <evntprov.h>

#define ROUNDS	5
#define ITERS	200000000UL

typedef void (*loop_fn)(unsigned long n);

static unsigned long passed;
static EVENT_DESCRIPTOR desc = { .Level = 4, .Keyword = 1 };
/* Slot 1 of the table: no registration, so disabled. */
static REGHANDLE handle = 1;

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void loop_empty(unsigned long n)
{
	while (n--)
		__asm__ volatile("" ::: "memory");
}

/* What a passed check leads to, kept out of the loop's line. */
static __attribute__((noinline, cold)) void check_passed(void)
{
	passed++;
}

static void loop_enabled(unsigned long n)
{
	/* A provider's handle is a variable: load it once, as code would. */
	REGHANDLE h = handle;

	while (n--) {
		if (EventEnabled(h, &desc))
			check_passed();
		__asm__ volatile("" ::: "memory");
	}
}

/* Best ns per iteration of each loop, in alternating rounds. */
static void measure_pair(loop_fn a, loop_fn b, double *ta, double *tb)
{
	loop_fn fn[2] = { a, b };
	double *best[2] = { ta, tb };
	int r, i;

	for (i = 0; i < 2; i++)
		fn[i](ITERS / 10);	/* warm up */
	for (r = 0; r < ROUNDS; r++) {
		for (i = 0; i < 2; i++) {
			double t0 = now_ns(), t;

			fn[i](ITERS);
			t = (now_ns() - t0) / ITERS;
			if (!r || t < *best[i])
				*best[i] = t;
		}
	}
}

int main(void)
{
	double empty, enabled;

	measure_pair(loop_empty, loop_enabled, &empty, &enabled);
	printf("# host CPU, natively: %lu iterations per round, best of %d "
	       "alternating rounds\n", ITERS, ROUNDS);
	printf("%-40s %9.3f ns   1.00x\n", "empty loop iteration", empty);
	printf("%-40s %9.3f ns   %.2fx\n", "EventEnabled, disabled handle",
	       enabled, enabled / empty);
	if (passed) {
		fprintf(stderr, "enabled_bench: a disabled handle passed\n");
		return 1;
	}
	return 0;
}
