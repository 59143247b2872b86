/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fills a struct mcgen_view from the unit that includes this, after
 * mcgen_events.h: each unit reports what its own copy of the header's
 * names resolves to.
 */
#ifndef _MCGEN_VIEW_H
#define _MCGEN_VIEW_H

static void mcgen_fill_view(struct mcgen_view *v)
{
	const MCGEN_TRACE_CONTEXT *c = &ETW_TEST_MCGEN_Context;

	v->context = c;
	v->enable_bits = ETW_TEST_MCGENEnableBits;
	v->mask = c->EnableBitMask;
	v->guid = &ETW_TEST_MCGEN;
	v->descriptor = &TransferStart;
	v->traits = (const char *)(UINT_PTR)c->Logger;
	v->bits = ETW_TEST_MCGENEnableBits[0];
	v->enabled = (unsigned int)EventEnabledTransferStart() |
		     (unsigned int)EventEnabledTransferStop() << 1 |
		     (unsigned int)EventEnabledHeartbeat() << 2 |
		     (unsigned int)EventEnabledFailure() << 3 |
		     (unsigned int)EventEnabledFileOpened() << 4 |
		     (unsigned int)EventEnabledNote() << 5;
	v->checked =
		(unsigned int)MCGEN_ENABLE_CHECK(ETW_TEST_MCGEN_Context,
						 TransferStart) |
		(unsigned int)MCGEN_ENABLE_CHECK(ETW_TEST_MCGEN_Context,
						 TransferStop) << 1 |
		(unsigned int)MCGEN_ENABLE_CHECK(ETW_TEST_MCGEN_Context,
						 Heartbeat) << 2 |
		(unsigned int)MCGEN_ENABLE_CHECK(ETW_TEST_MCGEN_Context,
						 Failure) << 3 |
		(unsigned int)MCGEN_ENABLE_CHECK(ETW_TEST_MCGEN_Context,
						 FileOpened) << 4 |
		(unsigned int)MCGEN_ENABLE_CHECK(ETW_TEST_MCGEN_Context,
						 Note) << 5;
	v->is_enabled = c->IsEnabled;
	v->level = c->Level;
	v->any = c->MatchAnyKeyword;
	v->all = c->MatchAllKeyword;
	v->handle = Etw_Test_McGenHandle;
}

#endif /* _MCGEN_VIEW_H */
