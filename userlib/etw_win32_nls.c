// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * etw_win32_nls.c - GetDateFormat and GetTimeFormat: a SYSTEMTIME as a
 * format picture or the locale's own format says, for English (United
 * States), the one locale libetw formats for.  Everything is on the
 * caller's stack, so the functions are thread-safe.
 */
#include <stdio.h>
#include <time.h>

#include <windows.h>
#include <winnls.h>

static const char *const day_names[] = {
	"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday",
	"Saturday",
};

static const char *const month_names[] = {
	"January", "February", "March", "April", "May", "June", "July",
	"August", "September", "October", "November", "December",
};

/* The formats of en-US, and of the invariant locale. */
#define SHORT_DATE		"M/d/yyyy"
#define LONG_DATE		"dddd, MMMM d, yyyy"
#define YEAR_MONTH		"MMMM yyyy"
#define TIME_12			"h:mm:ss tt"
#define INVARIANT_SHORT_DATE	"MM/dd/yyyy"
#define INVARIANT_TIME		"HH:mm:ss"

/* Up to 128 units of output, as in Windows' own buffers for these. */
#define OUT_MAX			128

struct nls_out {
	WCHAR buf[OUT_MAX];
	size_t len;
	/* Where the text written since the last picture began. */
	size_t literal_start;
	int overflow;
};

static void out_char(struct nls_out *o, WCHAR c)
{
	if (o->len + 1 >= OUT_MAX) {
		o->overflow = 1;
		return;
	}
	o->buf[o->len++] = c;
}

/* @v with at least @digits digits. */
static void out_num(struct nls_out *o, unsigned int v, int digits)
{
	char tmp[16];
	size_t i;

	snprintf(tmp, sizeof(tmp), "%0*u", digits, v);
	for (i = 0; tmp[i]; i++)
		out_char(o, (WCHAR)tmp[i]);
}

static int leap(unsigned int y)
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

static int date_valid(const SYSTEMTIME *st)
{
	static const unsigned char days[] = {
		31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31,
	};

	return st->wYear >= 1601 && st->wYear <= 30827 && st->wMonth >= 1 &&
		st->wMonth <= 12 && st->wDay >= 1 &&
		st->wDay <= days[st->wMonth - 1] +
		(st->wMonth == 2 && leap(st->wYear));
}

static int time_valid(const SYSTEMTIME *st)
{
	return st->wHour < 24 && st->wMinute < 60 && st->wSecond < 60 &&
		st->wMilliseconds < 1000;
}

/* The day of the week, which Windows computes rather than reads. */
static unsigned int weekday(const SYSTEMTIME *st)
{
	static const unsigned char t[] = { 0, 3, 2, 5, 0, 3, 5, 1, 4, 6, 2, 4 };
	unsigned int y = st->wYear - (st->wMonth < 3);

	return (y + y / 4 - y / 100 + y / 400 + t[st->wMonth - 1] +
		st->wDay) % 7;
}

/* The current local time, as Windows' NULL SYSTEMTIME means. */
static void local_now(SYSTEMTIME *st)
{
	struct timespec ts;
	struct tm tm;

	clock_gettime(CLOCK_REALTIME, &ts);
	localtime_r(&ts.tv_sec, &tm);
	st->wYear = (WORD)(tm.tm_year + 1900);
	st->wMonth = (WORD)(tm.tm_mon + 1);
	st->wDayOfWeek = (WORD)tm.tm_wday;
	st->wDay = (WORD)tm.tm_mday;
	st->wHour = (WORD)tm.tm_hour;
	st->wMinute = (WORD)tm.tm_min;
	st->wSecond = (WORD)tm.tm_sec;
	st->wMilliseconds = (WORD)(ts.tv_nsec / 1000000);
}

/*
 * The pictures a time format leaves out (TIME_NOSECONDS and the rest)
 * take the text before them with them, back to the previous picture:
 * "h:mm:ss tt" without seconds is "h:mm tt".
 */
static void drop_picture(struct nls_out *o)
{
	o->len = o->literal_start;
}

/* The first @n characters of @s. */
static void out_strn(struct nls_out *o, const char *s, size_t n)
{
	while (*s && n--)
		out_char(o, (WCHAR)(unsigned char)*s++);
}

/* A picture's text; later pictures left out drop the text after it. */
static void out_picture(struct nls_out *o, const char *s, size_t n)
{
	out_strn(o, s, n);
	o->literal_start = o->len;
}

static void out_picture_num(struct nls_out *o, unsigned int v, int digits)
{
	out_num(o, v, digits);
	o->literal_start = o->len;
}

/*
 * Formats @st by @pic (@wide: WCHARs, else UTF-8 chars, both read as
 * units).  @date: a date picture (d, M, y, g), else a time one (h, H, m,
 * s, t).  Letters of the other kind, and all other characters, are
 * copied; text in single quotes is copied as is, '' being one quote.
 */
static unsigned int pic_at(const void *pic, int wide, size_t k)
{
	return wide ? ((const WCHAR *)pic)[k] :
		((const unsigned char *)pic)[k];
}

static void format_picture(struct nls_out *o, const void *pic, int wide,
			   const SYSTEMTIME *st, int date, DWORD flags)
{
	size_t i = 0, n;
	unsigned int c, h;

	while ((c = pic_at(pic, wide, i))) {
		if (c == '\'') {
			for (i++; pic_at(pic, wide, i); i++) {
				if (pic_at(pic, wide, i) == '\'' && pic_at(pic, wide, i + 1) != '\'')
					break;
				if (pic_at(pic, wide, i) == '\'')
					i++;
				out_char(o, (WCHAR)pic_at(pic, wide, i));
			}
			if (pic_at(pic, wide, i))
				i++;
			continue;
		}
		for (n = 1; pic_at(pic, wide, i + n) == c; n++)
			;
		i += n;
		if (date && c == 'd' && n <= 2) {
			out_picture_num(o, st->wDay, (int)n);
		} else if (date && c == 'd') {
			out_picture(o, day_names[weekday(st)], n == 3 ? 3 : 99);
		} else if (date && c == 'M' && n <= 2) {
			out_picture_num(o, st->wMonth, (int)n);
		} else if (date && c == 'M') {
			out_picture(o, month_names[st->wMonth - 1],
				    n == 3 ? 3 : 99);
		} else if (date && c == 'y') {
			/* y: the last digit; yy: the last two; more: all. */
			out_picture_num(o, n == 1 ? st->wYear % 10U :
					n == 2 ? st->wYear % 100U : st->wYear,
					n <= 2 ? (int)n : 4);
		} else if (date && c == 'g') {
			out_picture(o, "A.D.", 4);
		} else if (!date && (c == 'h' || c == 'H')) {
			h = st->wHour;
			if (c == 'h' && !(flags & TIME_FORCE24HOURFORMAT))
				h = h % 12 ? h % 12 : 12;
			out_picture_num(o, h, n >= 2 ? 2 : 1);
		} else if (!date && c == 'm' &&
			   !(flags & TIME_NOMINUTESORSECONDS)) {
			out_picture_num(o, st->wMinute, n >= 2 ? 2 : 1);
		} else if (!date && c == 's' &&
			   !(flags & (TIME_NOMINUTESORSECONDS |
				      TIME_NOSECONDS))) {
			out_picture_num(o, st->wSecond, n >= 2 ? 2 : 1);
		} else if (!date && c == 't' &&
			   !(flags & (TIME_NOTIMEMARKER |
				      TIME_FORCE24HOURFORMAT))) {
			out_picture(o, st->wHour < 12 ? "AM" : "PM",
				    n >= 2 ? 2 : 1);
		} else if (!date && (c == 'm' || c == 's' || c == 't')) {
			drop_picture(o);
		} else {
			while (n--)
				out_char(o, (WCHAR)c);
		}
	}
}

/* What both functions return: the text or its size, as Windows does. */
static int nls_result(struct nls_out *o, void *buf, int size, int wide)
{
	size_t need, i;

	if (o->overflow) {
		SetLastError(ERROR_INSUFFICIENT_BUFFER);
		return 0;
	}
	/* A dropped picture may have left text past the end. */
	o->buf[o->len] = 0;
	need = wide ? o->len + 1 :
		(size_t)WideCharToMultiByte(CP_UTF8, 0, o->buf, (int)o->len + 1,
					    NULL, 0, NULL, NULL);
	if (!size)
		return (int)need;
	if ((size_t)size < need) {
		SetLastError(ERROR_INSUFFICIENT_BUFFER);
		return 0;
	}
	if (wide) {
		for (i = 0; i < need; i++)
			((WCHAR *)buf)[i] = o->buf[i];
		return (int)need;
	}
	return WideCharToMultiByte(CP_UTF8, 0, o->buf, (int)o->len + 1, buf,
				   size, NULL, NULL);
}

/* Every locale it takes is formatted as en-US; LOCALE_INVARIANT as itself. */
static int locale_known(LCID lcid)
{
	return lcid == LOCALE_USER_DEFAULT || lcid == LOCALE_SYSTEM_DEFAULT ||
		lcid == LOCALE_NEUTRAL || lcid == LOCALE_INVARIANT ||
		lcid == LOCALE_CUSTOM_DEFAULT ||
		lcid == LOCALE_CUSTOM_UI_DEFAULT ||
		lcid == MAKELCID(MAKELANGID(LANG_ENGLISH, SUBLANG_DEFAULT),
				 SORT_DEFAULT);
}

static int get_date_format(LCID lcid, DWORD flags, const SYSTEMTIME *date,
			   const void *pic, int wide, void *buf, int size)
{
	DWORD kind = flags & ~(DWORD)(LOCALE_NOUSEROVERRIDE |
				      LOCALE_USE_CP_ACP);
	struct nls_out o = { .len = 0 };
	SYSTEMTIME now;
	const char *fmt;

	/* A NULL buffer with a size is "too small", as Windows says. */
	if (size && !buf) {
		SetLastError(ERROR_INSUFFICIENT_BUFFER);
		return 0;
	}
	if (size < 0 || !locale_known(lcid)) {
		SetLastError(ERROR_INVALID_PARAMETER);
		return 0;
	}
	/* With a picture, no format flag; without, at most one. */
	if ((pic && kind) ||
	    (kind & ~(DWORD)(DATE_SHORTDATE | DATE_LONGDATE |
			     DATE_YEARMONTH)) ||
	    (kind & (kind - 1))) {
		SetLastError(ERROR_INVALID_FLAGS);
		return 0;
	}
	if (!date) {
		local_now(&now);
		date = &now;
	}
	if (!date_valid(date)) {
		SetLastError(ERROR_INVALID_PARAMETER);
		return 0;
	}
	if (pic) {
		format_picture(&o, pic, wide, date, 1, 0);
	} else {
		fmt = kind == DATE_LONGDATE ? LONG_DATE :
			kind == DATE_YEARMONTH ? YEAR_MONTH :
			lcid == LOCALE_INVARIANT ? INVARIANT_SHORT_DATE :
			SHORT_DATE;
		format_picture(&o, fmt, 0, date, 1, 0);
	}
	return nls_result(&o, buf, size, wide);
}

static int get_time_format(LCID lcid, DWORD flags, const SYSTEMTIME *time,
			   const void *pic, int wide, void *buf, int size)
{
	struct nls_out o = { .len = 0 };
	SYSTEMTIME now;

	/* A NULL buffer with a size is "too small", as Windows says. */
	if (size && !buf) {
		SetLastError(ERROR_INSUFFICIENT_BUFFER);
		return 0;
	}
	if (size < 0 || !locale_known(lcid)) {
		SetLastError(ERROR_INVALID_PARAMETER);
		return 0;
	}
	if (flags & ~(DWORD)(TIME_NOMINUTESORSECONDS | TIME_NOSECONDS |
			     TIME_NOTIMEMARKER | TIME_FORCE24HOURFORMAT |
			     LOCALE_NOUSEROVERRIDE | LOCALE_USE_CP_ACP)) {
		SetLastError(ERROR_INVALID_FLAGS);
		return 0;
	}
	if (!time) {
		local_now(&now);
		time = &now;
	}
	if (!time_valid(time)) {
		SetLastError(ERROR_INVALID_PARAMETER);
		return 0;
	}
	if (pic)
		format_picture(&o, pic, wide, time, 0, flags);
	else
		format_picture(&o, lcid == LOCALE_INVARIANT ? INVARIANT_TIME :
			       TIME_12, 0, time, 0, flags);
	return nls_result(&o, buf, size, wide);
}

int WINAPI GetDateFormatW(LCID lcid, DWORD flags, const SYSTEMTIME *date,
			  LPCWSTR pic, LPWSTR buf, int size)
{
	return get_date_format(lcid, flags, date, pic, 1, buf, size);
}

int WINAPI GetDateFormatA(LCID lcid, DWORD flags, const SYSTEMTIME *date,
			  LPCSTR pic, LPSTR buf, int size)
{
	return get_date_format(lcid, flags, date, pic, 0, buf, size);
}

int WINAPI GetTimeFormatW(LCID lcid, DWORD flags, const SYSTEMTIME *time,
			  LPCWSTR pic, LPWSTR buf, int size)
{
	return get_time_format(lcid, flags, time, pic, 1, buf, size);
}

int WINAPI GetTimeFormatA(LCID lcid, DWORD flags, const SYSTEMTIME *time,
			  LPCSTR pic, LPSTR buf, int size)
{
	return get_time_format(lcid, flags, time, pic, 0, buf, size);
}
