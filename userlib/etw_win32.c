// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * etw_win32.c - the Win32 functions around ETW that consumers and
 * controllers call: time conversions, GUID strings, the command line,
 * FormatMessage for Win32 codes, LocalAlloc and friends.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <windows.h>
#include <shellapi.h>

/* FILETIME's epoch, 1601-01-01, is this many 100 ns before 1970's. */
#define EPOCH_DIFF_100NS	116444736000000000ULL
#define TICKS_PER_SEC		10000000ULL
/* Windows refuses FILETIMEs with the top bit set. */
#define FILETIME_MAX		0x7FFFFFFFFFFFFFFFULL

static uint64_t ft_get(const FILETIME *ft)
{
	return ((uint64_t)ft->dwHighDateTime << 32) | ft->dwLowDateTime;
}

static void ft_set(FILETIME *ft, uint64_t v)
{
	ft->dwLowDateTime = (DWORD)v;
	ft->dwHighDateTime = (DWORD)(v >> 32);
}

/* Days since 1601-01-01 of @y-@m-@d (proleptic Gregorian). */
static int64_t days_from_civil(int64_t y, unsigned int m, unsigned int d)
{
	int64_t era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	/* 584694: days from 0000-03-01, the eras' origin, to 1601-01-01. */
	return era * 146097 + doe - 584694;
}

static void civil_from_days(int64_t z, WORD *y, WORD *m, WORD *d)
{
	int64_t era, doe, yoe, doy, mp, yy;

	z += 584694;
	era = (z >= 0 ? z : z - 146096) / 146097;
	doe = z - era * 146097;
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	yy = yoe + era * 400;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	*d = (WORD)(doy - (153 * mp + 2) / 5 + 1);
	*m = (WORD)(mp < 10 ? mp + 3 : mp - 9);
	*y = (WORD)(yy + (*m <= 2));
}

static int leap(unsigned int y)
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

static unsigned int month_days(unsigned int y, unsigned int m)
{
	static const unsigned char days[] = {
		31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31,
	};

	return m == 2 && leap(y) ? 29 : days[m - 1];
}

static void ticks_to_st(uint64_t t, SYSTEMTIME *st)
{
	int64_t days = (int64_t)(t / (86400 * TICKS_PER_SEC));
	uint64_t rem = t % (86400 * TICKS_PER_SEC);

	civil_from_days(days, &st->wYear, &st->wMonth, &st->wDay);
	/* 1601-01-01 was a Monday. */
	st->wDayOfWeek = (WORD)((days + 1) % 7);
	st->wHour = (WORD)(rem / (3600 * TICKS_PER_SEC));
	st->wMinute = (WORD)(rem / (60 * TICKS_PER_SEC) % 60);
	st->wSecond = (WORD)(rem / TICKS_PER_SEC % 60);
	st->wMilliseconds = (WORD)(rem / 10000 % 1000);
}

static int st_valid(const SYSTEMTIME *st)
{
	return st->wYear >= 1601 && st->wYear <= 30827 && st->wMonth >= 1 &&
		st->wMonth <= 12 && st->wDay >= 1 &&
		st->wDay <= month_days(st->wYear, st->wMonth) &&
		st->wHour < 24 && st->wMinute < 60 && st->wSecond < 60 &&
		st->wMilliseconds < 1000;
}

static uint64_t st_to_ticks(const SYSTEMTIME *st)
{
	return ((uint64_t)days_from_civil(st->wYear, st->wMonth, st->wDay) *
		86400 + st->wHour * 3600U + st->wMinute * 60U + st->wSecond) *
		TICKS_PER_SEC + st->wMilliseconds * 10000ULL;
}

BOOL WINAPI FileTimeToSystemTime(const FILETIME *ft, LPSYSTEMTIME st)
{
	if (!ft || !st || ft_get(ft) > FILETIME_MAX) {
		SetLastError(ERROR_INVALID_PARAMETER);
		return FALSE;
	}
	ticks_to_st(ft_get(ft), st);
	return TRUE;
}

BOOL WINAPI SystemTimeToFileTime(const SYSTEMTIME *st, LPFILETIME ft)
{
	if (!st || !ft || !st_valid(st)) {
		SetLastError(ERROR_INVALID_PARAMETER);
		return FALSE;
	}
	ft_set(ft, st_to_ticks(st));
	return TRUE;
}

VOID WINAPI GetSystemTimeAsFileTime(LPFILETIME ft)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ft_set(ft, (uint64_t)ts.tv_sec * TICKS_PER_SEC + ts.tv_nsec / 100 +
	       EPOCH_DIFF_100NS);
}

VOID WINAPI GetSystemTime(LPSYSTEMTIME st)
{
	FILETIME ft;

	GetSystemTimeAsFileTime(&ft);
	ticks_to_st(ft_get(&ft), st);
}

/*
 * The ticks of @year's transition @rule (a TIME_ZONE_INFORMATION date:
 * wDay is the week, 5 the last, of weekday wDayOfWeek in wMonth; or, with
 * wYear set, that very date), in the local time of the rule.
 */
static uint64_t rule_ticks(const SYSTEMTIME *rule, unsigned int year)
{
	SYSTEMTIME d = *rule;
	unsigned int first_dow, day, last;

	d.wYear = (WORD)year;
	if (!rule->wYear) {
		first_dow = (unsigned int)((days_from_civil(year, rule->wMonth,
							     1) + 1) % 7);
		day = 1 + (rule->wDayOfWeek + 7 - first_dow) % 7 +
			7 * (rule->wDay - 1);
		last = month_days(year, rule->wMonth);
		while (day > last)
			day -= 7;
		d.wDay = (WORD)day;
	}
	d.wDayOfWeek = 0;
	return st_to_ticks(&d);
}

static int rule_valid(const SYSTEMTIME *r)
{
	return r->wMonth >= 1 && r->wMonth <= 12 && r->wDayOfWeek <= 6 &&
		r->wDay >= 1 && r->wDay <= (r->wYear ? 31 : 5) &&
		r->wHour < 24 && r->wMinute < 60;
}

/* Bias in minutes (UTC = local + bias) at @utc for @tz. */
static int tz_bias(const TIME_ZONE_INFORMATION *tz, uint64_t utc,
		   unsigned int year)
{
	int64_t std_bias = tz->Bias + tz->StandardBias;
	int64_t dst_bias = tz->Bias + tz->DaylightBias;
	int64_t to_dst, to_std, t = (int64_t)utc;

	if (!tz->StandardDate.wMonth || !tz->DaylightDate.wMonth)
		return (int)std_bias;
	/* Each transition is in the local time in force before it. */
	to_dst = (int64_t)rule_ticks(&tz->DaylightDate, year) +
		std_bias * 60 * (int64_t)TICKS_PER_SEC;
	to_std = (int64_t)rule_ticks(&tz->StandardDate, year) +
		dst_bias * 60 * (int64_t)TICKS_PER_SEC;
	if (to_dst < to_std)	/* northern hemisphere */
		return (int)(t >= to_dst && t < to_std ? dst_bias : std_bias);
	return (int)(t >= to_std && t < to_dst ? std_bias : dst_bias);
}

BOOL WINAPI SystemTimeToTzSpecificLocalTime(
	const TIME_ZONE_INFORMATION *tz, const SYSTEMTIME *utc,
	LPSYSTEMTIME local)
{
	uint64_t t;
	int64_t lt;

	if (!utc || !local || !st_valid(utc)) {
		SetLastError(ERROR_INVALID_PARAMETER);
		return FALSE;
	}
	t = st_to_ticks(utc);
	if (!tz) {
		/* The process's zone: TZ, else /etc/localtime. */
		time_t secs = (time_t)((t - EPOCH_DIFF_100NS) / TICKS_PER_SEC);
		struct tm tm;

		tzset();
		if (t < EPOCH_DIFF_100NS || !localtime_r(&secs, &tm)) {
			SetLastError(ERROR_INVALID_PARAMETER);
			return FALSE;
		}
		lt = (int64_t)t + tm.tm_gmtoff * (int64_t)TICKS_PER_SEC;
	} else {
		if ((tz->StandardDate.wMonth && !rule_valid(&tz->StandardDate)) ||
		    (tz->DaylightDate.wMonth && !rule_valid(&tz->DaylightDate))) {
			SetLastError(ERROR_INVALID_PARAMETER);
			return FALSE;
		}
		lt = (int64_t)t - (int64_t)tz_bias(tz, t, utc->wYear) * 60 *
			(int64_t)TICKS_PER_SEC;
	}
	if (lt < 0 || (uint64_t)lt > FILETIME_MAX) {
		SetLastError(ERROR_INVALID_PARAMETER);
		return FALSE;
	}
	ticks_to_st((uint64_t)lt, local);
	return TRUE;
}

/* GUID strings. */

int WINAPI StringFromGUID2(REFGUID rguid, LPOLESTR str, int max)
{
	const GUID *g = rguid;
	char buf[39];
	int i;

	if (!str || max < 39)
		return 0;
	snprintf(buf, sizeof(buf),
		 "{%08X-%04X-%04X-%02X%02X-%02X%02X%02X%02X%02X%02X}",
		 g->Data1, g->Data2, g->Data3, g->Data4[0], g->Data4[1],
		 g->Data4[2], g->Data4[3], g->Data4[4], g->Data4[5],
		 g->Data4[6], g->Data4[7]);
	for (i = 0; i < 39; i++)
		str[i] = (WCHAR)(unsigned char)buf[i];
	return 39;
}

static int hexval(WCHAR c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* "{xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx}", exactly; 0 when it is. */
static int parse_guid(LPCOLESTR s, GUID *g)
{
	static const char shape[] = "{........-....-....-....-............}";
	uint8_t b[16];
	int i, n = 0;

	for (i = 0; shape[i]; i++) {
		if (shape[i] == '.') {
			int v = hexval(s[i]);

			if (v < 0)
				return -1;
			if (n % 2)
				b[n / 2] = (uint8_t)(b[n / 2] << 4 | v);
			else
				b[n / 2] = (uint8_t)v;
			n++;
		} else if (s[i] != (WCHAR)shape[i]) {
			return -1;
		}
	}
	if (s[i])
		return -1;
	g->Data1 = (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 |
		(uint32_t)b[2] << 8 | b[3];
	g->Data2 = (uint16_t)(b[4] << 8 | b[5]);
	g->Data3 = (uint16_t)(b[6] << 8 | b[7]);
	memcpy(g->Data4, b + 8, 8);
	return 0;
}

HRESULT WINAPI CLSIDFromString(LPCOLESTR str, LPCLSID clsid)
{
	if (!clsid)
		return E_INVALIDARG;
	memset(clsid, 0, sizeof(*clsid));
	if (!str)
		return S_OK;
	return parse_guid(str, clsid) ? CO_E_CLASSSTRING : S_OK;
}

HRESULT WINAPI IIDFromString(LPCOLESTR str, LPIID iid)
{
	if (!iid)
		return E_INVALIDARG;
	memset(iid, 0, sizeof(*iid));
	if (!str)
		return S_OK;
	return parse_guid(str, iid) ? E_INVALIDARG : S_OK;
}

/* COM's task allocator: malloc, as LocalAlloc below. */

LPVOID WINAPI CoTaskMemAlloc(SIZE_T bytes)
{
	return malloc(bytes);
}

LPVOID WINAPI CoTaskMemRealloc(LPVOID p, SIZE_T bytes)
{
	return realloc(p, bytes);
}

VOID WINAPI CoTaskMemFree(LPVOID p)
{
	free(p);
}

/* StringFromCLSID and StringFromIID: StringFromGUID2's text, allocated. */
static HRESULT guid_string_alloc(const GUID *g, LPOLESTR *out)
{
	LPOLESTR s;

	if (!out)
		return E_INVALIDARG;
	*out = NULL;
	s = CoTaskMemAlloc(39 * sizeof(*s));
	if (!s)
		return E_OUTOFMEMORY;
	StringFromGUID2(g, s, 39);
	*out = s;
	return S_OK;
}

HRESULT WINAPI StringFromCLSID(REFCLSID clsid, LPOLESTR *out)
{
	return guid_string_alloc(clsid, out);
}

HRESULT WINAPI StringFromIID(REFIID iid, LPOLESTR *out)
{
	return guid_string_alloc(iid, out);
}

/* Memory: LocalAlloc and GlobalAlloc are malloc. */

HLOCAL WINAPI LocalAlloc(UINT flags, SIZE_T bytes)
{
	void *p;

	if (flags & ~(UINT)LMEM_ZEROINIT) {
		SetLastError(ERROR_INVALID_PARAMETER);
		return NULL;
	}
	p = flags & LMEM_ZEROINIT ? calloc(1, bytes ? bytes : 1) :
		malloc(bytes ? bytes : 1);
	if (!p)
		SetLastError(ERROR_NOT_ENOUGH_MEMORY);
	return p;
}

HLOCAL WINAPI LocalFree(HLOCAL mem)
{
	free(mem);
	return NULL;
}

HGLOBAL WINAPI GlobalAlloc(UINT flags, SIZE_T bytes)
{
	return LocalAlloc(flags, bytes);
}

HGLOBAL WINAPI GlobalFree(HGLOBAL mem)
{
	free(mem);
	return NULL;
}

/* UTF-8 <-> UTF-16, as MultiByteToWideChar's CP_UTF8 does. */
static size_t utf8_to_utf16(const char *s, size_t n, WCHAR *out)
{
	size_t i = 0, o = 0;

	while (i < n) {
		const unsigned char *c = (const unsigned char *)s + i;
		uint32_t cp = 0xFFFD;
		size_t len = 1, k;

		if (c[0] < 0x80) {
			cp = c[0];
		} else if (c[0] >= 0xC2 && c[0] <= 0xF4) {
			len = c[0] < 0xE0 ? 2 : c[0] < 0xF0 ? 3 : 4;
			cp = c[0] & (0x7F >> len);
			for (k = 1; k < len; k++) {
				if (i + k >= n || (c[k] & 0xC0) != 0x80)
					break;
				cp = cp << 6 | (c[k] & 0x3F);
			}
			if (k < len || (len == 3 && cp < 0x800) ||
			    (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
			    (cp >= 0xD800 && cp <= 0xDFFF)) {
				cp = 0xFFFD;
				len = 1;
			}
		}
		if (cp >= 0x10000) {
			if (out) {
				out[o] = (WCHAR)(0xD800 | ((cp - 0x10000) >> 10));
				out[o + 1] = (WCHAR)(0xDC00 | (cp & 0x3FF));
			}
			o += 2;
		} else {
			if (out)
				out[o] = (WCHAR)cp;
			o++;
		}
		i += len;
	}
	return o;
}

/* The command line. */

static WCHAR *cmdline_w;
static char *cmdline_a;

/* Appends @arg quoted as CommandLineToArgvW reads it back. */
static size_t quote_arg(const char *arg, char *out)
{
	size_t n = 0, bs = 0;
	int q = !*arg || strpbrk(arg, " \t\"") != NULL;
	const char *p;

	if (q)
		n++, out && (out[n - 1] = '"');
	for (p = arg; *p; p++) {
		if (*p == '\\') {
			bs++;
		} else {
			if (*p == '"') {
				/* Backslashes before a quote double, plus one. */
				for (; bs; bs--)
					n++, out && (out[n - 1] = '\\');
				n++, out && (out[n - 1] = '\\');
			}
			bs = 0;
		}
		n++, out && (out[n - 1] = *p);
	}
	if (q) {
		for (; bs; bs--)
			n++, out && (out[n - 1] = '\\');
		n++, out && (out[n - 1] = '"');
	}
	return n;
}

/* Builds the command line from /proc/self/cmdline once. */
static void cmdline_build(void)
{
	char buf[65536], *line;
	size_t len = 0, n = 0, i;
	ssize_t r;
	int fd;

	fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		while (len < sizeof(buf) - 1 &&
		       (r = read(fd, buf + len, sizeof(buf) - 1 - len)) > 0)
			len += (size_t)r;
		close(fd);
	}
	buf[len] = 0;
	for (i = 0; i < len; i += strlen(buf + i) + 1)
		n += quote_arg(buf + i, NULL) + 1;
	line = malloc(n + 1);
	if (!line)
		return;
	n = 0;
	for (i = 0; i < len; i += strlen(buf + i) + 1) {
		if (n)
			line[n++] = ' ';
		n += quote_arg(buf + i, line + n);
	}
	line[n] = 0;
	cmdline_w = malloc((utf8_to_utf16(line, n, NULL) + 1) * sizeof(WCHAR));
	if (!cmdline_w) {
		free(line);
		return;
	}
	cmdline_w[utf8_to_utf16(line, n, cmdline_w)] = 0;
	cmdline_a = line;
}

static pthread_once_t cmdline_once = PTHREAD_ONCE_INIT;

LPWSTR WINAPI GetCommandLineW(void)
{
	static WCHAR empty[1];

	pthread_once(&cmdline_once, cmdline_build);
	return cmdline_w ? cmdline_w : empty;
}

LPSTR WINAPI GetCommandLineA(void)
{
	static char empty[1];

	pthread_once(&cmdline_once, cmdline_build);
	return cmdline_a ? cmdline_a : empty;
}

/*
 * Splits @line by Windows' rules: the program name ends at the first space
 * or tab, or within quotes at the next quote; in the other arguments 2n
 * backslashes before a quote are n and the quote toggles quoting, 2n+1
 * are n and a literal quote, others are literal, and "" inside quotes is
 * a literal quote.  One block of memory: free it with LocalFree.
 */
static size_t split_args(LPCWSTR line, WCHAR **argv, WCHAR *out, int *argc)
{
	const WCHAR *p = line;
	size_t o = 0;
	int n = 0;

	/* The program name. */
	if (argv)
		argv[n] = out + o;
	if (*p == '"') {
		for (p++; *p && *p != '"'; p++)
			out ? (out[o++] = *p) : o++;
		if (*p)
			p++;
	} else {
		for (; *p && *p != ' ' && *p != '\t'; p++)
			out ? (out[o++] = *p) : o++;
	}
	out ? (out[o++] = 0) : o++;
	n++;
	for (;;) {
		int quoted = 0;

		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p)
			break;
		if (argv)
			argv[n] = out + o;
		while (*p && (quoted || (*p != ' ' && *p != '\t'))) {
			if (*p == '\\') {
				size_t bs = 0, k;

				while (p[bs] == '\\')
					bs++;
				if (p[bs] == '"') {
					for (k = 0; k < bs / 2; k++)
						out ? (out[o++] = '\\') : o++;
					p += bs;
					if (bs % 2) {
						out ? (out[o++] = '"') : o++;
						p++;
					}
				} else {
					for (k = 0; k < bs; k++)
						out ? (out[o++] = '\\') : o++;
					p += bs;
				}
			} else if (*p == '"') {
				if (quoted && p[1] == '"') {
					out ? (out[o++] = '"') : o++;
					p += 2;
				} else {
					quoted = !quoted;
					p++;
				}
			} else {
				out ? (out[o++] = *p) : o++;
				p++;
			}
		}
		out ? (out[o++] = 0) : o++;
		n++;
	}
	*argc = n;
	return o;
}

LPWSTR *WINAPI CommandLineToArgvW(LPCWSTR line, int *argc)
{
	WCHAR **argv, *text;
	size_t units;
	int n;

	if (!argc) {
		SetLastError(ERROR_INVALID_PARAMETER);
		return NULL;
	}
	/* An empty line gives the program's path alone. */
	if (!line || !*line) {
		char path[4096];
		ssize_t len = readlink("/proc/self/exe", path,
				       sizeof(path) - 1);
		size_t u;

		if (len < 0)
			len = 0;
		u = utf8_to_utf16(path, (size_t)len, NULL);
		argv = LocalAlloc(LMEM_ZEROINIT, 2 * sizeof(*argv) +
				  (u + 1) * sizeof(WCHAR));
		if (!argv)
			return NULL;
		text = (WCHAR *)(argv + 2);
		text[utf8_to_utf16(path, (size_t)len, text)] = 0;
		argv[0] = text;
		*argc = 1;
		return argv;
	}
	units = split_args(line, NULL, NULL, &n);
	argv = LocalAlloc(0, (size_t)(n + 1) * sizeof(*argv) +
			  units * sizeof(WCHAR));
	if (!argv)
		return NULL;
	text = (WCHAR *)(argv + n + 1);
	split_args(line, argv, text, &n);
	argv[n] = NULL;
	*argc = n;
	return argv;
}

/* FormatMessage: the texts of the Win32 codes libetw returns. */

static const struct {
	DWORD code;
	const char *text;
} messages[] = {
	{ ERROR_SUCCESS, "The operation completed successfully." },
	{ ERROR_INVALID_FUNCTION, "Incorrect function." },
	{ ERROR_FILE_NOT_FOUND, "The system cannot find the file specified." },
	{ ERROR_PATH_NOT_FOUND, "The system cannot find the path specified." },
	{ ERROR_ACCESS_DENIED, "Access is denied." },
	{ ERROR_INVALID_HANDLE, "The handle is invalid." },
	{ ERROR_NOT_ENOUGH_MEMORY,
	  "Not enough memory resources are available to process this command." },
	{ ERROR_INVALID_DATA, "The data is invalid." },
	{ ERROR_OUTOFMEMORY,
	  "Not enough memory resources are available to complete this operation." },
	{ ERROR_HANDLE_EOF, "Reached the end of the file." },
	{ ERROR_NOT_SUPPORTED, "The request is not supported." },
	{ ERROR_FILE_EXISTS, "The file exists." },
	{ ERROR_INVALID_PARAMETER, "The parameter is incorrect." },
	{ ERROR_DISK_FULL, "There is not enough space on the disk." },
	{ ERROR_INSUFFICIENT_BUFFER,
	  "The data area passed to a system call is too small." },
	{ ERROR_BAD_PATHNAME, "The specified path is invalid." },
	{ ERROR_BUSY, "The requested resource is in use." },
	{ ERROR_ALREADY_EXISTS,
	  "Cannot create a file when that file already exists." },
	{ ERROR_MORE_DATA, "More data is available." },
	{ ERROR_NO_MORE_ITEMS, "No more data is available." },
	{ ERROR_NOACCESS, "Invalid access to memory location." },
	{ ERROR_INVALID_FLAGS, "Invalid flags." },
	{ ERROR_NOT_FOUND, "Element not found." },
	{ ERROR_CANCELLED, "The operation was canceled by the user." },
	{ ERROR_TIMEOUT,
	  "This operation returned because the timeout period expired." },
	{ ERROR_WMI_INSTANCE_NOT_FOUND,
	  "The instance name passed was not recognized as valid by a WMI data provider." },
	{ ERROR_CTX_CLOSE_PENDING,
	  "A close operation is pending on the session." },
};

static const char *message_text(DWORD code)
{
	size_t i;

	for (i = 0; i < sizeof(messages) / sizeof(messages[0]); i++)
		if (messages[i].code == code)
			return messages[i].text;
	return NULL;
}

/*
 * What FormatMessage supports here: FORMAT_MESSAGE_FROM_SYSTEM for the
 * codes above, with ALLOCATE_BUFFER, IGNORE_INSERTS and the MAX_WIDTH
 * mask (0: the text and "\r\n"; FORMAT_MESSAGE_MAX_WIDTH_MASK: no line
 * end).  Returns the text's length in @size units, and takes the text and
 * its length as @wide asks.
 */
/*
 * Where FormatMessage writes @units characters of @usz bytes and their
 * terminator: a LocalAlloc()ed buffer stored through @buffer with
 * FORMAT_MESSAGE_ALLOCATE_BUFFER (at least @size characters), else
 * @buffer itself when @size holds them.  NULL with the last error set.
 */
static void *message_dest(DWORD flags, void *buffer, DWORD size,
			  size_t units, size_t usz)
{
	void *dst;

	if (!(flags & FORMAT_MESSAGE_ALLOCATE_BUFFER)) {
		if (units + 1 > size) {
			SetLastError(ERROR_INSUFFICIENT_BUFFER);
			return NULL;
		}
		return buffer;
	}
	dst = LocalAlloc(0, ((units > size ? units : size) + 1) * usz);
	if (dst)
		*(void **)buffer = dst;
	return dst;
}

static DWORD format_message(DWORD flags, DWORD id, void *buffer, DWORD size,
			    int wide)
{
	const char *text;
	size_t len, units, usz = wide ? sizeof(WCHAR) : 1;
	int crlf = !(flags & FORMAT_MESSAGE_MAX_WIDTH_MASK);
	unsigned char *dst;

	if ((flags & ~(DWORD)(FORMAT_MESSAGE_FROM_SYSTEM |
			      FORMAT_MESSAGE_ALLOCATE_BUFFER |
			      FORMAT_MESSAGE_IGNORE_INSERTS |
			      FORMAT_MESSAGE_MAX_WIDTH_MASK)) ||
	    !(flags & FORMAT_MESSAGE_FROM_SYSTEM) ||
	    ((flags & FORMAT_MESSAGE_MAX_WIDTH_MASK) &&
	     (flags & FORMAT_MESSAGE_MAX_WIDTH_MASK) !=
	     FORMAT_MESSAGE_MAX_WIDTH_MASK) || !buffer) {
		SetLastError(ERROR_INVALID_PARAMETER);
		return 0;
	}
	text = message_text(id);
	if (!text) {
		SetLastError(ERROR_MR_MID_NOT_FOUND);
		return 0;
	}
	len = strlen(text);
	units = len + (crlf ? 2 : 0);
	dst = message_dest(flags, buffer, size, units, usz);
	if (!dst)
		return 0;
	if (wide) {
		WCHAR *w = (WCHAR *)dst;
		size_t i;

		for (i = 0; i < len; i++)
			w[i] = (WCHAR)(unsigned char)text[i];
		if (crlf) {
			w[len] = '\r';
			w[len + 1] = '\n';
		}
		w[units] = 0;
	} else {
		memcpy(dst, text, len);
		if (crlf)
			memcpy(dst + len, "\r\n", 2);
		dst[units] = 0;
	}
	return (DWORD)units;
}

/*
 * FORMAT_MESSAGE_FROM_STRING: the message definition's text, its escapes
 * and inserts (%1 to %99, each "%n!printf format!" or a string), built
 * as UTF-16 whichever function was called.
 */
struct msg_text {
	WCHAR *buf;
	size_t len, cap;
	int oom;
};

static void msg_put(struct msg_text *t, const WCHAR *s, size_t n)
{
	WCHAR *nb;
	size_t cap;

	if (t->oom)
		return;
	if (t->len + n + 1 > t->cap) {
		cap = (t->len + n + 1) * 2;
		nb = realloc(t->buf, cap * sizeof(WCHAR));
		if (!nb) {
			t->oom = 1;
			return;
		}
		t->buf = nb;
		t->cap = cap;
	}
	memcpy(t->buf + t->len, s, n * sizeof(WCHAR));
	t->len += n;
}

static void msg_putc(struct msg_text *t, WCHAR c)
{
	msg_put(t, &c, 1);
}

/* Inserts past this many arguments are refused (ERROR_INVALID_PARAMETER). */
#define MSG_ARGS_MAX	256

/*
 * The arguments: an array of DWORD_PTRs, or a va_list whose values are
 * read as such, in order, as far as the inserts ask.  An insert's '*'
 * width and precision take the insert's own argument and then those
 * after the highest used so far, as Windows counts them in an array.
 */
struct msg_args {
	const DWORD_PTR *array;
	va_list *list;
	DWORD_PTR read[MSG_ARGS_MAX];
	size_t nread, last;
};

static int msg_arg(struct msg_args *a, size_t nr, DWORD_PTR *v)
{
	if (!nr || nr > MSG_ARGS_MAX || (!a->array && !a->list))
		return -1;
	if (a->array) {
		*v = a->array[nr - 1];
	} else {
		while (a->nread < nr)
			a->read[a->nread++] = va_arg(*a->list, DWORD_PTR);
		*v = a->read[nr - 1];
	}
	if (nr > a->last)
		a->last = nr;
	return 0;
}

/* libetw's MSVC-format printf, for one value. */
static int msg_snprintf_w(WCHAR *buf, size_t count, const WCHAR *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = etw_crt_vsnprintf_w(buf, count, fmt, ap);
	va_end(ap);
	return ret;
}

static int msg_snprintf_a(char *buf, size_t count, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = etw_crt_vsnprintf_a(buf, count, fmt, ap);
	va_end(ap);
	return ret;
}

/* How an insert's value is passed: a pointer, 64 or 32 bits. */
enum msg_kind { MSG_PTR, MSG_64, MSG_32 };

static int msg_format1(void *buf, size_t count, const void *spec, int wide,
		       enum msg_kind kind, DWORD_PTR v)
{
	if (wide)
		return kind == MSG_PTR ?
			msg_snprintf_w(buf, count, spec, (void *)v) :
			kind == MSG_64 ?
			msg_snprintf_w(buf, count, spec, (long long)v) :
			msg_snprintf_w(buf, count, spec, (int)v);
	return kind == MSG_PTR ? msg_snprintf_a(buf, count, spec, (void *)v) :
		kind == MSG_64 ? msg_snprintf_a(buf, count, spec, (long long)v) :
		msg_snprintf_a(buf, count, spec, (int)v);
}

/*
 * One value by printf format @spec (UTF-16, NUL-terminated), formatted
 * as the W or the A function's format reads it, appended as UTF-16.
 */
static int msg_printf(struct msg_text *t, const WCHAR *spec, int wide,
		      enum msg_kind kind, DWORD_PTR v)
{
	size_t usz = wide ? sizeof(WCHAR) : 1, i, n;
	char aspec[40];
	const void *fmt = spec;
	void *buf;
	WCHAR *w;
	int len;

	if (!wide) {
		for (i = 0; spec[i]; i++)
			aspec[i] = (char)spec[i];
		aspec[i] = 0;
		fmt = aspec;
	}
	len = msg_format1(NULL, 0, fmt, wide, kind, v);
	if (len < 0)
		return -1;
	buf = malloc(((size_t)len + 1) * usz);
	if (!buf)
		return -1;
	msg_format1(buf, (size_t)len + 1, fmt, wide, kind, v);
	if (wide) {
		msg_put(t, buf, (size_t)len);
		free(buf);
		return 0;
	}
	n = utf8_to_utf16(buf, (size_t)len, NULL);
	w = malloc((n + 1) * sizeof(WCHAR));
	if (!w) {
		free(buf);
		return -1;
	}
	utf8_to_utf16(buf, (size_t)len, w);
	msg_put(t, w, n);
	free(w);
	free(buf);
	return 0;
}

/*
 * The insert %@nr whose "!format!" (if any) starts at @p; returns the
 * units read after the number, or -1 for a bad format or argument.
 */
static long msg_insert(struct msg_text *t, const WCHAR *p, size_t nr,
		       struct msg_args *a, int wide)
{
	WCHAR spec[40];
	size_t i = 0, j, k = 1, o = 0, arg = nr;
	enum msg_kind kind = MSG_32;
	DWORD_PTR v;
	char num[24];

	spec[o++] = '%';
	if (p[0] == '!') {
		for (i = 1; p[i] && p[i] != '!'; i++)
			;
		if (p[i] != '!' || i > 30)
			return -1;
		/* p[k .. i-1] is the format, '*' replaced by its number. */
		for (; k < i; k++) {
			if (p[k] == '*') {
				if (msg_arg(a, arg, &v))
					return -1;
				arg = a->last + 1;
				snprintf(num, sizeof(num), "%d", (int)v);
				for (j = 0; num[j] && o < 38; j++)
					spec[o++] = (WCHAR)num[j];
				continue;
			}
			if (o >= 38)
				return -1;
			spec[o++] = p[k];
		}
		i++;
	} else {
		spec[o++] = 's';
	}
	spec[o] = 0;
	/* Flags, width, precision, a size, one conversion; no floats, no %n. */
	for (k = 1; k < o && spec[k] < 0x80 && strchr("-+ #0", spec[k]); k++)
		;
	while (k < o && ((spec[k] >= '0' && spec[k] <= '9') || spec[k] == '.'))
		k++;
	if (k + 3 < o && spec[k] == 'I' && spec[k + 1] == '6' &&
	    spec[k + 2] == '4') {
		kind = MSG_64;
		k += 3;
	} else if (k + 3 < o && spec[k] == 'I' && spec[k + 1] == '3' &&
		   spec[k + 2] == '2') {
		k += 3;
	} else if (k + 2 < o && spec[k] == 'l' && spec[k + 1] == 'l') {
		kind = MSG_64;
		k += 2;
	} else if (k + 2 < o && spec[k] == 'h' && spec[k + 1] == 'h') {
		k += 2;
	} else if (k + 1 < o && (spec[k] == 'I' || spec[k] == 'z')) {
		kind = MSG_64;
		k++;
	} else if (k + 1 < o && (spec[k] == 'h' || spec[k] == 'l' ||
				 spec[k] == 'w')) {
		k++;
	}
	if (k + 1 != o || spec[k] >= 0x80 || !strchr("diouxXcCsSp", spec[k]))
		return -1;
	if (spec[k] == 's' || spec[k] == 'S' || spec[k] == 'p')
		kind = MSG_PTR;
	if (msg_arg(a, arg, &v) || msg_printf(t, spec, wide, kind, v))
		return -1;
	return (long)i;
}

/*
 * Expands @src (UTF-16) into @t.  Line breaks become "\r\n", or a space
 * with FORMAT_MESSAGE_MAX_WIDTH_MASK; %0 ends the text; %n is "\r\n",
 * %r "\r", %t a tab, %% %! %. and "% " the character.  Returns 0, or -1
 * for a bad escape, format or argument (ERROR_INVALID_PARAMETER).
 */
static int msg_expand(struct msg_text *t, const WCHAR *src, DWORD flags,
		      struct msg_args *a, int wide)
{
	static const WCHAR crlf[] = { '\r', '\n' };
	int join = (flags & FORMAT_MESSAGE_MAX_WIDTH_MASK) != 0;
	const WCHAR *p = src;
	size_t nr, digits;
	long used;

	while (*p) {
		if (*p == '\r' || *p == '\n') {
			p += p[0] == '\r' && p[1] == '\n' ? 2 : 1;
			if (join)
				msg_putc(t, ' ');
			else
				msg_put(t, crlf, 2);
			continue;
		}
		if (*p != '%') {
			msg_putc(t, *p++);
			continue;
		}
		p++;
		if (*p >= '1' && *p <= '9') {
			nr = 0;
			for (digits = 0; digits < 2 && *p >= '0' && *p <= '9';
			     digits++)
				nr = nr * 10 + (size_t)(*p++ - '0');
			if (flags & FORMAT_MESSAGE_IGNORE_INSERTS) {
				msg_putc(t, '%');
				msg_put(t, p - digits, digits);
				continue;
			}
			used = msg_insert(t, p, nr, a, wide);
			if (used < 0)
				return -1;
			p += used;
			continue;
		}
		switch (*p) {
		case 0:
			return -1;
		case '0':
			return 0;
		case 'n':
			msg_put(t, crlf, 2);
			break;
		case 'r':
			msg_putc(t, '\r');
			break;
		case 't':
			msg_putc(t, '\t');
			break;
		default:
			msg_putc(t, *p);
			break;
		}
		p++;
	}
	return 0;
}

/* Stores @len units of @text as FormatMessage does; its answer. */
static DWORD msg_store(DWORD flags, const WCHAR *text, size_t len,
		       void *buffer, DWORD size, int wide)
{
	size_t units = wide ? len :
		(size_t)(len ? WideCharToMultiByte(CP_UTF8, 0, text, (int)len,
						  NULL, 0, NULL, NULL) : 0);
	size_t usz = wide ? sizeof(WCHAR) : 1;
	unsigned char *dst;

	if (units > 0x7FFFFFFF) {
		SetLastError(ERROR_MORE_DATA);
		return 0;
	}
	dst = message_dest(flags, buffer, size, units, usz);
	if (!dst)
		return 0;
	if (wide) {
		memcpy(dst, text, len * sizeof(WCHAR));
		((WCHAR *)dst)[len] = 0;
	} else {
		if (units)
			WideCharToMultiByte(CP_UTF8, 0, text, (int)len,
					    (char *)dst, (int)units, NULL, NULL);
		dst[units] = 0;
	}
	return (DWORD)units;
}

static DWORD message_from_string(DWORD flags, LPCVOID source, void *buffer,
				 DWORD size, va_list *args, int wide)
{
	struct msg_text t = { .buf = NULL };
	struct msg_args *a;
	WCHAR *src = NULL;
	size_t n;
	DWORD ret = 0;
	int bad;

	if ((flags & ~(DWORD)(FORMAT_MESSAGE_FROM_STRING |
			      FORMAT_MESSAGE_ALLOCATE_BUFFER |
			      FORMAT_MESSAGE_IGNORE_INSERTS |
			      FORMAT_MESSAGE_ARGUMENT_ARRAY |
			      FORMAT_MESSAGE_MAX_WIDTH_MASK)) ||
	    ((flags & FORMAT_MESSAGE_MAX_WIDTH_MASK) &&
	     (flags & FORMAT_MESSAGE_MAX_WIDTH_MASK) !=
	     FORMAT_MESSAGE_MAX_WIDTH_MASK) || !source || !buffer) {
		SetLastError(ERROR_INVALID_PARAMETER);
		return 0;
	}
	if (!wide) {
		n = strlen(source);
		src = malloc((utf8_to_utf16(source, n, NULL) + 1) *
			     sizeof(WCHAR));
		if (!src) {
			SetLastError(ERROR_NOT_ENOUGH_MEMORY);
			return 0;
		}
		src[utf8_to_utf16(source, n, src)] = 0;
		source = src;
	}
	a = calloc(1, sizeof(*a));
	if (!a) {
		free(src);
		SetLastError(ERROR_NOT_ENOUGH_MEMORY);
		return 0;
	}
	if (flags & FORMAT_MESSAGE_ARGUMENT_ARRAY)
		a->array = (const DWORD_PTR *)args;
	else
		a->list = args;
	bad = msg_expand(&t, source, flags, a, wide);
	if (t.oom)
		SetLastError(ERROR_NOT_ENOUGH_MEMORY);
	else if (bad)
		SetLastError(ERROR_INVALID_PARAMETER);
	else if (!t.len)
		SetLastError(ERROR_NO_WORK_DONE);
	else
		ret = msg_store(flags, t.buf, t.len, buffer, size, wide);
	free(t.buf);
	free(a);
	free(src);
	return ret;
}

DWORD WINAPI FormatMessageW(DWORD flags, LPCVOID source, DWORD id,
			    DWORD lang, LPWSTR buffer, DWORD size,
			    va_list *args)
{
	(void)lang;
	if (flags & FORMAT_MESSAGE_FROM_STRING)
		return message_from_string(flags, source, buffer, size, args,
					   1);
	return format_message(flags, id, buffer, size, 1);
}

DWORD WINAPI FormatMessageA(DWORD flags, LPCVOID source, DWORD id,
			    DWORD lang, LPSTR buffer, DWORD size,
			    va_list *args)
{
	(void)lang;
	if (flags & FORMAT_MESSAGE_FROM_STRING)
		return message_from_string(flags, source, buffer, size, args,
					   0);
	return format_message(flags, id, buffer, size, 0);
}

/* UTF-8 is the only code page: CP_ACP, CP_OEMCP and CP_UTF8 all are it. */
int WINAPI MultiByteToWideChar(UINT cp, DWORD flags, LPCSTR src, int n,
			       LPWSTR dst, int max)
{
	size_t len, units;

	if (!src || !n || max < 0 || (dst == NULL) != (max == 0) ||
	    (cp != CP_ACP && cp != CP_OEMCP && cp != CP_UTF8) ||
	    (flags & ~(DWORD)MB_ERR_INVALID_CHARS)) {
		SetLastError(cp > CP_UTF8 || flags & ~(DWORD)MB_ERR_INVALID_CHARS ?
			     ERROR_INVALID_FLAGS : ERROR_INVALID_PARAMETER);
		return 0;
	}
	len = n < 0 ? strlen(src) + 1 : (size_t)n;
	units = utf8_to_utf16(src, len, NULL);
	if (units > INT32_MAX) {
		SetLastError(ERROR_INVALID_PARAMETER);
		return 0;
	}
	if (!max)
		return (int)units;
	if (units > (size_t)max) {
		SetLastError(ERROR_INSUFFICIENT_BUFFER);
		return 0;
	}
	utf8_to_utf16(src, len, dst);
	return (int)units;
}

int WINAPI WideCharToMultiByte(UINT cp, DWORD flags, LPCWSTR src, int n,
			       LPSTR dst, int max, LPCSTR defchar,
			       LPBOOL used_default)
{
	size_t len, i, o = 0;

	if (!src || !n || max < 0 || (dst == NULL) != (max == 0) ||
	    (cp != CP_ACP && cp != CP_OEMCP && cp != CP_UTF8) || flags) {
		SetLastError(cp > CP_UTF8 || flags ? ERROR_INVALID_FLAGS :
			     ERROR_INVALID_PARAMETER);
		return 0;
	}
	(void)defchar;
	if (used_default)
		*used_default = FALSE;
	if (n < 0)
		for (len = 0, n = 1; src[len]; len++, n++)
			;
	len = (size_t)n;
	for (i = 0; i < len; i++) {
		uint32_t cp32 = src[i];
		unsigned char b[4];
		size_t k, nb;

		if (cp32 >= 0xD800 && cp32 <= 0xDBFF && i + 1 < len &&
		    src[i + 1] >= 0xDC00 && src[i + 1] <= 0xDFFF) {
			cp32 = 0x10000 + ((cp32 - 0xD800) << 10) +
				(src[i + 1] - 0xDC00);
			i++;
		} else if (cp32 >= 0xD800 && cp32 <= 0xDFFF) {
			cp32 = 0xFFFD;
		}
		if (cp32 < 0x80) {
			b[0] = (unsigned char)cp32;
			nb = 1;
		} else if (cp32 < 0x800) {
			b[0] = (unsigned char)(0xC0 | cp32 >> 6);
			b[1] = (unsigned char)(0x80 | (cp32 & 0x3F));
			nb = 2;
		} else if (cp32 < 0x10000) {
			b[0] = (unsigned char)(0xE0 | cp32 >> 12);
			b[1] = (unsigned char)(0x80 | ((cp32 >> 6) & 0x3F));
			b[2] = (unsigned char)(0x80 | (cp32 & 0x3F));
			nb = 3;
		} else {
			b[0] = (unsigned char)(0xF0 | cp32 >> 18);
			b[1] = (unsigned char)(0x80 | ((cp32 >> 12) & 0x3F));
			b[2] = (unsigned char)(0x80 | ((cp32 >> 6) & 0x3F));
			b[3] = (unsigned char)(0x80 | (cp32 & 0x3F));
			nb = 4;
		}
		if (max) {
			if (o + nb > (size_t)max) {
				SetLastError(ERROR_INSUFFICIENT_BUFFER);
				return 0;
			}
			for (k = 0; k < nb; k++)
				dst[o + k] = (char)b[k];
		}
		o += nb;
	}
	return (int)o;
}
