/* SPDX-License-Identifier: GPL-2.0 */
/*
 * clr.h: the .NET runtime's JIT-compiled methods, from its method and
 * module events, as images of the stack symbol map (clr.c).
 */
#ifndef _ETWCTL_CLR_H
#define _ETWCTL_CLR_H

#include <stdbool.h>
#include <stddef.h>

#include "etw_etl.h"

struct etwctl_clr;
struct etwctl_symbols;

struct etwctl_clr *etwctl_clr_new(void);
void etwctl_clr_free(struct etwctl_clr *c);
bool etwctl_clr_wants(const struct etw_etl_event *ev);
int etwctl_clr_event(struct etwctl_clr *c, const struct etw_etl_event *ev);
int etwctl_clr_finish(struct etwctl_clr *c, struct etwctl_symbols *syms);
size_t etwctl_clr_kept(const struct etwctl_clr *c, size_t *names);

#endif /* _ETWCTL_CLR_H */
