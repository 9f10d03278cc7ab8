/* Line-table queries for target resolution: where a function's body starts
 * after its prologue, which addresses start the statements of a source
 * line (`trace file.c:42`), and where gdb's `break file.c:42` stops when
 * that line is a function's entry (its `{` or signature line). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <dwarf.h>

#include <gs/modfile.h>

#include "dwv_int.h"
#include <gs/internal/dwarf.h>

/* One line-table entry, the fields the queries use. */
struct entry {
	uint64_t addr;
	int line;
	bool stmt, end, prologue_end;
	const char *file;
};

static bool read_entry(Dwarf_Lines *lines, size_t i, struct entry *e)
{
	Dwarf_Line *l = dwarf_onesrcline(lines, i);
	Dwarf_Addr addr;

	memset(e, 0, sizeof(*e));
	if (!l || dwarf_lineaddr(l, &addr) != 0 || dwarf_lineno(l, &e->line) != 0)
		return false;
	e->addr = addr;
	dwarf_linebeginstatement(l, &e->stmt);
	dwarf_lineendsequence(l, &e->end);
	dwarf_lineprologueend(l, &e->prologue_end);
	e->file = dwarf_linesrc(l, NULL, NULL);
	return true;
}

/* The CU whose ranges hold addr: .debug_aranges, else (clang emits none)
 * each CU's own ranges. */
static bool cu_at(Dwarf *dw, uint64_t addr, Dwarf_Die *out)
{
	Dwarf_Off off = 0, next;
	size_t hsize;

	if (dwarf_addrdie(dw, addr, out))
		return true;
	while (dwarf_next_unit(dw, off, &next, &hsize, NULL, NULL, NULL, NULL, NULL, NULL) == 0) {
		if (dwarf_offdie(dw, off + hsize, out) && dwarf_haspc(out, addr) > 0)
			return true;
		off = next;
	}
	return false;
}

uint64_t dwv_skip_prologue(Dwarf *dw, uint64_t low, uint64_t high)
{
	Dwarf_Die cudie;
	Dwarf_Lines *lines;
	size_t n;
	struct entry e;
	int entry_line = -1;
	uint64_t second = low, next_row = low;
	bool have_second = false;

	if (!dw || !cu_at(dw, low, &cudie) || dwarf_getsrclines(&cudie, &lines, &n) != 0)
		return low;
	/* libdw sorts the table by address, so the function's entries are a run. */
	for (size_t i = 0; i < n; i++) {
		if (!read_entry(lines, i, &e) || e.end || e.addr < low || e.addr >= high)
			continue;
		if (e.prologue_end)
			return e.addr;
		if (entry_line < 0)
			entry_line = e.line;
		else if (!have_second && e.line != entry_line && e.line != 0) {
			second = e.addr;
			have_second = true;
		}
		if (next_row == low && e.addr > low && e.line != 0)
			next_row = e.addr;
	}
	/* A function on one line (`int f(int v) { return v + 1; }`): its rows
	 * all say that line, and the prologue ends where its second row
	 * starts, as gdb's skip_prologue_using_sal finds (the end of the
	 * entry's row) */
	return have_second ? second : next_row;
}

bool dwv_die_entry(Dwarf_Die *die, uint64_t *entry, uint64_t *end)
{
	Dwarf_Addr e, base, lo, hi;
	ptrdiff_t off = 0;

	if (dwarf_entrypc(die, &e) != 0)
		return false;
	*entry = e;
	*end = e + 1;
	while ((off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0)
		if (lo <= e && e < hi) {
			*end = hi;
			break;
		}
	return true;
}

struct entry_search {
	uint64_t addr;
	uint64_t entry, end; /* the function whose prologue holds addr */
	bool found;
};

static int prologue_holds(Dwarf_Die *die, void *arg)
{
	struct entry_search *s = arg;
	uint64_t entry, end;

	if (dwarf_hasattr(die, DW_AT_declaration) || !dwv_die_entry(die, &entry, &end) ||
	    s->addr < entry || s->addr >= end)
		return DWARF_CB_OK;
	s->entry = entry;
	s->end = end;
	s->found = true;
	return DWARF_CB_ABORT;
}

/* The line of the first row at addr (a statement's first), or 0. */
static int line_at(Dwarf_Lines *lines, size_t n, uint64_t addr)
{
	struct entry e;
	int any = 0;

	for (size_t i = 0; i < n; i++) {
		if (!read_entry(lines, i, &e) || e.end || e.addr != addr || e.line == 0)
			continue;
		if (e.stmt)
			return e.line;
		if (!any)
			any = e.line;
	}
	return any;
}

/* gdb's skip_prologue_sal for a line's address: one before the end of the
 * prologue of the out-of-line function it lies in moves to where
 * `break FN` stops, the same skipper's answer; later ones stay. */
bool dwv_line_past_prologue(Dwarf *dw, uint64_t addr, struct dwv_line_move *out)
{
	struct entry_search s = { .addr = addr };
	Dwarf_Die cudie;
	Dwarf_Lines *lines;
	size_t n;
	uint64_t body;

	memset(out, 0, sizeof(*out));
	if (!dw || !cu_at(dw, addr, &cudie))
		return false;
	dwarf_getfuncs(&cudie, prologue_holds, &s, 0);
	if (!s.found)
		return false;
	body = dwv_skip_prologue(dw, s.entry, s.end);
	if (addr >= body)
		return false;
	out->entry = s.entry;
	out->body = body;
	if (dwarf_getsrclines(&cudie, &lines, &n) == 0)
		out->body_line = line_at(lines, n, body);
	return true;
}

bool dwv_line_of(Dwarf *dw, uint64_t addr, const char **file, int *line)
{
	Dwarf_Die cudie;
	Dwarf_Line *l;

	*file = NULL;
	*line = 0;
	if (!dw || !cu_at(dw, addr, &cudie) || !(l = dwarf_getsrc_die(&cudie, addr)) ||
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

struct line_scan {
	const char *want;
	int line;        /* asked */
	int best;        /* smallest line >= asked with a statement, or INT_MAX */
	int last;        /* largest line with a statement in a matching file */
	bool file_seen;
	uint64_t *addrs;
	size_t n, cap;
};

/* Pass 1 (collect false): the line to use. Pass 2: the addresses where a
 * sequence enters that line (not every row of a line's run). */
static int scan_cu(struct line_scan *s, Dwarf_Lines *lines, size_t n, bool collect)
{
	struct entry e, prev = { .end = true };

	for (size_t i = 0; i < n; i++, prev = e) {
		if (!read_entry(lines, i, &e)) {
			e = (struct entry){ .end = true };
			continue;
		}
		if (e.end || !e.stmt || !dwv_path_names(e.file, s->want))
			continue;
		s->file_seen = true;
		if (e.line > s->last)
			s->last = e.line;
		if (!collect) {
			if (e.line >= s->line && e.line < s->best)
				s->best = e.line;
			continue;
		}
		if (e.line != s->best)
			continue;
		if (!prev.end && prev.line == e.line && prev.file && strcmp(prev.file, e.file) == 0)
			continue;
		if (base_grow((void **)&s->addrs, &s->cap, s->n + 1, sizeof(*s->addrs)))
			return -ENOMEM;
		s->addrs[s->n++] = e.addr;
	}
	return 0;
}

static int scan_all(Dwarf *dw, struct line_scan *s, bool collect)
{
	Dwarf_CU *cu = NULL, *next;
	Dwarf_Die cudie;
	uint8_t unit_type;
	Dwarf_Half version;
	int rc;

	while (dwarf_get_units(dw, cu, &next, &version, &unit_type, &cudie, NULL) == 0) {
		Dwarf_Lines *lines;
		size_t n;

		cu = next;
		if (dwarf_getsrclines(&cudie, &lines, &n) != 0)
			continue;
		rc = scan_cu(s, lines, n, collect);
		if (rc)
			return rc;
	}
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int dwv_line_addrs(Dwarf *dw, const char *module, const char *input, const char *file, int line,
		  uint64_t **addrs, size_t *n, int *used_line, struct gs_error *err)
{
	struct line_scan s = { .want = file, .line = line, .best = __INT_MAX__, .last = 0 };
	size_t k = 0;
	int rc;

	*addrs = NULL;
	*n = 0;
	scan_all(dw, &s, false);
	if (!s.file_seen)
		return gs_errorf(err, -ENOENT, "`%s`: no source file matching %s in the line "
				 "tables of %s; give the file's path or a suffix of it as it "
				 "was compiled (e.g. src/%s)", input, file, module, file);
	if (s.best == __INT_MAX__)
		return gs_errorf(err, -ENOENT, "`%s`: no code at or after line %d of %s in %s "
				 "(its last line with code is %d)", input, line, file, module,
				 s.last);
	rc = scan_all(dw, &s, true);
	if (rc) {
		free(s.addrs);
		return gs_errorf(err, rc, "out of memory collecting the addresses of `%s`", input);
	}
	qsort(s.addrs, s.n, sizeof(*s.addrs), cmp_u64);
	for (size_t i = 0; i < s.n; i++)
		if (k == 0 || s.addrs[k - 1] != s.addrs[i])
			s.addrs[k++] = s.addrs[i];
	*addrs = s.addrs;
	*n = k;
	*used_line = s.best;
	return 0;
}
