// SPDX-License-Identifier: GPL-2.0
/*
 * iter.c: the message iterator of source.etw.etl.
 *
 * libetw's merge (etw_etl_merge_next) hands out the records of every
 * file, across CPUs and files, in time order, one at a time: the pull
 * model a message iterator needs, with no thread.  Each record becomes an
 * event message, preceded, the first time its file and CPU are seen, by
 * the beginning of that stream and of its one packet; at the end every
 * stream's packet and the stream end.  The log-file header records and
 * padding are not events (as in etwctl dump); corrupt buffers are skipped
 * with a warning, as etwctl does.
 */
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etwbt.h"

/* FILETIME of the Unix epoch. */
#define ETWBT_FT_UNIX_EPOCH	116444736000000000ll
/* Messages one record can need: stream and packet beginnings, event. */
#define ETWBT_QUEUE		3

/**
 * struct etwbt_stream - the stream of one file and CPU
 * @file: index of the file
 * @cpu: the CPU
 * @stream: the stream
 * @packet: its one packet, since the stream (last) began
 * @begun: its beginning was queued and its end not yet
 */
struct etwbt_stream {
	unsigned int file;
	uint16_t cpu;
	bt_stream *stream;
	bt_packet *packet;
	bool begun;
};

/**
 * struct etwbt_iter - a message iterator
 * @comp: its component
 * @self: the iterator
 * @readers: one per file
 * @merge: the time-ordered merge of @readers
 * @traces: one per file
 * @streams: the streams seen so far
 * @nstreams: entries of @streams in use
 * @cap: entries allocated
 * @last: the stream of the last event, tried first
 * @queue: messages made but not handed out yet
 * @qlen: messages in @queue
 * @qpos: the next one to hand out
 * @ending: the merge is done; streams are being ended
 * @last_ns: the time of the latest event, which the ends of streams and
 *	packets take
 * @text: TdhFormatProperty's buffer
 * @bad: records or buffers skipped as corrupt
 * @error: a failure to report once the messages before it are out
 */
struct etwbt_iter {
	struct etwbt_comp *comp;
	bt_self_message_iterator *self;
	struct etw_etl_reader **readers;
	struct etw_etl_merge *merge;
	bt_trace **traces;
	struct etwbt_stream *streams;
	size_t nstreams;
	size_t cap;
	size_t last;
	const bt_message *queue[ETWBT_QUEUE];
	unsigned int qlen;
	unsigned int qpos;
	bool ending;
	uint64_t last_ns;
	struct etwbt_text text;
	uint64_t bad;
	int error;
};

#define ETWBT_ITER_ERROR(it, ...) \
	BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_MESSAGE_ITERATOR((it)->self, \
								   __VA_ARGS__)

static const struct etw_guid etwbt_padding = ETW_PADDING_PROVIDER;

/* What describes the file, not an event: as etwctl dump skips. */
static bool etwbt_is_metadata(const struct etw_etl_event *ev)
{
	if (ev->kind == ETW_ETL_KIND_SYSTEM &&
	    (ev->hook_id >> 8) == ETW_ETL_HOOK_GROUP_HEADER)
		return true;
	return !memcmp(&ev->provider_id, &etwbt_padding,
		       sizeof(etwbt_padding));
}

/* The file's name without directory and ".etl": the trace's name. */
static char *etwbt_trace_name(const char *path)
{
	char *copy = strdup(path), *name, *dot;

	if (!copy)
		return NULL;
	name = strdup(basename(copy));
	free(copy);
	dot = name ? strrchr(name, '.') : NULL;
	if (dot && dot != name && !strcmp(dot, ".etl"))
		*dot = 0;
	return name;
}

static int etwbt_trace(struct etwbt_iter *it, unsigned int i)
{
	struct etw_etl_reader *r = it->readers[i];
	const char *path = it->comp->paths[i];
	char *name = etwbt_trace_name(path);
	bt_trace *t = bt_trace_create(it->comp->tc);
	int ret = -ENOMEM;

	if (t && name && !bt_trace_set_name(t, name) &&
	    !bt_trace_set_environment_entry_string(t, "etw_file", path) &&
	    !bt_trace_set_environment_entry_string(t, "etw_logger_name",
		    etw_etl_reader_logger_name(r)) &&
	    !bt_trace_set_environment_entry_integer(t, "etw_pointer_size",
		    etw_etl_reader_header(r)->pointer_size))
		ret = 0;
	free(name);
	it->traces[i] = t;
	return ret;
}

static int etwbt_open(struct etwbt_iter *it)
{
	unsigned int i, n = it->comp->npaths;
	int ret;

	it->readers = calloc(n, sizeof(*it->readers));
	it->traces = calloc(n, sizeof(*it->traces));
	if (!it->readers || !it->traces)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		ret = etw_etl_reader_open(it->comp->paths[i], &it->readers[i]);
		if (ret) {
			ETWBT_ITER_ERROR(it, "%s: %s", it->comp->paths[i],
					 strerror(-ret));
			return ret;
		}
		ret = etwbt_trace(it, i);
		if (ret)
			return ret;
	}
	ret = etw_etl_merge_open(it->readers, n, &it->merge);
	if (ret)
		ETWBT_ITER_ERROR(it, "merging the files: %s", strerror(-ret));
	return ret;
}

static void etwbt_iter_free(struct etwbt_iter *it)
{
	unsigned int i;
	size_t s;

	while (it->qpos < it->qlen)
		bt_message_put_ref(it->queue[it->qpos++]);
	for (s = 0; s < it->nstreams; s++) {
		bt_packet_put_ref(it->streams[s].packet);
		bt_stream_put_ref(it->streams[s].stream);
	}
	free(it->streams);
	etw_etl_merge_close(it->merge);
	for (i = 0; i < it->comp->npaths; i++) {
		if (it->traces)
			bt_trace_put_ref(it->traces[i]);
		if (it->readers)
			etw_etl_reader_close(it->readers[i]);
	}
	free(it->traces);
	free(it->readers);
	free(it->text.text);
	free(it);
}

/**
 * etwbt_iter_init - open the component's files for one iterator
 * @self: the iterator
 * @config: its configuration
 * @port: the output port
 *
 * Return: OK, ERROR or MEMORY_ERROR.
 */
bt_message_iterator_class_initialize_method_status
etwbt_iter_init(bt_self_message_iterator *self,
		bt_self_message_iterator_configuration *config,
		bt_self_component_port_output *port)
{
	struct etwbt_iter *it = calloc(1, sizeof(*it));
	int ret;

	if (!it)
		return BT_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD_STATUS_MEMORY_ERROR;
	it->self = self;
	/* Every message has a time: babeltrace2 can seek by skipping. */
	bt_self_message_iterator_configuration_set_can_seek_forward(config,
								    BT_TRUE);
	it->comp = bt_self_component_get_data(
		bt_self_message_iterator_borrow_component(self));
	ret = etwbt_open(it);
	if (ret) {
		etwbt_iter_free(it);
		return ret == -ENOMEM ?
		       BT_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD_STATUS_MEMORY_ERROR :
		       BT_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD_STATUS_ERROR;
	}
	bt_self_message_iterator_set_data(self, it);
	return BT_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD_STATUS_OK;
}

/**
 * etwbt_iter_finalize - close the iterator's files
 * @self: the iterator
 */
void etwbt_iter_finalize(bt_self_message_iterator *self)
{
	etwbt_iter_free(bt_self_message_iterator_get_data(self));
}

static int etwbt_push(struct etwbt_iter *it, bt_message *msg)
{
	if (!msg)
		return -ENOMEM;
	it->queue[it->qlen++] = msg;
	return 0;
}

static struct etwbt_stream *etwbt_stream_new(struct etwbt_iter *it,
					     unsigned int file, uint16_t cpu)
{
	struct etwbt_stream *s;
	char name[16];

	if (it->nstreams == it->cap) {
		s = realloc(it->streams, (it->cap ? 2 * it->cap : 16) *
					 sizeof(*s));
		if (!s)
			return NULL;
		it->streams = s;
		it->cap = it->cap ? 2 * it->cap : 16;
	}
	s = &it->streams[it->nstreams];
	memset(s, 0, sizeof(*s));
	s->file = file;
	s->cpu = cpu;
	s->stream = bt_stream_create(it->comp->sc, it->traces[file]);
	/* Also the stream's file name in a CTF trace. */
	snprintf(name, sizeof(name), "cpu%u", cpu);
	if (!s->stream || bt_stream_set_name(s->stream, name)) {
		bt_stream_put_ref(s->stream);
		return NULL;
	}
	it->nstreams++;
	return s;
}

/* Queue the beginning of @s and of a packet of it, at @ns. */
static int etwbt_stream_begin(struct etwbt_iter *it, struct etwbt_stream *s,
			      uint64_t ns)
{
	bt_packet *packet = bt_packet_create(s->stream);
	bt_message *msg;
	bt_field *ctx;

	if (!packet)
		return -ENOMEM;
	bt_packet_put_ref(s->packet);
	s->packet = packet;
	ctx = bt_packet_borrow_context_field(packet);
	bt_field_integer_unsigned_set_value(
		bt_field_structure_borrow_member_field_by_index(ctx, 0), s->cpu);
	msg = bt_message_stream_beginning_create(it->self, s->stream);
	if (msg)
		bt_message_stream_beginning_set_default_clock_snapshot(msg, ns);
	if (etwbt_push(it, msg) ||
	    etwbt_push(it,
		bt_message_packet_beginning_create_with_default_clock_snapshot(
			it->self, packet, ns)))
		return -ENOMEM;
	s->begun = true;
	return 0;
}

/*
 * The stream of @file and @cpu, begun at @ns (queued messages) when not
 * yet.
 */
static struct etwbt_stream *etwbt_stream(struct etwbt_iter *it,
					 unsigned int file, uint16_t cpu,
					 uint64_t ns)
{
	struct etwbt_stream *s = NULL;
	size_t i;

	if (it->last < it->nstreams && it->streams[it->last].file == file &&
	    it->streams[it->last].cpu == cpu &&
	    it->streams[it->last].begun)
		return &it->streams[it->last];
	for (i = 0; i < it->nstreams && !s; i++)
		if (it->streams[i].file == file && it->streams[i].cpu == cpu)
			s = &it->streams[i];
	if (!s)
		s = etwbt_stream_new(it, file, cpu);
	if (!s || (!s->begun && etwbt_stream_begin(it, s, ns)))
		return NULL;
	it->last = s - it->streams;
	return s;
}

static int etwbt_common_context(bt_field *ctx, const struct etw_etl_event *ev)
{
	static const struct etw_guid zero;
	char activity[ETWBT_GUID_LEN] = "";
	const struct etw_event_descriptor *d = &ev->descriptor;
	const uint64_t v[] = {
		[ETWBT_CTX_PID] = ev->process_id,
		[ETWBT_CTX_TID] = ev->thread_id,
		[ETWBT_CTX_ID] = d->id,
		[ETWBT_CTX_VERSION] = d->version,
		[ETWBT_CTX_CHANNEL] = d->channel,
		[ETWBT_CTX_LEVEL] = d->level,
		[ETWBT_CTX_OPCODE] = d->opcode,
		[ETWBT_CTX_TASK] = d->task,
		[ETWBT_CTX_KEYWORDS] = d->keyword,
	};
	uint64_t i;

	for (i = 0; i < ETWBT_CTX_ACTIVITY_ID; i++)
		bt_field_integer_unsigned_set_value(
			bt_field_structure_borrow_member_field_by_index(ctx, i),
			v[i]);
	if (memcmp(&ev->activity_id, &zero, sizeof(zero)))
		etwbt_guid_format(&ev->activity_id, activity);
	return bt_field_string_set_value(
		bt_field_structure_borrow_member_field_by_index(ctx,
			ETWBT_CTX_ACTIVITY_ID), activity) ? -ENOMEM : 0;
}

/* FILETIME to ns since the Unix epoch; earlier times clamp to it. */
static uint64_t etwbt_ns(int64_t filetime)
{
	if (filetime < ETWBT_FT_UNIX_EPOCH)
		return 0;
	return (uint64_t)(filetime - ETWBT_FT_UNIX_EPOCH) * 100;
}

/*
 * An event message of class @cls, with payload; NULL when @cls is not raw
 * and TDH cannot decode this event's payload (*@ret 0), or on failure.
 */
static bt_message *etwbt_event_msg(struct etwbt_iter *it,
				   struct etwbt_stream *s,
				   struct etwbt_class *cls,
				   const struct etw_etl_event *ev,
				   const EVENT_RECORD *rec, int *ret)
{
	bt_field *payload;
	bt_message *msg;
	bt_event *e;

	msg = bt_message_event_create_with_packet_and_default_clock_snapshot(
		it->self, cls->ec, s->packet, it->last_ns);
	*ret = msg ? 0 : -ENOMEM;
	if (!msg)
		return NULL;
	e = bt_message_event_borrow_event(msg);
	payload = bt_event_borrow_payload_field(e);
	*ret = etwbt_common_context(bt_event_borrow_common_context_field(e), ev);
	if (!*ret)
		*ret = cls->tei ? etwbt_payload_fill(cls, rec, payload, &it->text) :
				  etwbt_raw_fill(ev, payload);
	if (!*ret)
		return msg;
	bt_message_put_ref(msg);
	if (*ret == -EBADMSG)
		*ret = 0;
	return NULL;
}

/* One record: its messages into the queue. */
static int etwbt_event(struct etwbt_iter *it, const struct etw_etl_event *ev,
		       unsigned int file)
{
	EVENT_HEADER_EXTENDED_DATA_ITEM ext[ETW_ETL_MAX_EXT_ITEMS];
	uint64_t ns = etwbt_ns(ev->timestamp);
	struct etwbt_stream *s;
	struct etwbt_class *cls;
	EVENT_RECORD rec;
	bt_message *msg;
	int ret;

	/*
	 * Times must not go back in a message sequence; the merge orders by
	 * time, but a buffer's own events keep the order they were logged
	 * in: an event older than the latest takes the latest's time.
	 */
	if (ns > it->last_ns)
		it->last_ns = ns;
	s = etwbt_stream(it, file, ev->processor_index, it->last_ns);
	if (!s)
		return -ENOMEM;
	etwbt_event_record(ev, &rec, ext);
	cls = etwbt_class_get(it->comp, ev, &rec, false);
	if (!cls)
		return -ENOMEM;
	msg = etwbt_event_msg(it, s, cls, ev, &rec, &ret);
	if (!msg && !ret) {
		/* This one's payload does not fit its schema: its bytes. */
		cls = etwbt_class_get(it->comp, ev, &rec, true);
		if (!cls)
			return -ENOMEM;
		msg = etwbt_event_msg(it, s, cls, ev, &rec, &ret);
	}
	return msg ? etwbt_push(it, msg) : ret;
}

/* Queue the next record's messages, or the end of a stream. */
static int etwbt_refill(struct etwbt_iter *it)
{
	struct etw_etl_event ev;
	struct etwbt_stream *s;
	unsigned int file;
	bt_message *msg;
	size_t i;
	int ret;

	it->qlen = it->qpos = 0;
	while (!it->ending) {
		ret = etw_etl_merge_next(it->merge, &ev, &file);
		if (ret == 0) {
			it->ending = true;
			break;
		}
		if (ret == -EBADMSG || ret == -EOPNOTSUPP) {
			it->bad++;
			continue;
		}
		if (ret < 0)
			return ret;
		if (!etwbt_is_metadata(&ev))
			return etwbt_event(it, &ev, file);
	}
	for (i = 0; i < it->nstreams; i++) {
		s = &it->streams[i];
		if (!s->begun)
			continue;
		s->begun = false;
		if (etwbt_push(it,
			bt_message_packet_end_create_with_default_clock_snapshot(
				it->self, s->packet, it->last_ns)))
			return -ENOMEM;
		msg = bt_message_stream_end_create(it->self, s->stream);
		if (msg)
			bt_message_stream_end_set_default_clock_snapshot(msg,
				it->last_ns);
		return etwbt_push(it, msg);
	}
	return 0;
}

/* Skipped data is a warning: the rest of the files was still read. */
static void etwbt_report_bad(struct etwbt_iter *it)
{
	if (it->bad && it->comp->log_level <= BT_LOGGING_LEVEL_WARNING)
		fprintf(stderr,
			"source.etw.etl: %llu corrupt or unreadable buffers or records skipped\n",
			(unsigned long long)it->bad);
	it->bad = 0;
}

/**
 * etwbt_iter_next - the next messages
 * @self: the iterator
 * @msgs: out: the messages
 * @capacity: room in @msgs
 * @count: out: messages put in @msgs
 *
 * Return: OK with messages, END when every stream has ended, ERROR or
 * MEMORY_ERROR.
 */
bt_message_iterator_class_next_method_status
etwbt_iter_next(bt_self_message_iterator *self, bt_message_array_const msgs,
		uint64_t capacity, uint64_t *count)
{
	struct etwbt_iter *it = bt_self_message_iterator_get_data(self);
	int ret = 0;

	*count = 0;
	while (*count < capacity && !it->error) {
		if (it->qpos == it->qlen) {
			it->error = etwbt_refill(it);
			if (!it->qlen)
				break;
		}
		msgs[(*count)++] = it->queue[it->qpos++];
	}
	if (*count)
		return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK;
	ret = it->error;
	if (ret == -ENOMEM)
		return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_MEMORY_ERROR;
	if (ret) {
		ETWBT_ITER_ERROR(it, "reading ETL data: %s", strerror(-ret));
		return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_ERROR;
	}
	etwbt_report_bad(it);
	return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_END;
}

/**
 * etwbt_iter_can_seek_beginning - the iterator can always start over
 * @self: the iterator
 * @can_seek: out: true
 *
 * With it, babeltrace2 also seeks to a time (flt.utils.trimmer,
 * --begin): it starts over and skips what comes before the time.
 *
 * Return: OK.
 */
bt_message_iterator_class_can_seek_beginning_method_status
etwbt_iter_can_seek_beginning(bt_self_message_iterator *self,
			      bt_bool *can_seek)
{
	*can_seek = BT_TRUE;
	return BT_MESSAGE_ITERATOR_CLASS_CAN_SEEK_BEGINNING_METHOD_STATUS_OK;
}

/**
 * etwbt_iter_seek_beginning - start over from the files' first events
 * @self: the iterator
 *
 * The streams begin again with their next event, each with a new packet;
 * the messages not handed out yet are dropped.
 *
 * Return: OK, ERROR or MEMORY_ERROR.
 */
bt_message_iterator_class_seek_beginning_method_status
etwbt_iter_seek_beginning(bt_self_message_iterator *self)
{
	struct etwbt_iter *it = bt_self_message_iterator_get_data(self);
	struct etw_etl_merge *m;
	size_t i;
	int ret;

	ret = etw_etl_merge_open(it->readers, it->comp->npaths, &m);
	if (ret == -ENOMEM)
		return BT_MESSAGE_ITERATOR_CLASS_SEEK_BEGINNING_METHOD_STATUS_MEMORY_ERROR;
	if (ret) {
		ETWBT_ITER_ERROR(it, "merging the files: %s", strerror(-ret));
		return BT_MESSAGE_ITERATOR_CLASS_SEEK_BEGINNING_METHOD_STATUS_ERROR;
	}
	etw_etl_merge_close(it->merge);
	it->merge = m;
	while (it->qpos < it->qlen)
		bt_message_put_ref(it->queue[it->qpos++]);
	it->qlen = it->qpos = 0;
	for (i = 0; i < it->nstreams; i++)
		it->streams[i].begun = false;
	it->ending = false;
	it->last_ns = 0;
	it->error = 0;
	it->bad = 0;
	return BT_MESSAGE_ITERATOR_CLASS_SEEK_BEGINNING_METHOD_STATUS_OK;
}
