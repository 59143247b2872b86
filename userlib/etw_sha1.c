/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * SHA-1 as FIPS 180-4 specifies it: a straightforward, byte-order
 * independent implementation.  Speed does not matter (it hashes provider
 * names), so there is no unrolling and no assembly.
 */
#include <string.h>

#include "etw_sha1.h"

static uint32_t rol32(uint32_t x, unsigned int n)
{
	return (x << n) | (x >> (32 - n));
}

static uint32_t load_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

static void store_be32(uint8_t *p, uint32_t v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

/* The round function and constant for round t (FIPS 180-4, 4.1.1, 4.2.1). */
static uint32_t sha1_f(unsigned int t, uint32_t b, uint32_t c, uint32_t d)
{
	if (t < 20)
		return (b & c) | (~b & d);
	if (t < 40 || t >= 60)
		return b ^ c ^ d;
	return (b & c) | (b & d) | (c & d);
}

static uint32_t sha1_k(unsigned int t)
{
	static const uint32_t k[4] = {
		0x5a827999, 0x6ed9eba1, 0x8f1bbcdc, 0xca62c1d6
	};

	return k[t / 20];
}

static void sha1_block(uint32_t state[5], const uint8_t *block)
{
	uint32_t w[80];
	uint32_t a, b, c, d, e, tmp;
	unsigned int t;

	for (t = 0; t < 16; t++)
		w[t] = load_be32(block + 4 * t);
	for (; t < 80; t++)
		w[t] = rol32(w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16], 1);

	a = state[0];
	b = state[1];
	c = state[2];
	d = state[3];
	e = state[4];
	for (t = 0; t < 80; t++) {
		tmp = rol32(a, 5) + sha1_f(t, b, c, d) + e + sha1_k(t) + w[t];
		e = d;
		d = c;
		c = rol32(b, 30);
		b = a;
		a = tmp;
	}
	state[0] += a;
	state[1] += b;
	state[2] += c;
	state[3] += d;
	state[4] += e;
}

void etw_sha1_init(struct etw_sha1_ctx *ctx)
{
	ctx->state[0] = 0x67452301;
	ctx->state[1] = 0xefcdab89;
	ctx->state[2] = 0x98badcfe;
	ctx->state[3] = 0x10325476;
	ctx->state[4] = 0xc3d2e1f0;
	ctx->bytes = 0;
}

void etw_sha1_update(struct etw_sha1_ctx *ctx, const void *data, size_t len)
{
	const uint8_t *p = data;
	size_t used = ctx->bytes % ETW_SHA1_BLOCK_SIZE;
	size_t n;

	ctx->bytes += len;
	while (len) {
		n = ETW_SHA1_BLOCK_SIZE - used;
		if (n > len)
			n = len;
		memcpy(ctx->block + used, p, n);
		used += n;
		p += n;
		len -= n;
		if (used == ETW_SHA1_BLOCK_SIZE) {
			sha1_block(ctx->state, ctx->block);
			used = 0;
		}
	}
}

/*
 * Pad with 0x80, zeros, and the message length in bits as a 64-bit
 * big-endian number, so that the total is a multiple of the block size.
 */
void etw_sha1_final(struct etw_sha1_ctx *ctx,
		    uint8_t digest[ETW_SHA1_DIGEST_SIZE])
{
	static const uint8_t pad[ETW_SHA1_BLOCK_SIZE] = { 0x80 };
	uint64_t bits = ctx->bytes * 8;
	size_t used = ctx->bytes % ETW_SHA1_BLOCK_SIZE;
	uint8_t len[8];
	int i;

	for (i = 0; i < 8; i++)
		len[i] = bits >> (56 - 8 * i);
	etw_sha1_update(ctx, pad, used < 56 ? 56 - used : 120 - used);
	etw_sha1_update(ctx, len, sizeof(len));
	for (i = 0; i < 5; i++)
		store_be32(digest + 4 * i, ctx->state[i]);
	memset(ctx, 0, sizeof(*ctx));
}

void etw_sha1(const void *data, size_t len,
	      uint8_t digest[ETW_SHA1_DIGEST_SIZE])
{
	struct etw_sha1_ctx ctx;

	etw_sha1_init(&ctx);
	etw_sha1_update(&ctx, data, len);
	etw_sha1_final(&ctx, digest);
}
