/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * SHA-1 (FIPS 180-4), internal to libetw.  It is here only because the
 * EventSource/TraceLogging provider-GUID convention is defined in terms of
 * it; nothing in libetw relies on SHA-1 for security.
 */
#ifndef _ETW_SHA1_H
#define _ETW_SHA1_H

#include <stddef.h>
#include <stdint.h>

#define ETW_SHA1_DIGEST_SIZE	20
#define ETW_SHA1_BLOCK_SIZE	64

struct etw_sha1_ctx {
	uint32_t state[5];
	uint64_t bytes;				/* message length so far */
	uint8_t block[ETW_SHA1_BLOCK_SIZE];	/* partial input block */
};

void etw_sha1_init(struct etw_sha1_ctx *ctx);
void etw_sha1_update(struct etw_sha1_ctx *ctx, const void *data, size_t len);
void etw_sha1_final(struct etw_sha1_ctx *ctx,
		    uint8_t digest[ETW_SHA1_DIGEST_SIZE]);
void etw_sha1(const void *data, size_t len,
	      uint8_t digest[ETW_SHA1_DIGEST_SIZE]);

#endif /* _ETW_SHA1_H */
