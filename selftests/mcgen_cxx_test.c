// SPDX-License-Identifier: GPL-2.0
/*
 * mcgen_test with its provider units, mcgen_tu1.c and mcgen_tu2.c, built
 * as C++17 (see the Makefile): the same tests, the same header.
 */
#define MCGEN_LANG	"cxx"
#include "mcgen_test.c"
