/* SPDX-License-Identifier: GPL-2.0 */
/*
 * symbols.h: stack addresses as module!function+0xoff, through a map of
 * the images each process had mapped over time and the ELF symbols of
 * their files (elfutils' libdwfl).  Independent of libetw: the caller
 * feeds the map from whatever records the images.
 */
#ifndef _ETWCTL_SYMBOLS_H
#define _ETWCTL_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* What an Image event says happened, by its opcode. */
enum etwctl_image_op {
	ETWCTL_IMAGE_LOAD,	/* mapped at the event's time */
	ETWCTL_IMAGE_UNLOAD,	/* unmapped at the event's time */
	ETWCTL_IMAGE_DCSTART,	/* mapped when the trace started */
	ETWCTL_IMAGE_DCEND,	/* mapped when the trace stopped */
};

/**
 * struct etwctl_image - one image of one process
 * @pid: the process
 * @base: where the image's mapping starts (ImageBase)
 * @size: the mapping's bytes (ImageSize)
 * @path: the file, as the trace names it (read on this machine)
 * @file_base: where the file's offset 0 lies (DefaultBase of etw.ko's
 *	records, which map each executable segment alone): ELF symbols are
 *	found from it
 */
struct etwctl_image {
	uint32_t pid;
	uint64_t base;
	uint64_t size;
	const char *path;
	uint64_t file_base;
};

struct etwctl_symbols;

struct etwctl_symbols *etwctl_symbols_new(void);
void etwctl_symbols_free(struct etwctl_symbols *s);
int etwctl_symbols_image(struct etwctl_symbols *s, enum etwctl_image_op op,
			 const struct etwctl_image *img, int64_t time);
size_t etwctl_symbols_mappings(const struct etwctl_symbols *s);
int etwctl_symbols_kallsyms(struct etwctl_symbols *s, FILE *f);
int etwctl_symbols_frame(struct etwctl_symbols *s, uint32_t pid,
			 int64_t time, uint64_t addr, char *buf, size_t size);
int etwctl_symbols_ip(struct etwctl_symbols *s, uint32_t pid, int64_t time,
		      uint64_t addr, char *buf, size_t size);

#endif /* _ETWCTL_SYMBOLS_H */
