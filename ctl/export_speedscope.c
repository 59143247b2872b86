// SPDX-License-Identifier: GPL-2.0
/*
 * export_speedscope.c: "etwctl export --format speedscope": a CPU profile
 * in speedscope's own file format (https://www.speedscope.app/
 * file-format-schema.json): one "sampled" profile per process and thread,
 * a sample per SampledProfile record (the NT Kernel Logger's CPU sample),
 * weighted by its Count, its frames from the outermost call to the
 * sampled instruction.  "--format folded" writes the same profiles as
 * folded stacks, the text flamegraph.pl, inferno and speedscope read: a
 * line per thread and distinct stack, "pid P;tid T;outermost;...;
 * innermost WEIGHT", the weights of its samples summed.
 *
 * A sample's stack is the one its stack records give (stacks.c: their
 * keys' definitions read in a first pass with the trace's images, the
 * records joined in the pass over the samples), else its own
 * STACK_TRACE64 item, else its InstructionPointer alone.  Frames are
 * named as dump names them (symbols.c).  The frames are kept once each
 * (an interned name table), and so are the stacks, as frame indices: a
 * sample costs its stack's index and its weight, 8 bytes, where the
 * PerfView file's 88,809 samples hold 2,898 distinct stacks.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "etwctl.h"
#include "stacks.h"
#include "symbols.h"
#include "table.h"

#define ETWCTL_SS_FRAME_LEN	512
#define ETWCTL_PERFINFO_SAMPLE	46

/* PerfInfoGuid: SampledProfile's event class. */
static const struct etw_guid etwctl_ss_perfinfo = {
	0xce1dbfb4, 0x137e, 0x4da6,
	{ 0x87, 0xb0, 0x3f, 0x59, 0xaa, 0x10, 0x2c, 0xbc }
};

/*
 * One thread's samples: @stacks holds each one's stack (its offset in
 * struct etwctl_ss's @stack_data), @weights its weight.
 */
struct etwctl_ss_profile {
	uint32_t pid;
	uint32_t tid;
	uint32_t *stacks;
	size_t stacks_cap;
	uint32_t *weights;
	size_t nsamples, weights_cap;
	uint64_t total;
};

/*
 * @names, @nnames: the frames' names, by index; @slots: an open-address
 * hash of indices + 1 (0: free) with @nslots slots, a power of two
 * @stack_data: the distinct stacks, each its frame count then its frame
 *	indices (outermost first), @nstack_data words in all
 * @stack_slots: an open-address hash of their offsets + 1 (0: free), with
 *	@nstack_slots slots, a power of two, for @nstacks stacks
 * @frames: the stack being sampled, its count and indices as in
 *	@stack_data, before it is looked up there
 */
struct etwctl_ss {
	char **names;
	size_t nnames, names_cap;
	uint32_t *slots;
	size_t nslots;
	uint32_t *stack_data;
	size_t nstack_data, stack_data_cap;
	uint32_t *stack_slots;
	size_t nstack_slots, nstacks;
	uint32_t *frames;
	size_t frames_cap;
	struct etwctl_ss_profile *profiles;
	size_t nprofiles, profiles_cap;
	struct etwctl_symbols *syms;
	struct etwctl_stacks *stacks;
};

static int etwctl_ss_rehash(struct etwctl_ss *x)
{
	size_t n = x->nslots ? 2 * x->nslots : 1024, i, j;
	uint32_t *slots = calloc(n, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (i = 0; i < x->nnames; i++) {
		j = etwctl_str_hash(x->names[i]) & (n - 1);
		while (slots[j])
			j = (j + 1) & (n - 1);
		slots[j] = (uint32_t)i + 1;
	}
	free(x->slots);
	x->slots = slots;
	x->nslots = n;
	return 0;
}

/* The index of frame @name, added when new. */
static int etwctl_ss_frame(struct etwctl_ss *x, const char *name,
			   uint32_t *index)
{
	size_t j;

	if (2 * (x->nnames + 1) > x->nslots && etwctl_ss_rehash(x))
		return -ENOMEM;
	for (j = etwctl_str_hash(name) & (x->nslots - 1); x->slots[j];
	     j = (j + 1) & (x->nslots - 1)) {
		if (!strcmp(x->names[x->slots[j] - 1], name)) {
			*index = x->slots[j] - 1;
			return 0;
		}
	}
	if (etwctl_grow((void **)&x->names, &x->names_cap, x->nnames, 1,
			sizeof(*x->names)))
		return -ENOMEM;
	x->names[x->nnames] = strdup(name);
	if (!x->names[x->nnames])
		return -ENOMEM;
	*index = (uint32_t)x->nnames++;
	x->slots[j] = *index + 1;
	return 0;
}

/* A stack as @stack_data holds it: its count, then its frame indices. */
static uint64_t etwctl_ss_stack_hash(const uint32_t *v)
{
	uint64_t h = ETWCTL_FNV1A_BASIS;
	uint32_t i;

	for (i = 0; i <= v[0]; i++)
		h = etwctl_fnv1a_word(h, v[i]);
	return h;
}

static int etwctl_ss_stack_rehash(struct etwctl_ss *x)
{
	size_t n = x->nstack_slots ? 2 * x->nstack_slots : 1024, at, j;
	uint32_t *slots = calloc(n, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (at = 0; at < x->nstack_data; at += x->stack_data[at] + 1) {
		j = etwctl_ss_stack_hash(x->stack_data + at) & (n - 1);
		while (slots[j])
			j = (j + 1) & (n - 1);
		slots[j] = (uint32_t)at + 1;
	}
	free(x->stack_slots);
	x->stack_slots = slots;
	x->nstack_slots = n;
	return 0;
}

/* The offset in @stack_data of the stack in @frames, added when new. */
static int etwctl_ss_stack_index(struct etwctl_ss *x, uint32_t *index)
{
	const uint32_t *v = x->frames, *w;
	size_t words = v[0] + 1, j;

	if (2 * (x->nstacks + 1) > x->nstack_slots &&
	    etwctl_ss_stack_rehash(x))
		return -ENOMEM;
	for (j = etwctl_ss_stack_hash(v) & (x->nstack_slots - 1);
	     x->stack_slots[j]; j = (j + 1) & (x->nstack_slots - 1)) {
		w = x->stack_data + x->stack_slots[j] - 1;
		if (!memcmp(w, v, words * sizeof(*v))) {
			*index = x->stack_slots[j] - 1;
			return 0;
		}
	}
	if (x->nstack_data + words > UINT32_MAX ||
	    etwctl_grow((void **)&x->stack_data, &x->stack_data_cap,
			x->nstack_data, words, sizeof(*x->stack_data)))
		return -ENOMEM;
	memcpy(x->stack_data + x->nstack_data, v, words * sizeof(*v));
	*index = (uint32_t)x->nstack_data;
	x->nstack_data += words;
	x->nstacks++;
	x->stack_slots[j] = *index + 1;
	return 0;
}

static struct etwctl_ss_profile *etwctl_ss_profile(struct etwctl_ss *x,
						   uint32_t pid, uint32_t tid)
{
	struct etwctl_ss_profile *p;
	size_t i;

	for (i = x->nprofiles; i--;)
		if (x->profiles[i].pid == pid && x->profiles[i].tid == tid)
			return &x->profiles[i];
	if (etwctl_grow((void **)&x->profiles, &x->profiles_cap,
			x->nprofiles, 1, sizeof(*p)))
		return NULL;
	p = &x->profiles[x->nprofiles++];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	p->tid = tid;
	return p;
}

static uint64_t etwctl_ss_addr(const uint8_t *p, unsigned int ptr)
{
	uint64_t v = 0;
	uint32_t v32;

	if (ptr == 4) {
		memcpy(&v32, p, sizeof(v32));
		return v32;
	}
	memcpy(&v, p, sizeof(v));
	return v;
}

/* @ev's stack as a STACK_TRACE64 item's frames: joined, or its own. */
static bool etwctl_ss_stack(struct etwctl_ss *x,
			    const struct etw_etl_event *ev,
			    const uint8_t **frames, uint32_t *n, uint32_t *pid)
{
	struct etwctl_stack st;
	uint32_t i;

	if (etwctl_stacks_find(x->stacks, ev, &st)) {
		*frames = st.item + 8;
		*n = (st.size - 8) / 8;
		*pid = st.pid;
		return true;
	}
	for (i = 0; i < ev->ext_count; i++) {
		if (ev->ext[i].type != EVENT_HEADER_EXT_TYPE_STACK_TRACE64 ||
		    ev->ext[i].size < 8 || ev->ext[i].size % 8)
			continue;
		*frames = (const uint8_t *)ev->ext[i].data + 8;
		*n = (ev->ext[i].size - 8) / 8;
		*pid = ev->process_id;
		return true;
	}
	return false;
}

/* One SampledProfile record into its thread's profile. */
static int etwctl_ss_sample(struct etwctl_ss *x,
			    const struct etw_etl_event *ev)
{
	unsigned int ptr = ev->header_type == ETW_ETL_HT_PERFINFO32 ? 4 : 8;
	const uint8_t *p = ev->user_data, *frames;
	char name[ETWCTL_SS_FRAME_LEN];
	struct etwctl_ss_profile *prof;
	uint32_t tid, pid, n, i, k, stack;
	uint16_t count;
	uint64_t ip;

	if (ev->user_data_len < ptr + 6)
		return 0;
	ip = etwctl_ss_addr(p, ptr);
	memcpy(&tid, p + ptr, sizeof(tid));
	memcpy(&count, p + ptr + 4, sizeof(count));
	if (!etwctl_ss_stack(x, ev, &frames, &n, &pid) || !n) {
		frames = (const uint8_t *)&ip;
		n = 1;
		pid = ev->process_id;
	}
	if (etwctl_grow((void **)&x->frames, &x->frames_cap, 0, n + 1,
			sizeof(*x->frames)))
		return -ENOMEM;
	x->frames[0] = n;
	/*
	 * Innermost first in the stack, outermost first in speedscope.  The
	 * innermost is the sampled instruction, not a return address.
	 */
	for (i = 0; i < n; i++) {
		uint64_t addr = etwctl_ss_addr(frames + 8 * i, 8);

		if (!i && addr == ip)
			etwctl_symbols_ip(x->syms, pid, ev->timestamp, addr,
					  name, sizeof(name));
		else
			etwctl_symbols_frame(x->syms, pid, ev->timestamp, addr,
					     name, sizeof(name));
		if (etwctl_ss_frame(x, name, &k))
			return -ENOMEM;
		x->frames[n - i] = k;
	}
	prof = etwctl_ss_profile(x, pid, tid);
	if (!prof || etwctl_ss_stack_index(x, &stack) ||
	    etwctl_grow((void **)&prof->stacks, &prof->stacks_cap,
			prof->nsamples, 1, sizeof(*prof->stacks)) ||
	    etwctl_grow((void **)&prof->weights, &prof->weights_cap,
			prof->nsamples, 1, sizeof(*prof->weights)))
		return -ENOMEM;
	prof->stacks[prof->nsamples] = stack;
	prof->weights[prof->nsamples++] = count ?: 1;
	prof->total += count ?: 1;
	return 0;
}

static bool etwctl_ss_is_sample(const struct etw_etl_event *ev)
{
	return ev->kind == ETW_ETL_KIND_PERFINFO &&
	       ev->descriptor.opcode == ETWCTL_PERFINFO_SAMPLE &&
	       !memcmp(&ev->provider_id, &etwctl_ss_perfinfo,
		       sizeof(etwctl_ss_perfinfo));
}

static int etwctl_ss_profile_cmp(const void *a, const void *b)
{
	const struct etwctl_ss_profile *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static void etwctl_ss_write_profile(FILE *f, const struct etwctl_ss *x,
				    const struct etwctl_ss_profile *p)
{
	const uint32_t *stack;
	uint32_t j;
	size_t i;

	fprintf(f, "{\"type\":\"sampled\",\"name\":\"pid %u, tid %u\","
		"\"unit\":\"none\",\"startValue\":0,\"endValue\":%llu,"
		"\"samples\":[", p->pid, p->tid,
		(unsigned long long)p->total);
	for (i = 0; i < p->nsamples; i++) {
		fputs(i ? ",[" : "[", f);
		stack = x->stack_data + p->stacks[i];
		for (j = 0; j < stack[0]; j++)
			fprintf(f, j ? ",%u" : "%u", stack[1 + j]);
		putc(']', f);
	}
	fputs("],\"weights\":[", f);
	for (i = 0; i < p->nsamples; i++)
		fprintf(f, i ? ",%u" : "%u", p->weights[i]);
	fputs("]}", f);
}

/*
 * The file: frames, then the profiles by process and thread, the one
 * shown first the busiest of a process other than 0 (idle CPUs' samples).
 */
static void etwctl_ss_write(FILE *f, struct etwctl_ss *x, const char *name)
{
	size_t i, busiest = 0;

	qsort(x->profiles, x->nprofiles, sizeof(*x->profiles),
	      etwctl_ss_profile_cmp);
	for (i = 1; i < x->nprofiles; i++)
		if ((!x->profiles[busiest].pid && x->profiles[i].pid) ||
		    (x->profiles[i].total > x->profiles[busiest].total &&
		     (x->profiles[i].pid || !x->profiles[busiest].pid)))
			busiest = i;
	fputs("{\"$schema\":\"https://www.speedscope.app/"
	      "file-format-schema.json\",\"exporter\":\"etwctl\",\"name\":", f);
	etwctl_json_string(f, name);
	fprintf(f, ",\"activeProfileIndex\":%zu,\"shared\":{\"frames\":[",
		busiest);
	for (i = 0; i < x->nnames; i++) {
		fputs(i ? ",{\"name\":" : "{\"name\":", f);
		etwctl_json_string(f, x->names[i]);
		putc('}', f);
	}
	fputs("]},\"profiles\":[", f);
	for (i = 0; i < x->nprofiles; i++) {
		if (i)
			putc(',', f);
		etwctl_ss_write_profile(f, x, &x->profiles[i]);
	}
	fputs("]}\n", f);
}

/* A frame as a folded stack's element: ';' separates them, '\n' lines. */
static void etwctl_ss_folded_frame(FILE *f, const char *name)
{
	for (; *name; name++)
		putc(*name == ';' || *name == '\n' ? '_' : *name, f);
}

static int etwctl_u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * @p's stacks, each once with the sum of its samples' weights; @p's
 * samples are sorted by stack for it.
 */
static int etwctl_ss_write_folded_profile(FILE *f, const struct etwctl_ss *x,
					  struct etwctl_ss_profile *p)
{
	uint64_t *keys = malloc(p->nsamples * sizeof(*keys) + 1);
	unsigned long long weight;
	const uint32_t *stack;
	size_t i, k;
	uint32_t j;

	if (!keys)
		return -ENOMEM;
	/* Stack offset high, weight low: one sort groups each stack's. */
	for (i = 0; i < p->nsamples; i++)
		keys[i] = (uint64_t)p->stacks[i] << 32 | p->weights[i];
	qsort(keys, p->nsamples, sizeof(*keys), etwctl_u64_cmp);
	for (i = 0; i < p->nsamples; i = k) {
		weight = 0;
		for (k = i; k < p->nsamples && keys[k] >> 32 == keys[i] >> 32;
		     k++)
			weight += (uint32_t)keys[k];
		fprintf(f, "pid %u;tid %u", p->pid, p->tid);
		stack = x->stack_data + (keys[i] >> 32);
		for (j = 0; j < stack[0]; j++) {
			putc(';', f);
			etwctl_ss_folded_frame(f, x->names[stack[1 + j]]);
		}
		fprintf(f, " %llu\n", weight);
	}
	free(keys);
	return 0;
}

/* The profiles by process and thread, as folded stacks. */
static int etwctl_ss_write_folded(FILE *f, struct etwctl_ss *x)
{
	size_t i;

	qsort(x->profiles, x->nprofiles, sizeof(*x->profiles),
	      etwctl_ss_profile_cmp);
	for (i = 0; i < x->nprofiles; i++)
		if (etwctl_ss_write_folded_profile(f, x, &x->profiles[i]))
			return -ENOMEM;
	return 0;
}

static void etwctl_ss_free(struct etwctl_ss *x)
{
	size_t i;

	for (i = 0; i < x->nnames; i++)
		free(x->names[i]);
	free(x->names);
	free(x->slots);
	free(x->stack_data);
	free(x->stack_slots);
	free(x->frames);
	for (i = 0; i < x->nprofiles; i++) {
		free(x->profiles[i].stacks);
		free(x->profiles[i].weights);
	}
	free(x->profiles);
	etwctl_stacks_free(x->stacks);
	etwctl_symbols_free(x->syms);
}

/* Every sample of @src into @x; the corrupt records passed over. */
static int etwctl_ss_read(struct etwctl_ss *x, struct etwctl_source *src,
			  unsigned int *bad)
{
	struct etw_etl_event ev;
	int ret;

	while ((ret = etwctl_source_next(src, &ev)) != 0) {
		if (ret == -EBADMSG || ret == -EOPNOTSUPP) {
			(*bad)++;
			continue;
		}
		if (ret < 0)
			return ret;
		etwctl_source_progress(src, "export", &ev);
		if (etwctl_ss_is_sample(&ev)) {
			ret = etwctl_ss_sample(x, &ev);
			if (ret)
				return ret;
		}
	}
	return 0;
}

/**
 * etwctl_export_speedscope - writes the samples of files as speedscope's
 * file format, or as folded stacks
 * @out: where it goes
 * @files: the ETL files
 * @nfiles: how many
 * @folded: folded stacks, not speedscope's JSON
 *
 * Context: any thread.
 * Return: the exit status, after a one-line message when it fails.
 */
int etwctl_export_speedscope(FILE *out, char **files, unsigned int nfiles,
			     bool folded)
{
	struct etwctl_ss x = { 0 };
	struct etwctl_source *src;
	unsigned int bad = 0;
	const char *badfile, *name;
	int ret;

	ret = etwctl_source_open_files(files, nfiles, &src, &badfile);
	if (ret)
		return etwctl_fail("export", "%s: %s",
				   badfile ? badfile : files[0],
				   etwctl_errno_str(ret));
	x.syms = etwctl_symbols_new();
	x.stacks = etwctl_stacks_new();
	ret = x.syms && x.stacks ? 0 : -ENOMEM;
	if (!ret)
		ret = etwctl_source_prepass(files, nfiles, x.syms, x.stacks) ?:
		      etwctl_source_join(src, files, nfiles, x.stacks);
	if (!ret)
		ret = etwctl_ss_read(&x, src, &bad);
	etwctl_progress_end();
	etwctl_source_close(src);
	if (!ret && folded) {
		ret = etwctl_ss_write_folded(out, &x);
	} else if (!ret) {
		name = strrchr(files[0], '/');
		etwctl_ss_write(out, &x, name ? name + 1 : files[0]);
	}
	if (!ret) {
		if (fflush(out) || ferror(out))
			ret = etwctl_fail("export", "writing output: %s",
					  strerror(errno));
		else if (bad)
			ret = etwctl_fail("export",
					  "%u corrupt or unreadable buffers or records skipped",
					  bad);
	} else {
		ret = etwctl_fail("export", "%s", etwctl_errno_str(ret));
	}
	etwctl_ss_free(&x);
	return ret;
}
