/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/* <WinSock2.h> as Windows code spells it: the file systems of Windows ignore case. */
#include "winsock2.h"
