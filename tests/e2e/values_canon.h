/* How the values differential test compares gdb's `print` with gstrace's:
 * both texts become token lists in which what only one side shows is left
 * out (gdb's `(type *)` casts, the `<symbol>` after a code address, the
 * character after a char's number; a char pointer's string is compared),
 * strings compare by their bytes (gdb escapes in octal, gstrace in hex)
 * and floats by value to float precision (gdb prints 9 or 17 digits,
 * gstrace the shortest that reads back). */
#ifndef GS_E2E_VALUES_CANON_H
#define GS_E2E_VALUES_CANON_H

#include <stdbool.h>
#include <stddef.h>

enum vc_kind {
	VC_MATCH,          /* the same value */
	VC_BOTH_OPTIMIZED, /* both say <optimized out> */
	/* gdb prints a value, gstrace <optimized out>: failures, named by what
	 * --list-vars says of the location, unless the test lists the case as
	 * a known exception (VC_KNOWN) */
	VC_PARTIAL,        /* gdb shows some pieces, some <optimized out> */
	VC_ENTRY_VALUE,    /* gdb computes a DW_OP_entry_value from the caller */
	VC_UNSUPPORTED,    /* gdb evaluates a DWARF expression gstrace does not */
	VC_MISMATCH,       /* two values that differ: a failure */
	VC_GDB_ONLY,       /* gstrace says <optimized out> or nothing, gdb a value,
			    * with no documented reason: a failure */
	VC_OURS_ONLY,      /* gdb has no value (no symbol, an error): a failure */
	VC_KNOWN,          /* gdb a value, gstrace <optimized out>, listed with its
			    * DWARF expression and reason: not a failure */
	VC_KINDS,
};

/* gdb's text (NULL: it printed none), gstrace's (NULL: none), and where
 * --list-vars says the value lives. */
enum vc_kind vc_classify(const char *gdb, const char *ours, const char *where);
const char *vc_label(enum vc_kind k);
bool vc_failure(enum vc_kind k);

/* The canonical token text of a value as `from_gdb` or gstrace prints it. */
void vc_canon(const char *text, bool from_gdb, char *out, size_t size);

#endif /* GS_E2E_VALUES_CANON_H */
