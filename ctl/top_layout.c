// SPDX-License-Identifier: GPL-2.0
/*
 * top_layout.c: etwctl top reads etw.ko's tracepoint records at fixed
 * offsets (ctl/bpf/top_maps.h).  Before it attaches, each field it reads
 * is looked up in the event's tracefs format file, so that a module whose
 * layout differs is refused with a message instead of miscounted.
 */
#include <stdio.h>
#include <string.h>

#include "top.h"

/*
 * Parse one "\tfield:TYPE NAME[N];\toffset:O;\tsize:S;\tsigned:X;" line
 * into its name (array bounds dropped), offset and size; false when the
 * line is not a field.
 */
static bool etwctl_top_field_parse(const char *line, size_t len,
				   char *name, size_t name_len,
				   unsigned int *offset, unsigned int *size)
{
	const char *semi, *start, *p;
	size_t n;

	p = memchr(line, 'f', len);
	if (!p || (size_t)(line + len - p) < 6 || strncmp(p, "field:", 6))
		return false;
	semi = memchr(p, ';', line + len - p);
	if (!semi)
		return false;
	start = semi;
	while (start > p && start[-1] != ' ')
		start--;
	n = strcspn(start, "[;");
	if (n == 0 || n >= name_len)
		return false;
	memcpy(name, start, n);
	name[n] = 0;
	p = strstr(semi, "offset:");
	if (!p || p > line + len || sscanf(p, "offset:%u;", offset) != 1)
		return false;
	p = strstr(p, "size:");
	return p && p < line + len && sscanf(p, "size:%u;", size) == 1;
}

/* Find @name in @format; false when it has no such field. */
static bool etwctl_top_field_find(const char *format, const char *name,
				  unsigned int *offset, unsigned int *size)
{
	const char *line = format;

	while (*line) {
		size_t len = strcspn(line, "\n");
		char got[64];

		if (etwctl_top_field_parse(line, len, got, sizeof(got),
					   offset, size) &&
		    !strcmp(got, name))
			return true;
		line += len + (line[len] == '\n');
	}
	return false;
}

/**
 * etwctl_top_layout_check - does a format file lay out the fields we read
 * @format: the text of an event's tracefs format file
 * @want: the fields, where top_maps.h reads them
 * @n: entries at @want
 * @why: out: what differs, one line without a newline
 * @why_len: bytes at @why
 *
 * Return: 0 when every field of @want is at its offset with its size,
 * else -1 with @why filled in.
 */
int etwctl_top_layout_check(const char *format,
			    const struct etwctl_top_field *want, size_t n,
			    char *why, size_t why_len)
{
	unsigned int offset, size;
	size_t i;

	for (i = 0; i < n; i++) {
		if (!etwctl_top_field_find(format, want[i].name, &offset,
					   &size)) {
			snprintf(why, why_len, "no field %s", want[i].name);
			return -1;
		}
		if (offset != want[i].offset || size != want[i].size) {
			snprintf(why, why_len,
				 "field %s at offset %u size %u, expected offset %u size %u",
				 want[i].name, offset, size, want[i].offset,
				 want[i].size);
			return -1;
		}
	}
	return 0;
}
