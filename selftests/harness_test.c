// SPDX-License-Identifier: GPL-2.0
/*
 * The kselftest canary: one check that passes unless make check runs with
 * ETW_INJECT_FAILURE=kselftest, proving that a failing kselftest fails
 * the run.  scripts/testsum.py counts it among the steps, not the tests.
 */
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "etw_raw.h"

TEST(harness_injected_failure)
{
	EXPECT_FALSE(etw_injected_failure()) {
		TH_LOG("failure injected with ETW_INJECT_FAILURE=kselftest");
	}
}

TEST_HARNESS_MAIN
