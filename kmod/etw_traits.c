// SPDX-License-Identifier: GPL-2.0
/*
 * etw_traits.c - provider traits blobs (EventSetInformation class 2).
 *
 * Layout: u16 TraitsSize (the whole blob), a NUL-terminated UTF-8 provider
 * name, then traits, each u16 TraitSize (itself included, at least 3),
 * u8 Type, data.  Type 1 (provider group) carries the group GUID.  The
 * rules are the ones Windows applies (Documentation/abi.rst).
 */
#include <linux/errno.h>
#include <linux/string.h>

#include "compat.h"
#include "etw_internal.h"

#define ETW_TRAIT_TYPE_GROUP	1
#define ETW_TRAIT_HDR		3

/**
 * etw_traits_parse() - validate a traits blob and find its group
 * @blob: the blob
 * @len: bytes at @blob
 * @group: out: the group GUID, all zero when the blob names none
 *
 * Context: any.
 * Return: 0, or -EBADMSG for a malformed blob.
 */
int etw_traits_parse(const u8 *blob, u32 len, struct etw_guid *group)
{
	u32 off, name_len;

	memset(group, 0, sizeof(*group));
	if (len < ETW_TRAITS_NAME_OFFSET + 1 || get_unaligned_le16(blob) != len)
		return -EBADMSG;
	name_len = strnlen(blob + ETW_TRAITS_NAME_OFFSET,
			   len - ETW_TRAITS_NAME_OFFSET);
	if (name_len == len - ETW_TRAITS_NAME_OFFSET)
		return -EBADMSG;
	off = ETW_TRAITS_NAME_OFFSET + name_len + 1;
	while (off < len) {
		u16 size;

		if (len - off < sizeof(u16))
			return -EBADMSG;
		size = get_unaligned_le16(blob + off);
		if (size < ETW_TRAIT_HDR || size > len - off)
			return -EBADMSG;
		if (blob[off + 2] == ETW_TRAIT_TYPE_GROUP &&
		    size >= ETW_TRAIT_HDR + sizeof(*group))
			memcpy(group, blob + off + ETW_TRAIT_HDR, sizeof(*group));
		off += size;
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(etw_traits_parse);
