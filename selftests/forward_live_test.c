// SPDX-License-Identifier: GPL-2.0
/*
 * etwctl forward from a live session into systemd-journal-remote: every
 * event a file session records beside it arrives in the collector's
 * journal (selftests/forward_live.sh does the work; scripts/vm-run puts
 * journal-remote in the guest when the host has it).
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/wait.h>

#include "kselftest_harness.h"

#define JOURNAL_REMOTE	"/usr/lib/systemd/systemd-journal-remote"
#define SCRIPT		"/etw/selftests/forward_live.sh"
#define LOG		"/tmp/forward_live.log"

FIXTURE(fwd) {
	int unused;
};

FIXTURE_SETUP(fwd)
{
	if (access(JOURNAL_REMOTE, X_OK))
		SKIP(return, "no %s in the guest", JOURNAL_REMOTE);
}

FIXTURE_TEARDOWN(fwd)
{
}

/* The script's output, as comment lines of the harness's TAP. */
static void show_log(void)
{
	char line[512];
	FILE *f = fopen(LOG, "r");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		printf("# %s", line);
	fclose(f);
}

/* Twenty runs of ctl/examples/demo_provider under TCG take a while. */
TEST_F_TIMEOUT(fwd, live_session_to_journal, 600)
{
	int status = system("sh " SCRIPT " 20 > " LOG " 2>&1");

	show_log();
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

TEST_HARNESS_MAIN
