/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/* <In6addr.h> as Windows code spells it: the file systems of Windows ignore case. */
#include "in6addr.h"
