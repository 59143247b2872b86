/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers for the etwctl host tests: run one command in a child process
 * with its stdout and stderr captured, as the shell would see them.
 */
#ifndef _CTL_TEST_H
#define _CTL_TEST_H

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "etwctl.h"
#include "testdata.h"

#define ETL_DIR		TESTDATA "/etl"
#define PRIMITIVE	ETL_DIR "/primitive-types.etl"
#define CLR		ETL_DIR "/clr-gc-events.etl"

/*
 * @status: the exit status
 * @out, @err: what was written to stdout and stderr (malloc'ed, NUL-ended)
 */
struct ctl_run {
	int status;
	char *out;
	char *err;
};

static inline char *ctl_slurp(FILE *f)
{
	long n;
	char *s;

	fflush(f);
	n = ftell(f);
	s = calloc(1, (size_t)n + 1);
	if (s && n > 0) {
		rewind(f);
		if (fread(s, 1, (size_t)n, f) != (size_t)n)
			s[0] = 0;
	}
	return s;
}

/* Run @fn(argc, argv) in a child; NULL-terminated @argv. */
static inline struct ctl_run ctl_run(int (*fn)(int, char **), char **argv)
{
	struct ctl_run r = { .status = -1 };
	FILE *out = tmpfile(), *err = tmpfile();
	int argc = 0, ws;
	pid_t pid;

	while (argv[argc])
		argc++;
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid == 0) {
		dup2(fileno(out), STDOUT_FILENO);
		dup2(fileno(err), STDERR_FILENO);
		ws = fn(argc, argv);
		fflush(stdout);
		fflush(stderr);
		_exit(ws);
	}
	if (pid > 0 && waitpid(pid, &ws, 0) == pid && WIFEXITED(ws))
		r.status = WEXITSTATUS(ws);
	fseek(out, 0, SEEK_END);
	fseek(err, 0, SEEK_END);
	r.out = ctl_slurp(out);
	r.err = ctl_slurp(err);
	fclose(out);
	fclose(err);
	return r;
}

static inline void ctl_run_free(struct ctl_run *r)
{
	free(r->out);
	free(r->err);
}

static inline int ctl_lines(const char *s)
{
	int n = 0;

	for (; s && *s; s++)
		n += *s == '\n';
	return n;
}

#define CTL_ARGV(...)	((char *[]){ __VA_ARGS__, NULL })

#endif /* _CTL_TEST_H */
