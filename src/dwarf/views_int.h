/* The dwarf layer's recognizers of standard-library types: the DIE
 * helpers they share (views.c), the recognizers (views_cpp.c,
 * views_rust.c) and the choice between them (views_attach.c), in that
 * order from the bottom: each file calls only the ones before it. */
#ifndef GS_DWARF_VIEWS_INT_H
#define GS_DWARF_VIEWS_INT_H

#include <gs/view.h>

#include "dwv_int.h"

/* Through typedefs and cv qualifiers; false on a broken chain. */
bool vw_strip(Dwarf_Die *t);
/* die's DW_AT_type, stripped. */
bool vw_type_of(Dwarf_Die *die, Dwarf_Die *out);
uint64_t vw_size(Dwarf_Die *t);
/* Member path "a.b.c" of struct s (through C++ base classes): its offset
 * from s's start and its stripped type. */
bool vw_path(Dwarf_Die *s, const char *path, uint32_t *off, Dwarf_Die *out);
/* The first member named `name` anywhere in s, depth first. */
bool vw_find(Dwarf_Die *s, const char *name, uint32_t *off, Dwarf_Die *out);
/* The same, the first that is a pointer. */
bool vw_find_pointer(Dwarf_Die *s, const char *name, uint32_t *off, Dwarf_Die *out);
bool vw_is_pointer(Dwarf_Die *t);
bool vw_pointee(Dwarf_Die *p, Dwarf_Die *out);
/* An integer (or bool, char) base type of `size` bytes. */
bool vw_is_uint(Dwarf_Die *t, uint64_t size);
/* The index-th template type argument (through parameter packs). */
bool vw_template_arg(Dwarf_Die *s, unsigned index, Dwarf_Die *out);
bool vw_name_starts(Dwarf_Die *die, const char *prefix);
/* The first n bytes of s, in the handle's arena. */
const char *vw_strndup(struct gs_dwarf *d, const char *s, size_t n);
struct gs_view *vw_new(struct gs_dwarf *d, uint8_t kind, uint8_t style);
/* The gs_type of a type a view reads through a pointer (inline: the
 * helpers of views.c build no types; the recognizers do). */
static inline const struct gs_type *vw_type(struct gs_dwarf *d, Dwarf_Die *t)
{
	return dwv_type_ref(d, t, false);
}

/* views_cpp.c and views_rust.c: t's view, or NULL when die is no type
 * they recognize (or its members do not validate). */
const struct gs_view *dwv_view_cpp(struct gs_dwarf *d, Dwarf_Die *die, const struct gs_type *t);
const struct gs_view *dwv_view_rust(struct gs_dwarf *d, Dwarf_Die *die, const struct gs_type *t);

#endif /* GS_DWARF_VIEWS_INT_H */
