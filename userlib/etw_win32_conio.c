// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * etw_win32_conio.c - <conio.h>'s _getch, _getche and _kbhit.  Windows
 * reads them from the console: here that is standard input.  A terminal
 * is switched, for the call only, to delivering each key as it is typed
 * without echo, as the console does; anything else (a pipe, a file) is
 * read a byte at a time, and at its end _getch returns EOF (Windows has
 * no error return: its console does not end).  Keys that send several
 * bytes (the arrows' escape sequences) come a byte a call, where Windows
 * returns 0 or 0xE0 and then a scan code.
 *
 * The console's output is not buffered, so a prompt printed without a
 * newline is on the screen when _getch waits: standard output is flushed
 * first for the same effect.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <termios.h>
#include <unistd.h>

#include <conio.h>

/* Keys as typed, without echo; 0 when fd 0 is no terminal. */
static int keys_on(struct termios *saved)
{
	struct termios raw;

	if (tcgetattr(STDIN_FILENO, saved))
		return 0;
	raw = *saved;
	raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
	raw.c_cc[VMIN] = 1;
	raw.c_cc[VTIME] = 0;
	return !tcsetattr(STDIN_FILENO, TCSANOW, &raw);
}

static void keys_off(const struct termios *saved)
{
	tcsetattr(STDIN_FILENO, TCSANOW, saved);
}

static int read_key(int echo)
{
	struct termios saved;
	unsigned char c;
	ssize_t n;
	int tty;

	fflush(stdout);
	tty = keys_on(&saved);
	do
		n = read(STDIN_FILENO, &c, 1);
	while (n < 0 && errno == EINTR);
	if (tty)
		keys_off(&saved);
	if (n != 1)
		return EOF;
	if (echo) {
		putchar(c);
		fflush(stdout);
	}
	return c;
}

int etw_crt_getch(void)
{
	return read_key(0);
}

int etw_crt_getche(void)
{
	return read_key(1);
}

/*
 * A key typed before the call is in the terminal's line buffer, which
 * the switch to keys as typed makes readable; the end of a pipe or file
 * counts as a key, so that a wait for one ends.
 */
int etw_crt_kbhit(void)
{
	struct pollfd p = { .fd = STDIN_FILENO, .events = POLLIN };
	struct termios saved;
	int tty, n;

	fflush(stdout);
	tty = keys_on(&saved);
	do
		n = poll(&p, 1, 0);
	while (n < 0 && errno == EINTR);
	if (tty)
		keys_off(&saved);
	return n > 0 && (p.revents & (POLLIN | POLLHUP | POLLERR));
}
