/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * <windows.h> first, then the standard headers a provider or consumer
 * source file also includes: nothing <windows.h> defines may break them.
 */
#include <windows.h>
#include <evntrace.h>

#ifdef __cplusplus
#include <algorithm>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>
#else
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <wchar.h>
#endif

int main(void)
{
	return 0;
}
