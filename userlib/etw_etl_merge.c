// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * etw_etl_merge.c: deliver the events of one or more ETL files in
 * timestamp order.
 *
 * Each (file, CPU) pair is a stream: that CPU's buffers sorted by
 * SequenceNumber, whose events are already in time order because the
 * kernel seals a CPU's buffers in order.  A binary heap holds the next
 * event of every stream.  Ties are broken by file, raw timestamp (the
 * FILETIME conversion may map distinct raw values to one 100 ns tick)
 * and CPU, so the output order is deterministic.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "etw_etl.h"

struct etw_etl_bufref {
	unsigned int file;
	uint16_t cpu;
	uint64_t seq;
	uint64_t index;
};

struct etw_etl_stream {
	struct etw_etl_reader *reader;
	unsigned int file;
	const uint64_t *bufs;
	size_t nbufs;
	size_t next;
	uint8_t *mem;
	struct etw_etl_records it;
	struct etw_etl_event head;
};

/*
 * @pending: streams whose head must be read before the first event is
 * chosen
 * @top_taken: the head of the stream at the top of @heap was returned.
 * It is refilled lazily, on the next call, because the event points into
 * the stream's buffer; the stream then sinks from the top, in one pass
 * where popping it and pushing it back took two.
 * @want, @want_arg: the filter of etw_etl_merge_filter(), or NULL
 */
struct etw_etl_merge {
	struct etw_etl_stream *streams;
	size_t nstreams;
	uint64_t *indices;
	size_t *heap;
	size_t nheap;
	size_t *pending;
	size_t npending;
	bool top_taken;
	etw_etl_merge_want_fn want;
	void *want_arg;
};

static int etw_etl_bufref_cmp(const void *a, const void *b)
{
	const struct etw_etl_bufref *x = a, *y = b;

	if (x->file != y->file)
		return x->file < y->file ? -1 : 1;
	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

static int etw_etl_collect(struct etw_etl_reader *const *readers,
			   unsigned int count, struct etw_etl_bufref *refs)
{
	struct etw_buffer_header bh;
	struct etw_etl_bufref *ref = refs;
	unsigned int f;
	uint64_t i;
	int ret;

	for (f = 0; f < count; f++) {
		for (i = 0; i < etw_etl_reader_buffer_count(readers[f]); i++) {
			ret = etw_etl_reader_buffer_header(readers[f], i, &bh);
			if (ret)
				return ret;
			ref->file = f;
			ref->cpu = etw_etl_buffer_cpu(&bh);
			ref->seq = bh.sequence_number;
			ref->index = i;
			ref++;
		}
	}
	return 0;
}

/* Cut the sorted buffer list into one stream per (file, CPU). */
static void etw_etl_make_streams(struct etw_etl_merge *m,
				 struct etw_etl_reader *const *readers,
				 const struct etw_etl_bufref *refs, size_t n)
{
	struct etw_etl_stream *s = NULL;
	size_t i;

	for (i = 0; i < n; i++) {
		m->indices[i] = refs[i].index;
		if (!i || refs[i].file != refs[i - 1].file ||
		    refs[i].cpu != refs[i - 1].cpu) {
			s = &m->streams[m->nstreams];
			m->pending[m->nstreams] = m->nstreams;
			m->nstreams++;
			s->reader = readers[refs[i].file];
			s->file = refs[i].file;
			s->bufs = &m->indices[i];
		}
		s->nbufs++;
	}
	m->npending = m->nstreams;
}

static int etw_etl_merge_alloc(struct etw_etl_merge *m, size_t n)
{
	m->streams = calloc(n ? n : 1, sizeof(*m->streams));
	m->indices = calloc(n ? n : 1, sizeof(*m->indices));
	m->heap = calloc(n ? n : 1, sizeof(*m->heap));
	m->pending = calloc(n ? n : 1, sizeof(*m->pending));
	if (!m->streams || !m->indices || !m->heap || !m->pending)
		return -ENOMEM;
	return 0;
}

/**
 * etw_etl_merge_open - merge the events of several files by time
 * @readers: open readers; they must outlive the merge
 * @count: entries of @readers
 * @out: out: the merge
 */
int etw_etl_merge_open(struct etw_etl_reader *const *readers,
		       unsigned int count, struct etw_etl_merge **out)
{
	struct etw_etl_bufref *refs;
	struct etw_etl_merge *m;
	size_t n = 0;
	unsigned int f;
	int ret;

	for (f = 0; f < count; f++)
		n += etw_etl_reader_buffer_count(readers[f]);
	m = calloc(1, sizeof(*m));
	refs = calloc(n ? n : 1, sizeof(*refs));
	ret = m && refs ? etw_etl_merge_alloc(m, n) : -ENOMEM;
	if (!ret)
		ret = etw_etl_collect(readers, count, refs);
	if (ret) {
		free(refs);
		etw_etl_merge_close(m);
		return ret;
	}
	qsort(refs, n, sizeof(*refs), etw_etl_bufref_cmp);
	etw_etl_make_streams(m, readers, refs, n);
	free(refs);
	*out = m;
	return 0;
}

void etw_etl_merge_close(struct etw_etl_merge *m)
{
	size_t i;

	if (!m)
		return;
	for (i = 0; i < m->nstreams; i++)
		free(m->streams[i].mem);
	free(m->streams);
	free(m->indices);
	free(m->heap);
	free(m->pending);
	free(m);
}

static int etw_etl_stream_load(struct etw_etl_stream *s)
{
	uint32_t size = etw_etl_reader_buffer_size(s->reader);
	uint64_t index = s->bufs[s->next++];
	int ret;

	if (!s->mem) {
		s->mem = malloc(size);
		if (!s->mem)
			return -ENOMEM;
	}
	ret = etw_etl_reader_buffer(s->reader, index, s->mem);
	if (ret)
		return ret;
	return etw_etl_records_init(&s->it, s->mem, size,
				    etw_etl_reader_clock(s->reader));
}

/*
 * Read the stream's next event that @m wants into s->head: 1 when there
 * is one, 0 when the stream is exhausted, or an error for a bad buffer
 * or record.  After an error the stream has moved past the bad data, so
 * calling again continues with what follows.
 */
static int etw_etl_stream_fill(const struct etw_etl_merge *m,
			       struct etw_etl_stream *s)
{
	int ret;

	for (;;) {
		while (s->it.buf) {
			/* An event the filter refuses is not parsed. */
			if (m->want &&
			    etw_etl_records_class(&s->it, &s->head) > 0 &&
			    !m->want(&s->head, m->want_arg)) {
				etw_etl_records_pass(&s->it, &s->head);
				continue;
			}
			ret = etw_etl_records_next(&s->it, &s->head);
			if (ret)
				return ret;
			s->it.buf = NULL;
		}
		if (s->next == s->nbufs)
			return 0;
		ret = etw_etl_stream_load(s);
		if (ret)
			return ret;
	}
}

static bool etw_etl_before(const struct etw_etl_merge *m, size_t a, size_t b)
{
	const struct etw_etl_event *x = &m->streams[a].head;
	const struct etw_etl_event *y = &m->streams[b].head;

	if (x->timestamp != y->timestamp)
		return x->timestamp < y->timestamp;
	if (m->streams[a].file != m->streams[b].file)
		return m->streams[a].file < m->streams[b].file;
	if (x->raw_timestamp != y->raw_timestamp)
		return x->raw_timestamp < y->raw_timestamp;
	/* Streams are numbered in (file, CPU) order. */
	return a < b;
}

static void etw_etl_heap_swap(size_t *h, size_t i, size_t j)
{
	size_t t = h[i];

	h[i] = h[j];
	h[j] = t;
}

static void etw_etl_heap_push(struct etw_etl_merge *m, size_t s)
{
	size_t i = m->nheap++, parent;

	m->heap[i] = s;
	while (i) {
		parent = (i - 1) / 2;
		if (!etw_etl_before(m, m->heap[i], m->heap[parent]))
			break;
		etw_etl_heap_swap(m->heap, i, parent);
		i = parent;
	}
}

/* The stream at the top of the heap moved down to its place. */
static void etw_etl_heap_sink(struct etw_etl_merge *m)
{
	size_t i = 0, c;

	for (;;) {
		c = 2 * i + 1;
		if (c >= m->nheap)
			break;
		if (c + 1 < m->nheap &&
		    etw_etl_before(m, m->heap[c + 1], m->heap[c]))
			c++;
		if (!etw_etl_before(m, m->heap[c], m->heap[i]))
			break;
		etw_etl_heap_swap(m->heap, i, c);
		i = c;
	}
}

static int etw_etl_refill(struct etw_etl_merge *m)
{
	size_t s;
	int ret;

	while (m->npending) {
		s = m->pending[m->npending - 1];
		ret = etw_etl_stream_fill(m, &m->streams[s]);
		if (ret < 0)
			return ret;
		m->npending--;
		if (ret)
			etw_etl_heap_push(m, s);
	}
	return 0;
}

/* The top stream, whose head was returned, read on (or taken out). */
static int etw_etl_refill_top(struct etw_etl_merge *m)
{
	int ret = etw_etl_stream_fill(m, &m->streams[m->heap[0]]);

	if (ret < 0)
		return ret;
	m->top_taken = false;
	if (!ret)
		m->heap[0] = m->heap[--m->nheap];
	etw_etl_heap_sink(m);
	return 0;
}

/*
 * The fields and the extended items in use: a struct copy would move all
 * 16 items for every event (those past ext_count are never read).
 */
static void etw_etl_event_copy(struct etw_etl_event *dst,
			       const struct etw_etl_event *src)
{
	memcpy(dst, src, offsetof(struct etw_etl_event, ext));
	memcpy(dst->ext, src->ext, src->ext_count * sizeof(src->ext[0]));
	dst->user_data = src->user_data;
	dst->user_data_len = src->user_data_len;
	dst->record = src->record;
}

/**
 * etw_etl_merge_filter - only the events a caller takes
 * @m: the merge, before its first etw_etl_merge_next()
 * @want: called with each event of a stream as it is read, in the
 *	stream's order (not in time order), before it is parsed: its class
 *	alone is set (etw_etl_records_class()); false passes it over
 * @arg: passed to @want
 *
 * A pass that takes a few kinds of events (etwctl's prepass: images, the
 * CLR's methods, stack keys) then spends on the others a look at their
 * class: no parse, no heap step, no copy to the caller.  The events
 * wanted come, parsed, in the order an unfiltered merge gives them.
 */
void etw_etl_merge_filter(struct etw_etl_merge *m, etw_etl_merge_want_fn want,
			  void *arg)
{
	m->want = want;
	m->want_arg = arg;
}

/**
 * etw_etl_merge_next - the next event in time order
 * @m: the merge
 * @ev: out: the event; its pointers stay valid until the next call
 * @file: out, optional: index of the event's file in the readers passed
 *	to etw_etl_merge_open()
 *
 * Return: 1 with an event, 0 when every stream is exhausted, or a
 * negative errno for a corrupt buffer or record (-EBADMSG) or a read
 * error.  After an error the bad data is skipped: calling again goes on
 * with the rest of the files.
 */
int etw_etl_merge_next(struct etw_etl_merge *m, struct etw_etl_event *ev,
		       unsigned int *file)
{
	size_t s;
	int ret;

	ret = m->top_taken ? etw_etl_refill_top(m) : etw_etl_refill(m);
	if (ret)
		return ret;
	if (!m->nheap)
		return 0;
	s = m->heap[0];
	etw_etl_event_copy(ev, &m->streams[s].head);
	if (file)
		*file = m->streams[s].file;
	m->top_taken = true;
	return 1;
}
