/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The pieces of etwctl's in-memory tables (names, paths, stacks, CLR
 * methods): arrays that grow by doubling, and FNV-1a hashing for the
 * open-addressed indexes over them.
 */
#ifndef ETWCTL_TABLE_H
#define ETWCTL_TABLE_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#define ETWCTL_FNV1A_BASIS	0xcbf29ce484222325ull

/* FNV-1a: @h folded with one more byte or word @v. */
static inline uint64_t etwctl_fnv1a_word(uint64_t h, uint64_t v)
{
	return (h ^ v) * 0x100000001b3ull;
}

static inline uint64_t etwctl_fnv1a_str(const char *s)
{
	uint64_t h = ETWCTL_FNV1A_BASIS;

	while (*s)
		h = etwctl_fnv1a_word(h, (uint8_t)*s++);
	return h;
}

/*
 * Room for @want more elements of @size bytes in *@v, which holds @n of
 * *@cap: the capacity doubles (from 64) until they fit.  Return: 0, or
 * -ENOMEM with the array as it was.
 */
static inline int etwctl_grow(void **v, size_t *cap, size_t n, size_t want,
			      size_t size)
{
	size_t c = *cap ? *cap : 64;
	void *p;

	if (n + want <= *cap)
		return 0;
	while (c < n + want)
		c *= 2;
	p = realloc(*v, c * size);
	if (!p)
		return -ENOMEM;
	*v = p;
	*cap = c;
	return 0;
}

#endif /* ETWCTL_TABLE_H */
