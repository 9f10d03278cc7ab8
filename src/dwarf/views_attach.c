/* Which recognizer a struct or class is shown to, by its unit's language:
 * the C++ one (views_cpp.c) or the Rust one (views_rust.c). Above both, so
 * the helpers they share (views.c) call neither. */
#include "views_int.h"

static int language(Dwarf_Die *die)
{
	Dwarf_Die cu;

	return dwarf_diecu(die, &cu, NULL, NULL) ? dwarf_srclang(&cu) : -1;
}

void dwv_view_attach(struct gs_dwarf *d, Dwarf_Die *die, struct gs_type *t)
{
	const struct gs_view *v = NULL;

	switch (language(die)) {
	case DW_LANG_Rust:
		v = dwv_view_rust(d, die, t);
		break;
	case DW_LANG_C_plus_plus:
	case DW_LANG_C_plus_plus_03:
	case DW_LANG_C_plus_plus_11:
	case DW_LANG_C_plus_plus_14:
		v = dwv_view_cpp(d, die, t);
		break;
	default:
		break;
	}
	if (v)
		t->view = v;
}
