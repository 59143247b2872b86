/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The pieces of etwctl's in-memory tables (names, paths, stacks, CLR
 * methods): arrays that grow by doubling, and the hashes of words (FNV-1a)
 * and strings for the open-addressed indexes over them.
 */
#ifndef ETWCTL_TABLE_H
#define ETWCTL_TABLE_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define ETWCTL_FNV1A_BASIS	0xcbf29ce484222325ull

/* FNV-1a: @h folded with one more byte or word @v. */
static inline uint64_t etwctl_fnv1a_word(uint64_t h, uint64_t v)
{
	return (h ^ v) * 0x100000001b3ull;
}

/*
 * A string's hash, eight bytes a step: image paths and frame names run
 * to a hundred bytes, which FNV-1a took a multiply each.  Each step
 * mixes its word down to the low bits the tables' slots are taken from.
 */
static inline uint64_t etwctl_str_hash(const char *s)
{
	size_t n = strlen(s);
	uint64_t h = ETWCTL_FNV1A_BASIS ^ n, w;

	for (; n >= 8; s += 8, n -= 8) {
		memcpy(&w, s, sizeof(w));
		h = (h ^ w) * 0x9e3779b97f4a7c15ull;
		h ^= h >> 29;
	}
	for (w = 0; n--;)
		w = w << 8 | (uint8_t)s[n];
	h = (h ^ w) * 0x9e3779b97f4a7c15ull;
	return h ^ h >> 29;
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
