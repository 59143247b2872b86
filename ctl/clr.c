// SPDX-License-Identifier: GPL-2.0
/*
 * clr.c: the .NET runtime's JIT-compiled methods as stack frame names.
 *
 * JIT code is in no image: the CLR's own events say where each method
 * lies.  MethodLoadVerbose (runtime provider, event 143) when a method is
 * compiled, MethodUnloadVerbose (144) when it goes, and the rundown
 * provider's MethodDCStartVerbose (143) and MethodDCEndVerbose (144) for
 * those that existed when the trace started or stopped: MethodID,
 * ModuleID, MethodStartAddress, MethodSize, MethodToken, MethodFlags,
 * then MethodNamespace, MethodName and MethodSignature (UTF-16).  A
 * method's module is named by ModuleLoad (152) or the rundown's
 * ModuleDCStart/DCEnd (153, 154): ModuleID, AssemblyID, ModuleFlags, a
 * reserved field, then ModuleILPath (a dynamic module has none).
 * Rundown lists methods before their modules, so the methods are kept
 * until the pass ends (etwctl_clr_finish()), then each
 * goes into the image map as an image named module!Namespace.Name: its
 * frames print as PerfView names them, with the offset in the method.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "clr.h"
#include "symbols.h"
#include "table.h"

#define ETWCTL_CLR_METHOD_LOAD		143
#define ETWCTL_CLR_METHOD_UNLOAD	144
#define ETWCTL_CLR_MODULE_LOAD		152
#define ETWCTL_CLR_MODULE_DC_START	153
#define ETWCTL_CLR_MODULE_DC_END	154
/* MethodID .. MethodFlags: the fixed part of a verbose method event. */
#define ETWCTL_CLR_METHOD_HEAD		36
/* ModuleID .. Reserved1: the fixed part of a module event. */
#define ETWCTL_CLR_MODULE_HEAD		24

/* Microsoft-Windows-DotNETRuntime and its rundown provider. */
static const struct etw_guid etwctl_clr_runtime = {
	0xe13c0d23, 0xccbc, 0x4e12,
	{ 0x93, 0x1b, 0xd9, 0xcc, 0x2e, 0xee, 0x27, 0xe4 }
};

static const struct etw_guid etwctl_clr_rundown = {
	0xa669021c, 0xc450, 0x4609,
	{ 0xa0, 0x35, 0x5a, 0xf5, 0x9a, 0xf4, 0xdf, 0x18 }
};

/*
 * One method event kept for etwctl_clr_finish(): @name is an offset in
 * the set's @names, @prev_op the op of the method kept before it at the
 * same process and start (ETWCTL_CLR_NO_OP for none).
 */
struct etwctl_clr_method {
	uint64_t module;
	uint64_t start;
	int64_t time;
	uint32_t pid;
	uint32_t size;
	uint32_t name;
	uint8_t op;
	uint8_t prev_op;
};

#define ETWCTL_CLR_NO_OP	0xff
#define ETWCTL_CLR_FREE		UINT32_MAX

struct etwctl_clr_module {
	uint32_t pid;
	uint64_t id;
	char *name;
};

/*
 * @methods: the method events etwctl_clr_finish() replays, less those the
 *	replay would pass over (etwctl_clr_redundant())
 * @last: the index in @methods of the last kept at each process and
 *	start, an open-address hash of @last_slots slots (a power of two;
 *	ETWCTL_CLR_FREE: free) for @nlast starts
 * @names: each distinct "Namespace.Name" once, NUL-terminated, @names_len
 *	of @names_cap bytes; @name_slots (@nname_slots, a power of two)
 *	hashes their offsets for @nnames names: merged copies of a trace
 *	repeat every method
 * @text: where a name is made before it is kept, @text_cap bytes: a
 *	trace lists thousands of methods, a malloc() for each piece of each
 *	name cost more than making it
 */
struct etwctl_clr {
	struct etwctl_clr_method *methods;
	size_t nmethods, methods_cap;
	uint32_t *last;
	size_t last_slots, nlast;
	char *names;
	size_t names_len, names_cap;
	uint32_t *name_slots;
	size_t nname_slots, nnames;
	struct etwctl_clr_module *modules;
	size_t nmodules, modules_cap;
	char *text;
	size_t text_cap;
};

/**
 * etwctl_clr_new - an empty set of methods and modules
 *
 * Context: any thread; the set is the caller's alone.
 * Return: the set, or NULL without memory.
 */
struct etwctl_clr *etwctl_clr_new(void)
{
	return calloc(1, sizeof(struct etwctl_clr));
}

/**
 * etwctl_clr_free - frees a set
 * @c: the set, or NULL
 *
 * Context: any thread.
 */
void etwctl_clr_free(struct etwctl_clr *c)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; i < c->nmodules; i++)
		free(c->modules[i].name);
	free(c->methods);
	free(c->last);
	free(c->names);
	free(c->name_slots);
	free(c->modules);
	free(c->text);
	free(c);
}

/*
 * The UTF-16 string at *@off of @ev: its units in *@n; *@off moves past
 * it.  Return: the units, or NULL when the data has no NUL after them.
 */
static const uint8_t *etwctl_clr_units(const struct etw_etl_event *ev,
				       uint32_t *off, size_t *n)
{
	const uint8_t *p = (const uint8_t *)ev->user_data + *off;
	size_t max;

	if (*off >= ev->user_data_len)
		return NULL;
	max = (ev->user_data_len - *off) / 2;
	*n = etw_etl_utf16_units(p, max);
	if (*n == max)
		return NULL;
	*off += (uint32_t)(2 * (*n + 1));
	return p;
}

/* Room for @n bytes of a name in @c->text; NULL without memory. */
static char *etwctl_clr_text(struct etwctl_clr *c, size_t n)
{
	return etwctl_grow((void **)&c->text, &c->text_cap, 0, n, 1) ? NULL :
	       c->text;
}

/* The UTF-16 string at *@off of @ev as UTF-8, in @c->text. */
static char *etwctl_clr_string(struct etwctl_clr *c,
			       const struct etw_etl_event *ev, uint32_t *off)
{
	const uint8_t *p;
	char *s;
	size_t n;

	p = etwctl_clr_units(ev, off, &n);
	s = p ? etwctl_clr_text(c, 3 * n + 1) : NULL;
	if (s)
		etw_etl_utf16_utf8(p, n, s);
	return s;
}

/*
 * "Namespace.Name" of the strings at *@off of @ev (just "Name" when the
 * namespace is empty) in @c->text, with no path separator the image map
 * would cut at; NULL when the data has no such strings or no memory.
 */
static char *etwctl_clr_method_name(struct etwctl_clr *c,
				    const struct etw_etl_event *ev,
				    uint32_t *off)
{
	const uint8_t *ns, *name;
	size_t nns, nname, len;
	char *s, *q;

	ns = etwctl_clr_units(ev, off, &nns);
	name = ns ? etwctl_clr_units(ev, off, &nname) : NULL;
	s = name ? etwctl_clr_text(c, 3 * (nns + nname) + 2) : NULL;
	if (!s)
		return NULL;
	len = etw_etl_utf16_utf8(ns, nns, s);
	if (len)
		s[len++] = '.';
	len += etw_etl_utf16_utf8(name, nname, s + len);
	s[len] = '\0';
	for (q = s; *q; q++)
		if (*q == '/' || *q == '\\')
			*q = '.';
	return s;
}

static int etwctl_clr_names_rehash(struct etwctl_clr *c)
{
	size_t n = c->nname_slots ? 2 * c->nname_slots : 1024, i, j;
	uint32_t *slots = malloc(n * sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	memset(slots, 0xff, n * sizeof(*slots));
	for (i = 0; i < c->nname_slots; i++) {
		if (c->name_slots[i] == ETWCTL_CLR_FREE)
			continue;
		j = etwctl_str_hash(c->names + c->name_slots[i]) & (n - 1);
		while (slots[j] != ETWCTL_CLR_FREE)
			j = (j + 1) & (n - 1);
		slots[j] = c->name_slots[i];
	}
	free(c->name_slots);
	c->name_slots = slots;
	c->nname_slots = n;
	return 0;
}

/*
 * The offset in @c->names of @name, added if new.  Return: 0, or -ENOMEM
 * without memory or beyond 4 GiB of names.
 */
static int etwctl_clr_intern(struct etwctl_clr *c, const char *name,
			     uint32_t *out)
{
	size_t len = strlen(name) + 1, j;

	if (2 * (c->nnames + 1) > c->nname_slots && etwctl_clr_names_rehash(c))
		return -ENOMEM;
	for (j = etwctl_str_hash(name) & (c->nname_slots - 1);
	     c->name_slots[j] != ETWCTL_CLR_FREE;
	     j = (j + 1) & (c->nname_slots - 1))
		if (!strcmp(c->names + c->name_slots[j], name)) {
			*out = c->name_slots[j];
			return 0;
		}
	if (c->names_len + len > UINT32_MAX ||
	    etwctl_grow((void **)&c->names, &c->names_cap, c->names_len, len, 1))
		return -ENOMEM;
	memcpy(c->names + c->names_len, name, len);
	*out = (uint32_t)c->names_len;
	c->name_slots[j] = *out;
	c->names_len += len;
	c->nnames++;
	return 0;
}

static size_t etwctl_clr_home(const struct etwctl_clr *c, uint32_t pid,
			      uint64_t start)
{
	uint64_t h = etwctl_fnv1a_word(etwctl_fnv1a_word(ETWCTL_FNV1A_BASIS,
							 pid), start);

	return (h ^ h >> 32) & (c->last_slots - 1);
}

/* The slot of the last method kept at @pid and @start, or of where it goes. */
static uint32_t *etwctl_clr_last(struct etwctl_clr *c, uint32_t pid,
				 uint64_t start)
{
	const struct etwctl_clr_method *m;
	size_t j = etwctl_clr_home(c, pid, start);

	for (; c->last[j] != ETWCTL_CLR_FREE; j = (j + 1) & (c->last_slots - 1)) {
		m = &c->methods[c->last[j]];
		if (m->pid == pid && m->start == start)
			break;
	}
	return &c->last[j];
}

static int etwctl_clr_last_rehash(struct etwctl_clr *c)
{
	uint32_t *old = c->last;
	size_t n = c->last_slots, i;
	const struct etwctl_clr_method *m;

	c->last = malloc((n ? 2 * n : 1024) * sizeof(*c->last));
	if (!c->last) {
		c->last = old;
		return -ENOMEM;
	}
	c->last_slots = n ? 2 * n : 1024;
	memset(c->last, 0xff, c->last_slots * sizeof(*c->last));
	for (i = 0; i < n; i++) {
		if (old[i] == ETWCTL_CLR_FREE)
			continue;
		m = &c->methods[old[i]];
		*etwctl_clr_last(c, m->pid, m->start) = old[i];
	}
	free(old);
	return 0;
}

static bool etwctl_clr_same(const struct etwctl_clr_method *a,
			    const struct etwctl_clr_method *b)
{
	return a->op == b->op && a->time == b->time && a->size == b->size &&
	       a->module == b->module && a->name == b->name;
}

/*
 * Whether replaying @m into the image map after @last (the last method
 * kept at its process and start, or NULL), @c's last kept method, would
 * change no look-up, as in merged copies of a trace:
 * - a rundown record of a start mapped by a method there (a load or
 *   rundown record last) finds it mapped and is passed over;
 * - a load like the method kept just before it, at its time, ends that
 *   one where it starts (a range no look-up holds) and takes its place;
 * - an unload like the one before it, itself after an unload, adds a
 *   mapping like the one that one added (nothing was mapped to unmap),
 *   which look-ups, taking the first of two mapped at the same time,
 *   never choose.
 */
static bool etwctl_clr_redundant(const struct etwctl_clr *c,
				 const struct etwctl_clr_method *last,
				 const struct etwctl_clr_method *m)
{
	if (!last)
		return false;
	switch (m->op) {
	case ETWCTL_IMAGE_DCSTART:
	case ETWCTL_IMAGE_DCEND:
		return last->op != ETWCTL_IMAGE_UNLOAD;
	case ETWCTL_IMAGE_LOAD:
		return last == &c->methods[c->nmethods - 1] &&
		       etwctl_clr_same(last, m);
	case ETWCTL_IMAGE_UNLOAD:
		return last->prev_op == ETWCTL_IMAGE_UNLOAD &&
		       etwctl_clr_same(last, m);
	}
	return false;
}

/* Keeps @m unless it is redundant. */
static int etwctl_clr_keep(struct etwctl_clr *c, struct etwctl_clr_method *m)
{
	const struct etwctl_clr_method *last = NULL;
	uint32_t *slot;
	uint8_t prev_op;

	if (2 * (c->nlast + 1) > c->last_slots && etwctl_clr_last_rehash(c))
		return -ENOMEM;
	slot = etwctl_clr_last(c, m->pid, m->start);
	if (*slot != ETWCTL_CLR_FREE)
		last = &c->methods[*slot];
	if (etwctl_clr_redundant(c, last, m))
		return 0;
	prev_op = last ? last->op : ETWCTL_CLR_NO_OP;
	if (c->nmethods >= ETWCTL_CLR_FREE ||
	    etwctl_grow((void **)&c->methods, &c->methods_cap, c->nmethods, 1,
			sizeof(*m)))
		return -ENOMEM;
	m->prev_op = prev_op;
	c->nlast += prev_op == ETWCTL_CLR_NO_OP;
	*slot = (uint32_t)c->nmethods;
	c->methods[c->nmethods++] = *m;
	return 0;
}

static int etwctl_clr_method(struct etwctl_clr *c,
			     const struct etw_etl_event *ev, bool rundown)
{
	const uint8_t *p = ev->user_data;
	struct etwctl_clr_method m = { .pid = ev->process_id,
				       .time = ev->timestamp };
	uint32_t off = ETWCTL_CLR_METHOD_HEAD;
	const char *name;

	if (ev->user_data_len < ETWCTL_CLR_METHOD_HEAD)
		return 0;
	memcpy(&m.module, p + 8, sizeof(m.module));
	memcpy(&m.start, p + 16, sizeof(m.start));
	memcpy(&m.size, p + 24, sizeof(m.size));
	if (ev->descriptor.id == ETWCTL_CLR_METHOD_LOAD)
		m.op = rundown ? ETWCTL_IMAGE_DCSTART : ETWCTL_IMAGE_LOAD;
	else
		m.op = rundown ? ETWCTL_IMAGE_DCEND : ETWCTL_IMAGE_UNLOAD;
	name = etwctl_clr_method_name(c, ev, &off);
	if (!name)
		return 0;
	return etwctl_clr_intern(c, name, &m.name) ?: etwctl_clr_keep(c, &m);
}

/* The module's file name, less its directory and extension. */
static int etwctl_clr_module(struct etwctl_clr *c,
			     const struct etw_etl_event *ev)
{
	struct etwctl_clr_module m = { .pid = ev->process_id };
	uint32_t off = ETWCTL_CLR_MODULE_HEAD;
	char *path, *base, *dot;

	if (ev->user_data_len < ETWCTL_CLR_MODULE_HEAD)
		return 0;
	memcpy(&m.id, ev->user_data, sizeof(m.id));
	path = etwctl_clr_string(c, ev, &off);
	if (!path)
		return 0;
	base = strrchr(path, '\\') ?: strrchr(path, '/');
	base = base ? base + 1 : path;
	dot = strrchr(base, '.');
	if (dot && dot != base)
		*dot = '\0';
	m.name = strdup(base);
	if (!m.name ||
	    etwctl_grow((void **)&c->modules, &c->modules_cap, c->nmodules, 1,
			sizeof(m))) {
		free(m.name);
		return -ENOMEM;
	}
	c->modules[c->nmodules++] = m;
	return 0;
}

/**
 * etwctl_clr_wants - whether etwctl_clr_event() takes an event
 * @ev: any event
 *
 * Context: any thread.
 * Return: true for the method events of the runtime and rundown
 * providers and the module events of each.
 */
bool etwctl_clr_wants(const struct etw_etl_event *ev)
{
	bool runtime;

	if (ev->kind != ETW_ETL_KIND_EVENT)
		return false;
	runtime = !memcmp(&ev->provider_id, &etwctl_clr_runtime,
			  sizeof(etwctl_clr_runtime));
	if (!runtime && memcmp(&ev->provider_id, &etwctl_clr_rundown,
			       sizeof(etwctl_clr_rundown)))
		return false;
	switch (ev->descriptor.id) {
	case ETWCTL_CLR_METHOD_LOAD:
	case ETWCTL_CLR_METHOD_UNLOAD:
		return true;
	case ETWCTL_CLR_MODULE_LOAD:
		return runtime;
	case ETWCTL_CLR_MODULE_DC_START:
	case ETWCTL_CLR_MODULE_DC_END:
		return !runtime;
	}
	return false;
}

/**
 * etwctl_clr_event - takes a CLR method or module event
 * @c: the set
 * @ev: any event; others are passed over
 *
 * Context: any thread.
 * Return: 0, or -ENOMEM.
 */
int etwctl_clr_event(struct etwctl_clr *c, const struct etw_etl_event *ev)
{
	bool rundown;

	if (!etwctl_clr_wants(ev))
		return 0;
	rundown = !memcmp(&ev->provider_id, &etwctl_clr_rundown,
			  sizeof(etwctl_clr_rundown));
	if (ev->descriptor.id == ETWCTL_CLR_METHOD_LOAD ||
	    ev->descriptor.id == ETWCTL_CLR_METHOD_UNLOAD)
		return etwctl_clr_method(c, ev, rundown);
	return etwctl_clr_module(c, ev);
}

static const char *etwctl_clr_module_name(const struct etwctl_clr *c,
					  uint32_t pid, uint64_t id)
{
	size_t i;

	for (i = c->nmodules; i--;)
		if (c->modules[i].id == id && c->modules[i].pid == pid)
			return c->modules[i].name;
	return NULL;
}

/**
 * etwctl_clr_finish - every method taken into the image map
 * @c: the set
 * @syms: the map
 *
 * Context: any thread.
 * Return: 0, or -ENOMEM.
 */
int etwctl_clr_finish(struct etwctl_clr *c, struct etwctl_symbols *syms)
{
	const struct etwctl_clr_method *m;
	struct etwctl_image img;
	size_t i, nmod, nname;
	const char *mod;
	char *name;

	for (i = 0; i < c->nmethods; i++) {
		m = &c->methods[i];
		mod = etwctl_clr_module_name(c, m->pid, m->module) ?: "";
		nmod = strlen(mod);
		nname = strlen(c->names + m->name);
		/* "module!Namespace.Name", or without a module just the name. */
		name = etwctl_clr_text(c, nmod + 1 + nname + 1);
		if (!name)
			return -ENOMEM;
		memcpy(name, mod, nmod);
		if (nmod)
			name[nmod++] = '!';
		memcpy(name + nmod, c->names + m->name, nname + 1);
		img.pid = m->pid;
		img.base = m->start;
		img.size = m->size;
		img.path = name;
		img.file_base = m->start;
		if (etwctl_symbols_image(syms, (enum etwctl_image_op)m->op, &img,
					 m->time))
			return -ENOMEM;
	}
	return 0;
}

/**
 * etwctl_clr_kept - how much of the methods taken is kept
 * @c: the set
 * @names: out: how many distinct method names it holds
 *
 * Context: any thread.
 * Return: the method events etwctl_clr_finish() will replay.
 */
size_t etwctl_clr_kept(const struct etwctl_clr *c, size_t *names)
{
	*names = c->nnames;
	return c->nmethods;
}
