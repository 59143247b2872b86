// SPDX-License-Identifier: GPL-2.0
/*
 * common.c: what every etwctl command shares: one-line error reports,
 * number parsing, Win32 error names, a progress line for terminals and
 * the loading of instrumentation manifests.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <tdh.h>

#include "etw_tdh.h"
#include "etwctl.h"
#include "etw_lib.h"

static int etwctl_vreport(const char *cmd, int status, const char *fmt,
			  va_list ap)
{
	fprintf(stderr, "etwctl%s%s: ", cmd ? " " : "", cmd ? cmd : "");
	vfprintf(stderr, fmt, ap);
	if (status == ETWCTL_EXIT_USAGE)
		fprintf(stderr, " (see 'etwctl %s%s--help')", cmd ? cmd : "",
			cmd ? " " : "");
	fputc('\n', stderr);
	return status;
}

/**
 * etwctl_fail - report a failed operation
 * @cmd: the command, or NULL
 * @fmt: printf format of the message (no newline)
 *
 * Return: %ETWCTL_EXIT_RUNTIME.
 */
int etwctl_fail(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = etwctl_vreport(cmd, ETWCTL_EXIT_RUNTIME, fmt, ap);
	va_end(ap);
	return ret;
}

/**
 * etwctl_usage - report bad arguments
 * @cmd: the command, or NULL
 * @fmt: printf format of the message (no newline)
 *
 * Return: %ETWCTL_EXIT_USAGE.
 */
int etwctl_usage(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = etwctl_vreport(cmd, ETWCTL_EXIT_USAGE, fmt, ap);
	va_end(ap);
	return ret;
}

/**
 * etwctl_help - print a command's usage text on stdout
 * @usage: the text
 *
 * Return: 0, the exit status of "--help".
 */
int etwctl_help(const char *usage)
{
	fputs(usage, stdout);
	return 0;
}

/**
 * etwctl_getopt_reset - let the next getopt_long() call start afresh
 *
 * Commands parse their own options; the host tests run several commands
 * in one process, so the parser's state must not carry over.
 */
void etwctl_getopt_reset(void)
{
	/* glibc: 0 also reinitialises its internal state. */
	optind = 0;
	opterr = 0;
}

/**
 * etwctl_parse_u64 - parse a decimal or 0x-prefixed hexadecimal number
 * @s: the text; nothing may follow the number
 * @max: the largest value accepted
 * @out: out: the value
 *
 * Return: 0, or -EINVAL when @s is not a number, -ERANGE above @max.
 */
int etwctl_parse_u64(const char *s, uint64_t max, uint64_t *out)
{
	unsigned long long v;
	char *end;

	/* strtoull() would accept signs and leading blanks. */
	if (!s || !*s || *s == '-' || *s == '+' || isspace((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (*end)
		return -EINVAL;
	if (errno == ERANGE || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

/**
 * etwctl_parse_list - parse "N,N,..." numbers
 * @s: the text
 * @max: the largest value of one number
 * @out: out: the numbers
 * @cap: entries at @out
 * @count: out: numbers parsed
 *
 * Return: 0, -EINVAL for a malformed list, -ERANGE for a number above
 * @max, -E2BIG for more than @cap numbers.
 */
int etwctl_parse_list(const char *s, uint64_t max, uint64_t *out,
		      size_t cap, size_t *count)
{
	char *copy, *tok, *save = NULL;
	size_t n = 0;
	int ret = 0;

	if (!*s || s[strlen(s) - 1] == ',' || *s == ',' || strstr(s, ",,"))
		return -EINVAL;
	copy = strdup(s);
	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, ",", &save); tok && !ret;
	     tok = strtok_r(NULL, ",", &save)) {
		if (n == cap) {
			ret = -E2BIG;
			break;
		}
		ret = etwctl_parse_u64(tok, max, &out[n++]);
	}
	free(copy);
	*count = n;
	return ret;
}

static const struct {
	ULONG code;
	const char *text;
} etwctl_win32_names[] = {
	{ ERROR_SUCCESS, "success" },
	{ ERROR_INVALID_FUNCTION, "invalid function" },
	{ ERROR_FILE_NOT_FOUND, "file not found" },
	{ ERROR_PATH_NOT_FOUND, "path not found" },
	{ ERROR_ACCESS_DENIED, "access denied" },
	{ ERROR_INVALID_HANDLE, "invalid handle" },
	{ ERROR_NOT_ENOUGH_MEMORY, "not enough memory" },
	{ ERROR_OUTOFMEMORY, "out of memory" },
	{ ERROR_BAD_LENGTH, "bad length" },
	{ ERROR_NOT_SUPPORTED, "not supported" },
	{ ERROR_FILE_EXISTS, "file exists" },
	{ ERROR_INVALID_PARAMETER, "invalid parameter" },
	{ ERROR_DISK_FULL, "disk full" },
	{ ERROR_BAD_PATHNAME, "bad path name or file in use" },
	{ ERROR_ALREADY_EXISTS, "session already exists" },
	{ ERROR_MORE_DATA, "more data" },
	{ ERROR_NO_SYSTEM_RESOURCES, "too many sessions" },
	{ ERROR_TIMEOUT, "timed out" },
	{ ERROR_ACTIVE_CONNECTIONS, "session is already stopping" },
	{ ERROR_WMI_GUID_NOT_FOUND, "provider not found" },
	{ ERROR_WMI_INSTANCE_NOT_FOUND, "no such session" },
	{ ERROR_WMI_ALREADY_ENABLED, "already enabled" },
	{ ERROR_WMI_ALREADY_DISABLED, "already disabled" },
};

/**
 * etwctl_win32_str - a Win32 error code as words
 * @err: the code
 *
 * Return: static text; "error N" (in a static buffer) for other codes.
 */
const char *etwctl_win32_str(ULONG err)
{
	static char other[32];
	size_t i;

	for (i = 0; i < sizeof(etwctl_win32_names) /
			sizeof(etwctl_win32_names[0]); i++)
		if (etwctl_win32_names[i].code == err)
			return etwctl_win32_names[i].text;
	snprintf(other, sizeof(other), "Win32 error %lu", (unsigned long)err);
	return other;
}

/**
 * etwctl_errno_str - a negative errno from libetw's internals as words
 * @err: -errno
 *
 * Return: the strerror() text, or ETL-specific text for corrupt files.
 */
const char *etwctl_errno_str(int err)
{
	if (err == -EBADMSG)
		return "corrupt or truncated ETL data";
	if (err == -EOPNOTSUPP)
		return "compressed ETL buffers are not supported";
	return strerror(-err);
}

static struct timespec etwctl_progress_last;
static bool etwctl_progress_shown;

/**
 * etwctl_progress - show how far a long operation got, on a terminal
 * @what: what is being done
 * @done: units done
 * @total: units in all
 *
 * Prints at most four times a second, and only when stderr is a
 * terminal, so pipes and logs never see the line.
 */
void etwctl_progress(const char *what, uint64_t done, uint64_t total)
{
	/* Asked once: isatty() is a system call, and this runs per event. */
	static int tty = -1;
	struct timespec now;

	if (tty < 0)
		tty = isatty(STDERR_FILENO);
	if (!total || !tty)
		return;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (etwctl_progress_shown &&
	    (now.tv_sec - etwctl_progress_last.tv_sec) * 1000000000L +
	    (now.tv_nsec - etwctl_progress_last.tv_nsec) < 250000000L)
		return;
	etwctl_progress_last = now;
	etwctl_progress_shown = true;
	fprintf(stderr, "\r%s: %3u%%", what,
		(unsigned int)(done * 100 / total));
}

/**
 * etwctl_progress_end - erase the progress line, if one was shown
 */
void etwctl_progress_end(void)
{
	if (!etwctl_progress_shown)
		return;
	fputs("\r\033[K", stderr);
	etwctl_progress_shown = false;
}

/**
 * etwctl_need_device - open /dev/etw, or say why it cannot be opened
 * @cmd: the command, for the message
 *
 * Return: 0, or %ETWCTL_EXIT_RUNTIME after reporting the failure.
 */
int etwctl_need_device(const char *cmd)
{
	int fd = etw_dev_fd();

	if (fd >= 0)
		return 0;
	return etwctl_fail(cmd, "cannot open /dev/etw: %s (is etw.ko loaded?)",
			   strerror(-fd));
}

/**
 * etwctl_bad_option - report what getopt_long() rejected
 * @cmd: the command
 * @c: getopt_long()'s return: '?' unknown option, ':' missing value
 * @argv: the arguments getopt_long() scanned
 *
 * Return: %ETWCTL_EXIT_USAGE.
 */
int etwctl_bad_option(const char *cmd, int c, char **argv)
{
	const char *arg = argv[optind - 1];

	if (c == ':')
		return etwctl_usage(cmd, "option '%s' needs a value", arg);
	if (optopt && arg[0] == '-' && arg[1] != '-')
		return etwctl_usage(cmd, "unknown option '-%c'", optopt);
	return etwctl_usage(cmd, "unknown option '%s'", arg);
}

/*
 * TdhLoadManifest, with the line libetw writes for a bad manifest
 * ("libetw: FILE:LINE: what") kept in @msg instead of on stderr.
 */
static ULONG etwctl_tdh_load(PWSTR path, char *msg, size_t size)
{
	char *text = NULL;
	size_t len = 0;
	FILE *err = open_memstream(&text, &len);
	ULONG ret = etw_tdh_load_manifest(path, err);

	*msg = 0;
	if (err && !fclose(err) && text)
		snprintf(msg, size, "%.*s", (int)strcspn(text, "\n"), text);
	free(text);
	return ret;
}

/**
 * etwctl_load_manifest - load an instrumentation manifest for decoding
 * @cmd: the command, for the message
 * @path: the manifest file
 *
 * The events of its providers then decode to named fields, with the
 * names it gives for their provider, task, opcode, level and keywords.
 *
 * Return: 0, or the exit status after a one-line message naming the file
 * (and the line, for a manifest libetw rejects).
 */
int etwctl_load_manifest(const char *cmd, const char *path)
{
	static const char prefix[] = "libetw: ";
	size_t len = strlen(path), n;
	char msg[512];
	uint8_t *w;
	ULONG ret;

	if (!*path)
		return etwctl_usage(cmd, "empty --manifest path");
	/* UTF-16 takes no more units than UTF-8 takes bytes. */
	w = malloc(2 * (len + 1));
	if (!w)
		return etwctl_fail(cmd, "out of memory");
	n = etw_etl_utf8_to_utf16(path, w, len);
	w[2 * n] = 0;
	w[2 * n + 1] = 0;
	ret = etwctl_tdh_load((PWSTR)w, msg, sizeof(msg));
	free(w);
	if (ret == ERROR_SUCCESS)
		return 0;
	if (ret == ERROR_XML_PARSE_ERROR && *msg)
		return etwctl_fail(cmd, "%s", strncmp(msg, prefix,
						      sizeof(prefix) - 1) ?
				   msg : msg + sizeof(prefix) - 1);
	if (ret == ERROR_XML_PARSE_ERROR)
		return etwctl_fail(cmd, "%s: not a valid manifest", path);
	if (ret == ERROR_INVALID_PARAMETER)
		return etwctl_fail(cmd, "%s: manifest path too long", path);
	return etwctl_fail(cmd, "%s: %s", path, etwctl_win32_str(ret));
}
