/* A DIE's names: its own (DW_AT_name, none when empty) and its qualified
 * one (the namespaces and types around it). Below the type builder and the
 * view recognizers, which both spell names with them, so neither calls
 * into the other for a name. */
#include <stdio.h>
#include <stdlib.h>

#include "dwv_int.h"

const char *dwv_die_name(Dwarf_Die *die)
{
	const char *name = dwarf_diename(die);

	return name && name[0] ? name : NULL;
}

/* "a::b::name" from the namespaces and types holding die. */
const char *dwv_qualified_name(struct gs_dwarf *d, Dwarf_Die *die)
{
	Dwarf_Die *scopes = NULL;
	int n = dwarf_getscopes_die(die, &scopes);
	char buf[512];
	size_t len = 0;
	const char *own = dwv_die_name(die);

	buf[0] = '\0';
	for (int i = n - 1; i >= 1; i--) {
		int tag = dwarf_tag(&scopes[i]);
		const char *sn = dwv_die_name(&scopes[i]);

		if (tag != DW_TAG_namespace && tag != DW_TAG_structure_type &&
		    tag != DW_TAG_class_type && tag != DW_TAG_union_type &&
		    tag != DW_TAG_enumeration_type)
			continue;
		if (!sn)
			sn = "(anonymous namespace)";
		len += (size_t)snprintf(buf + len, len < sizeof(buf) ? sizeof(buf) - len : 0,
					"%s::", sn);
		if (len >= sizeof(buf))
			len = sizeof(buf) - 1;
	}
	free(scopes);
	snprintf(buf + len, sizeof(buf) - len, "%s", own ? own : "?");
	return dwv_strdup(d, buf);
}
