/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A known call chain for the symboliser's tests: chain_a calls chain_b
 * calls chain_c, each recording a return address, and a libc function
 * (tfind) that calls back into this program; the images that hold them,
 * as /proc/self/maps shows them.
 */
#ifndef _CALL_CHAIN_H
#define _CALL_CHAIN_H

#include <dlfcn.h>
#include <inttypes.h>
#include <search.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "symbols.h"

#define NOIPA	__attribute__((noipa))

/* Return addresses: in chain_c, chain_b, chain_a, and in libc's tfind. */
static uint64_t chain[4];

static NOIPA uint64_t return_address(void)
{
	return (uintptr_t)__builtin_return_address(0);
}

static NOIPA void chain_c(void)
{
	chain[0] = return_address();
	chain[1] = (uintptr_t)__builtin_return_address(0);
}

static NOIPA void chain_b(void)
{
	chain_c();
	chain[2] = (uintptr_t)__builtin_return_address(0);
}

static NOIPA void chain_a(void)
{
	chain_b();
	/* Not a tail call: chain_a stays on the stack. */
	__asm__ volatile("" ::: "memory");
}

static NOIPA int libc_compare(const void *a, const void *b)
{
	chain[3] = (uintptr_t)__builtin_return_address(0);
	return strcmp(a, b);
}

static void no_free(void *p)
{
}

/* The return address of libc's call to libc_compare, through tfind. */
static void libc_frame(void)
{
	void *root = NULL;

	tsearch("x", &root, libc_compare);
	tfind("x", &root, libc_compare);
	tdestroy(root, no_free);
}

/*
 * The image holding @addr, as /proc/self/maps shows it: @path, from the
 * start of its first mapping to the end of its last.
 */
static int image_of(uint64_t addr, struct etwctl_image *img, char *path,
		    size_t size)
{
	FILE *f = fopen("/proc/self/maps", "r");
	unsigned long long start, end;
	char line[512], file[256];
	int pass;

	if (!f)
		return -1;
	*path = 0;
	for (pass = 0; pass < 2; pass++) {
		rewind(f);
		while (fgets(line, sizeof(line), f)) {
			if (sscanf(line, "%llx-%llx %*s %*s %*s %*s %255s",
				   &start, &end, file) != 3)
				continue;
			if (!pass && addr >= start && addr < end)
				snprintf(path, size, "%s", file);
			if (!pass || strcmp(file, path))
				continue;
			if (!img->size)
				img->base = img->file_base = start;
			img->size = end - img->base;
		}
	}
	fclose(f);
	img->path = path;
	return *path == '/' ? 0 : -1;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/*
 * Whether @frame is "@module!NAME+0xOFF" with NAME a symbol dlsym()
 * finds at @addr - OFF: libc's symbols give tfind several names.
 */
static bool names_symbol(const char *frame, const char *module,
			 uint64_t addr)
{
	char name[256];
	const char *bang = strchr(frame, '!'), *plus = strrchr(frame, '+');
	uint64_t off;
	void *fn;

	if (!bang || !plus || plus < bang ||
	    (size_t)(bang - frame) != strlen(module) ||
	    strncmp(frame, module, strlen(module)) ||
	    (size_t)(plus - bang) > sizeof(name) ||
	    sscanf(plus, "+0x%" SCNx64, &off) != 1)
		return false;
	snprintf(name, (size_t)(plus - bang), "%s", bang + 1);
	fn = dlsym(RTLD_DEFAULT, name);
	return fn && (uintptr_t)fn + off == addr;
}

#endif /* _CALL_CHAIN_H */
