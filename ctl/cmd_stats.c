// SPDX-License-Identifier: GPL-2.0
/*
 * cmd_stats.c: "etwctl stats FILE...": events per provider, per event id
 * and per CPU, and what was lost (the header's counts and the buffers
 * that record lost events).
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "etwctl.h"

static const char etwctl_stats_usage[] =
"usage: etwctl stats FILE...\n"
"Count the events of ETL files per provider, per event id and per CPU,\n"
"and report lost events and buffers.\n";

/* One counter: a provider (id unused), a (provider, id) or a CPU. */
struct etwctl_count {
	struct etw_guid guid;
	uint32_t key;
	uint64_t n;
};

struct etwctl_counts {
	struct etwctl_count *v;
	size_t n;
	size_t cap;
};

/*
 * @events_lost, @buffers_lost: the files' header counts
 * @lost_buffers: buffers flagged ETW_BUFFER_FLAG_EVENTS_LOST
 */
struct etwctl_stats {
	struct etwctl_counts providers;
	struct etwctl_counts ids;
	struct etwctl_counts cpus;
	uint64_t events;
	uint64_t buffers;
	uint64_t events_lost;
	uint64_t buffers_lost;
	uint64_t lost_buffers;
	uint64_t bad_records;
};

static int etwctl_count(struct etwctl_counts *c, const struct etw_guid *g,
			uint32_t key)
{
	static const struct etw_guid none;
	struct etwctl_count *v;
	size_t i;

	if (!g)
		g = &none;
	for (i = 0; i < c->n; i++) {
		if (c->v[i].key == key &&
		    !memcmp(&c->v[i].guid, g, sizeof(*g))) {
			c->v[i].n++;
			return 0;
		}
	}
	if (c->n == c->cap) {
		v = realloc(c->v, (c->cap ? c->cap * 2 : 16) * sizeof(*v));
		if (!v)
			return -ENOMEM;
		c->v = v;
		c->cap = c->cap ? c->cap * 2 : 16;
	}
	c->v[c->n].guid = *g;
	c->v[c->n].key = key;
	c->v[c->n++].n = 1;
	return 0;
}

static int etwctl_count_cmp(const void *a, const void *b)
{
	const struct etwctl_count *x = a, *y = b;
	int r = memcmp(&x->guid, &y->guid, sizeof(x->guid));

	if (r)
		return r;
	return x->key < y->key ? -1 : x->key > y->key;
}

static void etwctl_counts_sort(struct etwctl_counts *c)
{
	/* qsort() wants a valid array even for no elements. */
	if (c->n)
		qsort(c->v, c->n, sizeof(*c->v), etwctl_count_cmp);
}

static int etwctl_stats_event(struct etwctl_stats *st,
			      const struct etw_etl_event *ev)
{
	if (etwctl_event_is_metadata(ev))
		return 0;
	st->events++;
	if (etwctl_count(&st->providers, &ev->provider_id, 0) ||
	    etwctl_count(&st->ids, &ev->provider_id, ev->descriptor.id) ||
	    etwctl_count(&st->cpus, NULL, ev->processor_index))
		return -ENOMEM;
	return 0;
}

static int etwctl_stats_buffer(struct etwctl_stats *st,
			       struct etw_etl_reader *r, uint64_t index,
			       void *buf)
{
	const struct etw_buffer_header *bh = buf;
	struct etw_etl_records it;
	struct etw_etl_event ev;
	int ret;

	ret = etw_etl_reader_buffer(r, index, buf);
	if (!ret)
		ret = etw_etl_records_init(&it, buf,
					   etw_etl_reader_buffer_size(r),
					   etw_etl_reader_clock(r));
	if (ret)
		return ret;
	st->buffers++;
	if (bh->buffer_flag & ETW_BUFFER_FLAG_EVENTS_LOST)
		st->lost_buffers++;
	while ((ret = etw_etl_records_next(&it, &ev)) != 0) {
		if (ret == -EBADMSG) {
			st->bad_records++;
			break;
		}
		if (ret < 0 || (ret = etwctl_stats_event(st, &ev)))
			return ret;
	}
	return 0;
}

static int etwctl_stats_file(struct etwctl_stats *st, const char *path)
{
	const struct etw_etl_logfile_header *h;
	struct etw_etl_reader *r;
	uint64_t i, n;
	void *buf;
	int ret;

	ret = etw_etl_reader_open(path, &r);
	if (ret)
		return etwctl_fail("stats", "%s: %s", path,
				   etwctl_errno_str(ret));
	h = etw_etl_reader_header(r);
	st->events_lost += h->events_lost;
	st->buffers_lost += h->buffers_lost;
	n = etw_etl_reader_buffer_count(r);
	buf = malloc(etw_etl_reader_buffer_size(r));
	ret = buf ? 0 : -ENOMEM;
	for (i = 0; i < n && !ret; i++) {
		etwctl_progress("stats", i, n);
		ret = etwctl_stats_buffer(st, r, i, buf);
	}
	etwctl_progress_end();
	free(buf);
	etw_etl_reader_close(r);
	if (ret)
		return etwctl_fail("stats", "%s: %s", path,
				   etwctl_errno_str(ret));
	return 0;
}

static void etwctl_stats_print(struct etwctl_stats *st)
{
	char g[ETWCTL_GUID_LEN];
	size_t i;

	etwctl_counts_sort(&st->providers);
	etwctl_counts_sort(&st->ids);
	etwctl_counts_sort(&st->cpus);
	printf("events: %llu in %llu buffers\n",
	       (unsigned long long)st->events, (unsigned long long)st->buffers);
	printf("providers:\n");
	for (i = 0; i < st->providers.n; i++) {
		etwctl_guid_format((GUID *)&st->providers.v[i].guid, g);
		printf("  %s %llu\n", g,
		       (unsigned long long)st->providers.v[i].n);
	}
	printf("event ids:\n");
	for (i = 0; i < st->ids.n; i++) {
		etwctl_guid_format((GUID *)&st->ids.v[i].guid, g);
		printf("  %s id=%u %llu\n", g, st->ids.v[i].key,
		       (unsigned long long)st->ids.v[i].n);
	}
	printf("cpus:\n");
	for (i = 0; i < st->cpus.n; i++)
		printf("  cpu %u: %llu\n", st->cpus.v[i].key,
		       (unsigned long long)st->cpus.v[i].n);
	printf("lost: events %llu, buffers %llu, buffers with lost events "
	       "%llu, corrupt buffers %llu\n",
	       (unsigned long long)st->events_lost,
	       (unsigned long long)st->buffers_lost,
	       (unsigned long long)st->lost_buffers,
	       (unsigned long long)st->bad_records);
}

/**
 * etwctl_cmd_stats - "etwctl stats"
 * @argc: argument count, argv[0] is "stats"
 * @argv: arguments
 *
 * Return: exit status.
 */
int etwctl_cmd_stats(int argc, char **argv)
{
	static const struct option options[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct etwctl_stats st = { 0 };
	int c, i, ret = 0;

	etwctl_getopt_reset();
	while ((c = getopt_long(argc, argv, ":h", options, NULL)) != -1) {
		if (c == 'h')
			return etwctl_help(etwctl_stats_usage);
		return etwctl_bad_option("stats", c, argv);
	}
	if (optind == argc)
		return etwctl_usage("stats", "no input file");
	for (i = optind; i < argc && !ret; i++)
		ret = etwctl_stats_file(&st, argv[i]);
	if (!ret)
		etwctl_stats_print(&st);
	free(st.providers.v);
	free(st.ids.v);
	free(st.cpus.v);
	return ret;
}
