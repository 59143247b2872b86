// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * etw_xpress.c: the "plain LZ77" form of XPRESS ([MS-XCA] 2.3 and 2.4),
 * which compresses the buffers of ETL files that Windows' relogger, WPR,
 * xperf and PerfView's merge write.
 *
 * The stream is 32-bit little-endian flag words, each followed by the 32
 * tokens it describes, read from its most significant bit: 0 a literal
 * byte, 1 a 16-bit match word (offset - 1 in the high 13 bits, length - 3
 * in the low 3).  A length field of 7 continues in a half byte (shared by
 * two matches: the first takes the low nibble of a byte it places, the
 * next the high one), 15 there in a byte, 255 there in a 16-bit word and 0
 * there in a 32-bit one; those two hold length - 3 whole.  The compressor
 * fills the unused bits of the last flag word with ones, so the stream
 * ends at a match token with no input left.
 *
 * Everything the decompressor reads is hostile: every read is checked
 * against the input, every write against the output, every offset
 * against what was written.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "etw_etl.h"

#define ETW_XPRESS_MAX_OFFSET	8192
#define ETW_XPRESS_MIN_MATCH	3
#define ETW_XPRESS_HASH_BITS	14
/* Candidates tried per position: ratio near Windows', at ~100 MB/s. */
#define ETW_XPRESS_CHAIN	24

static uint32_t etw_xpress_le16(const uint8_t *p)
{
	return p[0] | (uint32_t)p[1] << 8;
}

static uint32_t etw_xpress_le32(const uint8_t *p)
{
	return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

/*
 * The length of the match whose 16-bit word was just read: *@ip moves
 * past the bytes that extend it; *@half is the input offset of the byte
 * whose high nibble the next extended match takes, or SIZE_MAX.
 */
static int etw_xpress_length(const uint8_t *in, size_t len, size_t *ip,
			     size_t *half, uint32_t code, uint64_t *out)
{
	uint32_t n = code;

	if (n < 7) {
		*out = n + ETW_XPRESS_MIN_MATCH;
		return 0;
	}
	if (*half == SIZE_MAX) {
		if (*ip >= len)
			return -EBADMSG;
		n = in[*ip] & 0xf;
		*half = (*ip)++;
	} else {
		n = in[*half] >> 4;
		*half = SIZE_MAX;
	}
	if (n < 15) {
		*out = (uint64_t)n + 7 + ETW_XPRESS_MIN_MATCH;
		return 0;
	}
	if (*ip >= len)
		return -EBADMSG;
	n = in[(*ip)++];
	if (n < 255) {
		*out = (uint64_t)n + 15 + 7 + ETW_XPRESS_MIN_MATCH;
		return 0;
	}
	if (len - *ip < 2)
		return -EBADMSG;
	n = etw_xpress_le16(in + *ip);
	*ip += 2;
	if (!n) {
		if (len - *ip < 4)
			return -EBADMSG;
		n = etw_xpress_le32(in + *ip);
		*ip += 4;
	}
	/* The whole forms hold length - 3, and only what the byte cannot. */
	if (n < 15 + 7)
		return -EBADMSG;
	*out = (uint64_t)n + ETW_XPRESS_MIN_MATCH;
	return 0;
}

/*
 * A match of @n bytes from @off back copied 8 bytes at a time, where a
 * memcpy() call would cost more than the short copy: with @off at least 8
 * each word's source is written already, and the caller leaves room for
 * the up to 7 bytes past the match the last word writes (the next tokens
 * write them again).
 */
static void etw_xpress_copy_words(uint8_t *d, uint32_t off, uint64_t n)
{
	uint64_t w;

	for (;;) {
		memcpy(&w, d - off, sizeof(w));
		memcpy(d, &w, sizeof(w));
		if (n <= 8)
			return;
		d += 8;
		n -= 8;
	}
}

/**
 * etw_xpress_decompress - inflate one plain LZ77 stream
 * @in: the compressed bytes
 * @in_len: bytes at @in
 * @out: receives the data
 * @cap: bytes @out holds
 * @out_len: out: bytes written
 *
 * The stream ends where its input does, between tokens.  A match may
 * overlap the bytes it writes (offset 1 repeats a byte).  Bytes of @out
 * past *@out_len, within @cap, may be written too.
 *
 * Context: any; no allocation.
 * Return: 0, or -EBADMSG for a stream that ends inside a token, refers
 * before the start of the output, holds an invalid length, or inflates
 * past @cap.
 */
int etw_xpress_decompress(const void *in, size_t in_len, void *out,
			  size_t cap, size_t *out_len)
{
	const uint8_t *src = in;
	uint8_t *dst = out;
	size_t ip = 0, op = 0, half = SIZE_MAX;
	uint32_t flags = 0, nflags = 0, word, off;
	uint64_t n;
	int ret;

	*out_len = 0;
	for (;;) {
		if (!nflags) {
			if (ip == in_len)
				break;
			if (in_len - ip < 4)
				return -EBADMSG;
			flags = etw_xpress_le32(src + ip);
			ip += 4;
			nflags = 32;
		}
		nflags--;
		if (ip == in_len)
			break;
		if (!(flags >> nflags & 1)) {
			if (op == cap)
				return -EBADMSG;
			dst[op++] = src[ip++];
			continue;
		}
		if (in_len - ip < 2)
			return -EBADMSG;
		word = etw_xpress_le16(src + ip);
		ip += 2;
		off = (word >> 3) + 1;
		ret = etw_xpress_length(src, in_len, &ip, &half, word & 7, &n);
		if (ret)
			return ret;
		if (off > op || n > cap - op)
			return -EBADMSG;
		if (off >= 8 && cap - op >= n + 7) {
			etw_xpress_copy_words(dst + op, off, n);
			op += n;
		} else if (off >= n) {
			memcpy(dst + op, dst + op - off, n);
			op += n;
		} else {
			/* Overlapping: each byte may be one just written. */
			for (; n; n--, op++)
				dst[op] = dst[op - off];
		}
	}
	*out_len = op;
	return 0;
}

struct etw_xpress_out {
	uint8_t *p;
	size_t cap;
	size_t pos;
	size_t flag_pos;
	uint32_t flags;
	uint32_t nflags;
	size_t half;
	bool full;
};

static void etw_xpress_put(struct etw_xpress_out *o, const void *b,
			   size_t n)
{
	if (o->full || o->cap - o->pos < n) {
		o->full = true;
		return;
	}
	memcpy(o->p + o->pos, b, n);
	o->pos += n;
}

static void etw_xpress_put_le(struct etw_xpress_out *o, uint32_t v,
			      size_t n)
{
	uint8_t b[4] = { v & 0xff, v >> 8 & 0xff, v >> 16 & 0xff, v >> 24 };

	etw_xpress_put(o, b, n);
}

/* Records one token's flag; a full word is stored and the next reserved. */
static void etw_xpress_flag(struct etw_xpress_out *o, uint32_t bit)
{
	o->flags = o->flags << 1 | bit;
	if (++o->nflags < 32)
		return;
	if (!o->full) {
		o->p[o->flag_pos] = o->flags & 0xff;
		o->p[o->flag_pos + 1] = o->flags >> 8 & 0xff;
		o->p[o->flag_pos + 2] = o->flags >> 16 & 0xff;
		o->p[o->flag_pos + 3] = o->flags >> 24;
	}
	o->flag_pos = o->pos;
	etw_xpress_put_le(o, 0, 4);
	o->flags = 0;
	o->nflags = 0;
}

static void etw_xpress_match(struct etw_xpress_out *o, uint32_t off,
			     uint32_t len)
{
	uint32_t n = len - ETW_XPRESS_MIN_MATCH;
	uint8_t nib;

	etw_xpress_put_le(o, (off - 1) << 3 | (n < 7 ? n : 7), 2);
	if (n >= 7) {
		nib = n - 7 < 15 ? n - 7 : 15;
		if (o->half == SIZE_MAX) {
			o->half = o->pos;
			etw_xpress_put(o, &nib, 1);
		} else {
			if (!o->full)
				o->p[o->half] |= nib << 4;
			o->half = SIZE_MAX;
		}
		if (n >= 7 + 15) {
			if (n - 22 < 255) {
				etw_xpress_put_le(o, n - 22, 1);
			} else {
				etw_xpress_put_le(o, 255, 1);
				if (n <= 0xffff) {
					etw_xpress_put_le(o, n, 2);
				} else {
					etw_xpress_put_le(o, 0, 2);
					etw_xpress_put_le(o, n, 4);
				}
			}
		}
	}
	etw_xpress_flag(o, 1);
}

/* Bytes @a and @b have in common, at most @max; 8 at a time. */
static size_t etw_xpress_common(const uint8_t *a, const uint8_t *b,
				size_t max)
{
	uint64_t x, y;
	size_t l = 0;

	while (max - l >= 8) {
		memcpy(&x, a + l, 8);
		memcpy(&y, b + l, 8);
		if (x != y)
			return l + (__builtin_ctzll(x ^ y) >> 3);
		l += 8;
	}
	while (l < max && a[l] == b[l])
		l++;
	return l;
}

static uint32_t etw_xpress_hash(const uint8_t *p)
{
	uint32_t v = p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16;

	return (v * 2654435761u) >> (32 - ETW_XPRESS_HASH_BITS);
}

/**
 * etw_xpress_compress - deflate data into one plain LZ77 stream
 * @in: the data
 * @len: bytes at @in
 * @out: receives the stream
 * @cap: bytes @out holds
 *
 * Greedy matching over hash chains within the 8 KiB window the format
 * reaches.
 *
 * Context: any; allocates its hash chains.
 * Return: bytes of the stream, 0 when it would not fit in @cap (the
 * caller stores the data uncompressed), or -ENOMEM.
 */
ssize_t etw_xpress_compress(const void *in, size_t len, void *out,
			    size_t cap)
{
	const uint8_t *src = in;
	struct etw_xpress_out o = { .p = out, .cap = cap, .half = SIZE_MAX };
	int32_t *head, *prev;
	size_t pos = 0, i, best, best_off, max, l;
	uint32_t h, depth;
	int32_t cand;

	head = malloc(sizeof(*head) << ETW_XPRESS_HASH_BITS);
	prev = malloc(sizeof(*prev) * ETW_XPRESS_MAX_OFFSET);
	if (!head || !prev) {
		free(head);
		free(prev);
		return -ENOMEM;
	}
	memset(head, 0xff, sizeof(*head) << ETW_XPRESS_HASH_BITS);
	etw_xpress_put_le(&o, 0, 4);
	while (pos < len && !o.full) {
		best = 0;
		best_off = 0;
		if (len - pos >= ETW_XPRESS_MIN_MATCH) {
			max = len - pos;
			h = etw_xpress_hash(src + pos);
			cand = head[h];
			for (depth = 0; cand >= 0 && depth < ETW_XPRESS_CHAIN &&
			     pos - cand <= ETW_XPRESS_MAX_OFFSET; depth++) {
				/* Only a match past the best so far counts. */
				l = src[cand + best] != src[pos + best] ? 0 :
				    etw_xpress_common(src + cand, src + pos,
						      max);
				if (l > best) {
					best = l;
					best_off = pos - cand;
					if (l == max)
						break;
				}
				cand = prev[cand % ETW_XPRESS_MAX_OFFSET];
			}
		}
		if (best < ETW_XPRESS_MIN_MATCH)
			best = 1;
		/* Every position covered enters the chains. */
		for (i = pos; i < pos + best; i++) {
			if (len - i < ETW_XPRESS_MIN_MATCH)
				break;
			if (i > pos)
				h = etw_xpress_hash(src + i);
			prev[i % ETW_XPRESS_MAX_OFFSET] = head[h];
			head[h] = (int32_t)i;
		}
		if (best == 1) {
			etw_xpress_put(&o, src + pos, 1);
			etw_xpress_flag(&o, 0);
		} else {
			etw_xpress_match(&o, best_off, best);
		}
		pos += best;
	}
	free(head);
	free(prev);
	/* The rest of the last flag word: ones, which end the stream. */
	if (!o.full) {
		h = o.nflags;
		o.flags = (uint32_t)((uint64_t)o.flags << (32 - h)) |
			  (uint32_t)((1ull << (32 - h)) - 1);
		o.p[o.flag_pos] = o.flags & 0xff;
		o.p[o.flag_pos + 1] = o.flags >> 8 & 0xff;
		o.p[o.flag_pos + 2] = o.flags >> 16 & 0xff;
		o.p[o.flag_pos + 3] = o.flags >> 24;
	}
	return o.full ? 0 : (ssize_t)o.pos;
}
