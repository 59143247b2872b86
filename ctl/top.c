// SPDX-License-Identifier: GPL-2.0
/*
 * top.c: etwctl top's arithmetic and output, apart from BPF (cmd_top.c
 * reads the maps): per (provider, session) counts summed over CPUs into a
 * snapshot, grouped per provider and per session, with each group's rates
 * between two snapshots, printed as a table or one JSON line.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "etwctl.h"
#include "top.h"

/**
 * etwctl_top_snap_add - add counts to a snapshot
 * @s: the snapshot
 * @c: counts of one (provider, session) pair, from one CPU or several
 *
 * Counts of a pair already present are summed into it.
 *
 * Return: 0, or -ENOMEM.
 */
int etwctl_top_snap_add(struct etwctl_top_snap *s,
			const struct etwctl_top_count *c)
{
	struct etwctl_top_count *v;
	size_t i;

	for (i = 0; i < s->n; i++) {
		v = &s->v[i];
		if (v->logger_id == c->logger_id &&
		    !memcmp(&v->provider, &c->provider, sizeof(GUID))) {
			v->events += c->events;
			v->bytes += c->bytes;
			v->lost += c->lost;
			return 0;
		}
	}
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;

		v = realloc(s->v, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n++] = *c;
	return 0;
}

/**
 * etwctl_top_snap_free - free a snapshot's counts and empty it
 * @s: the snapshot
 */
void etwctl_top_snap_free(struct etwctl_top_snap *s)
{
	free(s->v);
	memset(s, 0, sizeof(*s));
}

static bool etwctl_top_same_group(const struct etwctl_top_count *a,
				  const struct etwctl_top_count *b,
				  bool by_session)
{
	if (by_session)
		return a->logger_id == b->logger_id;
	return !memcmp(&a->provider, &b->provider, sizeof(GUID));
}

/* Add @c to @row, its group's row: into the totals, or as the past. */
static void etwctl_top_row_add(struct etwctl_top_row *row,
			       const struct etwctl_top_count *c, bool past)
{
	if (past) {
		row->past_events += c->events;
		row->past_bytes += c->bytes;
		row->past_lost += c->lost;
		return;
	}
	row->c.events += c->events;
	row->c.bytes += c->bytes;
	row->c.lost += c->lost;
}

/* The row of @c's group in @rows, appended when new. */
static struct etwctl_top_row *etwctl_top_row_of(struct etwctl_top_rows *rows,
						const struct etwctl_top_count *c,
						bool by_session)
{
	struct etwctl_top_row *r;
	size_t i;

	for (i = 0; i < rows->n; i++)
		if (etwctl_top_same_group(&rows->v[i].c, c, by_session))
			return &rows->v[i];
	if (rows->n == rows->cap) {
		size_t cap = rows->cap ? rows->cap * 2 : 32;

		r = realloc(rows->v, cap * sizeof(*r));
		if (!r)
			return NULL;
		rows->v = r;
		rows->cap = cap;
	}
	r = &rows->v[rows->n++];
	memset(r, 0, sizeof(*r));
	if (by_session)
		r->c.logger_id = c->logger_id;
	else
		r->c.provider = c->provider;
	return r;
}

/* Busiest first; then the key, so that the order is stable. */
static int etwctl_top_row_cmp(const void *a, const void *b)
{
	const struct etwctl_top_row *x = a, *y = b;
	uint64_t dx = x->c.events - x->past_events;
	uint64_t dy = y->c.events - y->past_events;
	int r;

	if (dx != dy)
		return dx > dy ? -1 : 1;
	if (x->c.events != y->c.events)
		return x->c.events > y->c.events ? -1 : 1;
	r = memcmp(&x->c.provider, &y->c.provider, sizeof(GUID));
	if (r)
		return r;
	return x->c.logger_id < y->c.logger_id ? -1 :
	       x->c.logger_id > y->c.logger_id;
}

/**
 * etwctl_top_group - one row per provider or per session
 * @now: the newest snapshot
 * @prev: the one before, or NULL: the rates are then over @now's whole
 *	span (its counts started at zero)
 * @by_session: group per session, else per provider
 * @rows: out: the rows, busiest first; free @rows->v
 *
 * A row's past counts are @prev's, for its rates.  Rows without counts in
 * @now (their pairs vanished) are left out.
 *
 * Return: 0, or -ENOMEM.
 */
int etwctl_top_group(const struct etwctl_top_snap *now,
		     const struct etwctl_top_snap *prev, bool by_session,
		     struct etwctl_top_rows *rows)
{
	struct etwctl_top_row *r;
	size_t i;

	memset(rows, 0, sizeof(*rows));
	for (i = 0; i < now->n; i++) {
		r = etwctl_top_row_of(rows, &now->v[i], by_session);
		if (!r)
			goto nomem;
		etwctl_top_row_add(r, &now->v[i], false);
	}
	for (i = 0; prev && i < prev->n; i++) {
		size_t j;

		for (j = 0; j < rows->n; j++) {
			if (etwctl_top_same_group(&rows->v[j].c, &prev->v[i],
						  by_session)) {
				etwctl_top_row_add(&rows->v[j], &prev->v[i],
						   true);
				break;
			}
		}
	}
	if (rows->n)
		qsort(rows->v, rows->n, sizeof(*rows->v), etwctl_top_row_cmp);
	return 0;
nomem:
	free(rows->v);
	memset(rows, 0, sizeof(*rows));
	return -ENOMEM;
}

/* Per second over @secs; counts never go back, but a pair may vanish. */
static double etwctl_top_rate(uint64_t now, uint64_t past, double secs)
{
	if (secs <= 0 || now < past)
		return 0;
	return (double)(now - past) / secs;
}

static void etwctl_top_json_row(FILE *f, const struct etwctl_top_row *r,
				bool by_session, double secs,
				const struct etwctl_top_names *names)
{
	char g[ETWCTL_GUID_LEN];
	const char *name;

	if (by_session) {
		fprintf(f, "{\"logger_id\":%u,\"name\":", r->c.logger_id);
		name = names ? names->session(names->ctx, r->c.logger_id) : NULL;
		if (name)
			etwctl_json_string(f, name);
		else
			fputs("null", f);
	} else {
		etwctl_guid_format(&r->c.provider, g);
		fprintf(f, "{\"provider\":\"%s\"", g);
	}
	fprintf(f, ",\"events\":%llu,\"bytes\":%llu,\"lost\":%llu",
		(unsigned long long)r->c.events,
		(unsigned long long)r->c.bytes,
		(unsigned long long)r->c.lost);
	fprintf(f, ",\"events_per_s\":%.1f,\"bytes_per_s\":%.1f,"
		"\"lost_per_s\":%.1f}",
		etwctl_top_rate(r->c.events, r->past_events, secs),
		etwctl_top_rate(r->c.bytes, r->past_bytes, secs),
		etwctl_top_rate(r->c.lost, r->past_lost, secs));
}

static void etwctl_top_json_rows(FILE *f, const char *key,
				 const struct etwctl_top_rows *rows,
				 bool by_session, double secs,
				 const struct etwctl_top_names *names)
{
	size_t i;

	fprintf(f, ",\"%s\":[", key);
	for (i = 0; i < rows->n; i++) {
		if (i)
			fputc(',', f);
		etwctl_top_json_row(f, &rows->v[i], by_session, secs, names);
	}
	fputc(']', f);
}

static void etwctl_top_table_rows(FILE *f, const struct etwctl_top_rows *rows,
				  bool by_session, double secs,
				  const struct etwctl_top_names *names)
{
	char g[ETWCTL_GUID_LEN];
	const struct etwctl_top_row *r;
	const char *name;
	size_t i;

	if (by_session)
		fprintf(f, "%-5s %-31s", "ID", "SESSION");
	else
		fprintf(f, "%-37s", "PROVIDER");
	fprintf(f, " %10s %11s %8s %12s %14s %10s\n", "EVENTS/S", "BYTES/S",
		"LOST/S", "EVENTS", "BYTES", "LOST");
	for (i = 0; i < rows->n; i++) {
		r = &rows->v[i];
		if (by_session) {
			name = names ?
			       names->session(names->ctx, r->c.logger_id) :
			       NULL;
			fprintf(f, "%-5u %-31.31s", r->c.logger_id,
				name ? name : "-");
		} else {
			etwctl_guid_format(&r->c.provider, g);
			fprintf(f, "%-37s", g);
		}
		fprintf(f, " %10.0f %11.0f %8.0f %12llu %14llu %10llu\n",
			etwctl_top_rate(r->c.events, r->past_events, secs),
			etwctl_top_rate(r->c.bytes, r->past_bytes, secs),
			etwctl_top_rate(r->c.lost, r->past_lost, secs),
			(unsigned long long)r->c.events,
			(unsigned long long)r->c.bytes,
			(unsigned long long)r->c.lost);
	}
}

/**
 * etwctl_top_print - one refresh: per provider, then per session
 * @f: where to
 * @now: the newest snapshot
 * @prev: the one before it, or NULL (rates over @now's span)
 * @json: one JSON object on one line, else a table
 * @names: session names, or NULL
 *
 * Return: 0, or -ENOMEM.
 */
int etwctl_top_print(FILE *f, const struct etwctl_top_snap *now,
		     const struct etwctl_top_snap *prev, bool json,
		     const struct etwctl_top_names *names)
{
	struct etwctl_top_rows prov, sess;
	double secs = now->time - (prev ? prev->time : now->start);

	if (etwctl_top_group(now, prev, false, &prov))
		return -ENOMEM;
	if (etwctl_top_group(now, prev, true, &sess)) {
		free(prov.v);
		return -ENOMEM;
	}
	if (json) {
		fprintf(f, "{\"seconds\":%.3f,\"untracked\":%llu", secs,
			(unsigned long long)now->untracked);
		etwctl_top_json_rows(f, "providers", &prov, false, secs, names);
		etwctl_top_json_rows(f, "sessions", &sess, true, secs, names);
		fputs("}\n", f);
	} else {
		fprintf(f, "etw top: providers %zu, sessions %zu, over %.1f s",
			prov.n, sess.n, secs);
		if (now->untracked)
			fprintf(f, ", %llu events untracked (map full)",
				(unsigned long long)now->untracked);
		fputs("\n\n", f);
		etwctl_top_table_rows(f, &prov, false, secs, names);
		fputc('\n', f);
		etwctl_top_table_rows(f, &sess, true, secs, names);
	}
	free(prov.v);
	free(sess.v);
	return 0;
}
