/*
 * fuzz.h - what the libFuzzer targets of tests/fuzz.sh share: the entry
 * point's prototype and CHECK(), which aborts with a sanitizer report
 * naming the target's file and line when an invariant does not hold.
 * A target defines FUZZ_NAME (its file's name) before including this.
 */
#ifndef FUZZ_H
#define FUZZ_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#if defined(__has_include)
#if __has_include(<sanitizer/common_interface_defs.h>)
#include <sanitizer/common_interface_defs.h>
#define HAVE_SANITIZER_REPORT 1
#endif
#endif

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

#define CHECK(cond, what) do {						\
	if (!(cond))							\
		fail(__LINE__, (what));					\
} while (0)

static void
fail(int line, const char *what)
{
	char msg[512];

	snprintf(msg, sizeof(msg), FUZZ_NAME ":%d: invariant failed: %s",
	    line, what);
	fprintf(stderr, "%s\n", msg);
#ifdef HAVE_SANITIZER_REPORT
	__sanitizer_report_error_summary(msg);
#endif
	abort();
}

#endif /* FUZZ_H */
