// SPDX-License-Identifier: GPL-2.0
/*
 * etw_payload_filter.c - EVENT_FILTER_TYPE_PAYLOAD: which events a session
 * takes by the values of their fields.
 *
 * libetw's TdhCreatePayloadFilter() resolves each PAYLOAD_FILTER_PREDICATE
 * against the provider's manifest into a block (struct etw_payload_event):
 * the layout of the event's first properties and the predicates, each on
 * one of them with its operand already converted to the field's type.
 * Both the blob and the payloads it is applied to are untrusted: the blob
 * is checked once, when the session enables the provider
 * (etw_payload_filter_parse()); every read of a payload is bounded by the
 * payload's length, and a field that does not lie within it makes the
 * predicates on it false.
 *
 * Cost: a filter of one block whose fields are all FIXED and whose
 * predicates compare integers (MODULO aside) is "quick": a bounds check,
 * a load and an interval test per predicate, at offsets and with
 * intervals the parse computed, inline in the write path
 * (etw_payload_filter.h).  Otherwise
 * etw_payload_filter_match_blocks() steps over the fields of a block once
 * (a string field is scanned for its end once), then evaluates each
 * predicate in time linear in its field's bytes: an integer compare, a
 * memcmp(), or for CONTAINS and DOESNTCONTAIN a Knuth-Morris-Pratt scan
 * whose table is built here at enable time.  At most
 * %ETW_MAX_PAYLOAD_FIELDS fields and %ETW_MAX_PAYLOAD_PREDICATES predicates
 * a block; blocks for other events cost a compare of id and version.
 */
#include <linux/err.h>
#include <linux/errno.h>
#include <linux/math64.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "compat.h"
#include "etw_filter.h"
#include "etw_payload_filter.h"

static bool etw_pf_is_int_op(u8 op)
{
	return op <= ETW_PAYLOAD_OP_MODULO;
}

static bool etw_pf_is_str_op(u8 op)
{
	return op == ETW_PAYLOAD_OP_CONTAINS ||
	       op == ETW_PAYLOAD_OP_DOESNTCONTAIN ||
	       op == ETW_PAYLOAD_OP_IS || op == ETW_PAYLOAD_OP_ISNOT;
}

static bool etw_pf_is_scan_op(u8 op)
{
	return op == ETW_PAYLOAD_OP_CONTAINS ||
	       op == ETW_PAYLOAD_OP_DOESNTCONTAIN;
}

/* The fields: known kinds, counts held by earlier small FIXED fields. */
static bool etw_pf_fields_ok(const struct etw_payload_field *f, u8 n)
{
	u8 i;

	for (i = 0; i < n; i++) {
		switch (f[i].kind) {
		case ETW_PAYLOAD_FIELD_FIXED:
			if (!f[i].size || f[i].ref)
				return false;
			break;
		case ETW_PAYLOAD_FIELD_SZ8:
		case ETW_PAYLOAD_FIELD_SZ16:
			if (f[i].size || f[i].ref)
				return false;
			break;
		case ETW_PAYLOAD_FIELD_COUNTED:
			if (!f[i].size || f[i].ref >= i ||
			    f[f[i].ref].kind != ETW_PAYLOAD_FIELD_FIXED ||
			    (f[f[i].ref].size != 1 && f[f[i].ref].size != 2 &&
			     f[f[i].ref].size != 4))
				return false;
			break;
		default:
			return false;
		}
	}
	return true;
}

/* A predicate's type fits its operator and field, its operand its block. */
static bool etw_pf_pred_ok(const struct etw_payload_predicate *p,
			   const struct etw_payload_field *fields, u8 nfields,
			   u32 tail, u32 bsize)
{
	const struct etw_payload_field *f;

	if (p->field >= nfields || p->reserved)
		return false;
	f = &fields[p->field];
	switch (p->type) {
	case ETW_PAYLOAD_UINT:
	case ETW_PAYLOAD_INT:
		return etw_pf_is_int_op(p->op) &&
		       f->kind == ETW_PAYLOAD_FIELD_FIXED &&
		       (f->size == 1 || f->size == 2 || f->size == 4 ||
			f->size == 8) &&
		       !p->value_off && !p->value_len &&
		       (p->op != ETW_PAYLOAD_OP_MODULO || p->value) &&
		       (p->op == ETW_PAYLOAD_OP_BETWEEN ||
			p->op == ETW_PAYLOAD_OP_NOTBETWEEN || !p->value2);
	case ETW_PAYLOAD_STR8:
	case ETW_PAYLOAD_STR16:
		if (!etw_pf_is_str_op(p->op) || p->value2 || p->value ||
		    (p->type == ETW_PAYLOAD_STR16 && p->value_len % 2))
			return false;
		/* A FIXED or COUNTED field holds either kind of string. */
		if ((f->kind == ETW_PAYLOAD_FIELD_SZ8 &&
		     p->type != ETW_PAYLOAD_STR8) ||
		    (f->kind == ETW_PAYLOAD_FIELD_SZ16 &&
		     p->type != ETW_PAYLOAD_STR16))
			return false;
		break;
	case ETW_PAYLOAD_BYTES:
		if ((p->op != ETW_PAYLOAD_OP_IS &&
		     p->op != ETW_PAYLOAD_OP_ISNOT) || p->value || p->value2 ||
		    f->kind != ETW_PAYLOAD_FIELD_FIXED ||
		    f->size != p->value_len || !p->value_len)
			return false;
		break;
	default:
		return false;
	}
	return p->value_len <= ETW_MAX_PAYLOAD_VALUE &&
	       p->value_off >= tail && p->value_off <= bsize &&
	       p->value_len <= bsize - p->value_off;
}

static bool etw_pf_all_fixed(const struct etw_payload_field *f, u8 n)
{
	u8 i;

	for (i = 0; i < n; i++)
		if (f[i].kind != ETW_PAYLOAD_FIELD_FIXED)
			return false;
	return true;
}

/* Check one block at @b (@left bytes remain); its storage needs in *@more. */
static int etw_pf_block_check(const u8 *b, u32 left, u32 *more)
{
	const struct etw_payload_event *e = (const void *)b;
	const struct etw_payload_field *fields;
	const struct etw_payload_predicate *p;
	u32 tail, i;

	if (left < sizeof(*e))
		return -EINVAL;
	if (e->size > left || e->size % 8 || !e->nfields ||
	    e->nfields > ETW_MAX_PAYLOAD_FIELDS || !e->npreds ||
	    e->npreds > ETW_MAX_PAYLOAD_PREDICATES || e->match_any > 1 ||
	    e->match_all_group > 1 || memchr_inv(e->reserved, 0,
						   sizeof(e->reserved)))
		return -EINVAL;
	tail = ETW_PAYLOAD_PREDICATES_OFF(e->nfields) + e->npreds * sizeof(*p);
	if (tail > e->size)
		return -EINVAL;
	fields = (const void *)(b + sizeof(*e));
	if (!etw_pf_fields_ok(fields, e->nfields))
		return -EINVAL;
	p = (const void *)(b + ETW_PAYLOAD_PREDICATES_OFF(e->nfields));
	*more = e->nfields * sizeof(*fields);
	if (etw_pf_all_fixed(fields, e->nfields))
		*more += (e->nfields + 1) * sizeof(u32);
	for (i = 0; i < e->npreds; i++) {
		if (!etw_pf_pred_ok(&p[i], fields, e->nfields, tail, e->size))
			return -EINVAL;
		*more += ALIGN(p[i].value_len, 2);
		if (etw_pf_is_scan_op(p[i].op))
			*more += (p[i].value_len + 1) * sizeof(u16);
	}
	/* The next block's fields and starts stay aligned. */
	*more = ALIGN(*more, 8);
	return 0;
}

static u16 etw_pf_unit(const u8 *s, u8 type, u32 i)
{
	u16 c = type == ETW_PAYLOAD_STR16 ? get_unaligned_le16(s + 2 * i) :
					    s[i];

	return c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c;
}

/* The operand, folded, and for a scan its KMP failure table. */
static void etw_pf_operand(struct etw_pf_pred *d,
			   const struct etw_payload_predicate *p,
			   const u8 *block, u8 **store)
{
	u8 *v = *store;
	u16 *fail;
	u32 i, k, n = p->value_len;

	memcpy(v, block + p->value_off, n);
	d->val = v;
	*store += ALIGN(n, 2);
	if (d->type == ETW_PAYLOAD_BYTES)
		return;
	d->len = d->type == ETW_PAYLOAD_STR16 ? n / 2 : n;
	for (i = 0; i < d->len; i++) {
		u16 c = etw_pf_unit(v, d->type, i);

		if (d->type == ETW_PAYLOAD_STR16)
			put_unaligned_le16(c, v + 2 * i);
		else
			v[i] = c;
	}
	if (!etw_pf_is_scan_op(d->op))
		return;
	fail = (u16 *)*store;
	*store += (n + 1) * sizeof(u16);
	fail[0] = 0;
	for (i = 1, k = 0; i < d->len; i++) {
		while (k && etw_pf_unit(v, d->type, i) !=
			    etw_pf_unit(v, d->type, k))
			k = fail[k - 1];
		if (etw_pf_unit(v, d->type, i) == etw_pf_unit(v, d->type, k))
			k++;
		fail[i] = k;
	}
	d->fail = fail;
}

/*
 * An integer comparison's interval (struct etw_pf_pred).  It is worked
 * out over 64-bit values, signed ones biased to order as unsigned ones
 * do (an empty one is the whole range, negated), then moved to where the
 * field's values lie as read and xor'd with its sign bit.
 */
static void etw_pf_interval(struct etw_pf_pred *q)
{
	bool is_signed = q->type == ETW_PAYLOAD_INT;
	u64 bias = is_signed ? BIT_ULL(63) : 0;
	u64 v1 = q->v1 ^ bias, v2 = q->v2 ^ bias, lo, hi, fmin;
	bool neg = false;

	switch (q->op) {
	case ETW_PAYLOAD_OP_NE:
		neg = true;
		fallthrough;
	case ETW_PAYLOAD_OP_EQ:
		lo = v1;
		hi = v1;
		break;
	case ETW_PAYLOAD_OP_GT:
		neg = true;
		fallthrough;
	case ETW_PAYLOAD_OP_LE:
		lo = 0;
		hi = v1;
		break;
	case ETW_PAYLOAD_OP_LT:
		neg = true;
		fallthrough;
	case ETW_PAYLOAD_OP_GE:
		lo = v1;
		hi = U64_MAX;
		break;
	case ETW_PAYLOAD_OP_NOTBETWEEN:
		neg = true;
		fallthrough;
	default:	/* BETWEEN */
		lo = v1;
		hi = v2;
		break;
	}
	if (lo > hi) {
		lo = 0;
		hi = U64_MAX;
		neg = !neg;
	}
	/*
	 * Where the field's least value lies: its values, read and xor'd
	 * with the sign bit, are that far below.  Bounds the field cannot
	 * reach need no cut: x - @lo wraps past @span for values outside.
	 */
	fmin = is_signed ? BIT_ULL(63) - BIT_ULL(8 * q->size - 1) : 0;
	q->lo = lo - fmin;
	q->span = hi - lo;
	q->neg = neg;
}

static void etw_pf_fill(struct etw_pf_event *d, const u8 *b, u8 **store)
{
	const struct etw_payload_event *e = (const void *)b;
	const struct etw_payload_predicate *p;
	u32 i;

	d->key = etw_pf_key(e->id, e->version);
	d->match_any = e->match_any;
	d->all_group = e->match_all_group;
	d->nfields = e->nfields;
	d->npreds = e->npreds;
	memcpy(*store, b + sizeof(*e), e->nfields * sizeof(*d->fields));
	d->fields = (const void *)*store;
	*store += e->nfields * sizeof(*d->fields);
	d->fixed_start = NULL;
	if (etw_pf_all_fixed(d->fields, d->nfields)) {
		u32 *start = (u32 *)*store, off = 0;

		for (i = 0; i < d->nfields; i++) {
			start[i] = off;
			off += d->fields[i].size;
		}
		start[i] = off;
		d->fixed_start = start;
		*store += (d->nfields + 1) * sizeof(u32);
	}
	p = (const void *)(b + ETW_PAYLOAD_PREDICATES_OFF(e->nfields));
	for (i = 0; i < e->npreds; i++) {
		struct etw_pf_pred *q = &d->pred[i];

		q->field = p[i].field;
		q->op = p[i].op;
		q->type = p[i].type;
		q->len = p[i].value_len;
		q->size = d->fields[q->field].size;
		q->off = d->fixed_start ? d->fixed_start[q->field] : 0;
		q->v1 = p[i].value;
		q->v2 = p[i].value2;
		q->val = NULL;
		q->fail = NULL;
		q->sign = q->type == ETW_PAYLOAD_INT ?
			  BIT_ULL(8 * q->size - 1) : 0;
		if (q->type != ETW_PAYLOAD_UINT && q->type != ETW_PAYLOAD_INT)
			etw_pf_operand(q, &p[i], b, store);
		else if (q->op != ETW_PAYLOAD_OP_MODULO)
			etw_pf_interval(q);
	}
	*store = PTR_ALIGN(*store, 8);
}

/*
 * Are @e's fields all FIXED and its predicates all integer comparisons
 * with an interval (not MODULO)?
 */
static bool etw_pf_is_quick(const struct etw_pf_event *e)
{
	u8 i;

	if (!e->fixed_start)
		return false;
	for (i = 0; i < e->npreds; i++)
		if ((e->pred[i].type != ETW_PAYLOAD_UINT &&
		     e->pred[i].type != ETW_PAYLOAD_INT) ||
		    e->pred[i].op == ETW_PAYLOAD_OP_MODULO)
			return false;
	return true;
}

/**
 * etw_payload_filter_parse() - check a payload filter and build its matcher
 * @blob: a struct etw_payload_filter and its blocks
 * @len: bytes at @blob, at most %ETW_MAX_PAYLOAD_FILTER
 * @gfp: allocation flags
 *
 * Context: may sleep when @gfp allows.
 * Return: the filter, free it with etw_payload_filter_free(); ERR_PTR(-EINVAL) when the
 * blob's sizes, counts, reserved bytes, field layouts, operators, types or
 * operands are not as struct etw_payload_filter documents;
 * ERR_PTR(-ENOMEM).
 */
struct etw_payload_set *etw_payload_filter_parse(const void *blob, u32 len,
						 gfp_t gfp)
{
	const struct etw_payload_filter *h = blob;
	struct etw_payload_set *set;
	u32 off, i, more, store = 0;
	u8 *p;
	int ret;

	if (len < sizeof(*h) || len > ETW_MAX_PAYLOAD_FILTER ||
	    h->size != len || !h->count || h->count > ETW_MAX_PAYLOAD_EVENTS ||
	    h->reserved)
		return ERR_PTR(-EINVAL);
	for (i = 0, off = sizeof(*h); i < h->count; i++) {
		ret = etw_pf_block_check((const u8 *)blob + off, len - off,
					 &more);
		if (ret)
			return ERR_PTR(ret);
		store += more;
		off += ((const struct etw_payload_event *)
			((const u8 *)blob + off))->size;
	}
	if (off != len)
		return ERR_PTR(-EINVAL);
	set = kvmalloc(struct_size(set, ev, h->count) + store, gfp);
	if (!set)
		return ERR_PTR(-ENOMEM);
	set->count = h->count;
	set->extent = 0;
	p = (u8 *)&set->ev[h->count];
	for (i = 0, off = sizeof(*h); i < h->count; i++) {
		const struct etw_pf_event *e = &set->ev[i];

		etw_pf_fill(&set->ev[i], (const u8 *)blob + off, &p);
		set->extent = max(set->extent, e->fixed_start ?
				  e->fixed_start[e->nfields] : U32_MAX);
		off += ((const struct etw_payload_event *)
			((const u8 *)blob + off))->size;
	}
	set->quick = set->count == 1 && etw_pf_is_quick(&set->ev[0]);
	return set;
}
EXPORT_SYMBOL_IF_KUNIT(etw_payload_filter_parse);

/**
 * etw_payload_filter_extent() - how many payload bytes a filter reads
 * @set: the filter
 *
 * A payload cut after this many bytes passes @set exactly when the whole
 * payload does: the writer may gather only these.
 *
 * Context: any.
 * Return: where the last field of @set's blocks ends when every field is
 * FIXED; %U32_MAX when a block has a field of variable size.
 */
u32 etw_payload_filter_extent(const struct etw_payload_set *set)
{
	return set->extent;
}
EXPORT_SYMBOL_IF_KUNIT(etw_payload_filter_extent);

/**
 * etw_payload_filter_free() - free a filter etw_payload_filter_parse() made
 * @set: the filter, or NULL
 *
 * Context: process context.
 */
void etw_payload_filter_free(struct etw_payload_set *set)
{
	kvfree(set);
}
EXPORT_SYMBOL_IF_KUNIT(etw_payload_filter_free);

/*
 * @raw: the field as read.  MODULO: it divides, signs aside.  The rest:
 * the interval.
 */
static bool etw_pf_int_match(const struct etw_pf_pred *q, u64 raw)
{
	u64 rem, x, ux, uv;

	if (q->op != ETW_PAYLOAD_OP_MODULO)
		return etw_pf_in_interval(q, raw);
	/* Sign-extended: nothing changes when @q->sign is 0. */
	x = (raw ^ q->sign) - q->sign;
	ux = q->sign && (s64)x < 0 ? -x : x;
	uv = q->sign && (s64)q->v1 < 0 ? -q->v1 : q->v1;
	div64_u64_rem(ux, uv, &rem);
	return !rem;
}

/*
 * Where each field starts: @start[i] for field i, and where the one before
 * the first that does not fit ends; returns the fields that fit.
 */
static u8 etw_pf_walk(const struct etw_pf_event *e, const u8 *pl, u32 len,
		      u32 *start)
{
	u32 off = 0, i;
	u64 n;

	for (i = 0; i < e->nfields; i++) {
		const struct etw_payload_field *f = &e->fields[i];
		const u8 *z;

		start[i] = off;
		switch (f->kind) {
		case ETW_PAYLOAD_FIELD_FIXED:
			n = f->size;
			break;
		case ETW_PAYLOAD_FIELD_SZ8:
			z = memchr(pl + off, 0, len - off);
			if (!z)
				return i;
			n = z - (pl + off) + 1;
			break;
		case ETW_PAYLOAD_FIELD_SZ16:
			for (n = 0; off + n + 2 <= len; n += 2)
				if (!get_unaligned_le16(pl + off + n))
					break;
			if (off + n + 2 > len)
				return i;
			n += 2;
			break;
		default:	/* COUNTED: its count field fit (earlier) */
			z = pl + start[f->ref];
			switch (e->fields[f->ref].size) {
			case 1:
				n = *z;
				break;
			case 2:
				n = get_unaligned_le16(z);
				break;
			default:
				n = get_unaligned_le32(z);
				break;
			}
			n *= f->size;
			break;
		}
		if (n > len - off)
			return i;
		off += n;
	}
	start[i] = off;
	return i;
}

/* Does the string of @n units at @s contain the predicate's operand? */
static bool etw_pf_contains(const struct etw_pf_pred *q, const u8 *s, u32 n)
{
	u32 i, k = 0;

	if (!q->len)
		return true;
	for (i = 0; i < n; i++) {
		u16 c = etw_pf_unit(s, q->type, i);

		while (k && c != etw_pf_unit(q->val, q->type, k))
			k = q->fail[k - 1];
		if (c == etw_pf_unit(q->val, q->type, k) && ++k == q->len)
			return true;
	}
	return false;
}

static bool etw_pf_is(const struct etw_pf_pred *q, const u8 *s, u32 n)
{
	u32 i;

	if (n != q->len)
		return false;
	for (i = 0; i < n; i++)
		if (etw_pf_unit(s, q->type, i) != etw_pf_unit(q->val, q->type, i))
			return false;
	return true;
}

/* A string field's units, up to its end or its first NUL. */
static u32 etw_pf_units(const u8 *s, u32 bytes, u8 type)
{
	u32 n = type == ETW_PAYLOAD_STR16 ? bytes / 2 : bytes, i;

	for (i = 0; i < n; i++)
		if (!etw_pf_unit(s, type, i))
			break;
	return i;
}

static __always_inline bool etw_pf_pred_match(const struct etw_pf_event *e,
					      const struct etw_pf_pred *q,
					      const u8 *pl, const u32 *start,
					      u8 nfit)
{
	const u8 *s;
	u32 bytes, n;

	if (q->field >= nfit)
		return false;
	s = pl + start[q->field];
	bytes = start[q->field + 1] - start[q->field];
	switch (q->type) {
	case ETW_PAYLOAD_UINT:
	case ETW_PAYLOAD_INT:
		return etw_pf_int_match(q, etw_pf_raw(q, s));
	case ETW_PAYLOAD_BYTES:
		return !memcmp(s, q->val, bytes) == (q->op == ETW_PAYLOAD_OP_IS);
	}
	n = etw_pf_units(s, bytes, q->type);
	switch (q->op) {
	case ETW_PAYLOAD_OP_CONTAINS:
		return etw_pf_contains(q, s, n);
	case ETW_PAYLOAD_OP_DOESNTCONTAIN:
		return !etw_pf_contains(q, s, n);
	case ETW_PAYLOAD_OP_IS:
		return etw_pf_is(q, s, n);
	default:
		return !etw_pf_is(q, s, n);
	}
}

/* The predicates of @e on fields whose starts are @start, @nfit of them. */
static __always_inline bool etw_pf_preds_match(const struct etw_pf_event *e,
					       const u8 *pl, const u32 *start,
					       u8 nfit)
{
	u8 i;

	for (i = 0; i < e->npreds; i++)
		if (etw_pf_pred_match(e, &e->pred[i], pl, start, nfit) ==
		    e->match_any)
			return e->match_any;
	return !e->match_any;
}

static bool etw_pf_event_match(const struct etw_pf_event *e, const u8 *pl,
			       u32 len)
{
	/* Written before it is read: not zeroed per event. */
	u32 start[ETW_MAX_PAYLOAD_FIELDS + 1] __uninitialized;
	u8 nfit = 0;

	/* Fixed fields start where the parse put them: count those that fit. */
	if (e->fixed_start) {
		while (nfit < e->nfields && e->fixed_start[nfit + 1] <= len)
			nfit++;
		return etw_pf_preds_match(e, pl, e->fixed_start, nfit);
	}
	nfit = etw_pf_walk(e, pl, len, start);
	return etw_pf_preds_match(e, pl, start, nfit);
}

/**
 * etw_payload_filter_match_blocks() - etw_payload_filter_match() of a set
 * that is not quick
 * @set: the filter
 * @id: the event's id
 * @version: the event's version
 * @pl: its payload
 * @len: bytes at @pl
 *
 * Each block in turn; out of line, so that the quick sets' inline test
 * carries none of this.
 *
 * Context: any.
 * Return: true when the event passes.
 */
bool etw_payload_filter_match_blocks(const struct etw_payload_set *set,
				     u16 id, u8 version, const u8 *pl, u32 len)
{
	bool any_seen = false, any_ok = false;
	u16 i;

	for (i = 0; i < set->count; i++) {
		const struct etw_pf_event *e = &set->ev[i];

		if (e->key != etw_pf_key(id, version))
			continue;
		if (e->all_group) {
			if (!etw_pf_event_match(e, pl, len))
				return false;
		} else if (!any_ok) {
			any_seen = true;
			any_ok = etw_pf_event_match(e, pl, len);
		}
	}
	return !any_seen || any_ok;
}
EXPORT_SYMBOL_IF_KUNIT(etw_payload_filter_match_blocks);

/**
 * etw_payload_filter_same() - do two payload filters hold the same blocks
 * @a: a filter, or NULL
 * @b: a filter, or NULL
 *
 * Context: any.
 * Return: true when both are NULL, or both hold equal blocks in the same
 * order.
 */
bool etw_payload_filter_same(const struct etw_payload_set *a,
			     const struct etw_payload_set *b)
{
	u16 i, j;

	if (!a || !b)
		return a == b;
	if (a->count != b->count)
		return false;
	for (i = 0; i < a->count; i++) {
		const struct etw_pf_event *x = &a->ev[i], *y = &b->ev[i];

		if (x->key != y->key ||
		    x->match_any != y->match_any ||
		    x->all_group != y->all_group ||
		    x->nfields != y->nfields || x->npreds != y->npreds ||
		    memcmp(x->fields, y->fields,
			   x->nfields * sizeof(*x->fields)))
			return false;
		for (j = 0; j < x->npreds; j++) {
			const struct etw_pf_pred *p = &x->pred[j];
			const struct etw_pf_pred *q = &y->pred[j];

			if (p->field != q->field || p->op != q->op ||
			    p->type != q->type || p->len != q->len ||
			    p->v1 != q->v1 || p->v2 != q->v2 ||
			    (p->val && memcmp(p->val, q->val,
					      p->type == ETW_PAYLOAD_STR16 ?
					      2 * p->len : p->len)))
				return false;
		}
	}
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(etw_payload_filter_same);
