/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * Where the host tests find their test data (ETL files Windows wrote, the
 * name-to-GUID vectors): the directory TESTDATA, which the Makefile sets
 * from its TESTDATA variable (by default shared/testdata beside the
 * checkout).  A test that reads it starts with REQUIRE_TESTDATA(), so that
 * without the data it is skipped, not failed.  The reason it gives starts
 * with "no Windows sample files in ", which scripts/testsum.py counts as a
 * skip expected where the files are not (README, "The Windows sample
 * files").
 */
#ifndef _TESTDATA_H
#define _TESTDATA_H

#include <errno.h>
#include <string.h>
#include <unistd.h>

#ifndef TESTDATA
#define TESTDATA ""
#endif

/* SKIP the calling harness test when the TESTDATA directory is not there. */
#define REQUIRE_TESTDATA() do {					\
	if (access(TESTDATA, R_OK | X_OK))				\
		SKIP(return, "no Windows sample files in %s (%s): set TESTDATA", \
		     TESTDATA, strerror(errno));			\
} while (0)

#endif /* _TESTDATA_H */
