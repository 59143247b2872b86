/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the KUnit suites of etw_test.ko.
 */
#ifndef _ETW_TEST_UTIL_H
#define _ETW_TEST_UTIL_H

#include <kunit/test.h>

#include "../etw_buffer.h"
#include "../etw_internal.h"

/* The logger id of every session the tests build. */
#define ETW_TEST_LOGGER_ID	7

struct etw_session *etw_test_session(struct kunit *test, u32 mode,
				     u32 nbuffers);
struct etw_buffer *etw_test_delivered(struct etw_session *s, unsigned int i);
unsigned int etw_test_ndelivered(struct etw_session *s);
void etw_test_guid(struct etw_guid *g);
int etw_test_control(struct etw_session *s, const struct etw_guid *g,
		     bool group, u32 control, struct etw_enable *e);

#endif /* _ETW_TEST_UTIL_H */
