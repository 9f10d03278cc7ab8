/* Parses `readelf --debug-dump=frames-interp` into per-FDE rows (see
 * readelf_frames.h), and the raw `--debug-dump=frames` for the FDEs whose
 * CFA is the linker's PLT expression. readelf prints one table per CIE and FDE; an FDE
 * without instructions prints no table and takes its CIE's initial row. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "readelf_frames.h"

#define MAX_COLS 64
#define MAX_CIES 4096

static const char *const reg_names[17] = {
	"rax", "rdx", "rcx", "rbx", "rsi", "rdi", "rbp", "rsp",
	"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "rip",
};

static int reg_number(const char *name)
{
	for (int i = 0; i < 17; i++)
		if (strcmp(name, reg_names[i]) == 0)
			return i;
	if (strcmp(name, "ra") == 0)
		return 16;
	return -2;
}

static struct rf_rule parse_rule(const char *v)
{
	struct rf_rule r = { 'u', 0, -1 };

	if (strcmp(v, "u") == 0)
		return r;
	if (strcmp(v, "s") == 0)
		r.kind = 's';
	else if ((v[0] == 'c' || v[0] == 'v') && (v[1] == '+' || v[1] == '-')) {
		r.kind = v[0];
		r.off = strtoll(v + 1, NULL, 10);
	} else if (strcmp(v, "exp") == 0 || strcmp(v, "vexp") == 0) {
		r.kind = 'x';
	} else {
		r.kind = 'r';
		r.reg = v[0] == 'r' && v[1] >= '0' && v[1] <= '9' ? atoi(v + 1) : reg_number(v);
	}
	return r;
}

struct parser {
	struct rf_frames *f;
	struct rf_fde *cur; /* FDE receiving rows, NULL for a CIE */
	bool debug_frame;
	char cols[MAX_COLS][16];
	int ncols;
	struct rf_row cie_row; /* last row of the current CIE table */
	struct { unsigned long off; struct rf_row row; } cies[MAX_CIES];
	size_t ncies;
	unsigned long cie_off;
	bool in_cie;
};

static void add_row(struct parser *p, const struct rf_row *row)
{
	struct rf_fde *d = p->cur;

	d->rows = realloc(d->rows, (d->nrows + 1) * sizeof(*d->rows));
	d->rows[d->nrows++] = *row;
}

static void parse_row(struct parser *p, char *line)
{
	struct rf_row row = { .ra = { 'u', 0, -1 }, .rsp = { 'u', 0, -1 }, .rbp = { 'u', 0, -1 } };
	char *save, *tok, *paren;
	int col = 0;

	/* Register rules print as "r10 (r10)": drop the parenthesized name. */
	while ((paren = strstr(line, " ("))) {
		char *close = strchr(paren, ')');

		if (!close)
			break;
		memmove(paren, close + 1, strlen(close + 1) + 1);
	}
	tok = strtok_r(line, " \t\n", &save);

	row.loc = strtoull(tok, NULL, 16);
	while ((tok = strtok_r(NULL, " \t\n", &save)) && col < p->ncols) {
		const char *name = p->cols[col++];

		if (strcmp(name, "CFA") == 0) {
			char *sign = strpbrk(tok, "+-");

			if (strcmp(tok, "exp") == 0 || !sign) {
				row.cfa_reg = -1;
				continue;
			}
			row.cfa_off = strtoll(sign, NULL, 10);
			*sign = '\0';
			row.cfa_reg = reg_number(tok);
		} else if (strcmp(name, "ra") == 0) {
			row.ra = parse_rule(tok);
		} else if (strcmp(name, "rsp") == 0) {
			row.rsp = parse_rule(tok);
		} else if (strcmp(name, "rbp") == 0) {
			row.rbp = parse_rule(tok);
		}
	}
	if (p->in_cie) {
		p->cie_row = row;
		if (p->ncies < MAX_CIES) {
			p->cies[p->ncies].off = p->cie_off;
			p->cies[p->ncies++].row = row;
		}
	} else if (p->cur) {
		add_row(p, &row);
	}
}

static void start_fde(struct parser *p, const char *line)
{
	const char *pc = strstr(line, "pc="), *cie = strstr(line, "cie=");
	struct rf_frames *f = p->f;
	struct rf_fde *d;
	unsigned long cie_off = cie ? strtoul(cie + 4, NULL, 16) : 0;

	f->fdes = realloc(f->fdes, (f->n + 1) * sizeof(*f->fdes));
	d = &f->fdes[f->n++];
	memset(d, 0, sizeof(*d));
	d->lo = strtoull(pc + 3, NULL, 16);
	d->hi = strtoull(strstr(pc, "..") + 2, NULL, 16);
	d->debug_frame = p->debug_frame;
	p->cur = d;
	p->in_cie = false;
	/* Until a table shows up, the FDE has its CIE's initial row. */
	for (size_t i = 0; i < p->ncies; i++) {
		if (p->cies[i].off == cie_off) {
			struct rf_row row = p->cies[i].row;

			row.loc = d->lo;
			add_row(p, &row);
			d->nrows = 1;
			break;
		}
	}
}

/* The PLT expression as readelf prints it, around the literal K. */
#define PLT_EXPR_HEAD "DW_CFA_def_cfa_expression (DW_OP_breg7 (rsp): 8; DW_OP_breg16 (rip): 0; " \
		      "DW_OP_lit15; DW_OP_and; DW_OP_lit"
#define PLT_EXPR_TAIL "; DW_OP_ge; DW_OP_lit3; DW_OP_shl; DW_OP_plus)"

/* Marks the FDEs whose raw instructions (`--debug-dump=frames`) define
 * the CFA by the PLT expression, matched by section and range. */
static void mark_plt_fdes(const char *readelf, const char *file, struct rf_frames *f)
{
	char cmd[4096], line[4096];
	bool debug_frame = false;
	uint64_t lo = 0, hi = 0;
	FILE *in;

	snprintf(cmd, sizeof(cmd), "'%s' --debug-dump=frames '%s' 2>/dev/null", readelf, file);
	in = popen(cmd, "r");
	if (!in)
		return;
	while (fgets(line, sizeof(line), in)) {
		const char *pc = strstr(line, "pc="), *expr = strstr(line, PLT_EXPR_HEAD);
		char *tail;
		long k;

		if (strncmp(line, "Contents of the ", 16) == 0)
			debug_frame = strstr(line, ".debug_frame") != NULL;
		if (strstr(line, " FDE ") && pc) {
			lo = strtoull(pc + 3, NULL, 16);
			hi = strtoull(strstr(pc, "..") + 2, NULL, 16);
		}
		if (!expr)
			continue;
		k = strtol(expr + strlen(PLT_EXPR_HEAD), &tail, 10);
		if (k < 1 || k > 15 || strncmp(tail, PLT_EXPR_TAIL, strlen(PLT_EXPR_TAIL)) != 0)
			continue;
		for (size_t i = 0; i < f->n; i++)
			if (f->fdes[i].debug_frame == debug_frame && f->fdes[i].lo == lo &&
			    f->fdes[i].hi == hi)
				f->fdes[i].plt_k = (int)k;
	}
	pclose(in);
}

int rf_load(const char *file, struct rf_frames *out)
{
	const char *readelf = getenv("GS_READELF") ? getenv("GS_READELF") : "readelf";
	struct parser *p = calloc(1, sizeof(*p));
	char cmd[4096], line[4096];
	bool table_started = false;
	FILE *in;

	memset(out, 0, sizeof(*out));
	p->f = out;
	snprintf(cmd, sizeof(cmd), "'%s' --debug-dump=frames-interp '%s' 2>/dev/null", readelf, file);
	in = popen(cmd, "r");
	if (!in) {
		free(p);
		return -1;
	}
	while (fgets(line, sizeof(line), in)) {
		if (strncmp(line, "Contents of the ", 16) == 0) {
			p->debug_frame = strstr(line, ".debug_frame") != NULL;
			p->ncies = 0;
			p->cur = NULL;
			continue;
		}
		if (strstr(line, " CIE")) {
			p->cur = NULL;
			p->in_cie = true;
			p->cie_off = strtoul(line, NULL, 16);
			table_started = false;
			continue;
		}
		if (strstr(line, " FDE ")) {
			start_fde(p, line);
			table_started = false;
			continue;
		}
		if (strncmp(line, "   LOC", 6) == 0) {
			char *save, *tok = strtok_r(line, " \t\n", &save);

			p->ncols = 0;
			while ((tok = strtok_r(NULL, " \t\n", &save)) && p->ncols < MAX_COLS)
				snprintf(p->cols[p->ncols++], sizeof(p->cols[0]), "%s", tok);
			/* A table replaces the inherited CIE row. */
			if (p->cur && !table_started)
				p->cur->nrows = 0;
			table_started = true;
			continue;
		}
		if (table_started && line[0] >= '0' && line[0] <= 'f' && strlen(line) > 17 &&
		    line[16] == ' ')
			parse_row(p, line);
	}
	pclose(in);
	mark_plt_fdes(readelf, file, out);
	for (size_t i = 0; i < out->n; i++)
		for (size_t j = 0; j < out->fdes[i].nrows; j++) {
			const struct rf_fde *d = &out->fdes[i];
			uint64_t end = j + 1 < d->nrows ? d->rows[j + 1].loc : d->hi;

			out->rows += d->rows[j].loc < end;
		}
	free(p);
	return 0;
}

void rf_free(struct rf_frames *f)
{
	for (size_t i = 0; i < f->n; i++)
		free(f->fdes[i].rows);
	free(f->fdes);
	memset(f, 0, sizeof(*f));
}

int rf_expect(const struct rf_fde *d, const struct rf_row *r, uint64_t pc,
	      struct gs_unwind_row *row)
{
	bool plt = r->cfa_reg == -1 && d->plt_k > 0;

	memset(row, 0, sizeof(*row));
	if (r->cfa_reg == -1 && !plt)
		return GS_CFI_DROP_CFA_EXPRESSION;
	if (!plt && r->cfa_reg != GS_DWARF_REG_RSP && r->cfa_reg != GS_DWARF_REG_RBP)
		return GS_CFI_DROP_CFA_REGISTER;
	if (r->ra.kind == 'u')
		return GS_CFI_DROP_RA_UNDEFINED;
	if (r->ra.kind != 'c')
		return GS_CFI_DROP_RA_RULE;
	if (r->rsp.kind == 'x')
		return GS_CFI_DROP_SP_RULE;
	row->cfa_register = plt ? GS_DWARF_REG_RSP : (uint16_t)r->cfa_reg;
	row->cfa_offset = plt ? 8 + ((pc & 15) >= (uint64_t)d->plt_k ? 8 : 0) : r->cfa_off;
	row->ra_kind = GS_RECOVERY_AT_CFA_OFFSET;
	row->ra_offset = r->ra.off;
	row->ra_register = GS_DWARF_REG_RIP;
	row->rbp_register = GS_DWARF_REG_RBP;
	switch (r->rbp.kind) {
	case 'c':
		row->rbp_kind = GS_RECOVERY_AT_CFA_OFFSET;
		row->rbp_offset = r->rbp.off;
		return -1;
	case 'v':
		row->rbp_kind = GS_RECOVERY_VAL_CFA_OFFSET;
		row->rbp_offset = r->rbp.off;
		return -1;
	case 'r':
		if (r->rbp.reg != 6 && r->rbp.reg != 7 && r->rbp.reg != 16)
			return GS_CFI_DROP_RBP_RULE;
		row->rbp_kind = GS_RECOVERY_REGISTER;
		row->rbp_register = (uint16_t)r->rbp.reg;
		return -1;
	case 's':
	case 'u':
		row->rbp_kind = GS_RECOVERY_SAME_VALUE;
		return -1;
	default:
		return GS_CFI_DROP_RBP_RULE;
	}
}

const struct rf_row *rf_row_at(const struct rf_frames *f, uint64_t pc, bool debug_frame,
			       const struct rf_fde **fde, uint64_t *row_end)
{
	for (size_t i = 0; i < f->n; i++) {
		const struct rf_fde *d = &f->fdes[i];
		const struct rf_row *best = NULL;
		size_t bi = 0;

		if (d->debug_frame != debug_frame || pc < d->lo || pc >= d->hi)
			continue;
		for (size_t j = 0; j < d->nrows; j++)
			if (d->rows[j].loc <= pc) {
				best = &d->rows[j];
				bi = j;
			}
		if (!best)
			continue;
		if (fde)
			*fde = d;
		if (row_end) {
			*row_end = d->hi;
			for (size_t j = bi + 1; j < d->nrows; j++)
				if (d->rows[j].loc > pc) {
					*row_end = d->rows[j].loc;
					break;
				}
		}
		return best;
	}
	return NULL;
}

bool rf_eh_overlaps(const struct rf_frames *f, uint64_t lo, uint64_t hi)
{
	for (size_t i = 0; i < f->n; i++)
		if (!f->fdes[i].debug_frame && f->fdes[i].lo < hi && lo < f->fdes[i].hi)
			return true;
	return false;
}
