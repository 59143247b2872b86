// SPDX-License-Identifier: GPL-2.0
/*
 * etwctl: control etw sessions and providers, and read ETL files.
 *
 * "etwctl COMMAND [ARGS]"; every command has "--help".  Exit status: 0
 * success, 1 the operation failed, 2 bad arguments; errors are one line
 * on stderr.  Documentation/etwctl.rst is the manual.
 */
#include <string.h>

#include "etwctl.h"

static const struct etwctl_cmd etwctl_cmds[] = {
	{ "start", etwctl_cmd_start, "start a session (-f: log to a file)" },
	{ "stop", etwctl_cmd_stop, "stop a session, completing its file" },
	{ "flush", etwctl_cmd_flush, "seal and deliver a session's buffers" },
	{ "update", etwctl_cmd_update, "change a running session" },
	{ "query", etwctl_cmd_query, "print a session's properties" },
	{ "list", etwctl_cmd_list, "print every session" },
	{ "enable", etwctl_cmd_enable, "enable a provider on a session" },
	{ "disable", etwctl_cmd_disable, "disable a provider on a session" },
	{ "capture-state", etwctl_cmd_capture_state,
	  "ask a provider to log its state" },
	{ "disallow", etwctl_cmd_disallow,
	  "keep providers out of group enables" },
	{ "providers", etwctl_cmd_providers, "print registered providers" },
	{ "view", etwctl_cmd_view, "print a session's events live" },
	{ "dump", etwctl_cmd_dump, "print events of ETL files or a session" },
	{ "merge", etwctl_cmd_merge, "merge ETL files in time order" },
	{ "stats", etwctl_cmd_stats, "count the events of ETL files" },
	{ "forward", etwctl_cmd_forward,
	  "send events to systemd-journal-remote" },
	{ "export", etwctl_cmd_export,
	  "write ETL files' events for trace viewers" },
	{ "top", etwctl_cmd_top,
	  "events/s, bytes/s and losses per provider and session, live" },
	{ "mc", etwctl_cmd_mc,
	  "write the header mc.exe writes for a manifest" },
};

#define ETWCTL_NCMDS	(sizeof(etwctl_cmds) / sizeof(etwctl_cmds[0]))

static int etwctl_main_usage(FILE *f)
{
	size_t i;

	fputs("usage: etwctl COMMAND [ARGS]\n"
	      "Commands ('etwctl COMMAND --help' for each):\n", f);
	for (i = 0; i < ETWCTL_NCMDS; i++)
		fprintf(f, "  %-14s %s\n", etwctl_cmds[i].name,
			etwctl_cmds[i].summary);
	return 0;
}

int main(int argc, char **argv)
{
	size_t i;

	if (argc < 2)
		return etwctl_usage(NULL, "no command");
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help"))
		return etwctl_main_usage(stdout);
	if (!strcmp(argv[1], "--version")) {
		printf("etwctl %s\n", ETW_VERSION);
		return 0;
	}
	for (i = 0; i < ETWCTL_NCMDS; i++)
		if (!strcmp(argv[1], etwctl_cmds[i].name))
			return etwctl_cmds[i].run(argc - 1, argv + 1);
	return etwctl_usage(NULL, "unknown command '%s'", argv[1]);
}
