/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/* <Ws2ipdef.h> as Windows code spells it: the file systems of Windows ignore case. */
#include "ws2ipdef.h"
