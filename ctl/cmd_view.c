// SPDX-License-Identifier: GPL-2.0
/*
 * cmd_view.c: "etwctl view NAME": a real-time consumer that prints a
 * session's events as its buffers are sealed, until the session stops or
 * the user interrupts.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <string.h>

#include "etwctl.h"

static const char etwctl_view_usage[] =
"usage: etwctl view NAME [--format table|csv|json]\n"
"Print the events of session NAME as they arrive (buffers are delivered\n"
"when sealed: see --flush-timer), until the session stops or Ctrl-C.\n";

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

static int etwctl_view(const char *name, enum etwctl_format fmt)
{
	struct etwctl_source *src;
	struct etw_etl_event ev;
	bool first = true;
	int ret, status = 0;

	ret = etwctl_source_open_session(name, true, &src);
	if (ret == -ENOENT)
		return etwctl_fail("view", "no session named '%s'", name);
	if (ret)
		return etwctl_fail("view", "session '%s': %s", name,
				   strerror(-ret));
	etwctl_view_signals();
	setvbuf(stdout, NULL, _IOLBF, 0);
	etwctl_print_begin(stdout, fmt);
	while (!etwctl_view_stop && (ret = etwctl_source_next(src, &ev))) {
		if (ret == -EINTR)
			break;
		if (ret < 0) {
			status = etwctl_fail("view", "%s",
					     etwctl_errno_str(ret));
			break;
		}
		if (etwctl_event_is_metadata(&ev))
			continue;
		if (etwctl_print_event(stdout, fmt, &ev, first)) {
			status = etwctl_fail("view", "out of memory");
			break;
		}
		first = false;
	}
	etwctl_print_end(stdout, fmt);
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
		{ NULL, 0, NULL, 0 }
	};
	enum etwctl_format fmt = ETWCTL_FORMAT_TABLE;
	int c;

	etwctl_getopt_reset();
	while ((c = getopt_long(argc, argv, ":hf:", options, NULL)) != -1) {
		if (c == 'h')
			return etwctl_help(etwctl_view_usage);
		if (c == '?' || c == ':')
			return etwctl_bad_option("view", c, argv);
		if (etwctl_format_parse(optarg, &fmt))
			return etwctl_usage("view", "bad format '%s'", optarg);
	}
	if (argc - optind != 1)
		return etwctl_usage("view", "need exactly one session NAME");
	return etwctl_need_device("view") ?: etwctl_view(argv[optind], fmt);
}
