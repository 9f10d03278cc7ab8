/* Symbol names as people read them: C++ (Itanium ABI) and Rust (legacy
 * and v0) names through libiberty's cplus_demangle, without the parameter
 * list (DWARF gives the parameters, and gdb names frames the same way). */
#include <stdlib.h>
#include <string.h>

#include <libiberty/demangle.h>

#include "ev_int.h"

char *ev_demangle(const char *name)
{
	/* Only mangled names: a C name never starts with _Z or _R + upper. */
	if (!name || name[0] != '_' || (name[1] != 'Z' && name[1] != 'R'))
		return NULL;
	return cplus_demangle(name, DMGL_AUTO | DMGL_ANSI);
}
