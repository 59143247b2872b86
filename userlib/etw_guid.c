/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * Provider GUIDs from provider names, the convention of .NET EventSource
 * and TraceLogging (reference section 6):
 *
 *   guid = SHA-1(namespace || UTF-16BE(uppercase(name)))[0..15],
 *          with the high nibble of byte 7 set to 5,
 *          read as a GUID in little-endian field order.
 *
 * Uppercasing.  EventSource uses String.ToUpperInvariant, i.e. Unicode
 * simple case mapping.  We do not carry Unicode tables; instead we map
 *   - ASCII a-z,
 *   - Latin-1: U+00E0..U+00FE (except U+00F7) down by 0x20, U+00FF to
 *     U+0178, U+00B5 (micro sign) to U+039C,
 *   - modern Greek: U+03B1..U+03CB down by 0x20 (final sigma U+03C2 to
 *     U+03A3) and the accented vowels U+03AC..U+03AF, U+03CC..U+03CE to
 *     their capitals,
 *   - basic Cyrillic: U+0430..U+044F down by 0x20, U+0450..U+045F down
 *     by 0x50,
 * and leave every other character as it is (U+00DF sharp s stays, as in
 * .NET).  For those ranges the result equals .NET's.  A name with other
 * lowercase letters (Latin Extended, Armenian, full-width...) hashes
 * differently from .NET; pass such a name already uppercased.
 *
 * The name is UTF-8; characters outside the BMP become surrogate pairs,
 * as they are in a .NET string.  Malformed UTF-8 (overlong forms,
 * surrogates, values above U+10FFFF, truncated sequences) is rejected:
 * there is no .NET string it could stand for.
 */
#include <evntprov.h>

#include "etw_sha1.h"

/* {482C2DB2-C390-47C8-87F8-1A15BFC130FB}, in big-endian byte order. */
static const uint8_t etw_name_namespace[16] = {
	0x48, 0x2c, 0x2d, 0xb2, 0xc3, 0x90, 0x47, 0xc8,
	0x87, 0xf8, 0x1a, 0x15, 0xbf, 0xc1, 0x30, 0xfb,
};

/*
 * Decodes one UTF-8 sequence at *s into *cp and advances *s.  Returns 0,
 * or -1 if the sequence is malformed.
 */
static int utf8_next(const unsigned char **s, uint32_t *cp)
{
	static const uint32_t min_cp[4] = { 0, 0x80, 0x800, 0x10000 };
	const unsigned char *p = *s;
	unsigned int extra, i;
	uint32_t c = *p;

	if (c < 0x80)
		extra = 0;
	else if ((c & 0xe0) == 0xc0)
		extra = 1;
	else if ((c & 0xf0) == 0xe0)
		extra = 2;
	else if ((c & 0xf8) == 0xf0)
		extra = 3;
	else
		return -1;
	/* Keep the payload bits of the lead byte: 7, 5, 4 or 3 of them. */
	c &= 0x7f >> (extra ? extra + 1 : 0);

	/* A NUL terminator fails the continuation test, so no overrun. */
	for (i = 1; i <= extra; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return -1;
		c = c << 6 | (p[i] & 0x3f);
	}
	if (c < min_cp[extra] || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return -1;

	*cp = c;
	*s = p + extra + 1;
	return 0;
}

/* The documented subset of ToUpperInvariant (see the top of the file). */
static uint32_t etw_upcase(uint32_t c)
{
	if (c >= 'a' && c <= 'z')
		return c - 0x20;
	if (c < 0x80)
		return c;
	if (c == 0xb5)
		return 0x39c;
	if (c == 0xff)
		return 0x178;
	if (c >= 0xe0 && c <= 0xfe && c != 0xf7)
		return c - 0x20;
	if (c == 0x3ac)
		return 0x386;
	if (c >= 0x3ad && c <= 0x3af)
		return c - 0x25;
	if (c == 0x3c2)
		return 0x3a3;
	if (c >= 0x3b1 && c <= 0x3cb)
		return c - 0x20;
	if (c == 0x3cc)
		return 0x38c;
	if (c == 0x3cd || c == 0x3ce)
		return c - 0x3f;
	if (c >= 0x430 && c <= 0x44f)
		return c - 0x20;
	if (c >= 0x450 && c <= 0x45f)
		return c - 0x50;
	return c;
}

/* Feeds one character to the hash as UTF-16BE (one or two code units). */
static void hash_utf16be(struct etw_sha1_ctx *ctx, uint32_t c)
{
	uint8_t b[4];

	if (c < 0x10000) {
		b[0] = c >> 8;
		b[1] = c;
		etw_sha1_update(ctx, b, 2);
		return;
	}
	c -= 0x10000;
	b[0] = 0xd8 | (c >> 18);
	b[1] = c >> 10;
	b[2] = 0xdc | ((c >> 8) & 0x03);
	b[3] = c;
	etw_sha1_update(ctx, b, 4);
}

/* Bytes 0-15 of the digest, read as .NET's new Guid(byte[]) reads them. */
static void guid_from_digest(GUID *guid, const uint8_t *d)
{
	int i;

	guid->Data1 = (uint32_t)d[0] | (uint32_t)d[1] << 8 |
		      (uint32_t)d[2] << 16 | (uint32_t)d[3] << 24;
	guid->Data2 = (uint16_t)(d[4] | d[5] << 8);
	/* Version 5 in the high nibble of byte 7; no RFC 4122 variant bits. */
	guid->Data3 = (uint16_t)(d[6] | ((d[7] & 0x0f) | 0x50) << 8);
	for (i = 0; i < 8; i++)
		guid->Data4[i] = d[8 + i];
}

ULONG EVNTAPI EtwProviderGuidFromName(LPCSTR Name, GUID *Guid)
{
	const unsigned char *s = (const unsigned char *)Name;
	uint8_t digest[ETW_SHA1_DIGEST_SIZE];
	struct etw_sha1_ctx ctx;
	uint32_t c;

	if (!Name || !Guid)
		return ERROR_INVALID_PARAMETER;

	etw_sha1_init(&ctx);
	etw_sha1_update(&ctx, etw_name_namespace, sizeof(etw_name_namespace));
	while (*s) {
		if (utf8_next(&s, &c))
			return ERROR_INVALID_PARAMETER;
		hash_utf16be(&ctx, etw_upcase(c));
	}
	etw_sha1_final(&ctx, digest);
	guid_from_digest(Guid, digest);
	return ERROR_SUCCESS;
}
