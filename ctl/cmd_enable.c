// SPDX-License-Identifier: GPL-2.0
/*
 * cmd_enable.c: enable, disable and capture-state a provider on a
 * session (EnableTraceEx2), and set a session's disallow list for group
 * enables (TraceSetInformation(TraceSetDisallowList)).
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "etw_etl.h"
#include "etwctl.h"

static const char etwctl_enable_usage[] =
"usage: etwctl enable NAME PROVIDER[:KEYWORDS[:LEVEL]] [options]\n"
"Enable a provider on session NAME.  PROVIDER is a GUID, *Name (the GUID\n"
"EventSource and TraceLogging derive from Name) or the name of a\n"
"registered TraceLogging/EventSource provider.  KEYWORDS is the\n"
"MatchAnyKeyword (all when empty), LEVEL a number or critical, error,\n"
"warning, info, verbose (all when empty).\n"
"      --match-all MASK    MatchAllKeyword\n"
"      --event-ids N,...   only these event ids (at most 64)\n"
"      --exclude-ids N,... all but these event ids\n"
"      --pids N,...        only these processes (at most 8)\n"
"      --exe NAME;...      only processes of these programs\n"
"      --event-names N,... only these TraceLogging event names\n"
"      --exclude-names N,... all but these TraceLogging event names\n"
"      --ignore-keyword0   drop events whose keyword is 0\n"
"      --group             PROVIDER is a provider group GUID\n"
"      --extended ITEM,... add extended items to each event: sid, ts-id,\n"
"                          stack, process-start-key, event-key,\n"
"                          container-id\n"
"      --timeout MS        wait for providers to handle the enable\n";

static const char etwctl_disable_usage[] =
"usage: etwctl disable NAME PROVIDER [--group]\n"
"Disable a provider (or with --group a provider group) on session NAME.\n";

static const char etwctl_capture_usage[] =
"usage: etwctl capture-state NAME PROVIDER[:KEYWORDS[:LEVEL]] [--timeout MS]\n"
"Ask an enabled provider to log its state to session NAME.\n";

static const char etwctl_disallow_usage[] =
"usage: etwctl disallow NAME GROUP [PROVIDER...]\n"
"Keep the PROVIDERs out of enables of provider group GROUP on session\n"
"NAME.  The list is the session's: it replaces the previous one and\n"
"applies to every group enable; no PROVIDER clears it.\n";

enum {
	OPT_MATCH_ALL = 0x100,
	OPT_EVENT_IDS,
	OPT_EXCLUDE_IDS,
	OPT_PIDS,
	OPT_IGNORE_KW0,
	OPT_GROUP,
	OPT_TIMEOUT,
	OPT_EXTENDED,
	OPT_EXE,
	OPT_EVENT_NAMES,
	OPT_EXCLUDE_NAMES,
};

static const struct option etwctl_enable_options[] = {
	{ "help", no_argument, NULL, 'h' },
	{ "match-all", required_argument, NULL, OPT_MATCH_ALL },
	{ "event-ids", required_argument, NULL, OPT_EVENT_IDS },
	{ "exclude-ids", required_argument, NULL, OPT_EXCLUDE_IDS },
	{ "pids", required_argument, NULL, OPT_PIDS },
	{ "ignore-keyword0", no_argument, NULL, OPT_IGNORE_KW0 },
	{ "group", no_argument, NULL, OPT_GROUP },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "extended", required_argument, NULL, OPT_EXTENDED },
	{ "exe", required_argument, NULL, OPT_EXE },
	{ "event-names", required_argument, NULL, OPT_EVENT_NAMES },
	{ "exclude-names", required_argument, NULL, OPT_EXCLUDE_NAMES },
	{ NULL, 0, NULL, 0 }
};

/*
 * @allowed: the options this command takes (bit n: option 0x100 + n)
 * @ids: the EVENT_FILTER_EVENT_ID blob, built in place
 * @exe: --exe's list as UTF-16 with its NUL, @exe_size bytes (0: none)
 * @names: --event-names' or --exclude-names' EVENT_FILTER_EVENT_NAME,
 *	@names_size bytes (0: none)
 */
struct etwctl_enable_opts {
	unsigned int allowed;
	uint64_t match_all;
	uint64_t id_list[MAX_EVENT_FILTER_EVENT_ID_COUNT];
	size_t nids;
	bool ids_in;
	bool has_ids;
	uint64_t pid_list[MAX_EVENT_FILTER_PID_COUNT];
	size_t npids;
	WCHAR exe[MAX_EVENT_FILTER_DATA_SIZE / sizeof(WCHAR)];
	ULONG exe_size;
	union {
		EVENT_FILTER_EVENT_NAME f;
		char bytes[MAX_EVENT_FILTER_EVENT_NAME_SIZE];
	} names;
	ULONG names_size;
	ULONG properties;
	ULONG timeout;
};

#define ETWCTL_OPT_BIT(o)	(1u << ((o) - 0x100))

static int etwctl_enable_ids(struct etwctl_enable_opts *o, const char *s,
			     bool in)
{
	if (o->has_ids)
		return -EINVAL;
	o->has_ids = true;
	o->ids_in = in;
	return etwctl_parse_list(s, 0xffff, o->id_list,
				 MAX_EVENT_FILTER_EVENT_ID_COUNT, &o->nids);
}

/* --exe: the list as EXECUTABLE_NAME takes it, at most 1,024 bytes. */
static int etwctl_enable_exe(struct etwctl_enable_opts *o, const char *s)
{
	size_t max = sizeof(o->exe) / sizeof(WCHAR) - 1;
	size_t n = etw_etl_utf8_to_utf16(s, (uint8_t *)o->exe, max);

	if (!n || n > max)
		return -EINVAL;
	o->exe[n] = 0;
	o->exe_size = (n + 1) * sizeof(WCHAR);
	return 0;
}

/* --event-names, --exclude-names: "a,b" becomes the block's "a\0b\0". */
static int etwctl_enable_names(struct etwctl_enable_opts *o, const char *s,
			       bool in)
{
	size_t off = offsetof(EVENT_FILTER_EVENT_NAME, Names), len;
	USHORT count = 0;

	if (o->names_size)
		return -EINVAL;
	for (;;) {
		len = strcspn(s, ",");
		if (!len || len > 255 || off + len + 1 > sizeof(o->names))
			return -EINVAL;
		memcpy(o->names.bytes + off, s, len);
		o->names.bytes[off + len] = 0;
		off += len + 1;
		count++;
		if (!s[len])
			break;
		s += len + 1;
	}
	o->names.f.FilterIn = in;
	o->names.f.NameCount = count;
	o->names_size = off;
	return 0;
}

/* --extended's names of the EVENT_ENABLE_PROPERTY_* that add items. */
static const struct {
	const char *name;
	ULONG property;
} etwctl_extended[] = {
	{ "sid", EVENT_ENABLE_PROPERTY_SID },
	{ "ts-id", EVENT_ENABLE_PROPERTY_TS_ID },
	{ "stack", EVENT_ENABLE_PROPERTY_STACK_TRACE },
	{ "process-start-key", EVENT_ENABLE_PROPERTY_PROCESS_START_KEY },
	{ "event-key", EVENT_ENABLE_PROPERTY_EVENT_KEY },
	{ "container-id", EVENT_ENABLE_PROPERTY_SOURCE_CONTAINER_TRACKING },
};

#define ETWCTL_NEXTENDED	(sizeof(etwctl_extended) / sizeof(etwctl_extended[0]))

static int etwctl_enable_extended(struct etwctl_enable_opts *o,
				  const char *s)
{
	size_t i, len;

	for (;;) {
		len = strcspn(s, ",");
		for (i = 0; i < ETWCTL_NEXTENDED; i++)
			if (strlen(etwctl_extended[i].name) == len &&
			    !strncmp(s, etwctl_extended[i].name, len))
				break;
		if (i == ETWCTL_NEXTENDED)
			return -EINVAL;
		o->properties |= etwctl_extended[i].property;
		if (!s[len])
			return 0;
		s += len + 1;
	}
}

static int etwctl_enable_option(struct etwctl_enable_opts *o, int c,
				const char *arg)
{
	uint64_t v;

	if (!(o->allowed & ETWCTL_OPT_BIT(c)))
		return -EINVAL;
	switch (c) {
	case OPT_MATCH_ALL:
		return etwctl_parse_u64(arg, ~0ull, &o->match_all);
	case OPT_EVENT_IDS:
		return etwctl_enable_ids(o, arg, true);
	case OPT_EXCLUDE_IDS:
		return etwctl_enable_ids(o, arg, false);
	case OPT_PIDS:
		return etwctl_parse_list(arg, UINT32_MAX, o->pid_list,
					 MAX_EVENT_FILTER_PID_COUNT, &o->npids);
	case OPT_IGNORE_KW0:
		o->properties |= EVENT_ENABLE_PROPERTY_IGNORE_KEYWORD_0;
		return 0;
	case OPT_GROUP:
		o->properties |= EVENT_ENABLE_PROPERTY_PROVIDER_GROUP;
		return 0;
	case OPT_EXTENDED:
		return etwctl_enable_extended(o, arg);
	case OPT_EXE:
		return etwctl_enable_exe(o, arg);
	case OPT_EVENT_NAMES:
		return etwctl_enable_names(o, arg, true);
	case OPT_EXCLUDE_NAMES:
		return etwctl_enable_names(o, arg, false);
	case OPT_TIMEOUT:
		if (etwctl_parse_u64(arg, UINT32_MAX - 1, &v))
			return -EINVAL;
		o->timeout = (ULONG)v;
		return 0;
	}
	return -EINVAL;
}

/* Return: 0, -1 for --help, or the usage status. */
static int etwctl_enable_parse(const char *cmd, int argc, char **argv,
			       struct etwctl_enable_opts *o)
{
	int c;

	etwctl_getopt_reset();
	while ((c = getopt_long(argc, argv, ":h", etwctl_enable_options,
				NULL)) != -1) {
		if (c == 'h')
			return -1;
		if (c == '?' || c == ':')
			return etwctl_bad_option(cmd, c, argv);
		if (!(o->allowed & ETWCTL_OPT_BIT(c)))
			return etwctl_usage(cmd, "'%s' does not apply here",
					    argv[optind - 1]);
		if (etwctl_enable_option(o, c, optarg))
			return etwctl_usage(cmd, "bad value for '%s'",
					    argv[optind - 1]);
	}
	if (argc - optind != 2)
		return etwctl_usage(cmd, "need session NAME and PROVIDER");
	return 0;
}

/* The filter descriptors the options ask for; returns their count. */
static ULONG etwctl_enable_filters(const struct etwctl_enable_opts *o,
				   EVENT_FILTER_DESCRIPTOR *d,
				   EVENT_FILTER_EVENT_ID *ids, ULONG *pids)
{
	ULONG n = 0;
	size_t i;

	if (o->has_ids) {
		ids->FilterIn = o->ids_in;
		ids->Count = (USHORT)o->nids;
		for (i = 0; i < o->nids; i++)
			ids->Events[i] = (USHORT)o->id_list[i];
		d[n].Ptr = (uintptr_t)ids;
		d[n].Size = offsetof(EVENT_FILTER_EVENT_ID, Events) +
			    o->nids * sizeof(USHORT);
		d[n++].Type = EVENT_FILTER_TYPE_EVENT_ID;
	}
	if (o->npids) {
		for (i = 0; i < o->npids; i++)
			pids[i] = (ULONG)o->pid_list[i];
		d[n].Ptr = (uintptr_t)pids;
		d[n].Size = o->npids * sizeof(ULONG);
		d[n++].Type = EVENT_FILTER_TYPE_PID;
	}
	if (o->exe_size) {
		d[n].Ptr = (uintptr_t)o->exe;
		d[n].Size = o->exe_size;
		d[n++].Type = EVENT_FILTER_TYPE_EXECUTABLE_NAME;
	}
	if (o->names_size) {
		d[n].Ptr = (uintptr_t)&o->names;
		d[n].Size = o->names_size;
		d[n++].Type = EVENT_FILTER_TYPE_EVENT_NAME;
	}
	return n;
}

/* Session handle and provider GUID; 0 or the exit status. */
static int etwctl_enable_target(const char *cmd, const char *name,
				const char *provider, CONTROLTRACE_ID *id,
				struct etwctl_provider_spec *spec, GUID *guid)
{
	int ret;

	if (etwctl_provider_spec_parse(provider, spec))
		return etwctl_usage(cmd, "bad provider '%s'", provider);
	ret = etwctl_need_device(cmd);
	if (ret)
		return ret;
	ret = etwctl_session_handle(name, id);
	if (ret)
		return etwctl_fail(cmd, "session '%s': %s", name,
				   etwctl_win32_str((ULONG)ret));
	ret = etwctl_provider_resolve(spec, guid);
	if (ret == -ENOENT)
		return etwctl_fail(cmd, "no registered provider named '%s'",
				   spec->name);
	if (ret)
		return etwctl_fail(cmd, "listing providers: %s",
				   strerror(-ret));
	return 0;
}

static int etwctl_enable_run(const char *cmd, ULONG code, int argc,
			     char **argv, struct etwctl_enable_opts *o,
			     const char *usage)
{
	EVENT_FILTER_DESCRIPTOR d[4];
	struct {
		EVENT_FILTER_EVENT_ID f;
		USHORT more[MAX_EVENT_FILTER_EVENT_ID_COUNT];
	} ids;
	ULONG pids[MAX_EVENT_FILTER_PID_COUNT];
	ENABLE_TRACE_PARAMETERS params = {
		.Version = ENABLE_TRACE_PARAMETERS_VERSION_2,
		.EnableFilterDesc = d,
	};
	struct etwctl_provider_spec spec;
	CONTROLTRACE_ID id;
	GUID guid;
	ULONG err;
	int ret;

	ret = etwctl_enable_parse(cmd, argc, argv, o);
	if (ret < 0)
		return etwctl_help(usage);
	if (ret)
		return ret;
	ret = etwctl_enable_target(cmd, argv[optind], argv[optind + 1], &id,
				   &spec, &guid);
	if (ret)
		return ret;
	params.EnableProperty = o->properties;
	params.FilterDescCount = etwctl_enable_filters(o, d, &ids.f, pids);
	err = EnableTraceEx2(id, &guid, code, spec.level, spec.keywords,
			     o->match_all, o->timeout, &params);
	if (err)
		return etwctl_fail(cmd, "%s on session '%s': %s",
				   argv[optind + 1], argv[optind],
				   etwctl_win32_str(err));
	return 0;
}

/**
 * etwctl_cmd_enable - "etwctl enable NAME PROVIDER[:KEYWORDS[:LEVEL]]"
 * @argc: argument count
 * @argv: arguments
 *
 * Return: exit status.
 */
int etwctl_cmd_enable(int argc, char **argv)
{
	struct etwctl_enable_opts o = {
		.allowed = ETWCTL_OPT_BIT(OPT_MATCH_ALL) |
			   ETWCTL_OPT_BIT(OPT_EVENT_IDS) |
			   ETWCTL_OPT_BIT(OPT_EXCLUDE_IDS) |
			   ETWCTL_OPT_BIT(OPT_PIDS) |
			   ETWCTL_OPT_BIT(OPT_EXE) |
			   ETWCTL_OPT_BIT(OPT_EVENT_NAMES) |
			   ETWCTL_OPT_BIT(OPT_EXCLUDE_NAMES) |
			   ETWCTL_OPT_BIT(OPT_IGNORE_KW0) |
			   ETWCTL_OPT_BIT(OPT_EXTENDED) |
			   ETWCTL_OPT_BIT(OPT_GROUP) |
			   ETWCTL_OPT_BIT(OPT_TIMEOUT),
	};

	return etwctl_enable_run("enable", EVENT_CONTROL_CODE_ENABLE_PROVIDER,
				 argc, argv, &o, etwctl_enable_usage);
}

/**
 * etwctl_cmd_disable - "etwctl disable NAME PROVIDER"
 * @argc: argument count
 * @argv: arguments
 *
 * Return: exit status.
 */
int etwctl_cmd_disable(int argc, char **argv)
{
	struct etwctl_enable_opts o = {
		.allowed = ETWCTL_OPT_BIT(OPT_GROUP),
	};

	return etwctl_enable_run("disable",
				 EVENT_CONTROL_CODE_DISABLE_PROVIDER, argc,
				 argv, &o, etwctl_disable_usage);
}

/**
 * etwctl_cmd_capture_state - "etwctl capture-state NAME PROVIDER"
 * @argc: argument count
 * @argv: arguments
 *
 * Return: exit status.
 */
int etwctl_cmd_capture_state(int argc, char **argv)
{
	struct etwctl_enable_opts o = {
		.allowed = ETWCTL_OPT_BIT(OPT_TIMEOUT),
	};

	return etwctl_enable_run("capture-state",
				 EVENT_CONTROL_CODE_CAPTURE_STATE, argc, argv,
				 &o, etwctl_capture_usage);
}

/* The PROVIDER specs' GUIDs; 0 or the exit status. */
static int etwctl_disallow_guids(int n, const struct etwctl_provider_spec *s,
				 GUID *guids)
{
	int i, ret;

	for (i = 0; i < n; i++) {
		ret = etwctl_provider_resolve(&s[i], &guids[i]);
		if (ret == -ENOENT)
			return etwctl_fail("disallow",
					   "no registered provider named '%s'",
					   s[i].name);
		if (ret)
			return etwctl_fail("disallow", "listing providers: %s",
					   strerror(-ret));
	}
	return 0;
}

static int etwctl_disallow(const char *name, int n,
			   const struct etwctl_provider_spec *specs)
{
	GUID guids[ETW_MAX_DISALLOW];
	CONTROLTRACE_ID id;
	ULONG err;
	int ret;

	ret = etwctl_need_device("disallow");
	if (!ret)
		ret = etwctl_disallow_guids(n, specs, guids);
	if (ret)
		return ret;
	err = (ULONG)etwctl_session_handle(name, &id);
	if (!err)
		err = TraceSetInformation(id, TraceSetDisallowList, guids,
					  (ULONG)(n * sizeof(GUID)));
	if (err)
		return etwctl_fail("disallow", "session '%s': %s", name,
				   etwctl_win32_str(err));
	return 0;
}

/**
 * etwctl_cmd_disallow - "etwctl disallow NAME GROUP PROVIDER..."
 * @argc: argument count
 * @argv: arguments
 *
 * Return: exit status.
 */
int etwctl_cmd_disallow(int argc, char **argv)
{
	static const struct option options[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct etwctl_provider_spec *specs;
	const char *name;
	GUID group;
	int c, i, n, ret;

	etwctl_getopt_reset();
	while ((c = getopt_long(argc, argv, ":h", options, NULL)) != -1) {
		if (c == 'h')
			return etwctl_help(etwctl_disallow_usage);
		return etwctl_bad_option("disallow", c, argv);
	}
	if (argc - optind < 2)
		return etwctl_usage("disallow", "need session NAME and GROUP");
	if (etwctl_guid_parse(argv[optind + 1], &group))
		return etwctl_usage("disallow", "GROUP '%s' is not a GUID",
				    argv[optind + 1]);
	n = argc - optind - 2;
	if (n > ETW_MAX_DISALLOW)
		return etwctl_usage("disallow", "more than %d providers",
				    ETW_MAX_DISALLOW);
	specs = calloc((size_t)n + 1, sizeof(*specs));
	if (!specs)
		return etwctl_fail("disallow", "out of memory");
	ret = 0;
	name = argv[optind];
	argv += optind + 2;
	for (i = 0; i < n && !ret; i++) {
		if (etwctl_provider_spec_parse(argv[i], &specs[i]) ||
		    strchr(argv[i], ':'))
			ret = etwctl_usage("disallow", "bad provider '%s'",
					   argv[i]);
	}
	if (!ret)
		ret = etwctl_disallow(name, n, specs);
	free(specs);
	return ret;
}
