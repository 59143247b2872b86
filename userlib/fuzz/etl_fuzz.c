// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * etl_fuzz: libFuzzer target; each input is an .etl file, opened and
 * processed twice (etw_fuzz_etl()).
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
	etw_fuzz_etl(data, size);
	return 0;
}
