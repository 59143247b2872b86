/* SPDX-License-Identifier: GPL-2.0 */
/*
 * etw_payload_filter.h - a checked payload filter, as the write path reads
 * it
 *
 * etw_payload_filter.c owns the format: it builds a set at enable time
 * and decides the sets that are not quick.  A quick set (one block, every
 * field FIXED, every predicate on an integer) is decided here, inline in
 * the write path's loop over sessions, where a call per session counts.
 */
#ifndef _ETW_PAYLOAD_FILTER_H
#define _ETW_PAYLOAD_FILTER_H

#include <linux/types.h>

#include "compat.h"
#include "etw_filter.h"

/*
 * One predicate, resolved; @val and @fail point into the set's storage.
 * @off and @size: where its field lies when the block's fields are all
 * FIXED.  An integer comparison other than MODULO is an interval over
 * the field's bytes as read, xor'd with @sign (so that signed values
 * order as unsigned ones do): x passes when x - @lo <= @span, unless @neg
 * (etw_pf_in_interval()).
 */
struct etw_pf_pred {
	u8 field;
	u8 op;
	u8 type;
	bool neg;
	u16 len;		/* units of @val (bytes; STR16: 16-bit units) */
	u16 size;
	u32 off;
	u64 v1;
	u64 v2;
	u64 sign;		/* INT: the field's sign bit; else 0 */
	u64 lo;
	u64 span;
	const u8 *val;		/* the operand, ASCII letters lower-cased */
	const u16 *fail;	/* CONTAINS, DOESNTCONTAIN: the KMP table */
};

/* The event a block names, in one compare. */
static __always_inline u32 etw_pf_key(u16 id, u8 version)
{
	return id | (u32)version << 16;
}

struct etw_pf_event {
	u32 key;		/* etw_pf_key() of its event */
	bool match_any;
	bool all_group;
	u8 nfields;
	u8 npreds;
	const struct etw_payload_field *fields;
	/* every field FIXED: where each starts, and where the last ends */
	const u32 *fixed_start;
	struct etw_pf_pred pred[ETW_MAX_PAYLOAD_PREDICATES];
};

/**
 * struct etw_payload_set - a checked payload filter
 * @count: blocks in @ev
 * @quick: one block, every field FIXED, every predicate an integer
 *	comparison other than MODULO: etw_pf_quick_match() decides
 * @extent: the payload bytes the blocks read: where the last of their
 *	fields ends when all are FIXED, else %U32_MAX
 * @ev: the blocks, in the blob's order; their fields, operands and tables
 *	follow in the same allocation
 */
struct etw_payload_set {
	u16 count;
	bool quick;
	u32 extent;
	struct etw_pf_event ev[];
};

/* @q's field at @p, zero-extended. */
static __always_inline u64 etw_pf_raw(const struct etw_pf_pred *q,
				      const u8 *p)
{
	switch (q->size) {
	case 1:
		return *p;
	case 2:
		return get_unaligned_le16(p);
	case 4:
		return get_unaligned_le32(p);
	default:
		return get_unaligned_le64(p);
	}
}

/* An integer comparison other than MODULO, as its interval decides it. */
static __always_inline bool etw_pf_in_interval(const struct etw_pf_pred *q,
					       u64 raw)
{
	return ((raw ^ q->sign) - q->lo <= q->span) != q->neg;
}

/*
 * A quick set's block, as etw_pf_event_match() decides it: a predicate's
 * field fits when it ends within the payload, and its offset is known;
 * its comparison is one with its interval, without a branch per operator.
 */
static __always_inline bool etw_pf_quick_pred(const struct etw_pf_pred *q,
					      const u8 *pl, u32 len)
{
	return q->off + q->size <= len &&
	       etw_pf_in_interval(q, etw_pf_raw(q, pl + q->off));
}

static __always_inline bool etw_pf_quick_match(const struct etw_pf_event *e,
					       const u8 *pl, u32 len)
{
	u8 i;

	/* One predicate, MatchAny or MatchAll: it decides. */
	if (likely(e->npreds == 1))
		return etw_pf_quick_pred(&e->pred[0], pl, len);
	for (i = 0; i < e->npreds; i++) {
		bool ok = etw_pf_quick_pred(&e->pred[i], pl, len);

		if (ok == e->match_any)
			return ok;
	}
	return !e->match_any;
}

bool etw_payload_filter_match_blocks(const struct etw_payload_set *set,
				     u16 id, u8 version, const u8 *pl, u32 len);

/**
 * etw_payload_filter_match() - does an event pass a payload filter
 * @set: the filter
 * @id: the event's id
 * @version: the event's version
 * @pl: its payload
 * @len: bytes at @pl
 *
 * An event no block names passes.  Otherwise it passes when every block
 * with match_all_group set passes and, when there are blocks without it,
 * one of those does (TdhAggregatePayloadFilters(): "the event is only
 * written if all the flagged filters for the event are satisfied", and
 * "written if any of the non-flagged filters are satisfied").
 *
 * Context: any.
 * Return: true when the event passes.
 */
static __always_inline bool
etw_payload_filter_match(const struct etw_payload_set *set, u16 id,
			 u8 version, const u8 *pl, u32 len)
{
	/* One block: whether it has match_all_group set, it decides. */
	if (likely(set->quick))
		return set->ev[0].key != etw_pf_key(id, version) ||
		       etw_pf_quick_match(&set->ev[0], pl, len);
	return etw_payload_filter_match_blocks(set, id, version, pl, len);
}

#endif /* _ETW_PAYLOAD_FILTER_H */
