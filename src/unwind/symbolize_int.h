/* Type and parameter spelling shared by symbolize.c and symtype.c. */
#ifndef GS_SYMBOLIZE_INT_H
#define GS_SYMBOLIZE_INT_H

#include <elfutils/libdw.h>
#include <stddef.h>

/* C spelling of a type DIE (NULL: void) into out; returns its length. */
size_t uw_sym_type_name(Dwarf_Die *type, char *out, size_t size);
/* "<type> <name>" of a DW_TAG_formal_parameter, pointers bound to the name. */
size_t uw_sym_param(Dwarf_Die *param, char *out, size_t size);

#endif /* GS_SYMBOLIZE_INT_H */
