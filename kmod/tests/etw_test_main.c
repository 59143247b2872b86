// SPDX-License-Identifier: GPL-2.0
/*
 * etw_test.ko: the KUnit suites of etw.ko's internals, run when the module
 * loads.  The "etw_harness" suite proves that a failing case fails the
 * whole test run: load with inject_failure=1 (make check
 * ETW_INJECT_FAILURE=kunit) and its only case fails on purpose.
 */
#include <kunit/test.h>
#include <linux/module.h>

#include "../compat.h"

static bool inject_failure;
module_param(inject_failure, bool, 0444);
MODULE_PARM_DESC(inject_failure, "make etw_harness fail, to test the test runner");

static void etw_harness_injected_failure_test(struct kunit *test)
{
	KUNIT_EXPECT_FALSE_MSG(test, inject_failure,
			       "failure injected with inject_failure=1");
}

static struct kunit_case etw_harness_cases[] = {
	KUNIT_CASE(etw_harness_injected_failure_test),
	{}
};

static struct kunit_suite etw_harness_suite = {
	.name = "etw_harness",
	.test_cases = etw_harness_cases,
};
kunit_test_suite(etw_harness_suite);

MODULE_DESCRIPTION("KUnit tests for etw");
MODULE_LICENSE("GPL");
ETW_IMPORT_KUNIT_NS();
