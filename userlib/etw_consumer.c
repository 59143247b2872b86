// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * etw_consumer.c - OpenTrace, ProcessTrace and CloseTrace.
 *
 * A PROCESSTRACE_HANDLE names an open trace in a process-wide table (the
 * state the Windows API implies): either a real-time session, read from
 * a consumer file (ETW_IOC_CONSUME), or an .etl file, read through the
 * ETL reader.  Handles count up from 1 and are never reused, so a stale
 * handle is unknown rather than another trace.
 *
 * Events reach the callbacks as Windows delivers them: an EVENT_RECORD
 * with the consumer form of the extended items, the buffer's CPU and
 * logger id, EVENT_HEADER_FLAG_64_BIT_HEADER (or 32) derived from the
 * record's header type, and a FILETIME timestamp unless the trace asked
 * for raw timestamps.  Records in the kernel's own formats
 * (SYSTEM_TRACE_HEADER, PERFINFO) carry EVENT_HEADER_FLAG_CLASSIC_HEADER,
 * as Windows gives them, and their hook group's event class as ProviderId
 * (EventTraceGuid for the HEADER group, the log-file header event
 * first; etw_etl.c has the table).  Files are merged
 * across CPUs and files by time; real-time buffers are merged by time
 * across the buffers that have arrived.  Padding records
 * (ETW_PADDING_PROVIDER) are skipped.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/sysinfo.h>
#include <unistd.h>

#include "etw_controller.h"
#include "etw_etl.h"
#include "etw_lib.h"
#include "etw_tdh.h"
#include "evntcons.h"

#define ETW_CONS_MAX_OPEN	1024
#define ETW_CONS_MAX_HANDLES	64
#define ETW_CONS_RT_BATCH	64	/* buffers merged at a time */
/* FILETIME of the Unix epoch. */
#define ETW_CONS_EPOCH		116444736000000000ll

/*
 * @processing: ProcessTrace runs on the trace (under etw_cons_lock)
 * @closing: CloseTrace was called while it ran; ProcessTrace frees it
 */
struct etw_trace {
	uint64_t handle;
	bool realtime;
	bool processing;
	atomic_bool closing;
	EVENT_TRACE_LOGFILEW lf;
	uint32_t logger_id;
	int cfd;
	int wake_fd;
	int64_t boot_offset_ns;
	size_t bs;
	struct etw_etl_reader *reader;
};

static pthread_mutex_t etw_cons_lock = PTHREAD_MUTEX_INITIALIZER;
static struct etw_trace *etw_cons_table[ETW_CONS_MAX_OPEN];
static uint64_t etw_cons_next_handle = 1;

static const struct etw_guid etw_cons_padding = ETW_PADDING_PROVIDER;

_Static_assert(sizeof(EVENT_TRACE_LOGFILEA) == sizeof(EVENT_TRACE_LOGFILEW),
	       "the A and W logfile structs share one layout");
_Static_assert(sizeof(EVENT_DESCRIPTOR) ==
	       sizeof(struct etw_event_descriptor), "EVENT_DESCRIPTOR");

/* --- the handle table ---------------------------------------------------- */

static int etw_cons_slot(uint64_t handle)
{
	int i;

	for (i = 0; i < ETW_CONS_MAX_OPEN; i++)
		if (etw_cons_table[i] && etw_cons_table[i]->handle == handle)
			return i;
	return -1;
}

static uint64_t etw_cons_insert(struct etw_trace *t)
{
	uint64_t h = 0;
	int i;

	pthread_mutex_lock(&etw_cons_lock);
	for (i = 0; i < ETW_CONS_MAX_OPEN; i++) {
		if (!etw_cons_table[i]) {
			h = t->handle = etw_cons_next_handle++;
			etw_cons_table[i] = t;
			break;
		}
	}
	pthread_mutex_unlock(&etw_cons_lock);
	return h;
}

static void etw_cons_free(struct etw_trace *t)
{
	if (t->cfd >= 0)
		close(t->cfd);
	if (t->wake_fd >= 0)
		close(t->wake_fd);
	etw_etl_reader_close(t->reader);
	free(t);
}

/* --- OpenTrace ----------------------------------------------------------- */

static struct etw_trace *etw_cons_alloc(const EVENT_TRACE_LOGFILEW *lf)
{
	struct etw_trace *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->lf = *lf;
	t->cfd = -1;
	t->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (t->wake_fd < 0) {
		free(t);
		return NULL;
	}
	return t;
}

static int64_t etw_cons_rt_filetime(const struct etw_trace *t, uint64_t raw)
{
	return ((int64_t)raw + t->boot_offset_ns) / 100 + ETW_CONS_EPOCH;
}

static void etw_cons_rt_header(struct etw_trace *t,
			       const struct etw_session_args *a)
{
	TRACE_LOGFILE_HEADER *h = &t->lf.LogfileHeader;

	memset(h, 0, sizeof(*h));
	h->BufferSize = t->bs;
	h->NumberOfProcessors = get_nprocs_conf();
	h->LogFileMode = a->config.mode;
	h->PointerSize = sizeof(void *);
	h->TimerResolution = 1;
	h->PerfFreq.QuadPart = 1000000000;
	/* Readers divide by it, as for a file's (never 0). */
	h->CpuSpeedInMHz = etw_etl_cpu_speed_mhz("");
	h->StartTime.QuadPart = etw_cons_rt_filetime(t, a->start_time_ns);
	h->BootTime.QuadPart = etw_cons_rt_filetime(t, 0);
	h->ReservedFlags = ETW_ETL_CLOCK_QPC;
}

static ULONG etw_cons_open_realtime(struct etw_trace *t, const char *name)
{
	struct etw_info info = { .size = sizeof(info) };
	struct etw_consume_args c = { .size = sizeof(c) };
	struct etw_session_args a;
	int ret, fd;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	if (strlen(name) > ETW_MAX_NAME_LEN)
		return ERROR_WMI_INSTANCE_NOT_FOUND;
	strcpy(a.name, name);
	ret = etw_dev_ioctl(ETW_IOC_QUERY, &a);
	if (!ret)
		ret = etw_dev_ioctl(ETW_IOC_GET_INFO, &info);
	if (ret)
		return etw_win32_from_errno(ret);
	if (!(a.config.mode & ETW_MODE_REAL_TIME))
		return ERROR_WMI_INSTANCE_NOT_FOUND;
	c.logger_id = a.logger_id;
	c.flags = O_CLOEXEC | O_NONBLOCK;
	fd = etw_dev_fd();
	if (fd >= 0)
		fd = ioctl(fd, ETW_IOC_CONSUME, &c);
	if (fd < 0)
		return etw_win32_from_errno(-errno);
	t->realtime = true;
	t->cfd = fd;
	t->logger_id = a.logger_id;
	t->boot_offset_ns = info.boot_offset_ns;
	t->bs = (size_t)a.config.buffer_kb * 1024;
	etw_cons_rt_header(t, &a);
	return ERROR_SUCCESS;
}

static void etw_cons_file_header(struct etw_trace *t)
{
	const struct etw_etl_logfile_header *src =
		etw_etl_reader_header(t->reader);
	TRACE_LOGFILE_HEADER *h = &t->lf.LogfileHeader;

	_Static_assert(sizeof(*h) == sizeof(*src), "TRACE_LOGFILE_HEADER");
	memcpy(h, src, sizeof(*h));
	/* In a file these are not pointers. */
	h->LoggerName = NULL;
	h->LogFileName = NULL;
	t->bs = etw_etl_reader_buffer_size(t->reader);
}

static ULONG etw_cons_open_file(struct etw_trace *t, const char *path)
{
	int ret = etw_etl_reader_open(path, &t->reader);

	switch (-ret) {
	case 0:
		etw_cons_file_header(t);
		return ERROR_SUCCESS;
	case ENOENT:
		return ERROR_FILE_NOT_FOUND;
	case EACCES:
	case EPERM:
		return ERROR_ACCESS_DENIED;
	case ENOMEM:
		return ERROR_NOT_ENOUGH_MEMORY;
	default:
		return ERROR_BAD_PATHNAME;
	}
}

static ULONG etw_cons_open(EVENT_TRACE_LOGFILEW *lf, unsigned int char_size,
			   PROCESSTRACE_HANDLE *out)
{
	struct etw_trace *t;
	char *name;
	ULONG err;

	if (!lf || !lf->LogFileName == !lf->LoggerName)
		return ERROR_INVALID_PARAMETER;
	if (lf->LoggerName &&
	    !(lf->ProcessTraceMode & PROCESS_TRACE_MODE_REAL_TIME))
		return ERROR_INVALID_PARAMETER;
	name = etw_ctl_name_utf8(lf->LogFileName ? (void *)lf->LogFileName :
				 (void *)lf->LoggerName, char_size);
	t = name ? etw_cons_alloc(lf) : NULL;
	if (!t) {
		free(name);
		return ERROR_NOT_ENOUGH_MEMORY;
	}
	if (lf->LoggerName)
		err = etw_cons_open_realtime(t, name);
	else
		err = etw_cons_open_file(t, name);
	free(name);
	if (!err) {
		*out = etw_cons_insert(t);
		if (!*out)
			err = ERROR_NO_SYSTEM_RESOURCES;
	}
	if (err) {
		etw_cons_free(t);
		return err;
	}
	lf->LogfileHeader = t->lf.LogfileHeader;
	lf->BufferSize = t->bs;
	t->lf.BufferSize = t->bs;
	return ERROR_SUCCESS;
}

static PROCESSTRACE_HANDLE etw_cons_open_trace(EVENT_TRACE_LOGFILEW *lf,
					       unsigned int char_size)
{
	PROCESSTRACE_HANDLE h = INVALID_PROCESSTRACE_HANDLE;
	ULONG err = etw_cons_open(lf, char_size, &h);

	if (err) {
		SetLastError(err);
		return INVALID_PROCESSTRACE_HANDLE;
	}
	return h;
}

/**
 * OpenTraceA - open a real-time session or an .etl file for ProcessTrace
 * @Logfile: LoggerName (with PROCESS_TRACE_MODE_REAL_TIME) or LogFileName,
 *	the callbacks and the processing mode; LogfileHeader and BufferSize
 *	are filled in
 *
 * Return: a handle, or INVALID_PROCESSTRACE_HANDLE with the error in
 * GetLastError().
 */
PROCESSTRACE_HANDLE WMIAPI OpenTraceA(PEVENT_TRACE_LOGFILEA Logfile)
{
	return etw_cons_open_trace((EVENT_TRACE_LOGFILEW *)Logfile, 1);
}

/**
 * OpenTraceW - OpenTraceA() with UTF-16 names
 * @Logfile: as for OpenTraceA()
 *
 * Return: as OpenTraceA().
 */
PROCESSTRACE_HANDLE WMIAPI OpenTraceW(PEVENT_TRACE_LOGFILEW Logfile)
{
	return etw_cons_open_trace(Logfile, 2);
}

/* --- delivering one event ------------------------------------------------ */

/*
 * @start, @end: the FILETIME window, 0 for none
 * @cancelled: a BufferCallback returned FALSE
 */
struct etw_cons_run {
	struct etw_trace **traces;
	unsigned int count;
	int64_t start;
	int64_t end;
	bool cancelled;
};

static bool etw_cons_is_64(uint16_t header_type)
{
	switch (header_type) {
	case ETW_ETL_HT_SYSTEM64:
	case ETW_ETL_HT_COMPACT64:
	case ETW_ETL_HT_PERFINFO64:
	case ETW_ETL_HT_EVENT64:
	case ETW_ETL_HT_FULL64:
	case ETW_ETL_HT_INSTANCE64:
		return true;
	default:
		return false;
	}
}

/**
 * etw_event_width - the 32/64-bit flag ProcessTrace sets for a record
 * @ev: the record, as the ETL reader parsed it
 *
 * From the header type (a 32-bit program's EVENT_HEADER record is of
 * type ETW_ETL_HT_EVENT32), or for a message from the pointer size its
 * flags declare.  etwctl and the babeltrace2 plugin build their
 * EVENT_RECORDs with it too, so that TDH sizes pointers as here.
 *
 * Context: any thread.
 * Return: EVENT_HEADER_FLAG_64_BIT_HEADER or _32_, or 0 for a message
 * that declares neither.
 */
USHORT etw_event_width(const struct etw_etl_event *ev)
{
	if (ev->kind == ETW_ETL_KIND_MESSAGE) {
		if (ev->message_flags & TRACE_MESSAGE_POINTER64)
			return EVENT_HEADER_FLAG_64_BIT_HEADER;
		if (ev->message_flags & TRACE_MESSAGE_POINTER32)
			return EVENT_HEADER_FLAG_32_BIT_HEADER;
		return 0;
	}
	return etw_cons_is_64(ev->header_type) ?
	       EVENT_HEADER_FLAG_64_BIT_HEADER :
	       EVENT_HEADER_FLAG_32_BIT_HEADER;
}

static void etw_cons_header(const struct etw_etl_event *ev, int64_t ts,
			    EVENT_HEADER *h)
{
	h->Size = ev->size;
	h->HeaderType = ev->header_type;
	h->Flags = ev->flags | etw_event_width(ev);
	if (ev->processor_index > 0xff)
		h->Flags |= EVENT_HEADER_FLAG_PROCESSOR_INDEX;
	/* Kernel-format records reach consumers as classic events. */
	if (ev->kind == ETW_ETL_KIND_SYSTEM ||
	    ev->kind == ETW_ETL_KIND_PERFINFO)
		h->Flags |= EVENT_HEADER_FLAG_CLASSIC_HEADER;
	h->EventProperty = ev->event_property;
	h->ThreadId = ev->thread_id;
	h->ProcessId = ev->process_id;
	h->TimeStamp.QuadPart = ts;
	memcpy(&h->ProviderId, &ev->provider_id, sizeof(GUID));
	memcpy(&h->EventDescriptor, &ev->descriptor, sizeof(EVENT_DESCRIPTOR));
	h->ProcessorTime = ev->processor_time;
	memcpy(&h->ActivityId, &ev->activity_id, sizeof(GUID));
}

/*
 * A TraceEventInstance record's InstanceId, ParentInstanceId and
 * ParentGuid, which follow its EVENT_TRACE_HEADER, reach EVENT_RECORD
 * consumers as an EVENT_HEADER_EXT_TYPE_INSTANCE_INFO item.
 */
static void etw_cons_instance_item(EVENT_RECORD *r,
				   EVENT_HEADER_EXTENDED_DATA_ITEM *ext,
				   const struct etw_etl_event *ev)
{
	EVENT_HEADER_EXTENDED_DATA_ITEM *x = &ext[r->ExtendedDataCount++];

	memset(x, 0, sizeof(*x));
	x->ExtType = EVENT_HEADER_EXT_TYPE_INSTANCE_INFO;
	x->DataSize = sizeof(EVENT_EXTENDED_ITEM_INSTANCE);
	x->DataPtr = (uintptr_t)ev->record + sizeof(EVENT_TRACE_HEADER);
	r->EventHeader.Flags |= EVENT_HEADER_FLAG_EXTENDED_INFO;
}

static void etw_cons_record_cb(struct etw_trace *t,
			       const struct etw_etl_event *ev, int64_t ts)
{
	EVENT_HEADER_EXTENDED_DATA_ITEM ext[ETW_ETL_MAX_EXT_ITEMS];
	EVENT_RECORD r;
	uint32_t i;

	memset(&r, 0, sizeof(r));
	etw_cons_header(ev, ts, &r.EventHeader);
	r.BufferContext.ProcessorIndex = ev->processor_index;
	r.BufferContext.LoggerId = ev->logger_id;
	/* Only the items in use are cleared: this runs for every event. */
	for (i = 0; i < ev->ext_count; i++) {
		memset(&ext[i], 0, sizeof(ext[i]));
		ext[i].ExtType = ev->ext[i].type;
		ext[i].Linkage = i + 1 < ev->ext_count;
		ext[i].DataSize = ev->ext[i].size;
		ext[i].DataPtr = (uintptr_t)ev->ext[i].data;
	}
	r.ExtendedDataCount = ev->ext_count;
	if (ev->kind == ETW_ETL_KIND_INSTANCE)
		etw_cons_instance_item(&r, ext, ev);
	r.ExtendedData = r.ExtendedDataCount ? ext : NULL;
	r.UserDataLength = ev->user_data_len;
	r.UserData = (PVOID)ev->user_data;
	r.UserContext = t->lf.Context;
	t->lf.EventRecordCallback(&r);
}

static void etw_cons_classic_cb(struct etw_trace *t,
				const struct etw_etl_event *ev, int64_t ts)
{
	EVENT_TRACE *e = &t->lf.CurrentEvent;
	uint32_t size = sizeof(e->Header) + ev->user_data_len;

	memset(e, 0, sizeof(*e));
	e->Header.Size = size > 0xffff ? 0xffff : size;
	e->Header.Class.Type = ev->descriptor.opcode;
	e->Header.Class.Level = ev->descriptor.level;
	e->Header.Class.Version = ev->descriptor.version;
	e->Header.ThreadId = ev->thread_id;
	e->Header.ProcessId = ev->process_id;
	e->Header.TimeStamp.QuadPart = ts;
	memcpy(&e->Header.Guid, &ev->provider_id, sizeof(GUID));
	e->Header.ProcessorTime = ev->processor_time;
	e->InstanceId = ev->instance_id;
	e->ParentInstanceId = ev->parent_instance_id;
	memcpy(&e->ParentGuid, &ev->parent_guid, sizeof(GUID));
	e->MofData = (PVOID)ev->user_data;
	e->MofLength = ev->user_data_len;
	e->BufferContext.ProcessorIndex = ev->processor_index;
	e->BufferContext.LoggerId = ev->logger_id;
	t->lf.EventCallback(e);
}

static void etw_cons_deliver(struct etw_cons_run *run, struct etw_trace *t,
			     const struct etw_etl_event *ev, int64_t filetime)
{
	int64_t ts = filetime;

	if (!memcmp(&ev->provider_id, &etw_cons_padding, sizeof(GUID)))
		return;
	if ((run->start && filetime < run->start) ||
	    (run->end && filetime > run->end))
		return;
	if (t->lf.ProcessTraceMode & PROCESS_TRACE_MODE_RAW_TIMESTAMP)
		ts = (int64_t)ev->raw_timestamp;
	t->lf.CurrentTime = ts;
	if (t->lf.ProcessTraceMode & PROCESS_TRACE_MODE_EVENT_RECORD) {
		if (t->lf.EventRecordCallback)
			etw_cons_record_cb(t, ev, ts);
	} else if (t->lf.EventCallback) {
		etw_cons_classic_cb(t, ev, ts);
	}
}

/* After a buffer's events: FALSE from the callback stops ProcessTrace. */
static void etw_cons_buffer_done(struct etw_cons_run *run,
				 struct etw_trace *t, uint32_t filled)
{
	t->lf.BuffersRead++;
	t->lf.Filled = filled;
	if (t->lf.BufferCallback &&
	    !t->lf.BufferCallback(&t->lf))
		run->cancelled = true;
}

/* Paired with the release store in CloseTrace. */
static bool etw_cons_closing(const struct etw_trace *t)
{
	return atomic_load_explicit(&t->closing, memory_order_acquire);
}

/* --- real time ----------------------------------------------------------- */

struct etw_cons_rt_buf {
	uint8_t *mem;
	struct etw_etl_records it;
	struct etw_etl_event head;
	bool live;
};

/* Read what has arrived: 0 buffers and *eof when the session ended. */
static int etw_cons_rt_read(struct etw_trace *t, struct etw_cons_rt_buf *b,
			    bool *eof)
{
	int n = 0;
	ssize_t r;

	while (n < ETW_CONS_RT_BATCH) {
		r = etw_consume_read(t->cfd, b[n].mem, t->bs);
		if (r == -EAGAIN)
			break;
		if (r <= 0) {
			*eof = true;
			break;
		}
		if (etw_etl_records_init(&b[n].it, b[n].mem, t->bs, NULL))
			continue;
		b[n].live = etw_etl_records_next(&b[n].it, &b[n].head) == 1;
		n++;
	}
	return n;
}

static int etw_cons_rt_oldest(const struct etw_cons_rt_buf *b, int n)
{
	int i, best = -1;

	for (i = 0; i < n; i++)
		if (b[i].live && (best < 0 || b[i].head.raw_timestamp <
					      b[best].head.raw_timestamp))
			best = i;
	return best;
}

/*
 * Deliver a batch in time order; a buffer is done with its last event.
 * A cancelling BufferCallback ends it at once; CloseTrace lets it finish.
 */
static void etw_cons_rt_batch(struct etw_cons_run *run, struct etw_trace *t,
			      struct etw_cons_rt_buf *b, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (!b[i].live)
			etw_cons_buffer_done(run, t, b[i].it.end);
	while (!run->cancelled && (i = etw_cons_rt_oldest(b, n)) >= 0) {
		etw_cons_deliver(run, t, &b[i].head,
				 etw_cons_rt_filetime(t,
						      b[i].head.raw_timestamp));
		b[i].live = etw_etl_records_next(&b[i].it, &b[i].head) == 1;
		if (!b[i].live)
			etw_cons_buffer_done(run, t, b[i].it.end);
	}
}

static int etw_cons_rt_wait(struct etw_trace *t)
{
	struct pollfd p[2] = {
		{ .fd = t->cfd, .events = POLLIN },
		{ .fd = t->wake_fd, .events = POLLIN },
	};

	while (poll(p, 2, -1) < 0)
		if (errno != EINTR)
			return -errno;
	return 0;
}

static ULONG etw_cons_rt_loop(struct etw_cons_run *run, struct etw_trace *t,
			      struct etw_cons_rt_buf *b)
{
	bool eof = false;
	int n;

	while (!run->cancelled && !etw_cons_closing(t)) {
		n = etw_cons_rt_read(t, b, &eof);
		etw_cons_rt_batch(run, t, b, n);
		if (eof)
			break;
		if (!n && etw_cons_rt_wait(t))
			return ERROR_INVALID_FUNCTION;
	}
	return run->cancelled ? ERROR_CANCELLED : ERROR_SUCCESS;
}

static ULONG etw_cons_process_rt(struct etw_cons_run *run,
				 struct etw_trace *t)
{
	struct etw_cons_rt_buf *b = calloc(ETW_CONS_RT_BATCH, sizeof(*b));
	ULONG err = ERROR_NOT_ENOUGH_MEMORY;
	int i;

	for (i = 0; b && i < ETW_CONS_RT_BATCH; i++) {
		b[i].mem = malloc(t->bs);
		if (!b[i].mem)
			break;
	}
	if (b && i == ETW_CONS_RT_BATCH)
		err = etw_cons_rt_loop(run, t, b);
	for (i = 0; b && i < ETW_CONS_RT_BATCH; i++)
		free(b[i].mem);
	free(b);
	return err;
}

/* --- files --------------------------------------------------------------- */

/*
 * The merge does not say where buffers end, so the records of every
 * buffer are counted first, per (file, CPU) stream in the merge's order
 * (SequenceNumber): a buffer is done when that many of its stream's
 * events were delivered, and then the file's BufferCallback runs.
 */
struct etw_cons_buf {
	uint16_t cpu;
	uint64_t seq;
	uint64_t index;
	uint32_t records;
};

struct etw_cons_stream {
	unsigned int file;
	uint16_t cpu;
	const struct etw_cons_buf *bufs;
	size_t nbufs;
	size_t cur;
	uint32_t delivered;
};

struct etw_cons_files {
	struct etw_cons_buf *bufs;
	struct etw_cons_stream *streams;
	size_t nstreams;
};

static int etw_cons_buf_cmp(const void *a, const void *b)
{
	const struct etw_cons_buf *x = a, *y = b;

	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

static uint32_t etw_cons_count_records(const void *mem, size_t bs)
{
	struct etw_etl_records it;
	struct etw_etl_event ev;
	uint32_t n = 0;

	if (etw_etl_records_init(&it, mem, bs, NULL))
		return 0;
	while (etw_etl_records_next(&it, &ev) == 1)
		n++;
	return n;
}

static void etw_cons_count_file(struct etw_etl_reader *r,
				struct etw_cons_buf *bufs, void *mem)
{
	uint64_t i, n = etw_etl_reader_buffer_count(r);
	struct etw_buffer_header bh;

	for (i = 0; i < n; i++) {
		bufs[i].index = i;
		if (etw_etl_reader_buffer_header(r, i, &bh) ||
		    etw_etl_reader_buffer(r, i, mem))
			continue;	/* the merge skips it too */
		bufs[i].cpu = etw_etl_buffer_cpu(&bh);
		bufs[i].seq = bh.sequence_number;
		bufs[i].records = etw_cons_count_records(
			mem, etw_etl_reader_buffer_size(r));
	}
	qsort(bufs, n, sizeof(*bufs), etw_cons_buf_cmp);
}

static void etw_cons_make_streams(struct etw_cons_files *f, unsigned int file,
				  const struct etw_cons_buf *bufs, size_t n)
{
	struct etw_cons_stream *s = NULL;
	size_t i;

	for (i = 0; i < n; i++) {
		if (!i || bufs[i].cpu != bufs[i - 1].cpu) {
			s = &f->streams[f->nstreams++];
			s->file = file;
			s->cpu = bufs[i].cpu;
			s->bufs = &bufs[i];
		}
		s->nbufs++;
	}
}

static int etw_cons_files_init(struct etw_cons_files *f,
			       struct etw_trace **traces, unsigned int count)
{
	size_t total = 0, off = 0, n;
	unsigned int i;
	void *mem;

	for (i = 0; i < count; i++)
		total += etw_etl_reader_buffer_count(traces[i]->reader);
	f->bufs = calloc(total ? total : 1, sizeof(*f->bufs));
	f->streams = calloc(total ? total : 1, sizeof(*f->streams));
	if (!f->bufs || !f->streams)
		return -ENOMEM;
	for (i = 0; i < count; i++) {
		n = etw_etl_reader_buffer_count(traces[i]->reader);
		mem = malloc(traces[i]->bs);
		if (!mem)
			return -ENOMEM;
		etw_cons_count_file(traces[i]->reader, f->bufs + off, mem);
		free(mem);
		etw_cons_make_streams(f, i, f->bufs + off, n);
		off += n;
	}
	return 0;
}

/* Buffers of the stream whose events were all delivered are done. */
static void etw_cons_stream_advance(struct etw_cons_run *run,
				    struct etw_cons_stream *s)
{
	struct etw_trace *t = run->traces[s->file];

	while (s->cur < s->nbufs &&
	       s->delivered >= s->bufs[s->cur].records) {
		s->delivered -= s->bufs[s->cur].records;
		s->cur++;
		etw_cons_buffer_done(run, t, 0);
	}
}

static void etw_cons_file_event(struct etw_cons_run *run,
				struct etw_cons_files *f,
				const struct etw_etl_event *ev,
				unsigned int file)
{
	size_t i;

	etw_cons_deliver(run, run->traces[file], ev, ev->timestamp);
	for (i = 0; i < f->nstreams; i++) {
		if (f->streams[i].file == file &&
		    f->streams[i].cpu == ev->processor_index) {
			f->streams[i].delivered++;
			etw_cons_stream_advance(run, &f->streams[i]);
			break;
		}
	}
}

static ULONG etw_cons_file_loop(struct etw_cons_run *run,
				struct etw_etl_merge *m,
				struct etw_cons_files *f)
{
	struct etw_etl_event ev;
	unsigned int file, i;
	size_t s;
	int ret;

	for (s = 0; s < f->nstreams; s++)
		etw_cons_stream_advance(run, &f->streams[s]);
	for (;;) {
		for (i = 0; i < run->count; i++)
			if (etw_cons_closing(run->traces[i]))
				return ERROR_SUCCESS;
		if (run->cancelled)
			return ERROR_CANCELLED;
		ret = etw_etl_merge_next(m, &ev, &file);
		if (ret == 0)
			break;
		/* A corrupt buffer is skipped; the merge goes on after it. */
		if (ret == 1)
			etw_cons_file_event(run, f, &ev, file);
		else if (ret != -EBADMSG && ret != -EOPNOTSUPP)
			return etw_win32_from_errno(ret);
	}
	return run->cancelled ? ERROR_CANCELLED : ERROR_SUCCESS;
}

/*
 * Where buffers end matters only to a BufferCallback: BuffersRead and
 * Filled are read there, and only it can cancel.  Without one, the
 * first pass over the files is skipped.
 */
static bool etw_cons_buffer_callbacks(const struct etw_cons_run *run)
{
	unsigned int i;

	for (i = 0; i < run->count; i++)
		if (run->traces[i]->lf.BufferCallback)
			return true;
	return false;
}

static ULONG etw_cons_process_files(struct etw_cons_run *run)
{
	struct etw_etl_reader *readers[ETW_CONS_MAX_HANDLES];
	struct etw_cons_files f = { 0 };
	struct etw_etl_merge *m = NULL;
	unsigned int i;
	ULONG err;
	int ret = 0;

	for (i = 0; i < run->count; i++)
		readers[i] = run->traces[i]->reader;
	if (etw_cons_buffer_callbacks(run))
		ret = etw_cons_files_init(&f, run->traces, run->count);
	if (!ret)
		ret = etw_etl_merge_open(readers, run->count, &m);
	if (ret)
		err = ret == -ENOMEM ? ERROR_NOT_ENOUGH_MEMORY :
				       ERROR_BAD_PATHNAME;
	else
		err = etw_cons_file_loop(run, m, &f);
	etw_etl_merge_close(m);
	free(f.streams);
	free(f.bufs);
	return err;
}

/* --- ProcessTrace and CloseTrace ------------------------------------------ */

static ULONG etw_cons_claim(const PROCESSTRACE_HANDLE *h, ULONG count,
			   struct etw_trace **traces)
{
	unsigned int rt = 0;
	ULONG i, j;
	int slot;

	for (i = 0; i < count; i++) {
		slot = etw_cons_slot(h[i]);
		if (slot < 0)
			return ERROR_INVALID_HANDLE;
		traces[i] = etw_cons_table[slot];
		for (j = 0; j < i; j++)
			if (traces[j] == traces[i])
				return ERROR_INVALID_PARAMETER;
		if (traces[i]->processing)
			return ERROR_INVALID_PARAMETER;
		rt += traces[i]->realtime;
	}
	if (rt && count > 1)
		return ERROR_INVALID_PARAMETER;
	for (i = 0; i < count; i++)
		traces[i]->processing = true;
	return ERROR_SUCCESS;
}

static void etw_cons_release(struct etw_trace **traces, ULONG count)
{
	ULONG i;
	int slot;

	pthread_mutex_lock(&etw_cons_lock);
	for (i = 0; i < count; i++) {
		traces[i]->processing = false;
		if (!etw_cons_closing(traces[i]))
			continue;
		slot = etw_cons_slot(traces[i]->handle);
		etw_cons_table[slot] = NULL;
		etw_cons_free(traces[i]);
	}
	pthread_mutex_unlock(&etw_cons_lock);
}

static int64_t etw_cons_filetime(const FILETIME *ft)
{
	return (int64_t)((uint64_t)ft->dwHighDateTime << 32 |
			 ft->dwLowDateTime);
}

/**
 * ProcessTrace - deliver the events of open traces to their callbacks
 * @HandleArray: OpenTrace handles: one real-time session, or up to 64
 *	files (merged in time order)
 * @HandleCount: entries of @HandleArray
 * @StartTime: deliver no events before this FILETIME, optional
 * @EndTime: deliver no events after this FILETIME, optional
 *
 * Returns when every event was delivered (files), when the real-time
 * session stopped, or when CloseTrace was called on one of the handles.
 *
 * Return: ERROR_SUCCESS, ERROR_INVALID_PARAMETER, ERROR_BAD_LENGTH,
 * ERROR_INVALID_HANDLE, ERROR_INVALID_TIME (EndTime before StartTime) or
 * ERROR_CANCELLED (a BufferCallback returned FALSE).
 */
ULONG WMIAPI ProcessTrace(PPROCESSTRACE_HANDLE HandleArray,
			  ULONG HandleCount, LPFILETIME StartTime,
			  LPFILETIME EndTime)
{
	struct etw_trace *traces[ETW_CONS_MAX_HANDLES];
	struct etw_cons_run run = { .traces = traces, .count = HandleCount };
	ULONG err;

	if (!HandleArray)
		return ERROR_INVALID_PARAMETER;
	if (!HandleCount || HandleCount > ETW_CONS_MAX_HANDLES)
		return ERROR_BAD_LENGTH;
	if (StartTime)
		run.start = etw_cons_filetime(StartTime);
	if (EndTime)
		run.end = etw_cons_filetime(EndTime);
	if (run.start && run.end && run.end < run.start)
		return ERROR_INVALID_TIME;
	pthread_mutex_lock(&etw_cons_lock);
	err = etw_cons_claim(HandleArray, HandleCount, traces);
	pthread_mutex_unlock(&etw_cons_lock);
	if (err)
		return err;
	if (traces[0]->realtime)
		err = etw_cons_process_rt(&run, traces[0]);
	else
		err = etw_cons_process_files(&run);
	etw_cons_release(traces, HandleCount);
	return err;
}

/**
 * CloseTrace - close an OpenTrace handle
 * @TraceHandle: the handle
 *
 * May be called from a callback or another thread while ProcessTrace
 * runs on the handle: ProcessTrace then stops after the events it has
 * already read and frees the trace.
 *
 * Return: ERROR_SUCCESS, ERROR_CTX_CLOSE_PENDING (7007, success: ProcessTrace
 * is running) or ERROR_INVALID_HANDLE.
 */
ULONG WMIAPI CloseTrace(PROCESSTRACE_HANDLE TraceHandle)
{
	struct etw_trace *t;
	uint64_t one = 1;
	ULONG err;
	int slot;

	pthread_mutex_lock(&etw_cons_lock);
	slot = etw_cons_slot(TraceHandle);
	t = slot >= 0 ? etw_cons_table[slot] : NULL;
	if (!t || etw_cons_closing(t)) {
		err = ERROR_INVALID_HANDLE;
	} else if (t->processing) {
		/* Paired with the acquire load in etw_cons_closing(). */
		atomic_store_explicit(&t->closing, true, memory_order_release);
		/* Fails only when the counter is already non-zero. */
		(void)!write(t->wake_fd, &one, sizeof(one));
		err = ERROR_CTX_CLOSE_PENDING;
	} else {
		etw_cons_table[slot] = NULL;
		etw_cons_free(t);
		err = ERROR_SUCCESS;
	}
	pthread_mutex_unlock(&etw_cons_lock);
	return err;
}
