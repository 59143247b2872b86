/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * initguid.h - makes DEFINE_GUID define the GUIDs of the headers included
 * after it in this unit (see <guiddef.h>), as in the Windows SDK.
 */
#ifndef INITGUID
#define INITGUID
#endif
#include <guiddef.h>
