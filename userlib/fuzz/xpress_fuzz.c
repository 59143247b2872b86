// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * xpress_fuzz: libFuzzer target; each input is an XPRESS plain LZ77
 * stream, inflated, and what came out (or the input itself, when it did
 * not inflate) compressed and inflated again (etw_fuzz_xpress()).
 */
#include "etw_fuzz_entry.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/**
 * LLVMFuzzerTestOneInput - libFuzzer's entry point
 * @data: the input
 * @size: its size
 *
 * Return: 0 (the input is kept in the corpus when it adds coverage).
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	etw_fuzz_xpress(data, size);
	return 0;
}
