// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * wevt_fuzz: libFuzzer target; each input is a PE file, its compiled
 * manifest (WEVT_TEMPLATE) loaded and its events decoded
 * (etw_fuzz_wevt()).
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
	etw_fuzz_wevt(data, size);
	return 0;
}
