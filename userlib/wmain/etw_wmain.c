// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * etw_wmain.c - libetw-wmain.a: a main() that calls the program's wmain
 * with its arguments and environment as UTF-16 strings, as MinGW-w64's
 * -municode start-up does.  Link it into a program that defines wmain
 * instead of main (and is built with -fshort-wchar, so that its wchar_t
 * is the 16-bit unit these strings have).
 *
 * The wmain found is whichever the program defines: C's, or C++'s
 * wmain(), wmain(int, wchar_t **) and wmain(int, wchar_t **, wchar_t **)
 * by their -fshort-wchar mangled names.  Each reference is weak, so the
 * archive links whichever one exists.
 *
 * It also runs a program whose entry point is void main(), which MSVC
 * accepts and ISO C++ does not, built with -Dmain=etw_void_main: C's
 * etw_void_main, or C++'s etw_void_main(), returning 0 as MSVC's start-up
 * does for a void main.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <windows.h>

extern int etw_wmain_c(int, WCHAR **, WCHAR **)
	__asm__("wmain") __attribute__((__weak__));
extern int etw_wmain_cxx0(void)
	__asm__("_Z5wmainv") __attribute__((__weak__));
extern int etw_wmain_cxx2(int, WCHAR **)
	__asm__("_Z5wmainiPPw") __attribute__((__weak__));
extern int etw_wmain_cxx3(int, WCHAR **, WCHAR **)
	__asm__("_Z5wmainiPPwS0_") __attribute__((__weak__));
extern void etw_void_main_c(void)
	__asm__("etw_void_main") __attribute__((__weak__));
extern void etw_void_main_cxx(void)
	__asm__("_Z13etw_void_mainv") __attribute__((__weak__));

/* A NULL-ended copy of @v as UTF-16 strings, or NULL. */
static WCHAR **widen(int n, char **v)
{
	WCHAR **w = calloc((size_t)n + 1, sizeof(*w));
	int i;

	if (!w)
		return NULL;
	for (i = 0; i < n; i++) {
		int units = MultiByteToWideChar(CP_UTF8, 0, v[i], -1, NULL, 0);

		w[i] = units > 0 ? malloc((size_t)units * sizeof(WCHAR)) : NULL;
		if (!w[i] ||
		    !MultiByteToWideChar(CP_UTF8, 0, v[i], -1, w[i], units))
			return NULL;
	}
	return w;
}

int main(int argc, char **argv, char **envp)
{
	WCHAR **wargv, **wenvp;
	int envc = 0;

	while (envp[envc])
		envc++;
	wargv = widen(argc, argv);
	wenvp = widen(envc, envp);
	if (!wargv || !wenvp) {
		fputs("libetw-wmain: out of memory\n", stderr);
		return 1;
	}
	if (etw_void_main_c || etw_void_main_cxx) {
		if (etw_void_main_c)
			etw_void_main_c();
		else
			etw_void_main_cxx();
		return 0;
	}
	if (etw_wmain_c)
		return etw_wmain_c(argc, wargv, wenvp);
	if (etw_wmain_cxx3)
		return etw_wmain_cxx3(argc, wargv, wenvp);
	if (etw_wmain_cxx2)
		return etw_wmain_cxx2(argc, wargv);
	if (etw_wmain_cxx0)
		return etw_wmain_cxx0();
	fputs("libetw-wmain: the program defines no wmain\n", stderr);
	return 127;
}
