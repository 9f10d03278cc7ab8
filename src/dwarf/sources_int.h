/* The source-file index's own layout (sources.c: files and lines;
 * sources_funcs.c: functions), private to those two files. */
#ifndef DWV_SOURCES_INT_H
#define DWV_SOURCES_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gs/sources.h>

#include "dwv_int.h"

/* Bounds against hostile DWARF: units per module, DIE nesting and DIEs
 * walked per unit, links followed from a definition to its declaration. */
#define MAX_UNITS (1u << 20)
#define MAX_DEPTH 64
#define MAX_DIES (1u << 22)
#define MAX_LINKS 8

struct src_module {
	const char *path;
	Dwarf *dw; /* the module file's: it outlives the index */
};

/* A unit whose line table names a file. */
struct src_ref {
	uint32_t module;
	Dwarf_Off cu; /* the unit DIE's offset */
};

struct src_func {
	const char *name;
	uint32_t first, last;
};

struct src_file {
	const char *path;
	struct src_ref *refs;
	size_t nrefs, refs_cap;
	uint32_t *lines; /* malloc'd; NULL until read */
	size_t nlines;
	bool lines_read, funcs_read;
	struct src_func *funcs; /* malloc'd */
	size_t nfuncs;
};

struct gs_sources {
	struct gs_arena *arena;
	struct src_module *mods;
	size_t nmods, mods_cap;
	struct src_file **files; /* sorted by path after each module */
	size_t nfiles, files_cap;
	struct src_file **table; /* open addressing by path hash */
	size_t table_cap;
};

/* A unit's line table and the path its rows' file names resolve against. */
struct unit {
	Dwarf_Die die;
	Dwarf_Lines *lines;
	size_t n;
	const char *comp_dir;
};

/* A row with code: not a sequence's end, a statement, a line. */
struct row {
	uint64_t addr;
	uint32_t line;
	const char *file; /* as libdw names it: one pointer per file entry */
};

/* The rows of the unit whose file is path, in the table's (address) order. */
struct file_rows {
	struct row *v;
	size_t n, cap;
};

/* Opens the unit at off: its DIE, line table and comp_dir. */
bool src_unit_open(Dwarf *dw, Dwarf_Off off, struct unit *u);
/* The rows of u whose file is path, by address. 0 or -ENOMEM. */
int src_rows_of(const struct unit *u, const char *path, struct file_rows *out);
/* f's functions, read once from the units that name it. 0 or -errno. */
int src_read_funcs(struct gs_sources *s, struct src_file *f);

#endif /* DWV_SOURCES_INT_H */
