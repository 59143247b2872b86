/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * conio.h - of MSVC's console functions, those ETW controller samples
 * wait with for a key before they stop their session: _getch, _getche
 * and _kbhit (libetw's etw_win32_conio.c), on standard input.
 */
#ifndef _INC_CONIO
#define _INC_CONIO

#ifdef __cplusplus
extern "C" {
#endif

int etw_crt_getch(void);
int etw_crt_getche(void);
int etw_crt_kbhit(void);

/* A key from a terminal, without echo and without waiting for Enter. */
int _getch(void) __asm__("etw_crt_getch");
/* The same, echoed to standard output. */
int _getche(void) __asm__("etw_crt_getche");
/* Nonzero when _getch would not wait. */
int _kbhit(void) __asm__("etw_crt_kbhit");

#ifdef __cplusplus
}
#endif

#endif /* _INC_CONIO */
