/*
 * demangle.cc - Itanium C++ names through the C++ runtime's own
 * demangler (abi::__cxa_demangle), for short.c.  The one C++ file of
 * mct: configure builds it only when it finds a C++ compiler and the
 * demangler, and links the C++ runtime only then; without it mangled
 * names pass through (libiberty's demangler is GPL, so not that).
 */
#include "config.h"

#include <cstdlib>
#include <cxxabi.h>

extern "C" char *mct_demangle(const char *);

/* The demangled text (malloc'ed, the caller frees it), or NULL. */
char *
mct_demangle(const char *mangled)
{
	int status = 0;
	char *p = abi::__cxa_demangle(mangled, NULL, NULL, &status);

	if (status != 0) {
		free(p);
		return NULL;
	}
	return p;
}
