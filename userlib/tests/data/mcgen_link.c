/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * Linked with selftests/mcgen_tu1.c and mcgen_tu2.c (built as C or C++)
 * by mcgen_windows_test: both units see one copy of every
 * __declspec(selectany) object of the mc.exe-shaped header, and an enable
 * that one unit's callback records shows in the other's EventEnabled
 * macros.  Exits with 0, or 1 after saying what differed.
 */
#include <stdio.h>

#include <evntrace.h>

#include "mcgen_provider.h"

int main(void)
{
	struct mcgen_view a, b;

	mcgen_tu1_view(&a);
	mcgen_tu2_view(&b);
	if (a.context != b.context || a.enable_bits != b.enable_bits ||
	    a.mask != a.enable_bits || a.guid != b.guid ||
	    a.descriptor != b.descriptor) {
		fprintf(stderr, "units see different objects\n");
		return 1;
	}
	/* Level 4, keyword 0x2: TransferStart (bit 0) and Failure (bit 3). */
	mcgen_callback(EVENT_CONTROL_CODE_ENABLE_PROVIDER, 4, 0x2, 0);
	mcgen_tu2_view(&b);
	if (b.enabled != 0x9 || b.bits != 0x9) {
		fprintf(stderr, "enabled %#x bits %#x, want 0x9\n", b.enabled,
			b.bits);
		return 1;
	}
	return 0;
}
