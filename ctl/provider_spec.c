// SPDX-License-Identifier: GPL-2.0
/*
 * provider_spec.c: GUID text and xperf-style provider specs,
 * PROVIDER[:KEYWORDS[:LEVEL]], as in "xperf -on GUID:0x1FC1F:0x5".
 *
 * Pure functions: no device, no I/O.  PROVIDER is a GUID (braces
 * optional), "*Name" for the GUID EventSource and TraceLogging derive from
 * a name, or a plain name that the caller resolves against the registered
 * providers (etwctl_provider_resolve()).  An empty KEYWORDS means every
 * keyword and an empty LEVEL every level, as "GUID::5" does in xperf.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "etwctl.h"

static int etwctl_hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = (char)tolower((unsigned char)c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* @digits hex digits at *p into *out; advances *p. */
static int etwctl_hex_field(const char **p, unsigned int digits,
			    uint64_t *out)
{
	uint64_t v = 0;
	unsigned int i;
	int d;

	for (i = 0; i < digits; i++) {
		d = etwctl_hex_digit((*p)[i]);
		if (d < 0)
			return -EINVAL;
		v = v << 4 | (uint64_t)d;
	}
	*p += digits;
	*out = v;
	return 0;
}

/**
 * etwctl_guid_parse - parse "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx"
 * @s: the text, optionally in braces; case does not matter
 * @guid: out: the GUID
 *
 * Return: 0, or -EINVAL when @s is not exactly a GUID.
 */
int etwctl_guid_parse(const char *s, GUID *guid)
{
	static const unsigned int groups[] = { 8, 4, 4, 4, 12 };
	uint64_t v[5];
	bool braces = *s == '{';
	unsigned int i;

	if (braces)
		s++;
	for (i = 0; i < 5; i++) {
		if (etwctl_hex_field(&s, groups[i], &v[i]))
			return -EINVAL;
		if (i < 4 && *s++ != '-')
			return -EINVAL;
	}
	if (braces && *s++ != '}')
		return -EINVAL;
	if (*s)
		return -EINVAL;
	guid->Data1 = (uint32_t)v[0];
	guid->Data2 = (uint16_t)v[1];
	guid->Data3 = (uint16_t)v[2];
	guid->Data4[0] = (uint8_t)(v[3] >> 8);
	guid->Data4[1] = (uint8_t)v[3];
	for (i = 0; i < 6; i++)
		guid->Data4[2 + i] = (uint8_t)(v[4] >> (40 - 8 * i));
	return 0;
}

/**
 * etwctl_guid_format - a GUID as lower-case text without braces
 * @guid: the GUID
 * @out: out: the text
 */
void etwctl_guid_format(const GUID *guid, char out[ETWCTL_GUID_LEN])
{
	/* By hand: dump formats one or more GUIDs per event. */
	static const uint8_t at[16] = {
		0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34,
	};
	uint8_t b[16] = {
		guid->Data1 >> 24, guid->Data1 >> 16, guid->Data1 >> 8,
		guid->Data1, guid->Data2 >> 8, guid->Data2, guid->Data3 >> 8,
		guid->Data3,
	};
	size_t i;

	memcpy(b + 8, guid->Data4, 8);
	for (i = 0; i < 16; i++)
		memcpy(out + at[i], etwctl_hex_pairs[0][b[i]], 2);
	out[8] = out[13] = out[18] = out[23] = '-';
	out[36] = 0;
}

static const struct {
	const char *name;
	uint8_t level;
} etwctl_levels[] = {
	{ "critical", TRACE_LEVEL_CRITICAL },
	{ "error", TRACE_LEVEL_ERROR },
	{ "warning", TRACE_LEVEL_WARNING },
	{ "info", TRACE_LEVEL_INFORMATION },
	{ "information", TRACE_LEVEL_INFORMATION },
	{ "informational", TRACE_LEVEL_INFORMATION },
	{ "verbose", TRACE_LEVEL_VERBOSE },
};

/**
 * etwctl_level_parse - a level as a number (0-255) or a name
 * @s: "0x5", "5", "verbose", "error", ...
 * @level: out: the level
 *
 * Return: 0, or -EINVAL.
 */
int etwctl_level_parse(const char *s, uint8_t *level)
{
	uint64_t v;
	size_t i;

	for (i = 0; i < sizeof(etwctl_levels) / sizeof(etwctl_levels[0]); i++) {
		if (!strcasecmp(s, etwctl_levels[i].name)) {
			*level = etwctl_levels[i].level;
			return 0;
		}
	}
	if (etwctl_parse_u64(s, 255, &v))
		return -EINVAL;
	*level = (uint8_t)v;
	return 0;
}

/* The PROVIDER part: a GUID, "*Name", or a name left to resolve. */
static int etwctl_provider_part(const char *s, size_t len,
				struct etwctl_provider_spec *spec)
{
	if (!len || len >= sizeof(spec->name))
		return -EINVAL;
	memcpy(spec->name, s, len);
	spec->name[len] = 0;
	if (!etwctl_guid_parse(spec->name, &spec->guid)) {
		spec->has_guid = true;
		return 0;
	}
	if (spec->name[0] == '*') {
		if (!spec->name[1] ||
		    EtwProviderGuidFromName(spec->name + 1, &spec->guid))
			return -EINVAL;
		spec->has_guid = true;
		return 0;
	}
	spec->has_guid = false;
	return 0;
}

/**
 * etwctl_provider_spec_parse - parse PROVIDER[:KEYWORDS[:LEVEL]]
 * @s: the spec
 * @spec: out: the parsed spec
 *
 * KEYWORDS is a 64-bit number (decimal or 0x hex), all bits when empty
 * or absent.  LEVEL is a number or a level name, 255 (every level) when
 * empty or absent.
 *
 * Return: 0, or -EINVAL for a malformed spec.
 */
int etwctl_provider_spec_parse(const char *s,
			       struct etwctl_provider_spec *spec)
{
	const char *kw = strchr(s, ':');
	const char *lv = kw ? strchr(kw + 1, ':') : NULL;
	char part[32];
	size_t len;

	memset(spec, 0, sizeof(*spec));
	spec->keywords = ~0ull;
	spec->level = 255;
	if (lv && strchr(lv + 1, ':'))
		return -EINVAL;
	if (etwctl_provider_part(s, kw ? (size_t)(kw - s) : strlen(s), spec))
		return -EINVAL;
	if (!kw)
		return 0;
	len = lv ? (size_t)(lv - kw - 1) : strlen(kw + 1);
	if (len >= sizeof(part))
		return -EINVAL;
	memcpy(part, kw + 1, len);
	part[len] = 0;
	if (len && etwctl_parse_u64(part, ~0ull, &spec->keywords))
		return -EINVAL;
	if (lv && lv[1] && etwctl_level_parse(lv + 1, &spec->level))
		return -EINVAL;
	return 0;
}
