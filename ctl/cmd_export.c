// SPDX-License-Identifier: GPL-2.0
/*
 * cmd_export.c: "etwctl export --format chrome-json FILE...": the events
 * of ETL files in the Trace Event Format (the JSON object form with
 * "traceEvents") that Perfetto UI, chrome://tracing and speedscope open.
 *
 * Every event is an instant event on its thread, named by its schema
 * (TraceLogging event name, a manifest's event name or task and opcode)
 * or "provider/id",
 * at microseconds after the trace start, with its decoded fields as
 * "args".  Start and stop events (opcodes 1 and 2) of an activity are
 * the begin and end of an async slice whose id is the activity GUID.
 * Process and thread names come from the kernel's Process and Thread
 * events as metadata events.  The kernel's CSwitch records give each
 * thread's running slices ("B" at its switch in, "E" at its switch out).
 * Each event is written as it is read: the memory used does not grow
 * with the trace, only with its CPUs and threads.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "etwctl.h"

static const char etwctl_export_usage[] =
"usage: etwctl export --format chrome-json|speedscope|folded [options] FILE...\n"
"Write the events of ETL files (merged in time order) in the Chrome\n"
"Trace Event Format, for Perfetto UI, chrome://tracing and speedscope,\n"
"or their CPU samples (SampledProfile) and stacks as speedscope's file\n"
"format (a sampled profile per process and thread) or as folded stacks\n"
"(\"pid P;tid T;outermost;...;innermost WEIGHT\", for flamegraph.pl).\n"
"  -f, --format FMT     chrome-json, speedscope or folded\n"
"  -o, --output OUT     write to OUT instead of stdout\n"
"      --manifest XML   decode the events of this instrumentation\n"
"                       manifest's providers (may be repeated)\n"
"      --slices         events as zero-length slices (\"X\") instead of\n"
"                       instant events, for viewers that show only\n"
"                       slices (speedscope)\n";

/* EVENT_TRACE_TYPE_START, _END: an activity's first and last event. */
#define ETWCTL_OPCODE_START	1
#define ETWCTL_OPCODE_STOP	2
/* Kernel Process and Thread event types that name a process or thread. */
#define ETWCTL_OPCODE_DC_START	3
#define ETWCTL_OPCODE_DC_END	4
#define ETWCTL_OPCODE_SET_NAME	72
/* Thread group: CSwitch (NewThreadId, OldThreadId first). */
#define ETWCTL_OPCODE_CSWITCH	36

/* ProcessGuid and ThreadGuid, the kernel's event classes. */
static const struct etw_guid etwctl_process_guid = {
	0x3d6fa8d0, 0xfe05, 0x11d0,
	{ 0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c }
};
static const struct etw_guid etwctl_thread_guid = {
	0x3d6fa8d1, 0xfe05, 0x11d0,
	{ 0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c }
};

/*
 * What a CPU runs, as its CSwitch records said: @tid of process @pid,
 * whose running slice is open (@open) since the switch in.
 */
struct etwctl_oncpu {
	uint32_t tid;
	uint32_t pid;
	bool open;
};

/*
 * @out: where the trace goes
 * @start: FILETIME that ts 0 stands for
 * @slices: "X" events of no duration instead of "i"
 * @args, @args_text, @args_len: the event's "args" members, built in a
 *	memory stream reused for every event
 * @elements: elements of "traceEvents" written, to separate them
 * @events: events written, metadata events not counted
 * @last_ts: the latest event's time, where open running slices end
 * @cpus, @ncpus: each CPU's running thread, by processor index
 * @tids, @pids, @tid_slots, @ntids: the process of each thread seen
 *	(open addressing on the thread id; 0 marks a free slot)
 */
struct etwctl_export {
	FILE *out;
	int64_t start;
	bool slices;
	FILE *args;
	char *args_text;
	size_t args_len;
	uint64_t elements;
	uint64_t events;
	int64_t last_ts;
	struct etwctl_oncpu *cpus;
	size_t ncpus;
	uint32_t *tids;
	uint32_t *pids;
	size_t tid_slots;
	size_t ntids;
};

static bool etwctl_guid_eq(const struct etw_guid *a, const struct etw_guid *b)
{
	return !memcmp(a, b, sizeof(*a));
}

static bool etwctl_guid_zero(const struct etw_guid *g)
{
	static const struct etw_guid zero;

	return etwctl_guid_eq(g, &zero);
}

static void etwctl_guid_text(const struct etw_guid *g,
			     char out[ETWCTL_GUID_LEN])
{
	GUID guid;

	memcpy(&guid, g, sizeof(guid));
	etwctl_guid_format(&guid, out);
}

/*
 * The provider's name: its schema's, its traits', the kernel class', or
 * its GUID.
 */
static void etwctl_export_provider(const struct etw_etl_event *ev,
				   const struct etwctl_names *names, char *out,
				   size_t size)
{
	char g[ETWCTL_GUID_LEN];
	uint32_t i;

	if (*names->provider) {
		snprintf(out, size, "%s", names->provider);
		return;
	}
	for (i = 0; i < ev->ext_count; i++)
		if (ev->ext[i].type == ETW_EXT_PROV_TRAITS &&
		    !etwctl_traits_name(ev->ext[i].data, ev->ext[i].size, out,
					size))
			return;
	if (etwctl_guid_eq(&ev->provider_id, &etwctl_process_guid)) {
		snprintf(out, size, "Process");
		return;
	}
	if (etwctl_guid_eq(&ev->provider_id, &etwctl_thread_guid)) {
		snprintf(out, size, "Thread");
		return;
	}
	etwctl_guid_text(&ev->provider_id, g);
	snprintf(out, size, "%s", g);
}

/* Pointers in the event's data: 4 bytes for 32-bit writers. */
static size_t etwctl_ptr_size(const struct etw_etl_event *ev)
{
	switch (ev->header_type) {
	case ETW_ETL_HT_SYSTEM32:
	case ETW_ETL_HT_COMPACT32:
	case ETW_ETL_HT_PERFINFO32:
		return 4;
	}
	return ev->flags & EVENT_HEADER_FLAG_32_BIT_HEADER ? 4 : 8;
}

static uint32_t etwctl_le32(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Members of one "args" object, written as TDH decodes them. */
static void etwctl_export_field(void *ctx, const struct etwctl_field_text *f)
{
	struct etwctl_export *x = ctx;

	if (ftell(x->args))
		fputc(',', x->args);
	etwctl_json_string(x->args, f->name);
	fputc(':', x->args);
	if (f->quoted)
		etwctl_json_string(x->args, f->value);
	else
		fputs(f->value, x->args);
}

/* What cannot be decoded: a string-only event's text, or its bytes. */
static int etwctl_export_raw(struct etwctl_export *x,
			     const struct etw_etl_event *ev)
{
	struct etwctl_field_text f = { .name = "message", .name_len = 7,
				       .quoted = true };
	const uint8_t *p = ev->user_data;
	char *text;
	uint32_t i;

	if (!ev->user_data_len)
		return 0;
	if (ev->kind == ETW_ETL_KIND_EVENT &&
	    (ev->flags & ETW_EVENT_FLAG_STRING_ONLY)) {
		text = etw_etl_utf16_to_utf8(p, ev->user_data_len / 2);
		if (!text)
			return -ENOMEM;
		f.value = text;
		f.value_len = strlen(text);
		etwctl_export_field(x, &f);
		free(text);
		return 0;
	}
	fputs("\"data\":\"", x->args);
	for (i = 0; i < ev->user_data_len; i++) {
		fputc("0123456789abcdef"[p[i] >> 4], x->args);
		fputc("0123456789abcdef"[p[i] & 0xf], x->args);
	}
	fputc('"', x->args);
	return 0;
}

/*
 * The event's "args" members into x->args_text, and what its schema names
 * into @names (all "" without a schema).
 */
static int etwctl_export_decode(struct etwctl_export *x,
				const struct etw_etl_event *ev,
				struct etwctl_names *names)
{
	int ret;

	memset(names, 0, sizeof(*names));
	rewind(x->args);
	ret = etwctl_decode_event(ev, names, etwctl_export_field, x);
	if (ret == -ENOMEM)
		return ret;
	if (ret) {
		rewind(x->args);
		ret = etwctl_export_raw(x, ev);
		if (ret)
			return ret;
	}
	/*
	 * Flushed, the size is the position; the longer text of an earlier
	 * event may follow it, so it is ended here.
	 */
	if (fflush(x->args))
		return -ENOMEM;
	x->args_text[x->args_len] = 0;
	return 0;
}

/*
 * The schema's event name (TraceLogging, a manifest's name attribute),
 * else its task and opcode names, else "provider/id" (the hook type for
 * kernel records, which have no id).
 */
static void etwctl_export_name(const struct etw_etl_event *ev,
			       const struct etwctl_names *names,
			       const char *provider, char *out, size_t size)
{
	const char *task = names->task, *op = names->opcode;

	if (*names->event)
		snprintf(out, size, "%s", names->event);
	else if (*task || *op)
		snprintf(out, size, "%s%s%s", task, *task && *op ? "/" : "",
			 op);
	else
		snprintf(out, size, "%.200s/%u", provider,
			 ev->kind == ETW_ETL_KIND_EVENT ? ev->descriptor.id :
			 ev->descriptor.opcode);
}

/* FILETIME as microseconds after the start, to the 100 ns tick. */
static void etwctl_export_ts(struct etwctl_export *x, int64_t ft)
{
	int64_t d = ft - x->start;
	uint64_t a = d < 0 ? -(uint64_t)d : (uint64_t)d;

	fprintf(x->out, "%s%llu.%u", d < 0 ? "-" : "",
		(unsigned long long)(a / 10), (unsigned int)(a % 10));
}

/* Starts an element of "traceEvents", one a line. */
static void etwctl_export_element(struct etwctl_export *x)
{
	fputs(x->elements++ ? ",\n{" : "\n{", x->out);
}

static void etwctl_export_meta(struct etwctl_export *x, const char *what,
			       uint32_t pid, uint32_t tid, const char *name)
{
	etwctl_export_element(x);
	fprintf(x->out, "\"name\":\"%s\",\"ph\":\"M\",\"pid\":%u,"
		"\"tid\":%u,\"ts\":0,\"args\":{\"name\":", what, pid, tid);
	etwctl_json_string(x->out, name);
	fputs("}}", x->out);
}

/* NUL-terminated ANSI text at @off of the data, or NULL. */
static const char *etwctl_ansi_at(const struct etw_etl_event *ev, size_t off)
{
	const char *p = (const char *)ev->user_data + off;

	if (off >= ev->user_data_len ||
	    !memchr(p, 0, ev->user_data_len - off) || !*p)
		return NULL;
	return p;
}

/*
 * Process_TypeGroup1 (Start, DCStart, DCEnd): UniqueProcessKey, then
 * ProcessId, ParentId, SessionId, ExitStatus, DirectoryTableBase
 * (version 3 on), Flags (version 4 on), UserSID (TOKEN_USER, two
 * pointers, then the SID: 8 bytes and 4 per sub-authority) and
 * ImageFileName.
 */
static void etwctl_export_process(struct etwctl_export *x,
				  const struct etw_etl_event *ev)
{
	const uint8_t *p = ev->user_data;
	size_t ptr = etwctl_ptr_size(ev), off = ptr + 16;
	const char *image;

	if (ev->descriptor.opcode != ETWCTL_OPCODE_START &&
	    ev->descriptor.opcode != ETWCTL_OPCODE_DC_START &&
	    ev->descriptor.opcode != ETWCTL_OPCODE_DC_END)
		return;
	if (ev->descriptor.version >= 3)
		off += ptr;
	if (ev->descriptor.version >= 4)
		off += 4;
	if (off + 2 * ptr + 8 > ev->user_data_len)
		return;
	off += 2 * ptr + 8 + 4u * p[off + 2 * ptr + 1];
	image = etwctl_ansi_at(ev, off);
	if (image)
		etwctl_export_meta(x, "process_name", etwctl_le32(p + ptr), 0,
				   image);
}

/*
 * Thread SetName: ProcessId, ThreadId, ThreadName.  Thread_TypeGroup1 of
 * version 4 on ends with ThreadName after ProcessId, TThreadId, seven
 * pointers, SubProcessTag and four bytes of priorities and flags.
 */
static int etwctl_export_thread(struct etwctl_export *x,
				const struct etw_etl_event *ev)
{
	const uint8_t *p = ev->user_data;
	uint8_t op = ev->descriptor.opcode;
	size_t off;
	char *name;

	if (op == ETWCTL_OPCODE_SET_NAME)
		off = 8;
	else if ((op == ETWCTL_OPCODE_START || op == ETWCTL_OPCODE_DC_START) &&
		 ev->descriptor.version >= 4)
		off = 16 + 7 * etwctl_ptr_size(ev);
	else
		return 0;
	if (off + 2 > ev->user_data_len)
		return 0;
	name = etw_etl_utf16_to_utf8(p + off, (ev->user_data_len - off) / 2);
	if (!name)
		return -ENOMEM;
	if (*name)
		etwctl_export_meta(x, "thread_name", etwctl_le32(p),
				   etwctl_le32(p + 4), name);
	free(name);
	return 0;
}

/* Metadata events for the kernel records that name processes, threads. */
static int etwctl_export_names(struct etwctl_export *x,
			       const struct etw_etl_event *ev)
{
	if (ev->kind != ETW_ETL_KIND_SYSTEM)
		return 0;
	if (etwctl_guid_eq(&ev->provider_id, &etwctl_process_guid))
		etwctl_export_process(x, ev);
	else if (etwctl_guid_eq(&ev->provider_id, &etwctl_thread_guid))
		return etwctl_export_thread(x, ev);
	return 0;
}

/* The slot of thread @tid in x->tids: its own, or the free one it takes. */
static size_t etwctl_tid_slot(const struct etwctl_export *x, uint32_t tid)
{
	size_t i = (tid * 2654435761u) & (x->tid_slots - 1);

	while (x->tids[i] && x->tids[i] != tid)
		i = (i + 1) & (x->tid_slots - 1);
	return i;
}

/* Thread @tid is of process @pid; the table doubles at half full. */
static int etwctl_tid_learn(struct etwctl_export *x, uint32_t tid,
			    uint32_t pid)
{
	uint32_t *tids = x->tids, *pids = x->pids;
	size_t n = x->tid_slots, i;

	if (!tid || tid == UINT32_MAX || pid == UINT32_MAX)
		return 0;
	if (2 * (x->ntids + 1) > x->tid_slots) {
		x->tid_slots = n ? 2 * n : 1024;
		x->tids = calloc(x->tid_slots, sizeof(*x->tids));
		x->pids = calloc(x->tid_slots, sizeof(*x->pids));
		if (!x->tids || !x->pids) {
			free(x->tids);
			free(x->pids);
			x->tids = tids;
			x->pids = pids;
			x->tid_slots = n;
			return -ENOMEM;
		}
		for (i = 0; i < n; i++) {
			if (!tids[i])
				continue;
			x->tids[etwctl_tid_slot(x, tids[i])] = tids[i];
			x->pids[etwctl_tid_slot(x, tids[i])] = pids[i];
		}
		free(tids);
		free(pids);
	}
	i = etwctl_tid_slot(x, tid);
	x->ntids += !x->tids[i];
	x->tids[i] = tid;
	x->pids[i] = pid;
	return 0;
}

/*
 * The processes of threads, from each record's header and from the
 * kernel's Thread records (ProcessId, TThreadId first).
 */
static int etwctl_export_learn(struct etwctl_export *x,
			       const struct etw_etl_event *ev)
{
	const uint8_t *p = ev->user_data;
	int ret = etwctl_tid_learn(x, ev->thread_id, ev->process_id);

	if (!ret && ev->kind == ETW_ETL_KIND_SYSTEM &&
	    etwctl_guid_eq(&ev->provider_id, &etwctl_thread_guid) &&
	    ev->descriptor.opcode >= ETWCTL_OPCODE_START &&
	    ev->descriptor.opcode <= ETWCTL_OPCODE_DC_END &&
	    ev->descriptor.version >= 2 && ev->user_data_len >= 8)
		ret = etwctl_tid_learn(x, etwctl_le32(p + 4), etwctl_le32(p));
	return ret;
}

/* A running slice's begin or end on its thread, at @ts. */
static void etwctl_export_running(struct etwctl_export *x, char ph,
				  const struct etwctl_oncpu *c, int64_t ts,
				  size_t cpu)
{
	etwctl_export_element(x);
	fprintf(x->out, "\"name\":\"Running\",\"cat\":\"CSwitch\","
		"\"ph\":\"%c\",\"ts\":", ph);
	etwctl_export_ts(x, ts);
	fprintf(x->out, ",\"pid\":%u,\"tid\":%u,\"args\":{", c->pid, c->tid);
	if (ph == 'B')
		fprintf(x->out, "\"cpu\":%zu", cpu);
	fputs("}}", x->out);
}

/* Is @ev a CSwitch record, with its two thread ids? */
static bool etwctl_is_cswitch(const struct etw_etl_event *ev)
{
	return ev->kind == ETW_ETL_KIND_SYSTEM &&
	       etwctl_guid_eq(&ev->provider_id, &etwctl_thread_guid) &&
	       ev->descriptor.opcode == ETWCTL_OPCODE_CSWITCH &&
	       ev->descriptor.version >= 2 && ev->user_data_len >= 8;
}

/* A CSwitch ends the slice its CPU had open. */
static int etwctl_export_switch_out(struct etwctl_export *x,
				    const struct etw_etl_event *ev)
{
	size_t cpu = ev->processor_index, n = x->ncpus;
	struct etwctl_oncpu *cpus;

	if (!etwctl_is_cswitch(ev))
		return 0;
	if (cpu >= n) {
		cpus = realloc(x->cpus, (cpu + 1) * sizeof(*cpus));
		if (!cpus)
			return -ENOMEM;
		memset(cpus + n, 0, (cpu + 1 - n) * sizeof(*cpus));
		x->cpus = cpus;
		x->ncpus = cpu + 1;
	}
	if (x->cpus[cpu].open)
		etwctl_export_running(x, 'E', &x->cpus[cpu], ev->timestamp, cpu);
	x->cpus[cpu].open = false;
	return 0;
}

/*
 * ... and begins one for the thread it switches in, unless that is an
 * idle thread (0) or a thread of no known process.  A slice of the same
 * thread still open elsewhere (its switch out was lost) ends first.
 */
static void etwctl_export_switch_in(struct etwctl_export *x,
				    const struct etw_etl_event *ev)
{
	uint32_t tid = etwctl_le32(ev->user_data);
	struct etwctl_oncpu *c;
	size_t i;

	if (!etwctl_is_cswitch(ev) || !tid || !x->tid_slots)
		return;
	i = etwctl_tid_slot(x, tid);
	if (!x->tids[i])
		return;
	c = &x->cpus[ev->processor_index];
	c->tid = tid;
	c->pid = x->pids[i];
	for (i = 0; i < x->ncpus; i++) {
		if (x->cpus[i].open && x->cpus[i].tid == tid) {
			etwctl_export_running(x, 'E', &x->cpus[i],
					      ev->timestamp, i);
			x->cpus[i].open = false;
		}
	}
	etwctl_export_running(x, 'B', c, ev->timestamp, ev->processor_index);
	c->open = true;
}

/* The slices still open end with the trace. */
static void etwctl_export_switch_end(struct etwctl_export *x)
{
	size_t i;

	for (i = 0; i < x->ncpus; i++)
		if (x->cpus[i].open)
			etwctl_export_running(x, 'E', &x->cpus[i], x->last_ts,
					      i);
}

/* The phase and what it needs: scope, duration or activity id. */
static void etwctl_export_phase(struct etwctl_export *x,
				const struct etw_etl_event *ev)
{
	char id[ETWCTL_GUID_LEN];
	uint8_t op = ev->descriptor.opcode;

	if ((op == ETWCTL_OPCODE_START || op == ETWCTL_OPCODE_STOP) &&
	    !etwctl_guid_zero(&ev->activity_id)) {
		etwctl_guid_text(&ev->activity_id, id);
		fprintf(x->out, "\"ph\":\"%c\",\"id\":\"%s\"",
			op == ETWCTL_OPCODE_START ? 'b' : 'e', id);
	} else if (x->slices) {
		fputs("\"ph\":\"X\",\"dur\":0", x->out);
	} else {
		fputs("\"ph\":\"i\",\"s\":\"t\"", x->out);
	}
}

static int etwctl_export_event(struct etwctl_export *x,
			       const struct etw_etl_event *ev)
{
	char provider[256], name[256];
	struct etwctl_names names;
	int ret;

	ret = etwctl_export_decode(x, ev, &names);
	if (!ret)
		ret = etwctl_export_names(x, ev);
	if (!ret)
		ret = etwctl_export_learn(x, ev);
	if (!ret)
		ret = etwctl_export_switch_out(x, ev);
	if (ret)
		return ret;
	x->last_ts = ev->timestamp;
	etwctl_export_provider(ev, &names, provider, sizeof(provider));
	etwctl_export_name(ev, &names, provider, name, sizeof(name));
	etwctl_export_element(x);
	x->events++;
	fputs("\"name\":", x->out);
	etwctl_json_string(x->out, name);
	fputs(",\"cat\":", x->out);
	etwctl_json_string(x->out, provider);
	fputc(',', x->out);
	etwctl_export_phase(x, ev);
	fputs(",\"ts\":", x->out);
	etwctl_export_ts(x, ev->timestamp);
	fprintf(x->out, ",\"pid\":%u,\"tid\":%u,\"args\":{%s}}",
		ev->process_id, ev->thread_id, x->args_text);
	etwctl_export_switch_in(x, ev);
	return 0;
}

static int etwctl_export_run(struct etwctl_export *x,
			     struct etwctl_source *src)
{
	struct etw_etl_event ev;
	unsigned int bad = 0;
	int ret;

	x->start = etwctl_source_start_time(src);
	fputs("{\"traceEvents\":[", x->out);
	while ((ret = etwctl_source_next(src, &ev)) != 0) {
		/* Corrupt data is passed over; the rest is still written. */
		if (ret == -EBADMSG || ret == -EOPNOTSUPP) {
			bad++;
			continue;
		}
		if (ret < 0)
			break;
		etwctl_source_progress(src, "export", &ev);
		if (etwctl_event_is_metadata(&ev))
			continue;
		ret = etwctl_export_event(x, &ev);
		if (ret)
			break;
	}
	etwctl_progress_end();
	if (ret)
		return etwctl_fail("export", "%s", etwctl_errno_str(ret));
	etwctl_export_switch_end(x);
	fputs("\n],\"displayTimeUnit\":\"ns\"}\n", x->out);
	if (fflush(x->out) || ferror(x->out))
		return etwctl_fail("export", "writing output: %s",
				   strerror(errno));
	if (bad)
		return etwctl_fail("export", "%u corrupt or unreadable buffers "
				   "or records skipped", bad);
	return 0;
}

static int etwctl_export_files(struct etwctl_export *x, const char *output,
			       int argc, char **argv)
{
	struct etwctl_source *src;
	const char *bad;
	int ret;

	ret = etwctl_source_open_files(argv, (unsigned int)argc, &src, &bad);
	if (ret)
		return etwctl_fail("export", "%s: %s", bad ? bad : argv[0],
				   etwctl_errno_str(ret));
	x->out = output ? fopen(output, "w") : stdout;
	if (!x->out) {
		etwctl_source_close(src);
		return etwctl_fail("export", "%s: %s", output,
				   strerror(errno));
	}
	ret = etwctl_export_run(x, src);
	if (output && fclose(x->out) && !ret)
		ret = etwctl_fail("export", "%s: %s", output, strerror(errno));
	etwctl_source_close(src);
	return ret;
}

/* --format speedscope or folded: the samples, to @output or stdout. */
static int etwctl_export_to(const char *output, int argc, char **argv,
			    bool folded)
{
	FILE *out = output ? fopen(output, "w") : stdout;
	int ret;

	if (!out)
		return etwctl_fail("export", "%s: %s", output, strerror(errno));
	ret = etwctl_export_speedscope(out, argv, (unsigned int)argc, folded);
	if (output && fclose(out) && !ret)
		ret = etwctl_fail("export", "%s: %s", output, strerror(errno));
	return ret;
}

/**
 * etwctl_cmd_export - "etwctl export"
 * @argc: argument count, argv[0] is "export"
 * @argv: arguments
 *
 * Return: exit status.
 */
int etwctl_cmd_export(int argc, char **argv)
{
	static const struct option options[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "format", required_argument, NULL, 'f' },
		{ "output", required_argument, NULL, 'o' },
		{ "manifest", required_argument, NULL, 'm' },
		{ "slices", no_argument, NULL, 'S' },
		{ NULL, 0, NULL, 0 }
	};
	struct etwctl_export x = { 0 };
	const char *format = NULL, *output = NULL;
	int c, ret;

	etwctl_getopt_reset();
	while ((c = getopt_long(argc, argv, ":hf:o:", options, NULL)) != -1) {
		if (c == 'h')
			return etwctl_help(etwctl_export_usage);
		switch (c) {
		case 'f':
			format = optarg;
			break;
		case 'o':
			output = optarg;
			break;
		case 'S':
			x.slices = true;
			break;
		case 'm':
			ret = etwctl_load_manifest("export", optarg);
			if (ret)
				return ret;
			break;
		default:
			return etwctl_bad_option("export", c, argv);
		}
	}
	if (!format)
		return etwctl_usage("export", "no --format");
	if (strcasecmp(format, "chrome-json") &&
	    strcasecmp(format, "speedscope") && strcasecmp(format, "folded"))
		return etwctl_usage("export", "bad value '%s' for '--format'",
				    format);
	if (optind == argc)
		return etwctl_usage("export", "no input file");
	if (!strcasecmp(format, "speedscope") || !strcasecmp(format, "folded"))
		return etwctl_export_to(output, argc - optind, argv + optind,
					!strcasecmp(format, "folded"));
	x.args = open_memstream(&x.args_text, &x.args_len);
	if (!x.args)
		return etwctl_fail("export", "out of memory");
	ret = etwctl_export_files(&x, output, argc - optind, argv + optind);
	fclose(x.args);
	free(x.args_text);
	free(x.cpus);
	free(x.tids);
	free(x.pids);
	return ret;
}
