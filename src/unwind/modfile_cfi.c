/* The CFI rows of a module file (gs_modfile_cfi): built once per build id
 * (files without one: per file) with the default options and the cache's
 * on-disk CFI directory, and kept in the module-file cache's slot for that
 * cookie, which frees them with itself or when the rows are in the maps
 * (gs_modfile_cfi_drop). Rows are this layer's; the files
 * and the slot are the modfile layer's (gs/internal/modfile.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gs/modfile.h>

#include "unwind_int.h"

/* A slot's table, and the cache file its arrays lie in when mapped. */
struct slot_table {
	struct gs_cfi_table t; /* first: the slot's table pointer is this */
	struct uw_cfi_mapping map;
};

static void table_free(void *table)
{
	struct slot_table *st = table;

	uw_cfi_table_unmap(&st->t, &st->map);
	free(st);
}

int gs_modfile_cfi(struct gs_modfile *m, const struct gs_cfi_table **out, struct gs_error *err)
{
	const char *dir;
	struct mf_cfi_slot *s = mf_modfile_cfi_slot(m, &dir);

	*out = NULL;
	if (!s)
		return gs_errorf(err, -ENOMEM, "out of memory reading the CFI of %s",
				 gs_modfile_path(m));
	if (!s->filled) {
		struct gs_cfi_opts co = { .sz = sizeof(co), .cache_dir = dir };
		struct gs_error why;

		s->filled = true;
		s->table = calloc(1, sizeof(struct slot_table));
		if (!s->table) {
			s->rc = -ENOMEM;
			return gs_errorf(err, s->rc, "out of memory reading the CFI of %s",
					 gs_modfile_path(m));
		}
		s->fini = table_free;
		s->rc = uw_cfi_table_build(gs_modfile_elf(m), &co, UW_CFI_SPLIT_MIN_FDES,
					   &((struct slot_table *)s->table)->t,
					   &((struct slot_table *)s->table)->map, &why);
		if (s->rc)
			s->msg = strdup(why.msg);
	}
	if (s->rc && !s->msg)
		return gs_errorf(err, s->rc, "out of memory reading the CFI of %s",
				 gs_modfile_path(m));
	if (s->rc)
		return gs_errorf(err, s->rc, "%s: %s", gs_modfile_path(m), s->msg);
	*out = s->table;
	return 0;
}

void gs_modfile_cfi_drop(struct gs_modfile *m)
{
	const char *dir;
	struct mf_cfi_slot *s = m ? mf_modfile_cfi_slot(m, &dir) : NULL;

	if (!s || !s->filled || s->rc || !s->table)
		return; /* a failure is kept: reading again would fail again */
	s->fini(s->table);
	s->table = NULL;
	s->fini = NULL;
	s->filled = false;
}
