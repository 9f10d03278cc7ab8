/* A unit's line tables as gdb 13 builds them (dwarf2/read.c's
 * lnp_state_machine::record_line, buildsym's record_line) and reads them
 * (symtab.c's find_pc_sect_line). gdb does not keep every row of the line
 * program: it keeps one table per source file, drops rows of line 0 and a
 * repeated line that had a discriminator, ends a file's run with a line-0
 * row where another file starts, and deletes rows that such an end meets
 * at the same pc. Where a breakpoint goes depends on what is left (where
 * a "line" ends is where the next kept row starts), so the probe rule
 * reads these tables, not libdw's rows. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base.h"
#include "gdbview.h"

/* One row of libdw's table: the registers of the line program at a row. */
struct raw {
	uint64_t pc;
	int line;
	unsigned disc, op_index;
	bool stmt, end, prologue_end;
	const char *file;
};

static bool read_raw(Dwarf_Lines *lines, size_t i, struct raw *r)
{
	Dwarf_Line *l = dwarf_onesrcline(lines, i);
	Dwarf_Addr pc;

	memset(r, 0, sizeof(*r));
	if (!l || dwarf_lineaddr(l, &pc) != 0 || dwarf_lineno(l, &r->line) != 0)
		return false;
	r->pc = pc;
	dwarf_linebeginstatement(l, &r->stmt);
	dwarf_lineendsequence(l, &r->end);
	dwarf_lineprologueend(l, &r->prologue_end);
	dwarf_linediscriminator(l, &r->disc);
	dwarf_lineop_index(l, &r->op_index);
	r->file = dwarf_linesrc(l, NULL, NULL);
	return r->file != NULL;
}

/* gdb's subfile of a file name: one per distinct path. -1 on ENOMEM. */
static int file_of(struct gv_unit *u, const char *name)
{
	for (size_t i = 0; i < u->nfiles; i++)
		if (strcmp(u->files[i].name, name) == 0)
			return (int)i;
	if (base_grow((void **)&u->files, &u->fcap, u->nfiles + 1, sizeof(*u->files)))
		return -1;
	u->files[u->nfiles] = (struct gv_file){ .name = name };
	return (int)u->nfiles++;
}

/* buildsym_compunit::record_line: a line-0 row first deletes the rows at
 * its pc, and is not kept after nothing or after another line-0 row. */
static int record(struct gv_file *f, int line, uint64_t pc, bool stmt, bool prologue_end,
		  uint32_t order)
{
	if (line == 0) {
		bool seen = false;
		int last = 0;

		while (f->n) {
			seen = true;
			last = f->v[f->n - 1].line;
			if (f->v[f->n - 1].pc != pc)
				break;
			f->n--;
		}
		if (!seen || last == 0)
			return 0;
	}
	if (base_grow((void **)&f->v, &f->cap, f->n + 1, sizeof(*f->v)))
		return -ENOMEM;
	f->v[f->n++] = (struct gv_row){ .pc = pc, .line = line, .stmt = stmt,
					 .prologue_end = prologue_end, .order = order };
	return 0;
}

/* The state of gdb's line-program reader over one sequence. */
struct seq {
	int cur;            /* the builder's current subfile */
	int last_sub;       /* m_last_subfile (-1: none yet) */
	int last_line;      /* m_last_line */
	uint64_t last_pc;   /* m_last_address */
	bool stmt_at_pc;    /* m_stmt_at_address */
	bool disc;          /* m_line_has_non_zero_discriminator */
	const char *file;   /* the file register's path */
	int line;           /* the line register */
};

static void seq_start(struct seq *s, int first_file, const char *first_name)
{
	*s = (struct seq){ .cur = first_file, .last_sub = -1, .file = first_name, .line = 1 };
}

static int finish_line(struct gv_unit *u, int sub, uint64_t pc, uint32_t order)
{
	return sub < 0 ? 0 : record(&u->files[sub], 0, pc, true, false, order);
}

/* lnp_state_machine::record_line for one row (r->end: the sequence's
 * end). The caller has applied the row's file and line changes. */
static int record_row(struct gv_unit *u, struct seq *s, const struct raw *r, uint32_t order)
{
	int rc = 0;

	if (r->op_index == 0 || r->end) {
		bool changed = s->last_sub != s->cur;
		/* A file switch to a non-statement row where a statement row of
		 * the old file is: the switch's line-0 row would delete it. */
		bool ignore = !r->end && ((changed && s->last_pc == r->pc && !r->stmt &&
					   s->stmt_at_pc) || r->line == 0);

		if ((changed && !ignore) || r->end)
			rc = finish_line(u, s->last_sub, r->pc, order);
		if (rc == 0 && !r->end && !ignore) {
			/* dwarf_record_line_p: a repeated line is dropped only when
			 * it had a discriminator (the clang loop idiom), since gcc
			 * repeats a line to mark a prologue's end. */
			if (s->cur >= 0 &&
			    (s->cur != s->last_sub || r->line != s->last_line || !s->disc))
				rc = record(&u->files[s->cur], r->line, r->pc, r->stmt,
					    r->prologue_end, order);
			s->last_sub = s->cur;
			s->last_line = r->line;
		}
	}
	if (s->last_pc != r->pc) {
		s->stmt_at_pc = false;
		s->last_pc = r->pc;
	}
	s->stmt_at_pc |= r->stmt;
	return rc;
}

/* The opcodes that led to row r, as far as they matter: DW_LNS_set_file
 * (m_last_subfile becomes the file being left) and a line advance, each
 * of which restarts the discriminator flag. */
static int apply_registers(struct gv_unit *u, struct seq *s, const struct raw *r)
{
	bool changed = false;

	if (!s->file || strcmp(s->file, r->file) != 0) {
		int f = file_of(u, r->file);

		if (f < 0)
			return -ENOMEM;
		s->last_sub = s->cur;
		s->cur = f;
		s->file = r->file;
		changed = true;
	}
	if (r->line != s->line) {
		s->line = r->line;
		changed = true;
	}
	s->disc = changed ? r->disc != 0 : (s->disc || r->disc != 0);
	return 0;
}

static int row_cmp(const void *a, const void *b)
{
	const struct gv_row *x = a, *y = b;

	if (x->pc != y->pc)
		return x->pc < y->pc ? -1 : 1;
	if ((x->line == 0) != (y->line == 0))
		return x->line == 0 ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* buildsym's stable sort by pc, line-0 rows first at a pc. The rows come
 * in libdw's address order already, but for ties: an insertion sort is
 * linear here where qsort took a fifth of a resolution. */
static void sort_rows(struct gv_file *f)
{
	for (size_t i = 1; i < f->n; i++) {
		struct gv_row r = f->v[i];
		size_t k = i;

		while (k > 0 && row_cmp(&f->v[k - 1], &r) > 0) {
			f->v[k] = f->v[k - 1];
			k--;
		}
		f->v[k] = r;
	}
}

int gv_lines_build(struct gv_unit *u, Dwarf_Die *cudie)
{
	Dwarf_Lines *lines;
	Dwarf_Files *files;
	size_t n, nf;
	const char *first = NULL;
	int first_file = -1, rc = 0;
	struct seq s;
	struct raw r;

	if (dwarf_getsrclines(cudie, &lines, &n) != 0)
		return 0;
	/* Each sequence starts in file 1 (gdb starts its subfile then). */
	if (dwarf_getsrcfiles(cudie, &files, &nf) == 0 && nf > 1)
		first = dwarf_filesrc(files, 1, NULL, NULL);
	if (first && (first_file = file_of(u, first)) < 0)
		return -ENOMEM;
	seq_start(&s, first_file, first);
	for (size_t i = 0; i < n && rc == 0; i++) {
		if (!read_raw(lines, i, &r))
			continue;
		/* A function the linker dropped keeps its rows at address 0:
		 * gdb ignores such a sequence (check_line_address). */
		if (u->low > 0 && r.pc < u->low)
			continue;
		if (!r.end)
			rc = apply_registers(u, &s, &r);
		if (rc == 0)
			rc = record_row(u, &s, &r, (uint32_t)i);
		if (r.end)
			seq_start(&s, first_file, first);
	}
	for (size_t i = 0; i < u->nfiles; i++)
		sort_rows(&u->files[i]);
	return rc;
}

void gv_lines_free(struct gv_unit *u)
{
	for (size_t i = 0; i < u->nfiles; i++)
		free(u->files[i].v);
	free(u->files);
	u->files = NULL;
	u->nfiles = u->fcap = 0;
}

struct row_key {
	const struct gv_file *f;
	uint64_t pc;
};

static bool row_at_or_before(const void *ctx, size_t i)
{
	const struct row_key *k = ctx;

	return k->f->v[i].pc <= k->pc;
}

/* The first row of f past pc (f->n when none). */
static size_t upper_bound(const struct gv_file *f, uint64_t pc)
{
	struct row_key k = { f, pc };

	return base_lower_bound(0, f->n, &k, row_at_or_before);
}

struct gv_sal gv_find_line(const struct gv_unit *u, uint64_t pc)
{
	const struct gv_row *best = NULL, *alt = NULL;
	struct gv_sal sal = { .pc = pc, .file = -1 };
	uint64_t best_end = 0;
	int best_file = -1;

	for (size_t k = 0; k < u->nfiles; k++) {
		const struct gv_file *f = &u->files[k];
		const struct gv_row *item, *prev = NULL;

		if (!f->n)
			continue;
		/* The file whose first row comes soonest after pc ends a row
		 * that no later row of its own file ends. */
		if (f->v[0].pc > pc && (!alt || f->v[0].pc < alt->pc))
			alt = &f->v[0];
		item = &f->v[upper_bound(f, pc)];
		if (item != f->v)
			prev = item - 1;
		if (prev && prev->line && (!best || prev->pc > best->pc)) {
			best = prev;
			best_file = (int)k;
			/* A non-statement row: a statement row at its pc wins. */
			if (!best->stmt) {
				const struct gv_row *t = best;

				while (t > f->v && t[-1].pc == t->pc && t[-1].line != 0 && !t->stmt)
					t--;
				if (t->stmt)
					best = t;
			}
			if (best_end <= best->pc)
				best_end = 0;
		}
		if (best && item < f->v + f->n && item->pc > best->pc &&
		    (best_end == 0 || best_end > item->pc))
			best_end = item->pc;
	}
	if (!best)
		return sal;
	sal.line = best->line;
	sal.pc = best->pc;
	sal.file = best_file;
	if (best_end && (!alt || best_end < alt->pc))
		sal.end = best_end;
	else if (alt)
		sal.end = alt->pc;
	else
		sal.end = u->high;
	return sal;
}
