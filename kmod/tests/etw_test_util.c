// SPDX-License-Identifier: GPL-2.0
/*
 * Helpers shared by the KUnit suites: sessions built by etw_session_init(),
 * as ETW_IOC_START builds them, without entering the session table (so the
 * tests need no privilege and leave no trace), and freed with the test.
 */
#include <kunit/resource.h>
#include <linux/random.h>
#include <linux/slab.h>

#include "../compat.h"
#include "etw_test_util.h"

static int etw_test_session_res_init(struct kunit_resource *res,
				     void *context)
{
	res->data = context;
	return 0;
}

/* What etw_session_init() allocated; the session itself is kunit's. */
static void etw_test_session_free(struct etw_session *s)
{
	etw_buffers_free(s);
	kfree(s->streams);
}

static void etw_test_session_res_free(struct kunit_resource *res)
{
	etw_test_session_free(res->data);
}

/**
 * etw_test_session() - a session with buffers, freed when the test ends
 * @test: the test
 * @mode: ETW_MODE_* bits
 * @nbuffers: buffers of ETW_MIN_BUFFER_KB each
 *
 * Return: the session (the test is aborted when allocation fails).
 */
struct etw_session *etw_test_session(struct kunit *test, u32 mode,
				     u32 nbuffers)
{
	struct etw_session_config cfg = {
		.mode = mode,
		.buffer_kb = ETW_MIN_BUFFER_KB,
		.min_buffers = nbuffers,
		.max_buffers = nbuffers,
	};
	struct etw_session *s;
	void *res;

	s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, s);
	KUNIT_ASSERT_EQ(test, etw_session_init(s, "", &cfg), 0);
	s->logger_id = ETW_TEST_LOGGER_ID;
	res = kunit_alloc_resource(test, etw_test_session_res_init,
				   etw_test_session_res_free, GFP_KERNEL, s);
	if (!res)
		etw_test_session_free(s);
	KUNIT_ASSERT_NOT_NULL(test, res);
	return s;
}

/**
 * etw_test_delivered() - the i-th buffer on a session's delivered list
 * @s: the session
 * @i: index, oldest first
 *
 * Return: the buffer, or NULL when fewer are delivered.
 */
struct etw_buffer *etw_test_delivered(struct etw_session *s, unsigned int i)
{
	struct etw_buffer *b, *found = NULL;
	unsigned long flags;

	raw_spin_lock_irqsave(&s->lock, flags);
	list_for_each_entry(b, &s->delivered, node) {
		if (!i--) {
			found = b;
			break;
		}
	}
	raw_spin_unlock_irqrestore(&s->lock, flags);
	return found;
}

/**
 * etw_test_ndelivered() - buffers on a session's delivered list
 * @s: the session
 *
 * Return: the count.
 */
unsigned int etw_test_ndelivered(struct etw_session *s)
{
	unsigned long flags;
	unsigned int n;

	raw_spin_lock_irqsave(&s->lock, flags);
	n = list_count_nodes(&s->delivered);
	raw_spin_unlock_irqrestore(&s->lock, flags);
	return n;
}

/**
 * etw_test_guid() - a random GUID, so that tests never share a provider
 * @g: out
 */
void etw_test_guid(struct etw_guid *g)
{
	get_random_bytes(g, sizeof(*g));
}

/**
 * etw_test_control() - enable, disable or capture a GUID for a session
 * @s: the session
 * @g: the provider GUID, or the group GUID when @group
 * @group: a provider-group enable
 * @control: ETW_CONTROL_*
 * @e: for ETW_CONTROL_ENABLE, the kmalloc'ed enable (ownership passes)
 *
 * Return: etw_enable()'s result.
 */
int etw_test_control(struct etw_session *s, const struct etw_guid *g,
		     bool group, u32 control, struct etw_enable *e)
{
	struct etw_enable_args a = {
		.size = sizeof(a),
		.control_code = control,
		.properties = group ? ETW_ENABLE_PROVIDER_GROUP : 0,
		.guid = *g,
	};
	struct etw_waits w = {};

	/* No timeout: etw_enable() hands back no files to wait on. */
	return etw_enable(s, &a, e, &w);
}
