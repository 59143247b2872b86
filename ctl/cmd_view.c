// SPDX-License-Identifier: GPL-2.0
/*
 * cmd_view.c: "etwctl view NAME": a real-time consumer that prints a
 * session's events as its buffers are sealed, until the session stops or
 * the user interrupts, with dump's formats, columns and manifests; stacks
 * symbolised through the Image events the session delivered before them.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <string.h>

#include "etwctl.h"
#include "symbols.h"

static const char etwctl_view_usage[] =
"usage: etwctl view [options] NAME\n"
"Print the events of session NAME as they arrive (buffers are delivered\n"
"when sealed: see --flush-timer), until the session stops or Ctrl-C.\n"
"  -f, --format FMT     table (default), csv or json (one object a line)\n"
"      --fields LIST    the columns, in order (see 'etwctl dump --help')\n"
"      --manifest FILE  decode the events of FILE's providers (repeatable)\n"
"      --no-symbols     stacks as addresses, not module!function+0xoff\n"
"      --kallsyms FILE  name kernel addresses from FILE (/proc/kallsyms)\n";

enum {
	OPT_FIELDS = 0x100,
	OPT_MANIFEST,
	OPT_NO_SYMBOLS,
	OPT_KALLSYMS,
};

/* Set by SIGINT/SIGTERM; the blocked read() returns EINTR. */
static volatile sig_atomic_t etwctl_view_stop;

static void etwctl_view_signal(int sig)
{
	etwctl_view_stop = 1;
}

static void etwctl_view_signals(void)
{
	struct sigaction sa = { .sa_handler = etwctl_view_signal };

	/* No SA_RESTART: the consumer's read() must return. */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

/* One event: its image into the map (no look-ahead in a live session). */
static int etwctl_view_one(const struct etwctl_output *out,
			   const struct etw_etl_event *ev)
{
	int ret = out->symbols ? etwctl_image_event(out->symbols, ev) : 0;

	if (ret || etwctl_event_is_metadata(ev))
		return ret;
	return etwctl_print_event(stdout, out, ev);
}

static int etwctl_view(const char *name, const struct etwctl_output *out)
{
	struct etwctl_source *src;
	struct etw_etl_event ev;
	int ret, status = 0;

	ret = etwctl_source_open_session(name, true, &src);
	if (ret == -ENOENT)
		return etwctl_fail("view", "no session named '%s'", name);
	if (ret)
		return etwctl_fail("view", "session '%s': %s", name,
				   strerror(-ret));
	etwctl_view_signals();
	setvbuf(stdout, NULL, _IOLBF, 0);
	etwctl_print_begin(stdout, out);
	while (!etwctl_view_stop && (ret = etwctl_source_next(src, &ev))) {
		if (ret == -EINTR)
			break;
		if (ret < 0) {
			status = etwctl_fail("view", "%s",
					     etwctl_errno_str(ret));
			break;
		}
		if (etwctl_view_one(out, &ev)) {
			status = etwctl_fail("view", "out of memory");
			break;
		}
	}
	etwctl_source_close(src);
	return status;
}

/**
 * etwctl_cmd_view - "etwctl view NAME"
 * @argc: argument count
 * @argv: arguments
 *
 * Return: exit status.
 */
int etwctl_cmd_view(int argc, char **argv)
{
	static const struct option options[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "format", required_argument, NULL, 'f' },
		{ "fields", required_argument, NULL, OPT_FIELDS },
		{ "manifest", required_argument, NULL, OPT_MANIFEST },
		{ "no-symbols", no_argument, NULL, OPT_NO_SYMBOLS },
		{ "kallsyms", required_argument, NULL, OPT_KALLSYMS },
		{ NULL, 0, NULL, 0 }
	};
	enum etwctl_format fmt = ETWCTL_FORMAT_TABLE;
	struct etwctl_output out;
	const char *fields = NULL, *kallsyms = NULL;
	bool symbols = true;
	int c, ret;

	etwctl_getopt_reset();
	while ((c = getopt_long(argc, argv, ":hf:", options, NULL)) != -1) {
		if (c == 'h')
			return etwctl_help(etwctl_view_usage);
		if (c == '?' || c == ':')
			return etwctl_bad_option("view", c, argv);
		if (c == OPT_FIELDS) {
			fields = optarg;
		} else if (c == OPT_NO_SYMBOLS) {
			symbols = false;
		} else if (c == OPT_KALLSYMS) {
			kallsyms = optarg;
		} else if (c == OPT_MANIFEST) {
			ret = etwctl_load_manifest("view", optarg);
			if (ret)
				return ret;
		} else if (etwctl_format_parse(optarg, &fmt)) {
			return etwctl_usage("view", "bad format '%s'", optarg);
		}
	}
	if (argc - optind != 1)
		return etwctl_usage("view", "need exactly one session NAME");
	if (!symbols && kallsyms)
		return etwctl_usage("view", "give --kallsyms or --no-symbols, "
				    "not both");
	ret = etwctl_output_setup("view", &out, fmt, fields);
	if (ret)
		return ret;
	if (symbols)
		ret = etwctl_symbols_setup("view", kallsyms, &out.symbols);
	if (!ret)
		ret = etwctl_need_device("view") ?:
		      etwctl_view(argv[optind], &out);
	etwctl_symbols_free(out.symbols);
	etwctl_output_free(&out);
	return ret;
}
