/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * wbemidl.h - WMI's COM interfaces (IWbemServices, IWbemClassObject ...)
 * are not part of libetw: there is no WMI to query for MOF classes.  TDH
 * samples include this header without using them, so it brings in
 * <windows.h> only, and code that does use them fails to compile,
 * naming what it lacks.
 */
#include <windows.h>
