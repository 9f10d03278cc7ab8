/* The locations a target resolves to, distinct by address, as target
 * resolution collects them: the function search (funcs.c), the line
 * tables (srclines.c) and the resolver's other forms (target.c) each add
 * theirs here, below all three, so none calls back into another for the
 * list. */
#include <errno.h>

#include "dwv_int.h"
#include <gs/internal/dwarf.h>

int dwv_loc_add(struct dwv_loc_list *l, uint64_t addr, bool inlined, bool from_dwarf, int line)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i].addr == addr)
			return 0;
	if (base_grow((void **)&l->v, &l->cap, l->n + 1, sizeof(*l->v)))
		return -ENOMEM;
	l->v[l->n++] = (struct dwv_loc){ .addr = addr, .inlined = inlined,
					     .from_dwarf = from_dwarf, .line = line };
	return 0;
}

void dwv_loc_moved(struct dwv_loc_list *l, uint64_t addr, uint64_t entry, int body_line)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i].addr == addr) {
			l->v[i].entry = entry;
			l->v[i].body_line = body_line;
		}
}
