/* Linked into the static gstrace only (src/gstrace/meson.build): libiberty's
 * D demangler, which gstrace's demangling never calls, kept out of the
 * binary (d-demangle.o, 16.5 kB; docs/cli.md, "The static binary").
 *
 * gstrace demangles through cplus_demangle() with DMGL_AUTO (src/events/
 * demangle.c, src/dwarf/qualified.c). That tries Rust, then the C++ (and
 * Java) V3 ABI, and calls dlang_demangle() only when the options carry
 * DMGL_DLANG, or when they carry no style at all and the global style
 * (cplus_demangle_set_style(), which gstrace never calls) is D: with
 * DMGL_AUTO neither holds (libiberty's cplus-dem.c; the test of bit
 * 0x10000 guards the call in Debian's libiberty.a). Should that change,
 * this answers as dlang_demangle() does for a name it cannot demangle: NULL,
 * and the name is shown as it is. Built without LTO: its caller is
 * libiberty.a's machine code. */
#include <stddef.h>

char *dlang_demangle(const char *mangled, int options);

char *dlang_demangle(const char *mangled, int options)
{
	(void)mangled, (void)options;
	return NULL;
}
