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

#include <linux/math64.h>
#include <linux/types.h>

#include "compat.h"
#include "etw_filter.h"

/*
 * One predicate, resolved; @val and @fail point into the set's storage.
 * @off and @size: where its field lies when the block's fields are all
 * FIXED.
 */
struct etw_pf_pred {
	u8 field;
	u8 op;
	u8 type;
	u16 len;		/* units of @val (bytes; STR16: 16-bit units) */
	u16 size;
	u32 off;
	u64 v1;
	u64 v2;
	const u8 *val;		/* the operand, ASCII letters lower-cased */
	const u16 *fail;	/* CONTAINS, DOESNTCONTAIN: the KMP table */
};

struct etw_pf_event {
	u16 id;
	u8 version;
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
 * @quick: one block, every field FIXED, every predicate on an integer:
 *	etw_pf_quick_match() decides
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

static __always_inline u64 etw_pf_int(const u8 *p, u16 size, bool is_signed)
{
	switch (size) {
	case 1:
		return is_signed ? (u64)(s64)(s8)*p : *p;
	case 2:
		return is_signed ? (u64)(s64)(s16)get_unaligned_le16(p) :
				   get_unaligned_le16(p);
	case 4:
		return is_signed ? (u64)(s64)(s32)get_unaligned_le32(p) :
				   get_unaligned_le32(p);
	default:
		return get_unaligned_le64(p);
	}
}

/* a < b, a <= b as the predicate's type compares them. */
static __always_inline bool etw_pf_lt(u64 a, u64 b, bool is_signed)
{
	return is_signed ? (s64)a < (s64)b : a < b;
}

static __always_inline bool etw_pf_int_match(const struct etw_pf_pred *q,
					     u64 x)
{
	bool sg = q->type == ETW_PAYLOAD_INT;
	u64 rem, ux, uv;

	switch (q->op) {
	case ETW_PAYLOAD_OP_EQ:
		return x == q->v1;
	case ETW_PAYLOAD_OP_NE:
		return x != q->v1;
	case ETW_PAYLOAD_OP_LE:
		return !etw_pf_lt(q->v1, x, sg);
	case ETW_PAYLOAD_OP_GT:
		return etw_pf_lt(q->v1, x, sg);
	case ETW_PAYLOAD_OP_LT:
		return etw_pf_lt(x, q->v1, sg);
	case ETW_PAYLOAD_OP_GE:
		return !etw_pf_lt(x, q->v1, sg);
	case ETW_PAYLOAD_OP_BETWEEN:
		return !etw_pf_lt(x, q->v1, sg) && !etw_pf_lt(q->v2, x, sg);
	case ETW_PAYLOAD_OP_NOTBETWEEN:
		return etw_pf_lt(x, q->v1, sg) || etw_pf_lt(q->v2, x, sg);
	default:	/* MODULO: divides; signs do not change that */
		ux = sg && (s64)x < 0 ? -x : x;
		uv = sg && (s64)q->v1 < 0 ? -q->v1 : q->v1;
		div64_u64_rem(ux, uv, &rem);
		return !rem;
	}
}

/*
 * A quick set's block, as etw_pf_event_match() decides it: a predicate's
 * field fits when it ends within the payload, and its offset is known.
 */
static __always_inline bool etw_pf_quick_match(const struct etw_pf_event *e,
					       const u8 *pl, u32 len)
{
	u8 i;

	for (i = 0; i < e->npreds; i++) {
		const struct etw_pf_pred *q = &e->pred[i];
		bool ok = q->off + q->size <= len &&
			  etw_pf_int_match(q, etw_pf_int(pl + q->off, q->size,
							 q->type == ETW_PAYLOAD_INT));

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
		return set->ev[0].id != id || set->ev[0].version != version ||
		       etw_pf_quick_match(&set->ev[0], pl, len);
	return etw_payload_filter_match_blocks(set, id, version, pl, len);
}

#endif /* _ETW_PAYLOAD_FILTER_H */
