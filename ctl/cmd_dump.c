// SPDX-License-Identifier: GPL-2.0
/*
 * cmd_dump.c: "etwctl dump FILE... | --session NAME": print events as a
 * table, CSV or JSON, filtered by provider, id, level, keyword, process
 * and time, decoded with the manifests --manifest loads; stacks
 * symbolised through the trace's Image events, and with --stacks the
 * kernel logger's stack records joined to their events (stacks.c).
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "etwctl.h"
#include "stacks.h"
#include "symbols.h"

#define ETWCTL_MAX_IDS	64
/* stdout's buffer: glibc's setvbuf takes a size only with a buffer. */
static char etwctl_dump_buf[64 * 1024];

static const char etwctl_dump_usage[] =
"usage: etwctl dump [options] FILE...\n"
"       etwctl dump [options] --session NAME\n"
"Print the events of ETL files (merged in time order) or of a running\n"
"session (flushed first).\n"
"  -s, --session NAME   read the session's buffers instead of files\n"
"  -f, --format FMT     table (default), csv or json (one object a line)\n"
"      --fields LIST    the columns, in order: time, cpu, pid, tid,\n"
"                       provider, provider_guid, event, id, version,\n"
"                       channel, level, opcode, task, keywords, activity,\n"
"                       related_activity, fields (all the event's fields)\n"
"                       or fields.NAME (field NAME)\n"
"      --manifest FILE  decode the events of FILE's providers (repeatable)\n"
"      --provider P     only provider P: a GUID, *Name, or the provider\n"
"                       name the events carry (TraceLogging)\n"
"      --id N[,N...]    only these event ids\n"
"      --level N        only events of level N or more severe (lower)\n"
"      --keyword MASK   only events with a keyword bit in MASK\n"
"      --pid N          only events of process N\n"
"      --from T         only events at or after T\n"
"      --to T           only events at or before T\n"
"      --stacks         join the kernel logger's stack records (StackWalk,\n"
"                       stack keys) to their events, as their stack=\n"
"      --no-symbols     stacks as addresses, not module!function+0xoff\n"
"      --kallsyms FILE  name kernel addresses from FILE, a copy of\n"
"                       /proc/kallsyms of the boot the trace comes from\n"
"T is an ISO 8601 UTC time (2021-09-09T14:59:35.5Z) or seconds after the\n"
"start of the trace (1.5).\n";

/*
 * @provider: the --provider text; @guid is set when it names a GUID
 * @from_s, @to_s: the time texts, parsed once the trace start is known
 */
struct etwctl_filter {
	const char *provider;
	GUID guid;
	bool has_guid;
	uint64_t ids[ETWCTL_MAX_IDS];
	size_t nids;
	bool has_level;
	uint8_t level;
	uint64_t keyword;
	bool has_pid;
	uint32_t pid;
	const char *from_s;
	const char *to_s;
	int64_t from;
	int64_t to;
};

/*
 * @fields: the --fields text, parsed once the format is known
 * @kallsyms: the --kallsyms file, or NULL
 * @files, @nfiles: the input files, when not a session
 * @images_read: the files' Image events are in the image map
 * @stacks: with --stacks, the files' stacks: their keys' definitions,
 *	read before the events, and the window of stack records around
 *	each event
 */
struct etwctl_dump_opts {
	const char *session;
	enum etwctl_format format;
	const char *fields;
	bool no_symbols;
	bool join_stacks;
	struct etwctl_stacks *stacks;
	const char *kallsyms;
	char **files;
	unsigned int nfiles;
	bool images_read;
	struct etwctl_filter filter;
};

enum {
	OPT_PROVIDER = 0x100,
	OPT_ID,
	OPT_LEVEL,
	OPT_KEYWORD,
	OPT_PID,
	OPT_FROM,
	OPT_TO,
	OPT_FIELDS,
	OPT_MANIFEST,
	OPT_NO_SYMBOLS,
	OPT_KALLSYMS,
	OPT_STACKS,
};

static const struct option etwctl_dump_options[] = {
	{ "help", no_argument, NULL, 'h' },
	{ "session", required_argument, NULL, 's' },
	{ "format", required_argument, NULL, 'f' },
	{ "provider", required_argument, NULL, OPT_PROVIDER },
	{ "id", required_argument, NULL, OPT_ID },
	{ "level", required_argument, NULL, OPT_LEVEL },
	{ "keyword", required_argument, NULL, OPT_KEYWORD },
	{ "pid", required_argument, NULL, OPT_PID },
	{ "from", required_argument, NULL, OPT_FROM },
	{ "to", required_argument, NULL, OPT_TO },
	{ "fields", required_argument, NULL, OPT_FIELDS },
	{ "manifest", required_argument, NULL, OPT_MANIFEST },
	{ "no-symbols", no_argument, NULL, OPT_NO_SYMBOLS },
	{ "kallsyms", required_argument, NULL, OPT_KALLSYMS },
	{ "stacks", no_argument, NULL, OPT_STACKS },
	{ NULL, 0, NULL, 0 }
};

static int etwctl_filter_provider(struct etwctl_filter *f, const char *s)
{
	struct etwctl_provider_spec spec;

	if (etwctl_provider_spec_parse(s, &spec) || strchr(s, ':'))
		return -EINVAL;
	f->provider = s;
	f->guid = spec.guid;
	f->has_guid = spec.has_guid;
	return 0;
}

static int etwctl_dump_option(struct etwctl_dump_opts *o, int c,
			      const char *arg)
{
	struct etwctl_filter *f = &o->filter;
	uint64_t v;

	switch (c) {
	case 's':
		o->session = arg;
		return 0;
	case 'f':
		return etwctl_format_parse(arg, &o->format);
	case OPT_PROVIDER:
		return etwctl_filter_provider(f, arg);
	case OPT_ID:
		return etwctl_parse_list(arg, 0xffff, f->ids, ETWCTL_MAX_IDS,
					 &f->nids);
	case OPT_LEVEL:
		f->has_level = true;
		return etwctl_level_parse(arg, &f->level);
	case OPT_KEYWORD:
		return etwctl_parse_u64(arg, ~0ull, &f->keyword);
	case OPT_PID:
		f->has_pid = true;
		if (etwctl_parse_u64(arg, 0xffffffffu, &v))
			return -EINVAL;
		f->pid = (uint32_t)v;
		return 0;
	case OPT_FROM:
		f->from_s = arg;
		return 0;
	case OPT_TO:
		f->to_s = arg;
		return 0;
	case OPT_FIELDS:
		o->fields = arg;
		return 0;
	case OPT_NO_SYMBOLS:
		o->no_symbols = true;
		return 0;
	case OPT_KALLSYMS:
		o->kallsyms = arg;
		return 0;
	case OPT_STACKS:
		o->join_stacks = true;
		return 0;
	}
	return -EINVAL;
}

static bool etwctl_match_provider(const struct etwctl_filter *f,
				  const struct etw_etl_event *ev)
{
	char name[256];
	uint32_t i;

	if (f->has_guid)
		return !memcmp(&f->guid, &ev->provider_id, sizeof(f->guid));
	for (i = 0; i < ev->ext_count; i++) {
		if (ev->ext[i].type != ETW_EXT_PROV_TRAITS ||
		    etwctl_traits_name(ev->ext[i].data, ev->ext[i].size,
				       name, sizeof(name)))
			continue;
		return !strcasecmp(name, f->provider);
	}
	return false;
}

static bool etwctl_match_id(const struct etwctl_filter *f, uint16_t id)
{
	size_t i;

	for (i = 0; i < f->nids; i++)
		if (f->ids[i] == id)
			return true;
	return !f->nids;
}

static bool etwctl_filter_match(const struct etwctl_filter *f,
				const struct etw_etl_event *ev)
{
	if (f->provider && !etwctl_match_provider(f, ev))
		return false;
	if (!etwctl_match_id(f, ev->descriptor.id))
		return false;
	if (f->has_level && ev->descriptor.level > f->level)
		return false;
	if (f->keyword && !(ev->descriptor.keyword & f->keyword))
		return false;
	if (f->has_pid && ev->process_id != f->pid)
		return false;
	if (f->from_s && ev->timestamp < f->from)
		return false;
	return !f->to_s || ev->timestamp <= f->to;
}

static int etwctl_dump_times(struct etwctl_filter *f, int64_t start)
{
	if (f->from_s && etwctl_time_parse(f->from_s, start, &f->from))
		return etwctl_usage("dump", "bad --from time '%s'", f->from_s);
	if (f->to_s && etwctl_time_parse(f->to_s, start, &f->to))
		return etwctl_usage("dump", "bad --to time '%s'", f->to_s);
	return 0;
}

/*
 * The image map of files is filled when the first stack is printed, from
 * all their Image events: a rundown record after an event still names
 * what was mapped at its time, and a trace without stacks costs nothing.
 * A session's map grows as its events arrive (etwctl_dump_one()).
 */
static int etwctl_dump_symbols(struct etwctl_dump_opts *o,
			       struct etwctl_output *out,
			       const struct etw_etl_event *ev)
{
	if (o->session || !out->symbols || o->images_read ||
	    !etwctl_event_has_stack(ev))
		return 0;
	o->images_read = true;
	return etwctl_source_prepass(o->files, o->nfiles, out->symbols, NULL);
}

/*
 * With --stacks, an event as dump prints it: the stack its stack records
 * give as a STACK_TRACE64 item (in @copy), and, when its header has no
 * process and thread (SampledProfile's PERFINFO header), the stack's.
 */
static const struct etw_etl_event *
etwctl_dump_join(struct etwctl_dump_opts *o,
		 const struct etw_etl_event *ev, struct etw_etl_event *copy)
{
	struct etwctl_stack st;

	if (!o->stacks || ev->ext_count == ETW_ETL_MAX_EXT_ITEMS ||
	    !etwctl_stacks_find(o->stacks, ev, &st))
		return ev;
	*copy = *ev;
	copy->ext[copy->ext_count].type = EVENT_HEADER_EXT_TYPE_STACK_TRACE64;
	copy->ext[copy->ext_count].size = st.size;
	copy->ext[copy->ext_count++].data = st.item;
	if (!copy->process_id && !copy->thread_id) {
		copy->process_id = st.pid;
		copy->thread_id = st.tid;
	}
	return copy;
}

/* One event: a session's map fed, the event printed if the filter takes it. */
static int etwctl_dump_one(struct etwctl_dump_opts *o,
			   struct etwctl_output *out,
			   const struct etw_etl_event *ev)
{
	struct etw_etl_event copy;
	int ret = 0;

	/* Image events that are not shown still map their images. */
	if (o->session && out->symbols)
		ret = etwctl_image_event(out->symbols, ev);
	/* Joined stack records are shown under their events. */
	if (ret || etwctl_event_is_metadata(ev) ||
	    (o->stacks && etwctl_stacks_is_stack(ev)))
		return ret;
	ev = etwctl_dump_join(o, ev, &copy);
	if (!etwctl_filter_match(&o->filter, ev))
		return ret;
	return etwctl_dump_symbols(o, out, ev) ?:
	       etwctl_print_event(stdout, out, ev);
}

static int etwctl_dump_events(struct etwctl_source *src,
			      struct etwctl_dump_opts *o,
			      struct etwctl_output *out)
{
	/* Events on a terminal show progress by themselves. */
	bool progress = !isatty(STDOUT_FILENO);
	struct etw_etl_event ev;
	unsigned int bad = 0;
	int ret;

	/* Into a file or a pipe, fewer and larger writes. */
	if (progress)
		setvbuf(stdout, etwctl_dump_buf, _IOFBF,
			sizeof(etwctl_dump_buf));
	etwctl_print_begin(stdout, out);
	while ((ret = etwctl_source_next(src, &ev)) != 0) {
		/* Corrupt data is passed over; the rest is still shown. */
		if (ret == -EBADMSG || ret == -EOPNOTSUPP) {
			bad++;
			continue;
		}
		if (ret < 0) {
			etwctl_progress_end();
			return etwctl_fail("dump", "%s", etwctl_errno_str(ret));
		}
		if (progress)
			etwctl_source_progress(src, "dump", &ev);
		ret = etwctl_dump_one(o, out, &ev);
		if (ret) {
			etwctl_progress_end();
			return etwctl_fail("dump", "%s", etwctl_errno_str(ret));
		}
	}
	etwctl_progress_end();
	if (fflush(stdout))
		return etwctl_fail("dump", "writing output: %s",
				   strerror(errno));
	if (bad)
		return etwctl_fail("dump", "%u corrupt or unreadable buffers "
				   "or records skipped", bad);
	return 0;
}

/*
 * --stacks: the files' stack key definitions (and their images) read
 * first, as a key's frames may be given at the end of the trace; the
 * stack records then join their events as @src reads them.
 */
static int etwctl_dump_stacks(struct etwctl_dump_opts *o,
			      struct etwctl_output *out,
			      struct etwctl_source *src)
{
	int ret;

	o->stacks = etwctl_stacks_new();
	if (!o->stacks)
		return etwctl_fail("dump", "out of memory");
	o->images_read = true;
	ret = etwctl_source_prepass(o->files, o->nfiles, out->symbols,
				    o->stacks) ?:
	      etwctl_source_join(src, o->files, o->nfiles, o->stacks);
	if (ret)
		return etwctl_fail("dump", "%s", etwctl_errno_str(ret));
	return 0;
}

/* After the events: how many of their key references had no frames. */
static void etwctl_dump_unresolved(const struct etwctl_dump_opts *o)
{
	if (o->stacks && etwctl_stacks_unresolved(o->stacks))
		fprintf(stderr,
			"etwctl dump: %llu stack key references without their frames\n",
			(unsigned long long)etwctl_stacks_unresolved(o->stacks));
}

static int etwctl_dump_open(const struct etwctl_dump_opts *o, int argc,
			    char **argv, struct etwctl_source **src)
{
	const char *bad;
	int ret;

	if (o->session) {
		ret = etwctl_need_device("dump");
		if (ret)
			return ret;
		ret = etwctl_source_open_session(o->session, false, src);
		if (ret == -ENOENT)
			return etwctl_fail("dump", "no session named '%s'",
					   o->session);
		if (ret)
			return etwctl_fail("dump", "session '%s': %s",
					   o->session, strerror(-ret));
		return 0;
	}
	ret = etwctl_source_open_files(argv, (unsigned int)argc, src, &bad);
	if (ret)
		return etwctl_fail("dump", "%s: %s", bad ? bad : argv[0],
				   etwctl_errno_str(ret));
	return 0;
}

/**
 * etwctl_cmd_dump - "etwctl dump"
 * @argc: argument count, argv[0] is "dump"
 * @argv: arguments
 *
 * Return: exit status.
 */
int etwctl_cmd_dump(int argc, char **argv)
{
	struct etwctl_dump_opts o = { .format = ETWCTL_FORMAT_TABLE };
	struct etwctl_output out;
	struct etwctl_source *src;
	int c, ret;

	etwctl_getopt_reset();
	while ((c = getopt_long(argc, argv, ":hs:f:", etwctl_dump_options,
				NULL)) != -1) {
		if (c == 'h')
			return etwctl_help(etwctl_dump_usage);
		if (c == '?' || c == ':')
			return etwctl_bad_option("dump", c, argv);
		if (c == OPT_MANIFEST) {
			ret = etwctl_load_manifest("dump", optarg);
			if (ret)
				return ret;
			continue;
		}
		if (etwctl_dump_option(&o, c, optarg))
			return etwctl_usage("dump", "bad value '%s' for '%s'",
					    optarg, argv[optind - 1]);
	}
	argc -= optind;
	argv += optind;
	if (o.session && argc)
		return etwctl_usage("dump", "give files or --session, not both");
	if (!o.session && !argc)
		return etwctl_usage("dump", "no input file");
	if (o.no_symbols && o.kallsyms)
		return etwctl_usage("dump", "give --kallsyms or --no-symbols, "
				    "not both");
	if (o.join_stacks && o.session)
		return etwctl_usage("dump", "--stacks reads files, not a "
				    "session");
	o.files = argv;
	o.nfiles = (unsigned int)argc;
	ret = etwctl_output_setup("dump", &out, o.format, o.fields);
	if (ret)
		return ret;
	ret = o.no_symbols ? 0 : etwctl_symbols_setup("dump", o.kallsyms,
						      &out.symbols);
	if (!ret)
		ret = etwctl_dump_open(&o, argc, argv, &src);
	if (!ret) {
		ret = o.join_stacks ? etwctl_dump_stacks(&o, &out, src) : 0;
		if (!ret)
			ret = etwctl_dump_times(&o.filter,
						etwctl_source_start_time(src));
		if (!ret)
			ret = etwctl_dump_events(src, &o, &out);
		etwctl_source_close(src);
		etwctl_dump_unresolved(&o);
	}
	etwctl_stacks_free(o.stacks);
	etwctl_symbols_free(out.symbols);
	etwctl_output_free(&out);
	return ret;
}
