/* Line-table queries for target resolution: the addresses of `trace
 * file.c:42` as gdb's `break file.c:42` finds them (linespec.c's
 * create_sals_line_offset over gdb's line tables: every statement row of
 * the line, one per block, each moved past its function's prologue when
 * it lies in it), and the line of an address. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>

#include <gs/modfile.h>

#include "dwv_int.h"
#include "gdbview.h"
#include <gs/internal/dwarf.h>

bool dwv_line_of(Dwarf *dw, uint64_t addr, const char **file, int *line)
{
	Dwarf_Die cudie;
	Dwarf_Line *l;

	*file = NULL;
	*line = 0;
	if (!dw || !dwv_unit_at(dw, addr, &cudie) || !(l = dwarf_getsrc_die(&cudie, addr)) ||
	    dwarf_lineno(l, line) != 0)
		return false;
	*file = dwarf_linesrc(l, NULL, NULL);
	return true;
}

bool dwv_modfile_line_of(struct gs_modfile *file, uint64_t addr, const char **src, int *line)
{
	uint64_t bias = 0;
	Dwarf *dw = file ? gs_modfile_dwarf(file, &bias) : NULL;

	return dw && dwv_line_of(dw, addr - bias, src, line);
}

/* ---- `break FILE:LINE` ------------------------------------------------------ */

struct line_scan {
	const char *want;
	int line;        /* asked */
	int best;        /* smallest statement line > asked, or INT_MAX */
	int last;        /* largest statement line of a matching file */
	bool file_seen, exact;
};

/* Each unit with its line tables (the unit order of the module). */
static int each_unit(struct gv_view *v, int (*fn)(struct gv_view *, struct gv_unit *, void *),
		     void *arg)
{
	Dwarf_CU *cu = NULL, *next;
	Dwarf_Die cudie;
	uint8_t unit_type;
	Dwarf_Half version;
	int rc = 0;

	while (rc == 0 && dwarf_get_units(v->dw, cu, &next, &version, &unit_type, &cudie, NULL) == 0) {
		struct gv_unit *u;

		cu = next;
		if (unit_type != DW_UT_compile && unit_type != DW_UT_partial)
			continue;
		u = gv_unit_of(v, &cudie, &rc);
		if (u)
			rc = fn(v, u, arg);
	}
	return rc;
}

/* find_line_common over every matching file: an exact statement row of
 * the line, else the smallest statement line after it. */
static int scan_unit(struct gv_view *v, struct gv_unit *u, void *arg)
{
	struct line_scan *s = arg;

	(void)v;
	for (size_t k = 0; k < u->nfiles; k++) {
		const struct gv_file *f = &u->files[k];

		if (!dwv_path_names(f->name, s->want))
			continue;
		s->file_seen = true;
		for (size_t i = 0; i < f->n; i++) {
			int line = f->v[i].line;

			if (!f->v[i].stmt || line <= 0)
				continue;
			if (line == s->line)
				s->exact = true;
			if (line > s->line && line < s->best)
				s->best = line;
			if (line > s->last)
				s->last = line;
		}
	}
	return 0;
}

struct line_pick {
	const char *want;
	int line;
	struct dwv_loc_list *out;
	uint64_t bias;
	/* the blocks a row was taken from: gdb takes one row of a block */
	Dwarf_Off *blocks;
	size_t nblocks, cap;
};

static bool block_seen(const struct line_pick *p, Dwarf_Off b)
{
	for (size_t i = 0; i < p->nblocks; i++)
		if (p->blocks[i] == b)
			return true;
	return false;
}

/* One row of the line per block (a `for` split over two ranges gets one
 * probe), each past its function's prologue when it is in it. */
static int pick_unit(struct gv_view *v, struct gv_unit *u, void *arg)
{
	struct line_pick *p = arg;
	int rc = 0;

	for (size_t k = 0; k < u->nfiles && rc == 0; k++) {
		const struct gv_file *f = &u->files[k];

		if (!dwv_path_names(f->name, p->want))
			continue;
		for (size_t i = 0; i < f->n && rc == 0; i++) {
			uint64_t pc = f->v[i].pc, at, entry = 0;
			bool moved;
			Dwarf_Off b;

			if (!f->v[i].stmt || f->v[i].line != p->line)
				continue;
			if ((rc = gv_unit_walk(v, u)) != 0)
				break;
			b = gv_block_at(v, u, pc);
			if (block_seen(p, b))
				continue;
			if (base_grow((void **)&p->blocks, &p->cap, p->nblocks + 1, sizeof(*p->blocks)))
				return -ENOMEM;
			p->blocks[p->nblocks++] = b;
			at = gv_break_line(v, pc, &moved, &entry);
			rc = dwv_loc_add(p->out, at + p->bias, false, true, p->line);
			if (rc == 0 && moved)
				dwv_loc_moved(p->out, at + p->bias, entry + p->bias,
					      gv_find_line(u, at).line);
		}
	}
	return rc;
}

int dwv_line_locs(struct gv_view *v, uint64_t bias, const char *module, const char *input,
		  const char *file, int line, struct dwv_loc_list *out, struct gs_error *err)
{
	struct line_scan s = { .want = file, .line = line, .best = __INT_MAX__ };
	struct line_pick p = { .want = file, .line = line, .out = out, .bias = bias };
	int rc = each_unit(v, scan_unit, &s);

	if (rc)
		return gs_errorf(err, rc, "out of memory reading the line tables of %s", module);
	if (!s.file_seen)
		return gs_errorf(err, -ENOENT, "`%s`: no source file matching %s in the line "
				 "tables of %s; give the file's path or a suffix of it as it "
				 "was compiled (e.g. src/%s)", input, file, module, file);
	if (!s.exact && s.best == __INT_MAX__)
		return gs_errorf(err, -ENOENT, "`%s`: no code at or after line %d of %s in %s "
				 "(its last line with code is %d)", input, line, file, module,
				 s.last);
	if (!s.exact)
		p.line = s.best;
	rc = each_unit(v, pick_unit, &p);
	free(p.blocks);
	if (rc)
		return gs_errorf(err, rc, "out of memory collecting the addresses of `%s`", input);
	return 0;
}
