// SPDX-License-Identifier: GPL-2.0
/*
 * ctl/clr.c: the CLR's method events as the image map's images.  Merged
 * copies of a trace repeat each event; the set keeps a repeat only where
 * the map would change, and the frames must be named as by a map fed
 * every event.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "clr.h"
#include "kselftest_harness.h"
#include "symbols.h"

#define RUNTIME	{ 0xe13c0d23, 0xccbc, 0x4e12, \
		  { 0x93, 0x1b, 0xd9, 0xcc, 0x2e, 0xee, 0x27, 0xe4 } }
#define RUNDOWN	{ 0xa669021c, 0xc450, 0x4609, \
		  { 0xa0, 0x35, 0x5a, 0xf5, 0x9a, 0xf4, 0xdf, 0x18 } }

/* One method event: what the set and the map are fed. */
struct method {
	uint16_t id;		/* 143 load, 144 unload */
	bool rundown;		/* of the rundown provider: DCStart, DCEnd */
	uint32_t pid;
	int64_t time;
	uint64_t start;
	uint32_t size;
	const char *name;	/* MethodName; MethodNamespace is "Ns" */
};

/* @s as UTF-16LE at @p; the bytes written. */
static size_t put_utf16(uint8_t *p, const char *s)
{
	size_t i, n = strlen(s) + 1;

	for (i = 0; i < n; i++) {
		p[2 * i] = (uint8_t)s[i];
		p[2 * i + 1] = 0;
	}
	return 2 * n;
}

/* Module 7's MethodLoadVerbose-shaped event of @m into @ev and @buf. */
static void method_event(const struct method *m, uint8_t *buf,
			 struct etw_etl_event *ev)
{
	static const struct etw_guid runtime = RUNTIME, rundown = RUNDOWN;
	uint64_t module = 7;
	size_t len = 36;

	memset(buf, 0, len);
	memcpy(buf + 8, &module, sizeof(module));
	memcpy(buf + 16, &m->start, sizeof(m->start));
	memcpy(buf + 24, &m->size, sizeof(m->size));
	len += put_utf16(buf + len, "Ns");
	len += put_utf16(buf + len, m->name);
	len += put_utf16(buf + len, "void ()");
	memset(ev, 0, sizeof(*ev));
	ev->kind = ETW_ETL_KIND_EVENT;
	ev->provider_id = m->rundown ? rundown : runtime;
	ev->descriptor.id = m->id;
	ev->process_id = m->pid;
	ev->timestamp = m->time;
	ev->user_data = buf;
	ev->user_data_len = (uint32_t)len;
}

/* @n events of @v, each @copies times in a row, into @c. */
static int feed(struct etwctl_clr *c, const struct method *v, size_t n,
		unsigned int copies)
{
	struct etw_etl_event ev;
	uint8_t buf[256];
	unsigned int k;
	size_t i;

	for (i = 0; i < n; i++) {
		method_event(&v[i], buf, &ev);
		for (k = 0; k < copies; k++)
			if (etwctl_clr_event(c, &ev))
				return -1;
	}
	return 0;
}

/*
 * The map every event of @v, @copies times each, makes without the set:
 * each straight into etwctl_symbols_image(), in their order.
 */
static int replay_all(struct etwctl_symbols *s, const struct method *v,
		      size_t n, unsigned int copies)
{
	static const enum etwctl_image_op ops[2][2] = {
		{ ETWCTL_IMAGE_LOAD, ETWCTL_IMAGE_UNLOAD },
		{ ETWCTL_IMAGE_DCSTART, ETWCTL_IMAGE_DCEND },
	};
	struct etwctl_image img;
	char name[64];
	unsigned int k;
	size_t i;

	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "Ns.%s", v[i].name);
		img = (struct etwctl_image){ v[i].pid, v[i].start, v[i].size,
					     name, v[i].start };
		for (k = 0; k < copies; k++)
			if (etwctl_symbols_image(s, ops[v[i].rundown]
							[v[i].id == 144],
						 &img, v[i].time))
				return -1;
	}
	return 0;
}

struct frame {
	uint32_t pid;
	int64_t time;
	uint64_t addr;
	const char *text;
};

/*
 * @v fed @copies times each: @kept methods and @names names kept, and
 * each of @f named as @f's text says and as a map fed every event names
 * it.
 */
static void check(struct __test_metadata *_metadata, const struct method *v,
		  size_t n, unsigned int copies, size_t kept, size_t names,
		  const struct frame *f, size_t nf)
{
	struct etwctl_symbols *s = etwctl_symbols_new(), *all;
	struct etwctl_clr *c = etwctl_clr_new();
	char buf[64], ref[64];
	size_t nnames = 0, i;

	all = etwctl_symbols_new();
	ASSERT_NE(NULL, s);
	ASSERT_NE(NULL, all);
	ASSERT_NE(NULL, c);
	ASSERT_EQ(0, feed(c, v, n, copies));
	EXPECT_EQ(kept, etwctl_clr_kept(c, &nnames));
	EXPECT_EQ(names, nnames);
	ASSERT_EQ(0, etwctl_clr_finish(c, s));
	ASSERT_EQ(0, replay_all(all, v, n, copies));
	for (i = 0; i < nf; i++) {
		TH_LOG("pid %u, time %lld, 0x%llx", f[i].pid,
		       (long long)f[i].time, (unsigned long long)f[i].addr);
		etwctl_symbols_frame(s, f[i].pid, f[i].time, f[i].addr, buf,
				     sizeof(buf));
		etwctl_symbols_frame(all, f[i].pid, f[i].time, f[i].addr, ref,
				     sizeof(ref));
		EXPECT_STREQ(f[i].text, buf);
		EXPECT_STREQ(ref, buf);
	}
	etwctl_clr_free(c);
	etwctl_symbols_free(all);
	etwctl_symbols_free(s);
}

/* Rundown of three methods, two in one process, one in another. */
static const struct method rundown[] = {
	{ 144, true, 10, 900, 0x1000, 0x100, "A" },
	{ 144, true, 10, 901, 0x2000, 0x100, "B" },
	{ 144, true, 11, 902, 0x1000, 0x80, "A" },
};

static const struct frame rundown_frames[] = {
	{ 10, 5, 0x1010, "Ns.A+0x10" },
	{ 10, 5, 0x2020, "Ns.B+0x20" },
	{ 11, 5, 0x1010, "Ns.A+0x10" },
	{ 11, 5, 0x1090, "0x1090" },
};

#define N(v)	(sizeof(v) / sizeof((v)[0]))

TEST(rundown_once)
{
	check(_metadata, rundown, N(rundown), 1, 3, 2, rundown_frames,
	      N(rundown_frames));
}

TEST(rundown_repeated_four_times_kept_once)
{
	check(_metadata, rundown, N(rundown), 4, 3, 2, rundown_frames,
	      N(rundown_frames));
}

/*
 * A method compiled at 0x1000, unloaded, compiled again at 0x5000 (as an
 * image reloaded at another base), then a rundown record of another
 * method where the first was: the unload left nothing mapped there.
 */
static const struct method reload[] = {
	{ 143, false, 10, 100, 0x1000, 0x100, "A" },
	{ 144, false, 10, 200, 0x1000, 0x100, "A" },
	{ 143, false, 10, 300, 0x5000, 0x100, "A" },
	{ 144, true, 10, 900, 0x1000, 0x40, "C" },
};

TEST(reload_at_another_base)
{
	static const struct frame f[] = {
		{ 10, 99, 0x5010, "0x5010" },
		{ 10, 150, 0x1010, "Ns.A+0x10" },
		{ 10, 250, 0x1010, "Ns.C+0x10" },
		{ 10, 250, 0x1050, "0x1050" },
		{ 10, 350, 0x5010, "Ns.A+0x10" },
		{ 10, 350, 0x10, "0x10" },
	};

	check(_metadata, reload, N(reload), 1, 4, 2, f, N(f));
}

/*
 * Each event twice: the second load is passed over, the second unload
 * kept (it finds nothing mapped and adds a mapping from before the trace,
 * as for an image unloaded that was never loaded), the rundown record
 * after the unload kept once.
 */
TEST(reload_repeated_twice)
{
	static const struct frame f[] = {
		{ 10, 50, 0x1010, "Ns.A+0x10" },
		{ 10, 150, 0x1010, "Ns.A+0x10" },
		{ 10, 250, 0x1010, "Ns.C+0x10" },
		{ 10, 350, 0x5010, "Ns.A+0x10" },
		{ 10, 299, 0x5010, "0x5010" },
	};

	check(_metadata, reload, N(reload), 2, 5, 2, f, N(f));
}

/* Four copies keep what two do: a third unload adds what the second did. */
TEST(reload_repeated_four_times)
{
	static const struct frame f[] = {
		{ 10, 50, 0x1010, "Ns.A+0x10" },
		{ 10, 250, 0x1010, "Ns.C+0x10" },
		{ 10, 350, 0x5010, "Ns.A+0x10" },
	};

	check(_metadata, reload, N(reload), 4, 5, 2, f, N(f));
}

/* A load between two like it is no repeat: all three are kept. */
TEST(load_between_repeats_kept)
{
	static const struct method v[] = {
		{ 143, false, 10, 100, 0x1000, 0x100, "A" },
		{ 143, false, 10, 100, 0x1080, 0x100, "B" },
		{ 143, false, 10, 100, 0x1000, 0x100, "A" },
	};
	static const struct frame f[] = {
		{ 10, 150, 0x1090, "Ns.B+0x10" },
		{ 10, 150, 0x1010, "Ns.A+0x10" },
	};

	check(_metadata, v, N(v), 1, 3, 2, f, N(f));
}

/* A method compiled again at the same start, each load twice. */
TEST(rejit_at_the_same_start)
{
	static const struct method v[] = {
		{ 143, false, 10, 100, 0x1000, 0x100, "A" },
		{ 143, false, 10, 200, 0x1000, 0x200, "D" },
	};
	static const struct frame f[] = {
		{ 10, 150, 0x1010, "Ns.A+0x10" },
		{ 10, 250, 0x1010, "Ns.D+0x10" },
		{ 10, 250, 0x1110, "Ns.D+0x110" },
	};

	check(_metadata, v, N(v), 2, 2, 2, f, N(f));
}

TEST_HARNESS_MAIN
